//! Real segments written by Kafka brokers (`../shared/kafka-fixtures/`, see its README.md):
//! every `.log` (and the KRaft `.checkpoint`) is scanned shallowly and deeply, checked against
//! the README's facts and against what Kafka 4.0's dump tool printed for it
//! (`expected-dump/<file>.<mode>.txt`).

use std::path::{Path, PathBuf};

use kafkit::record::{batches, Compression, ControlRecordType, EndTransactionMarker, Record};

use super::dump::{dump, Mode};
use crate::common;

fn read(root: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// All `.log` and `.checkpoint` files under the fixture root, relative to it.
fn segment_files(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().unwrap() != "expected-dump" {
                    walk(&path, root, out);
                }
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("log" | "checkpoint")
            ) {
                out.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn expected(root: &Path, rel: &str, mode: &str) -> String {
    let path = root.join("expected-dump").join(format!("{rel}.{mode}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Drop `Dumping …` and `Log starting offset: …` / `Snapshot end offset: …`.
    let mut lines = text.splitn(3, '\n');
    let first = lines.next().unwrap();
    assert!(first.starts_with("Dumping "), "{first}");
    lines.next().unwrap();
    lines.next().unwrap_or("").to_string()
}

struct Decoded {
    batches: usize,
    codecs: Vec<Compression>,
    records: Vec<Record>,
}

fn decode(bytes: &[u8]) -> Decoded {
    let mut it = batches(bytes);
    let mut n = 0;
    let mut codecs = Vec::new();
    let mut records = Vec::new();
    for b in it.by_ref() {
        let b = b.unwrap();
        assert!(b.is_valid(), "batch at {} has a bad CRC", b.position());
        n += 1;
        let codec = b.compression().unwrap();
        if !codecs.contains(&codec) {
            codecs.push(codec);
        }
        let rs = b.records().unwrap();
        if let Some(count) = b.records_count() {
            assert_eq!(rs.len(), count as usize);
        }
        for r in &rs {
            assert!(r.offset >= b.first_offset().unwrap() && r.offset <= b.last_offset());
        }
        records.extend(rs);
    }
    assert_eq!(
        it.position(),
        bytes.len(),
        "no trailing bytes in a real segment"
    );
    Decoded {
        batches: n,
        codecs,
        records,
    }
}

fn offsets(records: &[Record]) -> Vec<i64> {
    records.iter().map(|r| r.offset).collect()
}

/// Every segment's batch lines and record lines equal Kafka's own dump of it.
#[test]
fn every_fixture_segment_matches_kafkas_dump() {
    let Some(root) = common::fixtures() else {
        return;
    };
    let files = segment_files(&root);
    assert_eq!(files.len(), 14, "{files:?}");
    for rel in &files {
        let bytes = read(&root, rel);
        let name = rel.rsplit('/').next().unwrap();
        assert_eq!(
            dump(&bytes, name, Mode::Batches),
            expected(&root, rel, "batches"),
            "{rel}"
        );
        if rel.ends_with(".checkpoint") {
            // KRaft control records print as JSON of generated messages; not this module's job.
            continue;
        }
        assert_eq!(
            dump(&bytes, name, Mode::Deep),
            expected(&root, rel, "deep"),
            "{rel} deep"
        );
        assert_eq!(
            dump(&bytes, name, Mode::DeepPrint),
            expected(&root, rel, "deep-print"),
            "{rel} deep-print"
        );
    }
}

fn parse_haskell_show(s: &str) -> Vec<u8> {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .expect("quoted");
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next().expect("escape") {
            't' => out.push('\t'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '&' => {}
            d if d.is_ascii_digit() => {
                let mut n = d.to_digit(10).unwrap();
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                    n = n * 10 + d;
                    chars.next();
                }
                out.push(char::from_u32(n).unwrap());
            }
            other => panic!("unhandled Haskell escape \\{other}"),
        }
    }
    out.into_bytes()
}

#[test]
fn kafkalite_hamlet_values_match_the_golden_file() {
    let Some(root) = common::fixtures() else {
        return;
    };
    let golden =
        std::fs::read_to_string(root.join("asayers__kafkalite/golden/hamlet-gzip-0")).unwrap();
    let expected: Vec<(i64, Vec<u8>)> = golden
        .lines()
        .map(|l| {
            let (offset, value) = l.split_once(": ").expect("<offset>: <value>");
            (offset.parse().unwrap(), parse_haskell_show(value))
        })
        .collect();
    assert_eq!(expected.len(), 5382);
    for (codec, wrappers) in [
        (Compression::None, 5382),
        (Compression::Gzip, 22),
        (Compression::Snappy, 22),
    ] {
        let rel = format!(
            "asayers__kafkalite/hamlet-{}-0/00000000000000000000.log",
            codec.name()
        );
        let d = decode(&read(&root, &rel));
        assert_eq!(d.batches, wrappers, "{rel}");
        assert_eq!(d.codecs, vec![codec], "{rel}");
        assert_eq!(d.records.len(), 5382, "{rel}");
        for (r, (offset, value)) in d.records.iter().zip(&expected) {
            assert_eq!(r.offset, *offset, "{rel}");
            assert_eq!(
                r.value.as_deref(),
                Some(&value[..]),
                "{rel} offset {offset}"
            );
            assert_eq!(r.key, None);
            assert_eq!(r.magic, 0);
            assert_eq!(r.timestamp, -1);
            assert!(r.is_valid);
        }
    }
}

#[test]
fn fixture_facts_from_the_readme() {
    let Some(root) = common::fixtures() else {
        return;
    };

    let d = decode(&read(
        &root,
        "SharaWeil__kafka-0.11.0/test0-0/00000000000000000000.log",
    ));
    assert_eq!((d.batches, d.records.len()), (11, 11));
    assert_eq!(d.codecs, vec![Compression::None]);
    assert_eq!(offsets(&d.records), (0..11).collect::<Vec<_>>());
    assert!(d.records.iter().all(|r| r.key.is_none() && r.magic == 2));
    // The time index's one entry says offset 10 carries timestamp 1600054618983.
    assert_eq!(d.records[10].timestamp, 1600054618983);

    let m = "mscaldas2012__kafka-connect-spooldir";
    let d = decode(&read(
        &root,
        &format!("{m}/_confluent-command-0/00000000000000000000.log"),
    ));
    assert_eq!((d.batches, d.records.len()), (1, 2));
    assert_eq!(d.codecs, vec![Compression::Lz4]);
    let d = decode(&read(
        &root,
        &format!("{m}/_confluent-controlcenter-5-1-2-1-monitoring-trigger-event-rekey-0/00000000000000000000.log"),
    ));
    assert_eq!((d.batches, d.records.len()), (11, 22));
    assert_eq!(d.codecs, vec![Compression::Lz4]);
    assert!(d.records.iter().all(|r| r.key.is_some()));
    let d = decode(&read(
        &root,
        &format!("{m}/_schemas-0/00000000000000000000.log"),
    ));
    assert_eq!(d.records.len(), 63);
    assert!(d
        .records
        .iter()
        .all(|r| r.key.is_some() && r.value.is_none()));
    let d = decode(&read(
        &root,
        &format!("{m}/docker-connect-offsets-0/00000000000000000000.log"),
    ));
    assert_eq!(d.records.len(), 8);
    for r in &d.records {
        assert!(r.key.is_some());
        let value = r.value.as_deref().unwrap();
        serde_json::from_slice::<serde_json::Value>(value).expect("JSON value");
    }
    let d = decode(&read(
        &root,
        &format!("{m}/__consumer_offsets-9/00000000000000000000.log"),
    ));
    assert_eq!((d.batches, d.records.len()), (29, 46));

    let o = "DonaldY__kafka-2.7.1/__consumer_offsets-39";
    let d = decode(&read(&root, &format!("{o}/00000000000000000000.log")));
    assert_eq!(offsets(&d.records), [4, 16, 17]);
    assert_eq!(d.records.iter().filter(|r| r.value.is_none()).count(), 1);
    let d = decode(&read(&root, &format!("{o}/00000000000000000018.log")));
    assert_eq!(d.batches, 1);
    assert_eq!(d.records.len(), 2);
    assert!(d
        .records
        .iter()
        .all(|r| r.value.is_none() && r.offset >= 18));

    let i = "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions";
    let bytes = read(
        &root,
        &format!("{i}/_confluent-ksql-default__command_topic-0/00000000000000000000.log"),
    );
    let found: Vec<_> = batches(&bytes).map(|b| b.unwrap()).collect();
    assert_eq!(found.len(), 2);
    let (data, marker) = (found[0].header().unwrap(), found[1].header().unwrap());
    assert!(data.is_transactional() && !data.is_control());
    assert_eq!((data.producer_id, data.producer_epoch), (0, 0));
    assert!(marker.is_transactional() && marker.is_control());
    let r = &found[1].records().unwrap()[0];
    assert_eq!(
        ControlRecordType::of_record(r).unwrap(),
        ControlRecordType::Commit
    );
    assert_eq!(
        EndTransactionMarker::from_record(r).unwrap(),
        EndTransactionMarker::commit(0)
    );
    let text = String::from_utf8(found[0].records().unwrap()[0].value.clone().unwrap()).unwrap();
    assert!(text.contains("CREATE STREAM"), "ksql command");
    let d = decode(&read(
        &root,
        &format!("{i}/__transaction_state-44/00000000000000000000.log"),
    ));
    assert_eq!(d.records.len(), 4);
    for r in &d.records {
        // Transaction-log key v0: int16 version 0, then the transactional id "default_".
        let key = r.key.as_deref().unwrap();
        assert_eq!(&key[..2], &[0, 0]);
        assert!(key.ends_with(b"default_"));
    }

    let bytes = read(
        &root,
        "8sylla__citypulse/__cluster_metadata-0/00000000000000014459-0000000001.checkpoint",
    );
    let found: Vec<_> = batches(&bytes).map(|b| b.unwrap()).collect();
    assert_eq!(found.len(), 3);
    let types: Vec<_> = [&found[0], &found[2]]
        .iter()
        .map(|b| ControlRecordType::of_record(&b.records().unwrap()[0]).unwrap())
        .collect();
    assert_eq!(
        types,
        [
            ControlRecordType::SnapshotHeader,
            ControlRecordType::SnapshotFooter
        ]
    );
    assert_eq!(found[1].records().unwrap().len(), 61);
}

/// The segment paths the tests above rely on exist, so a renamed fixture cannot make them vacuous.
#[test]
fn fixture_list_is_the_documented_one() {
    let Some(root) = common::fixtures() else {
        return;
    };
    let files: Vec<PathBuf> = segment_files(&root)
        .into_iter()
        .map(PathBuf::from)
        .collect();
    assert!(files
        .iter()
        .any(|f| f.ends_with("hamlet-snappy-0/00000000000000000000.log")));
    assert!(files
        .iter()
        .any(|f| f.ends_with("_confluent-command-0/00000000000000000000.log")));
}
