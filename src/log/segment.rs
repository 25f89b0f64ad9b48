//! One segment: a `.log` file of batches and its `.index` and `.timeindex`, following Kafka's
//! `LogSegment` rules for appending, indexing, rolling and recovery.

use std::cell::OnceCell;
use std::fs::{self, File, OpenOptions};
use std::io::{IoSlice, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::config::LogConfig;
use super::error::{LogError, Result};
use super::index::{IndexEntry, OffsetIndex, OffsetPosition, TimeIndex};
use super::os;
use super::reader::{ReadChecks, SegmentReader};
use crate::record::{HEADER_SIZE_UP_TO_MAGIC, LOG_OVERHEAD, MAGIC_V2, RECORD_OVERHEAD_V0};

/// One batch of [`LogSegment::append_all`]: its bytes, already holding their final offsets, and
/// what [`LogSegment::append`] takes beside them.
#[derive(Debug, Clone, Copy)]
pub struct SegmentAppend<'a> {
    /// The batch.
    pub bytes: &'a [u8],
    /// Its last offset.
    pub largest_offset: i64,
    /// Its max timestamp.
    pub largest_timestamp: i64,
    /// The offset that has that timestamp.
    pub offset_of_largest_timestamp: i64,
}

/// Appended bytes after which the kernel is asked to start writing them to disk (as RocksDB's
/// `bytes_per_sync`): a long run of appends then reaches its next fsync with little left to
/// write.
const WRITEBACK_BYTES: u64 = 8 << 20;

/// File name of a segment file: the base offset as 20 zero-padded digits plus the suffix.
pub fn file_name(base_offset: i64, suffix: &str) -> String {
    FileName(base_offset, suffix).to_string()
}

/// [`file_name`] as it is written, for a caller that writes it into a buffer of its own.
#[derive(Debug, Clone, Copy)]
pub struct FileName<'a>(pub i64, pub &'a str);

impl std::fmt::Display for FileName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:020}{}", self.0, self.1)
    }
}

/// The base offset in a segment file name (`00000000000000000042.log` → 42).
pub fn parse_base_offset(name: &str) -> Option<i64> {
    let digits = name.split('.').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Whether a log entry's header at `position` of `log` (of `size` bytes) is one: a size of at
/// least Kafka's smallest entry, a known magic, and the whole entry inside the file.
fn frames_batch_at(log: &File, position: u64, size: u64) -> bool {
    let mut header = [0u8; HEADER_SIZE_UP_TO_MAGIC];
    if log.read_exact_at(&mut header, position).is_err() {
        return false;
    }
    let length = i32::from_be_bytes([header[8], header[9], header[10], header[11]]);
    let magic = header[HEADER_SIZE_UP_TO_MAGIC - 1];
    // A negative length fails the conversion.
    u64::try_from(length).is_ok_and(|length| {
        length >= RECORD_OVERHEAD_V0 as u64
            && magic <= MAGIC_V2.cast_unsigned()
            && position + (LOG_OVERHEAD as u64) + length <= size
    })
}

/// Where a read starts: the batch holding the wanted offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPosition {
    /// Byte position of the batch in the `.log`.
    pub position: u64,
    /// The batch's last offset.
    pub last_offset: i64,
}

