//! `--bootstrap-server`: the commands against a running broker (Tansu, started per test on a
//! free loopback port: `common::broker`), printing what they print for a data directory with
//! the same data; Kafka's messages for bad addresses and brokers that are down.
//!
//! Where Tansu 0.6 answers otherwise than Kafka, the test that meets it says so by name.

use std::process::Command;

use crate::common::broker::{self, free_port, Broker};
use crate::common::{kafkit, kafkit_stdin, tempdir, Run};

/// Runs `kafkit <args> --bootstrap-server <broker>`.
pub(crate) fn remote(broker: &Broker, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    let bootstrap = broker.bootstrap();
    all.extend(["--bootstrap-server", bootstrap.as_str()]);
    kafkit(&tempdir().path().join("unused"), &all)
}

/// What kafkit prints with the parts that must differ between a data directory and a broker
/// made the same: topic ids, and the broker id (the directory's node 0, Tansu's 111).
fn normalized(text: &str, node: &str) -> String {
    let id = regex::Regex::new(r"TopicId: [A-Za-z0-9_-]{22}").expect("regex");
    let text = id.replace_all(text, "TopicId: ID");
    let node_re = regex::Regex::new(&format!(
        r#"(Leader: |Replicas: |Isr: |"leader":|"replicas":\[|"isr":\[){node}\b"#
    ))
    .expect("regex");
    node_re.replace_all(&text, "${1}NODE").into_owned()
}

/// Sends `(key, value)` records to `topic` one request each (single-record batches) with
/// kafka-python, keys partitioned by its murmur2 as Kafka's default partitioner.
fn kafka_python_produce(broker: &Broker, topic: &str, records: &[(&str, &str)]) -> bool {
    let pairs: Vec<String> = records
        .iter()
        .map(|(k, v)| format!("(b'{k}', b'{v}')"))
        .collect();
    let script = format!(
        "from kafka import KafkaProducer\n\
         p = KafkaProducer(bootstrap_servers='{}', api_version_auto_timeout_ms=10000)\n\
         for k, v in [{}]:\n    p.send('{topic}', key=k, value=v).get(timeout=10)\n\
         p.close()\n",
        broker.bootstrap(),
        pairs.join(", ")
    );
    match Command::new("python3").args(["-c", &script]).output() {
        Ok(out) if out.status.success() => true,
        Ok(out) => {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("No module named 'kafka'"),
                "kafka-python failed: {err}"
            );
            crate::common::skip("kafka-python is not installed");
            false
        }
        Err(e) => {
            crate::common::skip(&format!("python3 did not run: {e}"));
            false
        }
    }
}

