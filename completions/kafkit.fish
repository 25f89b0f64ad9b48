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
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "topics" -d 'Create, delete, describe, or change a topic (kafka-topics.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "dump-log-segments" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "dump-log" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "generate" -d 'Write shell completions and man pages (used to refresh `completions/` and `man/`)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "simulate-assignment" -d 'Show how Kafka\'s consumer-group assignors share partitions over scripted rebalances (range, roundrobin, sticky, cooperative-sticky, uniform, server-range), exactly as Kafka'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l topic -d 'The topic to create, alter, describe or delete. Except with --create it is a regular expression that must match whole names, where `,` means `|` (`a,b` selects a and b; escape dots: `my\\.topic`)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l topic-id -d 'The topic id to describe (22-character base64); wins over --topic' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l partitions -d 'The number of partitions for the topic being created or altered (default for create: the broker default num.partitions = 1)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l replication-factor -d 'The replication factor for each partition of the topic being created (default 1; this one-broker directory cannot hold more)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l replica-assignment -d 'A list of manual partition-to-broker assignments for the topic being created or altered: `broker:broker,broker:broker,...` (partition 0 first)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l config -d 'A topic configuration override for the topic being created, `name=value`; repeatable. Names: cleanup.policy, compression.type, retention.ms, segment.bytes, ... (every Kafka topic config)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l delete-config -d 'No longer supported (Kafka 4.0); prints a warning only' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l bootstrap-server -d 'Accepted for compatibility with kafka-topics.sh and ignored: kafkit works on --data-dir, not on a broker' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l command-config -d 'Accepted for compatibility with kafka-topics.sh and ignored' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l partition-size-limit-per-response -d 'Accepted for compatibility with kafka-topics.sh and ignored' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l create -d 'Create a new topic'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l list -d 'List all available topics'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l describe -d 'List details for the given topics'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l alter -d 'Alter the number of partitions and replica assignment. (To alter topic configurations, the kafka-configs tool can be used.)'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l delete -d 'Delete a topic'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l if-exists -d 'With --alter, --delete or --describe: only act if the topic exists'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l if-not-exists -d 'With --create: only create the topic if it does not already exist'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l exclude-internal -d 'Exclude internal topics when running --list or --describe'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l topics-with-overrides -d 'With --describe: only show topics that have overridden configs'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l under-replicated-partitions -d 'With --describe: only show under-replicated partitions'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l unavailable-partitions -d 'With --describe: only show partitions whose leader is not available'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l under-min-isr-partitions -d 'With --describe: only show partitions whose ISR count is below the configured minimum'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l at-min-isr-partitions -d 'With --describe: only show partitions whose ISR count equals the configured minimum'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -s V -l version -d 'Print version'
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
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l strategy -d 'The assignment strategy: range, roundrobin, sticky, cooperative-sticky (classic protocol, client side), uniform, server-range (new consumer protocol, server side), or a Kafka class name such as org.apache.kafka.clients.consumer.CooperativeStickyAssignor' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l topic -d 'A topic, as NAME:PARTITIONS; a bare NAME takes its partition count from --data-dir' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l members -d 'Members subscribed to every topic, comma-separated, in join order' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l member -d 'A member with its own subscription, as ID=TOPIC,TOPIC (repeatable; joins after --members)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l rack -d 'A member\'s rack (client.rack), as ID=RACK (repeatable)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l instance-id -d 'A member\'s group.instance.id (static membership), as ID=INSTANCE (repeatable)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l then -d 'A rebalance event, in order (repeatable): "join c4", "join c5=orders rack=b", "leave c2", "crash c1", "add-partitions orders:12", "create-topic audit:3", "subscribe c3=orders", "delete-topic payments"' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l scenario -d 'A scenario file (JSON, see docs/simulate-assignment.md), or an assignor test vector (spec/vectors/assignors schema), which is replayed round by round' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l compare -d 'Run the same script under several strategies and compare them side by side' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l group -d 'The group id (it decides the coordinator)' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l offsets-topic-partitions -d 'offsets.topic.num.partitions: the partition count of __consumer_offsets' -r
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l explain -d 'Show the protocol trace of each round: coordinator, JoinGroup, leader, protocol, SyncGroup (classic) or target assignment and reconciliation (new protocol)'
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments generate simulate-assignment help" -f -a "topics" -d 'Create, delete, describe, or change a topic (kafka-topics.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments generate simulate-assignment help" -f -a "dump-log-segments" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments generate simulate-assignment help" -f -a "generate" -d 'Write shell completions and man pages (used to refresh `completions/` and `man/`)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments generate simulate-assignment help" -f -a "simulate-assignment" -d 'Show how Kafka\'s consumer-group assignors share partitions over scripted rebalances (range, roundrobin, sticky, cooperative-sticky, uniform, server-range), exactly as Kafka'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments generate simulate-assignment help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
