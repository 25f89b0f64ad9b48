//! `configs` (DescribeConfigs, IncrementalAlterConfigs) and `topics --alter` (CreatePartitions)
//! with `--bootstrap-server`, against a Tansu broker started per test: the same lines and
//! JSON as for a data directory with the same data, Kafka's messages for what fails.
//!
//! Tansu 0.6 answers configs otherwise than Kafka in several ways; each test that meets one
//! says so by name (`tansu_differences_in_configs`, `topics_alter_over_the_network`).

use crate::common::broker::{self, free_port};
use crate::common::{kafkit, tempdir};
use crate::net::remote;

/// Runs `args` on the data directory `dir` and against `broker`: both must succeed and print
/// the same stdout.
#[track_caller]
fn same(dir: &std::path::Path, broker: &broker::Broker, args: &[&str]) -> String {
    let local = kafkit(dir, args);
    let net = remote(broker, args);
    assert_eq!(net.ok(), local.ok(), "{args:?}");
    assert_eq!(net.stderr, local.stderr, "{args:?}");
    net.stdout
}

#[test]
fn configs_print_what_they_print_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let d = dir.path();
    for topic in ["t", "u"] {
        let create = ["topics", "--create", "--topic", topic, "--partitions", "1"];
        same(d, &broker, &create);
    }
    let file = d.join("add.properties");
    std::fs::write(&file, "segment.ms=100000\n").expect("write");
    let file = file.to_str().expect("path");
    let cases: [(&[&str], &str); 6] = [
        (
            &["configs", "--describe", "--topic", "t"],
            "Dynamic configs for topic t are:\n",
        ),
        (
            &["configs", "--describe", "--entity-type", "topics"],
            "Dynamic configs for topic t are:\nDynamic configs for topic u are:\n",
        ),
        (
            &["configs", "--describe", "--topic", "nope"],
            "The topic 'nope' doesn't exist and doesn't have dynamic config.\n",
        ),
        (
            &[
                "configs",
                "--alter",
                "--entity-type",
                "topics",
                "--entity-name",
                "t",
                "--add-config",
                "retention.ms=3600000,cleanup.policy=[compact,delete]",
            ],
            "Completed updating config for topic t.\n",
        ),
        (
            &["configs", "--alter", "--topic", "u", "--add-config-file", file],
            "Completed updating config for topic u.\n",
        ),
        (
            &["--output", "json", "configs", "--describe", "--topic", "nope"],
            "{\"type\":\"not_found\",\"topic\":\"nope\",\"message\":\"The topic 'nope' doesn't exist and doesn't have dynamic config.\",\"schema\":1}\n",
        ),
    ];
    for (args, want) in &cases {
        assert_eq!(same(d, &broker, args), *want, "{args:?}");
    }
    // Tansu keeps the overrides set above as DEFAULT_CONFIG (see
    // `tansu_differences_in_configs`): the directory shows them without --all, as Kafka's
    // broker does, Tansu does not.
    for (args, local, net) in [
        (
            &["configs", "--describe", "--topic", "u"][..],
            "Dynamic configs for topic u are:\n  segment.ms=100000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.ms=100000}\n",
            "Dynamic configs for topic u are:\n",
        ),
        (
            &["--output", "json", "configs", "--describe", "--topic", "u"],
            "{\"type\":\"topic\",\"topic\":\"u\",\"all\":false,\"schema\":1}\n{\"type\":\"config\",\"topic\":\"u\",\"name\":\"segment.ms\",\"value\":\"100000\",\"source\":\"DYNAMIC_TOPIC_CONFIG\",\"sensitive\":false,\"synonyms\":[{\"name\":\"segment.ms\",\"value\":\"100000\",\"source\":\"DYNAMIC_TOPIC_CONFIG\"}],\"schema\":1}\n",
            "{\"type\":\"topic\",\"topic\":\"u\",\"all\":false,\"schema\":1}\n",
        ),
    ] {
        assert_eq!(kafkit(d, args).ok(), local, "{args:?}");
        assert_eq!(remote(&broker, args).ok(), net, "{args:?}");
    }

    // Refused before any request, with Kafka's words, in both modes.
    for (args, message) in [
        (
            &["configs", "--alter", "--topic", "t", "--add-config", "a b=1"][..],
            "Invalid character found for config key: a b\n",
        ),
        (
            &["configs", "--alter", "--topic", "t", "--add-config", "retention.ms"],
            "Invalid entity config: all configs to be added must be in the format \"key=val\" or  \"key=[val1,val2]\" to group values which contain commas.\n",
        ),
        (
            &["configs", "--alter", "--topic", "a/b", "--add-config", "retention.ms=1"],
            "Error while executing config command with args '--alter --topic a/b --add-config retention.ms=1'\norg.apache.kafka.common.errors.InvalidTopicException: Topic name is invalid: 'a/b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'\n",
        ),
    ] {
        let local = kafkit(d, args);
        let mut with_server = args.to_vec();
        with_server.extend(["--bootstrap-server", "127.0.0.1:9"]);
        let net = kafkit(&d.join("unused"), &with_server);
        assert_eq!(local.fails(), message, "{args:?}");
        // Kafka's message quotes the command line, which names the server there.
        let net_message = message.replace(
            "retention.ms=1'",
            "retention.ms=1 --bootstrap-server 127.0.0.1:9'",
        );
        assert_eq!(net.fails(), net_message, "{args:?}");
        assert_eq!(net.code, 1);
    }
}

