//! Readers on damaged data: a matrix of damage (flipped bytes, a flipped base offset, torn,
//! zero-filled and sparse tails, an index that points past its log) × every codec, with the
//! answer each reader must give: the records before the damage, then Kafka's error at it or, for
//! an active segment's tail that Kafka's recovery would cut, a warning. No wrong record is ever
//! printed with exit 0.

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};

use kafkit::log::{Log, LogCheckpoints, LogConfig};
use kafkit::record::{batches, BatchBuilder, Compression, TimestampType};

use crate::common::{kafkit, tempdir};

const CODECS: [Compression; 5] = [
    Compression::None,
    Compression::Gzip,
    Compression::Snappy,
    Compression::Lz4,
    Compression::Zstd,
];
const MIN_BATCHES: i64 = 60;
const PER_BATCH: i64 = 10;

/// The value of the record at `offset`: it names its offset, so a record printed under a wrong
/// offset shows.
fn value(offset: i64) -> String {
    // Digits that do not repeat, so the codecs cannot shrink a batch to nothing.
    let filler: String = (0..6)
        .map(|i| {
            format!(
                "{:08x}",
                (offset * 2_654_435_761 + i * 40_503) % 4_294_967_291
            )
        })
        .collect();
    format!("value-{offset}-{filler}")
}

/// One batch of the partition as written.
#[derive(Debug, Clone)]
struct Written {
    segment: PathBuf,
    position: u64,
    size: u64,
    base: i64,
}

/// A one-partition topic `t` whose log holds at least [`MIN_BATCHES`] batches of [`PER_BATCH`]
/// records, rolled into several small segments, with index entries every batch or two.
struct Partition {
    _root: tempfile::TempDir,
    data: PathBuf,
    batches: Vec<Written>,
    segments: Vec<PathBuf>,
    /// How many records the log holds.
    records: i64,
}

