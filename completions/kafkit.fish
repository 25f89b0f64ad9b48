# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kafkit_global_optspecs
    string join \n data-dir= output= h/help V/version
end

function __fish_kafkit_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kafkit_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kafkit_using_subcommand
    set -l cmd (__fish_kafkit_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kafkit -n "__fish_kafkit_needs_command" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_needs_command" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_needs_command" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "dump-log-segments" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "dump-log" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "generate" -d 'Write shell completions and man pages (used to refresh `completions/` and `man/`)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l files -d 'REQUIRED: The comma separated list of data and index log files to be dumped' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l max-message-size -d 'Size of largest message' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l max-bytes -d 'Limit the amount of total batches read in bytes avoiding reading the whole .log file(s)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l key-decoder -d 'How to print record keys (in place of Kafka\'s --key-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l value-decoder -d 'How to print record values (in place of Kafka\'s --value-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l print-data-log -d 'If set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l verify-index-only -d 'If set, just verify the index log without printing its content'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l index-sanity-check -d 'If set, just checks the index sanity without printing its content. This is the same check that is executed on broker startup to determine if an index needs rebuilding or not'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l deep-iteration -d 'If set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l offsets-decoder -d 'If set, log data will be parsed as offset data from the __consumer_offsets topic'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l transaction-log-decoder -d 'If set, log data will be parsed as transaction metadata from the __transaction_state topic'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l cluster-metadata-decoder -d 'If set, log data will be parsed as cluster metadata records'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l skip-record-metadata -d 'Skip metadata when printing records. This flag also skips control records'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l strict -d 'Exit with status 3 when anything is wrong: a bad CRC, invalid trailing bytes, an index entry that does not match the log, time-index errors, or non-consecutive offsets in a log that shows no sign of compaction'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l files -d 'REQUIRED: The comma separated list of data and index log files to be dumped' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l max-message-size -d 'Size of largest message' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l max-bytes -d 'Limit the amount of total batches read in bytes avoiding reading the whole .log file(s)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l key-decoder -d 'How to print record keys (in place of Kafka\'s --key-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l value-decoder -d 'How to print record values (in place of Kafka\'s --value-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l print-data-log -d 'If set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l verify-index-only -d 'If set, just verify the index log without printing its content'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l index-sanity-check -d 'If set, just checks the index sanity without printing its content. This is the same check that is executed on broker startup to determine if an index needs rebuilding or not'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l deep-iteration -d 'If set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l offsets-decoder -d 'If set, log data will be parsed as offset data from the __consumer_offsets topic'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l transaction-log-decoder -d 'If set, log data will be parsed as transaction metadata from the __transaction_state topic'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l cluster-metadata-decoder -d 'If set, log data will be parsed as cluster metadata records'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l skip-record-metadata -d 'Skip metadata when printing records. This flag also skips control records'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l strict -d 'Exit with status 3 when anything is wrong: a bad CRC, invalid trailing bytes, an index entry that does not match the log, time-index errors, or non-consecutive offsets in a log that shows no sign of compaction'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -l out-dir -d 'The directory that receives `completions/` and `man/`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand generate" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from dump-log-segments generate help" -f -a "dump-log-segments" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from dump-log-segments generate help" -f -a "generate" -d 'Write shell completions and man pages (used to refresh `completions/` and `man/`)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from dump-log-segments generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