#[test]
fn tansu_differences_in_configs() {
    let Some(broker) = broker::start() else {
        return;
    };
    remote(
        &broker,
        &["topics", "--create", "--topic", "t", "--partitions", "1"],
    )
    .ok();
    remote(
        &broker,
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "retention.ms=3600000",
        ],
    )
    .ok();
    // Tansu describes a topic's own configs with source DEFAULT_CONFIG and no synonyms, and
    // nothing else with --all (Kafka: DYNAMIC_TOPIC_CONFIG, with the broker default as a
    // synonym, and every topic config with --all).
    assert_eq!(
        remote(&broker, &["configs", "--describe", "--topic", "t", "--all"]).ok(),
        "All configs for topic t are:\n  retention.ms=3600000 sensitive=false synonyms={}\n"
    );
    // So Kafka's tool, which deletes only configs the topic itself sets, refuses to delete it.
    let delete = remote(
        &broker,
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--delete-config",
            "retention.ms",
        ],
    );
    assert_eq!(delete.fails(), "Invalid config(s): retention.ms\n");
    assert_eq!(delete.stdout, "");
    // And the topic's own configs after an --alter (JSON's `configs`) are none.
    let json = remote(
        &broker,
        &[
            "--output",
            "json",
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "segment.ms=100000",
        ],
    );
    assert_eq!(
        json.ok(),
        "{\"type\":\"altered\",\"topic\":\"t\",\"set\":{\"segment.ms\":\"100000\"},\"deleted\":[],\"configs\":{},\"schema\":1}\n"
    );
    // Tansu checks neither names nor values (Kafka's broker answers INVALID_CONFIG:
    // `Unknown topic config name: nope`, `Invalid value abc for configuration retention.ms`).
    remote(
        &broker,
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "nope=1,retention.ms=abc",
        ],
    )
    .ok();
    let all = remote(&broker, &["configs", "--describe", "--topic", "t", "--all"]);
    assert!(
        all.ok().contains("  nope=1 sensitive=false synonyms={}\n")
            && all.stdout.contains("  retention.ms=abc "),
        "{}",
        all.stdout
    );
    // Tansu answers DescribeConfigs and IncrementalAlterConfigs of a topic it does not have
    // without an error (Kafka: UNKNOWN_TOPIC_OR_PARTITION, which its tool prints as the
    // directory path does, `UnknownTopicOrPartitionException: This server does not host
    // this topic-partition.`).
    assert_eq!(
        remote(
            &broker,
            &["configs", "--describe", "--topic", "nope", "--all"]
        )
        .ok(),
        "All configs for topic nope are:\n"
    );
    assert_eq!(
        remote(
            &broker,
            &[
                "configs",
                "--alter",
                "--topic",
                "nope",
                "--add-config",
                "retention.ms=1"
            ]
        )
        .ok(),
        "Completed updating config for topic nope.\n"
    );
    // The directory's answers to the same two, which are Kafka's.
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "--create", "--topic", "t"]).ok();
    let local = kafkit(
        dir.path(),
        &["configs", "--describe", "--topic", "nope", "--all"],
    );
    assert_eq!(local.stdout, "All configs for topic nope are:\n");
    assert_eq!(
        local.fails(),
        "Error while executing config command with args '--describe --topic nope --all'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.\n"
    );
}

