//! `kafkit produce` through the binary: Kafka's line rules and errors, partitioning, codecs,
//! JSON input, durability settings, topic configs, torn tails (`kafka-cli-surface.md` §3, §4).

use std::fs;
use std::path::Path;

use serde_json::Value;

use kafkit::datadir::{DataDir, TopicPartition};
use kafkit::log::LogReader;
use kafkit::record::Compression;

use crate::common::{fixtures, kafkit, kafkit_stdin, tempdir, vectors};

/// Creates a topic through `kafkit topics`.
pub fn create_topic(dir: &Path, topic: &str, partitions: u32, configs: &[&str]) {
    let partitions = partitions.to_string();
    let mut args = vec![
        "topics",
        "--create",
        "--topic",
        topic,
        "--partitions",
        &partitions,
    ];
    for c in configs {
        args.push("--config");
        args.push(c);
    }
    kafkit(dir, &args).ok();
}

/// Every record of a topic as `consume --output json` prints it, partition by partition.
pub fn consume_all(dir: &Path, topic: &str) -> Vec<Value> {
    let run = kafkit(
        dir,
        &[
            "consume",
            "--topic",
            topic,
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--output",
            "json",
        ],
    );
    run.ok()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// The records of a partition's log, read through the library as they are now (0 before the
/// log exists; a torn tail ends the count).
pub fn records_in_log(dir: &Path, topic: &str, partition: i32) -> i32 {
    let datadir = DataDir::open(dir).expect("datadir");
    let Ok(mut log) =
        LogReader::open(&datadir.partition_dir(&TopicPartition::new(topic, partition)))
    else {
        return 0;
    };
    let mut n = 0;
    let mut base = log.segment_base_offsets().first().copied();
    while let Some(b) = base {
        if let Ok(mut reader) = log.reader(b, 0) {
            while let Ok(Some((_, batch))) = reader.next_batch() {
                n += batch.records_count().unwrap_or(0);
            }
        }
        base = log.next_segment(b);
    }
    n
}

/// (codec, record count, base offset, last offset) of every batch of a partition.
pub fn batches(dir: &Path, topic: &str, partition: i32) -> Vec<(Compression, i32, i64, i64)> {
    let datadir = DataDir::open(dir).expect("datadir");
    let mut log = LogReader::open(&datadir.partition_dir(&TopicPartition::new(topic, partition)))
        .expect("log");
    let mut out = Vec::new();
    let mut base = log.segment_base_offsets().first().copied();
    while let Some(b) = base {
        let mut reader = log.reader(b, 0).expect("reader");
        while let Some((_, batch)) = reader.next_batch().expect("batch") {
            assert!(
                batch.is_valid(),
                "CRC of the batch at {}",
                batch.base_offset()
            );
            out.push((
                batch.compression().expect("codec"),
                batch.records_count().unwrap_or(-1),
                batch.base_offset(),
                batch.last_offset(),
            ));
        }
        base = log.next_segment(b);
    }
    out
}

/// Milliseconds since the epoch, as the producer stamps records.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as i64
}

fn values(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| r["value"].as_str().unwrap_or("<null>").to_string())
        .collect()
}

#[test]
fn text_produce_prints_nothing_and_round_trips_for_every_codec() {
    let dir = tempdir();
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let topic = format!("rt-{codec}");
        create_topic(dir.path(), &topic, 1, &[]);
        let mut input = String::new();
        for i in 0..300 {
            input.push_str(&format!(
                "h{i}:x{i},n:\tkey-{i}\tvalue {i} {}\n",
                "z".repeat(i % 50)
            ));
        }
        let run = kafkit_stdin(
            dir.path(),
            &[
                "produce",
                "--topic",
                &topic,
                "--compression-codec",
                codec,
                "--property",
                "parse.key=true",
                "--property",
                "parse.headers=true",
                "--batch-size",
                "2000",
            ],
            input.as_bytes(),
        );
        assert_eq!(run.ok(), "", "text produce prints nothing");
        assert_eq!(run.stderr, "");
        let records = consume_all(dir.path(), &topic);
        assert_eq!(records.len(), 300, "{codec}");
        for (i, r) in records.iter().enumerate() {
            assert_eq!(r["offset"], i as i64);
            assert_eq!(r["key"], format!("key-{i}"));
            assert_eq!(r["value"], format!("value {i} {}", "z".repeat(i % 50)));
            assert_eq!(
                r["headers"],
                serde_json::json!([{"key": format!("h{i}"), "value": format!("x{i}")}, {"key": "n", "value": ""}])
            );
            assert_eq!(r["timestamp_type"], "CreateTime");
        }
        let batches = batches(dir.path(), &topic, 0);
        assert!(batches.len() > 5, "batch.size 2000 makes several batches");
        let mut next = 0;
        for (c, n, base, last) in &batches {
            assert_eq!(c.name(), codec);
            assert_eq!(*base, next, "consecutive offsets");
            assert_eq!(last - base + 1, i64::from(*n));
            next = last + 1;
        }
    }
}

#[test]
fn compression_defaults_to_the_topics_compression_type() {
    let dir = tempdir();
    create_topic(dir.path(), "z", 1, &["compression.type=lz4"]);
    kafkit_stdin(dir.path(), &["produce", "--topic", "z"], b"a\nb\n").ok();
    assert!(batches(dir.path(), "z", 0)
        .iter()
        .all(|b| b.0 == Compression::Lz4));
    assert_eq!(values(&consume_all(dir.path(), "z")), ["a", "b"]);
}

