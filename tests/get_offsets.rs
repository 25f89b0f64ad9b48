//! `kafkit get-offsets` against kafka-get-offsets.sh (`kafka-cli-surface.md` §6.1).

use crate::common::{kafkit, kafkit_stdin, tempdir};
use crate::produce::create_topic;

#[test]
fn latest_earliest_max_timestamp_and_by_time() {
    let dir = tempdir();
    create_topic(dir.path(), "t", 2, &[]);
    let input = [1000, 3000, 2000, 3000, 4000]
        .iter()
        .map(|ts| format!("{{\"value\":\"v{ts}\",\"timestamp\":{ts},\"partition\":0}}\n"))
        .collect::<String>();
    kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "t",
            "--input",
            "json",
            "--batch-size",
            "100",
        ],
        input.as_bytes(),
    )
    .ok();
    let offsets = |time: &str| {
        kafkit(dir.path(), &["get-offsets", "--topic", "t", "--time", time])
            .ok()
            .to_string()
    };
    assert_eq!(offsets("-1"), "t:0:5\nt:1:0\n");
    assert_eq!(offsets("latest"), "t:0:5\nt:1:0\n");
    assert_eq!(offsets("-2"), "t:0:0\nt:1:0\n");
    assert_eq!(offsets("earliest"), "t:0:0\nt:1:0\n");
    assert_eq!(
        offsets("-3"),
        "t:0:4\n",
        "empty partitions have no max timestamp"
    );
    assert_eq!(offsets("1500"), "t:0:1\n");
    assert_eq!(
        offsets("2500"),
        "t:0:1\n",
        "the first offset whose timestamp is at least it"
    );
    assert_eq!(offsets("4000"), "t:0:4\n");
    assert_eq!(offsets("4001"), "", "newer than every record: omitted");
    assert_eq!(
        kafkit(
            dir.path(),
            &["get-offsets", "--topic", "t", "--partitions", "1"]
        )
        .ok(),
        "t:1:0\n"
    );
    // A list, in any order, with a sign as Java's Integer.parseInt allows and trailing empty
    // pieces dropped as Java's String.split does; no id at all is every partition (Kafka's
    // createPartitionSet).
    for list in ["0,1", "1,0", "+1,0", "0,1,", "", ",", ",,"] {
        assert_eq!(
            kafkit(
                dir.path(),
                &["get-offsets", "--topic", "t", "--partitions", list]
            )
            .ok(),
            "t:0:5\nt:1:0\n",
            "{list:?}"
        );
    }
    let run = kafkit(
        dir.path(),
        &[
            "get-offsets",
            "--topic",
            "t",
            "--partitions",
            "0",
            "--output",
            "json",
        ],
    );
    assert_eq!(
        run.ok(),
        "{\"type\":\"offset\",\"topic\":\"t\",\"partition\":0,\"offset\":5,\"schema\":1}\n"
    );
}

#[test]
fn max_timestamp_picks_the_first_record_with_it_inside_a_batch() {
    let dir = tempdir();
    create_topic(dir.path(), "m", 1, &[]);
    let input = [10, 50, 20, 50]
        .iter()
        .map(|ts| format!("{{\"value\":\"x\",\"timestamp\":{ts}}}\n"))
        .collect::<String>();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "m", "--input", "json"],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(
        kafkit(dir.path(), &["get-offsets", "--time", "-3"]).ok(),
        "m:0:1\n"
    );
}

