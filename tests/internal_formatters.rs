//! `consume --formatter` for internal topics (OffsetsMessageFormatter, GroupMetadataMessageFormatter,
//! TransactionLogMessageFormatter): Kafka's own assertions on encoded records, and broker data
//! against what Kafka's dump tool decoded from the same files.

use std::path::Path;

use serde_json::Value;

use kafkit::decode::InternalFormatter;

use crate::common::{consumer_offsets_vectors, copy_dir, fixtures, kafkit, tempdir};
use crate::dump::golden::check_transaction_payload;

#[test]
fn offsets_and_group_metadata_formatters_print_kafkas_strings() {
    let Some(cases) = consumer_offsets_vectors() else {
        return;
    };
    let mut checked = 0;
    for (case, key, value) in cases {
        let format = |f: InternalFormatter| f.format(Some(&key), value.as_deref()).expect("reads");
        for (formatter, field, other) in [
            (
                InternalFormatter::Offsets,
                "offsets_formatter_json_4_0",
                InternalFormatter::GroupMetadata,
            ),
            (
                InternalFormatter::GroupMetadata,
                "group_metadata_formatter_json_4_0",
                InternalFormatter::Offsets,
            ),
        ] {
            let Some(expected) = case[field].as_str() else {
                continue;
            };
            // Exactly Kafka's string (no newline after it), and nothing from the formatter of
            // the other record kind.
            assert_eq!(format(formatter).as_deref(), Some(expected), "{case}");
            assert_eq!(format(other), None, "{case}");
            checked += 1;
        }
    }
    assert_eq!(checked, 9);
}

/// The records of a `kafka-dump-log` golden file: (key text, payload text) after ` key: ` and
/// ` payload: `.
fn dumped(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .expect("golden file")
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("| offset: ")?;
            let (_, key_and_payload) = rest.split_once(" key: ")?;
            let (key, payload) = key_and_payload.split_once(" payload: ")?;
            Some((key.to_string(), payload.to_string()))
        })
        .collect()
}

/// What `consume --formatter <class>` prints for a topic of a copy of a fixture's data
/// directory, as the JSON objects it writes back to back.
fn formatted(fixture: &Path, topic: &str, class: &str) -> Vec<Value> {
    let dir = tempdir();
    copy_dir(fixture, dir.path());
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            topic,
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--formatter",
            &format!("org.apache.kafka.tools.consumer.{class}"),
        ],
    );
    // Back to back: Kafka 4.0's formatters write no newline after a record.
    assert!(!run.ok().contains('\n'), "{}", run.stdout);
    serde_json::Deserializer::from_str(run.ok())
        .into_iter::<Value>()
        .map(|v| v.expect("a JSON object"))
        .collect()
}

#[test]
fn internal_formatters_agree_with_kafkas_dump_of_broker_data() {
    let Some(fixtures) = fixtures() else { return };
    let golden = fixtures.join("expected-dump");
    for (fixture, partition) in [
        ("DonaldY__kafka-2.7.1", "__consumer_offsets-39"),
        (
            "mscaldas2012__kafka-connect-spooldir",
            "__consumer_offsets-9",
        ),
    ] {
        // Every segment's dump, in offset order.
        let mut files: Vec<_> = std::fs::read_dir(golden.join(fixture).join(partition))
            .expect("golden dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.to_string_lossy().ends_with(".log.offsets-decoder.txt"))
            .collect();
        files.sort();
        let records: Vec<(Value, Value)> = files
            .iter()
            .flat_map(|f| dumped(f))
            .map(|(key, payload)| {
                let key: Value = serde_json::from_str(&key).expect("key json");
                let payload = match payload.as_str() {
                    "<DELETE>" => Value::Null,
                    text => serde_json::from_str(text).expect("payload json"),
                };
                (key, payload)
            })
            .collect();
        for (class, types) in [
            ("OffsetsMessageFormatter", ["0", "1"]),
            ("GroupMetadataMessageFormatter", ["2", "2"]),
        ] {
            let printed = formatted(&fixtures.join(fixture), "__consumer_offsets", class);
            let expected: Vec<&(Value, Value)> = records
                .iter()
                .filter(|(key, _)| types.contains(&key["type"].as_str().expect("type")))
                .collect();
            assert!(!expected.is_empty(), "{fixture} {class}");
            assert_eq!(printed.len(), expected.len(), "{fixture} {class}");
            for (out, (key, payload)) in printed.iter().zip(expected) {
                // The dump writes the version numbers as strings; the formatter as numbers.
                let number = |v: &Value| v.as_str().and_then(|s| s.parse::<i64>().ok());
                assert_eq!(out["key"]["version"].as_i64(), number(&key["type"]));
                assert_eq!(out["key"]["data"], key["data"]);
                if payload.is_null() {
                    assert!(out["value"].is_null(), "{out}");
                    continue;
                }
                assert_eq!(
                    out["value"]["version"].as_i64(),
                    number(&payload["version"])
                );
                let mut data = out["value"]["data"].clone();
                let mut want = payload["data"].clone();
                // The dump decodes the members' subscription and assignment; the formatter
                // prints their bytes (base64).
                for members in [&mut data, &mut want] {
                    for m in members["members"].as_array_mut().into_iter().flatten() {
                        let m = m.as_object_mut().expect("member");
                        assert!(m.remove("subscription").is_some());
                        assert!(m.remove("assignment").is_some());
                    }
                }
                assert_eq!(data, want, "{fixture} {class}");
            }
        }
    }

    // __transaction_state: Kafka's dump of this file used the older text form
    // (`producerId:0,producerEpoch:0,state=Ongoing,partitions=[topic-0],...`).
    let fixture = "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions";
    let printed = formatted(
        &fixtures.join(fixture),
        "__transaction_state",
        "TransactionLogMessageFormatter",
    );
    let records = dumped(
        &golden
            .join(fixture)
            .join("__transaction_state-44/00000000000000000000.log.transaction-log-decoder.txt"),
    );
    assert_eq!(printed.len(), records.len());
    assert_eq!(printed.len(), 4);
    for (out, (key, payload)) in printed.iter().zip(&records) {
        assert_eq!(
            *key,
            format!(
                "transaction_metadata::transactionalId={}",
                out["key"]["data"]["transactionalId"].as_str().expect("id")
            )
        );
        check_transaction_payload(payload, &out["value"]["data"]);
    }
}
