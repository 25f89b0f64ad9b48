//! Hand-written cases for the core: builder → scan → decode, and in-place patches.

use kafkit::record::{
    batches, set_base_offset, set_log_append_time, set_partition_leader_epoch, BatchBuilder,
    Compression, Header, RecordError, TimestampType, RECORD_BATCH_OVERHEAD,
};

fn two_record_batch() -> Vec<u8> {
    let mut b = BatchBuilder::new(100, Compression::None, TimestampType::CreateTime)
        .producer_id(7)
        .producer_epoch(1)
        .base_sequence(5);
    assert_eq!(b.append(1_000, Some(b"k1"), Some(b"v1"), &[]), 100);
    assert_eq!(
        b.append(900, None, Some(b""), &[Header::new("h", Some(b"x"))]),
        101
    );
    b.build().unwrap()
}

#[test]
fn built_batch_scans_and_decodes() {
    let bytes = two_record_batch();
    let mut it = batches(&bytes);
    let batch = it.next().unwrap().unwrap();
    assert!(it.next().is_none());
    assert_eq!(it.position(), bytes.len());
    assert_eq!(batch.position(), 0);
    assert_eq!(batch.magic(), 2);
    assert_eq!(batch.size_in_bytes(), bytes.len());
    assert_eq!(batch.base_offset(), 100);
    assert_eq!(batch.first_offset().unwrap(), 100);
    assert_eq!(batch.last_offset(), 101);
    assert_eq!(batch.next_offset(), 102);
    assert_eq!(batch.max_timestamp(), 1_000);
    assert!(batch.is_valid());
    assert_eq!(batch.compression().unwrap(), Compression::None);
    assert_eq!(batch.timestamp_type(), TimestampType::CreateTime);
    let h = batch.header().unwrap();
    assert_eq!(h.base_timestamp, 1_000);
    assert_eq!(h.records_count, 2);
    assert_eq!(h.last_sequence(), 6);
    assert_eq!(h.producer_id, 7);
    assert_eq!(h.partition_leader_epoch, -1);
    assert_eq!(
        (
            batch.producer_id(),
            batch.producer_epoch(),
            batch.base_sequence(),
            batch.last_sequence()
        ),
        (7, 1, 5, 6)
    );
    assert_eq!(batch.delete_horizon_ms(), None);
    let records = batch.records().unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].offset, 100);
    assert_eq!(records[0].key.as_deref(), Some(&b"k1"[..]));
    assert_eq!(records[0].sequence, 5);
    assert_eq!(records[1].timestamp, 900);
    assert_eq!(records[1].key, None);
    assert_eq!(records[1].value.as_deref(), Some(&b""[..]));
    assert_eq!(records[1].headers, vec![Header::new("h", Some(b"x"))]);
    assert_eq!(records[1].sequence, 6);
}

#[test]
fn patches_outside_the_crc_keep_it_valid() {
    let mut bytes = two_record_batch();
    set_base_offset(&mut bytes, 5_000).unwrap();
    set_partition_leader_epoch(&mut bytes, 9).unwrap();
    let batch = batches(&bytes).next().unwrap().unwrap();
    assert!(batch.is_valid());
    assert_eq!(batch.base_offset(), 5_000);
    assert_eq!(batch.partition_leader_epoch(), 9);
    assert_eq!(batch.records().unwrap()[1].offset, 5_001);
}

#[test]
fn log_append_time_rewrites_timestamps_and_crc() {
    let mut bytes = two_record_batch();
    let old_crc = batches(&bytes).next().unwrap().unwrap().checksum();
    set_log_append_time(&mut bytes, 42_000).unwrap();
    let batch = batches(&bytes).next().unwrap().unwrap();
    assert_ne!(batch.checksum(), old_crc);
    assert!(batch.is_valid());
    assert_eq!(batch.timestamp_type(), TimestampType::LogAppendTime);
    assert_eq!(batch.max_timestamp(), 42_000);
    for r in batch.records().unwrap() {
        assert_eq!(r.timestamp, 42_000);
    }
}

