//! A segment's offset index (`.index`) and time index (`.timeindex`), as Kafka keeps them.
//!
//! Both are arrays of fixed-size big-endian entries whose offsets are relative to the segment's
//! base offset. The writer memory-maps the file, preallocated to `segment.index.bytes` while the
//! segment is active, and trims it to its entries when the segment is closed or rolled. A reader
//! (no write lock) binary-searches the file with positioned reads: O(log n) small reads, and no
//! map that a concurrent writer's truncation could turn into a SIGBUS.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::MmapMut;

use super::chunks::Chunks;
use super::error::{LogError, Result};
use super::os;

/// One entry type of an index file.
pub trait IndexEntry: Copy + std::fmt::Debug + PartialEq {
    /// Bytes per entry on disk.
    const SIZE: usize;
    /// Kafka's name of the file kind, used in error texts ("Index", "Time index").
    const KIND: &'static str;
    /// Decodes an entry; `bytes` is exactly [`Self::SIZE`] long.
    fn decode(bytes: &[u8], base_offset: i64) -> Self;
    /// Encodes an entry into exactly [`Self::SIZE`] bytes.
    fn encode(&self, base_offset: i64, out: &mut [u8]);
    /// The key the index is sorted by and searched on.
    fn key(&self) -> i64;
    /// The offset the entry points at.
    fn offset(&self) -> i64;
    /// The answer of a lookup below the first entry.
    fn empty(base_offset: i64) -> Self;
    /// True for an all-zero slot after the first (a preallocated, never written slot).
    fn is_unwritten_slot(&self, base_offset: i64) -> bool;
    /// How many entries fit in `max_index_size` bytes before the index counts as full.
    fn capacity(max_entries: usize) -> usize;
}

/// An offset-index entry: the batch ending at `offset` starts at byte `position` of the `.log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetPosition {
    /// Absolute offset (base offset + the stored relative offset).
    pub offset: i64,
    /// Byte position in the segment's `.log`.
    pub position: u32,
}

/// A time-index entry: the largest timestamp in the segment up to the batch ending at `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampOffset {
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    /// Absolute offset (base offset + the stored relative offset).
    pub offset: i64,
}

fn be_i32(bytes: &[u8], at: usize) -> i32 {
    let mut raw = [0u8; 4];
    if let Some(src) = bytes.get(at..at + 4) {
        raw.copy_from_slice(src);
    }
    i32::from_be_bytes(raw)
}

fn be_i64(bytes: &[u8], at: usize) -> i64 {
    let mut raw = [0u8; 8];
    if let Some(src) = bytes.get(at..at + 8) {
        raw.copy_from_slice(src);
    }
    i64::from_be_bytes(raw)
}

fn put(out: &mut [u8], at: usize, src: &[u8]) {
    if let Some(dst) = out.get_mut(at..at + src.len()) {
        dst.copy_from_slice(src);
    }
}

/// Orders an entry's stores in its slot: what comes after is stored after what came before.
/// Readers in other processes read the writer's mapped slots without a lock and may read one
/// while it is written; with the relative offset stored last, a half-written slot reads as
/// unwritten (offset index: relative offset 0) or as an entry of the base offset (time index:
/// a timestamp and relative offset 0), which lookups only take as a lower bound. Stored in
/// the other order, a half-written offset-index slot read as the new offset at position 0, a
/// mismatch for `dump-log-segments`.
fn stored_last() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
}

/// Offsets are stored relative to the base offset in an int32; the caller checks the range.
fn relative(offset: i64, base_offset: i64) -> i32 {
    i32::try_from(offset.saturating_sub(base_offset)).unwrap_or(i32::MAX)
}

impl IndexEntry for OffsetPosition {
    const SIZE: usize = 8;
    const KIND: &'static str = "Index";

