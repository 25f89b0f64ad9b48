//! Every file of `../shared/spec/vectors/records/` (spec §19): decoded and checked against what
//! the JSON states, including the dump lines Kafka 4.0 prints for it.

use std::path::PathBuf;

use kafkit::record::{
    batches, decompress, varint, BatchHeader, Compression, ControlRecordType, EndTransactionMarker,
    RecordError,
};
use serde_json::Value;

use super::dump::{body, dump, Mode};
use crate::common;

pub use crate::common::hex;

fn dir() -> Option<PathBuf> {
    common::vectors().map(|d| d.join("records"))
}

fn load(name: &str) -> Option<Value> {
    let path = dir()?.join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(serde_json::from_str(&text).expect("json"))
}

fn lines(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array of lines")
        .iter()
        .map(|l| l.as_str().expect("line").to_string())
        .collect()
}

fn file_name(expected: &[String]) -> String {
    let path = expected[0].strip_prefix("Dumping ").expect("Dumping line");
    path.rsplit('/').next().unwrap().to_string()
}

/// Checks a dump field by field against an `expected_dump_kafka_4_0_*` list.
fn check_dump(bytes: &[u8], expected: &Value, mode: Mode) {
    let expected = lines(expected);
    let name = file_name(&expected);
    assert_eq!(dump(bytes, &name, mode), body(&expected));
}

/// Checks a `decoded` object against the header kafkit reads.
fn check_decoded(bytes: &[u8], decoded: &Value) {
    let batch = batches(bytes)
        .next()
        .expect("one batch")
        .expect("valid entry");
    let h: BatchHeader = batch.header().expect("v2 header");
    let field = |k: &str| decoded[k].as_i64().unwrap_or_else(|| panic!("field {k}"));
    assert_eq!(h.base_offset, field("baseOffset"));
    assert_eq!(i64::from(h.batch_length), field("batchLength"));
    assert_eq!(
        i64::from(h.partition_leader_epoch),
        field("partitionLeaderEpoch")
    );
    assert_eq!(i64::from(h.magic), field("magic"));
    assert_eq!(i64::from(h.crc), field("crc"));
    assert_eq!(batch.is_valid(), decoded["crc_valid"].as_bool().unwrap());
    assert_eq!(i64::from(h.attributes), field("attributes"));
    assert_eq!(i64::from(h.last_offset_delta), field("lastOffsetDelta"));
    assert_eq!(h.base_timestamp, field("baseTimestamp"));
    assert_eq!(h.max_timestamp, field("maxTimestamp"));
    assert_eq!(h.producer_id, field("producerId"));
    assert_eq!(i64::from(h.producer_epoch), field("producerEpoch"));
    assert_eq!(i64::from(h.base_sequence), field("baseSequence"));
    assert_eq!(i64::from(h.records_count), field("recordsCount"));
    assert_eq!(batch.size_in_bytes() as i64, field("totalSize"));
    assert_eq!(bytes.len() as i64, field("totalSize"));
    assert_eq!(
        BatchHeader::parse(bytes).unwrap().to_bytes()[..],
        bytes[..61]
    );
}

/// Files in the directory that are not record batches (index and state files belong to the
/// log module's tests); listed so that a new record vector cannot go unchecked.
const NOT_RECORD_FORMAT: [&str; 3] = [
    "index_files_observed.json",
    "producer_snapshot_observed_fields.json",
    "txnindex_synthetic.json",
];

const CHECKED: [&str; 14] = [
    "checksums_and_frame_headers.json",
    "kafka_python_control_synthetic_bad_crc.json",
    "kafka_python_v0_real.json",
    "kafka_python_v1_real.json",
    "kafka_python_v2_real_0_11.json",
    "legacy_v0_observed_message1.json",
    "sarama_legacy_messages.json",
    "sarama_v2_batches.json",
    "segment_observed_3_batches.json",
    "v2_observed_control_commit_markers.json",
    "v2_observed_hello_kafka_10_records.json",
    "v2_observed_hello_world.json",
    "v2_observed_idempotent_test_message1.json",
    "varint_vectors.json",
];

#[test]
fn every_record_vector_file_has_a_test() {
    let Some(dir) = dir() else { return };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut known: Vec<&str> = CHECKED
        .iter()
        .chain(NOT_RECORD_FORMAT.iter())
        .copied()
        .collect();
    known.sort();
    assert_eq!(names, known);
}