/// IncrementalAlterConfigs' SET and DELETE operations, through the library, as Tansu keeps
/// them (the command line cannot delete on Tansu: `tansu_differences_in_configs`).
#[test]
fn incremental_alter_configs_sets_and_deletes() {
    use kafkit::net::configs::{AlterConfigOp, ConfigResource};
    use kafkit::net::{parse_bootstrap, ClientConfig, Cluster};
    let Some(broker) = broker::start() else {
        return;
    };
    remote(
        &broker,
        &["topics", "--create", "--topic", "t", "--partitions", "1"],
    )
    .ok();
    let mut cluster = Cluster::new(
        parse_bootstrap(&broker.bootstrap()).expect("bootstrap"),
        ClientConfig::new("test"),
    );
    let topic = ConfigResource::Topic("t".into());
    let set = |name: &str, value: &str| AlterConfigOp::Set(name.into(), value.into());
    cluster
        .incremental_alter_configs(
            &topic,
            &[set("retention.ms", "1000"), set("segment.ms", "2000")],
        )
        .expect("set");
    let described = |cluster: &mut Cluster| -> Vec<(String, String)> {
        cluster
            .describe_configs(&topic, true)
            .expect("describe")
            .into_iter()
            .map(|e| (e.name, e.value))
            .collect()
    };
    assert_eq!(
        described(&mut cluster),
        [
            ("retention.ms".to_string(), "1000".to_string()),
            ("segment.ms".to_string(), "2000".to_string())
        ]
    );
    cluster
        .incremental_alter_configs(
            &topic,
            &[
                AlterConfigOp::Delete("retention.ms".into()),
                set("segment.ms", "3000"),
            ],
        )
        .expect("delete and set");
    assert_eq!(
        described(&mut cluster),
        [("segment.ms".to_string(), "3000".to_string())]
    );
}