#[test]
fn producer_configuration_errors_have_kafkas_messages() {
    let dir = tempdir();
    create_topic(dir.path(), "t", 2, &[]);
    let err = kafkit(dir.path(), &["produce"]).fails().to_string();
    assert!(
        err.starts_with("Missing required argument \"[topic]\""),
        "{err}"
    );
    let err = kafkit(
        dir.path(),
        &["produce", "--topic", "t", "--compression-codec", "brotli"],
    )
    .fails()
    .to_string();
    assert!(err.contains("Invalid value brotli for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd"), "{err}");
    let err = kafkit(dir.path(), &["produce", "--topic", "t", "--acks", "2"])
        .fails()
        .to_string();
    assert!(
        err.contains("Invalid value 2 for configuration acks"),
        "{err}"
    );
    // batch.size and max.request.size are INTs of at least 0, however they are given.
    for (args, name) in [
        (&["--batch-size", "-5"][..], "batch.size"),
        (&["--max-partition-memory-bytes", "-5"][..], "batch.size"),
        (&["--producer-property", "batch.size=-5"][..], "batch.size"),
        (
            &["--producer-property", "max.request.size=-5"][..],
            "max.request.size",
        ),
    ] {
        let err = kafkit(
            dir.path(),
            &[&["produce", "--topic", "t"][..], args].concat(),
        )
        .fails()
        .to_string();
        assert_eq!(
            err.trim(),
            format!("org.apache.kafka.common.config.ConfigException: Invalid value -5 for configuration {name}: Value must be at least 0")
        );
    }
    // A partition that does not exist, named by the option or by a JSON record: the first
    // line of what the Java client throws (the metadata check, ProducerRecord's check), after
    // the line number for a JSON record.
    let out_of_range = "org.apache.kafka.common.KafkaException: Invalid partition given with record: 2 is not in the range [0...2).";
    let negative = "java.lang.IllegalArgumentException: Invalid partition: -1. Partition number should always be non-negative or null.";
    let too_large = format!("{{\"value\":\"{}\",\"partition\":2}}\n", "x".repeat(300));
    for (args, input, message) in [
        (&["--partition", "2"][..], "a\n", out_of_range),
        (&["--partition=-1"][..], "a\n", negative),
        (&["--partition", "-1"][..], "a\n", negative),
        (
            &["--input", "json"][..],
            "{\"value\":\"a\",\"partition\":2}\n",
            out_of_range,
        ),
        (
            &["--input", "json"][..],
            "{\"value\":\"a\",\"partition\":-1}\n",
            negative,
        ),
        // Checked before the record's size, as the Java client does.
        (
            &[
                "--input",
                "json",
                "--producer-property",
                "max.request.size=100",
            ][..],
            too_large.as_str(),
            out_of_range,
        ),
    ] {
        let mut all = vec!["produce", "--topic", "t"];
        all.extend_from_slice(args);
        let run = kafkit_stdin(dir.path(), &all, input.as_bytes());
        // A JSON record's own partition: the error says which line it is.
        let expected = if args.contains(&"json") {
            format!("Invalid JSON record on line number 1: {message}")
        } else {
            message.to_string()
        };
        assert_eq!(run.fails().trim_end(), expected, "{args:?}");
    }
    let err = kafkit(dir.path(), &["produce", "--topic", "nope"])
        .fails()
        .to_string();
    assert!(err.contains("Topic nope not present in metadata"), "{err}");
    // --compression-codec without a value is gzip.
    kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "t",
            "--partition",
            "1",
            "--compression-codec",
        ],
        b"x\n",
    )
    .ok();
    assert_eq!(batches(dir.path(), "t", 1)[0].0, Compression::Gzip);
}

fn vector_doc() -> Option<Value> {
    let dir = vectors()?;
    let text =
        fs::read_to_string(dir.join("cli/console_producer_line_reader.json")).expect("vectors");
    Some(serde_json::from_str(&text).expect("json"))
}

fn prop_args(props: &Value) -> Vec<String> {
    let mut args = Vec::new();
    for (k, v) in props.as_object().expect("props") {
        args.push("--property".to_string());
        args.push(format!("{k}={}", v.as_str().unwrap_or_default()));
    }
    args
}

#[test]
fn every_line_reader_vector_through_the_binary() {
    let Some(doc) = vector_doc() else { return };
    for (i, case) in doc["cases"].as_array().expect("cases").iter().enumerate() {
        let dir = tempdir();
        create_topic(dir.path(), "t", 1, &[]);
        let name = case["name"].as_str().unwrap_or_default();
        let mut args: Vec<String> = ["produce", "--topic", "t"].map(String::from).to_vec();
        args.extend(prop_args(&case["props"]));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = kafkit_stdin(
            dir.path(),
            &args,
            case["input"].as_str().expect("input").as_bytes(),
        );
        let expected = case["expected"].as_array().expect("expected");
        // The console producer stops at the first bad line; every record before it is written.
        let first_error = expected.iter().position(|e| e.get("error").is_some());
        let good = &expected[..first_error.unwrap_or(expected.len())];
        match first_error {
            Some(at) => {
                let message = expected[at]["error"].as_str().expect("error");
                assert_ne!(run.code, 0, "case {i} {name}");
                // The first line of the Java tool's stack trace.
                assert_eq!(
                    run.stderr.trim_end(),
                    format!("org.apache.kafka.common.KafkaException: {message}"),
                    "case {i} {name}"
                );
            }
            None => assert_eq!(run.ok(), "", "case {i} {name}"),
        }
        let records = consume_all(dir.path(), "t");
        assert_eq!(records.len(), good.len(), "case {i} {name}");
        for (r, e) in records.iter().zip(good) {
            assert_eq!(r["key"], e["key"], "case {i} {name}");
            assert_eq!(r["value"], e["value"], "case {i} {name}");
            let headers: Vec<Value> = e["headers"]
                .as_array()
                .expect("headers")
                .iter()
                .map(|p| serde_json::json!({"key": p[0], "value": p[1]}))
                .collect();
            assert_eq!(r["headers"], Value::Array(headers), "case {i} {name}");
        }
    }
    for case in doc["config_errors"].as_array().expect("config errors") {
        let dir = tempdir();
        create_topic(dir.path(), "t", 1, &[]);
        let mut args: Vec<String> = ["produce", "--topic", "t"].map(String::from).to_vec();
        args.extend(prop_args(&case["props"]));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = kafkit_stdin(dir.path(), &args, b"a\n");
        assert_eq!(
            run.fails().trim_end(),
            format!(
                "org.apache.kafka.common.KafkaException: {}",
                case["error"].as_str().expect("error")
            )
        );
        assert!(consume_all(dir.path(), "t").is_empty());
    }
}

