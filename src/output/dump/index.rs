//! Offset indexes (`.index`, §17.1) and time indexes (`.timeindex`, §17.2): their entries,
//! read by [`crate::log::index`], each checked against the segment's `.log` as Kafka's tool
//! checks it, and Kafka's sanity check.

use std::fs::File;
use std::io::{self, ErrorKind};
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::event::{DumpEvent, IndexStatus, ProblemKind};
use super::printer::Printer;
use super::{prefix, Dumper};
use crate::log::index::{IndexEntry, IndexFile};
use crate::log::{LogError, OffsetIndex, OffsetPosition, SegmentReader, TimestampOffset};
use crate::record::{RecordError, HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, RECORD_OVERHEAD_V0};

/// A segment's `.log` that an index is checked against, and its length as last seen. A writer
/// of a live segment appends a batch to the log before it adds the index entries that name
/// it, so an entry read after the length was taken may name a batch past it.
struct LiveLog {
    file: File,
    len: u64,
}

impl LiveLog {
    fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(Self { file, len })
    }

    /// `check` against the log as last seen; when it does not `pass` and the log has grown
    /// since, once more against the log as it is now.
    fn check<T>(&mut self, check: impl Fn(&File, u64) -> T, pass: impl Fn(&T) -> bool) -> T {
        let found = check(&self.file, self.len);
        if pass(&found) {
            return found;
        }
        match self.file.metadata() {
            Ok(m) if m.len() > self.len => {
                self.len = m.len();
                check(&self.file, self.len)
            }
            _ => found,
        }
    }
}

/// An index entry read again until two reads agree (at most four reads in all): the writer of
/// a live segment may have been writing it through its map as it was first read (its offset
/// there, its position or timestamp not yet). A static file reads the same every time.
fn settled<T: PartialEq>(first: T, mut read: impl FnMut() -> Result<T, LogError>) -> T {
    let mut last = first;
    for _ in 0..3 {
        match read() {
            Ok(again) if again == last => break,
            Ok(again) => {
                last = again;
                std::thread::yield_now();
            }
            Err(_) => break,
        }
    }
    last
}