#[test]
fn sorted_by_topic_partition_string_and_filters() {
    let dir = tempdir();
    create_topic(dir.path(), "a", 11, &[]);
    create_topic(dir.path(), "b", 1, &[]);
    let out = kafkit(dir.path(), &["get-offsets", "--topic", "a"])
        .ok()
        .to_string();
    let order: Vec<&str> = out
        .lines()
        .map(|l| l.rsplit_once(':').expect("line").0)
        .collect();
    assert_eq!(
        order,
        ["a:0", "a:1", "a:10", "a:2", "a:3", "a:4", "a:5", "a:6", "a:7", "a:8", "a:9"]
    );
    assert_eq!(
        kafkit(dir.path(), &["get-offsets"]).ok().lines().count(),
        12
    );
    assert_eq!(
        kafkit(
            dir.path(),
            &["get-offsets", "--topic", "a,b", "--partitions", "0"]
        )
        .ok(),
        "a:0:0\nb:0:0\n"
    );
    assert_eq!(
        kafkit(
            dir.path(),
            &["get-offsets", "--topic-partitions", "a:3-5,b"]
        )
        .ok(),
        "a:3:0\na:4:0\nb:0:0\n"
    );
    assert_eq!(
        kafkit(dir.path(), &["get-offsets", "--topic-partitions", "a:9-"]).ok(),
        "a:10:0\na:9:0\n"
    );
}

#[test]
fn errors_have_kafkas_messages() {
    let dir = tempdir();
    create_topic(dir.path(), "t", 1, &[]);
    for (args, message) in [
        (&["get-offsets", "--time", "yesterday"][..], "Error occurred: Malformed time argument yesterday. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered, or a specified long format timestamp"),
        (&["get-offsets", "--topic", "nope"][..], "Error occurred: Could not match any topic-partitions with the specified filters"),
        (&["get-offsets", "--topic-partitions", "t", "--topic", "t"][..], "Error occurred: --topic-partitions cannot be used with --topic or --partitions"),
        (&["get-offsets", "--partitions", "0,x"][..], "Error occurred: --partitions expects a comma separated list of numeric partition ids, but received: 0,x"),
        // Java's Integer.parseInt takes no spaces, and a leading empty piece stays.
        (&["get-offsets", "--partitions", "0, 1"][..], "Error occurred: --partitions expects a comma separated list of numeric partition ids, but received: 0, 1"),
        (&["get-offsets", "--partitions", ",1"][..], "Error occurred: --partitions expects a comma separated list of numeric partition ids, but received: ,1"),
        // A negative id is a number (Java's parseInt takes it) that matches no partition.
        (&["get-offsets", "--partitions", "-1"][..], "Error occurred: Could not match any topic-partitions with the specified filters"),
        (&["get-offsets", "--topic-partitions", "t:1:2"][..], "Error occurred: Invalid rule specification: t:1:2"),
    ] {
        let run = kafkit(dir.path(), args);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(run.stderr.trim_end(), message, "{args:?}");
    }
}

/// A timestamp is looked up through the segments' time indexes: the answer in the last segment
/// is found without reading the first one, whose records are destroyed here (a scan from the
/// start would fail); asking inside the destroyed segment fails with the reader's message.
#[test]
fn a_timestamp_goes_through_the_time_index_not_a_scan() {
    let dir = tempdir();
    create_topic(
        dir.path(),
        "s",
        1,
        &["segment.bytes=1048576", "index.interval.bytes=4096"],
    );
    let input: String = (0..30_000)
        .map(|i| {
            format!(
                "{{\"value\":\"{}{i}\",\"timestamp\":{}}}\n",
                "v".repeat(40),
                1_000_000 + i * 10
            )
        })
        .collect();
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "s", "--input", "json", "--acks", "1"],
        input.as_bytes(),
    )
    .ok();
    let first = dir.path().join("s-0/00000000000000000000.log");
    let segments = std::fs::read_dir(dir.path().join("s-0"))
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "log"))
        })
        .count();
    assert!(segments >= 2, "{segments} segments");
    let at = |ms: &str| kafkit(dir.path(), &["get-offsets", "--topic", "s", "--time", ms]);
    assert_eq!(at("1290005").ok(), "s:0:29001\n");
    let size = std::fs::metadata(&first).expect("first segment").len() as usize;
    std::fs::write(&first, vec![0xff; size]).expect("overwrite");
    assert_eq!(at("1290005").ok(), "s:0:29001\n");
    let run = at("1000005");
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("Skip getting offsets for topic-partition s-0 due to error: ")
            && run.stderr.contains("00000000000000000000.log at byte 0"),
        "{}",
        run.stderr
    );
}