/// Line reader rules of `kafka-cli-surface.md` §4.2 that the upstream vectors do not cover:
/// (properties, input, records as (key, value, headers), error on stderr).
#[test]
fn line_reader_rules_beyond_the_vectors() {
    type Case<'a> = (
        &'a [&'a str],
        &'a str,
        Vec<(Value, Value, Value)>,
        Option<&'a str>,
    );
    let s = |v: &str| Value::from(v);
    let none = || Value::Null;
    let headers = |pairs: &[(&str, &str)]| {
        Value::Array(
            pairs
                .iter()
                .map(|(k, v)| serde_json::json!({"key": k, "value": v}))
                .collect(),
        )
    };
    let cases: Vec<Case<'_>> = vec![
        // A line without the headers delimiter stops the run; the line before stays.
        (
            &["parse.headers=true"],
            "h:v\tok\nnodelim\n",
            vec![(none(), s("ok"), headers(&[("h", "v")]))],
            Some("No headers delimiter found on line number 2: 'nodelim'"),
        ),
        // An empty headers string is one empty pair, which has no key separator...
        (
            &["parse.key=true", "parse.headers=true"],
            "\tkey\tvalue\n",
            vec![],
            Some("No header key separator found in pair '' on line number 1"),
        ),
        // ...while a string of separators only has no pairs at all (Java's Pattern.split).
        (
            &["parse.key=true", "parse.headers=true"],
            ",\tkey\tvalue\n",
            vec![(s("key"), s("value"), headers(&[]))],
            None,
        ),
        // Booleans: `true` trimmed, any case; anything else is false.
        (
            &["parse.key= TRUE "],
            "k\tv\n",
            vec![(s("k"), s("v"), headers(&[]))],
            None,
        ),
        (
            &["parse.key=yes"],
            "k\tv\n",
            vec![(none(), s("k\tv"), headers(&[]))],
            None,
        ),
        // headers.separator is a Java regex.
        (
            &["parse.headers=true", "headers.separator=[;|]"],
            "a:1;b:2|c:3\tv\n",
            vec![(
                none(),
                s("v"),
                headers(&[("a", "1"), ("b", "2"), ("c", "3")]),
            )],
            None,
        ),
        // Values are literal: `\t` typed as two characters is backslash-t, not a tab.
        (
            &["parse.key=true", "key.separator=\\t"],
            "k\\tv\n",
            vec![(s("k"), s("v"), headers(&[]))],
            None,
        ),
    ];
    for (props, input, records, error) in cases {
        let dir = tempdir();
        create_topic(dir.path(), "t", 1, &[]);
        let mut args = vec!["produce", "--topic", "t"];
        for p in props {
            args.extend(["--property", p]);
        }
        let run = kafkit_stdin(dir.path(), &args, input.as_bytes());
        match error {
            Some(message) => assert_eq!(
                run.fails().trim_end(),
                format!("org.apache.kafka.common.KafkaException: {message}"),
                "{props:?} {input:?}"
            ),
            None => assert_eq!(run.ok(), "", "{props:?} {input:?}"),
        }
        let got: Vec<(Value, Value, Value)> = consume_all(dir.path(), "t")
            .into_iter()
            .map(|r| (r["key"].clone(), r["value"].clone(), r["headers"].clone()))
            .collect();
        assert_eq!(got, records, "{props:?} {input:?}");
    }
}

/// Every accepted spelling of acks, under both option names; anything else is refused with
/// Kafka's ConfigException. A file as input, with stderr not a terminal: no progress bar.
#[test]
fn acks_spellings_and_a_file_without_a_terminal() {
    let dir = tempdir();
    create_topic(dir.path(), "t", 1, &[]);
    let input = dir.path().join("in.txt");
    fs::write(&input, "a\nb\n").expect("write");
    let spellings = [
        ["--acks", "0"],
        ["--acks", "1"],
        ["--acks", "all"],
        ["--acks", "-1"],
        ["--request-required-acks", "all"],
        ["--request-required-acks", "-1"],
    ];
    for option in spellings {
        let mut args = vec!["produce", "--topic", "t", "--file"];
        args.push(input.to_str().expect("path"));
        args.extend(option);
        let run = kafkit(dir.path(), &args);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (0, "", ""),
            "{option:?}"
        );
    }
    let values: Vec<Value> = consume_all(dir.path(), "t")
        .iter()
        .map(|r| r["value"].clone())
        .collect();
    assert_eq!(values, ["a", "b"].repeat(spellings.len()));
    for option in [["--acks", "2"], ["--request-required-acks", "one"]] {
        let mut args = vec!["produce", "--topic", "t"];
        args.extend(option);
        assert_eq!(
            kafkit_stdin(dir.path(), &args, b"x\n").fails().trim_end(),
            format!(
                "org.apache.kafka.common.config.ConfigException: Invalid value {} for configuration acks: String must be one of: all, -1, 0, 1",
                option[1]
            )
        );
    }
}

#[test]
fn a_bad_line_stops_the_run_and_keeps_what_came_before() {
    let dir = tempdir();
    create_topic(dir.path(), "t", 1, &[]);
    let mut input = String::new();
    for i in 0..1000 {
        input.push_str(&format!("k{i}\tv{i}\n"));
    }
    input.push_str("no separator here\nk\tafter\n");
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "t",
            "--property",
            "parse.key=true",
            "--batch-size",
            "500",
        ],
        input.as_bytes(),
    );
    assert_eq!(
        run.fails().trim_end(),
        "org.apache.kafka.common.KafkaException: No key separator found on line number 1001: 'no separator here'"
    );
    let records = consume_all(dir.path(), "t");
    assert_eq!(records.len(), 1000);
    assert_eq!(records[999]["value"], "v999");
    // ignore.error turns the same line into a record with a null key.
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "t",
            "--property",
            "parse.key=true",
            "--property",
            "ignore.error=true",
        ],
        b"no separator here\n",
    );
    run.ok();
    let records = consume_all(dir.path(), "t");
    assert_eq!(records[1000]["key"], Value::Null);
    assert_eq!(records[1000]["value"], "no separator here");
}

fn murmur2_cases() -> Vec<Value> {
    let Some(dir) = vectors() else {
        return Vec::new();
    };
    let text = fs::read_to_string(dir.join("cli/murmur2.json")).expect("vectors");
    let doc: Value = serde_json::from_str(&text).expect("json");
    doc["cases"].as_array().expect("cases").clone()
}

/// Produces `input` to a new topic `k` of `partitions` partitions with `args`, and checks that
/// the record whose value is `i` landed on `expected[i]`.
fn assert_partitions(partitions: u32, args: &[&str], input: &str, expected: &[i64]) {
    let dir = tempdir();
    create_topic(dir.path(), "k", partitions, &[]);
    let mut all = vec!["produce", "--topic", "k"];
    all.extend_from_slice(args);
    kafkit_stdin(dir.path(), &all, input.as_bytes()).ok();
    let records = consume_all(dir.path(), "k");
    assert_eq!(records.len(), expected.len());
    for r in &records {
        let i: usize = r["value"].as_str().expect("value").parse().expect("index");
        assert_eq!(r["partition"], expected[i], "{r} over {partitions}");
    }
}