/// One segment of a partition.
#[derive(Debug)]
pub struct LogSegment {
    base_offset: i64,
    log_path: PathBuf,
    /// Shared with the segment's readers ([`Self::reader_at`]): a reader costs no system call.
    log: Arc<File>,
    size: u64,
    offset_index: OffsetIndex,
    /// A writer's is opened with the segment; a reader's on first use (a log end, what most
    /// readers ask of the last segment, never needs it).
    time_index: OnceCell<TimeIndex>,
    writable: bool,
    index_interval_bytes: u64,
    bytes_since_last_index_entry: u64,
    /// The `.log` below this position is synced, or its writeback has been started.
    written_back: u64,
    /// How far behind the end writeback is started, every [`WRITEBACK_BYTES`]. None when the
    /// topic's `flush.messages` or `flush.ms` will fsync the data anyway; otherwise only the
    /// roll will, and a quarter of `segment.bytes`: the roll's fsync waits for at most that
    /// much, and a run smaller than that leaves writeback to the kernel (as `acks` 0 and 1
    /// leave it at the end of the run), as any program writing a file does.
    writeback_lag: u64,
    /// Largest batch max-timestamp in the segment and the last offset of that batch.
    max_timestamp_so_far: i64,
    offset_of_max_timestamp_so_far: i64,
    /// Max timestamp of the first batch: segment age for `segment.ms` is measured from it.
    rolling_based_timestamp: Option<i64>,
    created_ms: i64,
    /// The rules every reader of this segment holds its batches to (a consumer's view).
    read_checks: Option<ReadChecks>,
}

impl LogSegment {
    /// Opens (creating if needed) the segment at `base_offset` in `dir` for appending: its
    /// indexes are memory-mapped and preallocated to `segment.index.bytes`.
    pub fn open_writable(
        dir: &Path,
        base_offset: i64,
        config: &LogConfig,
        now_ms: i64,
    ) -> Result<Self> {
        Self::open_writable_suffixed(dir, base_offset, config, now_ms, "")
    }

