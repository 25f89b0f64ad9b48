//! Untrusted bytes: truncations at every length and flipped bytes over small valid batches
//! never panic, and failures are errors that point inside the input.

use kafkit::record::{
    batches, BatchBuilder, Compression, Header, RawBatch, RecordError, TimestampType,
};
use proptest::prelude::*;

use super::vectors::hex;

/// Compressed legacy wrappers with two inner messages each, copied from the spec vector
/// `sarama_legacy_messages.json` (IBM/sarama `message_test.go`) so these tests run without
/// `../shared`.
const LEGACY: [(&str, &str); 3] = [
    ("v0 gzip", "0000000000000001000000358ba03f8d0001ffffffff000000271f8b080000000000000063608003beca708f070c0cff810021c8c088290300c7e29b4634000000"),
    ("v0 snappy", "000000000000000100000038b42f35d10002ffffffff0000002a82534e41505059000000000100000001000000163400001901100ee38a6876190f0d01080100003e1a00"),
    ("v1 lz4", "00000000000000010000005df60cbc810103fffff9d1d4b549c9ffffffff0000004704224d186470b93400008000000000000000000000000e795748e00000ffffffff0000000000000000000000010000000e795748e00000ffffffff00000000000000004781176f"),
];

fn sample(codec: Compression) -> Vec<u8> {
    let mut b = BatchBuilder::new(40, codec, TimestampType::CreateTime)
        .producer_id(3)
        .producer_epoch(0)
        .base_sequence(9);
    b.append(
        1_000,
        Some(b"key"),
        Some(b"value-1"),
        &[Header::new("h1", Some(b"v"))],
    );
    b.append(990, None, None, &[]);
    b.append(1_010, Some(b""), Some(b"third"), &[Header::new("h2", None)]);
    b.build().unwrap()
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Compression::ALL
        .iter()
        .map(|c| (c.name().to_string(), sample(*c)))
        .collect();
    out.extend(LEGACY.iter().map(|(name, h)| (name.to_string(), hex(h))));
    out
}

/// Runs every reader over `buf`; returns the errors seen. Panics are what this guards against.
fn exercise(buf: &[u8]) -> Vec<RecordError> {
    let mut errors = Vec::new();
    let mut it = batches(buf);
    for b in it.by_ref() {
        match b {
            Ok(b) => errors.extend(exercise_batch(&b)),
            Err(e) => errors.push(e),
        }
    }
    assert!(it.position() <= buf.len());
    for e in &errors {
        assert!(
            e.position() <= buf.len(),
            "{e:?} points past {} bytes",
            buf.len()
        );
        let _ = e.to_string();
    }
    errors
}

fn exercise_batch(b: &RawBatch<'_>) -> Vec<RecordError> {
    let mut errors = Vec::new();
    let _ = (
        b.is_valid(),
        b.header(),
        b.magic(),
        b.last_offset(),
        b.next_offset(),
        b.max_timestamp(),
    );
    let _ = (
        b.timestamp_type(),
        b.records_count(),
        b.partition_leader_epoch(),
        b.as_bytes().len(),
    );
    for result in [
        b.ensure_valid(),
        b.compression().map(drop),
        b.first_offset().map(drop),
    ] {
        errors.extend(result.err());
    }
    match b.record_iter_with_limit(1 << 20) {
        Ok(it) => errors.extend(it.filter_map(Result::err)),
        Err(e) => errors.push(e),
    }
    errors
}

#[test]
fn samples_are_valid() {
    for (name, bytes) in samples() {
        assert!(exercise(&bytes).is_empty(), "{name}");
        let b = batches(&bytes).next().unwrap().unwrap();
        assert!(b.is_valid(), "{name}");
        assert!(!b.records().unwrap().is_empty(), "{name}");
    }
}

/// A cut entry is never yielded: the scan stops before it (or reports a too-small size) and
/// says where.
#[test]
fn truncation_at_every_length() {
    for (name, bytes) in samples() {
        for n in 0..bytes.len() {
            let cut = &bytes[..n];
            let mut it = batches(cut);
            let first = it.next();
            assert!(first.is_none(), "{name}: {n} bytes gave {first:?}");
            assert_eq!(it.position(), 0, "{name}");
            assert!(exercise(cut).is_empty(), "{name}");
        }
    }
}

/// The records area cut at every length, with batchLength fixed up so the entry looks whole:
/// decoding must fail with an error inside the entry, never return fewer records silently.
#[test]
fn truncated_records_with_consistent_length_are_errors() {
    for (name, bytes) in samples() {
        let header_len = if bytes[16] == 2 { 61 } else { 26 };
        for n in header_len..bytes.len() {
            let mut cut = bytes[..n].to_vec();
            cut[8..12].copy_from_slice(&((n - 12) as i32).to_be_bytes());
            let b = batches(&cut).next().unwrap().unwrap();
            let err = b
                .records_with_limit(1 << 20)
                .expect_err(&format!("{name}: cut at {n}"));
            assert!(err.position() <= n, "{name}: {err:?}");
            assert!(!b.is_valid(), "{name}: cut at {n} still passes its CRC");
        }
    }
}