#[test]
fn short_entries_are_errors_or_trailing_bytes() {
    // 18 zero bytes: size 0 < 14 is an error, as in Kafka.
    let zeros = [0u8; 18];
    let mut it = batches(&zeros);
    assert_eq!(
        it.next(),
        Some(Err(RecordError::RecordSizeTooSmall {
            position: 0,
            size: 0
        }))
    );
    assert_eq!(it.next(), None);
    assert_eq!(it.position(), 0);
    // 17 bytes: trailing bytes, no error.
    let mut it = batches(&zeros[..17]);
    assert!(it.next().is_none());
    assert_eq!(it.position(), 0);
    // A batch followed by part of another stops at the partial one.
    let mut two = two_record_batch();
    let first = two.len();
    two.extend_from_slice(&two_record_batch()[..RECORD_BATCH_OVERHEAD]);
    let mut it = batches(&two);
    assert!(it.next().unwrap().is_ok());
    assert!(it.next().is_none());
    assert_eq!(it.position(), first);
}

#[test]
fn codec_framing_rules_follow_kafkas_readers() {
    use kafkit::record::{compress, decompress};
    let limit = 1 << 20;
    // snappy-java: concatenated xerial streams read as one; a trailing partial chunk length is
    // ignored; empty input is an error.
    let mut two = compress(Compression::Snappy, b"first ").unwrap();
    two.extend(compress(Compression::Snappy, b"second").unwrap());
    two.extend_from_slice(&[0, 0]);
    assert_eq!(
        decompress(Compression::Snappy, &two, limit, 2).unwrap(),
        b"first second"
    );
    let err = decompress(Compression::Snappy, &[], limit, 2).unwrap_err();
    assert!(
        err.to_string().contains("Cannot decompress empty stream"),
        "{err}"
    );
    // GZIPInputStream reads concatenated members.
    let mut members = compress(Compression::Gzip, b"a").unwrap();
    members.extend(compress(Compression::Gzip, b"b").unwrap());
    assert_eq!(
        decompress(Compression::Gzip, &members, limit, 2).unwrap(),
        b"ab"
    );
    // Kafka's LZ4 reader refuses dependent blocks and oversized blocks.
    let frame = compress(Compression::Lz4, b"xyz").unwrap();
    let mut dependent = frame.clone();
    dependent[4] &= !0x20;
    assert!(decompress(Compression::Lz4, &dependent, limit, 0).is_err());
    let mut oversized = frame.clone();
    oversized[7..11].copy_from_slice(&(0x8001_0001u32).to_le_bytes());
    let err = decompress(Compression::Lz4, &oversized, limit, 2).unwrap_err();
    assert!(err.to_string().contains("exceeded max: 65536"), "{err}");
    // An LZ4 frame without its end mark ended prematurely.
    let cut = &frame[..frame.len() - 4];
    let err = decompress(Compression::Lz4, cut, limit, 2).unwrap_err();
    assert!(
        err.to_string().contains("Stream ended prematurely"),
        "{err}"
    );
}

