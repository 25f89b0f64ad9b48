//! The storage layer: appending with Kafka's index and roll rules, reading by offset and by
//! timestamp, and recovery of torn or corrupt tails.

use std::fs;
use std::path::Path;

use kafkit::log::{Log, LogCheckpoints, LogConfig, LogReader, OffsetIndex, TimeIndex};
use kafkit::record::{batches, BatchBuilder, Compression, TimestampType};

use crate::common::tempdir;

/// A one-batch producer batch with `n` records of `value_len` bytes, timestamps from `ts`.
fn batch(n: usize, value_len: usize, ts: i64) -> Vec<u8> {
    let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    for i in 0..n {
        let value = vec![b'a' + (i % 26) as u8; value_len];
        b.append(
            ts + i as i64,
            Some(format!("k{i}").as_bytes()),
            Some(&value),
            &[],
        );
    }
    b.build().expect("build")
}

fn config() -> LogConfig {
    LogConfig::default()
}

/// A log in `dir` opened with `config` and given `n` batches of 5 records of 100 bytes.
fn log_of_batches(dir: &Path, config: LogConfig, n: i64) -> Log {
    let mut log = Log::open(dir, config, LogCheckpoints::default(), 0).expect("open");
    for i in 0..n {
        log.append(&batch(5, 100, i * 10), 0).expect("append");
    }
    log
}

/// Flips one bit of the byte in the middle of a file, keeping its size.
fn flip_middle_byte(path: &Path) {
    let mut bytes = fs::read(path).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    fs::write(path, &bytes).expect("write");
}

/// (position, size, last offset, max timestamp) of every batch in a `.log`.
fn scan(path: &Path) -> Vec<(u64, u64, i64, i64)> {
    let bytes = fs::read(path).expect("read log");
    let mut out = Vec::new();
    let mut it = batches(&bytes);
    for b in it.by_ref() {
        let b = b.expect("batch");
        out.push((
            b.position() as u64,
            b.size_in_bytes() as u64,
            b.last_offset(),
            b.max_timestamp(),
        ));
    }
    out
}

/// (offset, position) entries of a `.index` and (timestamp, offset) entries of a `.timeindex`.
type Indexes = (Vec<(i64, u32)>, Vec<(i64, i64)>);

/// Kafka's rule, computed independently from the batches of a segment: an entry
/// (last offset, position) when more than `interval` bytes lie between the last entry's
/// position and this batch's position; time-index entries carry the max timestamp so far.
fn expected_entries(batches: &[(u64, u64, i64, i64)], interval: u64) -> Indexes {
    let mut offsets = Vec::new();
    let mut times: Vec<(i64, i64)> = Vec::new();
    let mut last_entry = 0u64;
    let mut max = (-1i64, 0i64);
    for &(position, _size, last_offset, max_ts) in batches {
        if max_ts > max.0 {
            max = (max_ts, last_offset);
        }
        if position - last_entry > interval {
            offsets.push((last_offset, position as u32));
            if times.last().is_none_or(|&(ts, _)| max.0 > ts) {
                times.push(max);
            }
            last_entry = position;
        }
    }
    // The final entry written when the segment is closed.
    if max.0 >= 0 && times.last().is_none_or(|&(ts, _)| max.0 > ts) {
        times.push(max);
    }
    (offsets, times)
}

fn index_entries(dir: &Path, base: i64) -> Indexes {
    let name = format!("{base:020}");
    let oi = OffsetIndex::open_read_only(&dir.join(format!("{name}.index")), base).expect("index");
    let ti =
        TimeIndex::open_read_only(&dir.join(format!("{name}.timeindex")), base).expect("timeindex");
    (
        oi.all_entries()
            .expect("entries")
            .iter()
            .map(|e| (e.offset, e.position))
            .collect(),
        ti.all_entries()
            .expect("entries")
            .iter()
            .map(|e| (e.timestamp, e.offset))
            .collect(),
    )
}

#[test]
fn index_entries_of_a_multi_megabyte_partition_follow_kafkas_rule() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 1_000).expect("open");
    // Batches of uneven sizes (1..40 records of 10..300 bytes) and out-of-order timestamps, ~4 MB.
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut total = 0;
    while total < 4_000_000 {
        let b = batch(
            1 + next() % 40,
            10 + next() % 290,
            1_700_000_000_000 + (next() % 100_000) as i64,
        );
        total += b.len();
        log.append(&b, 1_000).expect("append");
    }
    let leo = log.log_end_offset();
    log.close().expect("close");

    let log_file = dir.join("00000000000000000000.log");
    assert_eq!(fs::metadata(&log_file).unwrap().len() as usize, total);
    let found = scan(&log_file);
    assert_eq!(found.last().unwrap().2 + 1, leo);
    let (want_offsets, want_times) = expected_entries(&found, 4096);
    assert!(
        want_offsets.len() > 500,
        "a 4 MB segment has hundreds of entries"
    );
    let (offsets, times) = index_entries(&dir, 0);
    assert_eq!(offsets, want_offsets);
    assert_eq!(times, want_times);
    // Trimmed on close: exactly the entries, no preallocated tail.
    assert_eq!(
        fs::metadata(dir.join("00000000000000000000.index"))
            .unwrap()
            .len(),
        8 * offsets.len() as u64
    );
    assert_eq!(
        fs::metadata(dir.join("00000000000000000000.timeindex"))
            .unwrap()
            .len(),
        12 * times.len() as u64
    );

    // Recovery rebuilds the very same indexes from the .log alone.
    fs::remove_file(dir.join("00000000000000000000.index")).unwrap();
    fs::remove_file(dir.join("00000000000000000000.timeindex")).unwrap();
    let log = Log::open(&dir, config(), LogCheckpoints::default(), 2_000).expect("reopen");
    assert_eq!(log.log_end_offset(), leo);
    log.close().expect("close");
    assert_eq!(index_entries(&dir, 0), (want_offsets, want_times));
}

#[test]
fn active_indexes_are_preallocated_and_trimmed_on_close() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    log.append(&batch(3, 10, 5), 0).expect("append");
    assert_eq!(
        fs::metadata(dir.join("00000000000000000000.index"))
            .unwrap()
            .len(),
        10_485_760
    );
    assert_eq!(
        fs::metadata(dir.join("00000000000000000000.timeindex"))
            .unwrap()
            .len(),
        10_485_756
    );
    log.close().expect("close");
    assert_eq!(
        fs::metadata(dir.join("00000000000000000000.index"))
            .unwrap()
            .len(),
        0
    );
    // One batch: no offset entry, and the closing time-index entry (max ts 7 at offset 2).
    let (offsets, times) = index_entries(&dir, 0);
    assert!(offsets.is_empty());
    assert_eq!(times, vec![(7, 2)]);
}