#[test]
fn keyed_records_land_on_murmur2_partitions_of_the_vectors() {
    use base64::Engine;
    let cases = murmur2_cases();
    if cases.is_empty() {
        return;
    }
    for partitions in [3u32, 10, 16] {
        let expected_of = |case: &Value| {
            case["partition_for_key"][partitions.to_string()]
                .as_i64()
                .expect("partition")
        };
        // As lines: keys a line can carry (printable, no tab or line break, not empty).
        let mut input = String::new();
        let mut expected = Vec::new();
        for case in &cases {
            let Some(key) = case["input_utf8"].as_str() else {
                continue;
            };
            if key.is_empty() || key.contains(['\t', '\n', '\r']) {
                continue;
            }
            input.push_str(&format!("{key}\t{}\n", expected.len()));
            expected.push(expected_of(case));
        }
        assert!(expected.len() >= 20, "vector keys used: {}", expected.len());
        assert_partitions(
            partitions,
            &["--property", "parse.key=true"],
            &input,
            &expected,
        );
        // Through `--input json`: every key, the empty one and bytes that are not UTF-8 too.
        let mut input = String::new();
        let mut expected = Vec::new();
        for case in &cases {
            let hex = case["input_hex"].as_str().expect("hex");
            let key: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex byte"))
                .collect();
            let b64 = base64::engine::general_purpose::STANDARD.encode(&key);
            let line =
                serde_json::json!({"key": {"base64": b64}, "value": expected.len().to_string()});
            input.push_str(&format!("{line}\n"));
            expected.push(expected_of(case));
        }
        assert_eq!(expected.len(), cases.len());
        assert_partitions(partitions, &["--input", "json"], &input, &expected);
    }
}

#[test]
fn unkeyed_records_stick_per_batch_and_spread_over_all_partitions() {
    let dir = tempdir();
    create_topic(dir.path(), "u", 4, &[]);
    let mut input = String::new();
    for i in 0..4000 {
        input.push_str(&format!("{i:06} {}\n", "x".repeat(93)));
    }
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "u", "--batch-size", "1024"],
        input.as_bytes(),
    )
    .ok();
    let records = consume_all(dir.path(), "u");
    assert_eq!(records.len(), 4000);
    let mut per_partition = [0usize; 4];
    for r in &records {
        per_partition[r["partition"].as_u64().expect("p") as usize] += 1;
    }
    assert!(per_partition.iter().all(|n| *n > 0), "{per_partition:?}");
    // Sticky: each batch holds consecutive input lines (a run of one partition).
    for p in 0..4 {
        let index: Vec<u64> = records
            .iter()
            .filter(|r| r["partition"] == p)
            .map(|r| r["value"].as_str().expect("v")[..6].parse().expect("n"))
            .collect();
        let mut at = 0;
        for (_, n, _, _) in batches(dir.path(), "u", p) {
            let run = &index[at..at + n as usize];
            assert!(
                run.windows(2).all(|w| w[1] == w[0] + 1),
                "batch of partition {p}: {run:?}"
            );
            at += n as usize;
        }
    }
}

#[test]
fn round_robin_random_murmur2_and_forced_partitions() {
    let dir = tempdir();
    create_topic(dir.path(), "r", 3, &[]);
    let input: String = (0..9).map(|i| format!("k{i}\t{i}\n")).collect();
    let produce = |extra: &[&str]| {
        let mut args = vec!["produce", "--topic", "r", "--property", "parse.key=true"];
        args.extend_from_slice(extra);
        kafkit_stdin(dir.path(), &args, input.as_bytes()).ok();
        let records = consume_all(dir.path(), "r");
        kafkit(dir.path(), &["topics", "--delete", "--topic", "r"]).ok();
        create_topic(dir.path(), "r", 3, &[]);
        records
    };
    // Strict rotation, keys ignored, also when full batches are sealed along the way (Kafka up
    // to 3.9.0 skips partitions then: KAFKA-17632).
    for batch_size in ["16384", "1", "150"] {
        for r in produce(&["--partitioner", "round-robin", "--batch-size", batch_size]) {
            let i: i64 = r["value"].as_str().expect("v").parse().expect("i");
            assert_eq!(r["partition"], i % 3, "batch size {batch_size}");
        }
        for r in produce(&[
            "--partitioner",
            "murmur2",
            "--batch-size",
            batch_size,
            "--property",
            "parse.key=false",
        ]) {
            let i: i64 = r["value"].as_str().expect("v")[3..].parse().expect("i");
            assert_eq!(
                r["partition"],
                i % 3,
                "unkeyed murmur2 rotates, batch size {batch_size}"
            );
        }
    }
    for r in produce(&["--partitioner", "murmur2"]) {
        let key = r["key"].as_str().expect("key");
        assert_eq!(
            r["partition"],
            kafkit::client::partition_for_key(key.as_bytes(), 3) as i64
        );
    }
    // Random: the same seed gives the same choices; keys are ignored.
    let partitions_of = |records: Vec<Value>| {
        let mut by_value: Vec<(String, i64)> = records
            .iter()
            .map(|r| {
                (
                    r["value"].as_str().expect("v").to_string(),
                    r["partition"].as_i64().expect("p"),
                )
            })
            .collect();
        by_value.sort();
        by_value
    };
    let first = partitions_of(produce(&[
        "--partitioner",
        "random",
        "--partitioner-seed",
        "3",
    ]));
    let again = partitions_of(produce(&[
        "--partitioner",
        "random",
        "--partitioner-seed",
        "3",
    ]));
    assert_eq!(first.len(), 9);
    assert_eq!(first, again);
    let all_k0: String = (0..300).map(|i| format!("k0\t{i}\n")).collect();
    kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "r",
            "--property",
            "parse.key=true",
            "--partitioner",
            "random",
            "--batch-size",
            "1",
        ],
        all_k0.as_bytes(),
    )
    .ok();
    let mut used: Vec<i64> = consume_all(dir.path(), "r")
        .iter()
        .map(|r| r["partition"].as_i64().expect("p"))
        .collect();
    used.sort();
    used.dedup();
    assert_eq!(used, [0, 1, 2], "one key, every partition");
    kafkit(dir.path(), &["topics", "--delete", "--topic", "r"]).ok();
    create_topic(dir.path(), "r", 3, &[]);
    for r in produce(&["--partition", "2"]) {
        assert_eq!(r["partition"], 2);
    }
}