#[test]
fn control_keys_and_markers() {
    use kafkit::record::{ControlRecordType, EndTransactionMarker};
    assert_eq!(
        ControlRecordType::parse_key(Some(&[0, 0, 0, 2])).unwrap(),
        ControlRecordType::LeaderChange
    );
    assert_eq!(
        ControlRecordType::parse_key(Some(&[0, 3, 0, 6, 9])).unwrap(),
        ControlRecordType::KraftVoters
    );
    let unknown = ControlRecordType::parse_key(Some(&[0, 0, 0, 7])).unwrap();
    assert_eq!((unknown.name(), unknown.id()), ("UNKNOWN", 7));
    assert_eq!(
        ControlRecordType::parse_key(Some(&[0, 0, 1])),
        Err(RecordError::InvalidControlKey {
            position: 0,
            size: 3
        })
    );
    assert!(matches!(
        ControlRecordType::parse_key(Some(&[0xff, 0xff, 0, 1])),
        Err(RecordError::NegativeControlVersion { version: -1, .. })
    ));
    let abort = EndTransactionMarker::abort(17);
    assert_eq!(abort.encode_key(), [0, 0, 0, 0]);
    assert_eq!(abort.encode_value(), [0, 0, 0, 0, 0, 17]);
    assert_eq!(
        EndTransactionMarker::decode(Some(&abort.encode_key()), Some(&abort.encode_value()))
            .unwrap(),
        abort
    );
    // Higher versions read as v0; short values and non-marker types are errors.
    assert_eq!(
        EndTransactionMarker::decode(Some(&[0, 0, 0, 1]), Some(&[0, 5, 0, 0, 0, 3, 99])).unwrap(),
        EndTransactionMarker::commit(3)
    );
    assert_eq!(
        EndTransactionMarker::decode(Some(&[0, 0, 0, 1]), Some(&[0, 0, 0])),
        Err(RecordError::InvalidEndTxnMarker {
            position: 0,
            size: 3
        })
    );
    assert!(EndTransactionMarker::decode(Some(&[0, 0, 0, 3]), Some(&[0; 6])).is_err());
    // A marker batch has Kafka's shape: 78 bytes, transactional + control, sequence -1.
    let bytes = abort.build_batch(50, 1_000, 9, 2, 4).unwrap();
    assert_eq!(bytes.len(), 78);
    let b = batches(&bytes).next().unwrap().unwrap();
    let h = b.header().unwrap();
    assert_eq!(
        (
            h.attributes,
            h.base_sequence,
            h.producer_id,
            h.producer_epoch
        ),
        (0x30, -1, 9, 2)
    );
    assert_eq!(
        EndTransactionMarker::from_record(&b.records().unwrap()[0]).unwrap(),
        abort
    );
}

#[test]
fn names_and_ids_are_kafkas() {
    let names: Vec<_> = Compression::ALL
        .iter()
        .map(|c| (c.id(), c.name()))
        .collect();
    assert_eq!(
        names,
        [
            (0, "none"),
            (1, "gzip"),
            (2, "snappy"),
            (3, "lz4"),
            (4, "zstd")
        ]
    );
    for c in Compression::ALL {
        assert_eq!(Compression::from_id(c.id()).unwrap(), c);
        assert_eq!(Compression::from_name(c.name()), Some(c));
    }
    assert_eq!(
        Compression::from_id(5),
        Err(RecordError::UnknownCompression { position: 0, id: 5 })
    );
    assert_eq!(
        Compression::from_id(5).unwrap_err().to_string(),
        "Unknown compression type id: 5 (at byte 0)"
    );
    for (t, id, name) in [
        (TimestampType::NoTimestamp, -1, "NoTimestampType"),
        (TimestampType::CreateTime, 0, "CreateTime"),
        (TimestampType::LogAppendTime, 1, "LogAppendTime"),
    ] {
        assert_eq!(
            (t.id(), t.name(), t.to_string()),
            (id, name, name.to_string())
        );
        assert_eq!(TimestampType::from_id(id).unwrap(), t);
    }
    assert!(TimestampType::from_id(2).is_err());
}

#[test]
fn sequences_wrap_to_zero_after_i32_max() {
    let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime)
        .producer_id(1)
        .producer_epoch(0)
        .base_sequence(i32::MAX - 1);
    for ts in 0..3 {
        b.append(ts, None, Some(b"v"), &[]);
    }
    let bytes = b.build().unwrap();
    let batch = batches(&bytes).next().unwrap().unwrap();
    assert_eq!(batch.last_sequence(), 0);
    let sequences: Vec<i32> = batch
        .records()
        .unwrap()
        .iter()
        .map(|r| r.sequence)
        .collect();
    assert_eq!(sequences, [i32::MAX - 1, i32::MAX, 0]);
}