#[test]
fn a_torn_tail_is_truncated_on_reopen_and_nothing_before_it_is_lost() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let log = log_of_batches(&dir, config(), 200);
    let leo = log.log_end_offset();
    let rp = log.close().expect("close");
    assert_eq!(rp, leo);
    let path = dir.join("00000000000000000000.log");
    let good = fs::read(&path).unwrap();

    // 1. Garbage after the last batch; 2. a batch cut short; 3. a batch with a flipped byte.
    let torn = batch(5, 100, 9999);
    let mut flipped = batch(5, 100, 9999);
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x40;
    for tail in [
        b"garbage!".to_vec(),
        torn[..torn.len() - 3].to_vec(),
        flipped,
        vec![0u8; 64],
    ] {
        let mut bytes = good.clone();
        bytes.extend_from_slice(&tail);
        fs::write(&path, &bytes).unwrap();
        let log = Log::open(&dir, config(), LogCheckpoints::recovery_point(rp), 0).expect("reopen");
        assert_eq!(log.log_end_offset(), leo);
        assert_eq!(log.recovery().truncated_bytes, tail.len() as u64);
        log.close().expect("close");
        assert_eq!(
            fs::read(&path).unwrap(),
            good,
            "the valid prefix is kept byte for byte"
        );
    }

    // After recovery the log takes appends again at the old end, also when the cut tail was
    // longer than what comes next (the segment's writeback mark must follow the cut).
    let mut bytes = good.clone();
    bytes.extend_from_slice(&[0xab; 20_000]);
    fs::write(&path, &bytes).unwrap();
    let mut log = Log::open(&dir, config(), LogCheckpoints::recovery_point(rp), 0).expect("reopen");
    assert_eq!(log.recovery().truncated_bytes, 20_000);
    let info = log.append(&batch(1, 10, 1), 0).expect("append");
    assert_eq!(info.first_offset, leo);
    log.close().expect("close");
    let mut reader = LogReader::open(&dir).expect("reader");
    assert_eq!(reader.log_end_offset().unwrap(), leo + 1);
}

#[test]
fn corruption_in_an_older_segment_truncates_there_and_drops_later_segments() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let cfg = LogConfig {
        segment_bytes: 4096,
        ..config()
    };
    let mut log = Log::open(&dir, cfg.clone(), LogCheckpoints::default(), 0).expect("open");
    for i in 0..40 {
        log.append(&batch(4, 200, i), 0).expect("append");
    }
    log.close().expect("close");
    let segments = LogReader::open(&dir)
        .unwrap()
        .segment_base_offsets()
        .to_vec();
    assert!(segments.len() >= 4, "{segments:?}");
    // Flip a byte inside the second segment's second batch, and recover from offset 0 (as after
    // a crash before anything was flushed).
    let second = dir.join(format!("{:020}.log", segments[1]));
    let mut bytes = fs::read(&second).unwrap();
    let first_size = scan(&second)[0].1 as usize;
    bytes[first_size + 70] ^= 1;
    fs::write(&second, &bytes).unwrap();
    let log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("reopen");
    let report = log.recovery();
    assert_eq!(report.deleted_segments, segments.len() - 2);
    assert_eq!(log.segment_base_offsets(), &segments[..2]);
    let expected_leo = scan(&second)[0].2 + 1;
    assert_eq!(log.log_end_offset(), expected_leo);
    log.close().unwrap();
    assert_eq!(fs::metadata(&second).unwrap().len() as usize, first_size);
}

