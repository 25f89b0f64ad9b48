//! `docs/json.md` is the schema of `--output json`: each command family's runs print every type
//! and field its section documents, and nothing it does not (`common::json_doc`).

use crate::common::json_doc::{JsonDoc, Seen};
use crate::common::{kafkit, kafkit_stdin, tempdir};

#[test]
fn errors_are_one_documented_object_on_every_command() {
    let doc = JsonDoc::load();
    let dir = tempdir();
    let mut seen = Seen::default();
    for args in [
        &[
            "consume", "--topic", "demo", "--offset", "1", "--output", "json",
        ][..],
        &[
            "topics", "describe", "--topic", "absent", "--output", "json",
        ],
        &["--output", "json", "dump-log-segments"],
    ] {
        let run = kafkit(dir.path(), args);
        run.fails();
        doc.check("errors", &run.stdout, &mut seen);
    }
    doc.assert_covered("errors", &seen);
}

/// A topic `t` of two partitions with three records written by `produce --input json --output
/// json`: a keyed one with headers, one whose key is not UTF-8, one with a null value.
fn produced(dir: &std::path::Path) -> crate::common::Run {
    kafkit(
        dir,
        &["topics", "--create", "--topic", "t", "--partitions", "2"],
    )
    .ok();
    kafkit_stdin(
        dir,
        &[
            "produce", "--topic", "t", "--input", "json", "--output", "json",
        ],
        concat!(
            r#"{"key":"k","value":"v","headers":[{"key":"h","value":"x"}],"partition":0}"#,
            "\n",
            r#"{"key":{"base64":"/w=="},"value":"w","timestamp":42,"partition":1}"#,
            "\n",
            r#"{"key":"n","value":null,"partition":1}"#,
            "\n",
        )
        .as_bytes(),
    )
}

/// Checks every line of each run's stdout against `section`'s tables, and that together they
/// printed every type and field the section documents.
fn check_covered(section: &str, runs: &[crate::common::Run]) {
    let doc = JsonDoc::load();
    let mut seen = Seen::default();
    for run in runs {
        doc.check(section, &run.stdout, &mut seen);
    }
    doc.assert_covered(section, &seen);
}

#[test]
fn produce_prints_the_documented_objects() {
    let dir = tempdir();
    let run = produced(dir.path());
    assert_eq!(run.ok().lines().count(), 3, "{}", run.stdout);
    check_covered("produce", &[run]);
}

#[test]
fn consume_prints_the_documented_objects() {
    let dir = tempdir();
    produced(dir.path()).ok();
    let args = "consume --topic t --from-beginning --max-messages 3 --output json";
    let run = kafkit(dir.path(), &args.split(' ').collect::<Vec<_>>());
    assert_eq!(run.ok().lines().count(), 3, "{}", run.stdout);
    check_covered("consume", &[run]);
}

#[test]
fn get_offsets_prints_the_documented_objects() {
    let dir = tempdir();
    produced(dir.path()).ok();
    let runs: Vec<_> = ["latest", "earliest"]
        .map(|time| {
            let run = kafkit(
                dir.path(),
                &[
                    "get-offsets",
                    "--topic",
                    "t",
                    "--time",
                    time,
                    "--output",
                    "json",
                ],
            );
            assert_eq!(run.ok().lines().count(), 2, "{}", run.stdout);
            run
        })
        .into();
    check_covered("get-offsets", &runs);
}

#[test]
fn consumer_groups_prints_its_documented_objects() {
    let doc = JsonDoc::load();
    let dir = crate::groups::groups_data_dir();
    let mut seen = Seen::default();
    for args in [
        &["consumer-groups", "--list", "--output", "json"][..],
        &[
            "consumer-groups",
            "--describe",
            "--all-groups",
            "--output",
            "json",
        ],
        &[
            "consumer-groups",
            "--describe",
            "--all-groups",
            "--members",
            "--output",
            "json",
        ],
        &[
            "consumer-groups",
            "--describe",
            "--group",
            "billing",
            "--group",
            "gone",
            "--state",
            "--output",
            "json",
        ],
    ] {
        let run = kafkit(dir.path(), args);
        doc.check("consumer-groups", run.ok(), &mut seen);
    }
    doc.assert_covered("consumer-groups", &seen);
}