    /// [`Self::open_writable`] with `suffix` after each file's name (`.cleaned`: a cleaning's
    /// output, Kafka's `LogSegment.open(..., fileSuffix)`).
    pub fn open_writable_suffixed(
        dir: &Path,
        base_offset: i64,
        config: &LogConfig,
        now_ms: i64,
        suffix: &str,
    ) -> Result<Self> {
        let log_path = dir.join(file_name(base_offset, &format!(".log{suffix}")));
        let log = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&log_path)
            .map_err(LogError::io("opening segment", &log_path))?;
        let offset_index = OffsetIndex::open_writable(
            &dir.join(file_name(base_offset, &format!(".index{suffix}"))),
            base_offset,
            config.segment_index_bytes,
        )?;
        let time_index = TimeIndex::open_writable(
            &dir.join(file_name(base_offset, &format!(".timeindex{suffix}"))),
            base_offset,
            config.segment_index_bytes,
        )?;
        Self::assemble(
            log_path,
            log,
            base_offset,
            offset_index,
            OnceCell::from(time_index),
            true,
            config,
            now_ms,
        )
    }

    /// Opens an existing segment for reading only: no map, no change to any file. Missing index
    /// files read as empty indexes (lookups then scan from the start of the segment). The time
    /// index is opened when first asked for ([`Self::time_index`]).
    pub fn open_read_only(dir: &Path, base_offset: i64) -> Result<Self> {
        Self::open_read_only_suffixed(dir, base_offset, "")
    }

    /// [`Self::open_read_only`] of the files named with `suffix` after their usual name (a
    /// cleaning's `.swap` files, which readers take for the segments they replace).
    pub fn open_read_only_suffixed(dir: &Path, base_offset: i64, suffix: &str) -> Result<Self> {
        let name = |kind: &str| dir.join(file_name(base_offset, &format!("{kind}{suffix}")));
        let log_path = name(".log");
        let log = File::open(&log_path).map_err(LogError::io("opening segment", &log_path))?;
        let offset_index = Self::read_only_index(&name(".index"), base_offset)?;
        Self::assemble(
            log_path,
            log,
            base_offset,
            offset_index,
            OnceCell::new(),
            false,
            &LogConfig::default(),
            0,
        )
    }

    /// Makes every reader of this read-only segment a checked one ([`SegmentReader::checked`]):
    /// `next_base_offset` is the next segment's, `active` says whether this is the last one.
    /// Leaves out the offset-index entries that point at or past the end of the `.log`, and the
    /// last ones that point at no batch (zeros, a hole): what a power loss leaves when the index
    /// reached the disk and the log did not. Lookups then start from the last entry that names
    /// a batch and find the real end by reading.
    pub fn with_read_checks(mut self, next_base_offset: Option<i64>, active: bool) -> Result<Self> {
        let size = self.size;
        self.offset_index
            .keep_entries_while(|entry| u64::from(entry.position) < size)?;
        let log = &self.log;
        self.offset_index.drop_last_entries_while(|entry| {
            !frames_batch_at(log, u64::from(entry.position), size)
        })?;
        let last_entry = u64::from(self.offset_index.last_entry()?.position);
        self.read_checks = Some(ReadChecks {
            base_offset: self.base_offset,
            next_base_offset,
            torn_tail_from: active.then_some(last_entry),
        });
        Ok(self)
    }

    fn read_only_index<E: IndexEntry>(
        path: &Path,
        base_offset: i64,
    ) -> Result<super::index::IndexFile<E>> {
        match super::index::IndexFile::open_read_only(path, base_offset) {
            Err(LogError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                // An absent index is an empty one; /dev/null gives a zero-length read-only file.
                super::index::IndexFile::open_read_only(Path::new("/dev/null"), base_offset)
            }
            opened => opened,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        log_path: PathBuf,
        log: File,
        base_offset: i64,
        offset_index: OffsetIndex,
        time_index: OnceCell<TimeIndex>,
        writable: bool,
        config: &LogConfig,
        now_ms: i64,
    ) -> Result<Self> {
        let size = log
            .metadata()
            .map_err(LogError::io("reading the size of", &log_path))?
            .len();
        // What only a writer needs: its max timestamp so far (the time index's last entry) and
        // the first batch's (for `segment.ms`). A reader's open reads nothing but sizes.
        let last_time = match time_index.get() {
            Some(time_index) if writable => time_index.last_entry()?,
            _ => <super::index::TimestampOffset as IndexEntry>::empty(base_offset),
        };
        let mut segment = LogSegment {
            base_offset,
            log_path,
            log: Arc::new(log),
            size,
            offset_index,
            time_index,
            writable,
            index_interval_bytes: u64::from(config.index_interval_bytes),
            bytes_since_last_index_entry: 0,
            written_back: size,
            writeback_lag: if config.flush_messages < i64::MAX || config.flush_ms < i64::MAX {
                0
            } else {
                u64::from(config.segment_bytes / 4)
            },
            max_timestamp_so_far: last_time.timestamp,
            offset_of_max_timestamp_so_far: last_time.offset,
            rolling_based_timestamp: None,
            created_ms: now_ms,
            read_checks: None,
        };
        if writable {
            segment.rolling_based_timestamp = segment.first_batch_max_timestamp()?;
        }
        Ok(segment)
    }

    fn first_batch_max_timestamp(&self) -> Result<Option<i64>> {
        let mut reader = self.reader_at(0)?;
        Ok(match reader.next_batch() {
            Ok(Some((_, batch))) => Some(batch.max_timestamp()),
            _ => None,
        })
    }

    /// The segment's base offset.
    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    /// Size of the `.log` in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether the files are as this segment left them: the `.log` has the size it knows and
    /// the indexes the lengths it maps. Another writer of the partition changes one of them
    /// whenever it appends, rolls or closes.
    pub fn unchanged_on_disk(&self) -> Result<bool> {
        let len = self
            .log
            .metadata()
            .map_err(LogError::io("reading the size of", &self.log_path))?
            .len();
        Ok(len == self.size
            && self.offset_index.unchanged_on_disk()?
            && self.time_index()?.unchanged_on_disk()?)
    }

    /// Whether the `.log` file's name still names the file this segment has open (same device
    /// and inode). A partition deleted and created again has new files under the old names;
    /// an open file's inode cannot be reused while it is open, so this cannot be fooled.
    pub fn same_file_on_disk(&self) -> Result<bool> {
        use std::os::unix::fs::MetadataExt;
        let open = self
            .log
            .metadata()
            .map_err(LogError::io("reading the size of", &self.log_path))?;
        Ok(match std::fs::metadata(&self.log_path) {
            Ok(named) => (named.dev(), named.ino()) == (open.dev(), open.ino()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(LogError::io("reading", &self.log_path)(e)),
        })
    }

    /// The `.log` file.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The offset index.
    pub fn offset_index(&self) -> &OffsetIndex {
        &self.offset_index
    }

    /// The time index (a reader's is opened on the first call; missing, it reads as empty).
    pub fn time_index(&self) -> Result<&TimeIndex> {
        if let Some(index) = self.time_index.get() {
            return Ok(index);
        }
        // `<base>.timeindex`, or with the `.log`'s suffix (`<base>.timeindex.swap`).
        let name = self
            .log_path
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| n.replacen(".log", ".timeindex", 1))
            .unwrap_or_default();
        let path = self.log_path.with_file_name(name);
        let index = Self::read_only_index(&path, self.base_offset)?;
        Ok(self.time_index.get_or_init(|| index))
    }

    /// The time index, to change (a writer's, opened with the segment).
    fn time_index_mut(&mut self) -> Result<&mut TimeIndex> {
        self.time_index()?;
        self.time_index.get_mut().ok_or_else(|| LogError::ReadOnly {
            kind: None,
            path: self.log_path.clone(),
        })
    }

    /// Largest timestamp in the segment so far (-1 when none), as a writer tracks it: a
    /// read-only segment does not read it at open ([`Self::largest_timestamp`] does).
    pub fn max_timestamp(&self) -> i64 {
        self.max_timestamp_so_far
    }

    /// Largest timestamp in the segment (-1 when none): a writer's tracked one, else the time
    /// index's last entry (Kafka's `maxTimestampSoFar` of a loaded segment), read on demand.
    pub fn largest_timestamp(&self) -> Result<i64> {
        if self.writable {
            return Ok(self.max_timestamp_so_far);
        }
        Ok(self.time_index()?.last_entry()?.timestamp)
    }

    /// A reader over this segment's batches from byte `position` to the current end.
    pub fn reader_at(&self, position: u64) -> Result<SegmentReader> {
        let reader = SegmentReader::new(Arc::clone(&self.log), &self.log_path, position, self.size);
        Ok(match self.read_checks {
            Some(checks) => reader.checked(checks),
            None => reader,
        })
    }

    /// Kafka's `LogSegment.append`: writes `batch` (already holding its final offsets) at the end
    /// of the `.log`, then adds index entries when more than `index.interval.bytes` were
    /// appended since the last entry.
    pub fn append(
        &mut self,
        batch: &[u8],
        largest_offset: i64,
        largest_timestamp: i64,
        offset_of_largest_timestamp: i64,
    ) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        self.append_all(&[SegmentAppend {
            bytes: batch,
            largest_offset,
            largest_timestamp,
            offset_of_largest_timestamp,
        }])
    }

    /// [`Self::append`] for batches that follow each other, in one vectored write (the kernel
    /// then fills large page-cache folios instead of one page at a time). All or nothing: when
    /// the write fails none of them stays, so no offset is ever written twice. The caller makes
    /// sure they fit the segment and its indexes ([`Self::should_roll`], [`Self::index_room`]).
    pub fn append_all(&mut self, batches: &[SegmentAppend<'_>]) -> Result<()> {
        let Some(last) = batches.last() else {
            return Ok(());
        };
        self.check_writable()?;
        self.ensure_offset_in_range(last.largest_offset)?;
        let physical_position = self.size;
        let saved = (
            self.rolling_based_timestamp,
            self.max_timestamp_so_far,
            self.offset_of_max_timestamp_so_far,
            self.bytes_since_last_index_entry,
        );
        let entries = (self.offset_index.entries(), self.time_index()?.entries());
        let written = match batches {
            [one] => self.log.write_all_at(one.bytes, physical_position),
            _ => self.write_all_vectored_at(batches, physical_position),
        };
        let result = written
            .map_err(LogError::io("appending to", &self.log_path))
            .and_then(|()| batches.iter().try_for_each(|b| self.account(b)));
        if result.is_err() {
            // Index entries an earlier batch of the group added go with the bytes they name.
            let _ = self.offset_index.truncate_to_entries(entries.0);
            let _ = self
                .time_index_mut()
                .and_then(|time_index| time_index.truncate_to_entries(entries.1));
            let _ = self.log.set_len(physical_position);
            self.size = physical_position;
            self.written_back = self.written_back.min(physical_position);
            (
                self.rolling_based_timestamp,
                self.max_timestamp_so_far,
                self.offset_of_max_timestamp_so_far,
                self.bytes_since_last_index_entry,
            ) = saved;
        }
        result
    }

    fn write_all_vectored_at(
        &self,
        batches: &[SegmentAppend<'_>],
        position: u64,
    ) -> std::io::Result<()> {
        let mut slices: Vec<IoSlice<'_>> = batches.iter().map(|b| IoSlice::new(b.bytes)).collect();
        let mut slices = slices.as_mut_slice();
        let mut file = &*self.log;
        file.seek(SeekFrom::Start(position))?;
        while !slices.is_empty() {
            match file.write_vectored(slices) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => IoSlice::advance_slices(&mut slices, n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// What a written batch changes: the size, the timestamps, index entries, writeback.
    fn account(&mut self, batch: &SegmentAppend<'_>) -> Result<()> {
        let physical_position = self.size;
        self.size += batch.bytes.len() as u64;
        if self.rolling_based_timestamp.is_none() {
            self.rolling_based_timestamp = Some(batch.largest_timestamp);
        }
        if batch.largest_timestamp > self.max_timestamp_so_far {
            self.max_timestamp_so_far = batch.largest_timestamp;
            self.offset_of_max_timestamp_so_far = batch.offset_of_largest_timestamp;
        }
        if self.bytes_since_last_index_entry > self.index_interval_bytes {
            self.add_index_entries(batch.largest_offset, physical_position)?;
        }
        self.bytes_since_last_index_entry += batch.bytes.len() as u64;
        let unsynced = self.size.saturating_sub(self.written_back);
        if unsynced >= self.writeback_lag + WRITEBACK_BYTES {
            let len = unsynced - self.writeback_lag;
            os::start_writeback(&self.log, self.written_back, len);
            self.written_back += len;
        }
        Ok(())
    }

    /// How many more entries both indexes take (each append adds at most one to each).
    pub fn index_room(&self) -> usize {
        // A reader's segment (no time index opened) takes no appends.
        let time_room = self.time_index.get().map_or(0, |index| index.room());
        self.offset_index.room().min(time_room)
    }

    fn add_index_entries(&mut self, offset: i64, position: u64) -> Result<()> {
        let position = u32::try_from(position).map_err(|_| LogError::PositionOverflow {
            position,
            path: self.log_path.clone(),
        })?;
        self.offset_index.append_offset(offset, position)?;
        let (max_timestamp, offset_of_max) = (
            self.max_timestamp_so_far,
            self.offset_of_max_timestamp_so_far,
        );
        self.time_index_mut()?
            .maybe_append(max_timestamp, offset_of_max, false)?;
        self.bytes_since_last_index_entry = 0;
        Ok(())
    }

    fn check_writable(&self) -> Result<()> {
        if self.writable {
            Ok(())
        } else {
            Err(LogError::ReadOnly {
                kind: None,
                path: self.log_path.clone(),
            })
        }
    }

    fn ensure_offset_in_range(&self, offset: i64) -> Result<()> {
        if self.can_convert_to_relative_offset(offset) {
            Ok(())
        } else {
            Err(LogError::OffsetOverflow {
                offset,
                path: self.log_path.clone(),
            })
        }
    }

    /// True when `offset` fits an int32 relative to the base offset.
    pub fn can_convert_to_relative_offset(&self, offset: i64) -> bool {
        offset
            .checked_sub(self.base_offset)
            .is_some_and(|relative| (0..=i64::from(i32::MAX)).contains(&relative))
    }

    /// Kafka's `shouldRoll`: the next append of `messages_size` bytes must go to a new segment.
    pub fn should_roll(
        &self,
        config: &LogConfig,
        messages_size: u64,
        max_timestamp_in_messages: i64,
        max_offset_in_messages: i64,
        now_ms: i64,
    ) -> bool {
        let waited = match self.rolling_based_timestamp {
            // Java's long arithmetic wraps; so does this, rather than panic on hostile timestamps.
            Some(first) if first >= 0 => max_timestamp_in_messages.wrapping_sub(first),
            _ => now_ms.wrapping_sub(self.created_ms),
        };
        let reached_roll_ms = waited > config.segment_ms;
        self.size > u64::from(config.segment_bytes).saturating_sub(messages_size)
            || (self.size > 0 && reached_roll_ms)
            || self.offset_index.is_full()
            || self.time_index.get().is_some_and(|index| index.is_full())
            || !self.can_convert_to_relative_offset(max_offset_in_messages)
    }

    /// Kafka's `LogSegment.recover`: validates every batch from `from_offset` on (the whole
    /// segment when `None`), rebuilds the index entries those batches get, truncates the `.log`
    /// after the last valid batch and returns how many bytes were cut.
    ///
    /// With `Some(offset)` the scan starts at the offset-index entry at or below `offset` (data
    /// before it was validated and flushed earlier), which gives the same indexes as Kafka's
    /// full scan: when an offset-index entry is written, the time index's last entry holds the
    /// segment's max timestamp up to that batch, which is all the state the scan needs. Indexes
    /// that fail their sanity check are rebuilt from the start.
    pub fn recover(&mut self, from_offset: Option<i64>) -> Result<u64> {
        self.check_writable()?;
        let sane =
            self.offset_index.sanity_check().is_ok() && self.time_index()?.sanity_check().is_ok();
        let start = match from_offset {
            Some(offset) if sane => self.offset_index.lookup(offset)?,
            _ => OffsetPosition::empty(self.base_offset),
        };
        // Resume only at an entry that points at the start of the batch it names; a stale or
        // hostile index falls back to Kafka's full scan instead of cutting valid data.
        let start = if start.position == 0 || self.entry_points_at_batch(start)? {
            start
        } else {
            OffsetPosition::empty(self.base_offset)
        };
        if start.position == 0 {
            self.offset_index.reset()?;
            self.time_index_mut()?.reset()?;
        } else {
            // The entry's own batch is scanned again and re-adds the entry.
            self.offset_index.truncate_to(start.offset)?;
            self.time_index_mut()?.truncate_to(start.offset + 1)?;
        }
        let time = self.time_index()?.last_entry()?;
        self.max_timestamp_so_far = time.timestamp;
        self.offset_of_max_timestamp_so_far = time.offset;
        let mut valid_bytes = u64::from(start.position);
        let mut last_index_entry = valid_bytes;
        let mut reader = self.reader_at(valid_bytes)?;
        // A framing error ends the valid prefix just as a bad CRC does.
        while let Ok(Some((position, batch))) = reader.next_batch() {
            if batch.ensure_valid().is_err()
                || !self.can_convert_to_relative_offset(batch.last_offset())
            {
                break;
            }
            if position == 0 {
                self.rolling_based_timestamp = Some(batch.max_timestamp());
            }
            if batch.max_timestamp() > self.max_timestamp_so_far {
                self.max_timestamp_so_far = batch.max_timestamp();
                self.offset_of_max_timestamp_so_far = batch.last_offset();
            }
            let resumed_entry = start.position > 0 && position == u64::from(start.position);
            if resumed_entry || valid_bytes - last_index_entry > self.index_interval_bytes {
                self.add_index_entries(batch.last_offset(), valid_bytes)?;
                last_index_entry = valid_bytes;
            }
            valid_bytes += batch.size_in_bytes() as u64;
        }
        if valid_bytes == 0 {
            self.rolling_based_timestamp = None;
        }
        // Kafka ends recovery with the time-index entry a roll or close writes; here that entry
        // is written by `trim` when the segment rolls or the log closes. Written now, in the
        // middle of a segment that goes on taking appends, it would stay as an entry that no
        // rebuild from the `.log` reproduces. Readers never trust the active segment's time
        // index to end at its max timestamp (see `LogReader::offset_for_timestamp`).
        let truncated = self.size.saturating_sub(valid_bytes);
        if truncated > 0 {
            self.log
                .set_len(valid_bytes)
                .map_err(LogError::io("truncating", &self.log_path))?;
            self.size = valid_bytes;
            self.written_back = self.written_back.min(valid_bytes);
        }
        self.bytes_since_last_index_entry = valid_bytes - last_index_entry;
        Ok(truncated)
    }

    /// Kafka's `LogSegment.truncateTo`: cuts the segment before the batch holding `offset`
    /// (the first batch whose last offset is at least `offset`; a replica truncates at batch
    /// boundaries) and rebuilds its indexes and timestamps from what is left, as
    /// [`Self::recover`] does. Returns how many bytes were cut.
    pub fn truncate_to(&mut self, offset: i64) -> Result<u64> {
        self.check_writable()?;
        let Some(found) = self.translate_offset(offset)? else {
            return Ok(0);
        };
        let cut = self.size.saturating_sub(found.position);
        self.log
            .set_len(found.position)
            .map_err(LogError::io("truncating", &self.log_path))?;
        self.size = found.position;
        self.written_back = self.written_back.min(found.position);
        self.recover(None)?;
        Ok(cut)
    }

    /// True when an offset-index entry names the batch that starts at its position.
    fn entry_points_at_batch(&self, entry: OffsetPosition) -> Result<bool> {
        if u64::from(entry.position) >= self.size {
            return Ok(false);
        }
        let mut reader = self.reader_at(u64::from(entry.position))?;
        Ok(matches!(
            reader.next_batch(),
            Ok(Some((_, batch))) if batch.last_offset() == entry.offset
        ))
    }

    /// The batch holding `offset` (the first batch whose last offset is at least `offset`),
    /// found through the offset index and a forward scan from the entry it gives.
    pub fn translate_offset(&self, offset: i64) -> Result<Option<BatchPosition>> {
        let start = self.offset_index.lookup(offset)?;
        let mut reader = self.reader_at(u64::from(start.position))?;
        while let Some((position, batch)) = reader.next_batch()? {
            if batch.last_offset() >= offset {
                return Ok(Some(BatchPosition {
                    position,
                    last_offset: batch.last_offset(),
                }));
            }
        }
        Ok(None)
    }

    /// The first batch holding a record with a timestamp at least `timestamp`, through the time
    /// index (Kafka's `findOffsetByTimestamp`); returns the batch and its position.
    pub fn find_batch_by_timestamp(&self, timestamp: i64) -> Result<Option<(u64, Vec<u8>)>> {
        let entry = self.time_index()?.lookup(timestamp)?;
        let start = self.offset_index.lookup(entry.offset)?;
        let mut reader = self.reader_at(u64::from(start.position))?;
        while let Some((position, batch)) = reader.next_batch()? {
            if batch.max_timestamp() >= timestamp {
                return Ok(Some((position, batch.as_bytes().to_vec())));
            }
        }
        Ok(None)
    }

    /// The offset after the last batch (the segment's next offset), by reading from the last
    /// index entry on; `None` for an empty segment.
    pub fn read_next_offset(&self) -> Result<Option<i64>> {
        Ok(self.read_end()?.0)
    }

    /// [`Self::read_next_offset`], and where the reading stopped.
    ///
    /// Reading starts at the last offset-index entry; when no whole batch follows it (the batch
    /// it names was torn or zeroed by a crash), at the entry before, and so on.
    pub fn read_end(&self) -> Result<(Option<i64>, super::reader::Stop)> {
        let mut entries = self.offset_index.entries();
        loop {
            let start = match entries.checked_sub(1) {
                Some(last) => u64::from(self.offset_index.entry(last)?.position),
                None => 0,
            };
            let mut reader = self.reader_at(start)?;
            let mut next = None;
            while let Some((_, batch)) = reader.next_batch()? {
                next = Some(batch.next_offset());
            }
            if next.is_some() || entries == 0 {
                return Ok((next, reader.stop()));
            }
            entries -= 1;
        }
    }

    /// Writes the final time-index entry and trims both indexes to their entries: the segment
    /// is no longer the active one (Kafka's `onBecomeInactiveSegment`), or the log is closing.
    pub fn trim(&mut self) -> Result<()> {
        if !self.writable {
            return Ok(());
        }
        let (max_timestamp, offset_of_max) = (
            self.max_timestamp_so_far,
            self.offset_of_max_timestamp_so_far,
        );
        if max_timestamp >= 0 {
            self.time_index_mut()?
                .maybe_append(max_timestamp, offset_of_max, true)?;
        }
        self.offset_index.trim_to_valid_size()?;
        self.time_index_mut()?.trim_to_valid_size()?;
        Ok(())
    }

    /// Makes everything appended so far durable: the `.log` data and the index maps.
    pub fn flush(&mut self) -> Result<()> {
        if !self.writable {
            return Ok(());
        }
        self.log
            .sync_data()
            .map_err(LogError::io("syncing", &self.log_path))?;
        self.written_back = self.size;
        self.offset_index.flush()?;
        self.time_index_mut()?.flush()?;
        Ok(())
    }

    /// Deletes the segment's files (used for segments after a truncated one during recovery).
    pub fn delete(self) -> Result<()> {
        let dir = self
            .log_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let base = self.base_offset;
        drop(self);
        for suffix in [".log", ".index", ".timeindex", ".txnindex"] {
            let path = dir.join(file_name(base, suffix));
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(LogError::io("deleting", path)(e)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where writeback has been started after appending `chunks` MiB to a new segment.
    fn written_back_after(config: &LogConfig, chunks: i64) -> u64 {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut segment = LogSegment::open_writable(dir.path(), 0, config, 0).expect("open");
        let chunk = vec![0u8; 1 << 20];
        for offset in 0..chunks {
            segment.append(&chunk, offset, 0, offset).expect("append");
        }
        segment.written_back
    }

    #[test]
    fn writeback_starts_a_quarter_segment_behind_the_end_unless_a_flush_policy_is_set() {
        const MIB: u64 = 1 << 20;
        let rolled = LogConfig {
            segment_bytes: 64 << 20,
            ..LogConfig::default()
        };
        assert_eq!(written_back_after(&rolled, 23), 0);
        assert_eq!(written_back_after(&rolled, 24), 8 * MIB);
        assert_eq!(written_back_after(&rolled, 31), 8 * MIB);
        assert_eq!(written_back_after(&rolled, 32), 16 * MIB);
        let policy = LogConfig {
            flush_messages: 1_000_000,
            ..rolled.clone()
        };
        assert_eq!(written_back_after(&policy, 7), 0);
        assert_eq!(written_back_after(&policy, 8), 8 * MIB);
        let timed = LogConfig {
            flush_ms: 60_000,
            ..rolled
        };
        assert_eq!(written_back_after(&timed, 8), 8 * MIB);
    }
}