#[test]
fn segments_roll_on_size_time_full_index_and_are_named_by_base_offset() {
    // segment.bytes
    let tmp = tempdir();
    let dir = tmp.path().join("a-0");
    let cfg = LogConfig {
        segment_bytes: 2000,
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    let b = batch(2, 300, 0);
    for _ in 0..10 {
        log.append(&b, 0).expect("append");
    }
    log.close().unwrap();
    let reader = LogReader::open(&dir).unwrap();
    // Each batch is 2 records; ~680 bytes: two fit in 2000 bytes, the third rolls.
    let size = b.len() as u64;
    let per_segment = 2000 / size;
    assert_eq!(
        reader.segment_base_offsets(),
        &[
            0,
            2 * per_segment as i64,
            4 * per_segment as i64,
            6 * per_segment as i64,
            8 * per_segment as i64
        ][..(10 / per_segment as usize)]
    );
    for base in reader.segment_base_offsets() {
        assert!(dir.join(format!("{base:020}.log")).is_file());
        assert!(
            fs::metadata(dir.join(format!("{base:020}.log")))
                .unwrap()
                .len()
                <= 2000
        );
    }

    // segment.ms, measured between batch timestamps
    let dir = tmp.path().join("b-0");
    let cfg = LogConfig {
        segment_ms: 1000,
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    for ts in [0, 500, 1000, 1001, 1500, 2002, 2003] {
        log.append(&batch(1, 10, ts), 0).expect("append");
    }
    log.close().unwrap();
    // rolls when ts - first ts of the segment > 1000: at 1001 (0+1000 < 1001), at 2002.
    assert_eq!(
        LogReader::open(&dir).unwrap().segment_base_offsets(),
        &[0, 3, 5]
    );

    // A full time index: segment.index.bytes = 24 gives 3 offset slots and 2 time slots, the
    // last reserved for the closing entry. With an entry per append after the first, the
    // second append fills the time index and the third rolls.
    let dir = tmp.path().join("c-0");
    let cfg = LogConfig {
        segment_index_bytes: 24,
        index_interval_bytes: 0,
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    for ts in 0..8 {
        log.append(&batch(1, 10, ts), 0).expect("append");
    }
    log.close().unwrap();
    assert_eq!(
        LogReader::open(&dir).unwrap().segment_base_offsets(),
        &[0, 2, 4, 6]
    );

    // A full offset index: 36 bytes give 4 offset slots and 3 time slots; a constant timestamp
    // adds one time entry only, so the offset index fills first (4 entries after 5 appends).
    let dir = tmp.path().join("d-0");
    let cfg = LogConfig {
        segment_index_bytes: 36,
        index_interval_bytes: 0,
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    for _ in 0..12 {
        log.append(&batch(1, 10, 7), 0).expect("append");
    }
    log.close().unwrap();
    assert_eq!(
        LogReader::open(&dir).unwrap().segment_base_offsets(),
        &[0, 5, 10]
    );
    let (offsets, times) = index_entries(&dir, 0);
    assert_eq!(offsets.len(), 4);
    assert_eq!(times, vec![(7, 0)]);
}

#[test]
fn reads_seek_by_offset_and_by_timestamp_across_segments() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let cfg = LogConfig {
        segment_bytes: 10_000,
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    for i in 0..300i64 {
        log.append(&batch(3, 50, 1000 + i * 3), 0).expect("append");
    }
    log.close().unwrap();
    let mut reader = LogReader::open(&dir).unwrap();
    assert!(reader.segment_base_offsets().len() > 5);
    assert_eq!(reader.log_end_offset().unwrap(), 900);
    for target in [0i64, 1, 2, 3, 299, 450, 451, 899] {
        let (base, pos) = reader.seek(target).unwrap().expect("found");
        assert!(base <= target);
        assert!(pos.last_offset >= target && pos.last_offset - target < 3);
        let mut r = reader.reader(base, pos.position).unwrap();
        let (_, b) = r.next_batch().unwrap().unwrap();
        let recs = b.records().unwrap();
        assert!(recs.iter().any(|r| r.offset == target));
    }
    assert!(reader.seek(900).unwrap().is_none());
    // timestamps: record i has ts 1000 + i (3 per batch, consecutive)
    assert_eq!(
        reader.offset_for_timestamp(1000).unwrap(),
        Some(at(0, 1000))
    );
    assert_eq!(
        reader.offset_for_timestamp(1451).unwrap(),
        Some(at(451, 1451))
    );
    assert_eq!(reader.offset_for_timestamp(0).unwrap(), Some(at(0, 1000)));
    assert_eq!(reader.offset_for_timestamp(5000).unwrap(), None);
}

#[test]
fn max_message_bytes_rejects_large_batches_with_kafkas_message() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let cfg = LogConfig {
        max_message_bytes: 500,
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    let err = log.append(&batch(1, 600, 0), 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The request included a message larger than the max message size the server will accept."
    );
    assert_eq!(log.log_end_offset(), 0);
    log.append(&batch(1, 100, 0), 0).expect("a small one fits");
    assert_eq!(log.log_end_offset(), 1);
}

#[test]
fn log_append_time_and_topic_compression_are_applied_on_append() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let cfg = LogConfig {
        timestamp_type: TimestampType::LogAppendTime,
        compression: kafkit::log::CompressionPolicy::Fixed(Compression::Gzip),
        ..config()
    };
    let mut log = Log::open(&dir, cfg, LogCheckpoints::default(), 0).expect("open");
    let info = log.append(&batch(4, 100, 5), 123_456).expect("append");
    assert_eq!(info.log_append_time, 123_456);
    log.close().unwrap();
    let bytes = fs::read(dir.join("00000000000000000000.log")).unwrap();
    let b = batches(&bytes).next().unwrap().unwrap();
    assert!(b.is_valid());
    assert_eq!(b.compression().unwrap(), Compression::Gzip);
    assert_eq!(b.timestamp_type(), TimestampType::LogAppendTime);
    assert_eq!(b.max_timestamp(), 123_456);
    let recs = b.records().unwrap();
    assert_eq!(recs.len(), 4);
    assert!(recs.iter().all(|r| r.timestamp == 123_456));
    assert_eq!(recs[3].value.as_deref(), Some(&[b'd'; 100][..]));
}

#[test]
fn reopening_between_appends_keeps_the_index_kafkas_recovery_would_build() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut rp = 0;
    for round in 0..30i64 {
        let mut log =
            Log::open(&dir, config(), LogCheckpoints::recovery_point(rp), 0).expect("open");
        for i in 0..7 {
            log.append(&batch(1 + (i % 4) as usize, 120, round * 100 + i), 0)
                .expect("append");
        }
        rp = log.close().expect("close");
    }
    let found = scan(&dir.join("00000000000000000000.log"));
    let want = expected_entries(&found, 4096);
    assert!(want.0.len() > 10);
    assert_eq!(index_entries(&dir, 0), want);
}

#[test]
fn an_intact_tail_is_not_validated_again_unless_it_shares_the_recovery_points_segment() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let log = log_of_batches(&dir, config(), 200);
    let leo = log.log_end_offset();
    assert_eq!(log.close_unflushed().expect("close"), 0, "nothing flushed");
    // A byte flipped in the middle stands for what validation would find: a writer trusting
    // the tail up to `leo` does not look there, one starting at the recovery point does.
    flip_middle_byte(&dir.join("00000000000000000000.log"));

    let log = Log::open(
        &dir,
        config(),
        LogCheckpoints::recovery_point(0).with_intact_to(leo),
        0,
    )
    .expect("open intact");
    assert_eq!(log.log_end_offset(), leo);
    assert_eq!(log.recovery().truncated_bytes, 0);
    assert_eq!(log.recovery_point(), 0, "not flushed on open");
    assert_eq!(log.close_unflushed().expect("close"), 0);

    let log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    assert!(log.log_end_offset() < leo);
    assert!(log.recovery().truncated_bytes > 0);
    assert_eq!(
        log.recovery_point(),
        log.log_end_offset(),
        "flushed on open"
    );
    log.close().expect("close");

    // A recovery point in an earlier segment than the intact end: segments in between were
    // not written by the writer that closed there, so everything is validated from the
    // recovery point.
    let dir = tmp.path().join("t-1");
    let rolled = LogConfig {
        segment_bytes: 10_000,
        ..config()
    };
    let log = log_of_batches(&dir, rolled.clone(), 60);
    let leo = log.log_end_offset();
    let last_base = *log.segment_base_offsets().last().unwrap();
    assert!(log.segment_base_offsets().len() > 2);
    // Rolls flush the segments they close (on another thread; closing waits for it).
    assert_eq!(log.close_unflushed().expect("close"), last_base);
    // With `flush.ms`, no process is left to flush when that time has passed: closing flushes.
    let timed = LogConfig {
        flush_ms: 60_000,
        ..config()
    };
    let log = log_of_batches(&tmp.path().join("t-2"), timed, 3);
    let end = log.log_end_offset();
    assert_eq!(log.close_unflushed().expect("close"), end);
    flip_middle_byte(&dir.join("00000000000000000000.log"));
    let log = Log::open(
        &dir,
        rolled,
        LogCheckpoints::recovery_point(0).with_intact_to(leo),
        0,
    )
    .expect("open intact");
    assert!(log.recovery().truncated_bytes > 0);
    assert!(log.recovery().deleted_segments > 0);
    assert!(log.log_end_offset() < leo);
    log.close().expect("close");
}

mod writer {
    use std::fs;

    use kafkit::datadir::{DataDir, NewTopic, PartitionWriter, TopicConfigs};

    use super::batch;
    use crate::common::tempdir;

    fn topic(dd: &DataDir, name: &str, partitions: i32) -> kafkit::datadir::Topic {
        let lock = dd.lock().expect("lock");
        let new = NewTopic {
            name: name.into(),
            partitions: Some(partitions),
            replication_factor: None,
            assignment: None,
            configs: TopicConfigs::default(),
        };
        dd.create_topic(&lock, &new).expect("create")
    }

    #[test]
    fn closing_a_writer_checkpoints_recovery_points_and_a_dead_one_is_recovered_after() {
        let tmp = tempdir();
        let dd = DataDir::create(tmp.path()).expect("create");
        let t = topic(&dd, "orders", 2);
        let mut w = PartitionWriter::new(&dd).expect("writer");
        for _ in 0..3 {
            w.log(&t, 1)
                .expect("log")
                .append(&batch(2, 10, 0), 0)
                .expect("append");
        }
        assert!(w.log(&t, 2).is_err(), "partition 2 of a 2-partition topic");
        w.close().expect("close");
        let text = fs::read_to_string(tmp.path().join("recovery-point-offset-checkpoint")).unwrap();
        assert_eq!(text, "0\n1\norders 1 6\n");
        // No records were deleted, so no log start offset needs keeping (Kafka's rule).
        let text = fs::read_to_string(tmp.path().join("log-start-offset-checkpoint")).unwrap();
        assert_eq!(text, "0\n0\n");

        // A writer that dies without closing leaves the old recovery point; its torn tail is cut
        // by the next writer, which starts at offset 6 again.
        let mut w = PartitionWriter::new(&dd).expect("writer");
        w.log(&t, 1)
            .expect("log")
            .append(&batch(2, 10, 0), 0)
            .expect("append");
        // Dropped, not closed: no flush, no trim, no checkpoint, as when a process dies.
        drop(w);
        let seg = tmp.path().join("orders-1/00000000000000000000.log");
        let len = fs::metadata(&seg).unwrap().len();
        let f = fs::OpenOptions::new().write(true).open(&seg).unwrap();
        f.set_len(len - 5).unwrap();
        drop(f);
        let mut w = PartitionWriter::new(&dd).expect("writer");
        let log = w.log(&t, 1).expect("log");
        assert_eq!(log.log_end_offset(), 6);
        assert!(log.recovery().truncated_bytes > 0);
        w.close().expect("close");

        // A log start offset inside the first segment (records deleted up to 3) is kept.
        fs::write(
            tmp.path().join("log-start-offset-checkpoint"),
            "0\n1\norders 1 3\n",
        )
        .unwrap();
        let mut w = PartitionWriter::new(&dd).expect("writer");
        assert_eq!(w.log(&t, 1).expect("log").log_start_offset(), 3);
        w.close().expect("close");
        let text = fs::read_to_string(tmp.path().join("log-start-offset-checkpoint")).unwrap();
        assert_eq!(text, "0\n1\norders 1 3\n");
    }

    /// The unflushed tails file's entries, as (topic, partition, end offset).
    fn tails(root: &std::path::Path) -> Vec<(String, i64, i64)> {
        let text = fs::read_to_string(root.join(".kafkit-unflushed.json")).expect("tails");
        let json: serde_json::Value = serde_json::from_str(&text).expect("json");
        json["tails"]
            .as_array()
            .expect("tails")
            .iter()
            .map(|t| {
                let field = |name: &str| t[name].as_i64().expect(name);
                let topic = t["topic"].as_str().expect("topic").to_string();
                (topic, field("partition"), field("end_offset"))
            })
            .collect()
    }

    #[test]
    fn a_writer_closed_unflushed_keeps_recovery_points_and_the_next_trusts_its_tail_until_a_restart(
    ) {
        let tmp = tempdir();
        let root = tmp.path();
        let dd = DataDir::create(root).expect("create");
        let t = topic(&dd, "orders", 2);
        let checkpoint = || fs::read_to_string(root.join("recovery-point-offset-checkpoint"));
        let append = |w: &mut PartitionWriter, partition: i32| {
            w.log(&t, partition)
                .expect("log")
                .append(&batch(2, 10, 0), 0)
                .expect("append");
        };

        let mut w = PartitionWriter::new(&dd).expect("writer");
        for _ in 0..3 {
            append(&mut w, 0);
        }
        // Partition 1 gets offset-index entries (one per 4 KiB), so that a writer trusting its
        // tail would resume validation past the middle of the segment.
        for i in 0..100 {
            w.log(&t, 1)
                .expect("log")
                .append(&batch(5, 100, i), 0)
                .expect("append");
        }
        w.close_unflushed().expect("close");
        assert_eq!(checkpoint().unwrap(), "0\n2\norders 0 0\norders 1 0\n");
        assert_eq!(
            tails(root),
            [("orders".into(), 0, 6), ("orders".into(), 1, 500)]
        );

        // The next writer of this boot starts from where the last one closed: nothing to
        // validate, nothing flushed on open. Closing with a flush makes the tail durable.
        let mut w = PartitionWriter::new(&dd).expect("writer");
        let log = w.log(&t, 0).expect("log");
        assert_eq!((log.log_end_offset(), log.recovery_point()), (6, 0));
        append(&mut w, 0);
        w.close().expect("close");
        assert_eq!(checkpoint().unwrap(), "0\n2\norders 0 8\norders 1 0\n");
        assert_eq!(
            tails(root),
            [("orders".into(), 1, 500)],
            "partition 0 is flushed"
        );

        // Anything that changed the segment since (here a byte flipped in its middle) voids the
        // trust: the writer validates from the recovery point and cuts from the bad batch on.
        super::flip_middle_byte(&root.join("orders-1/00000000000000000000.log"));
        let mut w = PartitionWriter::new(&dd).expect("writer");
        let log = w.log(&t, 1).expect("log");
        assert!(log.recovery().truncated_bytes > 0);
        let end = log.log_end_offset();
        assert!(end < 500);
        assert_eq!(log.recovery_point(), end);
        append(&mut w, 1);
        w.close_unflushed().expect("close");
        assert_eq!(tails(root), [("orders".into(), 1, end + 2)]);

        // After a restart (another boot id) nothing is trusted: the log is validated from the
        // recovery point and flushed, as after any unclean shutdown.
        let path = root.join(".kafkit-unflushed.json");
        let text = fs::read_to_string(&path).unwrap();
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json["boot_id"] = "00000000-0000-0000-0000-000000000000".into();
        fs::write(&path, json.to_string()).unwrap();
        let mut w = PartitionWriter::new(&dd).expect("writer");
        let log = w.log(&t, 1).expect("log");
        assert_eq!(
            (log.log_end_offset(), log.recovery_point()),
            (end + 2, end + 2)
        );
        w.close_unflushed().expect("close");
        assert_eq!(
            checkpoint().unwrap(),
            format!("0\n2\norders 0 8\norders 1 {}\n", end + 2)
        );

        // A malformed file is ignored (it only costs a longer recovery) and replaced.
        let mut w = PartitionWriter::new(&dd).expect("writer");
        append(&mut w, 1);
        w.close_unflushed().expect("close");
        fs::write(&path, "{").unwrap();
        let mut w = PartitionWriter::new(&dd).expect("writer");
        let log = w.log(&t, 1).expect("log");
        assert_eq!(
            (log.log_end_offset(), log.recovery_point()),
            (end + 4, end + 4)
        );
        append(&mut w, 1);
        w.close_unflushed().expect("close");
        assert_eq!(tails(root), [("orders".into(), 1, end + 6)]);
    }
}

#[test]
fn the_streaming_reader_frames_batches_as_the_byte_decoder_does_across_window_edges() {
    use kafkit::log::{SegmentReader, Stop};
    let tmp = tempdir();
    let path = tmp.path().join("00000000000000000000.log");
    let mut bytes = Vec::new();
    for i in 0..40 {
        let mut b = batch(1 + i % 5, 7 * i, i as i64);
        kafkit::record::set_base_offset(&mut b, bytes.len() as i64).unwrap();
        bytes.extend_from_slice(&b);
    }
    let whole = bytes.len() as u64;
    bytes.extend_from_slice(b"0123456789abcdefghij"); // trailing bytes, no whole entry
    fs::write(&path, &bytes).unwrap();
    let want: Vec<(u64, Vec<u8>)> = batches(&bytes)
        .map(|b| b.unwrap())
        .map(|b| (b.position() as u64, b.as_bytes().to_vec()))
        .collect();
    for window in [18, 19, 61, 100, 257, 4096, 1 << 20] {
        let mut r = SegmentReader::open(&path, 0).unwrap().with_window(window);
        let mut got = Vec::new();
        while let Some((pos, b)) = r.next_batch().unwrap() {
            got.push((pos, b.as_bytes().to_vec()));
        }
        assert_eq!(got, want, "window {window}");
        assert_eq!(
            r.stop(),
            Stop::Trailing {
                position: whole,
                bytes: 20
            }
        );
    }
    // A size field below 14 is an error naming the file position, as Kafka's reader throws.
    let mut bad = bytes[..whole as usize].to_vec();
    bad.extend_from_slice(&[0u8; 30]);
    fs::write(&path, &bad).unwrap();
    let mut r = SegmentReader::open(&path, 0).unwrap().with_window(64);
    let err = loop {
        match r.next_batch() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("zeros must be an error"),
            Err(e) => break e,
        }
    };
    assert!(
        err.to_string().contains(&format!("at byte {whole}")),
        "{err}"
    );
}

