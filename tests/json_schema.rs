//! `docs/json.md` is the schema of `--output json`: each command family's runs print every type
//! and field its section documents, and nothing it does not (`common::json_doc`).

use crate::common::json_doc::{JsonDoc, Seen};
use crate::common::{kafkit, tempdir};

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
