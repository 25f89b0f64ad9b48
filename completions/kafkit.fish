# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kafkit_global_optspecs
    string join \n data-dir= output= q/quiet h/help V/version
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

complete -c kafkit -n "__fish_kafkit_needs_command" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_needs_command" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_needs_command" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_needs_command" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "topics" -d 'Create, delete, describe, or change a topic (kafka-topics.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "dump-log-segments" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "dump-log" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "produce" -d 'Write records to a topic from lines of text or JSON (kafka-console-producer.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "console-producer" -d 'Write records to a topic from lines of text or JSON (kafka-console-producer.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "consume" -d 'Read records from a topic\'s partitions (kafka-console-consumer.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "console-consumer" -d 'Read records from a topic\'s partitions (kafka-console-consumer.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "get-offsets" -d 'Print the offsets of a topic\'s partitions: latest, earliest, max timestamp, or by time (kafka-get-offsets.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "consumer-groups" -d 'List and describe consumer groups: state, members, committed offsets and lag, read from the data directory\'s __consumer_offsets (kafka-consumer-groups.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "configs" -d 'Describe or change a topic\'s configs: its overrides, with Kafka\'s validation (kafka-configs.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "delete-records" -d 'Delete records of partitions below an offset: moves their log start offsets (kafka-delete-records.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "log-dirs" -d 'Describe the data directory\'s partitions and their sizes, as Kafka\'s JSON (kafka-log-dirs.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "log-cleaner" -d 'Delete old segments and compact compacted topics as a broker\'s retention and log cleaner do, in one pass now or at --now; --dry-run shows what would go and why'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "simulate-assignment" -d 'Show how Kafka\'s consumer-group assignors share partitions over scripted rebalances (range, roundrobin, sticky, cooperative-sticky, uniform, server-range), exactly as Kafka'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "metadata" -d 'Show a cluster\'s brokers, topics and partitions (leader, replicas, ISR) from its KRaft metadata log (__cluster_metadata-0), as kcat -L does'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "cluster" -d 'A cluster described by its KRaft metadata log: what taking brokers down would do'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "reassign-partitions" -d 'Move partitions\' replicas, with their data, between a cluster\'s brokers (kafka-reassign-partitions.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "leader-election" -d 'Elect partitions\' leaders in a cluster: preferred or unclean (kafka-leader-election.sh)'
complete -c kafkit -n "__fish_kafkit_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l topic -d 'The topic to create, alter, describe or delete. Except with --create it is a regular expression that must match whole names, where `,` means `|` (`a,b` selects a and b; escape dots: `my\\.topic`)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l topic-id -d 'The topic id to describe (22-character base64); wins over --topic' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l partitions -d 'The number of partitions for the topic being created or altered (default for create: the broker default num.partitions = 1)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l replication-factor -d 'The replication factor for each partition of the topic being created (default 1; this one-broker directory cannot hold more)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l replica-assignment -d 'A list of manual partition-to-broker assignments for the topic being created or altered: `broker:broker,broker:broker,...` (partition 0 first)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l config -d 'A topic configuration override for the topic being created, `name=value`; repeatable. Names: cleanup.policy, compression.type, retention.ms, segment.bytes, ... (every Kafka topic config)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l delete-config -d 'No longer supported (Kafka 4.0); prints a warning only' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l bootstrap-server -d 'The brokers to connect to, `HOST:PORT[,HOST:PORT...]`, instead of --data-dir: every action runs against that cluster' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l command-config -d 'With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms, default.api.timeout.ms, client.id, ...)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l partition-size-limit-per-response -d 'Accepted for compatibility with kafka-topics.sh and ignored' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
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
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand topics" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l files -d 'REQUIRED: The comma separated list of data and index log files to be dumped. A partition directory stands for its segment files, in offset order' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l max-message-size -d 'Size of largest message' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l max-bytes -d 'Limit the amount of total batches read in bytes avoiding reading the whole .log file(s)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l key-decoder -d 'How to print record keys (in place of Kafka\'s --key-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l value-decoder -d 'How to print record values (in place of Kafka\'s --value-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
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
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log-segments" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l files -d 'REQUIRED: The comma separated list of data and index log files to be dumped. A partition directory stands for its segment files, in offset order' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l max-message-size -d 'Size of largest message' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l max-bytes -d 'Limit the amount of total batches read in bytes avoiding reading the whole .log file(s)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l key-decoder -d 'How to print record keys (in place of Kafka\'s --key-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l value-decoder -d 'How to print record values (in place of Kafka\'s --value-decoder-class)' -r -f -a "string\t'UTF-8, malformed sequences replaced by U+FFFD (Kafka\'s `StringDecoder`)'
hex\t'Lower-case hexadecimal'
integer\t'A big-endian int32 from the first 4 bytes (Kafka\'s `IntegerDecoder`)'
long\t'A big-endian int64 from the first 8 bytes (Kafka\'s `LongDecoder`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
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
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand dump-log" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l topic -d 'The topic to produce messages to' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l file -d 'Read lines from this file instead of standard input (a progress bar shows on a terminal)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l input -d 'The input format: Kafka\'s text lines, or the JSON Lines of `consume --output json` (key, value, headers, timestamp and partition are used)' -r -f -a "text\t'Kafka\'s console-producer lines'
json\t'JSON Lines as `consume --output json` prints them'"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l partition -d 'Write every record to this partition instead of asking the partitioner' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l partitioner -d 'How records without --partition are spread: default = keyed by murmur2, unkeyed sticky (Kafka 3.3+); round-robin; random; murmur2 = keyed by murmur2, unkeyed rotating (Kafka before 2.4)' -r -f -a "default\t'Keyed: murmur2; unkeyed: uniform sticky (Kafka 3.3+ default)'
round-robin\t'Strict rotation over the partitions, keys ignored'
random\t'A random partition per record, keys ignored'
murmur2\t'Keyed: murmur2; unkeyed: rotation per record (Kafka before 2.4)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l partitioner-seed -d 'Seed of the random choices of the default and random partitioners (reproducible runs)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l batch-size -d 'Batch size in bytes (batch.size, default 16384): a batch is written when the next record would not fit' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l max-partition-memory-bytes -d 'Also batch.size; wins over --batch-size when both are given, as in Kafka' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l compression-codec -d 'The compression codec: none, gzip, snappy, lz4 or zstd. Given without a value: gzip. Default: the topic\'s compression.type (none when it is `producer`)' -r -f -a "none\t''
gzip\t''
snappy\t''
lz4\t''
zstd\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l request-required-acks -l acks -d 'The acknowledgements the producer requires: 0, 1, or all (= -1, Kafka\'s default). With all, a record is acknowledged once an fsync covers it; the fsyncs run while appends go on, each covering every batch written meanwhile (group commit). With 0 or 1, as on a broker, flushing is left to the topic\'s flush.messages / flush.ms, segment rolls and the operating system, also when the run ends: a crash of the machine can lose what was written since the last flush (the next writer then cuts any torn tail)' -r -f -a "all\t''
1\t''
0\t''
-1\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l property -d 'A line reader property, name=value; repeatable: parse.key, key.separator, parse.headers, headers.delimiter, headers.separator, headers.key.separator, null.marker, ignore.error. Other names are warned about' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l producer-property -d 'A producer config, name=value; repeatable. Used: acks, batch.size, compression.type, linger.ms, max.request.size, and with --bootstrap-server enable.idempotence, max.in.flight.requests.per.connection and the connection and security configs (accepted and ignored for --data-dir); other names are warned about (Kafka\'s "supplied but are not used yet")' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l reader-config -d 'A properties file of line reader properties; --property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l producer.config -d 'A properties file of producer configs; --producer-property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l bootstrap-server -d 'The brokers to send the records to, `HOST:PORT[,HOST:PORT...]`, instead of writing them to --data-dir (client properties from --producer.config and --producer-property, with Kafka\'s names: acks, enable.idempotence, request.timeout.ms, ...)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l line-reader -d 'The class reading the input: Kafka\'s org.apache.kafka.tools.LineMessageReader (the default) is the one there is (--input json reads consume\'s JSON Lines instead)' -r -f -a "org.apache.kafka.tools.LineMessageReader\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l timeout -d 'How long a batch waits for more records before it is written, in ms (linger.ms; default 1000, Kafka\'s console producer\'s): a record of a quiet input is written this long after it is read, not at the end of the input' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l sync -d 'Send records synchronously: each record is its own batch, fsynced before the next'
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -l explain -d 'On a local cluster: print to stderr, before producing, the producer\'s metadata lookup (each partition\'s leader, listener and leader epoch), the broker each partition\'s batches go to, and the NOT_LEADER_OR_FOLLOWER redirect when the leader it cached at the last produce has moved'
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand produce" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l topic -d 'The topic to produce messages to' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l file -d 'Read lines from this file instead of standard input (a progress bar shows on a terminal)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l input -d 'The input format: Kafka\'s text lines, or the JSON Lines of `consume --output json` (key, value, headers, timestamp and partition are used)' -r -f -a "text\t'Kafka\'s console-producer lines'
json\t'JSON Lines as `consume --output json` prints them'"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l partition -d 'Write every record to this partition instead of asking the partitioner' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l partitioner -d 'How records without --partition are spread: default = keyed by murmur2, unkeyed sticky (Kafka 3.3+); round-robin; random; murmur2 = keyed by murmur2, unkeyed rotating (Kafka before 2.4)' -r -f -a "default\t'Keyed: murmur2; unkeyed: uniform sticky (Kafka 3.3+ default)'
round-robin\t'Strict rotation over the partitions, keys ignored'
random\t'A random partition per record, keys ignored'
murmur2\t'Keyed: murmur2; unkeyed: rotation per record (Kafka before 2.4)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l partitioner-seed -d 'Seed of the random choices of the default and random partitioners (reproducible runs)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l batch-size -d 'Batch size in bytes (batch.size, default 16384): a batch is written when the next record would not fit' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l max-partition-memory-bytes -d 'Also batch.size; wins over --batch-size when both are given, as in Kafka' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l compression-codec -d 'The compression codec: none, gzip, snappy, lz4 or zstd. Given without a value: gzip. Default: the topic\'s compression.type (none when it is `producer`)' -r -f -a "none\t''
gzip\t''
snappy\t''
lz4\t''
zstd\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l request-required-acks -l acks -d 'The acknowledgements the producer requires: 0, 1, or all (= -1, Kafka\'s default). With all, a record is acknowledged once an fsync covers it; the fsyncs run while appends go on, each covering every batch written meanwhile (group commit). With 0 or 1, as on a broker, flushing is left to the topic\'s flush.messages / flush.ms, segment rolls and the operating system, also when the run ends: a crash of the machine can lose what was written since the last flush (the next writer then cuts any torn tail)' -r -f -a "all\t''
1\t''
0\t''
-1\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l property -d 'A line reader property, name=value; repeatable: parse.key, key.separator, parse.headers, headers.delimiter, headers.separator, headers.key.separator, null.marker, ignore.error. Other names are warned about' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l producer-property -d 'A producer config, name=value; repeatable. Used: acks, batch.size, compression.type, linger.ms, max.request.size, and with --bootstrap-server enable.idempotence, max.in.flight.requests.per.connection and the connection and security configs (accepted and ignored for --data-dir); other names are warned about (Kafka\'s "supplied but are not used yet")' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l reader-config -d 'A properties file of line reader properties; --property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l producer.config -d 'A properties file of producer configs; --producer-property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l bootstrap-server -d 'The brokers to send the records to, `HOST:PORT[,HOST:PORT...]`, instead of writing them to --data-dir (client properties from --producer.config and --producer-property, with Kafka\'s names: acks, enable.idempotence, request.timeout.ms, ...)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l line-reader -d 'The class reading the input: Kafka\'s org.apache.kafka.tools.LineMessageReader (the default) is the one there is (--input json reads consume\'s JSON Lines instead)' -r -f -a "org.apache.kafka.tools.LineMessageReader\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l timeout -d 'How long a batch waits for more records before it is written, in ms (linger.ms; default 1000, Kafka\'s console producer\'s): a record of a quiet input is written this long after it is read, not at the end of the input' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l sync -d 'Send records synchronously: each record is its own batch, fsynced before the next'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -l explain -d 'On a local cluster: print to stderr, before producing, the producer\'s metadata lookup (each partition\'s leader, listener and leader epoch), the broker each partition\'s batches go to, and the NOT_LEADER_OR_FOLLOWER redirect when the leader it cached at the last produce has moved'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-producer" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l topic -d 'The topic to consume on' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l include -d 'Regular expression specifying list of topics to include for consumption' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l partition -d 'The partition to consume from. Consumption starts from the end of the partition unless \'--offset\' is specified' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l offset -d 'The offset to consume from (a non-negative number), or \'earliest\' which means from beginning, or \'latest\' which means from end. Or a time, as kcat takes it: \'@\' and milliseconds since the epoch (@1796086513663), or an ISO-8601 time with its zone (2026-12-01T10:00:00Z, 2026-12-01T11:00:00.5+01:00): each partition starts at its first record whose timestamp is at least that (Kafka\'s offsetsForTimes, through the .timeindex), or at its end when it has none. A time applies to --partition, or without it to every partition read' -r -f -a "earliest\t''
latest\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l max-messages -d 'The maximum number of messages to consume before exiting. If not set, consumption is continual (as with -1; any other negative number consumes none, as in Kafka)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l timeout-ms -d 'If specified, exit if no message is available for consumption for the specified interval (a negative one: no limit, as in Kafka)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l isolation-level -d 'Set to read_committed in order to filter out transactional messages which are not committed. Set to read_uncommitted to read all messages' -r -f -a "read_uncommitted\t'Every record, including those of open and aborted transactions'
read_committed\t'Only committed records, up to the first open transaction'"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l group -d 'The consumer group: the partitions of --topic or --include are shared with the group\'s other members (other kafkit processes on this data directory), read from the group\'s committed offsets, and what was printed is committed' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l property -d 'A message formatter property, name=value; repeatable: print.timestamp, print.key, print.value, print.partition, print.offset, print.headers, print.epoch, print.delivery, key.separator, line.separator, headers.separator, null.literal, key.deserializer, value.deserializer, headers.deserializer. Text output only' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l consumer-property -d 'A consumer config, name=value; repeatable. Used: isolation.level, auto.offset.reset, metadata.max.age.ms, exclude.internal.topics, and with a group group.id, client.id, group.instance.id, session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms, partition.assignment.strategy, enable.auto.commit, auto.commit.interval.ms (and, for tests, the coordinator\'s group.initial.rebalance.delay.ms and group.min.session.timeout.ms)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l key-deserializer -d 'The class to deserialize keys with before printing them (Kafka\'s org.apache.kafka.common.serialization.*Deserializer: String, Short, Integer, Long, Float, Double, Boolean, UUID, Bytes, ByteBuffer, Void), printed as on Java 19+; the key.deserializer property' -r -f -a "org.apache.kafka.common.serialization.StringDeserializer\t''
org.apache.kafka.common.serialization.ShortDeserializer\t''
org.apache.kafka.common.serialization.IntegerDeserializer\t''
org.apache.kafka.common.serialization.LongDeserializer\t''
org.apache.kafka.common.serialization.FloatDeserializer\t''
org.apache.kafka.common.serialization.DoubleDeserializer\t''
org.apache.kafka.common.serialization.BooleanDeserializer\t''
org.apache.kafka.common.serialization.UUIDDeserializer\t''
org.apache.kafka.common.serialization.BytesDeserializer\t''
org.apache.kafka.common.serialization.ByteBufferDeserializer\t''
org.apache.kafka.common.serialization.VoidDeserializer\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l value-deserializer -d 'The class to deserialize values with before printing them (as --key-deserializer); the value.deserializer property. headers.deserializer (--property) does header values' -r -f -a "org.apache.kafka.common.serialization.StringDeserializer\t''
org.apache.kafka.common.serialization.ShortDeserializer\t''
org.apache.kafka.common.serialization.IntegerDeserializer\t''
org.apache.kafka.common.serialization.LongDeserializer\t''
org.apache.kafka.common.serialization.FloatDeserializer\t''
org.apache.kafka.common.serialization.DoubleDeserializer\t''
org.apache.kafka.common.serialization.BooleanDeserializer\t''
org.apache.kafka.common.serialization.UUIDDeserializer\t''
org.apache.kafka.common.serialization.BytesDeserializer\t''
org.apache.kafka.common.serialization.ByteBufferDeserializer\t''
org.apache.kafka.common.serialization.VoidDeserializer\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l formatter -d 'The formatter (org.apache.kafka.tools.consumer.*): DefaultMessageFormatter (the default), LoggingMessageFormatter, NoOpMessageFormatter, and for internal topics OffsetsMessageFormatter, GroupMetadataMessageFormatter, TransactionLogMessageFormatter (the JSON of Kafka\'s 4.0 line at commit 1eb7644, the dump goldens\' reference: later releases label the key\'s version "type"; no newline after a record; they take no --property nor deserializer). Text output only: --output json prints its own objects' -r -f -a "org.apache.kafka.tools.consumer.DefaultMessageFormatter\t''
org.apache.kafka.tools.consumer.LoggingMessageFormatter\t''
org.apache.kafka.tools.consumer.NoOpMessageFormatter\t''
org.apache.kafka.tools.consumer.OffsetsMessageFormatter\t''
org.apache.kafka.tools.consumer.GroupMetadataMessageFormatter\t''
org.apache.kafka.tools.consumer.TransactionLogMessageFormatter\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l formatter-config -d 'A properties file of formatter properties; --property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l consumer.config -d 'A properties file of consumer configs; --consumer-property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l bootstrap-server -d 'The brokers to fetch from, `HOST:PORT[,HOST:PORT...]`, instead of reading --data-dir (client properties from --consumer.config and --consumer-property, with Kafka\'s names; without --group)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l format -d 'Print each record as this kcat format string says (kcat\'s -f) instead of Kafka\'s formatter: %s value, %S value size, %R value size as a big-endian int32 (binary), %k key, %K key size (-1 for null), %t topic, %p partition, %o offset, %T timestamp (ms), %h headers (name=value,...), %% a %; \\n \\r \\t \\xHH \\NNN in the text. Nothing is added after a record (end the format with \\n). Cannot be used with Kafka\'s formatter options (--formatter, --formatter-config, --property, --key-deserializer, --value-deserializer) nor --output json' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l format-escape -d 'How --format writes %s, %k, %t and %h: as bytes (none, kcat\'s way), or as JSON values with their quotes (json: a string, null, or {"base64": ...} for bytes that are not UTF-8), so that \'{"key":%k,"value":%s}\\n\' makes a JSON line whatever the record holds' -r -f -a "none\t'Bytes as they are (kcat\'s way)'
json\t'JSON values: strings with their quotes, `null`, `{"base64": ...}`'"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l from-beginning -d 'Start with the earliest message present in the log rather than the latest message'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l enable-systest-events -d 'Print `shutdown_complete` on stdout when the consumer ends, as Kafka\'s does for its system tests (its shutdown hook; it runs however the consumer ended, once it had started)'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l skip-message-on-error -d 'If there is an error when processing a message, skip it instead of halting'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -l exit-at-end -d 'Exit (0) once every partition read has been read to its end, as kcat\'s -e: no waiting for new records, no TimeoutException. Not an option of Kafka\'s tool'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand consume" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l topic -d 'The topic to consume on' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l include -d 'Regular expression specifying list of topics to include for consumption' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l partition -d 'The partition to consume from. Consumption starts from the end of the partition unless \'--offset\' is specified' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l offset -d 'The offset to consume from (a non-negative number), or \'earliest\' which means from beginning, or \'latest\' which means from end. Or a time, as kcat takes it: \'@\' and milliseconds since the epoch (@1796086513663), or an ISO-8601 time with its zone (2026-12-01T10:00:00Z, 2026-12-01T11:00:00.5+01:00): each partition starts at its first record whose timestamp is at least that (Kafka\'s offsetsForTimes, through the .timeindex), or at its end when it has none. A time applies to --partition, or without it to every partition read' -r -f -a "earliest\t''
latest\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l max-messages -d 'The maximum number of messages to consume before exiting. If not set, consumption is continual (as with -1; any other negative number consumes none, as in Kafka)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l timeout-ms -d 'If specified, exit if no message is available for consumption for the specified interval (a negative one: no limit, as in Kafka)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l isolation-level -d 'Set to read_committed in order to filter out transactional messages which are not committed. Set to read_uncommitted to read all messages' -r -f -a "read_uncommitted\t'Every record, including those of open and aborted transactions'
read_committed\t'Only committed records, up to the first open transaction'"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l group -d 'The consumer group: the partitions of --topic or --include are shared with the group\'s other members (other kafkit processes on this data directory), read from the group\'s committed offsets, and what was printed is committed' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l property -d 'A message formatter property, name=value; repeatable: print.timestamp, print.key, print.value, print.partition, print.offset, print.headers, print.epoch, print.delivery, key.separator, line.separator, headers.separator, null.literal, key.deserializer, value.deserializer, headers.deserializer. Text output only' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l consumer-property -d 'A consumer config, name=value; repeatable. Used: isolation.level, auto.offset.reset, metadata.max.age.ms, exclude.internal.topics, and with a group group.id, client.id, group.instance.id, session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms, partition.assignment.strategy, enable.auto.commit, auto.commit.interval.ms (and, for tests, the coordinator\'s group.initial.rebalance.delay.ms and group.min.session.timeout.ms)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l key-deserializer -d 'The class to deserialize keys with before printing them (Kafka\'s org.apache.kafka.common.serialization.*Deserializer: String, Short, Integer, Long, Float, Double, Boolean, UUID, Bytes, ByteBuffer, Void), printed as on Java 19+; the key.deserializer property' -r -f -a "org.apache.kafka.common.serialization.StringDeserializer\t''
org.apache.kafka.common.serialization.ShortDeserializer\t''
org.apache.kafka.common.serialization.IntegerDeserializer\t''
org.apache.kafka.common.serialization.LongDeserializer\t''
org.apache.kafka.common.serialization.FloatDeserializer\t''
org.apache.kafka.common.serialization.DoubleDeserializer\t''
org.apache.kafka.common.serialization.BooleanDeserializer\t''
org.apache.kafka.common.serialization.UUIDDeserializer\t''
org.apache.kafka.common.serialization.BytesDeserializer\t''
org.apache.kafka.common.serialization.ByteBufferDeserializer\t''
org.apache.kafka.common.serialization.VoidDeserializer\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l value-deserializer -d 'The class to deserialize values with before printing them (as --key-deserializer); the value.deserializer property. headers.deserializer (--property) does header values' -r -f -a "org.apache.kafka.common.serialization.StringDeserializer\t''
org.apache.kafka.common.serialization.ShortDeserializer\t''
org.apache.kafka.common.serialization.IntegerDeserializer\t''
org.apache.kafka.common.serialization.LongDeserializer\t''
org.apache.kafka.common.serialization.FloatDeserializer\t''
org.apache.kafka.common.serialization.DoubleDeserializer\t''
org.apache.kafka.common.serialization.BooleanDeserializer\t''
org.apache.kafka.common.serialization.UUIDDeserializer\t''
org.apache.kafka.common.serialization.BytesDeserializer\t''
org.apache.kafka.common.serialization.ByteBufferDeserializer\t''
org.apache.kafka.common.serialization.VoidDeserializer\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l formatter -d 'The formatter (org.apache.kafka.tools.consumer.*): DefaultMessageFormatter (the default), LoggingMessageFormatter, NoOpMessageFormatter, and for internal topics OffsetsMessageFormatter, GroupMetadataMessageFormatter, TransactionLogMessageFormatter (the JSON of Kafka\'s 4.0 line at commit 1eb7644, the dump goldens\' reference: later releases label the key\'s version "type"; no newline after a record; they take no --property nor deserializer). Text output only: --output json prints its own objects' -r -f -a "org.apache.kafka.tools.consumer.DefaultMessageFormatter\t''
org.apache.kafka.tools.consumer.LoggingMessageFormatter\t''
org.apache.kafka.tools.consumer.NoOpMessageFormatter\t''
org.apache.kafka.tools.consumer.OffsetsMessageFormatter\t''
org.apache.kafka.tools.consumer.GroupMetadataMessageFormatter\t''
org.apache.kafka.tools.consumer.TransactionLogMessageFormatter\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l formatter-config -d 'A properties file of formatter properties; --property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l consumer.config -d 'A properties file of consumer configs; --consumer-property wins over it' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l bootstrap-server -d 'The brokers to fetch from, `HOST:PORT[,HOST:PORT...]`, instead of reading --data-dir (client properties from --consumer.config and --consumer-property, with Kafka\'s names; without --group)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l format -d 'Print each record as this kcat format string says (kcat\'s -f) instead of Kafka\'s formatter: %s value, %S value size, %R value size as a big-endian int32 (binary), %k key, %K key size (-1 for null), %t topic, %p partition, %o offset, %T timestamp (ms), %h headers (name=value,...), %% a %; \\n \\r \\t \\xHH \\NNN in the text. Nothing is added after a record (end the format with \\n). Cannot be used with Kafka\'s formatter options (--formatter, --formatter-config, --property, --key-deserializer, --value-deserializer) nor --output json' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l format-escape -d 'How --format writes %s, %k, %t and %h: as bytes (none, kcat\'s way), or as JSON values with their quotes (json: a string, null, or {"base64": ...} for bytes that are not UTF-8), so that \'{"key":%k,"value":%s}\\n\' makes a JSON line whatever the record holds' -r -f -a "none\t'Bytes as they are (kcat\'s way)'
json\t'JSON values: strings with their quotes, `null`, `{"base64": ...}`'"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l from-beginning -d 'Start with the earliest message present in the log rather than the latest message'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l enable-systest-events -d 'Print `shutdown_complete` on stdout when the consumer ends, as Kafka\'s does for its system tests (its shutdown hook; it runs however the consumer ended, once it had started)'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l skip-message-on-error -d 'If there is an error when processing a message, skip it instead of halting'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -l exit-at-end -d 'Exit (0) once every partition read has been read to its end, as kcat\'s -e: no waiting for new records, no TimeoutException. Not an option of Kafka\'s tool'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand console-consumer" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l topic -d 'The topic to get the offsets for: a regular expression that must match whole names (`,` means `|`). Default: all topics' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l partitions -d 'Comma separated list of partition ids. Default: all partitions' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l topic-partitions -d 'Comma separated list of topic-partition patterns `TOPIC_REGEX[:PARTITIONS]` where PARTITIONS is N, N-M (M exclusive), N- or -M; cannot be used with --topic or --partitions' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l time -d 'The time to get offsets for: -1 or latest, -2 or earliest, -3 or max-timestamp, -4 or earliest-local, -5 or latest-tiered, or a timestamp in milliseconds (the first offset whose timestamp is at least it, found through the .timeindex)' -r -f -a "latest\t''
earliest\t''
max-timestamp\t''
earliest-local\t''
latest-tiered\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l bootstrap-server -d 'The brokers to ask (ListOffsets), `HOST:PORT[,HOST:PORT...]`, instead of reading --data-dir' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l command-config -d 'With --bootstrap-server: a file of Kafka client properties (request.timeout.ms, default.api.timeout.ms, client.id, ...)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -l exclude-internal-topics -d 'Exclude internal topics (__consumer_offsets, ...) from the listing'
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand get-offsets" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l topic -d 'The topic whose consumer group information should be deleted or topic whose should be included in the reset offset process. In `reset-offsets` case, partitions can be specified using this format: `topic1:0,1,2`, where 0,1,2 are the partition to be included in the process. Reset-offsets also supports multiple topic inputs' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l to-offset -d 'Reset offsets to a specific offset' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l from-file -d 'Reset offsets to values defined in CSV file (`topic,partition,offset` lines for one --group, else `group,topic,partition,offset`: what --export prints)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l to-datetime -d 'Reset offsets to offset from datetime. Format: \'YYYY-MM-DDTHH:mm:SS.sss\' (a zone `Z`, `+hh`, `+hhmm` or `+hh:mm` may follow; none is UTC)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l by-duration -d 'Reset offsets to offset by duration from current timestamp. Format: \'PnDTnHnMnS\'. The current time is the clock\'s, or KAFKIT_NOW_MS (ms since the epoch) when it is set' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l shift-by -d 'Reset offsets shifting current offset by \'n\', where \'n\' can be positive or negative' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l group -d 'The consumer group we wish to act on (repeatable)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l state -d 'When specified with \'--describe\', includes the state of the group. When specified with \'--list\', it displays the state of all groups; it can also list groups with specific states (comma-separated, any case: stable,empty)' -r -f -a "PreparingRebalance\t''
CompletingRebalance\t''
Stable\t''
Dead\t''
Empty\t''
Assigning\t''
Reconciling\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l type -d 'When specified with \'--list\', it displays the types of all the groups; it can also list groups with specific types (comma-separated: classic,consumer)' -r -f -a "classic\t''
consumer\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l bootstrap-server -d 'The brokers to connect to instead of --data-dir (every action: the groups of the cluster\'s coordinators)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l command-config -d 'Kafka\'s admin client properties for --bootstrap-server (request.timeout.ms, ...)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l timeout -d 'Accepted for compatibility with kafka-consumer-groups.sh and ignored (the groups are read from disk; there is nothing to wait for)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l list -d 'List all consumer groups'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l delete -d 'Pass in groups to delete topic partition offsets and ownership information over the entire consumer group. For instance --group g1 --group g2'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l reset-offsets -d 'Reset offsets of consumer group. Supports one consumer group at the time, and instances should be inactive. Has 2 execution options: --dry-run (the default) to plan which offsets to reset, and --execute to update the offsets. Additionally, the --export option is used to export the results to a CSV format. You must choose one of the following reset specifications: --to-datetime, --by-duration, --to-earliest, --to-latest, --shift-by, --from-file, --to-current, --to-offset. To define the scope use --all-topics or --topic. One scope must be specified unless you use \'--from-file\''
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l delete-offsets -d 'Delete offsets of consumer group. Supports one consumer group at the time, and multiple topics'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l all-topics -d 'Consider all topics assigned to a group in the `reset-offsets` process'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l dry-run -d 'Only show results without executing changes on Consumer Groups. Supported operations: reset-offsets'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l execute -d 'Execute operation. Supported operations: reset-offsets'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l export -d 'Export operation execution to a CSV format (on stdout). Supported operations: reset-offsets'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l to-earliest -d 'Reset offsets to earliest offset'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l to-latest -d 'Reset offsets to latest offset'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l to-current -d 'Reset offsets to current offset'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l describe -d 'Describe consumer group and list offset lag (number of messages not yet processed) related to given group'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l all-groups -d 'Apply to all consumer groups'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l offsets -d 'Describe the group and list all topic partitions in the group along with their offset lag. This is the default sub-action of and may be used with \'--describe\' only'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l members -d 'Describe members of the group. This option may be used with \'--describe\' only'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -l verbose -d 'Provide additional information, if any, when describing the group (with \'--members\': each member\'s partitions). This option may be used with \'--describe\' only'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand consumer-groups" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l entity-type -d 'Type of entity: topics, or brokers (with --bootstrap-server)' -r -f -a "topics\t''
brokers\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l entity-name -d 'Name of entity (topic name/broker id)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l topic -d 'The topic\'s name (instead of --entity-type topics --entity-name)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l broker -d 'The broker\'s ID (instead of --entity-type brokers --entity-name; with --bootstrap-server)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l add-config -d 'Key Value pairs of configs to add. Square brackets can be used to group values which contain commas: \'k1=v1,k2=[v1,v2,v2],k3=v3\'. Names: every Kafka topic config (cleanup.policy, retention.ms, segment.bytes, ...)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l add-config-file -d 'Path to a properties file with configs to add' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l delete-config -d 'Config keys to remove \'k1,k2\'; repeatable' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l bootstrap-server -d 'The brokers to connect to, `HOST:PORT[,HOST:PORT...]`, instead of --data-dir' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l bootstrap-controller -d 'The Kafka controllers to connect to: not supported yet (refused)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l command-config -d 'With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms, default.api.timeout.ms, client.id, security.protocol, ...)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l alter -d 'Alter the configuration for the entity'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l describe -d 'List configs for the given entity'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l all -d 'List all configs for the given entity, defaults included'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l entity-default -d 'Default entity name for brokers (the cluster-wide default of every broker)'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -l broker-defaults -d 'The config defaults for all brokers (with --bootstrap-server)'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand configs" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -l offset-json-file -d 'The JSON file with offset per partition. The format to use is: {"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version":1} (offset -1: up to the high watermark, here the log end)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -l bootstrap-server -d 'The brokers to ask (DeleteRecords to each partition\'s leader), `HOST:PORT[,HOST:PORT...]`, instead of writing --data-dir' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -l command-config -d 'With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms, default.api.timeout.ms, security.protocol, ...)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand delete-records" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l topic-list -d 'The list of topics to be queried in the form "topic1,topic2,topic3". All topics will be queried if no topic list is specified' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l broker-list -d 'The list of brokers to be queried in the form "0,1,2". All brokers in the cluster (the data directory\'s one) will be queried if no broker list is specified' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l bootstrap-server -d 'The brokers to ask (DescribeLogDirs of each), `HOST:PORT[,HOST:PORT...]`, instead of reading --data-dir' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l command-config -d 'With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms, default.api.timeout.ms, security.protocol, ...)' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -l describe -d 'Describe the specified log directories on the specified brokers'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-dirs" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -l topic -d 'Only the topics this matches: a regular expression that must match whole names (`,` means `|`). Default: all topics' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -l now -d 'The time of the pass: milliseconds since the epoch, or the current time plus a duration (`+90s`, `+30m`, `+2h`, `+7d`, `+500ms`). Default: now' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -l dedupe-buffer-size -d 'The broker\'s log.cleaner.dedupe.buffer.size: the memory of the key-to-offset map a cleaning builds (24 bytes a key, filled to 90%); once it is full the cleaning stops there and the rest waits for the next pass, as in Kafka' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -l dry-run -d 'Print what the pass would delete and why, per segment (a table; JSON with --output json), and change nothing. Takes no lock'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand log-cleaner" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l strategy -d 'The assignment strategy: range, roundrobin, sticky, cooperative-sticky (classic protocol, client side), uniform, server-range (new consumer protocol, server side), or a Kafka class name such as org.apache.kafka.clients.consumer.CooperativeStickyAssignor' -r -f -a "range\t''
roundrobin\t''
sticky\t''
cooperative-sticky\t''
uniform\t''
server-range\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l topic -d 'A topic, as NAME:PARTITIONS; a bare NAME takes its partition count from --data-dir' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l members -d 'Members subscribed to every topic, comma-separated, in join order' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l member -d 'A member with its own subscription, as ID=TOPIC,TOPIC (repeatable; joins after --members)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l rack -d 'A member\'s rack (client.rack), as ID=RACK (repeatable)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l instance-id -d 'A member\'s group.instance.id (static membership), as ID=INSTANCE (repeatable)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l then -d 'A rebalance event, in order (repeatable): "join c4", "join c5=orders rack=b", "leave c2", "crash c1", "add-partitions orders:12", "create-topic audit:3", "subscribe c3=orders", "delete-topic payments"' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l scenario -d 'A scenario file (JSON, see docs/simulate-assignment.md), or an assignor test vector (spec/vectors/assignors schema), which is replayed round by round' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l compare -d 'Run the same script under several strategies and compare them side by side' -r -f -a "range\t''
roundrobin\t''
sticky\t''
cooperative-sticky\t''
uniform\t''
server-range\t''"
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l group -d 'The group id (it decides the coordinator)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l offsets-topic-partitions -d 'offsets.topic.num.partitions: the partition count of __consumer_offsets' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -l explain -d 'Show the protocol trace of each round: coordinator, JoinGroup, leader, protocol, SyncGroup (classic) or target assignment and reconciliation (new protocol)'
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand simulate-assignment" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -l metadata-dir -d 'The `__cluster_metadata-0` directory itself (a copy of a KRaft controller\'s or broker\'s), instead of the one in --data-dir' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -l listener -d 'The listener whose host and port are shown (a broker without it is left out, as a metadata response leaves it out). Default: each broker\'s first listener' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand metadata" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "what-if" -d 'Which partitions would go offline or under min.insync.replicas, and where leadership moves, if these brokers went down (Kafka\'s controller rules, offline)'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "init" -d 'Make a local cluster in --data-dir: one log directory per broker (broker-<id>/ with meta.properties: node.id, the shared cluster.id, its directory.id) and the cluster\'s KRaft metadata log (__cluster_metadata-0: the metadata.version feature, each broker\'s registration with its rack and listener, its unfencing), which dump-log-segments --cluster-metadata-decoder reads as a controller\'s'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "replicate" -d 'Run the replica fetchers once: every follower on a running broker truncates what its leader does not have (OffsetsForLeaderEpoch), copies the leader\'s new batches byte for byte, and rejoins the ISR once caught up; then the high watermarks move to the lowest log end offset of each ISR. A produce with acks 0 or 1 leaves followers behind until this step (acks=all runs it for its topic before it ends)'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "stop-broker" -d 'Stop a broker as the controller fences it: it leaves the ISR of its partitions, each partition it led elects the first in-sync replica that runs (an out-of-sync one with unclean.leader.election.enable), the leader epoch moves on'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "start-broker" -d 'Start a stopped broker: it is unfenced, leads the partitions that had no leader and keep it in their ISR, and its replicas truncate to their leaders\' epochs and catch up'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "status" -d 'The brokers (up or down) and each partition\'s leader, leader epoch, ISR, high watermark and each replica\'s log end offset'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and not __fish_seen_subcommand_from what-if init replicate stop-broker start-broker status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -l metadata-dir -d 'The `__cluster_metadata-0` directory itself (a copy of a KRaft controller\'s or broker\'s), instead of the one in --data-dir' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -l down -d 'The brokers to take down, comma-separated, in the order they go' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from what-if" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -l brokers -d 'How many brokers (ids 1 to N)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -l rack -d 'A broker\'s rack (broker.rack), as ID=RACK (repeatable)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -l config -d 'A cluster-wide broker config, as NAME=VALUE (repeatable): the default every topic without its own override takes, e.g. min.insync.replicas=2 or unclean.leader.election.enable=true (kafka-configs.sh --entity-default)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -l placement-seed -d 'Makes the controller\'s replica placement repeatable (kafkit\'s, not Kafka\'s): every topics --create without --replica-assignment draws Kafka\'s StripedReplicaPlacer from Kafka\'s test MockRandom with this seed. Without it placement is random, as a KRaft controller\'s is' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from init" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -l topic -d 'Only these topics (repeatable); all by default' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -l now -d 'The step\'s clock: milliseconds since the epoch, or the current time plus a duration (`+90s`, `+30m`, `+500ms`). An ISR follower not caught up to its leader\'s log end for more than replica.lag.time.max.ms (30000 by default) by then leaves the ISR. Default: now' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -l stuck-broker -d 'A broker whose fetchers do not run in this step, as if stuck (repeatable): its replicas fall behind and, past replica.lag.time.max.ms, out of the ISR' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from replicate" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from stop-broker" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from stop-broker" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from stop-broker" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from stop-broker" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from stop-broker" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from start-broker" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from start-broker" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from start-broker" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from start-broker" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from start-broker" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from status" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from status" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "what-if" -d 'Which partitions would go offline or under min.insync.replicas, and where leadership moves, if these brokers went down (Kafka\'s controller rules, offline)'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "init" -d 'Make a local cluster in --data-dir: one log directory per broker (broker-<id>/ with meta.properties: node.id, the shared cluster.id, its directory.id) and the cluster\'s KRaft metadata log (__cluster_metadata-0: the metadata.version feature, each broker\'s registration with its rack and listener, its unfencing), which dump-log-segments --cluster-metadata-decoder reads as a controller\'s'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "replicate" -d 'Run the replica fetchers once: every follower on a running broker truncates what its leader does not have (OffsetsForLeaderEpoch), copies the leader\'s new batches byte for byte, and rejoins the ISR once caught up; then the high watermarks move to the lowest log end offset of each ISR. A produce with acks 0 or 1 leaves followers behind until this step (acks=all runs it for its topic before it ends)'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "stop-broker" -d 'Stop a broker as the controller fences it: it leaves the ISR of its partitions, each partition it led elects the first in-sync replica that runs (an out-of-sync one with unclean.leader.election.enable), the leader epoch moves on'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "start-broker" -d 'Start a stopped broker: it is unfenced, leads the partitions that had no leader and keep it in their ISR, and its replicas truncate to their leaders\' epochs and catch up'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "status" -d 'The brokers (up or down) and each partition\'s leader, leader epoch, ISR, high watermark and each replica\'s log end offset'
complete -c kafkit -n "__fish_kafkit_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l topics-to-move-json-file -d 'The topics to move: {"topics":[{"topic":"foo"}],"version":1}' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l broker-list -d 'The brokers to move them to, comma-separated ("1,2,3")' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l reassignment-json-file -d 'The reassignment: {"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]}]}' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l generate -d 'Propose a reassignment of the topics of --topics-to-move-json-file over --broker-list'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l execute -d 'Carry out the reassignment of --reassignment-json-file'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l verify -d 'Tell the state of the reassignment of --reassignment-json-file'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l cancel -d 'Cancel the reassignments in progress of the partitions of --reassignment-json-file: their added replicas leave, the others stay'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l disable-rack-aware -d 'Place the proposal without racks'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l additional -d 'Execute even when a reassignment is in progress'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -l preserve-throttles -d 'With --verify: leave throttles as they are (kafkit sets none)'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand reassign-partitions" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l election-type -d 'preferred or unclean' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l topic -d 'The topic of the partition to elect (with --partition)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l partition -d 'The partition to elect (with --topic)' -r -f
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l path-to-json-file -d 'The partitions to elect: {"partitions":[{"topic":"foo","partition":1}]}' -r -F
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l data-dir -d 'The data directory, laid out like a broker\'s `log.dirs`' -r -f -a "(__fish_complete_directories)"
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l output -d 'How results are printed: Kafka\'s text, or JSON Lines for scripts' -r -f -a "text\t'Kafka\'s own text, line for line'
json\t'JSON Lines: one typed object per line (see `docs/json.md`)'"
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -l all-topic-partitions -d 'Every partition of the cluster (those that need no election are left out)'
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -s q -l quiet -d 'Draw no progress bar. Bars show the progress of long work (dumping large or many files, consuming a large range, producing from a large --file, a log-cleaner pass over 100 partitions or 256 MiB of logs) on stderr, only when stderr is a terminal and stdout is not: never in a pipe or a file, and stdout is the same with or without them'
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kafkit -n "__fish_kafkit_using_subcommand leader-election" -s V -l version -d 'Print version'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "topics" -d 'Create, delete, describe, or change a topic (kafka-topics.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "dump-log-segments" -d 'Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "produce" -d 'Write records to a topic from lines of text or JSON (kafka-console-producer.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "consume" -d 'Read records from a topic\'s partitions (kafka-console-consumer.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "get-offsets" -d 'Print the offsets of a topic\'s partitions: latest, earliest, max timestamp, or by time (kafka-get-offsets.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "consumer-groups" -d 'List and describe consumer groups: state, members, committed offsets and lag, read from the data directory\'s __consumer_offsets (kafka-consumer-groups.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "configs" -d 'Describe or change a topic\'s configs: its overrides, with Kafka\'s validation (kafka-configs.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "delete-records" -d 'Delete records of partitions below an offset: moves their log start offsets (kafka-delete-records.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "log-dirs" -d 'Describe the data directory\'s partitions and their sizes, as Kafka\'s JSON (kafka-log-dirs.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "log-cleaner" -d 'Delete old segments and compact compacted topics as a broker\'s retention and log cleaner do, in one pass now or at --now; --dry-run shows what would go and why'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "simulate-assignment" -d 'Show how Kafka\'s consumer-group assignors share partitions over scripted rebalances (range, roundrobin, sticky, cooperative-sticky, uniform, server-range), exactly as Kafka'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "metadata" -d 'Show a cluster\'s brokers, topics and partitions (leader, replicas, ISR) from its KRaft metadata log (__cluster_metadata-0), as kcat -L does'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "cluster" -d 'A cluster described by its KRaft metadata log: what taking brokers down would do'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "reassign-partitions" -d 'Move partitions\' replicas, with their data, between a cluster\'s brokers (kafka-reassign-partitions.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "leader-election" -d 'Elect partitions\' leaders in a cluster: preferred or unclean (kafka-leader-election.sh)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and not __fish_seen_subcommand_from topics dump-log-segments produce consume get-offsets consumer-groups configs delete-records log-dirs log-cleaner simulate-assignment metadata cluster reassign-partitions leader-election help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "what-if" -d 'Which partitions would go offline or under min.insync.replicas, and where leadership moves, if these brokers went down (Kafka\'s controller rules, offline)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "init" -d 'Make a local cluster in --data-dir: one log directory per broker (broker-<id>/ with meta.properties: node.id, the shared cluster.id, its directory.id) and the cluster\'s KRaft metadata log (__cluster_metadata-0: the metadata.version feature, each broker\'s registration with its rack and listener, its unfencing), which dump-log-segments --cluster-metadata-decoder reads as a controller\'s'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "replicate" -d 'Run the replica fetchers once: every follower on a running broker truncates what its leader does not have (OffsetsForLeaderEpoch), copies the leader\'s new batches byte for byte, and rejoins the ISR once caught up; then the high watermarks move to the lowest log end offset of each ISR. A produce with acks 0 or 1 leaves followers behind until this step (acks=all runs it for its topic before it ends)'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "stop-broker" -d 'Stop a broker as the controller fences it: it leaves the ISR of its partitions, each partition it led elects the first in-sync replica that runs (an out-of-sync one with unclean.leader.election.enable), the leader epoch moves on'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "start-broker" -d 'Start a stopped broker: it is unfenced, leads the partitions that had no leader and keep it in their ISR, and its replicas truncate to their leaders\' epochs and catch up'
complete -c kafkit -n "__fish_kafkit_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "status" -d 'The brokers (up or down) and each partition\'s leader, leader epoch, ISR, high watermark and each replica\'s log end offset'