/// Rewrites bytes of a batch and recomputes its CRC, as a producer that lies would.
fn patched(mut b: Vec<u8>, at: usize, bytes: &[u8]) -> Vec<u8> {
    b[at..at + bytes.len()].copy_from_slice(bytes);
    let crc = kafkit::record::crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

#[test]
fn appends_refuse_batches_whose_offsets_or_codec_lie() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    log.append(&batch(3, 10, 0), 0).expect("a good batch");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            patched(batch(3, 10, 0), 23, &(-5i32).to_be_bytes()),
            "invalid offset range",
        ),
        (
            patched(batch(3, 10, 0), 23, &1000i32.to_be_bytes()),
            "Inconsistent batch offset range [0, 1000] and count of records 3",
        ),
        (
            patched(batch(3, 10, 0), 57, &4i32.to_be_bytes()),
            "Inconsistent batch offset range [0, 2] and count of records 4",
        ),
        (patched(batch(3, 10, 0), 22, &[5]), "compression"),
        (
            {
                let mut b = batch(3, 10, 0);
                kafkit::record::set_base_offset(&mut b, 7).unwrap();
                b
            },
            "should be 0, but it is 7",
        ),
        // Record 0's offsetDelta (byte 64: after its length, attributes and timestampDelta)
        // says 1: the records disagree with the offsets the header promises.
        (
            patched(batch(3, 10, 0), 64, &[2]),
            "Record offset 1 in a batch based at 0 should be 0",
        ),
        // Record 0's key length (byte 65) runs past the record: its structure is broken.
        (patched(batch(3, 10, 0), 65, &[200]), "truncated key"),
    ];
    for (bad, words) in cases {
        let err = log.append(&bad, 0).expect_err(words).to_string();
        assert!(err.contains(words), "{err:?} should say {words:?}");
        assert_eq!(log.log_end_offset(), 3, "a refused batch moves nothing");
    }
    assert_eq!(log.append(&batch(1, 10, 0), 0).unwrap().first_offset, 3);
    log.close().unwrap();
    assert_eq!(scan(&dir.join("00000000000000000000.log")).len(), 2);
}