/// Every byte flipped three ways: no panic; errors point inside the input; and any flip in the
/// CRC-covered region is caught by `is_valid`.
#[test]
fn flipped_bytes() {
    for (name, bytes) in samples() {
        let legacy = bytes[16] < 2;
        for i in 0..bytes.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= mask;
                exercise(&bad);
                let covered = if legacy { i >= 16 } else { i >= 21 };
                if covered {
                    if let Some(Ok(b)) = batches(&bad).next() {
                        assert!(!b.is_valid(), "{name}: flip {mask:#x} at {i} not detected");
                    }
                }
            }
        }
    }
}

#[test]
fn specific_errors_name_their_position() {
    // Two good batches then a corrupt size field: the error is at the third entry.
    let a = sample(Compression::None);
    let mut buf = a.clone();
    buf.extend_from_slice(&a);
    let third = buf.len();
    buf.extend_from_slice(&[0u8; 20]);
    let results: Vec<_> = batches(&buf).collect();
    assert_eq!(results.len(), 3);
    assert_eq!(
        results[2],
        Err(RecordError::RecordSizeTooSmall {
            position: third,
            size: 0
        })
    );

    // An unknown magic.
    let mut bad = a.clone();
    bad[16] = 7;
    assert_eq!(
        batches(&bad).next(),
        Some(Err(RecordError::UnknownMagic {
            position: 0,
            magic: 7
        }))
    );

    // A v2 entry too short for its header.
    let mut short = a[..40].to_vec();
    short[8..12].copy_from_slice(&28i32.to_be_bytes());
    assert_eq!(
        batches(&short).next(),
        Some(Err(RecordError::BatchTooSmall {
            position: 0,
            size: 40
        }))
    );

    // Codec bits 5-7.
    let mut bad = a.clone();
    bad[22] |= 0x07;
    let b = batches(&bad).next().unwrap().unwrap();
    assert_eq!(
        b.compression(),
        Err(RecordError::UnknownCompression { position: 0, id: 7 })
    );
    assert_eq!(
        b.records(),
        Err(RecordError::UnknownCompression { position: 0, id: 7 })
    );

    // A negative record count.
    let mut bad = a.clone();
    bad[57..61].copy_from_slice(&(-1i32).to_be_bytes());
    let b = batches(&bad).next().unwrap().unwrap();
    assert_eq!(
        b.records(),
        Err(RecordError::InvalidRecordCount {
            position: 0,
            count: -1
        })
    );

    // One record too many declared: premature end at the end of the batch.
    let mut bad = a.clone();
    bad[57..61].copy_from_slice(&4i32.to_be_bytes());
    let b = batches(&bad).next().unwrap().unwrap();
    assert_eq!(
        b.records(),
        Err(RecordError::PrematureEof { position: a.len() })
    );

    // One too few: records remain after the last declared one.
    let mut bad = a.clone();
    bad[57..61].copy_from_slice(&2i32.to_be_bytes());
    let b = batches(&bad).next().unwrap().unwrap();
    let err = b.records().unwrap_err();
    assert!(
        matches!(err, RecordError::RecordsRemaining { position } if position > 61 && position < a.len()),
        "{err:?}"
    );

    // The same count errors inside a compressed batch are wrapped with the compressed offset.
    let g = sample(Compression::Gzip);
    let mut bad = g.clone();
    bad[57..61].copy_from_slice(&4i32.to_be_bytes());
    let b = batches(&bad).next().unwrap().unwrap();
    match b.records().unwrap_err() {
        RecordError::InDecompressed {
            position: 61,
            source,
        } => {
            assert!(
                matches!(*source, RecordError::PrematureEof { .. }),
                "{source:?}"
            );
        }
        other => panic!("{other:?}"),
    }

    // Garbage where gzip data should be.
    let mut bad = g.clone();
    for byte in &mut bad[61..70] {
        *byte = 0x55;
    }
    let b = batches(&bad).next().unwrap().unwrap();
    let err = b.records().unwrap_err();
    assert!(
        matches!(
            err,
            RecordError::Decompression {
                position: 61,
                codec: "gzip",
                ..
            }
        ),
        "{err:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Arbitrary bytes, and arbitrary bytes behind a plausible v2 header, never panic.
    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..400), codec in 0u8..8) {
        exercise(&data);
        let mut framed = sample(Compression::None)[..61].to_vec();
        framed[8..12].copy_from_slice(&((49 + data.len()) as i32).to_be_bytes());
        framed[22] = codec;
        framed[57..61].copy_from_slice(&3i32.to_be_bytes());
        framed.extend_from_slice(&data);
        exercise(&framed);
    }
}
