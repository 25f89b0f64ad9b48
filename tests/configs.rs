//! `kafkit configs` (kafka-configs.sh for topics): describe and alter with Kafka's lines,
//! parser, validation and messages; the overrides stored where `topics --describe` and the
//! writers read them.

use crate::common::{kafkit, tempdir};

fn topic(dir: &std::path::Path) {
    kafkit(dir, &["topics", "--create", "--topic", "t"]).ok();
}

#[test]
fn alter_then_describe_as_kafka() {
    let dir = tempdir();
    topic(dir.path());
    let run = kafkit(
        dir.path(),
        &[
            "configs",
            "--alter",
            "--entity-type",
            "topics",
            "--entity-name",
            "t",
            "--add-config",
            "retention.ms = 3600000,cleanup.policy=[compact,delete],min.cleanable.dirty.ratio=1",
        ],
    );
    assert_eq!(run.ok(), "Completed updating config for topic t.\n");
    let run = kafkit(dir.path(), &["configs", "--describe", "--topic", "t"]);
    assert_eq!(
        run.ok(),
        "Dynamic configs for topic t are:\n\
         \x20 cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}\n\
         \x20 min.cleanable.dirty.ratio=1.0 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.cleanable.dirty.ratio=1.0, DEFAULT_CONFIG:log.cleaner.min.cleanable.ratio=0.5}\n\
         \x20 retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000}\n"
    );
    // Where topics keeps them: the same overrides in its Configs column.
    let described = kafkit(dir.path(), &["topics", "--describe", "--topic", "t"]);
    assert!(
        described
            .ok()
            .contains("Configs: cleanup.policy=compact,delete,min.cleanable.dirty.ratio=1,retention.ms=3600000\n"),
        "{}",
        described.stdout
    );
    // Deletes go first, then sets; both in one run.
    kafkit(
        dir.path(),
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--delete-config",
            "retention.ms,cleanup.policy",
            "--delete-config",
            "min.cleanable.dirty.ratio",
            "--add-config",
            "segment.bytes=1048576",
        ],
    )
    .ok();
    let run = kafkit(dir.path(), &["configs", "--describe", "--topic", "t"]);
    assert_eq!(
        run.ok(),
        "Dynamic configs for topic t are:\n  segment.bytes=1048576 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576, DEFAULT_CONFIG:log.segment.bytes=1073741824}\n"
    );
}

#[test]
fn describe_all_every_topic_and_missing() {
    let dir = tempdir();
    topic(dir.path());
    let all = kafkit(
        dir.path(),
        &["configs", "--describe", "--topic", "t", "--all"],
    );
    let lines: Vec<&str> = all.ok().lines().collect();
    assert_eq!(lines.first(), Some(&"All configs for topic t are:"));
    assert_eq!(
        lines.len(),
        1 + kafkit::datadir::config::TOPIC_CONFIGS.len()
    );
    assert!(lines.contains(&"  retention.ms=604800000 sensitive=false synonyms={}"));
    assert!(lines.contains(
        &"  max.message.bytes=1048588 sensitive=false synonyms={DEFAULT_CONFIG:message.max.bytes=1048588}"
    ));
    kafkit(dir.path(), &["topics", "--create", "--topic", "u"]).ok();
    let every = kafkit(
        dir.path(),
        &["configs", "--describe", "--entity-type", "topics"],
    );
    assert_eq!(
        every.ok(),
        "Dynamic configs for topic t are:\nDynamic configs for topic u are:\n"
    );
    let missing = kafkit(dir.path(), &["configs", "--describe", "--topic", "nope"]);
    assert_eq!(
        missing.ok(),
        "The topic 'nope' doesn't exist and doesn't have dynamic config.\n"
    );
}

#[test]
fn kafka_messages() {
    let dir = tempdir();
    topic(dir.path());
    let cases: &[(&[&str], &str)] = &[
        (
            &["--alter", "--topic", "t", "--delete-config", "retention.ms,x"],
            "Invalid config(s): retention.ms,x\n",
        ),
        (
            &["--alter", "--topic", "t", "--add-config", "retention.ms"],
            "Invalid entity config: all configs to be added must be in the format \"key=val\" or  \"key=[val1,val2]\" to group values which contain commas.\n",
        ),
        (
            &["--alter", "--topic", "t", "--add-config", "a b=1"],
            "Invalid character found for config key: a b\n",
        ),
        (
            &["--alter", "--topic", "t", "--add-config", "nope=1"],
            "Error while executing config command with args '--alter --topic t --add-config nope=1'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidConfigurationException: Unknown topic config name: nope\n",
        ),
        (
            &["--alter", "--topic", "t", "--add-config", "message.timestamp.type=boom"],
            "Error while executing config command with args '--alter --topic t --add-config message.timestamp.type=boom'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidConfigurationException: Invalid value boom for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime\n",
        ),
        (
            &["--alter", "--topic", "t", "--add-config", "min.compaction.lag.ms=10,max.compaction.lag.ms=5"],
            "Error while executing config command with args '--alter --topic t --add-config min.compaction.lag.ms=10,max.compaction.lag.ms=5'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidConfigurationException: conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)\n",
        ),
        (
            &["--alter", "--topic", "nope", "--add-config", "retention.ms=1"],
            "Error while executing config command with args '--alter --topic nope --add-config retention.ms=1'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.\n",
        ),
        (&["--alter", "--topic", "t"], "At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter\n"),
        (&["--alter", "--entity-type", "topics"], "An entity name must be specified with --alter of topics\n"),
        (&["--describe"], "At least one entity type must be specified\n"),
        (
            &["--describe", "--entity-type", "topics", "--topic", "t"],
            "Duplicate entity type(s) specified: topics\n",
        ),
        (
            &["--describe", "--entity-name", "t", "--topic", "t"],
            "--entity-{type,name,default} should not be used in conjunction with specific entity flags\n",
        ),
        (
            &["--describe", "--entity-type", "bogus"],
            "Invalid entity type bogus, the entity type must be one of topics, clients, users, brokers, ips, client-metrics, groups, broker-loggers with a --bootstrap-server or --bootstrap-controller argument\n",
        ),
        (
            &["--describe", "--entity-type", "brokers", "--entity-name", "0"],
            "kafkit configs describes and alters brokers with --bootstrap-server only: a data directory holds topics\n",
        ),
    ];
    for (args, want) in cases {
        let mut argv = vec!["configs"];
        argv.extend_from_slice(args);
        let run = kafkit(dir.path(), &argv);
        assert_eq!(run.fails(), *want, "{args:?}");
        assert_eq!(run.code, 1);
    }
    // Nothing of the refused alters was stored.
    let run = kafkit(dir.path(), &["configs", "--describe", "--topic", "t"]);
    assert_eq!(run.ok(), "Dynamic configs for topic t are:\n");
    let usage = kafkit(dir.path(), &["configs", "--topic", "t"]);
    assert!(usage
        .fails()
        .starts_with("Command must include exactly one action: --describe, --alter\n"));
}

#[test]
fn new_configs_rule_the_next_writer() {
    // max.message.bytes set through configs refuses a larger record at the next produce.
    let dir = tempdir();
    topic(dir.path());
    kafkit(
        dir.path(),
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "max.message.bytes=200",
        ],
    )
    .ok();
    let big = "x".repeat(500);
    let run = crate::common::kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "t"],
        format!("small\n{big}\n").as_bytes(),
    );
    assert!(
        run.fails().contains("RecordTooLargeException"),
        "{}",
        run.stderr
    );
}