#[test]
fn a_stale_or_hostile_index_entry_never_costs_valid_data() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    for i in 0..100 {
        log.append(&batch(1, 300, i), 0).expect("append");
    }
    let rp = log.close().unwrap();
    let log_bytes = fs::read(dir.join("00000000000000000000.log")).unwrap();
    let index = dir.join("00000000000000000000.index");
    let good = fs::read(&index).unwrap();
    assert!(good.len() >= 16);
    let last = good.len() - 8;
    let mut shifted = good.clone();
    let pos = u32::from_be_bytes(shifted[last + 4..].try_into().unwrap());
    for bad_pos in [pos + 1, 50_000_000] {
        shifted[last + 4..].copy_from_slice(&bad_pos.to_be_bytes());
        fs::write(&index, &shifted).unwrap();
        let log = Log::open(&dir, config(), LogCheckpoints::recovery_point(rp), 0).expect("reopen");
        assert_eq!(log.log_end_offset(), 100);
        assert_eq!(log.recovery().truncated_bytes, 0);
        log.close().unwrap();
        assert_eq!(
            fs::read(dir.join("00000000000000000000.log")).unwrap(),
            log_bytes
        );
        assert_eq!(
            fs::read(&index).unwrap(),
            good,
            "the index is rebuilt as it was"
        );
    }
}

