//! Legacy magic 0/1 message sets built here byte by byte (Kafka 4 no longer writes them), to
//! cover the wrapper rules of spec §6 that the vectors and fixtures do not reach.

use kafkit::record::{batches, compress, set_base_offset, Compression, RecordError, TimestampType};

/// A legacy message (from its crc field on).
pub(crate) fn message(
    magic: i8,
    attributes: u8,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Vec<u8> {
    let mut body = vec![magic as u8, attributes];
    if magic == 1 {
        body.extend_from_slice(&timestamp.to_be_bytes());
    }
    for field in [key, value] {
        match field {
            Some(b) => {
                body.extend_from_slice(&(b.len() as i32).to_be_bytes());
                body.extend_from_slice(b);
            }
            None => body.extend_from_slice(&(-1i32).to_be_bytes()),
        }
    }
    let mut out = crc32fast::hash(&body).to_be_bytes().to_vec();
    out.extend(body);
    out
}

/// A log entry: offset, size, message.
pub(crate) fn entry(offset: i64, message: &[u8]) -> Vec<u8> {
    let mut out = offset.to_be_bytes().to_vec();
    out.extend_from_slice(&(message.len() as i32).to_be_bytes());
    out.extend_from_slice(message);
    out
}

/// A compressed wrapper entry around `inner` (already a run of entries).
pub(crate) fn wrapper(
    magic: i8,
    codec: Compression,
    log_append_time: bool,
    timestamp: i64,
    offset: i64,
    inner: &[u8],
) -> Vec<u8> {
    let attributes = codec.id() as u8 | if log_append_time { 0x08 } else { 0 };
    let value = compress(codec, inner).unwrap();
    entry(
        offset,
        &message(magic, attributes, timestamp, None, Some(&value)),
    )
}

fn v1_inner(n: i64) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            entry(
                i,
                &message(
                    1,
                    0,
                    1_000 + i,
                    Some(b"k"),
                    Some(format!("v{i}").as_bytes()),
                ),
            )
        })
        .collect()
}

#[test]
fn v1_wrapper_relative_offsets_and_create_time() {
    let bytes = wrapper(1, Compression::Gzip, false, 1_002, 10, &v1_inner(3));
    let b = batches(&bytes).next().unwrap().unwrap();
    assert!(b.is_valid());
    assert_eq!(
        (b.base_offset(), b.last_offset(), b.first_offset().unwrap()),
        (10, 10, 8)
    );
    assert_eq!(
        (b.timestamp_type(), b.max_timestamp()),
        (TimestampType::CreateTime, 1_002)
    );
    let records = b.records().unwrap();
    let got: Vec<_> = records
        .iter()
        .map(|r| (r.offset, r.timestamp, r.timestamp_type))
        .collect();
    assert_eq!(
        got,
        [
            (8, 1_000, TimestampType::CreateTime),
            (9, 1_001, TimestampType::CreateTime),
            (10, 1_002, TimestampType::CreateTime)
        ]
    );
    assert!(records
        .iter()
        .all(|r| r.magic == 1 && r.is_valid && r.key.as_deref() == Some(&b"k"[..])));
    assert_eq!(records[2].value.as_deref(), Some(&b"v2"[..]));
}

#[test]
fn v1_wrapper_log_append_time_overrides_inner_timestamps() {
    let bytes = wrapper(1, Compression::Snappy, true, 777, 2, &v1_inner(3));
    let b = batches(&bytes).next().unwrap().unwrap();
    assert_eq!(b.timestamp_type(), TimestampType::LogAppendTime);
    for r in b.records().unwrap() {
        assert_eq!(
            (r.timestamp, r.timestamp_type),
            (777, TimestampType::LogAppendTime)
        );
    }
}

#[test]
fn v1_wrapper_offset_zero_and_too_small() {
    // Offset 0 (some librdkafka versions): inner offsets used as they are.
    let bytes = wrapper(1, Compression::Lz4, false, 5, 0, &v1_inner(3));
    let offsets: Vec<i64> = batches(&bytes)
        .next()
        .unwrap()
        .unwrap()
        .records()
        .unwrap()
        .iter()
        .map(|r| r.offset)
        .collect();
    assert_eq!(offsets, [0, 1, 2]);
    // Below the last inner offset and not zero: Kafka's InvalidRecordException.
    let mut bytes = bytes;
    set_base_offset(&mut bytes, 1).unwrap();
    let b = batches(&bytes).next().unwrap().unwrap();
    assert!(b.is_valid(), "the offset is outside the CRC");
    assert_eq!(
        b.records(),
        Err(RecordError::InvalidWrapperOffset {
            position: 0,
            wrapper_offset: 1,
            last_inner_offset: 2
        })
    );
}

#[test]
fn v0_wrapper_inner_offsets_are_absolute() {
    let inner: Vec<u8> = [40i64, 41]
        .iter()
        .flat_map(|&o| entry(o, &message(0, 0, 0, None, Some(b"x"))))
        .collect();
    let bytes = wrapper(0, Compression::Gzip, false, 0, 999, &inner);
    let b = batches(&bytes).next().unwrap().unwrap();
    assert_eq!(b.timestamp_type(), TimestampType::NoTimestamp);
    assert_eq!(b.max_timestamp(), -1);
    let got: Vec<_> = b
        .records()
        .unwrap()
        .iter()
        .map(|r| (r.offset, r.timestamp))
        .collect();
    assert_eq!(got, [(40, -1), (41, -1)]);
    assert_eq!(b.first_offset().unwrap(), 40);
}