#[test]
fn topics_list_and_describe_print_what_they_print_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    for (topic, partitions) in [("demo", "3"), ("a.b", "1"), ("z", "2")] {
        let args = [
            "topics",
            "--create",
            "--topic",
            topic,
            "--partitions",
            partitions,
        ];
        let local = kafkit(dir.path(), &args);
        assert_eq!(remote(&broker, &args).ok(), local.ok());
    }
    for args in [
        &["topics", "--list"][..],
        &["topics", "--list", "--topic", "demo,z"],
        &["topics", "--describe"],
        &["topics", "--describe", "--topic", "demo"],
        &["--output", "json", "topics", "--list"],
        &["topics", "--describe", "--unavailable-partitions"],
    ] {
        let local = kafkit(dir.path(), args);
        let net = remote(&broker, args);
        assert_eq!(
            normalized(net.ok(), "111"),
            normalized(local.ok(), "0"),
            "{args:?}"
        );
    }
    // JSON: the same objects, but for where the description comes from.
    let local = kafkit(
        dir.path(),
        &["--output", "json", "topics", "--describe", "--topic", "z"],
    );
    let net = remote(
        &broker,
        &["--output", "json", "topics", "--describe", "--topic", "z"],
    );
    let strip = |text: &str| {
        let id = regex::Regex::new(r#""topic_id":"[A-Za-z0-9_-]{22}""#).expect("regex");
        id.replace_all(text, r#""topic_id":"ID""#)
            .replace(r#""source":"kafkit""#, r#""source":"SOURCE""#)
            .replace(r#""source":"cluster""#, r#""source":"SOURCE""#)
    };
    assert_eq!(
        normalized(&strip(net.ok()), "111"),
        normalized(&strip(local.ok()), "0")
    );
    assert!(
        net.stdout.contains(r#""source":"cluster""#),
        "{}",
        net.stdout
    );

    // Errors print as for a directory, with the broker's words.
    let exists = remote(&broker, &["topics", "--create", "--topic", "demo"]);
    assert_eq!(exists.code, 1);
    // Tansu sends no message with TOPIC_ALREADY_EXISTS (Kafka's broker says `Topic 'demo'
    // already exists.`): the client shows the error code's default, as Kafka's would.
    assert_eq!(
        exists.stdout,
        "Error while executing topic command : Topic with this name already exists.\n"
    );
    remote(
        &broker,
        &["topics", "--create", "--topic", "demo", "--if-not-exists"],
    )
    .ok();
    let missing = remote(&broker, &["topics", "--describe", "--topic", "nope"]);
    assert_eq!(
        missing.stdout,
        "Error while executing topic command : Topic 'nope' does not exist as expected\n"
    );
    let bad = remote(&broker, &["topics", "--create", "--topic", "bad name"]);
    assert_eq!(bad.code, 1);
    assert!(bad.stdout.contains("Topic name"), "{}", bad.stdout);

    // Deleted on the broker, as in the directory.
    let local = kafkit(dir.path(), &["topics", "--delete", "--topic", "a.b"]);
    assert_eq!(
        remote(&broker, &["topics", "--delete", "--topic", "a.b"]).ok(),
        local.ok()
    );
    assert_eq!(remote(&broker, &["topics", "--list"]).ok(), "demo\nz\n");
}

#[test]
fn tansu_differences_in_topics() {
    let Some(broker) = broker::start() else {
        return;
    };
    // Tansu's default partition count is 3 (Kafka's num.partitions is 1).
    remote(&broker, &["topics", "--create", "--topic", "d"]).ok();
    let described = remote(&broker, &["topics", "--describe", "--topic", "d"]);
    assert!(
        described.ok().contains("PartitionCount: 3\t"),
        "{}",
        described.stdout
    );
    // Tansu keeps no config overrides it would describe (Kafka shows `Configs: retention.ms=1000`).
    remote(
        &broker,
        &[
            "topics",
            "--create",
            "--topic",
            "c",
            "--partitions",
            "1",
            "--config",
            "retention.ms=1000",
        ],
    )
    .ok();
    let described = remote(&broker, &["topics", "--describe", "--topic", "c"]);
    assert!(
        described.ok().contains("Configs: \n"),
        "{}",
        described.stdout
    );
}

#[test]
fn get_offsets_print_what_they_print_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let args = ["topics", "--create", "--topic", "t", "--partitions", "2"];
    kafkit(dir.path(), &args).ok();
    remote(&broker, &args).ok();
    let records = [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5")];
    if !kafka_python_produce(&broker, "t", &records) {
        return;
    }
    let lines: String = records.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let produce: Vec<&str> =
        "produce --topic t --property parse.key=true --property key.separator=:"
            .split(' ')
            .collect();
    kafkit_stdin(dir.path(), &produce, lines.as_bytes()).ok();
    // Tansu answers "latest" with the last batch's base offset + 1: equal to Kafka's log end
    // here because kafka-python sent each record in a batch of its own.
    for args in [
        &["get-offsets", "--topic", "t"][..],
        &["get-offsets", "--topic", "t", "--time", "earliest"],
        &["get-offsets", "--topic-partitions", "t:1"],
        &["--output", "json", "get-offsets", "--topic", "t"],
    ] {
        let local = kafkit(dir.path(), args);
        let net = remote(&broker, args);
        assert_eq!(net.ok(), local.ok(), "{args:?}");
    }
    let none = remote(&broker, &["get-offsets", "--topic", "nope"]);
    assert_eq!(
        none.stderr,
        "Error occurred: Could not match any topic-partitions with the specified filters\n"
    );
}

#[test]
fn bad_addresses_and_brokers_that_are_down_are_kafkas_errors() {
    let dir = tempdir();
    let d = dir.path().to_str().expect("path");
    // Nothing listens there: Kafka's client warning, then its timeout.
    let down = format!("127.0.0.1:{}", free_port());
    std::fs::write(
        dir.path().join("fast.properties"),
        "default.api.timeout.ms=300\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("bad.properties"),
        "request.timeout.ms=soon\n",
    )
    .expect("write");
    let warning = format!(
        "WARN Connection to node -1 (127.0.0.1/{down}) could not be established. Node may not be available. (org.apache.kafka.clients.NetworkClient)"
    );
    let timeout = "Timed out waiting for a node assignment. Call: listTopics";
    // (command line, stdout, what stderr holds)
    let absent = "Topic t not present in metadata after 300 ms.\n".to_string();
    let cases: [(String, String, &str); 7] = [
        // Not host:port.
        (
            "topics --list --bootstrap-server localhost".into(),
            String::new(),
            "Invalid url in bootstrap.servers: localhost\n",
        ),
        (
            "get-offsets --bootstrap-server ,".into(),
            String::new(),
            "No resolvable bootstrap urls given in bootstrap.servers\n",
        ),
        // --data-dir names another place: refused, not ignored.
        (
            format!("--data-dir {d} topics --list --bootstrap-server 127.0.0.1:9092"),
            String::new(),
            "Option \"[bootstrap-server]\" can't be used with option \"[data-dir]\"",
        ),
        (
            format!("topics --list --bootstrap-server {down} --command-config {d}/fast.properties"),
            format!("Error while executing topic command : {timeout}\n"),
            &warning,
        ),
        (
            format!("get-offsets --bootstrap-server {down} --command-config {d}/fast.properties"),
            String::new(),
            &format!("Error occurred: {timeout}\n"),
        ),
        (
            format!(
                "produce --topic t --bootstrap-server {down} --producer.config {d}/fast.properties"
            ),
            String::new(),
            &absent,
        ),
        // A property Kafka refuses.
        (
            format!("topics --list --bootstrap-server {down} --command-config {d}/bad.properties"),
            String::new(),
            "Invalid value soon for configuration request.timeout.ms: Not a number of type LONG",
        ),
    ];
    for (line, stdout, stderr) in &cases {
        let args: Vec<&str> = line.split(' ').collect();
        let run = kafkit(dir.path(), &args);
        assert_eq!(run.code, 1, "{line}");
        assert_eq!(&run.stdout, stdout, "{line}");
        assert!(run.stderr.contains(stderr), "{line}: {}", run.stderr);
    }
    let blank = kafkit(dir.path(), &["get-offsets", "--bootstrap-server", " "]);
    assert!(
        blank
            .stderr
            .starts_with("Error while validating the bootstrap address\n"),
        "{}",
        blank.stderr
    );
}

#[test]
fn produce_sends_what_kcat_reads_back_for_every_codec() {
    let Some(broker) = broker::start() else {
        return;
    };
    let Some(_) = broker::kcat() else {
        return;
    };
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis();
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let topic = format!("t-{codec}");
        remote(
            &broker,
            &["topics", "--create", "--topic", &topic, "--partitions", "1"],
        )
        .ok();
        let lines = "h1:a,h2:b\tk1\tfirst\nh0:z\tk2\tsecond\nh3:c\tk3\t\n";
        let mut args: Vec<&str> = "produce --property parse.key=true --property parse.headers=true"
            .split(' ')
            .collect();
        let bootstrap = broker.bootstrap();
        args.extend(["--topic", &topic, "--compression-codec", codec]);
        args.extend(["--bootstrap-server", &bootstrap]);
        kafkit_stdin(&tempdir().path().join("unused"), &args, lines.as_bytes()).ok();
        let out = broker::kcat()
            .expect("kcat")
            .args([
                "-C",
                "-b",
                &bootstrap,
                "-t",
                &topic,
                "-e",
                "-q",
                "-o",
                "beginning",
            ])
            .args(["-f", "%p|%o|%k|%s|%h|%T\n"])
            .output()
            .expect("kcat");
        let text = String::from_utf8_lossy(&out.stdout);
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('|').collect()).collect();
        let shown: Vec<Vec<&str>> = rows.iter().map(|r| r[..5].to_vec()).collect();
        assert_eq!(
            shown,
            [
                ["0", "0", "k1", "first", "h1=a,h2=b"],
                ["0", "1", "k2", "second", "h0=z"],
                ["0", "2", "k3", "", "h3=c"],
            ],
            "{codec}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for row in &rows {
            let ts: u128 = row[5].parse().expect("timestamp");
            assert!(ts >= before, "{codec}: {row:?}");
        }
    }
}

#[test]
fn consume_prints_what_it_prints_for_a_data_directory() {
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    let create = ["topics", "--create", "--topic", "c", "--partitions", "2"];
    kafkit(dir.path(), &create).ok();
    remote(&broker, &create).ok();
    let lines: String = (0..40).map(|i| format!("h:{i}\tk{i}\tv{i}\n")).collect();
    let produce: Vec<&str> =
        "produce --topic c --property parse.key=true --property parse.headers=true"
            .split(' ')
            .collect();
    kafkit_stdin(dir.path(), &produce, lines.as_bytes()).ok();
    let mut to_broker = produce.clone();
    let bootstrap = broker.bootstrap();
    // --sync: a batch a record. Tansu answers "latest" with the last batch's base offset + 1
    // (Kafka: the log end), which would put --offset 3 out of range after one batch of all.
    to_broker.extend(["--bootstrap-server", &bootstrap, "--sync"]);
    kafkit_stdin(&dir.path().join("unused"), &to_broker, lines.as_bytes()).ok();
    let shown = "--property print.key=true --property print.partition=true --property print.offset=true --property print.headers=true";
    for line in [
        format!("consume --topic c --from-beginning --max-messages 40 {shown}"),
        format!("consume --topic c --partition 1 --offset 3 --max-messages 5 {shown}"),
        format!("consume --topic c --partition 0 --offset earliest --max-messages 2 {shown}"),
        "consume --include c.* --from-beginning --max-messages 7 --formatter-config /dev/null"
            .to_string(),
    ] {
        let args: Vec<&str> = line.split(' ').collect();
        let local = kafkit(dir.path(), &args);
        let net = remote(&broker, &args);
        assert_eq!(net.ok(), local.ok(), "{line}");
        assert_eq!(net.stderr, local.stderr, "{line}");
    }
    // The end of a partition: --timeout-ms ends the run as for a directory.
    let run = remote(&broker, &["consume", "--topic", "c", "--timeout-ms", "300"]);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("org.apache.kafka.common.errors.TimeoutException"),
        "{}",
        run.stderr
    );
    // A topic the cluster does not have.
    let run = remote(&broker, &["consume", "--topic", "nope", "--from-beginning"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .starts_with("Topic nope does not exist in the cluster"),
        "{}",
        run.stderr
    );
}

#[test]
fn consume_reads_what_kcat_produced_for_every_codec() {
    let Some(broker) = broker::start() else {
        return;
    };
    let bootstrap = broker.bootstrap();
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let topic = format!("k-{codec}");
        remote(
            &broker,
            &["topics", "--create", "--topic", &topic, "--partitions", "1"],
        )
        .ok();
        let Some(mut kcat) = broker::kcat() else {
            return;
        };
        let file = tempdir();
        let input = file.path().join("in");
        std::fs::write(&input, "a:first\nb:second\nc:third\n").expect("write");
        let out = kcat
            .args([
                "-P", "-b", &bootstrap, "-t", &topic, "-z", codec, "-K:", "-H", "h=1",
            ])
            .args(["-l", input.to_str().expect("path")])
            .output()
            .expect("kcat");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let run = remote(
            &broker,
            &[
                "consume",
                "--topic",
                &topic,
                "--from-beginning",
                "--max-messages",
                "3",
                "--property",
                "print.key=true",
                "--property",
                "print.headers=true",
                "--property",
                "print.offset=true",
            ],
        );
        assert_eq!(
            run.ok(),
            "Offset:0\th:1\ta\tfirst\nOffset:1\th:1\tb\tsecond\nOffset:2\th:1\tc\tthird\n",
            "{codec}"
        );
    }
}

/// The README's session against a broker (the `broker$ ` lines of the block after
/// `<!-- broker session -->`), run against a Tansu broker in place of `localhost:9092`,
/// prints what the README shows.
#[test]
fn the_readmes_broker_session_prints_what_it_shows() {
    let readme =
        std::fs::read_to_string(crate::common::repo_root().join("README.md")).expect("README.md");
    let block: Vec<&str> = readme
        .split_once("<!-- broker session -->\n```console\n")
        .expect("the README's broker session")
        .1
        .lines()
        .take_while(|l| !l.starts_with("```"))
        .collect();
    let mut session: Vec<(String, Vec<String>)> = Vec::new();
    for line in block {
        match line.strip_prefix("broker$ ") {
            Some(command) => session.push((command.to_string(), Vec::new())),
            None => session
                .last_mut()
                .expect("a command first")
                .1
                .push(line.to_string()),
        }
    }
    assert!(session.len() >= 6, "{session:?}");
    let Some(broker) = broker::start() else {
        return;
    };
    let dir = tempdir();
    for (command, shown) in &session {
        let command = command.replace("localhost:9092", &broker.bootstrap());
        let out = Command::new("sh")
            .args(["-c", &command])
            .current_dir(dir.path())
            .env("PATH", crate::readme::path_with_kafkit())
            .env_remove("KAFKIT_DATA_DIR")
            .output()
            .expect("sh");
        let actual: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&out.stderr).lines())
            .map(str::to_string)
            .collect();
        let (shown, actual) = (
            crate::readme::normalize(shown),
            crate::readme::normalize(&actual),
        );
        assert!(
            crate::readme::matches(&shown, &actual),
            "`{command}` printed\n{}\nwhere the README shows\n{}",
            actual.join("\n"),
            shown.join("\n")
        );
        assert!(out.status.success(), "`{command}`");
    }
}