#[test]
fn hostile_offsets_in_names_and_headers_do_not_panic() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    fs::create_dir_all(&dir).unwrap();
    // A segment named at i64::MAX whose index holds relative offset 5.
    let base = i64::MAX;
    let mut b = batch(1, 10, 0);
    kafkit::record::set_base_offset(&mut b, i64::MIN).unwrap();
    fs::write(dir.join(format!("{base:020}.log")), &b).unwrap();
    let mut idx = 5i32.to_be_bytes().to_vec();
    idx.extend_from_slice(&0i32.to_be_bytes());
    fs::write(dir.join(format!("{base:020}.index")), &idx).unwrap();
    let mut reader = LogReader::open(&dir).unwrap();
    let _ = reader.seek(42);
    let _ = reader.offset_for_timestamp(0);
    // A writer recovers it: the batch's offsets are out of the segment's range, so it goes.
    let log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    assert_eq!(log.recovery().truncated_bytes, b.len() as u64);
    log.close().unwrap();
    // A max timestamp of i64::MIN after a real one: the roll check wraps as Java does.
    let dir = tmp.path().join("u-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    log.append(&batch(1, 10, 5), 0).unwrap();
    let odd = patched(batch(1, 10, 0), 35, &i64::MIN.to_be_bytes());
    let _ = log.append(&odd, 0);
    log.close().unwrap();
}

#[test]
fn timestamps_are_found_in_an_active_segment_whose_time_index_lags() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    for i in 0..20 {
        log.append(&batch(5, 100, 1000 + i), 0).expect("append");
    }
    log.append(&batch(1, 100, 5000), 0).expect("append");
    drop(log); // no close: the time index has no closing entry
    let mut reader = LogReader::open(&dir).unwrap();
    assert_eq!(
        reader.offset_for_timestamp(5000).unwrap(),
        Some(at(100, 5000))
    );
}

#[test]
fn a_log_start_offset_past_the_end_starts_a_fresh_segment_there() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    log.append(&batch(5, 10, 0), 0).unwrap();
    log.close().unwrap();
    let mut log = Log::open(
        &dir,
        config(),
        LogCheckpoints::recovery_point(5).with_log_start(100),
        0,
    )
    .expect("reopen");
    assert_eq!(log.log_end_offset(), 100);
    assert_eq!(log.segment_base_offsets(), &[100]);
    assert_eq!(log.append(&batch(1, 10, 0), 0).unwrap().first_offset, 100);
    log.close().unwrap();
    assert!(!dir.join("00000000000000000000.log").exists());
}

#[test]
fn a_one_entry_time_index_at_timestamp_zero_is_an_entry() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    log.append(&batch(1, 10, 0), 0).unwrap();
    log.close().unwrap();
    assert_eq!(index_entries(&dir, 0).1, vec![(0, 0)]);
}

#[test]
fn index_sanity_checks_use_kafkas_words() {
    let tmp = tempdir();
    let path = tmp.path().join("00000000000000000100.index");
    let mut bytes = 5i32.to_be_bytes().to_vec();
    bytes.extend_from_slice(&0i32.to_be_bytes());
    bytes.extend_from_slice(&(-3i32).to_be_bytes());
    bytes.extend_from_slice(&8i32.to_be_bytes());
    fs::write(&path, &bytes).unwrap();
    let index = OffsetIndex::open_read_only(&path, 100).unwrap();
    assert_eq!(
        index.sanity_check().unwrap_err().to_string(),
        format!("Corrupt index found, index file {} has non-zero size but the last offset is 97 which is less than the base offset 100", path.display())
    );
    let path = tmp.path().join("00000000000000000100.timeindex");
    let mut bytes = 10i64.to_be_bytes().to_vec();
    bytes.extend_from_slice(&1i32.to_be_bytes());
    bytes.extend_from_slice(&[0u8; 5]);
    fs::write(&path, &bytes).unwrap();
    let index = TimeIndex::open_read_only(&path, 100).unwrap();
    assert_eq!(
        index.sanity_check().unwrap_err().to_string(),
        format!("Time index file {} is corrupt, found 17 bytes which is neither positive nor a multiple of 12", path.display())
    );
}

#[test]
fn an_append_whose_offsets_overflow_the_segments_int32_range_rolls() {
    // A compacted segment based at 0 whose only batch sits at offset 2^31 - 2: the next
    // 3-record batch would end at 2^31 + 1, beyond an int32 relative offset, so it rolls.
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    fs::create_dir_all(&dir).unwrap();
    let mut b = batch(1, 10, 0);
    kafkit::record::set_base_offset(&mut b, i64::from(i32::MAX) - 1).unwrap();
    fs::write(dir.join("00000000000000000000.log"), &b).unwrap();
    let mut log = Log::open(&dir, config(), LogCheckpoints::default(), 0).expect("open");
    assert_eq!(log.log_end_offset(), i64::from(i32::MAX));
    let info = log.append(&batch(3, 10, 0), 0).expect("append");
    assert_eq!(info.first_offset, i64::from(i32::MAX));
    assert_eq!(info.segment_base_offset, i64::from(i32::MAX));
    assert_eq!(log.segment_base_offsets(), &[0, i64::from(i32::MAX)]);
    log.close().unwrap();
}