/// A record's timestamp, key, value and headers.
type Fields<'a> = (i64, Option<&'a [u8]>, Option<&'a [u8]>, &'a [Header]);

#[test]
fn try_append_takes_what_fits_and_writes_what_append_writes() {
    let headers = [Header::new("h", Some(b"v"))];
    let records: [Fields<'_>; 4] = [
        (1_000, Some(b"k"), Some(b"first"), &[]),
        (999, None, Some(b"earlier"), &headers),
        // A timestamp delta of 2^20 takes a 4-byte varint: the size depends on the delta.
        (1_000 + (1 << 20), Some(b""), None, &[]),
        (1_000, None, Some(&[b'x'; 200]), &[]),
    ];
    let mut appended = BatchBuilder::new(40, Compression::None, TimestampType::CreateTime);
    let mut tried = BatchBuilder::new(40, Compression::None, TimestampType::CreateTime);
    for (i, &(timestamp, key, value, headers)) in records.iter().enumerate() {
        let before = appended.estimated_size_in_bytes();
        assert_eq!(
            appended.append(timestamp, key, value, headers),
            40 + i as i64
        );
        let size = appended.estimated_size_in_bytes();
        if i == 0 {
            // An empty batch takes its first record whatever the limit.
            assert_eq!(
                tried.try_append(1, timestamp, key, value, headers),
                Some(40)
            );
        } else {
            // One byte short of the batch with the record: refused, and nothing changes.
            assert_eq!(
                tried.try_append(size - 1, timestamp, key, value, headers),
                None
            );
            assert_eq!(tried.estimated_size_in_bytes(), before);
            assert_eq!(tried.record_count(), i as i32);
            // Exactly that size: taken, at the same offset.
            assert_eq!(
                tried.try_append(size, timestamp, key, value, headers),
                Some(40 + i as i64)
            );
        }
        assert_eq!(tried.estimated_size_in_bytes(), size);
    }
    // The same bytes as append, record for record.
    assert_eq!(tried.build().unwrap(), appended.build().unwrap());
}

#[test]
fn a_compressed_batch_is_estimated_as_kafkas_memory_records_builder() {
    // estimatedBytesWritten: 61 + (int)(records * ratio * 1.05) in float arithmetic; a record
    // fits while that plus its uncompressed size stays within the limit.
    let mut b = BatchBuilder::new(0, Compression::Gzip, TimestampType::CreateTime);
    b.set_estimated_compression_ratio(0.5);
    let value = [b'x'; 100];
    // 109 bytes a record: after 1, 2, 3 records the estimate is 61 + 57, 61 + 114, 61 + 171.
    let mut estimates = Vec::new();
    for _ in 0..3 {
        assert!(b.try_append(1_000, 1, None, Some(&value), &[]).is_some());
        estimates.push(b.estimated_size_in_bytes());
    }
    assert_eq!(estimates, [61 + 57, 61 + 114, 61 + 171]);
    assert_eq!(b.uncompressed_size_in_bytes(), 61 + 3 * 109);
    // 232 + 109 = 341: refused under 340, taken at 341.
    assert_eq!(b.try_append(340, 1, None, Some(&value), &[]), None);
    assert_eq!(b.try_append(341, 1, None, Some(&value), &[]), Some(3));
    // The built batch reports the ratio it compressed to.
    let built = b.seal().unwrap();
    // The compressed records (the batch less its 61-byte header) over the 4 * 109 before.
    let compressed = built.as_bytes().len() - 61;
    assert_eq!(built.compression_ratio(), compressed as f32 / 436.0);
    assert!(compressed < 436 / 2, "{compressed}");
    // Without compression the estimate is the size.
    let mut plain = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    plain.set_estimated_compression_ratio(0.5);
    plain.append(1, None, Some(&value), &[]);
    assert_eq!(plain.estimated_size_in_bytes(), 61 + 109);
    assert_eq!(plain.seal().unwrap().compression_ratio(), 1.0);
}

