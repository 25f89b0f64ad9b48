//! Golden tests: every run of Kafka's own DumpLogSegments recorded in
//! `../shared/kafka-fixtures/expected-dump/index.tsv` is repeated with kafkit, and stdout,
//! stderr and the exit code must match line for line, except for the deliberate differences
//! named in [`Difference`] (kafkit follows Kafka's later Java port of the tool where it fixed the
//! 4.0 tool's quirks, and says something useful where Kafka crashes).

use std::collections::BTreeMap;
use std::path::Path;

use kafkit::record::batches;

use super::dump_in;
use crate::common::fixtures;

/// The allowed differences from the recorded Kafka 4.0 (Scala) output, each named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Difference {
    /// Java port: magic 0/1 record lines end `crc: N`, without 4.0's stray `}`.
    LegacyCrcBrace,
    /// Java port: with `--skip-record-metadata` a value-only record prints `| payload: V`
    /// (4.0 printed ` payload: V`).
    SkipMetadataPayloadPrefix,
    /// Java port: non-consecutive offsets are checked against `previous + 1` from `previous =
    /// -1` (so a file not starting at offset 0 reports `-1 is followed by <first>`), and pairs
    /// print in ascending order (4.0: newest first).
    NonConsecutiveFromMinusOne,
    /// Kafka 4.0.0 release (KAFKA-18207) and the Java port: `--transaction-log-decoder` prints
    /// JSON keys and values instead of the 3.x text recorded at the 4.0 snapshot.
    TransactionLogJson,
    /// Kafka crashes (StringIndexOutOfBoundsException, exit 1) on a file name without a `.`;
    /// kafkit ignores it like any unknown file (`Ignoring unknown file`, exit 0).
    NoSuffixFile,
}

struct Row {
    file: String,
    mode: String,
    args: Vec<String>,
    code: i32,
}

fn rows(root: &Path) -> Vec<Row> {
    let index = std::fs::read_to_string(root.join("expected-dump/index.tsv")).expect("index.tsv");
    index
        .lines()
        .skip(1)
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            Row {
                file: cols[0].to_string(),
                mode: cols[1].to_string(),
                args: cols[2].split_whitespace().map(str::to_string).collect(),
                code: cols[3].parse().expect("exit code"),
            }
        })
        .collect()
}

/// `expected-dump/<file>.<mode>` (stdout in `.txt`, stderr in `.stderr.txt`).
fn expected_base(root: &Path, row: &Row) -> String {
    format!("{}/expected-dump/{}.{}", root.display(), row.file, row.mode)
}

fn files_of(row: &Row) -> Vec<String> {
    let at = row
        .args
        .iter()
        .position(|a| a == "--files")
        .expect("--files");
    row.args[at + 1].split(',').map(str::to_string).collect()
}

fn strip_legacy_brace(line: &str) -> String {
    // `... isValid: true crc: 123}` possibly followed by ` payload: ...`.
    if let Some(at) = line.find(" crc: ") {
        if line.starts_with("| offset: ") && line.contains(" isValid: ") {
            let digits = line[at + 6..]
                .find(|c: char| !c.is_ascii_digit())
                .map(|n| at + 6 + n);
            if let Some(end) = digits {
                if line[end..].starts_with('}') {
                    return format!("{}{}", &line[..end], &line[end + 1..]);
                }
            }
        }
    }
    line.to_string()
}

/// The first record offset of a segment, from the record library.
fn first_record_offset(path: &Path) -> Option<i64> {
    let bytes = std::fs::read(path).ok()?;
    for b in batches(&bytes) {
        let b = b.ok()?;
        if let Some(r) = b.records().ok()?.first() {
            return Some(r.offset);
        }
    }
    None
}

/// Rewrites the recorded 4.0 stderr's non-consecutive blocks into the Java port's form.
fn port_non_consecutive(root: &Path, row: &Row, stderr: &str) -> String {
    let mut head = Vec::new();
    let mut blocks: BTreeMap<String, Vec<(i64, i64)>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in stderr.lines() {
        if let Some(path) = line.strip_prefix("Non-consecutive offsets in ") {
            current = Some(path.to_string());
            blocks.entry(path.to_string()).or_default();
        } else if let (Some(path), Some(pair)) = (&current, line.strip_prefix("  ")) {
            let (a, b) = pair.split_once(" is followed by ").expect("pair");
            blocks
                .get_mut(path)
                .expect("block")
                .push((a.parse().expect("a"), b.parse().expect("b")));
        } else {
            head.push(line.to_string());
        }
    }
    let deep = row.mode != "batches";
    if deep {
        for f in files_of(row) {
            if !(f.ends_with(".log") || f.ends_with(".checkpoint")) {
                continue;
            }
            if let Some(first) = first_record_offset(&root.join(&f)) {
                if first != 0 {
                    blocks
                        .entry(format!("<FIXTURE_ROOT>/{f}"))
                        .or_default()
                        .push((-1, first));
                }
            }
        }
    }
    let mut out: String = head.iter().map(|l| format!("{l}\n")).collect();
    for (path, mut pairs) in blocks {
        pairs.sort();
        pairs.dedup();
        out += &format!("Non-consecutive offsets in {path}\n");
        for (a, b) in pairs {
            out += &format!("  {a} is followed by {b}\n");
        }
    }
    out
}

