//! `docs/json.md` is the schema of `--output json`: each command family's runs print every type
//! and field its section documents, and nothing it does not (`common::json_doc`).

use crate::common::json_doc::{JsonDoc, Seen};
use crate::common::{kafkit, repo_root, tempdir};

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

/// Dumps of every file kind, with every option that adds a field, and of damaged files: every
/// type and field of the `dump-log-segments` section is printed, and nothing else.
#[test]
fn dump_events_match_docs() {
    use std::fs;

    use kafkit::log::{snapshot_bytes, AbortedTxn, BatchMetadata, ProducerStateEntry};

    let doc = JsonDoc::load();
    let tmp = tempdir();
    let root = tmp.path();
    let dir = crate::dump::options::partition(root);
    let base = "t-0/00000000000000000000";
    fs::copy(
        dir.join("00000000000000000000.log"),
        dir.join("00000000000000000100-0000000001.checkpoint"),
    )
    .unwrap();
    let producer = |last_batch| ProducerStateEntry {
        producer_id: 7,
        producer_epoch: 1,
        coordinator_epoch: 2,
        last_timestamp: 1_700_000_000_000,
        current_txn_first_offset: Some(3),
        last_batch,
    };
    let snapshot = snapshot_bytes(&[
        producer(Some(BatchMetadata {
            last_seq: 9,
            last_offset: 40,
            offset_delta: 4,
            timestamp: 1_700_000_000_000,
        })),
        producer(None),
    ]);
    fs::write(dir.join("00000000000000000100.snapshot"), snapshot).unwrap();
    let txn = AbortedTxn {
        version: 0,
        producer_id: 7,
        first_offset: 10,
        last_offset: 20,
        last_stable_offset: 10,
    };
    fs::write(dir.join("00000000000000000000.txnindex"), txn.encode()).unwrap();
    fs::write(dir.join("leader-epoch-checkpoint"), "0\n0\n").unwrap();

    // Damage: an index entry pointing at the first batch, time-index entries out of order,
    // with another timestamp than their batch's and at an offset no batch ends at.
    let damaged = root.join("u-0");
    fs::create_dir(&damaged).unwrap();
    for suffix in ["log", "index", "timeindex"] {
        let name = format!("00000000000000000000.{suffix}");
        fs::copy(dir.join(&name), damaged.join(&name)).unwrap();
    }
    let index = damaged.join("00000000000000000000.index");
    let mut bytes = fs::read(&index).unwrap();
    bytes[4..8].copy_from_slice(&0i32.to_be_bytes());
    fs::write(&index, &bytes).unwrap();
    let time_index = damaged.join("00000000000000000000.timeindex");
    let mut bytes = fs::read(&time_index).unwrap();
    let first = i64::from_be_bytes(bytes[..8].try_into().unwrap());
    bytes[12..20].copy_from_slice(&(first - 1).to_be_bytes());
    bytes[32..36].copy_from_slice(&2i32.to_be_bytes());
    fs::write(&time_index, &bytes).unwrap();
    // A gap in the offsets, and bytes after the last batch that are not one.
    let gap = root.join("g-0");
    fs::create_dir(&gap).unwrap();
    let mut log = crate::dump::options::batches_at(&[0, 1, 5]);
    log.extend_from_slice(&[0; 20]);
    fs::write(gap.join("00000000000000000000.log"), &log).unwrap();

    let kafka_python = repo_root().join("tests/data/kafka-python");
    let legacy = kafka_python.join("kp-legacy-0/00000000000000000000.log");
    let control = kafka_python.join("kp-txn-0/00000000000000000000.log");
    let files = ["log", "index", "timeindex", "txnindex"]
        .map(|suffix| format!("{base}.{suffix}"))
        .join(",");
    let all = format!(
        "{files},t-0/00000000000000000100.snapshot,t-0/00000000000000000100-0000000001.checkpoint,t-0/leader-epoch-checkpoint,{},{}",
        legacy.display(),
        control.display()
    );
    let index_file = format!("{base}.index");
    let log_file = format!("{base}.log");
    let mut runs: Vec<Vec<String>> = [
        &["--files", &all, "--deep-iteration", "--key-decoder", "hex"][..],
        &["--files", &log_file, "--print-data-log"],
        &["--files", &index_file, "--index-sanity-check"],
        &["--files", "u-0", "--deep-iteration"],
        &[
            "--files",
            "g-0/00000000000000000000.log",
            "--deep-iteration",
        ],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect();
    // The internal-topic decoders and KRaft control records, on a real broker's files.
    match crate::common::fixtures() {
        Some(fixtures) => {
            for (file, decoder) in [
                (
                    "DonaldY__kafka-2.7.1/__consumer_offsets-39/00000000000000000000.log",
                    "--offsets-decoder",
                ),
                (
                    "8sylla__citypulse/__cluster_metadata-0/00000000000000014459-0000000001.checkpoint",
                    "--cluster-metadata-decoder",
                ),
            ] {
                let path = fixtures.join(file).display().to_string();
                runs.push(vec!["--files".into(), path, decoder.into()]);
            }
        }
        None => crate::common::skip(
            "the decoders' part of dump_events_match_docs needs ../shared/kafka-fixtures",
        ),
    }
    let mut seen = Seen::default();
    for args in &runs {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--output", "json"]);
        let run = crate::dump::dump_in(root, &args);
        assert!(run.stderr.is_empty(), "{args:?}: {}", run.stderr);
        doc.check("dump-log-segments", &run.stdout, &mut seen);
    }
    doc.assert_covered("dump-log-segments", &seen);
}