#[test]
fn json_output_reports_each_written_record() {
    let dir = tempdir();
    create_topic(dir.path(), "j", 2, &[]);
    let before = now_ms();
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "j",
            "--partition",
            "1",
            "--output",
            "json",
        ],
        b"a\nb\nc\n",
    );
    let after = now_ms();
    let lines: Vec<Value> = run
        .ok()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines.len(), 3);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["type"], "produced");
        assert_eq!(l["topic"], "j");
        assert_eq!(l["partition"], 1);
        assert_eq!(l["offset"], i as i64);
        // CreateTime: the clock when the line was read.
        let timestamp = l["timestamp"].as_i64().expect("ts");
        assert!(
            (before..=after).contains(&timestamp),
            "{before} {timestamp} {after}"
        );
    }
    let records = consume_all(dir.path(), "j");
    assert!(records.iter().all(|r| r["timestamp_type"] == "CreateTime"));
    assert!(run.stdout.starts_with("{\"type\":\"produced\""));
}

/// `--output json` names each record where it was written, across sealed batches and the
/// sticky partitioner's moves: the reported timestamp is the record's own.
#[test]
fn json_output_follows_records_across_batches_and_partitions() {
    let dir = tempdir();
    create_topic(dir.path(), "j", 3, &[]);
    let input: String = (0..60)
        .map(|i| format!("{{\"value\":\"v{i}\",\"timestamp\":{}}}\n", 1000 + i))
        .collect();
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "j",
            "--input",
            "json",
            "--batch-size",
            "150",
            "--output",
            "json",
            // A seed under which the sticky partitioner moves (any seed does with high
            // probability; this one makes the test certain).
            "--partitioner-seed",
            "7",
        ],
        input.as_bytes(),
    );
    let reported: Vec<Value> = run
        .ok()
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(reported.len(), 60);
    let records = consume_all(dir.path(), "j");
    let partitions: std::collections::BTreeSet<i64> = records
        .iter()
        .map(|r| r["partition"].as_i64().expect("p"))
        .collect();
    assert!(
        partitions.len() > 1,
        "the partitioner moved on: {partitions:?}"
    );
    for r in &reported {
        let record = records
            .iter()
            .find(|c| c["partition"] == r["partition"] && c["offset"] == r["offset"])
            .unwrap_or_else(|| panic!("no record at {r}"));
        assert_eq!(record["timestamp"], r["timestamp"], "{r}");
        let i = r["timestamp"].as_i64().expect("ts") - 1000;
        assert_eq!(record["value"], format!("v{i}"), "{r}");
    }
}

#[test]
fn json_input_copies_records_faithfully() {
    let dir = tempdir();
    create_topic(dir.path(), "src", 3, &[]);
    create_topic(dir.path(), "dst", 3, &[]);
    let input = concat!(
        r#"{"key":"a","value":"1","headers":[{"key":"h","value":"v"},{"key":"n","value":null}],"timestamp":1000,"partition":2}"#,
        "\n",
        r#"{"key":null,"value":{"base64":"/wCA"},"timestamp":2000,"partition":0}"#,
        "\n",
        "\n",
        r#"{"key":{"base64":"gA=="},"value":null,"headers":[],"timestamp":3000,"partition":1}"#,
        "\n",
    );
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "src", "--input", "json"],
        input.as_bytes(),
    )
    .ok();
    let src = consume_all(dir.path(), "src");
    assert_eq!(src.len(), 3);
    assert_eq!(src[0]["partition"], 0);
    assert_eq!(src[0]["value"], serde_json::json!({"base64": "/wCA"}));
    assert_eq!(src[0]["timestamp"], 2000);
    let copy = consume_all(dir.path(), "src")
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "dst", "--input", "json"],
        copy.as_bytes(),
    )
    .ok();
    let dst = consume_all(dir.path(), "dst");
    let strip = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().expect("object").remove("topic");
        v
    };
    assert_eq!(
        src.iter().map(strip).collect::<Vec<_>>(),
        dst.iter().map(strip).collect::<Vec<_>>()
    );
    let err = kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "dst", "--input", "json"],
        b"{\"value\":\"ok\"}\n[1]\n",
    )
    .fails()
    .to_string();
    assert!(
        err.contains("Invalid JSON record on line number 2"),
        "{err}"
    );
}

#[test]
fn json_input_refuses_negative_timestamps_and_stamps_records_that_have_none() {
    let dir = tempdir();
    create_topic(dir.path(), "dst", 1, &[]);
    // Kafka's ProducerRecord refuses a negative timestamp; what came before stays written.
    for (bad, shown) in [
        (r#"{"value":"bad","timestamp":-5}"#, -5),
        (
            r#"{"value":"bad","timestamp":-2,"timestamp_type":"CreateTime"}"#,
            -2,
        ),
        (
            r#"{"value":"bad","timestamp":-9223372036854775808}"#,
            i64::MIN,
        ),
    ] {
        let input = format!("{{\"value\":\"ok\",\"timestamp\":5}}\n{bad}\n");
        let err = kafkit_stdin(
            dir.path(),
            &["produce", "--topic", "dst", "--input", "json"],
            input.as_bytes(),
        )
        .fails()
        .to_string();
        assert_eq!(
            err.lines().next(),
            Some(
                format!(
                    "Invalid JSON record on line number 2: \
                     java.lang.IllegalArgumentException: Invalid timestamp: {shown}. \
                     Timestamp should always be non-negative or null."
                )
                .as_str()
            ),
            "{err}"
        );
    }
    let kept = consume_all(dir.path(), "dst");
    assert_eq!(values(&kept), ["ok", "ok", "ok"]);
    assert!(kept.iter().all(|r| r["timestamp"] == 5));

    // -1 is Kafka's NO_TIMESTAMP, what consume prints for a record without one: a copy is
    // stamped when produced, as MirrorMaker copies it, whatever the timestamp type says.
    let before = now_ms();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "dst", "--input", "json"],
        br#"{"value":"none","timestamp":-1,"timestamp_type":"CreateTime"}"#,
    )
    .ok();
    let stamped = consume_all(dir.path(), "dst");
    assert_eq!(values(&stamped)[3], "none");
    assert!(stamped[3]["timestamp"].as_i64().expect("timestamp") >= before);

    // Magic-0 records (Kafka 0.8's hamlet segment) have no timestamp: consume prints -1 and
    // NoTimestampType, and copies of them are stamped too.
    let Some(fixtures) = fixtures() else { return };
    create_topic(dir.path(), "old", 1, &[]);
    let partition = dir.path().join("old-0");
    for index in [
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
    ] {
        let _ = fs::remove_file(partition.join(index));
    }
    fs::copy(
        fixtures.join("asayers__kafkalite/hamlet-none-0/00000000000000000000.log"),
        partition.join("00000000000000000000.log"),
    )
    .expect("copy the v0 segment");
    let old = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "old",
            "--from-beginning",
            "--max-messages",
            "3",
            "--output",
            "json",
        ],
    )
    .ok()
    .to_string();
    assert!(
        old.lines()
            .all(|l| l.contains(r#""timestamp":-1,"timestamp_type":"NoTimestampType""#)),
        "{old}"
    );
    create_topic(dir.path(), "copy", 1, &[]);
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "copy", "--input", "json"],
        old.as_bytes(),
    )
    .ok();
    let copy = consume_all(dir.path(), "copy");
    assert_eq!(values(&copy)[0], "The Tragedy of Hamlet, Prince of Denmark");
    assert_eq!(copy.len(), 3);
    for record in &copy {
        assert_eq!(record["timestamp_type"], "CreateTime");
        assert!(
            record["timestamp"].as_i64().expect("timestamp") >= before,
            "{record}"
        );
    }
}