impl Partition {
    fn new(codec: Compression) -> Self {
        let root = tempdir();
        let data = root.path().to_path_buf();
        kafkit(&data, &["topics", "--create", "--topic", "t"]).ok();
        let dir = data.join("t-0");
        let config = LogConfig {
            segment_bytes: 6000,
            index_interval_bytes: 250,
            ..LogConfig::default()
        };
        let mut log = Log::open(&dir, config, LogCheckpoints::default(), 0).expect("open log");
        // At least four segments, the active one holding at least eight batches.
        let mut b = 0;
        while b < MIN_BATCHES
            || log.segment_base_offsets().len() < 4
            || (b * PER_BATCH - log.segment_base_offsets().last().copied().unwrap_or(0))
                < 8 * PER_BATCH
        {
            let mut builder = BatchBuilder::new(0, codec, TimestampType::CreateTime);
            for r in 0..PER_BATCH {
                let offset = b * PER_BATCH + r;
                builder.append(
                    1_700_000_000_000 + offset,
                    None,
                    Some(value(offset).as_bytes()),
                    &[],
                );
            }
            log.append(&builder.build().expect("build"), 0)
                .expect("append");
            b += 1;
        }
        log.close().expect("close");
        let mut segments: Vec<PathBuf> = fs::read_dir(&dir)
            .expect("read dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        segments.sort();
        assert!(segments.len() >= 4, "{} segments", segments.len());
        let mut written = Vec::new();
        for segment in &segments {
            let bytes = fs::read(segment).expect("read segment");
            for batch in batches(&bytes) {
                let batch = batch.expect("batch");
                written.push(Written {
                    segment: segment.clone(),
                    position: batch.position() as u64,
                    size: batch.size_in_bytes() as u64,
                    base: batch.base_offset(),
                });
            }
        }
        assert_eq!(written.len() as i64, b);
        Partition {
            _root: root,
            data,
            batches: written,
            segments,
            records: b * PER_BATCH,
        }
    }

    fn active(&self) -> &Path {
        self.segments.last().expect("a segment")
    }

    /// The `n`th batch of a segment (`segment` counted from 0; the last one is active).
    fn batch_in(&self, segment: usize, n: usize) -> Written {
        let path = &self.segments[segment];
        self.batches
            .iter()
            .filter(|b| &b.segment == path)
            .nth(n)
            .expect("no such batch")
            .clone()
    }

    fn last_batch(&self) -> Written {
        self.batches.last().expect("a batch").clone()
    }

    fn consume(&self, extra: &[&str]) -> crate::common::Run {
        let mut args = vec![
            "consume",
            "--topic",
            "t",
            "--from-beginning",
            "--timeout-ms",
            "300",
            "--property",
            "print.offset=true",
        ];
        args.extend_from_slice(extra);
        kafkit(&self.data, &args)
    }

    fn consume_from(&self, offset: i64) -> crate::common::Run {
        let offset = offset.to_string();
        kafkit(
            &self.data,
            &[
                "consume",
                "--topic",
                "t",
                "--partition",
                "0",
                "--offset",
                &offset,
                "--timeout-ms",
                "300",
                "--property",
                "print.offset=true",
            ],
        )
    }

    fn latest(&self) -> crate::common::Run {
        kafkit(&self.data, &["get-offsets", "--topic", "t"])
    }
}

/// Asserts that `stdout` holds exactly the records of offsets `from..to`, each with its own value.
#[track_caller]
fn assert_records(stdout: &str, from: i64, to: i64, case: &str) {
    let mut expected = from;
    for line in stdout.lines() {
        let Some((offset, printed)) = line
            .strip_prefix("Offset:")
            .and_then(|rest| rest.split_once('\t'))
        else {
            panic!("{case}: not a record line: {line:?}");
        };
        let offset: i64 = offset.parse().expect("offset");
        assert_eq!(offset, expected, "{case}: offsets must follow on");
        assert_eq!(printed, value(offset), "{case}: the record at {offset}");
        expected += 1;
    }
    assert_eq!(expected, to, "{case}: records {from}..{to} expected");
}

/// The positions the offset-index entries of segment `log` name.
fn index_positions(log: &Path) -> Vec<u64> {
    fs::read(log.with_extension("index"))
        .expect("read index")
        .chunks_exact(8)
        .map(|entry| u64::from(u32::from_be_bytes(entry[4..8].try_into().expect("4 bytes"))))
        .filter(|&position| position > 0)
        .collect()
}

fn patch(path: &Path, at: u64, bytes: &[u8]) {
    let mut data = fs::read(path).expect("read");
    let at = at as usize;
    data[at..at + bytes.len()].copy_from_slice(bytes);
    fs::write(path, data).expect("write");
}

fn flip(path: &Path, at: u64) {
    flip_bit(path, at, 4);
}

fn flip_bit(path: &Path, at: u64, bit: u64) {
    let data = fs::read(path).expect("read");
    patch(path, at, &[data[at as usize] ^ (1 << bit)]);
}

fn set_len(path: &Path, len: u64) {
    OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open")
        .set_len(len)
        .expect("set_len");
}

/// The consumer's error for a batch it cannot hand out, as Kafka's console consumer logs it.
fn invalid_at(offset: i64) -> String {
    format!(
        "org.apache.kafka.common.KafkaException: Record batch for partition t-0 at offset {offset} is invalid, cause: "
    )
}

#[test]
fn a_flipped_byte_stops_consume_at_its_batch_with_kafkas_error() {
    for codec in CODECS {
        for segment in [1, usize::MAX] {
            let p = Partition::new(codec);
            let segment = segment.min(p.segments.len() - 1);
            let hit = p.batch_in(segment, 2);
            // A byte of the records, inside what the CRC covers.
            flip(&hit.segment, hit.position + hit.size - 7);
            let case = format!("{codec:?}, segment {segment}");
            let run = p.consume(&[]);
            let stderr = run.fails();
            assert_records(&run.stdout, 0, hit.base, &case);
            let expected = format!("{}Record is corrupt (stored crc = ", invalid_at(hit.base));
            assert!(stderr.contains(&expected), "{case}: {stderr}");
            assert!(
                stderr.contains("ERROR Unknown error when running consumer:"),
                "{case}: {stderr}"
            );
            // The log's end is not in question.
            assert_eq!(p.latest().ok(), format!("t:0:{}\n", p.records), "{case}");
            if codec == Compression::None {
                // check.crcs=false: Kafka's consumer hands the record out as it is.
                let run = p.consume(&["--consumer-property", "check.crcs=false"]);
                run.ok();
                assert_eq!(run.stdout.lines().count() as i64, p.records, "{case}");
            }
        }
    }
}

#[test]
fn a_flipped_base_offset_is_corruption_not_a_jump() {
    for codec in CODECS {
        // In a closed segment: the offsets jump past the next segment's base.
        let p = Partition::new(codec);
        let hit = p.batch_in(1, 1);
        flip(&hit.segment, hit.position + 1);
        let case = format!("{codec:?}, closed segment");
        let run = p.consume(&[]);
        let stderr = run.fails();
        assert_records(&run.stdout, 0, hit.base, &case);
        assert!(stderr.contains(&invalid_at(hit.base)), "{case}: {stderr}");
        // In the middle of the active segment, a small step down that stays inside the
        // segment's range: the batch goes backwards.
        let p = Partition::new(codec);
        let hit = p.batch_in(p.segments.len() - 1, 1);
        let bit = (4..16)
            .find(|bit| hit.base & (1 << bit) != 0)
            .expect("a bit of 16 or more");
        flip_bit(&hit.segment, hit.position + 7 - bit / 8, bit % 8);
        let case = format!("{codec:?}, active segment");
        let run = p.consume(&[]);
        let stderr = run.fails();
        assert_records(&run.stdout, 0, hit.base, &case);
        assert!(stderr.contains(&invalid_at(hit.base)), "{case}: {stderr}");
        assert!(
            stderr.contains("does not follow the previous batch"),
            "{case}: {stderr}"
        );
        // The last batch of the log, far past any offset the segment can hold.
        let p = Partition::new(codec);
        let hit = p.last_batch();
        flip(&hit.segment, hit.position + 1);
        let case = format!("{codec:?}, last batch");
        let run = p.consume(&[]);
        let stderr = run.fails();
        assert_records(&run.stdout, 0, hit.base, &case);
        assert!(stderr.contains(&invalid_at(hit.base)), "{case}: {stderr}");
        assert!(
            stderr.contains("is outside its segment"),
            "{case}: {stderr}"
        );
        let run = p.latest();
        assert!(
            run.fails()
                .contains("Skip getting offsets for topic-partition t-0"),
            "{case}"
        );
        assert_eq!(run.stdout, "", "{case}");
    }
}

#[test]
fn a_torn_active_tail_is_the_end_of_the_log() {
    for codec in CODECS {
        let p = Partition::new(codec);
        let last = p.last_batch();
        set_len(&last.segment, last.position + last.size / 2);
        let case = format!("{codec:?}");
        let run = p.consume(&[]);
        run.ok();
        assert_records(&run.stdout, 0, last.base, &case);
        assert_eq!(p.latest().ok(), format!("t:0:{}\n", last.base), "{case}");
    }
}

#[test]
fn zero_bytes_end_the_active_segment_with_a_warning_and_hide_nothing_before() {
    for codec in CODECS {
        // 64 zero bytes after the last batch.
        let p = Partition::new(codec);
        let len = fs::metadata(p.active()).expect("stat").len();
        set_len(p.active(), len + 64);
        let case = format!("{codec:?}, zeros at the end");
        let run = p.consume(&[]);
        run.ok();
        assert_records(&run.stdout, 0, p.records, &case);
        let warning = format!(
            "WARN Found invalid messages in log segment {} at byte offset {len}: Found record size 0 smaller than minimum record overhead (14)",
            p.active().display()
        );
        assert!(run.stderr.contains(&warning), "{case}: {}", run.stderr);
        assert_eq!(
            run.stderr.matches("WARN Found invalid").count(),
            1,
            "{case}: told once"
        );
        let run = p.latest();
        assert_eq!(run.ok(), format!("t:0:{}\n", p.records), "{case}");
        assert!(run.stderr.contains(&warning), "{case}: {}", run.stderr);

        // The last batch zero-filled from its start: the log ends before it.
        let p = Partition::new(codec);
        let last = p.last_batch();
        patch(&last.segment, last.position, &[0; 64]);
        let case = format!("{codec:?}, the last batch zeroed");
        let run = p.consume(&[]);
        run.ok();
        assert_records(&run.stdout, 0, last.base, &case);
        assert!(
            run.stderr.contains("WARN Found invalid messages"),
            "{case}: {}",
            run.stderr
        );
        assert_eq!(p.latest().ok(), format!("t:0:{}\n", last.base), "{case}");
        assert_records(
            &p.consume_from(last.base - 3).stdout,
            last.base - 3,
            last.base,
            &case,
        );

        // A batch in the middle of the active segment, with an index entry naming a batch
        // after it: not a torn tail but corruption, as in a closed segment.
        let p = Partition::new(codec);
        let hit = p.batch_in(p.segments.len() - 1, 1);
        assert!(
            index_positions(p.active())
                .iter()
                .any(|&at| at > hit.position),
            "{codec:?}: the test needs an index entry after the damage"
        );
        patch(&hit.segment, hit.position, &[0; 64]);
        let case = format!("{codec:?}, a zeroed batch in the middle of the active segment");
        let run = p.consume(&[]);
        let stderr = run.fails();
        assert_records(&run.stdout, 0, hit.base, &case);
        assert!(stderr.contains(&invalid_at(hit.base)), "{case}: {stderr}");

        // The same in a closed segment is corruption: the records before it, then the error.
        let p = Partition::new(codec);
        let hit = p.batch_in(1, 1);
        patch(&hit.segment, hit.position, &[0; 64]);
        let case = format!("{codec:?}, a zeroed batch in a closed segment");
        let run = p.consume(&[]);
        let stderr = run.fails();
        assert_records(&run.stdout, 0, hit.base, &case);
        assert!(stderr.contains(&invalid_at(hit.base)), "{case}: {stderr}");
        assert!(
            stderr.contains("Found record size 0 smaller than minimum record overhead (14)"),
            "{case}: {stderr}"
        );
    }
}

#[test]
fn a_sparse_active_segment_serves_its_batches_before_the_hole() {
    for codec in CODECS {
        let p = Partition::new(codec);
        let first = p.batch_in(p.segments.len() - 1, 0);
        set_len(&first.segment, first.position + first.size);
        set_len(&first.segment, first.position + first.size + (1 << 20));
        let case = format!("{codec:?}");
        let run = p.consume(&[]);
        run.ok();
        assert_records(&run.stdout, 0, first.base + PER_BATCH, &case);
        assert!(
            run.stderr.contains("WARN Found invalid messages"),
            "{case}: {}",
            run.stderr
        );
        assert_eq!(
            p.latest().ok(),
            format!("t:0:{}\n", first.base + PER_BATCH),
            "{case}"
        );
    }
}

#[test]
fn index_entries_past_the_end_of_a_truncated_log_are_not_believed() {
    for codec in CODECS {
        let p = Partition::new(codec);
        let active = p.active().to_path_buf();
        let index = active.with_extension("index");
        let entries = fs::metadata(&index).expect("index").len() / 8;
        assert!(entries >= 3, "{codec:?}: {entries} index entries");
        // What a power loss leaves: the index reached the disk, the log's tail did not.
        let keep = p.batch_in(p.segments.len() - 1, 2);
        set_len(&active, keep.position + keep.size);
        let end = keep.base + PER_BATCH;
        let case = format!("{codec:?}");
        assert_eq!(p.latest().ok(), format!("t:0:{end}\n"), "{case}");
        let run = p.consume_from(end - 5);
        run.ok();
        assert_records(&run.stdout, end - 5, end, &case);
        let run = p.consume(&[]);
        run.ok();
        assert_records(&run.stdout, 0, end, &case);
    }
}

#[test]
fn a_partial_batch_at_the_end_of_a_closed_segment_is_corruption() {
    let p = Partition::new(Compression::None);
    let last_of_first = p
        .batches
        .iter()
        .rfind(|b| b.segment == p.segments[0])
        .expect("a batch")
        .clone();
    set_len(&last_of_first.segment, last_of_first.position + 30);
    let run = p.consume(&[]);
    let stderr = run.fails();
    assert_records(&run.stdout, 0, last_of_first.base, "closed segment cut");
    assert!(stderr.contains(&invalid_at(last_of_first.base)), "{stderr}");
    assert!(
        stderr.contains("that do not form a record batch"),
        "{stderr}"
    );
}
