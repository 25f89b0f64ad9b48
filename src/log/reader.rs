//! Streaming the batches of a `.log` file with plain positioned reads.
//!
//! The file is read through a window buffer; [`crate::record::batches`] frames the entries inside
//! the window exactly as Kafka's `FileLogInputStream` does, and the window slides (or grows, for
//! an entry larger than itself) until the end of the range. Memory stays at the window size plus
//! the largest entry, whatever the file size, and a file that another process is appending to or
//! truncating is never mapped.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::error::{LogError, OffsetDisorder, Result};
use crate::record::{RawBatch, RecordError, LOG_OVERHEAD, MAGIC_V2};

/// The first read is small, since a seek usually needs only a batch or two; each refill doubles
/// the window up to [`MAX_WINDOW`], large enough that syscalls are rare when streaming.
const FIRST_WINDOW: usize = 16 << 10;
/// The largest window (plus the largest entry, when one is bigger).
const MAX_WINDOW: usize = 1 << 20;
/// The largest log entry a reader loads: a batch is at most the topic's `max.message.bytes`
/// (1 MiB by default) and Kafka's producer and broker refuse larger ones long before this, so
/// a size field above it is damage, and reading it would only fill memory.
pub const MAX_ENTRY_BYTES: usize = 256 << 20;

/// Reads the batches of one `.log` file between two byte positions.
#[derive(Debug)]
pub struct SegmentReader {
    /// Shared with the segment that made the reader (positioned reads only: no shared cursor).
    file: Arc<File>,
    path: PathBuf,
    /// File position of `buf[0]`.
    buf_start: u64,
    /// The window; only `buf[..len]` holds file bytes. The vector never shrinks, so a refill
    /// does not zero the window again.
    buf: Vec<u8>,
    len: usize,
    /// Position of the next entry, relative to `buf`.
    cursor: usize,
    /// Where reading stops (file length or a `--max-bytes` limit).
    end: u64,
    window: usize,
    max_window: usize,
    /// The log's rules a reader holds the batches to, when it reads as a consumer does.
    checks: Option<ReadChecks>,
    /// The last offset of the previous batch returned (checked mode).
    previous_last: Option<i64>,
    /// Why an active segment's reading stopped before its end (checked mode).
    invalid: Option<RecordError>,
}

/// What a consumer's read of a segment holds its batches to, beyond framing: Kafka's log
/// invariants, which its writer keeps and its recovery restores. A batch that breaks them is
/// corruption the CRC does not cover (the base offset is outside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadChecks {
    /// The segment's base offset (from its file name): no offset below it, and every offset
    /// within an int of it (Kafka's `LogSegment.ensureOffsetInRange`).
    pub base_offset: i64,
    /// The next segment's base offset: every offset of this one is below it.
    pub next_base_offset: Option<i64>,
    /// In the active (last) segment, the position of its last offset-index entry: bytes at or
    /// after it that do not frame a batch end the segment instead of failing the read, as
    /// Kafka's log recovery truncates it there after a crash (a torn, zero-filled or sparse
    /// tail). Before it (an index entry names a batch further on), or in a closed segment, they
    /// are corruption.
    pub torn_tail_from: Option<u64>,
}

/// What the reader found where batches stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The range ended exactly after the last whole entry.
    Clean,
    /// Bytes follow the last whole entry that do not form a whole entry (Kafka stops there and
    /// its dump tool reports them as invalid bytes).
    Trailing {
        /// Position of the first byte after the last whole entry.
        position: u64,
        /// How many bytes follow.
        bytes: u64,
    },
    /// Checked reading of the active segment stopped at bytes that do not frame a batch (see
    /// [`ReadChecks::torn_tail_from`]).
    Invalid {
        /// Position of the first byte after the last whole entry.
        position: u64,
        /// How many bytes follow, to the end of the range.
        bytes: u64,
        /// What the bytes there are.
        reason: RecordError,
    },
}

