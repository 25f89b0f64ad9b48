//! Property tests: what `BatchBuilder` writes, `batches()` + `records()` read back, for every
//! codec; varints and codecs round-trip on their own.

use kafkit::record::{
    batches, compress, decompress, varint, BatchBuilder, Compression, Header, RecordError,
    TimestampType, RECORD_BATCH_OVERHEAD,
};
use proptest::collection::vec;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct In {
    timestamp: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<Header>,
}

fn bytes() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Vec::new())),
        4 => vec(any::<u8>(), 1..64).prop_map(Some),
        // Lengths of two varint bytes.
        1 => vec(any::<u8>(), 64..300).prop_map(Some),
    ]
}

fn header() -> impl Strategy<Value = Header> {
    (".{0,12}", bytes()).prop_map(|(key, value)| Header { key, value })
}

fn record(base: i64) -> impl Strategy<Value = In> {
    // Deltas of either sign around a realistic base, as a producer batching out-of-order
    // timestamps writes them, and now and then any timestamp at all: deltas of up to 10 varint
    // bytes make record heads longer than the writer's 16-byte fast copy.
    let delta = prop_oneof![
        9 => -100_000i64..100_000,
        1 => any::<i64>(),
    ];
    (delta, bytes(), bytes(), vec(header(), 0..3)).prop_map(move |(d, key, value, headers)| In {
        timestamp: base.wrapping_add(d),
        key,
        value,
        headers,
    })
}

fn codec() -> impl Strategy<Value = Compression> {
    prop::sample::select(Compression::ALL.to_vec())
}

#[derive(Debug, Clone)]
struct Batch {
    base_offset: i64,
    codec: Compression,
    log_append_time: Option<i64>,
    producer: Option<(i64, i16, i32)>,
    leader_epoch: i32,
    transactional: bool,
    records: Vec<In>,
}

fn batch() -> impl Strategy<Value = Batch> {
    (
        0i64..i64::MAX / 2,
        codec(),
        prop::option::of(0i64..2_000_000_000_000),
        prop::option::of((0i64..i64::MAX, 0i16..i16::MAX, 0i32..i32::MAX)),
        -1i32..100,
        any::<bool>(),
        -1_000_000i64..2_000_000_000_000,
    )
        .prop_flat_map(
            |(base_offset, codec, lat, producer, leader_epoch, transactional, ts)| {
                vec(record(ts), 0..20).prop_map(move |records| Batch {
                    base_offset,
                    codec,
                    log_append_time: lat,
                    producer,
                    leader_epoch,
                    transactional,
                    records,
                })
            },
        )
}