const TXN_STATES: [&str; 8] = [
    "Empty",
    "Ongoing",
    "PrepareCommit",
    "PrepareAbort",
    "CompleteCommit",
    "CompleteAbort",
    "Dead",
    "PrepareEpochFence",
];

/// Checks a 4.x JSON transaction-log record line against the recorded 3.x text line: same
/// metadata, and every field the old text shows equal in the JSON.
fn check_transaction_line(expected: &str, actual: &str) {
    let (e_meta, e_rest) = expected.split_once(" key: ").expect("expected key");
    let (a_meta, a_rest) = actual.split_once(" key: ").expect("actual key");
    assert_eq!(e_meta, a_meta);
    let (e_key, e_payload) = e_rest.split_once(" payload: ").expect("expected payload");
    let (a_key, a_payload) = a_rest.split_once(" payload: ").expect("actual payload");
    let id = e_key
        .strip_prefix("transaction_metadata::transactionalId=")
        .expect("old key form");
    let key: serde_json::Value = serde_json::from_str(a_key).expect("json key");
    assert_eq!(
        key,
        serde_json::json!({"type": "0", "data": {"transactionalId": id}})
    );
    let v: serde_json::Value = serde_json::from_str(a_payload).expect("json payload");
    check_transaction_payload(e_payload, &v["data"]);
}

/// The 3.x text payload of a transaction-log record (`producerId:0,producerEpoch:0,
/// state=Empty,...`) against the JSON `data` of the same record: every field the text shows is
/// equal in the JSON.
pub fn check_transaction_payload(e_payload: &str, d: &serde_json::Value) {
    // producerId:0,producerEpoch:0,state=Empty,partitions=[t-0],txnLastUpdateTimestamp=..,txnTimeoutMs=..
    let fields: BTreeMap<&str, &str> = e_payload
        .split(',')
        .filter_map(|kv| kv.split_once([':', '=']))
        .collect();
    assert_eq!(d["producerId"].to_string(), fields["producerId"]);
    assert_eq!(d["producerEpoch"].to_string(), fields["producerEpoch"]);
    assert_eq!(
        d["transactionTimeoutMs"].to_string(),
        fields["txnTimeoutMs"]
    );
    assert_eq!(
        d["transactionLastUpdateTimestampMs"].to_string(),
        fields["txnLastUpdateTimestamp"]
    );
    let status = d["transactionStatus"].as_u64().expect("status") as usize;
    assert_eq!(TXN_STATES[status], fields["state"]);
    let parts: Vec<String> = d["transactionPartitions"]
        .as_array()
        .map(|ps| {
            ps.iter()
                .flat_map(|p| {
                    let topic = p["topic"].as_str().expect("topic").to_string();
                    p["partitionIds"]
                        .as_array()
                        .expect("ids")
                        .iter()
                        .map(move |i| format!("{topic}-{i}"))
                })
                .collect()
        })
        .unwrap_or_default();
    let old_parts = e_payload
        .split_once("partitions=[")
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(p, _)| p)
        .expect("partitions");
    assert_eq!(parts.join(","), old_parts);
}

fn lines(s: &str) -> Vec<String> {
    s.split_inclusive('\n').map(str::to_string).collect()
}