#[test]
fn varint_vectors() {
    let Some(v) = load("varint_vectors.json") else {
        return;
    };
    let mut n = 0;
    for case in v["unsigned_varint32"].as_array().unwrap() {
        let value = case["value"].as_i64().unwrap() as i32 as u32;
        let bytes = hex(case["hex"].as_str().unwrap());
        assert_eq!(
            varint::read_unsigned_varint(&bytes).unwrap(),
            (value, bytes.len())
        );
        let mut out = Vec::new();
        varint::write_unsigned_varint(value, &mut out);
        assert_eq!(out, bytes);
        assert_eq!(varint::size_of_unsigned_varint(value), bytes.len());
        n += 1;
    }
    for case in v["varint_zigzag32"].as_array().unwrap() {
        let value = case["value"].as_i64().unwrap() as i32;
        let bytes = hex(case["hex"].as_str().unwrap());
        assert_eq!(varint::read_varint(&bytes).unwrap(), (value, bytes.len()));
        let mut out = Vec::new();
        varint::write_varint(value, &mut out);
        assert_eq!(out, bytes);
        assert_eq!(varint::size_of_varint(value), bytes.len());
        n += 1;
    }
    for case in v["varlong_zigzag64"].as_array().unwrap() {
        let value = case["value"].as_i64().unwrap();
        let bytes = hex(case["hex"].as_str().unwrap());
        assert_eq!(varint::read_varlong(&bytes).unwrap(), (value, bytes.len()));
        let mut out = Vec::new();
        varint::write_varlong(value, &mut out);
        assert_eq!(out, bytes);
        assert_eq!(varint::size_of_varlong(value), bytes.len());
        n += 1;
    }
    assert_eq!(n, 14 + 21 + 43);
}

#[test]
fn checksums_and_frame_headers() {
    let Some(v) = load("checksums_and_frame_headers.json") else {
        return;
    };
    // The check values go through the batch CRC path: a v2 batch and a legacy message whose
    // checksummed region is exactly "123456789" cannot be built, so check the crates directly
    // against the vector and the batch code against real batches elsewhere.
    assert_eq!(
        u64::from(kafkit::record::crc32c(b"123456789")),
        v["crc32c_check"]["crc32c"].as_u64().unwrap()
    );
    assert_eq!(
        u64::from(crc32fast::hash(b"123456789")),
        v["crc32_check"]["crc32"].as_u64().unwrap()
    );

    let standard = hex(v["lz4_frame_header_standard"]["hex"].as_str().unwrap());
    let written = kafkit::record::compress(Compression::Lz4, b"hello hello hello hello").unwrap();
    assert_eq!(written[..7], standard[..]);
    assert_eq!(
        written[written.len() - 4..],
        hex(v["lz4_end_mark"].as_str().unwrap())[..]
    );

    // Kafka's magic-0 header checksum: read for magic 0, refused for magic 1 and 2.
    let broken = hex(v["lz4_frame_header_kafka_magic0_broken"]["hex"]
        .as_str()
        .unwrap());
    let mut frame = broken.clone();
    frame.extend_from_slice(&(5u32 | 0x8000_0000).to_le_bytes());
    frame.extend_from_slice(b"hello");
    frame.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(
        decompress(Compression::Lz4, &frame, 1 << 20, 0).unwrap(),
        b"hello"
    );
    for magic in [1, 2] {
        let err = decompress(Compression::Lz4, &frame, 1 << 20, magic).unwrap_err();
        assert!(
            matches!(&err, RecordError::Decompression { position: 6, message, .. } if message == "Stream frame descriptor corrupted"),
            "{err:?}"
        );
    }
    let mut good = standard.clone();
    good.extend_from_slice(&frame[7..]);
    for magic in [0, 1, 2] {
        assert_eq!(
            decompress(Compression::Lz4, &good, 1 << 20, magic).unwrap(),
            b"hello"
        );
    }

    let xerial = hex(v["snappy_xerial_stream_header"]["hex"].as_str().unwrap());
    let written = kafkit::record::compress(Compression::Snappy, b"abc").unwrap();
    assert_eq!(written[..16], xerial[..]);
    assert_eq!(
        decompress(Compression::Snappy, &written, 1 << 20, 2).unwrap(),
        b"abc"
    );
}