fn build(b: &Batch) -> Vec<u8> {
    let ts_type = if b.log_append_time.is_some() {
        TimestampType::LogAppendTime
    } else {
        TimestampType::CreateTime
    };
    let mut builder = BatchBuilder::new(b.base_offset, b.codec, ts_type)
        .partition_leader_epoch(b.leader_epoch)
        .transactional(b.transactional);
    if let Some(now) = b.log_append_time {
        builder = builder.log_append_time(now);
    }
    if let Some((id, epoch, seq)) = b.producer {
        builder = builder
            .producer_id(id)
            .producer_epoch(epoch)
            .base_sequence(seq);
    }
    for (i, r) in b.records.iter().enumerate() {
        let offset = builder.append(
            r.timestamp,
            r.key.as_deref(),
            r.value.as_deref(),
            &r.headers,
        );
        assert_eq!(offset, b.base_offset + i as i64);
    }
    if b.codec == Compression::None {
        let estimate = builder.estimated_size_in_bytes();
        let bytes = builder.build().unwrap();
        assert_eq!(bytes.len(), estimate);
        bytes
    } else {
        builder.build().unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Each generated batch is built and read back once per codec.
    #[test]
    fn batches_round_trip(b in batch()) {
        for codec in Compression::ALL {
            check_round_trip(&Batch { codec, ..b.clone() })?;
        }
    }

    #[test]
    fn codecs_round_trip(data in vec(any::<u8>(), 0..5000), c in codec()) {
        let packed = compress(c, &data).unwrap();
        prop_assert_eq!(decompress(c, &packed, data.len(), 2).unwrap(), data.clone());
        if !data.is_empty() {
            let too_small = decompress(c, &packed, data.len() - 1, 2);
            prop_assert!(
                matches!(too_small, Err(RecordError::DecompressedTooLarge { .. })),
                "{:?}",
                too_small
            );
        }
    }

    #[test]
    fn varints_round_trip(v32 in any::<i32>(), v64 in any::<i64>(), u in any::<u32>()) {
        let mut out = Vec::new();
        varint::write_varint(v32, &mut out);
        prop_assert_eq!(varint::read_varint(&out).unwrap(), (v32, out.len()));
        prop_assert_eq!(varint::size_of_varint(v32), out.len());
        out.clear();
        varint::write_varlong(v64, &mut out);
        prop_assert_eq!(varint::read_varlong(&out).unwrap(), (v64, out.len()));
        prop_assert_eq!(varint::size_of_varlong(v64), out.len());
        out.clear();
        varint::write_unsigned_varint(u, &mut out);
        prop_assert_eq!(varint::read_unsigned_varint(&out).unwrap(), (u, out.len()));
        // Every strict prefix is a truncation error, never a wrong value.
        for n in 0..out.len() {
            let truncated = varint::read_unsigned_varint(&out[..n]);
            prop_assert!(matches!(truncated, Err(RecordError::Truncated { .. })), "{:?}", truncated);
        }
    }
}

#[test]
fn varint_sizes_at_every_byte_boundary() {
    // The sizes come from a table by leading zeros: check each 7-bit boundary, both signs
    // (zigzag), and the extremes, against what the writers emit.
    let mut values: Vec<i64> = vec![0, -1, 1, i64::MIN, i64::MAX];
    for bits in 1..64 {
        let edge = 1i64 << bits; // i64::MIN at 63: the wrapping values stay meaningful edges
        values.extend([
            edge.wrapping_sub(1),
            edge,
            edge.wrapping_neg(),
            edge.wrapping_neg().wrapping_sub(1),
            edge / 2,
            -(edge / 2),
        ]);
    }
    for v in values {
        let mut out = Vec::new();
        varint::write_varlong(v, &mut out);
        assert_eq!(varint::size_of_varlong(v), out.len(), "varlong {v}");
        let v32 = v as i32;
        out.clear();
        varint::write_varint(v32, &mut out);
        assert_eq!(varint::size_of_varint(v32), out.len(), "varint {v32}");
        let u = v as u32;
        out.clear();
        varint::write_unsigned_varint(u, &mut out);
        assert_eq!(
            varint::size_of_unsigned_varint(u),
            out.len(),
            "unsigned {u}"
        );
    }
}

#[test]
fn varint_length_limits_are_kafkas() {
    // A 5th varint byte with the high bit set, and a 10th varlong byte likewise.
    let err = varint::read_unsigned_varint(&[0xff, 0xff, 0xff, 0xff, 0x80, 0x01]).unwrap_err();
    assert!(
        matches!(err, RecordError::VarintTooLong { position: 0, .. }),
        "{err:?}"
    );
    assert!(err
        .to_string()
        .starts_with("Varint is too long, the most significant bit in the 5th byte is set"));
    let err = varint::read_varlong(&[0xff; 11]).unwrap_err();
    assert!(
        matches!(err, RecordError::VarlongTooLong { position: 0, .. }),
        "{err:?}"
    );
    assert_eq!(
        varint::read_unsigned_varint(&[0xff, 0xff, 0xff, 0xff, 0x7f]).unwrap(),
        (u32::MAX, 5)
    );
    assert_eq!(
        varint::read_varlong(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
            .unwrap(),
        (i64::MIN, 10)
    );
}

/// Values large enough for several snappy (32 KiB) and LZ4 (64 KiB) blocks.
#[test]
fn multi_block_batches_round_trip() {
    let big: Vec<u8> = (0..300_000u32)
        .map(|i| (i % 251) as u8 ^ (i / 1000) as u8)
        .collect();
    for codec in Compression::ALL {
        let mut b = BatchBuilder::new(0, codec, TimestampType::CreateTime);
        b.append(1, None, Some(&big), &[]);
        b.append(2, Some(b"k"), Some(&big[..70_000]), &[]);
        let bytes = b.build().unwrap();
        if codec != Compression::None {
            assert!(bytes.len() < big.len(), "{codec} compressed");
        }
        let raw = batches(&bytes).next().unwrap().unwrap();
        let records = raw.records().unwrap();
        assert_eq!(records[0].value.as_deref(), Some(&big[..]), "{codec}");
        assert_eq!(records[1].value.as_deref(), Some(&big[..70_000]), "{codec}");
    }
}

/// A batch whose records decompress beyond the bound is an error at the compressed bytes, not
/// an allocation of the whole bomb.
#[test]
fn decompression_bombs_are_refused() {
    let zeros = vec![0u8; 4 << 20];
    for codec in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let mut b = BatchBuilder::new(0, codec, TimestampType::CreateTime);
        b.append(1, None, Some(&zeros), &[]);
        let bytes = b.build().unwrap();
        assert!(bytes.len() < 400_000, "{codec}: {}", bytes.len());
        let raw = batches(&bytes).next().unwrap().unwrap();
        // The position is the start of the records (stream codecs) or of the block that
        // crossed the limit (snappy chunks, LZ4 blocks).
        match raw.records_with_limit(1 << 20) {
            Err(RecordError::DecompressedTooLarge { position, limit }) => {
                assert_eq!(limit, 1 << 20);
                assert!(
                    (RECORD_BATCH_OVERHEAD..bytes.len()).contains(&position),
                    "{codec}: {position}"
                );
            }
            other => panic!("{codec}: {other:?}"),
        }
        assert_eq!(
            raw.records_with_limit(8 << 20).unwrap()[0]
                .value
                .as_ref()
                .map(Vec::len),
            Some(4 << 20)
        );
    }
}

#[test]
fn empty_builder_gives_a_valid_empty_batch() {
    let bytes = BatchBuilder::new(7, Compression::Gzip, TimestampType::CreateTime)
        .build()
        .unwrap();
    let raw = batches(&bytes).next().unwrap().unwrap();
    assert!(raw.is_valid());
    let h = raw.header().unwrap();
    assert_eq!(
        (
            h.records_count,
            h.base_timestamp,
            h.max_timestamp,
            h.last_offset_delta
        ),
        (0, -1, -1, 0)
    );
    assert!(raw.records().unwrap().is_empty());
}

#[test]
fn append_with_offset_allows_gaps_and_refuses_going_back() {
    let mut b = BatchBuilder::new(10, Compression::None, TimestampType::CreateTime);
    assert_eq!(
        b.append_with_offset(12, 5, None, Some(b"a"), &[]).unwrap(),
        12
    );
    assert_eq!(
        b.append_with_offset(20, 6, None, Some(b"b"), &[]).unwrap(),
        20
    );
    assert!(b.append_with_offset(20, 7, None, None, &[]).is_err());
    assert!(b.append_with_offset(9, 7, None, None, &[]).is_err());
    assert_eq!(b.next_offset(), 21);
    let bytes = b.build().unwrap();
    let raw = batches(&bytes).next().unwrap().unwrap();
    assert_eq!((raw.base_offset(), raw.last_offset()), (10, 20));
    let offsets: Vec<i64> = raw.records().unwrap().iter().map(|r| r.offset).collect();
    assert_eq!(offsets, [12, 20]);
}

fn check_round_trip(b: &Batch) -> Result<(), TestCaseError> {
    let bytes = build(b);
    let mut it = batches(&bytes);
    let raw = it.next().unwrap().unwrap();
    prop_assert!(it.next().is_none());
    prop_assert_eq!(it.position(), bytes.len());
    prop_assert!(raw.is_valid());
    prop_assert_eq!(raw.compression().unwrap(), b.codec);
    let h = raw.header().unwrap();
    let n = b.records.len() as i64;
    prop_assert_eq!(h.base_offset, b.base_offset);
    prop_assert_eq!(h.records_count as i64, n);
    prop_assert_eq!(raw.last_offset(), b.base_offset + (n - 1).max(0));
    prop_assert_eq!(h.partition_leader_epoch, b.leader_epoch);
    prop_assert_eq!(h.is_transactional(), b.transactional);
    prop_assert!(!h.is_control());
    let (pid, epoch, seq) = b.producer.unwrap_or((-1, -1, -1));
    prop_assert_eq!(
        (h.producer_id, h.producer_epoch, h.base_sequence),
        (pid, epoch, seq)
    );
    let max = b
        .records
        .iter()
        .map(|r| r.timestamp)
        .max()
        .unwrap_or(-1)
        .max(-1);
    prop_assert_eq!(h.max_timestamp, b.log_append_time.unwrap_or(max));
    prop_assert_eq!(
        h.base_timestamp,
        b.records.first().map_or(-1, |r| r.timestamp)
    );
    let records = raw.records().unwrap();
    prop_assert_eq!(records.len(), b.records.len());
    for (i, (got, want)) in records.iter().zip(&b.records).enumerate() {
        prop_assert_eq!(got.offset, b.base_offset + i as i64);
        prop_assert_eq!(got.timestamp, b.log_append_time.unwrap_or(want.timestamp));
        prop_assert_eq!(&got.key, &want.key);
        prop_assert_eq!(&got.value, &want.value);
        prop_assert_eq!(&got.headers, &want.headers);
        let i = i as i32;
        let want_seq = if seq < 0 {
            -1
        } else if seq > i32::MAX - i {
            i - (i32::MAX - seq) - 1
        } else {
            seq + i
        };
        prop_assert_eq!(got.sequence, want_seq);
    }
    // The streaming form yields the same records.
    let streamed: Result<Vec<_>, _> = raw.record_iter().unwrap().collect();
    prop_assert_eq!(streamed.unwrap(), records);
    Ok(())
}