proptest::proptest! {
    /// `append_values` takes the values `try_append` would take one by one, within the same
    /// bounds (batch limit with the compression estimate, room before compression, largest
    /// fields), writes the same bytes and hands back the first value it did not take.
    #[test]
    fn append_values_appends_what_try_append_would(
        values in proptest::collection::vec(
            proptest::option::weighted(0.9, proptest::prop_oneof![
                4 => proptest::collection::vec(proptest::num::u8::ANY, 0..300),
                // Around the largest value whose length and record length still take two
                // varint bytes.
                1 => proptest::collection::vec(proptest::num::u8::ANY, 8170..8200),
            ]),
            0..30,
        ),
        gzip: bool,
        ratio in 0.05f32..1.5,
        limit in 0usize..20_000,
        room in 100usize..20_000,
        max_fields in 0usize..9000,
        prior: bool,
        first_timestamp in 0i64..3,
        // Timestamp deltas around the one- and two-byte varint limits.
        delta in proptest::sample::select(vec![0i64, 63, 64, -64, -65, 8191, 8192, -8192, -8193, 1 << 40]),
    ) {
        let timestamp = 1_000_000 + 100 * first_timestamp + delta;
        let compression = if gzip { Compression::Gzip } else { Compression::None };
        let new = || {
            let mut b = BatchBuilder::new(5, compression, TimestampType::CreateTime);
            b.set_estimated_compression_ratio(ratio);
            // An earlier record sets the base timestamp, which the run's delta counts from;
            // without one, the first value is taken whatever the limit and the room.
            if prior {
                b.append(1_000_000 + 100 * first_timestamp, Some(b"k"), Some(b"v"), &[]);
            }
            b
        };
        // One by one, the bounds spelled out: the record's fields (null key 1, value, header
        // count 1) and, before compression, the record counted at its longest (21 bytes).
        let mut expected = new();
        let mut expected_refused = None;
        for value in &values {
            let value = value.as_deref();
            let fields = 2 + value.map_or(1, |v| varint_size(v.len() as i32) + v.len());
            let fits_room = expected.is_empty()
                || expected.uncompressed_size_in_bytes() + 21 + fields <= room;
            if fields > max_fields
                || !fits_room
                || expected.try_append(limit, timestamp, None, value, &[]).is_none()
            {
                expected_refused = Some(value);
                break;
            }
        }
        let mut by_run = new();
        let mut iter = values.iter().map(|v| v.as_deref());
        let refused = by_run.append_values(limit, room, max_fields, timestamp, &mut iter);
        proptest::prop_assert_eq!(refused, expected_refused);
        proptest::prop_assert_eq!(by_run.next_offset(), expected.next_offset());
        proptest::prop_assert_eq!(by_run.build().unwrap(), expected.build().unwrap());
    }
}

/// The size of a varint of `n` (zigzag).
fn varint_size(n: i32) -> usize {
    let mut v = ((n << 1) ^ (n >> 31)) as u32;
    let mut size = 1;
    while v >= 0x80 {
        v >>= 7;
        size += 1;
    }
    size
}

#[test]
fn append_values_writes_offset_deltas_of_any_length() {
    // Past 8191 records, the offset delta takes three varint bytes.
    let mut by_run = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    let mut one_by_one = by_run.clone();
    let values = [Some(&b""[..]), None, Some(&b"value"[..])];
    let mut iter = values.iter().copied().cycle().take(9_000);
    assert_eq!(
        by_run.append_values(usize::MAX, usize::MAX, usize::MAX, 7, &mut iter),
        None
    );
    for value in values.iter().copied().cycle().take(9_000) {
        one_by_one.append(7, None, value, &[]);
    }
    assert_eq!(by_run.record_count(), 9_000);
    assert_eq!(by_run.build().unwrap(), one_by_one.build().unwrap());
}