#[test]
fn log_append_time_topics_stamp_the_append_time() {
    let dir = tempdir();
    create_topic(
        dir.path(),
        "lat",
        1,
        &["message.timestamp.type=LogAppendTime"],
    );
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce", "--topic", "lat", "--input", "json", "--output", "json",
        ],
        b"{\"value\":\"a\",\"timestamp\":5}\n",
    );
    let produced: Value = serde_json::from_str(run.ok().trim()).expect("json");
    let records = consume_all(dir.path(), "lat");
    assert_eq!(records[0]["timestamp_type"], "LogAppendTime");
    assert_ne!(records[0]["timestamp"], 5);
    assert_eq!(records[0]["timestamp"], produced["timestamp"]);
}

/// Records that do not compress, on a topic whose max.message.bytes is below batch.size: every
/// codec's batches are sized so that compressing cannot carry them past the limit (a Kafka
/// producer would split a refused batch and send the halves), so every record is written.
/// Each record is 109 bytes (100 random bytes of value). (With a producer's first estimate, 1,
/// the 5% margin alone keeps these batches small enough; `tests/client.rs` checks the bound
/// once the estimate has fallen.)
#[test]
fn compressed_batches_fit_max_message_bytes_whatever_the_data() {
    use base64::Engine;
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut noise = || {
        // xorshift64: bytes without structure for the codecs to find.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state.to_le_bytes()
    };
    let input: String = (0..200)
        .map(|_| {
            let value: Vec<u8> = (0..13).flat_map(|_| noise()).take(100).collect();
            let value = base64::engine::general_purpose::STANDARD.encode(value);
            format!("{{\"value\":{{\"base64\":\"{value}\"}},\"timestamp\":1000}}\n")
        })
        .collect();
    for codec in ["gzip", "snappy", "lz4", "zstd"] {
        let dir = tempdir();
        create_topic(dir.path(), "s", 1, &["max.message.bytes=4000"]);
        let run = kafkit_stdin(
            dir.path(),
            &[
                "produce",
                "--topic",
                "s",
                "--input",
                "json",
                "--compression-codec",
                codec,
                "--acks",
                "1",
            ],
            input.as_bytes(),
        );
        assert_eq!(run.code, 0, "{codec}");
        assert!(
            run.stderr.is_empty(),
            "{codec}: {}",
            run.stderr.lines().take(2).collect::<Vec<_>>().join("\n")
        );
        assert_eq!(consume_all(dir.path(), "s").len(), 200, "{codec}");
        assert!(batches(dir.path(), "s", 0).len() > 1, "{codec}");
    }
}

#[test]
fn max_message_bytes_is_enforced_with_kafkas_message() {
    let dir = tempdir();
    create_topic(dir.path(), "m", 1, &["max.message.bytes=300"]);
    let big = "x".repeat(400);
    let input = format!("small1\n{big}\nsmall2\n");
    let run = kafkit_stdin(dir.path(), &["produce", "--topic", "m"], input.as_bytes());
    // Asynchronous sends log the failure and go on, as Kafka's console producer; the run then
    // says how many records were not written and exits 1.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr.lines().last(),
        Some("Could not write 1 of 3 records to topic m")
    );
    assert!(run.stderr.contains("ERROR Error when sending message to topic m with key: null, value: 400 bytes with error: "), "{}", run.stderr);
    assert!(run.stderr.contains("org.apache.kafka.common.errors.RecordTooLargeException: The request included a message larger than the max message size the server will accept."), "{}", run.stderr);
    assert_eq!(values(&consume_all(dir.path(), "m")), ["small1", "small2"]);
    // With --sync the failure ends the run with exit 1.
    let run = kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "m", "--sync"],
        input.as_bytes(),
    );
    assert!(run.fails().contains("RecordTooLargeException"));
    assert_eq!(
        values(&consume_all(dir.path(), "m")),
        ["small1", "small2", "small1"]
    );
}

#[test]
fn sync_writes_one_record_per_batch() {
    let dir = tempdir();
    create_topic(dir.path(), "s", 1, &[]);
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "s", "--sync"],
        b"a\nb\nc\n",
    )
    .ok();
    assert_eq!(
        batches(dir.path(), "s", 0)
            .iter()
            .map(|b| b.1)
            .collect::<Vec<_>>(),
        [1, 1, 1]
    );
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "s", "--acks", "1"],
        b"d\ne\n",
    )
    .ok();
    assert_eq!(batches(dir.path(), "s", 0).len(), 4);
    // `--acks 1` leaves flushing to the operating system, at the end of the run too: the
    // recovery point stays after the `--sync` records, and the unflushed tails say where the
    // run closed the log, for the next writer of this boot.
    let checkpoint = || {
        fs::read_to_string(dir.path().join("recovery-point-offset-checkpoint")).expect("checkpoint")
    };
    assert!(
        checkpoint().lines().any(|l| l == "s 0 3"),
        "{}",
        checkpoint()
    );
    let tails = || -> serde_json::Value {
        let text = fs::read_to_string(dir.path().join(".kafkit-unflushed.json")).expect("tails");
        serde_json::from_str(&text).expect("json")
    };
    assert_eq!(tails()["tails"][0]["end_offset"], 5, "{}", tails());
    assert_eq!(
        values(&consume_all(dir.path(), "s")),
        ["a", "b", "c", "d", "e"]
    );
    // The default, `--acks all`, fsyncs each batch: everything is flushed.
    kafkit_stdin(dir.path(), &["produce", "--topic", "s"], b"f\n").ok();
    assert!(
        checkpoint().lines().any(|l| l == "s 0 6"),
        "{}",
        checkpoint()
    );
    assert_eq!(tails()["tails"], serde_json::json!([]));
}