/// A batch built in process (`BatchBuilder::seal`) in a given codec, records `n` of 60 bytes.
fn built(n: usize, codec: Compression, base_offset: i64) -> kafkit::record::BuiltBatch {
    let mut b = BatchBuilder::new(base_offset, codec, TimestampType::CreateTime);
    for i in 0..n {
        b.append(1_000 + i as i64, None, Some(&[b'v'; 60]), &[]);
    }
    b.seal().expect("seal")
}

#[test]
fn a_built_batch_is_appended_as_a_validated_one_would_be() {
    // The trusted path (no CRC or record walk) must write the very bytes the validating path
    // writes, recompress when the topic asks, and still refuse what the header gets wrong.
    for (policy, codec) in [
        (kafkit::log::CompressionPolicy::Producer, Compression::None),
        (kafkit::log::CompressionPolicy::Producer, Compression::Lz4),
        (
            kafkit::log::CompressionPolicy::Fixed(Compression::Gzip),
            Compression::None,
        ),
    ] {
        let tmp = tempdir();
        let cfg = LogConfig {
            compression: policy,
            ..config()
        };
        let (a, b) = (tmp.path().join("a-0"), tmp.path().join("b-0"));
        let mut validated =
            Log::open(&a, cfg.clone(), LogCheckpoints::default(), 0).expect("open a");
        let mut trusted = Log::open(&b, cfg, LogCheckpoints::default(), 0).expect("open b");
        for n in [1, 7, 30] {
            let mut batch = built(n, codec, 0);
            let first = validated.append(batch.as_bytes(), 5).expect("append");
            let second = trusted.append_built(&mut batch, 5).expect("append_built");
            assert_eq!(first, second, "{policy:?} {codec:?}");
        }
        validated.close().expect("close a");
        trusted.close().expect("close b");
        for file in ["00000000000000000000.log", "00000000000000000000.index"] {
            assert_eq!(
                fs::read(a.join(file)).expect("a"),
                fs::read(b.join(file)).expect("b"),
                "{file} with {policy:?} {codec:?}"
            );
        }
    }
    let tmp = tempdir();
    let mut log = Log::open(
        &tmp.path().join("c-0"),
        config(),
        LogCheckpoints::default(),
        0,
    )
    .expect("open");
    let err = log
        .append_built(&mut built(2, Compression::None, 5), 0)
        .expect_err("a base offset other than 0");
    assert!(
        err.to_string().contains("should be 0, but it is 5"),
        "{err}"
    );
    assert_eq!(log.log_end_offset(), 0);
}

#[test]
fn a_group_of_built_batches_is_written_as_one_by_one_appends_would() {
    // One vectored write for a producer's hand-off group must leave the very files and answers
    // that appending the batches one at a time leaves: offsets, positions, index entries,
    // append times.
    let configs = [
        config(),
        LogConfig {
            index_interval_bytes: 100, // an index entry after nearly every batch
            ..config()
        },
        LogConfig {
            timestamp_type: TimestampType::LogAppendTime,
            ..config()
        },
    ];
    for cfg in configs {
        let tmp = tempdir();
        let (a, b) = (tmp.path().join("a-0"), tmp.path().join("b-0"));
        let mut one_by_one =
            Log::open(&a, cfg.clone(), LogCheckpoints::default(), 0).expect("open a");
        let mut grouped = Log::open(&b, cfg.clone(), LogCheckpoints::default(), 0).expect("open b");
        // A segment's first batch sets its age, so it goes alone.
        let mut first = built(2, Compression::None, 0);
        assert!(grouped
            .append_built_all(std::slice::from_mut(&mut first), 70)
            .expect("ok")
            .is_none());
        one_by_one
            .append_built(&mut first.clone(), 70)
            .expect("first");
        grouped.append_built(&mut first, 70).expect("first");
        for round in 0..3 {
            let sizes = [1usize, 7, 3, 30, 2];
            let mut group: Vec<_> = sizes
                .iter()
                .map(|&n| built(n, Compression::None, 0))
                .collect();
            let expected: Vec<_> = group
                .clone()
                .iter_mut()
                .map(|batch| one_by_one.append_built(batch, 77 + round).expect("append"))
                .collect();
            let got = grouped
                .append_built_all(&mut group, 77 + round)
                .expect("append_built_all")
                .expect("taken as a group");
            assert_eq!(got, expected, "{cfg:?}");
        }
        one_by_one.close().expect("close a");
        grouped.close().expect("close b");
        for file in [
            "00000000000000000000.log",
            "00000000000000000000.index",
            "00000000000000000000.timeindex",
        ] {
            assert_eq!(
                fs::read(a.join(file)).expect("a"),
                fs::read(b.join(file)).expect("b"),
                "{file} with {cfg:?}"
            );
        }
    }
}

#[test]
fn a_group_that_needs_a_roll_or_a_flush_is_left_to_one_by_one_appends() {
    let group = || -> Vec<_> { (0..4).map(|_| built(5, Compression::None, 0)).collect() };
    let declining = [
        LogConfig {
            segment_bytes: 1700, // a first batch and the four (~1,700 bytes) do not fit
            ..config()
        },
        LogConfig {
            flush_messages: 10, // the policy flushes after the second batch
            ..config()
        },
        LogConfig {
            compression: kafkit::log::CompressionPolicy::Fixed(Compression::Gzip),
            ..config()
        },
    ];
    for cfg in declining {
        let tmp = tempdir();
        let dir = tmp.path().join("t-0");
        let mut log = Log::open(&dir, cfg.clone(), LogCheckpoints::default(), 0).expect("open");
        log.append_built(&mut built(1, Compression::None, 0), 0)
            .expect("a first batch");
        let taken = log.append_built_all(&mut group(), 0).expect("no error");
        assert!(taken.is_none(), "{cfg:?}");
        assert_eq!(log.log_end_offset(), 1, "nothing written: {cfg:?}");
    }
    // An empty segment: its first batch sets the segment's age, so the group is declined.
    let tmp = tempdir();
    let mut log = Log::open(
        &tmp.path().join("e-0"),
        config(),
        LogCheckpoints::default(),
        0,
    )
    .expect("open");
    assert!(log.append_built_all(&mut group(), 0).expect("ok").is_none());
    // A single batch goes through `append_built`.
    let tmp = tempdir();
    let mut log = Log::open(
        &tmp.path().join("t-0"),
        config(),
        LogCheckpoints::default(),
        0,
    )
    .expect("open");
    let mut one = vec![built(5, Compression::None, 0)];
    assert!(log.append_built_all(&mut one, 0).expect("ok").is_none());
}