impl SegmentReader {
    /// Opens `path` for reading from `start` to the end of the file.
    pub fn open(path: &Path, start: u64) -> Result<Self> {
        let file = File::open(path).map_err(LogError::io("opening", path))?;
        let len = file
            .metadata()
            .map_err(LogError::io("reading the size of", path))?
            .len();
        Ok(Self::new(file, path, start, len))
    }

    /// Reads `file` (named `path` in errors) between `start` and `end`.
    pub fn new(file: impl Into<Arc<File>>, path: &Path, start: u64, end: u64) -> Self {
        SegmentReader {
            file: file.into(),
            path: path.to_path_buf(),
            buf_start: start,
            buf: Vec::new(),
            len: 0,
            cursor: 0,
            end,
            window: FIRST_WINDOW,
            max_window: MAX_WINDOW,
            checks: None,
            previous_last: None,
            invalid: None,
        }
    }

    /// Holds the batches to `checks` (a consumer's read): offsets that go backwards, fall
    /// outside the segment or reach the next segment are errors ([`LogError::OffsetDisorder`]),
    /// and in the active segment bytes that do not frame a batch end the reading
    /// ([`Stop::Invalid`]).
    pub fn checked(mut self, checks: ReadChecks) -> Self {
        self.checks = Some(checks);
        self
    }