/// Runs `kafkit <args>` (a consumer of the records `a`, `b`), stops `broker` once both are
/// printed, and returns the consumer's stderr: it must end within 20 s, with exit 1.
pub(crate) fn consume_until_the_broker_stops(broker: Broker, args: &[&str]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("consume");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 4];
    std::io::Read::read_exact(&mut stdout, &mut first).expect("the records");
    assert_eq!(&first, b"a\nb\n");
    drop(broker);
    let started = std::time::Instant::now();
    let out = child.wait_with_output().expect("wait");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_broker_that_stops_mid_consume_ends_the_run_with_an_error() {
    let Some(broker) = broker::start() else {
        return;
    };
    let bootstrap = broker.bootstrap();
    remote(
        &broker,
        &["topics", "--create", "--topic", "s", "--partitions", "1"],
    )
    .ok();
    let mut produce: Vec<&str> = vec!["produce", "--topic", "s", "--bootstrap-server"];
    produce.push(&bootstrap);
    kafkit_stdin(&tempdir().path().join("unused"), &produce, b"a\nb\n").ok();
    let stderr = consume_until_the_broker_stops(
        broker,
        &[
            "consume",
            "--topic",
            "s",
            "--from-beginning",
            "--bootstrap-server",
            &bootstrap,
            "--consumer-property",
            "default.api.timeout.ms=500",
            "--consumer-property",
            "request.timeout.ms=500",
        ],
    );
    assert!(
        stderr.contains("Processed a total of 2 messages"),
        "{stderr}"
    );
    assert!(stderr.contains("could not be established"), "{stderr}");
}