#[test]
fn grouped_appends_match_one_by_one_appends_across_rolls_and_full_indexes() {
    // What the producer's sender does (a group when the log takes it, else one by one) must
    // leave the same partition as one-by-one appends, whatever segment sizes, segment ages and
    // index sizes make rolls happen inside a group.
    let mut seed = 11u64;
    let mut next = move |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut taken = 0;
    for _ in 0..12 {
        let cfg = LogConfig {
            segment_bytes: 2_000 + next(8_000) as u32,
            segment_index_bytes: 8 * (2 + next(12) as u32),
            index_interval_bytes: 50 + next(600) as u32,
            segment_ms: 100 + next(400) as i64,
            ..config()
        };
        let mut clock = 0i64;
        let mut timed = |n: usize, jump: u64| {
            // Timestamps that move on (by up to 100 ms between batches) so segment.ms rolls.
            clock += jump as i64;
            let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
            for i in 0..n {
                b.append(clock + i as i64, None, Some(&[b'v'; 60]), &[]);
            }
            b.seal().expect("seal")
        };
        let tmp = tempdir();
        let (a, b) = (tmp.path().join("a-0"), tmp.path().join("b-0"));
        let mut one_by_one =
            Log::open(&a, cfg.clone(), LogCheckpoints::default(), 0).expect("open a");
        let mut grouped = Log::open(&b, cfg.clone(), LogCheckpoints::default(), 0).expect("open b");
        for _ in 0..40 {
            let mut group: Vec<_> = (0..1 + next(6))
                .map(|_| timed(1 + next(20) as usize, next(100)))
                .collect();
            let expected: Vec<_> = group
                .clone()
                .iter_mut()
                .map(|batch| one_by_one.append_built(batch, 5).expect("append"))
                .collect();
            let got = match grouped.append_built_all(&mut group, 5).expect("group") {
                Some(infos) => {
                    taken += 1;
                    infos
                }
                None => group
                    .iter_mut()
                    .map(|batch| grouped.append_built(batch, 5).expect("append"))
                    .collect(),
            };
            assert_eq!(got, expected, "{cfg:?}");
        }
        one_by_one.close().expect("close a");
        grouped.close().expect("close b");
        let files = |dir: &Path| {
            let mut names: Vec<_> = fs::read_dir(dir)
                .expect("dir")
                .map(|e| e.expect("entry").file_name())
                .collect();
            names.sort();
            names
                .into_iter()
                .map(|n| (n.clone(), fs::read(dir.join(&n)).expect("read")))
                .collect::<Vec<_>>()
        };
        let (fa, fb) = (files(&a), files(&b));
        assert!(fa.len() > 3, "several segments: {cfg:?}");
        assert_eq!(fa, fb, "{cfg:?}");
    }
    assert!(taken >= 20, "groups written as groups: {taken} of 480");
}

#[test]
fn a_failed_group_append_leaves_no_bytes_and_no_index_entries() {
    // The second batch of a group fails (its index entry would go backwards): the first one's
    // bytes and index entry go too, and the segment takes a good append afterwards.
    use kafkit::log::{LogSegment, SegmentAppend};
    let tmp = tempdir();
    let cfg = LogConfig {
        index_interval_bytes: 10,
        ..config()
    };
    let mut seg = LogSegment::open_writable(tmp.path(), 0, &cfg, 0).expect("open");
    let bytes = [7u8; 100];
    let at = |largest_offset: i64| SegmentAppend {
        bytes: &bytes,
        largest_offset,
        largest_timestamp: largest_offset,
        offset_of_largest_timestamp: largest_offset,
    };
    seg.append_all(&[at(10)])
        .expect("a first batch, no entry yet");
    seg.append_all(&[at(20), at(15)])
        .expect_err("15 after an entry for 20");
    assert_eq!(seg.size(), 100, "the group's bytes are gone");
    seg.append_all(&[at(30), at(40)]).expect("good appends");
    assert_eq!(seg.size(), 300);
    seg.trim().expect("trim");
    drop(seg);
    let index = OffsetIndex::open_read_only(&tmp.path().join("00000000000000000000.index"), 0)
        .expect("index");
    let offsets: Vec<i64> = (0..index.entries())
        .map(|n| index.entry(n).expect("entry").offset)
        .collect();
    assert_eq!(offsets, vec![30, 40], "no entry of the failed group stays");
}

/// A reader opens an index without the data directory's lock, while the writer of the partition
/// may trim the file (closing its segment) or grow it again (reopening it): whatever size it
/// sees, opening it read-only gives the written entries, never a read past the end.
#[test]
fn a_reader_opens_an_index_while_its_writer_trims_and_grows_it() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let tmp = tempdir();
    let path = tmp.path().join("00000000000000000000.index");
    {
        let mut index = OffsetIndex::open_writable(&path, 0, 1 << 20).expect("index");
        for i in 0..3 {
            index
                .append_offset(i * 10, (i * 100) as u32)
                .expect("append");
        }
        index.trim_to_valid_size().expect("trim");
    }
    /// Stops the resizing thread however the test ends.
    struct Stop(Arc<AtomicBool>);
    impl Drop for Stop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_exit = Stop(Arc::clone(&stop));
    let writer = {
        let (path, stop) = (path.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let file = fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .expect("open");
            // 3 entries of 8 bytes, then (as a writer preallocates) zero slots up to 1 MiB.
            while !stop.load(Ordering::Relaxed) {
                file.set_len(1 << 20).expect("grow");
                file.set_len(24).expect("trim");
            }
        })
    };
    let mut opened = 0;
    let started = std::time::Instant::now();
    while opened < 20_000 && started.elapsed() < std::time::Duration::from_secs(5) {
        let index =
            OffsetIndex::open_read_only(&path, 0).unwrap_or_else(|e| panic!("open {opened}: {e}"));
        assert_eq!(index.entries(), 3);
        opened += 1;
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().expect("writer");
}

/// What `offset_for_timestamp` finds: the record's offset and timestamp.
fn at(offset: i64, timestamp: i64) -> kafkit::log::TimestampOffset {
    kafkit::log::TimestampOffset { timestamp, offset }
}