    /// Fixes the window size (tests use a tiny one to cross window edges often).
    pub fn with_window(mut self, window: usize) -> Self {
        self.window = window.max(LOG_OVERHEAD + 6);
        self.max_window = self.window;
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// File position of the next entry.
    pub fn position(&self) -> u64 {
        self.buf_start + self.cursor as u64
    }

    /// The bytes of the window read from the file.
    fn filled_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// Where reading stops.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The next whole entry and its file position, `Ok(None)` at the end of the entries, or the
    /// decoder's error (an entry whose size field is impossible) with its file position.
    pub fn next_batch(&mut self) -> Result<Option<(u64, RawBatch<'_>)>> {
        if self.invalid.is_some() {
            return Ok(None);
        }
        loop {
            // Frame first, then borrow: a borrow returned from inside the loop would outlive the
            // refill below.
            let size = match RawBatch::read_at(self.filled_bytes(), self.cursor) {
                Ok(found) => found.map(|batch| (batch.size_in_bytes(), Self::offsets(&batch))),
                Err(source) => {
                    let position = self.position();
                    let source =
                        source.offset_by(usize::try_from(self.buf_start).unwrap_or(usize::MAX));
                    if self
                        .checks
                        .and_then(|checks| checks.torn_tail_from)
                        .is_some_and(|from| position >= from)
                    {
                        self.invalid = Some(source);
                        return Ok(None);
                    }
                    return Err(self.corrupt(position, source));
                }
            };
            let Some((size, (first, last))) = size else {
                // The window holds no whole entry: at the end of the range, or refill.
                let needed = self.needed_bytes();
                if needed as u64 > self.end.saturating_sub(self.position()) {
                    // It runs past the end: a partial tail, not worth reading.
                    return Ok(None);
                }
                if needed > MAX_ENTRY_BYTES {
                    return Err(LogError::EntryTooLarge {
                        path: self.path.clone(),
                        position: self.position(),
                        size: needed,
                        limit: MAX_ENTRY_BYTES,
                    });
                }
                if !self.refill(needed)? {
                    return Ok(None);
                }
                continue;
            };
            let position = self.position();
            if let Some(checks) = self.checks {
                self.check_offsets(checks, position, first, last)?;
            }
            let start = self.cursor;
            self.cursor += size;
            return match RawBatch::read_at(self.filled_bytes(), start) {
                Ok(Some(batch)) => Ok(Some((position, batch))),
                Ok(None) => Ok(None),
                Err(source) => Err(self.corrupt(position, source)),
            };
        }
    }

    /// The first and last offsets of a framed entry, as far as the header tells them without
    /// decompressing: a v2 batch's base and last offsets; a legacy entry's own offset, which for
    /// a compressed wrapper is its last inner offset, for both.
    fn offsets(batch: &RawBatch<'_>) -> (i64, i64) {
        let last = batch.last_offset();
        if batch.magic() >= MAGIC_V2 {
            (batch.base_offset(), last)
        } else {
            (last, last)
        }
    }

    /// Kafka's log invariants for one batch: offsets in order within the batch and after the
    /// previous batch, at or above the segment's base offset and within an int of it, below the
    /// next segment's base offset.
    fn check_offsets(
        &mut self,
        checks: ReadChecks,
        position: u64,
        first: i64,
        last: i64,
    ) -> Result<()> {
        let disorder = if last < first {
            Some(OffsetDisorder::Reversed)
        } else if let Some(previous) = self.previous_last.filter(|&p| first <= p) {
            Some(OffsetDisorder::Backwards { previous })
        } else if first < checks.base_offset || last - checks.base_offset > i64::from(i32::MAX) {
            Some(OffsetDisorder::OutsideSegment {
                base_offset: checks.base_offset,
            })
        } else {
            checks
                .next_base_offset
                .filter(|&next| last >= next)
                .map(|next| OffsetDisorder::PastNextSegment { next })
        };
        match disorder {
            None => {
                self.previous_last = Some(last);
                Ok(())
            }
            Some(disorder) => Err(LogError::OffsetDisorder {
                path: self.path.clone(),
                position,
                first,
                last,
                disorder,
            }),
        }
    }

    /// Where the entries stopped; call after [`Self::next_batch`] returned `Ok(None)`.
    pub fn stop(&self) -> Stop {
        let position = self.position();
        if let Some(reason) = &self.invalid {
            return Stop::Invalid {
                position,
                bytes: self.end.saturating_sub(position),
                reason: reason.clone(),
            };
        }
        if position >= self.end {
            Stop::Clean
        } else {
            Stop::Trailing {
                position,
                bytes: self.end - position,
            }
        }
    }

    fn corrupt(&self, position: u64, source: crate::record::RecordError) -> LogError {
        LogError::Corrupt {
            path: self.path.clone(),
            position,
            source,
        }
    }

    /// Bytes the entry at the cursor needs, when its header is in the window.
    fn needed_bytes(&self) -> usize {
        let rest = self.filled_bytes().get(self.cursor..).unwrap_or_default();
        match rest.get(8..12) {
            Some(size) => {
                let size = i32::from_be_bytes(size.try_into().unwrap_or([0; 4]));
                LOG_OVERHEAD + usize::try_from(size).unwrap_or(0)
            }
            None => LOG_OVERHEAD + 6,
        }
    }

    /// Slides the window to the cursor and reads at least `needed` bytes (or up to the end).
    /// Returns false when nothing more can be read.
    fn refill(&mut self, needed: usize) -> Result<bool> {
        let pos = self.position();
        let remaining = self.end.saturating_sub(pos);
        let have = self.len - self.cursor;
        if remaining <= have as u64 {
            return Ok(false);
        }
        // At most `needed.max(window)`, a usize: the conversion cannot fail.
        let wanted = needed.max(self.window);
        let want = usize::try_from((wanted as u64).min(remaining)).unwrap_or(wanted);
        self.window = (self.window * 2).min(self.max_window);
        // cursor <= len <= buf.len() always holds; min() keeps copy_within from panicking even so.
        let len = self.len.min(self.buf.len());
        self.buf.copy_within(self.cursor.min(len)..len, 0);
        self.len = have;
        self.buf_start = pos;
        self.cursor = 0;
        let old = self.len;
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let mut filled = old;
        while filled < want {
            let dst = self.buf.get_mut(filled..want).unwrap_or_default();
            let n = self
                .file
                .read_at(dst, pos + filled as u64)
                .map_err(LogError::io("reading", &self.path))?;
            if n == 0 {
                // The file shrank under us (truncated by another process): stop there.
                self.end = pos + filled as u64;
                break;
            }
            filled += n;
        }
        self.len = filled;
        Ok(filled > old)
    }
}