#[test]
fn segment_observed_3_batches() {
    let Some(v) = load("segment_observed_3_batches.json") else {
        return;
    };
    let bytes = hex(v["hex"].as_str().unwrap());
    assert_eq!(bytes.len(), 242);
    let found: Vec<_> = batches(&bytes).map(|b| b.unwrap()).collect();
    assert_eq!(found.len(), 3);
    for (b, d) in found.iter().zip(v["batches"].as_array().unwrap()) {
        check_decoded(b.as_bytes(), d);
    }
    check_dump(
        &bytes,
        &v["expected_dump_kafka_4_0_print_data_log"],
        Mode::DeepPrint,
    );
    check_dump(
        &bytes,
        &v["expected_dump_kafka_4_0_no_options"],
        Mode::Batches,
    );
    let mut garbage = bytes.clone();
    garbage.extend(hex(v["trailing_garbage_case"]["hex_suffix"]
        .as_str()
        .unwrap()));
    check_dump(
        &garbage,
        &v["trailing_garbage_case"]["expected_dump_kafka_4_0_no_options"],
        Mode::Batches,
    );
    let records: Vec<_> = found.iter().flat_map(|b| b.records().unwrap()).collect();
    let values: Vec<&[u8]> = records
        .iter()
        .map(|r| r.value.as_deref().unwrap())
        .collect();
    assert_eq!(
        values,
        [&b"drfverv"[..], b"rberb", b"trnnrtn", b"65u5k6uk,yj"]
    );
    assert_eq!(
        records.iter().map(|r| r.offset).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
}

#[test]
fn single_v2_batches_observed() {
    let mut n = 0;
    for name in [
        "v2_observed_hello_world.json",
        "v2_observed_idempotent_test_message1.json",
        "v2_observed_hello_kafka_10_records.json",
    ] {
        let Some(v) = load(name) else { return };
        let bytes = hex(v["hex"].as_str().unwrap());
        check_decoded(&bytes, &v["decoded"]);
        check_dump(
            &bytes,
            &v["expected_dump_kafka_4_0_print_data_log"],
            Mode::DeepPrint,
        );
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn control_commit_markers_observed() {
    let Some(v) = load("v2_observed_control_commit_markers.json") else {
        return;
    };
    let vectors = v["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 4);
    for case in vectors {
        let bytes = hex(case["hex"].as_str().unwrap());
        check_decoded(&bytes, &case["decoded"]);
        check_dump(
            &bytes,
            &case["expected_dump_kafka_4_0_print_data_log"],
            Mode::DeepPrint,
        );
        let batch = batches(&bytes).next().unwrap().unwrap();
        let records = batch.records().unwrap();
        assert_eq!(records.len(), 1);
        let r = &records[0];
        assert_eq!(
            r.key.as_deref().unwrap(),
            &hex(case["control_record"]["key_hex"].as_str().unwrap())[..]
        );
        assert_eq!(
            r.value.as_deref().unwrap(),
            &hex(case["control_record"]["value_hex"].as_str().unwrap())[..]
        );
        let marker = EndTransactionMarker::from_record(r).unwrap();
        assert!(marker.is_commit());
        // Re-encoding the marker gives Kafka's exact record bytes, and a whole marker batch
        // built with the same fields is byte-identical to the real one.
        assert_eq!(marker.encode_key()[..], r.key.as_deref().unwrap()[..]);
        assert_eq!(marker.encode_value()[..], r.value.as_deref().unwrap()[..]);
        let h = batch.header().unwrap();
        let rebuilt = marker
            .build_batch(
                h.base_offset,
                h.max_timestamp,
                h.producer_id,
                h.producer_epoch,
                h.partition_leader_epoch,
            )
            .unwrap();
        assert_eq!(rebuilt, bytes);
    }
}

#[test]
fn control_batch_with_bad_crc() {
    let Some(v) = load("kafka_python_control_synthetic_bad_crc.json") else {
        return;
    };
    let bytes = hex(v["hex"].as_str().unwrap());
    check_decoded(&bytes, &v["decoded"]);
    check_dump(
        &bytes,
        &v["expected_dump_kafka_4_0_deep_iteration"],
        Mode::Deep,
    );
    let batch = batches(&bytes).next().unwrap().unwrap();
    assert_eq!(
        batch.ensure_valid(),
        Err(RecordError::CrcMismatch {
            position: 0,
            stored: 1704460240,
            computed: 3580583860
        })
    );
    let r = &batch.records().unwrap()[0];
    assert_eq!(
        ControlRecordType::of_record(r).unwrap(),
        ControlRecordType::Abort
    );
    assert_eq!(
        EndTransactionMarker::from_record(r)
            .unwrap()
            .coordinator_epoch,
        1634825573
    );
}

#[test]
fn kafka_python_v2_real() {
    let Some(v) = load("kafka_python_v2_real_0_11.json") else {
        return;
    };
    let list = v["batches"].as_array().unwrap();
    assert_eq!(list.len(), 4);
    let mut all = Vec::new();
    for case in list {
        let bytes = hex(case["hex"].as_str().unwrap());
        check_decoded(&bytes, &case["decoded"]);
        all.extend(bytes);
    }
    let concatenated = hex(v["concatenated_hex"].as_str().unwrap());
    assert_eq!(all, concatenated);
    check_dump(
        &concatenated,
        &v["expected_dump_kafka_4_0_print_data_log_of_concatenation"],
        Mode::DeepPrint,
    );
    let records: Vec<_> = batches(&concatenated)
        .flat_map(|b| b.unwrap().records().unwrap())
        .collect();
    assert_eq!(
        records.iter().map(|r| r.offset).collect::<Vec<_>>(),
        [0, 1, 2, 3, 0]
    );
    let last = records.last().unwrap();
    assert_eq!(last.value.as_deref(), Some(&b"hdr"[..]));
    assert_eq!(last.headers.len(), 1);
    assert_eq!(last.headers[0].key, "hkey");
    assert_eq!(last.headers[0].value.as_deref(), Some(&b"hval"[..]));
}

fn check_legacy_messages(name: &str) {
    let Some(v) = load(name) else { return };
    let messages = v["messages"].as_array().unwrap();
    let concatenated = hex(v["concatenated_hex"].as_str().unwrap());
    let found: Vec<_> = batches(&concatenated).map(|b| b.unwrap()).collect();
    assert_eq!(found.len(), messages.len());
    for (b, m) in found.iter().zip(messages) {
        assert_eq!(b.as_bytes(), &hex(m["hex"].as_str().unwrap())[..]);
        assert_eq!(b.base_offset(), m["offset"].as_i64().unwrap());
        assert_eq!(b.size_in_bytes() as i64, m["size"].as_i64().unwrap() + 12);
        assert_eq!(u64::from(b.checksum()), m["crc"].as_u64().unwrap());
        assert_eq!(b.is_valid(), m["crc_valid"].as_bool().unwrap());
        assert_eq!(i64::from(b.magic()), m["magic"].as_i64().unwrap());
        assert_eq!(i64::from(b.attributes()), m["attributes"].as_i64().unwrap());
        assert!(b.header().is_none());
        assert_eq!(b.records_count(), None);
        assert_eq!(
            (
                b.producer_id(),
                b.producer_epoch(),
                b.base_sequence(),
                b.last_sequence()
            ),
            (-1, -1, -1, -1)
        );
        assert_eq!(b.partition_leader_epoch(), -1);
        assert!(!b.is_transactional() && !b.is_control() && b.delete_horizon_ms().is_none());
    }
    check_dump(
        &concatenated,
        &v["expected_dump_kafka_4_0_print_data_log"],
        Mode::DeepPrint,
    );
}

#[test]
fn kafka_python_v0_and_v1_real() {
    check_legacy_messages("kafka_python_v0_real.json");
    check_legacy_messages("kafka_python_v1_real.json");
}

#[test]
fn legacy_v0_observed_message1() {
    let Some(v) = load("legacy_v0_observed_message1.json") else {
        return;
    };
    let bytes = hex(v["hex"].as_str().unwrap());
    check_dump(
        &bytes,
        &v["expected_dump_kafka_4_0_print_data_log"],
        Mode::DeepPrint,
    );
    let r = batches(&bytes).next().unwrap().unwrap().records().unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].value.as_deref(), Some(&b"message1"[..]));
    assert_eq!(r[0].crc, Some(3916773564));
}

#[test]
fn sarama_legacy_messages() {
    let Some(v) = load("sarama_legacy_messages.json") else {
        return;
    };
    let vectors = v["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 6);
    for case in vectors {
        let name = case["name"].as_str().unwrap();
        let bytes = hex(case["log_entry_hex"].as_str().unwrap());
        assert_eq!(
            bytes[12..],
            hex(case["message_hex"].as_str().unwrap())[..],
            "{name}"
        );
        let batch = batches(&bytes).next().unwrap().unwrap();
        assert_eq!(
            u64::from(batch.checksum()),
            case["crc"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(
            batch.is_valid(),
            case["crc_valid"].as_bool().unwrap(),
            "{name}"
        );
        assert_eq!(
            batch.base_offset(),
            case["wrapper_offset_used"].as_i64().unwrap()
        );
        check_dump(
            &bytes,
            &case["expected_dump_kafka_4_0_no_options"],
            Mode::Batches,
        );
        if name == "v1_zstd_wrapper_invalid_for_kafka" {
            assert_eq!(
                batch.records(),
                Err(RecordError::InvalidWrapperCompression {
                    position: 0,
                    magic: 1
                })
            );
            assert!(case.get("expected_dump_kafka_4_0_print_data_log").is_none());
        } else {
            check_dump(
                &bytes,
                &case["expected_dump_kafka_4_0_print_data_log"],
                Mode::DeepPrint,
            );
            let records = batch.records().unwrap();
            let expected_first = if records.len() > 1 {
                0
            } else {
                batch.base_offset()
            };
            assert_eq!(batch.first_offset().unwrap(), expected_first, "{name}");
        }
    }
}

#[test]
fn sarama_v2_batches() {
    let Some(v) = load("sarama_v2_batches.json") else {
        return;
    };
    let vectors = v["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 6);
    let plain = hex("28000a00080102030406050607020608090a040b0c");
    for case in vectors {
        let name = case["name"].as_str().unwrap();
        let bytes = hex(case["hex"].as_str().unwrap());
        check_decoded(&bytes, &case["decoded"]);
        check_dump(
            &bytes,
            &case["expected_dump_kafka_4_0_batch_lines"],
            Mode::Batches,
        );
        let batch = batches(&bytes).next().unwrap().unwrap();
        let records = batch.records().unwrap();
        if name.contains("empty") {
            assert!(records.is_empty(), "{name}");
            continue;
        }
        // The four one-record vectors hold the same record, compressed four ways.
        assert_eq!(records.len(), 1, "{name}");
        let r = &records[0];
        assert_eq!(r.offset, 0);
        assert_eq!(r.timestamp, 1479847795005, "timestampDelta 5");
        assert_eq!(r.key.as_deref(), Some(&[1u8, 2, 3, 4][..]));
        assert_eq!(r.value.as_deref(), Some(&[5u8, 6, 7][..]));
        assert_eq!(r.headers.len(), 1);
        assert_eq!(r.headers[0].key.as_bytes(), &[8u8, 9, 10][..]);
        assert_eq!(r.headers[0].value.as_deref(), Some(&[11u8, 12][..]));
        assert_eq!(r.size_in_bytes, plain.len());
        let codec = batch.compression().unwrap();
        if codec != Compression::None {
            let raw = decompress(codec, &bytes[61..], 1 << 20, 2).unwrap();
            assert_eq!(raw, plain, "{name}");
        } else {
            assert_eq!(bytes[61..], plain[..]);
        }
    }
}

/// CRC-32C one bit at a time (reflected, polynomial 0x82F63B78), as RFC 3720 defines it.
fn crc32c_bitwise(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

proptest::proptest! {
    /// The SIMD CRC-32C against the definition, at every length around its block sizes and at
    /// every alignment.
    #[test]
    fn crc32c_is_the_castagnoli_crc(
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2_000),
        skip in 0usize..64,
    ) {
        let bytes = bytes.get(skip.min(bytes.len())..).unwrap_or_default();
        proptest::prop_assert_eq!(kafkit::record::crc32c(bytes), crc32c_bitwise(bytes));
    }
}

#[test]
fn crc32c_of_a_large_buffer() {
    let bytes: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    assert_eq!(kafkit::record::crc32c(&bytes), crc32c_bitwise(&bytes));
}