    fn decode(bytes: &[u8], base_offset: i64) -> Self {
        OffsetPosition {
            // Hostile files can name any base offset; saturate rather than overflow.
            offset: base_offset.saturating_add(i64::from(be_i32(bytes, 0))),
            // A negative stored position is corrupt; it becomes a huge position that no `.log`
            // reaches, which readers report instead of trusting.
            position: be_i32(bytes, 4).cast_unsigned(),
        }
    }

    fn encode(&self, base_offset: i64, out: &mut [u8]) {
        // The relative offset, which marks the slot written, goes in last (see `stored_last`).
        put(out, 4, &self.position.cast_signed().to_be_bytes());
        stored_last();
        put(out, 0, &relative(self.offset, base_offset).to_be_bytes());
    }

    fn key(&self) -> i64 {
        self.offset
    }

    fn offset(&self) -> i64 {
        self.offset
    }

    fn empty(base_offset: i64) -> Self {
        OffsetPosition {
            offset: base_offset,
            position: 0,
        }
    }

    fn is_unwritten_slot(&self, base_offset: i64) -> bool {
        self.offset == base_offset
    }

    fn capacity(max_entries: usize) -> usize {
        max_entries
    }
}

impl IndexEntry for TimestampOffset {
    const SIZE: usize = 12;
    const KIND: &'static str = "Time index";

    fn decode(bytes: &[u8], base_offset: i64) -> Self {
        TimestampOffset {
            timestamp: be_i64(bytes, 0),
            offset: base_offset.saturating_add(i64::from(be_i32(bytes, 8))),
        }
    }

    fn encode(&self, base_offset: i64, out: &mut [u8]) {
        // The relative offset goes in last (see `stored_last`).
        put(out, 0, &self.timestamp.to_be_bytes());
        stored_last();
        put(out, 8, &relative(self.offset, base_offset).to_be_bytes());
    }

    fn key(&self) -> i64 {
        self.timestamp
    }

    fn offset(&self) -> i64 {
        self.offset
    }

    fn empty(base_offset: i64) -> Self {
        TimestampOffset {
            timestamp: -1,
            offset: base_offset,
        }
    }

    fn is_unwritten_slot(&self, base_offset: i64) -> bool {
        self.timestamp == 0 && self.offset == base_offset
    }

    fn capacity(max_entries: usize) -> usize {
        // Kafka keeps the last slot for the entry appended when the segment is rolled.
        max_entries.saturating_sub(1)
    }
}

enum Backing {
    /// The writer's shared map over the whole (preallocated) file.
    Mapped(MmapMut),
    /// A reader's plain file handle.
    Read,
}

/// An index file of entries `E`: [`OffsetIndex`] or [`TimeIndex`].
pub struct IndexFile<E: IndexEntry> {
    path: PathBuf,
    file: File,
    backing: Backing,
    base_offset: i64,
    entries: usize,
    /// Slots the file has room for (its length / entry size).
    max_entries: usize,
    _entry: PhantomData<E>,
}

/// A segment's `.index`.
pub type OffsetIndex = IndexFile<OffsetPosition>;
/// A segment's `.timeindex`.
pub type TimeIndex = IndexFile<TimestampOffset>;

impl<E: IndexEntry> std::fmt::Debug for IndexFile<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexFile")
            .field("path", &self.path)
            .field("base_offset", &self.base_offset)
            .field("entries", &self.entries)
            .field("max_entries", &self.max_entries)
            .finish()
    }
}