#[test]
fn broker_configs_over_the_network() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let fast = dir.path().join("fast.properties");
    std::fs::write(&fast, "default.api.timeout.ms=300\n").expect("write");
    // Every broker of the metadata (Tansu is node 111), then the cluster-wide default.
    // Tansu describes no broker config (Kafka: those set at run time here, and with --all
    // the broker's whole configuration, STATIC_BROKER_CONFIG and DEFAULT_CONFIG).
    assert_eq!(
        remote(
            &broker,
            &["configs", "--describe", "--entity-type", "brokers"]
        )
        .ok(),
        "Dynamic configs for broker 111 are:\nDefault configs for brokers in the cluster are:\n"
    );
    assert_eq!(
        remote(
            &broker,
            &["configs", "--describe", "--broker", "111", "--all"]
        )
        .ok(),
        "All configs for broker 111 are:\n"
    );
    assert_eq!(
        remote(
            &broker,
            &[
                "configs",
                "--describe",
                "--entity-type",
                "brokers",
                "--entity-default"
            ]
        )
        .ok(),
        "Default configs for brokers in the cluster are:\n"
    );
    assert_eq!(
        remote(&broker, &["configs", "--describe", "--broker", "5"]).ok(),
        "The broker '5' doesn't exist and doesn't have dynamic config.\n"
    );
    // A broker the metadata never names: Kafka's admin client waits for it, then times out.
    let missing = remote(
        &broker,
        &[
            "configs",
            "--describe",
            "--broker",
            "5",
            "--all",
            "--command-config",
            fast.to_str().expect("path"),
        ],
    );
    assert!(
        missing.fails().ends_with("\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: describeConfigs\n"),
        "{}",
        missing.stderr
    );
    assert_eq!(missing.stdout, "All configs for broker 5 are:\n");
    for (args, want) in [
        (
            &[
                "configs",
                "--alter",
                "--broker",
                "111",
                "--add-config",
                "log.cleaner.threads=2",
            ][..],
            "Completed updating config for broker 111.\n",
        ),
        (
            &[
                "configs",
                "--alter",
                "--entity-type",
                "brokers",
                "--entity-default",
                "--add-config",
                "log.cleaner.threads=2",
            ],
            "Completed updating default config for brokers in the cluster.\n",
        ),
        (
            &[
                "--output",
                "json",
                "configs",
                "--alter",
                "--broker-defaults",
                "--add-config",
                "log.cleaner.threads=2",
            ],
            "{\"type\":\"altered\",\"broker\":null,\"set\":{\"log.cleaner.threads\":\"2\"},\"deleted\":[],\"configs\":{},\"schema\":1}\n",
        ),
        (
            &["--output", "json", "configs", "--describe", "--broker", "111"],
            "{\"type\":\"broker\",\"broker\":\"111\",\"all\":false,\"schema\":1}\n",
        ),
    ] {
        assert_eq!(remote(&broker, args).ok(), want, "{args:?}");
    }
    // Kafka's checks of broker entities.
    for (args, message) in [
        (
            &["configs", "--describe", "--entity-type", "brokers", "--entity-name", "x"][..],
            "The entity name for brokers must be a valid integer broker id, but it is: x\n",
        ),
        (
            &["configs", "--alter", "--entity-type", "brokers", "--add-config", "a=1"],
            "An entity-name or default entity must be specified with --alter of users, clients, brokers or ips\n",
        ),
        (
            &["configs", "--describe", "--topic", "t", "--broker", "1"],
            "Only 'users' and 'clients' entity types may be specified together\n",
        ),
        (
            &["configs", "--describe", "--entity-type", "topics", "--entity-default"],
            "--entity-default must not be specified with --describe of topics\n",
        ),
        (
            &["configs", "--describe", "--entity-type", "groups"],
            "kafkit configs supports --entity-type topics and brokers only: groups configs are not supported yet\n",
        ),
    ] {
        assert_eq!(remote(&broker, args).fails(), message, "{args:?}");
    }
    // Without a cluster: a data directory has no broker configs.
    let local = kafkit(
        dir.path(),
        &["configs", "--describe", "--entity-type", "brokers"],
    );
    assert_eq!(
        local.fails(),
        "kafkit configs describes and alters brokers with --bootstrap-server only: a data directory holds topics\n"
    );
}

#[test]
fn topics_alter_over_the_network() {
    let Some(broker) = broker::start() else {
        return;
    };
    remote(
        &broker,
        &["topics", "--create", "--topic", "t", "--partitions", "1"],
    )
    .ok();
    // Tansu 0.6 does not list CreatePartitions (api key 37) in its ApiVersions: Kafka's admin
    // client fails the call with its own UnsupportedVersionException, which kafka-topics
    // prints as any error. A Kafka broker adds the partitions.
    let alter = remote(
        &broker,
        &["topics", "--alter", "--topic", "t", "--partitions", "3"],
    );
    assert_eq!(alter.code, 1);
    assert_eq!(
        alter.stdout,
        "Error while executing topic command : The node does not support CREATE_PARTITIONS\n"
    );
    let described = remote(&broker, &["topics", "--describe", "--topic", "t"]);
    assert!(
        described.ok().contains("PartitionCount: 1\t"),
        "{}",
        described.stdout
    );
    // The checks before the call, as for a data directory.
    let missing = remote(
        &broker,
        &["topics", "--alter", "--topic", "nope", "--partitions", "3"],
    );
    assert_eq!(
        missing.stdout,
        "Error while executing topic command : Topic 'nope' does not exist as expected\n"
    );
    assert_eq!(missing.code, 1);
    let if_exists = remote(
        &broker,
        &[
            "topics",
            "--alter",
            "--topic",
            "nope",
            "--partitions",
            "3",
            "--if-exists",
        ],
    );
    assert_eq!(if_exists.ok(), "");
}