#[test]
fn a_torn_tail_is_truncated_by_the_next_produce_and_nothing_before_is_lost() {
    // After a flushed run (`--acks all`) and after one that left flushing to the system
    // (`--acks 1`, whose tail the next writer would trust had nothing touched it).
    for acks in ["all", "1"] {
        a_torn_tail_is_truncated_by_the_next_produce_after(acks);
    }
}

fn a_torn_tail_is_truncated_by_the_next_produce_after(acks: &str) {
    let dir = tempdir();
    create_topic(dir.path(), "torn", 1, &[]);
    let first: String = (0..10).map(|i| format!("first-{i}\n")).collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "torn", "--acks", acks],
        first.as_bytes(),
    )
    .ok();
    let log = dir.path().join("torn-0/00000000000000000000.log");
    let len = fs::metadata(&log).expect("log").len();
    let mut bytes = fs::read(&log).expect("read");
    bytes.extend_from_slice(&[
        0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1, 0, 0xde, 0xad, 0xbe, 0xef, 2, 0, 0,
    ]);
    fs::write(&log, &bytes).expect("tear");
    let second: String = (0..10).map(|i| format!("second-{i}\n")).collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "torn"],
        second.as_bytes(),
    )
    .ok();
    let records = consume_all(dir.path(), "torn");
    let expected: Vec<String> = (0..10)
        .map(|i| format!("first-{i}"))
        .chain((0..10).map(|i| format!("second-{i}")))
        .collect();
    assert_eq!(values(&records), expected);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["offset"], i as i64);
    }
    assert!(fs::metadata(&log).expect("log").len() > len);
    assert_eq!(
        batches(dir.path(), "torn", 0).len(),
        2,
        "the garbage is gone"
    );
}

#[test]
fn aliases_and_file_input() {
    let dir = tempdir();
    create_topic(dir.path(), "f", 1, &[]);
    let file = dir.path().join("input.txt");
    fs::write(&file, "x\r\ny\rz").expect("write");
    kafkit(
        dir.path(),
        &[
            "console-producer",
            "--topic",
            "f",
            "--file",
            file.to_str().expect("path"),
        ],
    )
    .ok();
    assert_eq!(values(&consume_all(dir.path(), "f")), ["x", "y", "z"]);
    let run = kafkit(
        dir.path(),
        &[
            "console-consumer",
            "--topic",
            "f",
            "--from-beginning",
            "--max-messages",
            "1",
        ],
    );
    assert_eq!(run.ok(), "x\n");
}

/// Several reads' worth of lines of many lengths, with every terminator Java's `readLine`
/// knows, some at the edge of a read: the lines of each block are sent as one run, and the
/// lines that end a block or a `\r` one by one. The records are the lines, in order, whichever
/// way each went (`null.marker` sends every line one by one).
#[test]
fn lines_across_many_reads_are_each_one_record() {
    let dir = tempdir();
    // Beside the data directory, not in it: kafkit writes only into a data directory, an
    // empty one or a new one.
    let inputs = tempdir();
    let file = inputs.path().join("input.txt");
    let terminators = ["\n", "\n", "\r\n", "\r", "\n", "\n\n"];
    let mut input = String::new();
    let mut expected = Vec::new();
    for i in 0..6_000 {
        let line = format!("line-{i}-{}", "y".repeat(i * 37 % 300));
        let end = terminators[i % terminators.len()];
        input.push_str(&line);
        input.push_str(end);
        expected.push(line);
        if end == "\n\n" {
            expected.push(String::new());
        }
    }
    input.push_str("last");
    expected.push("last".to_string());
    assert!(input.len() > 3 * (256 << 10), "more than three reads");
    fs::write(&file, &input).expect("write");
    for (topic, extra) in [("by-block", None), ("one-by-one", Some("null.marker=NULL"))] {
        create_topic(dir.path(), topic, 1, &[]);
        let mut args = vec!["produce", "--topic", topic, "--acks", "1"];
        args.extend(["--file", file.to_str().expect("path")]);
        if let Some(property) = extra {
            args.extend(["--property", property]);
        }
        kafkit(dir.path(), &args).ok();
        let records = consume_all(dir.path(), topic);
        assert_eq!(values(&records), expected, "{topic}");
        let offsets: Vec<i64> = records
            .iter()
            .map(|r| r["offset"].as_i64().expect("offset"))
            .collect();
        assert!(
            offsets.iter().copied().eq(0..expected.len() as i64),
            "{topic}"
        );
    }
}

#[test]
fn config_files_with_arguments_winning_and_ignored_network_options() {
    let dir = tempdir();
    create_topic(dir.path(), "c", 1, &[]);
    let reader = dir.path().join("reader.properties");
    fs::write(&reader, "# the reader\nparse.key = true\nkey.separator=:\n").expect("write");
    let producer = dir.path().join("producer.properties");
    fs::write(&producer, "compression.type=snappy\nacks: 1\n").expect("write");
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "c",
            "--reader-config",
            reader.to_str().expect("path"),
            "--property",
            "key.separator=|",
            "--producer.config",
            producer.to_str().expect("path"),
            "--timeout",
            "100",
            "--request-timeout-ms",
            "5",
            "--message-send-max-retries",
            "1",
        ],
        b"k|v\n",
    );
    run.ok();
    let records = consume_all(dir.path(), "c");
    assert_eq!(
        (records[0]["key"].as_str(), records[0]["value"].as_str()),
        (Some("k"), Some("v"))
    );
    assert_eq!(batches(dir.path(), "c", 0)[0].0, Compression::Snappy);
}