/// Why an offset-index entry's position holds no batch to compare with.
#[derive(Debug, thiserror::Error)]
enum NotInLog {
    #[error("the position is outside the log ({0} bytes)")]
    Outside(u64),
    #[error("no batch starts there")]
    NoBatch,
    #[error("Found record size {0} smaller than minimum record overhead (14)")]
    TooSmall(i32),
    #[error("no whole batch starts there within --max-message-size")]
    NotWhole,
    #[error("batch too short for its header")]
    ShortHeader,
    #[error("{0}")]
    Io(#[from] io::Error),
}

fn be_i32(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be_i64(b: &[u8], at: usize) -> Option<i64> {
    Some(i64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The last offset of the batch at `position` of the log, read as Kafka's index dump does: the
/// first batch of the slice `[position, position + max_message_size)`.
fn first_batch_last_offset(
    log: &File,
    log_len: u64,
    position: i32,
    max_message_size: i64,
) -> Result<i64, NotInLog> {
    let start = u64::try_from(position)
        .ok()
        .filter(|&start| start <= log_len)
        .ok_or(NotInLog::Outside(log_len))?;
    let end = log_len.min(start.saturating_add(max_message_size as u64));
    let mut head = [0u8; 61];
    let avail = (end - start).min(61) as usize;
    let head = head.get_mut(..avail).unwrap_or_default();
    log.read_exact_at(head, start)?;
    if (end - start) <= HEADER_SIZE_UP_TO_MAGIC as u64 {
        return Err(NotInLog::NoBatch);
    }
    let size = be_i32(head, 8).unwrap_or_default();
    if size < RECORD_OVERHEAD_V0 as i32 {
        return Err(NotInLog::TooSmall(size));
    }
    if start + LOG_OVERHEAD as u64 + size as u64 > end {
        return Err(NotInLog::NotWhole);
    }
    let base = be_i64(head, 0).unwrap_or_default();
    let magic = head.get(16).copied().unwrap_or_default() as i8;
    if magic >= 2 {
        let delta = be_i32(head, 23).ok_or(NotInLog::ShortHeader)?;
        Ok(base.wrapping_add(i64::from(delta)))
    } else {
        Ok(base)
    }
}

/// Why a time-index entry's batch could not be read.
#[derive(Debug, thiserror::Error)]
enum ScanError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// What a time-index entry's offset leads to in the log.
enum Found {
    /// No batch ends at or after it.
    None,
    /// The first batch ending at or after it ends elsewhere, at this offset.
    Other(i64),
    /// The batch that ends at it.
    Batch {
        /// Its largest record timestamp.
        max_timestamp: i64,
        /// Where it starts.
        position: u64,
    },
    /// A batch that cannot be read, at this position.
    Error(u64, ScanError),
}

/// Kafka's time-index check: from `start`, the first batch whose last offset is at least
/// `offset`, and its largest record timestamp.
fn find_batch_max_timestamp(
    log: &File,
    path: &Path,
    log_len: u64,
    start: u64,
    offset: i64,
) -> Found {
    let file = match log.try_clone() {
        Ok(f) => f,
        Err(e) => return Found::Error(start, LogError::io("reading", path)(e).into()),
    };
    let mut reader = SegmentReader::new(file, path, start, log_len).with_window(8 << 10);
    loop {
        match reader.next_batch() {
            Ok(Some((pos, batch))) => {
                if batch.last_offset() < offset {
                    continue;
                }
                if batch.last_offset() != offset {
                    return Found::Other(batch.last_offset());
                }
                let mut max = -1i64;
                let records = match batch.record_iter() {
                    Ok(records) => records,
                    Err(e) => return Found::Error(pos, e.into()),
                };
                for r in records {
                    match r {
                        Ok(r) => max = max.max(r.timestamp),
                        Err(e) => return Found::Error(pos, e.into()),
                    }
                }
                return Found::Batch {
                    max_timestamp: max,
                    position: pos,
                };
            }
            Ok(None) => return Found::None,
            Err(e) => return Found::Error(reader.position(), e.into()),
        }
    }
}

impl<P: Printer> Dumper<'_, '_, P> {
    /// Opens an index with every slot an entry (as Kafka's tool sees it).
    fn open_index<E: IndexEntry>(
        &mut self,
        path: &Path,
        base: i64,
    ) -> io::Result<Option<IndexFile<E>>> {
        match IndexFile::<E>::open_all_slots(path, base) {
            Ok(index) => Ok(Some(index)),
            Err(e) => {
                self.io_problem(None, e.to_string())?;
                Ok(None)
            }
        }
    }

    /// Opens the segment's `.log` an index is checked against.
    fn open_live_log(&mut self, log_path: &Path, what: &str) -> io::Result<Option<LiveLog>> {
        match LiveLog::open(log_path) {
            Ok(log) => Ok(Some(log)),
            Err(e) => {
                let msg = format!(
                    "cannot check the {what} against {}: {e}",
                    log_path.display()
                );
                self.io_problem(None, msg)?;
                Ok(None)
            }
        }
    }

    /// An `.index`: each entry, and the last offset of the batch at its position.
    pub(super) fn dump_index(&mut self, path: &Path, name: &str) -> io::Result<()> {
        let Some(base) = self.base_offset(name)? else {
            return Ok(());
        };
        let Some(index) = self.open_index::<OffsetPosition>(path, base)? else {
            return Ok(());
        };
        if index.entries() == 0 {
            let text = format!("{} is empty.", self.display);
            return self.emit(&DumpEvent::IndexStatus {
                status: IndexStatus::Empty,
                text,
            });
        }
        if self.args.index_sanity_check {
            return self.sanity_check::<OffsetPosition>(base);
        }
        let log_path = path.with_file_name(format!("{}.log", prefix(name)));
        let mut log = self.open_live_log(&log_path, "index")?;
        let max_message_size = self.args.max_message_size;
        for (i, entry) in index.iter().enumerate() {
            let at = (i * OffsetPosition::SIZE) as u64;
            let mut entry = match entry {
                Ok(entry) => entry,
                Err(e) => return self.entry_unreadable(at, e),
            };
            if i > 0 && entry.offset == base {
                break;
            }
            let mut log_offset = None;
            if let Some(log) = &mut log {
                let check = |log: &mut LiveLog, position: i32| {
                    log.check(
                        |file, len| first_batch_last_offset(file, len, position, max_message_size),
                        Result::is_ok,
                    )
                };
                let mut found = check(log, entry.position as i32);
                if !matches!(found, Ok(last) if last == entry.offset) {
                    let again = settled(entry, || index.entry(i));
                    if again != entry {
                        entry = again;
                        if i > 0 && entry.offset == base {
                            break;
                        }
                        found = check(log, entry.position as i32);
                    }
                }
                let (offset, position) = (entry.offset, entry.position as i32);
                match found {
                    Ok(found) => {
                        if found != offset {
                            let kind = ProblemKind::IndexMismatch {
                                index_offset: offset,
                                log_offset: found,
                            };
                            let msg = format!("Index offset: {offset}, log offset: {found}");
                            self.finding(Some(at), kind, msg)?;
                        }
                        log_offset = Some(found);
                    }
                    Err(e) => {
                        let msg =
                            format!("index entry {i} (offset {offset}, position {position}): {e}");
                        self.problem(Some(at), ProblemKind::IndexEntryNotInLog, msg, true)?;
                    }
                }
            }
            if !self.args.verify_index_only {
                self.emit(&DumpEvent::IndexEntry {
                    offset: entry.offset,
                    position: entry.position as i32,
                    log_offset,
                })?;
            }
        }
        Ok(())
    }

    /// `--index-sanity-check`: Kafka's check of an index as Kafka sees it (every slot an entry),
    /// reported with the absolute path Kafka's messages carry.
    fn sanity_check<E: IndexEntry>(&mut self, base: i64) -> io::Result<()> {
        let problem = IndexFile::<E>::open_all_slots(Path::new(&self.absolute), base)
            .and_then(|index| index.sanity_problem());
        match problem {
            Ok(Some((at, message))) => {
                self.problem(Some(at), ProblemKind::CorruptIndex, message, true)
            }
            Ok(None) => {
                let text = format!("{} passed sanity check.", self.display);
                self.emit(&DumpEvent::IndexStatus {
                    status: IndexStatus::SanityCheckPassed,
                    text,
                })
            }
            Err(e) => self.io_problem(None, e.to_string()),
        }
    }

    /// A `.timeindex`: each entry, checked against the batch that ends at its offset.
    pub(super) fn dump_time_index(&mut self, path: &Path, name: &str) -> io::Result<()> {
        let Some(base) = self.base_offset(name)? else {
            return Ok(());
        };
        let Some(time_index) = self.open_index::<TimestampOffset>(path, base)? else {
            return Ok(());
        };
        if self.args.index_sanity_check {
            return self.sanity_check::<TimestampOffset>(base);
        }
        let log_path = path.with_file_name(format!("{}.log", prefix(name)));
        let index_path = path.with_file_name(format!("{}.index", prefix(name)));
        let mut log = self.open_live_log(&log_path, "time index")?;
        // A missing offset index means every lookup starts at the beginning of the log.
        let index = OffsetIndex::open_read_only(&index_path, base).ok();
        let mut prev_ts: i64 = -1;
        // The previous entry's offset, where its search started and where its batch was found.
        // An entry at or past that offset whose lookup starts at the same place is searched
        // from that batch on: the batches before it end below the offset, so Kafka's scan from
        // the lookup would pass them all. Without an `.index` every lookup starts at 0, and each
        // entry rescanned the log from its start (quadratic in the entries).
        let mut resume: Option<(i64, u64, u64)> = None;
        for (i, entry) in time_index.iter().enumerate() {
            let at = (i * TimestampOffset::SIZE) as u64;
            let mut entry = match entry {
                Ok(entry) => entry,
                Err(e) => return self.entry_unreadable(at, e),
            };
            if i > 0 && entry.offset == base {
                break;
            }
            if let Some(log) = &mut log {
                let check = |log: &mut LiveLog, offset: i64| {
                    let start = index
                        .as_ref()
                        .and_then(|idx| idx.lookup(offset).ok())
                        .map_or(0, |e| u64::from(e.position));
                    let from = match resume {
                        Some((prev, prev_start, at)) if offset >= prev && start == prev_start => at,
                        _ => start,
                    };
                    let found = log.check(
                        |file, len| find_batch_max_timestamp(file, &log_path, len, from, offset),
                        |found| matches!(found, Found::Batch { .. }),
                    );
                    (start, found)
                };
                let (mut start, mut found) = check(log, entry.offset);
                if !matches!(found, Found::Batch { max_timestamp, .. } if max_timestamp == entry.timestamp)
                {
                    let again = settled(entry, || time_index.entry(i));
                    if again != entry {
                        entry = again;
                        if i > 0 && entry.offset == base {
                            break;
                        }
                        (start, found) = check(log, entry.offset);
                    }
                }
                let TimestampOffset { timestamp, offset } = entry;
                match found {
                    Found::None => self.time_index_error(at, offset, -1)?,
                    Found::Other(last) => self.time_index_error(at, offset, last)?,
                    Found::Batch {
                        max_timestamp,
                        position,
                    } => {
                        resume = Some((offset, start, position));
                        if max_timestamp != timestamp {
                            let kind = ProblemKind::TimeIndexMismatch {
                                index_timestamp: timestamp,
                                log_timestamp: max_timestamp,
                            };
                            let msg = format!(
                                "Index timestamp: {timestamp}, log timestamp: {max_timestamp}"
                            );
                            self.finding(Some(at), kind, msg)?;
                        }
                        if prev_ts >= timestamp {
                            let kind = ProblemKind::TimeIndexOutOfOrder {
                                index_timestamp: timestamp,
                                previous_timestamp: prev_ts,
                            };
                            let msg = format!("Index timestamp: {timestamp}, Previously indexed timestamp: {prev_ts}");
                            self.finding(Some(at), kind, msg)?;
                        }
                    }
                    Found::Error(p, e) => {
                        self.problem(Some(p), ProblemKind::CorruptBatch, e.to_string(), true)?;
                    }
                }
            }
            if !self.args.verify_index_only {
                self.emit(&DumpEvent::TimeIndexEntry {
                    timestamp: entry.timestamp,
                    offset: entry.offset,
                })?;
            }
            prev_ts = entry.timestamp;
        }
        Ok(())
    }

    /// A time-index offset that no batch ends at (`log_offset`: where the batch found ends,
    /// -1 for none).
    fn time_index_error(&mut self, at: u64, offset: i64, log_offset: i64) -> io::Result<()> {
        let kind = ProblemKind::TimeIndexOffsetNotFound {
            index_offset: offset,
            log_offset,
        };
        let msg = format!("Indexed offset: {offset}, found log offset: {log_offset}");
        self.finding(Some(at), kind, msg)
    }

    /// An index entry at byte `at` could not be read. Reaching the end of the file there means
    /// the file was shorter when read than when it was opened (entries are only read within
    /// the length seen at opening): it was trimmed under the dump (a writer closing its live
    /// segment), and its entries end there. (Its length now proves nothing: a writer reopening
    /// the segment grows it again.) Any other error is this file's problem, and the dump goes
    /// on with the next file.
    fn entry_unreadable(&mut self, at: u64, e: LogError) -> io::Result<()> {
        if let LogError::Io { source, .. } = &e {
            if source.kind() == ErrorKind::UnexpectedEof {
                return Ok(());
            }
        }
        self.io_problem(Some(at), format!("cannot read the entry at byte {at}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_settles_when_two_reads_agree() {
        let mut reads = [1, 2, 2, 3].into_iter();
        assert_eq!(settled(0, || Ok(reads.next().unwrap())), 2);
        assert_eq!(settled(5, || Ok(5)), 5);
    }
}