#[test]
fn every_recorded_kafka_run_matches() {
    let Some(root) = fixtures() else { return };
    let rows = rows(&root);
    assert!(rows.len() >= 100, "index.tsv lists every run");
    let mut used: BTreeMap<Difference, usize> = BTreeMap::new();
    let mut exact = 0;
    for row in &rows {
        let base = expected_base(&root, row);
        let exp_out =
            std::fs::read(format!("{base}.txt")).unwrap_or_else(|e| panic!("{base}: {e}"));
        let exp_err = std::fs::read_to_string(format!("{base}.stderr.txt")).expect("stderr file");
        let args: Vec<&str> = row.args.iter().map(String::as_str).collect();
        let run = dump_in(&root, &args);
        let what = format!("{} {}", row.file, row.mode);
        let actual_err = run
            .stderr
            .replace(
                &format!("{}/", root.canonicalize().unwrap().display()),
                "<FIXTURE_ROOT>/",
            )
            .replace(&format!("{}/", root.display()), "<FIXTURE_ROOT>/");
        let exp_out_text = String::from_utf8_lossy(&exp_out).into_owned();
        let mut diffs = Vec::new();

        // Files without a suffix: Kafka crashes, kafkit ignores them.
        let no_suffix: Vec<String> = files_of(row)
            .into_iter()
            .filter(|f| !f.rsplit('/').next().unwrap_or("").contains('.'))
            .collect();
        if !no_suffix.is_empty() {
            assert_eq!(row.code, 1, "{what}: Kafka crashed here");
            assert_eq!(run.code, 0, "{what}");
            assert_eq!(run.stdout, exp_out_text, "{what}");
            let want: String = no_suffix
                .iter()
                .map(|f| format!("Ignoring unknown file {f}\n"))
                .collect();
            assert_eq!(actual_err, want, "{what}");
            *used.entry(Difference::NoSuffixFile).or_default() += 1;
            continue;
        }
        assert_eq!(run.code, row.code, "{what}: exit code\n{}", run.stderr);

        // stdout, with the named differences applied to Kafka's recorded lines.
        let mut expected: Vec<String> = lines(&exp_out_text);
        let actual: Vec<String> = lines(&run.stdout);
        if expected
            .iter()
            .any(|l| l.contains(" isValid: ") && l.contains("}"))
        {
            let before = expected.clone();
            expected = expected.iter().map(|l| strip_legacy_brace(l)).collect();
            if before != expected {
                diffs.push(Difference::LegacyCrcBrace);
            }
        }
        let mut actual = actual;
        if row.args.iter().any(|a| a == "--skip-record-metadata") {
            // Mapped on kafkit's side: a line of the recorded output that starts with
            // ` payload: ` may also be the tail of a key holding a newline, but kafkit's
            // `| payload: ` only starts a value-only record.
            let before = actual.clone();
            actual = actual
                .iter()
                .map(|l| match l.strip_prefix("| payload: ") {
                    Some(rest) => format!(" payload: {rest}"),
                    None => l.clone(),
                })
                .collect();
            if before != actual {
                diffs.push(Difference::SkipMetadataPayloadPrefix);
            }
        }
        assert_eq!(expected.len(), actual.len(), "{what}: line count");
        if row.mode == "transaction-log-decoder" {
            for (e, a) in expected.iter().zip(&actual) {
                if e.contains("key: transaction_metadata::") {
                    check_transaction_line(e.trim_end(), a.trim_end());
                } else {
                    assert_eq!(e, a, "{what}");
                }
            }
            diffs.push(Difference::TransactionLogJson);
        } else {
            for (i, (e, a)) in expected.iter().zip(&actual).enumerate() {
                assert_eq!(e, a, "{what}: stdout line {}", i + 1);
            }
        }

        // stderr, with the port's non-consecutive form.
        let exp_err_port = port_non_consecutive(&root, row, &exp_err);
        if exp_err_port != exp_err {
            diffs.push(Difference::NonConsecutiveFromMinusOne);
        }
        assert_eq!(actual_err, exp_err_port, "{what}: stderr");
        if diffs.is_empty() {
            exact += 1;
        }
        for d in diffs {
            *used.entry(d).or_default() += 1;
        }
    }
    eprintln!("golden runs: {} exact, differences used: {used:?}", exact);
    // Every named difference is exercised by the corpus, so none of them is dead weight.
    assert_eq!(used.len(), 5, "{used:?}");
    assert!(exact >= 65, "{exact} exact runs");
}

/// Haskell's `show` of a string, as kafkalite's golden file prints values.
fn haskell_show(s: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                out += &format!("\\{}", c as u32);
                if chars.peek().is_some_and(|n| n.is_ascii_digit()) {
                    out.push_str("\\&");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[test]
fn kafkalite_golden_file_reproduces_from_all_three_hamlet_segments() {
    let Some(root) = fixtures() else { return };
    let golden =
        std::fs::read_to_string(root.join("asayers__kafkalite/golden/hamlet-gzip-0")).unwrap();
    for codec in ["none", "gzip", "snappy"] {
        let file = format!("asayers__kafkalite/hamlet-{codec}-0/00000000000000000000.log");
        let run = dump_in(
            &root,
            &["--files", &file, "--deep-iteration", "--output", "json"],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let mut out = String::new();
        for line in run.stdout.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["type"] == "record" {
                let value = v["value"].as_str().expect("text value");
                out += &format!("{}: {}\n", v["offset"], haskell_show(value));
            }
        }
        assert_eq!(out.lines().count(), 5382, "{codec}");
        assert!(
            out == golden,
            "{codec}: differs from kafkalite's golden file"
        );
    }
}