#[test]
fn a_quiet_input_does_not_hold_back_full_batches() {
    // `tail -f log | kafkit produce`: a burst fills batches, then the input goes quiet without
    // ending. The full batches must reach the log while the producer waits for more input;
    // only the batch still open waits, for its linger time (--timeout, long here) or the end.
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempdir();
    create_topic(dir.path(), "t", 1, &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args([
            "produce",
            "--topic",
            "t",
            "--acks",
            "1",
            "--batch-size",
            "300",
            "--timeout",
            "600000",
        ])
        .env("KAFKIT_DATA_DIR", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    // 20 records of 109 bytes: batches of two (61 + 2 x 109 = 279 <= 300), the tenth open.
    let burst: String = (0..20).map(|i| format!("{i:0100}\n")).collect();
    input.write_all(burst.as_bytes()).expect("write");
    input.flush().expect("flush");
    let written = || records_in_log(dir.path(), "t", 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while written() < 18 {
        assert!(
            std::time::Instant::now() < deadline,
            "sealed batches held back while the input is quiet: {} of 18 written",
            written()
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(
        written(),
        18,
        "the open batch waits for its linger time or the end of the input"
    );
    drop(input);
    assert!(child.wait().expect("wait").success());
    assert_eq!(written(), 20);
}

#[test]
fn the_line_reader_is_kafkas_or_refused() {
    let dir = tempdir();
    create_topic(dir.path(), "lr", 1, &[]);
    let reader = ["--line-reader", "org.apache.kafka.tools.LineMessageReader"];
    let args = [&["produce", "--topic", "lr"][..], &reader[..]].concat();
    kafkit_stdin(dir.path(), &args, b"one\n").ok();
    assert_eq!(values(&consume_all(dir.path(), "lr")), ["one"]);
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "lr",
            "--line-reader",
            "com.example.CsvReader",
        ],
        b"two\n",
    );
    assert!(
        run.fails()
            .starts_with("The line reader com.example.CsvReader is not available"),
        "{}",
        run.stderr
    );
    assert_eq!(values(&consume_all(dir.path(), "lr")), ["one"]);
}

#[test]
fn internal_topics_refuse_records_as_a_broker_does() {
    // Kafka's broker refuses a client's records for __consumer_offsets and the other internal
    // topics; the console producer logs each with the exception and nothing is written.
    let dir = tempdir();
    create_topic(dir.path(), "__consumer_offsets", 1, &[]);
    let run = kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "__consumer_offsets"],
        b"a\nbb\n",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let exception = "org.apache.kafka.common.errors.InvalidTopicException: Cannot append to internal topic __consumer_offsets";
    assert_eq!(run.stderr.matches(exception).count(), 2, "{}", run.stderr);
    assert_eq!(
        run.stderr.lines().last(),
        Some("Could not write 2 of 2 records to topic __consumer_offsets")
    );
    assert!(run.stderr.contains("Error when sending message to topic __consumer_offsets with key: null, value: 2 bytes with error:"), "{}", run.stderr);
    let offsets = kafkit(
        dir.path(),
        &["get-offsets", "--topic", "__consumer_offsets"],
    );
    assert_eq!(offsets.ok(), "__consumer_offsets:0:0\n");
}

#[test]
fn a_failing_stdout_stops_the_json_report_not_the_run() {
    use crate::common::{kafkit_closed, Closed};
    use std::process::{Command, Stdio};
    let dir = tempdir();
    create_topic(dir.path(), "j", 1, &[]);
    // Far more than the 64 KiB the report is buffered in: the closed pipe fails mid-run.
    let input: String = (0..200_000).map(|i| format!("{i}\n")).collect();
    let run = kafkit_closed(
        dir.path(),
        &["produce", "--topic", "j", "--output", "json"],
        input.as_bytes(),
        Closed::Stdout,
    );
    // A closed pipe is a normal end, and every line is written whoever reads the report.
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let offsets = kafkit(dir.path(), &["get-offsets", "--topic", "j"]);
    assert_eq!(offsets.ok(), "j:0:200000\n");
    // A stdout that fails otherwise (a full disk) is an error, said once the records are
    // written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(["produce", "--topic", "j", "--output", "json"])
        .env("KAFKIT_DATA_DIR", dir.path())
        .stdin(Stdio::piped())
        .stdout(fs::File::create("/dev/full").expect("/dev/full"))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kafkit");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait kafkit");
    feeder.join().expect("feeder");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    let offsets = kafkit(dir.path(), &["get-offsets", "--topic", "j"]);
    assert_eq!(offsets.ok(), "j:0:400000\n");
}

#[test]
fn refused_records_are_counted_and_the_run_exits_1() {
    let dir = tempdir();
    create_topic(dir.path(), "r", 2, &["max.message.bytes=1000"]);
    // 10000 lines, every 1000th too large for max.request.size (refused when sent), and the
    // 500th of each thousand too large for the topic's max.message.bytes (refused by the log,
    // after batching on the sender thread): the other 9980 are written.
    let line = |i: usize| match i % 1000 {
        999 => "x".repeat(3000),
        499 => "y".repeat(1500),
        _ => i.to_string(),
    };
    let input: String = (0..10_000).map(|i| line(i) + "\n").collect();
    for args in [
        // Lines read block by block (`send_values`), then one by one (a null.marker).
        &["--acks", "1"][..],
        &["--acks", "1", "--property", "null.marker=NULL"],
        &["--input", "json"],
    ] {
        let input = if args.contains(&"json") {
            (0..10_000)
                .map(|i| format!("{}\n", serde_json::json!({"value": line(i)})))
                .collect()
        } else {
            input.clone()
        };
        let mut all = vec![
            "produce",
            "--topic",
            "r",
            "--producer-property",
            "max.request.size=2000",
        ];
        all.extend_from_slice(args);
        let run = kafkit_stdin(dir.path(), &all, input.as_bytes());
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(
            lines.last(),
            Some(&"Could not write 20 of 10000 records to topic r"),
            "{args:?}"
        );
        // Each refusal was logged before: Kafka's callback line and the exception.
        assert_eq!(
            run.stderr.matches("RecordTooLargeException").count(),
            20,
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(lines.len(), 41, "{args:?}: {}", run.stderr);
    }
    let written: Vec<String> = values(&consume_all(dir.path(), "r"));
    assert_eq!(written.len(), 3 * 9980);
    assert!(written.iter().all(|v| v.len() < 1000));
    // Nothing refused: exit 0, nothing said.
    let run = kafkit_stdin(dir.path(), &["produce", "--topic", "r"], b"a\nb\n");
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    // --sync: the first refusal ends the run with its exception, as Kafka's tool ends.
    let run = kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "r", "--sync"],
        format!("a\n{}\nb\n", "y".repeat(1500)).as_bytes(),
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "org.apache.kafka.common.errors.RecordTooLargeException: The request included a message larger than the max message size the server will accept.\n"
    );
}