#[test]
fn lz4_header_checksum_is_ignored_for_magic_0_only() {
    let inner = entry(0, &message(0, 0, 0, None, Some(b"x")));
    let mut value = compress(Compression::Lz4, &inner).unwrap();
    value[6] = 0x1a; // the checksum Kafka's magic-0 writer computes (over the magic too)
    for magic in [0i8, 1] {
        let bytes = entry(
            0,
            &message(magic, Compression::Lz4.id() as u8, 0, None, Some(&value)),
        );
        let result = batches(&bytes).next().unwrap().unwrap().records();
        if magic == 0 {
            assert_eq!(result.unwrap().len(), 1);
        } else {
            let err = result.unwrap_err();
            assert!(
                matches!(&err, RecordError::Decompression { codec: "lz4", message, .. } if message == "Stream frame descriptor corrupted"),
                "{err:?}"
            );
            // 12 (entry) + 22 (v1 header and key) + 4 (value length) + 6: the HC byte.
            assert_eq!(err.position(), 12 + 14 + 4 + 4 + 6);
        }
    }
}

#[test]
fn malformed_wrappers_are_kafkas_errors() {
    // Null value.
    let bytes = entry(3, &message(0, Compression::Gzip.id() as u8, 0, None, None));
    assert_eq!(
        batches(&bytes).next().unwrap().unwrap().records(),
        Err(RecordError::NullWrapperValue {
            position: 0,
            magic: 0
        })
    );
    // Nothing inside.
    let bytes = wrapper(1, Compression::Gzip, false, 0, 0, &[]);
    assert_eq!(
        batches(&bytes).next().unwrap().unwrap().records(),
        Err(RecordError::EmptyWrapper { position: 0 })
    );
    // A compressed inner message.
    let nested = wrapper(
        0,
        Compression::Gzip,
        false,
        0,
        0,
        &entry(0, &message(0, 0, 0, None, Some(b"x"))),
    );
    let bytes = wrapper(0, Compression::Gzip, false, 0, 0, &nested);
    match batches(&bytes)
        .next()
        .unwrap()
        .unwrap()
        .records()
        .unwrap_err()
    {
        RecordError::InDecompressed { position, source } => {
            assert_eq!(position, 12 + 6 + 4 + 4, "start of the wrapper value");
            assert_eq!(*source, RecordError::CompressedInnerMessage { position: 0 });
        }
        other => panic!("{other:?}"),
    }
    // An inner size below 14.
    let mut inner = entry(0, &message(0, 0, 0, None, Some(b"x")));
    inner.extend_from_slice(&1i64.to_be_bytes());
    inner.extend_from_slice(&13i32.to_be_bytes());
    inner.extend_from_slice(&[0; 13]);
    let bytes = wrapper(0, Compression::Gzip, false, 0, 1, &inner);
    match batches(&bytes)
        .next()
        .unwrap()
        .unwrap()
        .records()
        .unwrap_err()
    {
        RecordError::InDecompressed { source, .. } => {
            // The first inner entry is 12 + 15 bytes; the bad one starts right after.
            assert_eq!(
                *source,
                RecordError::RecordSizeTooSmall {
                    position: 27,
                    size: 13
                }
            );
        }
        other => panic!("{other:?}"),
    }
    // A truncated trailing inner entry ends the set quietly, as in Kafka.
    let mut inner = entry(0, &message(0, 0, 0, None, Some(b"x")));
    let second = entry(1, &message(0, 0, 0, None, Some(b"y")));
    inner.extend_from_slice(&second[..second.len() - 1]);
    let bytes = wrapper(0, Compression::Gzip, false, 0, 0, &inner);
    assert_eq!(
        batches(&bytes)
            .next()
            .unwrap()
            .unwrap()
            .records()
            .unwrap()
            .len(),
        1
    );
    // zstd is magic 2 only.
    let bytes = wrapper(1, Compression::Zstd, false, 0, 0, &v1_inner(1));
    assert_eq!(
        batches(&bytes).next().unwrap().unwrap().records(),
        Err(RecordError::InvalidWrapperCompression {
            position: 0,
            magic: 1
        })
    );
}

#[test]
fn uncompressed_v1_and_inner_v0_in_v1_wrapper() {
    let bytes = entry(5, &message(1, 0x08, 4_242, Some(b""), None));
    let b = batches(&bytes).next().unwrap().unwrap();
    assert_eq!(b.timestamp_type(), TimestampType::LogAppendTime);
    let r = &b.records().unwrap()[0];
    assert_eq!(
        (r.offset, r.timestamp, r.key.as_deref(), r.value.as_deref()),
        (5, 4_242, Some(&b""[..]), None)
    );
    // Inner magic 0 inside a v1 wrapper keeps timestamp -1 (spec §6).
    let inner = entry(0, &message(0, 0, 0, None, Some(b"old")));
    let bytes = wrapper(1, Compression::Gzip, true, 9_000, 7, &inner);
    let r = &batches(&bytes).next().unwrap().unwrap().records().unwrap()[0];
    assert_eq!((r.offset, r.timestamp, r.magic), (7, -1, 0));
}