impl<E: IndexEntry> IndexFile<E> {
    /// Opens (creating it if needed) an index for writing, preallocated to `max_index_size`
    /// bytes rounded down to whole entries, and memory-maps it.
    ///
    /// Entries are the slots of the existing file up to the first unwritten (zero) slot, so an
    /// index copied from a running broker, zero-filled past its entries, opens correctly.
    pub fn open_writable(path: &Path, base_offset: i64, max_index_size: u32) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(LogError::io("opening index", path))?;
        let mut index = Self::load(path, file, base_offset)?;
        let wanted = (max_index_size as usize / E::SIZE).max(index.entries);
        index.resize_slots(wanted)?;
        Ok(index)
    }

    /// Opens an existing index for reading only; no map, no change to the file.
    pub fn open_read_only(path: &Path, base_offset: i64) -> Result<Self> {
        let file = File::open(path).map_err(LogError::io("opening index", path))?;
        Self::load(path, file, base_offset)
    }

    /// Opens an existing index for reading only, counting every slot of the file as an entry,
    /// as Kafka does for an index it did not write (so a preallocated, zero-filled tail is seen
    /// as entries too: what Kafka's dump tool and sanity check see).
    pub fn open_all_slots(path: &Path, base_offset: i64) -> Result<Self> {
        let mut index = Self::open_read_only(path, base_offset)?;
        index.entries = index.max_entries;
        Ok(index)
    }

    /// Wraps an open file and counts its written entries.
    fn load(path: &Path, file: File, base_offset: i64) -> Result<Self> {
        let len = file
            .metadata()
            .map_err(LogError::io("reading the size of", path))?
            .len();
        let mut index = IndexFile {
            path: path.to_path_buf(),
            file,
            backing: Backing::Read,
            base_offset,
            entries: 0,
            max_entries: usize::try_from(len).unwrap_or(usize::MAX) / E::SIZE,
            _entry: PhantomData,
        };
        index.entries = index.count_written_slots()?;
        Ok(index)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The segment's base offset.
    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    /// Number of valid entries.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// How many more entries may be appended.
    pub fn room(&self) -> usize {
        E::capacity(self.max_entries).saturating_sub(self.entries)
    }

    /// True when no further entry may be appended (Kafka's `isFull`).
    pub fn is_full(&self) -> bool {
        self.entries >= E::capacity(self.max_entries)
    }

    /// Entry `n` (0-based), read from the map or the file.
    pub fn entry(&self, n: usize) -> Result<E> {
        let at = n * E::SIZE;
        match &self.backing {
            Backing::Mapped(map) => match map.get(at..at + E::SIZE) {
                Some(bytes) => Ok(E::decode(bytes, self.base_offset)),
                None => Err(LogError::CorruptIndex(format!(
                    "{} file {} has no entry {n}",
                    E::KIND,
                    self.path.display()
                ))),
            },
            Backing::Read => {
                let mut buf = [0u8; 16];
                let bytes = buf.get_mut(..E::SIZE).unwrap_or_default();
                self.file
                    .read_exact_at(bytes, at as u64)
                    .map_err(LogError::io("reading index", &self.path))?;
                Ok(E::decode(bytes, self.base_offset))
            }
        }
    }

    /// Keeps the leading entries for which `keep` holds (it must hold for a prefix of them, as
    /// for positions or offsets below a bound), found by binary search; a reader's view only.
    pub fn keep_entries_while(&mut self, keep: impl Fn(&E) -> bool) -> Result<()> {
        // Invariant: every entry below `lo` is kept, none at or past `hi` is.
        let (mut lo, mut hi) = (0usize, self.entries);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if keep(&self.entry(mid)?) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.entries = lo;
        Ok(())
    }

    /// Leaves out entries from the end, one at a time, while `drop` holds for the last one
    /// (for damage at the end of what the entries name); a reader's view only.
    pub fn drop_last_entries_while(&mut self, drop: impl Fn(&E) -> bool) -> Result<()> {
        while let Some(last) = self.entries.checked_sub(1) {
            if !drop(&self.entry(last)?) {
                break;
            }
            self.entries = last;
        }
        Ok(())
    }

    /// The last entry, or the empty answer when there is none.
    pub fn last_entry(&self) -> Result<E> {
        match self.entries.checked_sub(1) {
            Some(last) => self.entry(last),
            None => Ok(E::empty(self.base_offset)),
        }
    }

    /// All valid entries in order.
    pub fn all_entries(&self) -> Result<Vec<E>> {
        self.iter().collect()
    }

    /// The entries in order, read a few thousand at a time (what reading a whole index
    /// takes: one positioned read per entry cost a system call each). An error ends them: a
    /// file trimmed below its entries under the reader (a writer closing its segment) gives
    /// an [`LogError::Io`] of kind `UnexpectedEof` at the first entry gone.
    pub fn iter(&self) -> IndexEntries<'_, E> {
        // Through the file also when it is mapped: the map is shared, reads see its writes.
        IndexEntries {
            index: self,
            chunks: Chunks::new(E::SIZE, 4096, (self.entries * E::SIZE) as u64),
        }
    }

    /// The largest entry whose key is at most `target`, or the empty answer (Kafka's `lookup`).
    pub fn lookup(&self, target: i64) -> Result<E> {
        match self.largest_lower_bound_slot(target)? {
            Some(slot) => self.entry(slot),
            None => Ok(E::empty(self.base_offset)),
        }
    }

    /// Slot of the largest entry with key <= target, by binary search.
    fn largest_lower_bound_slot(&self, target: i64) -> Result<Option<usize>> {
        if self.entries == 0 || self.entry(0)?.key() > target {
            return Ok(None);
        }
        let (mut lo, mut hi) = (0usize, self.entries - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.entry(mid)?.key() <= target {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Ok(Some(lo))
    }

    /// Counts entries up to the first unwritten (all-zero) slot with a binary search: written
    /// slots form a prefix because keys strictly increase. A zero first slot is unwritten too:
    /// Kafka never indexes position 0 (the first batch of a segment gets no entry).
    fn count_written_slots(&self) -> Result<usize> {
        let slots = self.max_entries;
        // A file of one slot is trimmed, never preallocated: its slot is an entry, as in Kafka
        // (a time index may hold `(0, base)` when a producer wrote timestamp 0).
        if slots <= 1 || !self.slot_is_unwritten(slots - 1)? {
            return Ok(slots);
        }
        // Invariant: every slot below `lo` is written, slot `hi` is unwritten.
        let (mut lo, mut hi) = (0usize, slots - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.slot_is_unwritten(mid)? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Ok(hi)
    }

    /// Whether slot `n` holds no entry: zero-filled, or gone. A reader holds no lock, and the
    /// partition's writer may trim the file to its entries (closing the segment) between the
    /// reader's look at its size and its reads: a slot past the new end was an unwritten one.
    fn slot_is_unwritten(&self, n: usize) -> Result<bool> {
        match self.entry(n) {
            Ok(entry) => Ok(entry.is_unwritten_slot(self.base_offset)),
            Err(LogError::Io { source, .. }) if source.kind() == ErrorKind::UnexpectedEof => {
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    fn map_mut(&mut self) -> Result<&mut MmapMut> {
        match &mut self.backing {
            Backing::Mapped(map) => Ok(map),
            Backing::Read => Err(LogError::ReadOnly {
                kind: Some(E::KIND),
                path: self.path.clone(),
            }),
        }
    }

    fn write_slot(&mut self, slot: usize, entry: E) -> Result<()> {
        let base = self.base_offset;
        let at = slot * E::SIZE;
        let map = self.map_mut()?;
        match map.get_mut(at..at + E::SIZE) {
            Some(out) => {
                entry.encode(base, out);
                Ok(())
            }
            None => Err(LogError::IndexFull {
                entries: slot,
                path: self.path.clone(),
            }),
        }
    }

    /// Appends an entry; its offset must be larger than the last one's, and it must fit in an
    /// int32 relative to the base offset.
    pub fn append(&mut self, entry: E) -> Result<()> {
        if self.is_full() {
            return Err(LogError::IndexFull {
                entries: self.entries,
                path: self.path.clone(),
            });
        }
        let relative = entry.offset().saturating_sub(self.base_offset);
        if !(0..=i64::from(i32::MAX)).contains(&relative) {
            return Err(LogError::InvalidOffset(format!(
                "Integer overflow for offset: {} ({})",
                entry.offset(),
                self.path.display()
            )));
        }
        self.write_slot(self.entries, entry)?;
        self.entries += 1;
        Ok(())
    }

    /// Keeps only entries whose offset is below `offset` (Kafka's `truncateTo`).
    pub fn truncate_to(&mut self, offset: i64) -> Result<()> {
        let mut keep = self.entries;
        while keep > 0 && self.entry(keep - 1)?.offset() >= offset {
            keep -= 1;
        }
        self.truncate_to_entries(keep)
    }

    /// Keeps the first `entries` entries and zeroes the slots after them.
    pub fn truncate_to_entries(&mut self, entries: usize) -> Result<()> {
        let from = entries.min(self.entries) * E::SIZE;
        let to = self.entries * E::SIZE;
        if let Backing::Mapped(map) = &mut self.backing {
            if let Some(dead) = map.get_mut(from..to) {
                dead.fill(0);
            }
        }
        self.entries = entries.min(self.entries);
        Ok(())
    }

    /// Removes every entry (Kafka's `reset`).
    pub fn reset(&mut self) -> Result<()> {
        self.truncate_to_entries(0)
    }

    /// Shrinks the file to its valid entries (done when a segment stops being active).
    pub fn trim_to_valid_size(&mut self) -> Result<()> {
        self.resize_slots(self.entries)
    }

    /// Grows or shrinks the file to `slots` entries and remaps it.
    fn resize_slots(&mut self, slots: usize) -> Result<()> {
        let slots = slots.max(self.entries);
        if let Backing::Mapped(map) = &self.backing {
            map.flush()
                .map_err(LogError::io("flushing index", &self.path))?;
        }
        // The map must be gone before the file changes size.
        self.backing = Backing::Read;
        self.file
            .set_len((slots * E::SIZE) as u64)
            .map_err(LogError::io("resizing index", &self.path))?;
        self.max_entries = slots;
        self.backing = Backing::Mapped(
            os::map_mut(&self.file).map_err(LogError::io("mapping index", &self.path))?,
        );
        Ok(())
    }

    /// Whether the file still has the length this index has it at (another writer of the
    /// partition trims or regrows it when it rolls or closes the segment).
    pub fn unchanged_on_disk(&self) -> Result<bool> {
        let len = self
            .file
            .metadata()
            .map_err(LogError::io("reading the size of", &self.path))?
            .len();
        Ok(len == (self.max_entries * E::SIZE) as u64)
    }

    /// Grows the file back to `max_index_size` bytes (a segment becoming active again).
    pub fn resize(&mut self, max_index_size: u32) -> Result<()> {
        self.resize_slots(max_index_size as usize / E::SIZE)
    }

    /// Writes the mapped pages and the file's metadata to disk.
    pub fn flush(&self) -> Result<()> {
        if let Backing::Mapped(map) = &self.backing {
            map.flush()
                .map_err(LogError::io("flushing index", &self.path))?;
        }
        Ok(())
    }

    /// Kafka's sanity check: entries in order, and the file a whole number of entries.
    pub fn sanity_check(&self) -> Result<()> {
        match self.sanity_problem()? {
            Some((_, message)) => Err(LogError::CorruptIndex(message)),
            None => Ok(()),
        }
    }

    /// What Kafka's `sanityCheck` would throw, in its words, with the byte position it concerns
    /// (the last entry, or the file length); `None` when the index passes.
    pub fn sanity_problem(&self) -> Result<Option<(u64, String)>> {
        let len = self
            .file
            .metadata()
            .map_err(LogError::io("reading the size of", &self.path))?
            .len();
        let path = self.path.display();
        let base = self.base_offset;
        if let Some(last_slot) = self.entries.checked_sub(1) {
            let at = (last_slot * E::SIZE) as u64;
            let last = self.entry(last_slot)?;
            let first = self.entry(0)?;
            let offset_message = match E::KIND {
                "Index" => format!("Corrupt index found, index file {path} has non-zero size but the last offset is {} which is less than the base offset {base}", last.offset()),
                _ => format!("Corrupt time index found, time index file ({path}) has non-zero size but the last offset is {} which is less than the first offset {base}", last.offset()),
            };
            // Kafka's TimeIndex checks timestamps before offsets.
            if E::KIND != "Index" && last.key() < first.key() {
                return Ok(Some((at, format!("Corrupt time index found, time index file ({path}) has non-zero size but the last timestamp is {} which is less than the first timestamp {}", last.key(), first.key()))));
            }
            if last.offset() < base {
                return Ok(Some((at, offset_message)));
            }
        }
        if len % E::SIZE as u64 != 0 {
            return Ok(Some((
                len,
                format!(
                    "{} file {path} is corrupt, found {len} bytes which is neither positive nor a multiple of {}",
                    E::KIND,
                    E::SIZE
                ),
            )));
        }
        Ok(None)
    }
}

/// The entries of an [`IndexFile`] in order (see [`IndexFile::iter`]).
pub struct IndexEntries<'a, E: IndexEntry> {
    index: &'a IndexFile<E>,
    chunks: Chunks,
}

impl<E: IndexEntry> Iterator for IndexEntries<'_, E> {
    type Item = Result<E>;

    fn next(&mut self) -> Option<Result<E>> {
        let base = self.index.base_offset;
        let found = self.chunks.next(&self.index.file, &self.index.path)?;
        Some(found.map(|(_, bytes)| E::decode(bytes, base)))
    }
}

impl TimeIndex {
    /// Kafka's `maybeAppend`: writes `(timestamp, offset)` only when `timestamp` is newer than the
    /// last entry. `skip_full_check` is for the final entry written when a segment is rolled or
    /// closed, which may use the reserved last slot.
    pub fn maybe_append(
        &mut self,
        timestamp: i64,
        offset: i64,
        skip_full_check: bool,
    ) -> Result<()> {
        if !skip_full_check && self.is_full() {
            return Err(LogError::IndexFull {
                entries: self.entries,
                path: self.path.clone(),
            });
        }
        let last = self.last_entry()?;
        if self.entries > 0 && offset < last.offset {
            return Err(LogError::InvalidOffset(format!(
                "Attempt to append an offset ({offset}) to slot {} no larger than the last offset appended ({}) to {}.",
                self.entries,
                last.offset,
                self.path.display()
            )));
        }
        if self.entries > 0 && timestamp < last.timestamp {
            return Err(LogError::TimestampDisorder {
                timestamp,
                slot: self.entries,
                last: last.timestamp,
                path: self.path.clone(),
            });
        }
        if timestamp > last.timestamp {
            if self.entries >= self.max_entries {
                return Err(LogError::IndexFull {
                    entries: self.entries,
                    path: self.path.clone(),
                });
            }
            self.write_slot(self.entries, TimestampOffset { timestamp, offset })?;
            self.entries += 1;
        }
        Ok(())
    }
}

impl OffsetIndex {
    /// Kafka's `OffsetIndex.append`: the offset must be larger than the last entry's.
    pub fn append_offset(&mut self, offset: i64, position: u32) -> Result<()> {
        if self.entries > 0 {
            let last = self.last_entry()?;
            if offset <= last.offset {
                return Err(LogError::InvalidOffset(format!(
                    "Attempt to append an offset {offset} to position {} no larger than the last offset appended ({}) to {}.",
                    self.entries,
                    last.offset,
                    self.path.display()
                )));
            }
        }
        self.append(OffsetPosition { offset, position })
    }
}
