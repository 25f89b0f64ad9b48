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