#[test]
fn brokers_that_are_down_and_misuse_are_kafkas_errors() {
    let dir = tempdir();
    let d = dir.path().to_str().expect("path");
    std::fs::write(
        dir.path().join("fast.properties"),
        "default.api.timeout.ms=300\n",
    )
    .expect("write");
    let down = format!("127.0.0.1:{}", free_port());
    let warning = format!(
        "WARN Connection to node -1 (127.0.0.1/{down}) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)"
    );
    let config = format!("{d}/fast.properties");
    let describe = [
        "configs",
        "--describe",
        "--topic",
        "t",
        "--bootstrap-server",
        &down,
        "--command-config",
        &config,
    ];
    let run = kafkit(dir.path(), &describe);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains(&warning), "{}", run.stderr);
    assert!(
        run.stderr.ends_with(&format!(
            "Error while executing config command with args '{}'\njava.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listTopics\n",
            describe[1..].join(" ")
        )),
        "{}",
        run.stderr
    );
    // With --all, Kafka's tool asks DescribeConfigs of the topic without listing topics.
    let mut all = describe.to_vec();
    all.push("--all");
    let run = kafkit(dir.path(), &all);
    assert_eq!(run.stdout, "All configs for topic t are:\n");
    assert!(
        run.fails().ends_with(
            "TimeoutException: Timed out waiting for a node assignment. Call: describeConfigs\n"
        ),
        "{}",
        run.stderr
    );
    let alter = kafkit(
        dir.path(),
        &[
            "topics",
            "--alter",
            "--topic",
            "t",
            "--partitions",
            "2",
            "--bootstrap-server",
            &down,
            "--command-config",
            &config,
        ],
    );
    assert_eq!(alter.code, 1);
    assert_eq!(
        alter.stdout,
        "Error while executing topic command : Timed out waiting for a node assignment. Call: listTopics\n"
    );
    // --data-dir names another place: refused, not ignored; nothing written there.
    for args in [
        &["configs", "--describe", "--topic", "t"][..],
        &[
            "configs",
            "--alter",
            "--topic",
            "t",
            "--add-config",
            "retention.ms=1",
        ],
        &["topics", "--alter", "--topic", "t", "--partitions", "2"],
    ] {
        let mut all = vec!["--data-dir", d];
        all.extend(args);
        all.extend(["--bootstrap-server", "127.0.0.1:9"]);
        let run = kafkit(dir.path(), &all);
        assert_eq!(run.code, 1, "{args:?}");
        assert!(
            run.stderr.starts_with(
                "Option \"[bootstrap-server]\" can't be used with option \"[data-dir]\"\n"
            ),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!dir.path().join("t-0").exists());
    }
    // --bootstrap-controller is refused rather than ignored.
    let controller = kafkit(
        dir.path(),
        &[
            "configs",
            "--describe",
            "--topic",
            "t",
            "--bootstrap-controller",
            "127.0.0.1:9",
        ],
    );
    assert!(
        controller
            .fails()
            .starts_with("--bootstrap-controller is not supported yet"),
        "{}",
        controller.stderr
    );
    let both = kafkit(
        dir.path(),
        &[
            "configs",
            "--describe",
            "--topic",
            "t",
            "--bootstrap-controller",
            "127.0.0.1:9",
            "--bootstrap-server",
            "127.0.0.1:9",
        ],
    );
    assert_eq!(
        both.fails(),
        "Only one of --bootstrap-server or --bootstrap-controller can be specified\n"
    );
}