#[test]
fn kafka_python_reads_what_produce_sent_for_every_codec() {
    let Some(broker) = broker::start() else {
        return;
    };
    let bootstrap = broker.bootstrap();
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let topic = format!("p-{codec}");
        remote(
            &broker,
            &["topics", "--create", "--topic", &topic, "--partitions", "1"],
        )
        .ok();
        let mut args: Vec<&str> = "produce --property parse.key=true --property parse.headers=true"
            .split(' ')
            .collect();
        args.extend([
            "--topic",
            &topic,
            "--compression-codec",
            codec,
            "--bootstrap-server",
        ]);
        args.push(&bootstrap);
        kafkit_stdin(
            &tempdir().path().join("unused"),
            &args,
            b"h:1\tk1\tv1\nh:2\tk2\tv2\n",
        )
        .ok();
        let script = format!(
            "from kafka import KafkaConsumer\n\
             c = KafkaConsumer('{topic}', bootstrap_servers='{bootstrap}', auto_offset_reset='earliest', consumer_timeout_ms=5000, api_version_auto_timeout_ms=10000)\n\
             for r in c:\n    print(r.offset, r.key.decode(), r.value.decode(), [(k, v.decode()) for k, v in r.headers])\n    if r.offset == 1: break\n"
        );
        let out = match Command::new("python3").args(["-c", &script]).output() {
            Ok(out) if String::from_utf8_lossy(&out.stderr).contains("No module named") => {
                crate::common::skip("kafka-python (or a codec module) is not installed");
                return;
            }
            Ok(out) => out,
            Err(e) => {
                crate::common::skip(&format!("python3 did not run: {e}"));
                return;
            }
        };
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "0 k1 v1 [('h', '1')]\n1 k2 v2 [('h', '2')]\n",
            "{codec}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_broker_that_stops_mid_produce_fails_what_was_not_acknowledged() {
    let Some(broker) = broker::start() else {
        return;
    };
    let bootstrap = broker.bootstrap();
    remote(
        &broker,
        &["topics", "--create", "--topic", "f", "--partitions", "1"],
    )
    .ok();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args([
            "--output",
            "json",
            "produce",
            "--topic",
            "f",
            "--timeout",
            "0",
        ])
        .args(["--bootstrap-server", &bootstrap])
        .args(["--producer-property", "max.block.ms=500"])
        .args(["--producer-property", "request.timeout.ms=500"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("produce");
    let mut stdin = child.stdin.take().expect("stdin");
    std::io::Write::write_all(&mut stdin, b"a\n").expect("write");
    // The first record is acknowledged (its report is printed) before the broker goes.
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).expect("the report");
    assert!(
        first.starts_with(r#"{"type":"produced","topic":"f","partition":0,"offset":0,"#),
        "{first}"
    );
    drop(broker);
    std::io::Write::write_all(&mut stdin, b"b\n").expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Could not write 1 of 2 records to topic f"),
        "{stderr}"
    );
}
