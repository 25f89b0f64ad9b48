//! What Kafka's log cleaner would do to a compacted partition, read without changing it:
//! which range is dirty and cleanable (`LogCleanerManager.cleanableOffsets`), its dirty ratio
//! against `min.cleanable.dirty.ratio` and `max.compaction.lag.ms` (`grabFilthiestCompactedLog`),
//! the key→offset map of the dirty range bounded as Kafka bounds it (`SkimpyOffsetMap`: 24-byte
//! slots of a 16-byte key hash and an offset, filled to 0.9 of its slots; when it is full the
//! cleaning stops there and the rest waits for the next one), and what a cleaning from the log
//! start to the end of that map would remove (`Cleaner.shouldRetainRecord`): records whose key
//! has a later offset, records without a key, and tombstones whose delete horizon has passed;
//! tombstones kept get a delete horizon.
//!
//! [`Log::clean`](super::Log::clean) then does it, as Kafka's `Cleaner.cleanSegments` and `replaceSegments` do, through
//! `.cleaned` and `.swap` files. Transactions follow `CleanedTransactionMetadata`: the aborted
//! ones (the `.txnindex` entries, else derived from the markers as a broker's recovery writes
//! them: kafkit's writer keeps no transaction index) are neither mapped nor kept, a marker
//! stays while data of its transaction is read before it, then gets a delete horizon and goes
//! past it, and the cleaned segment's `.txnindex` lists the aborted transactions whose data it
//! keeps. Each producer's last batch and the cleaning's last batch stay, emptied if need be. No
//! cleaning passes the first open transaction. Legacy (magic 0/1) message sets are rewritten
//! as v2 batches, as Kafka 4.0 does (KAFKA-13093), their tombstones kept while their segment is
//! newer than the last clean segment's mtime less `delete.retention.ms`.
//!
//! The key hash is XXH3-128 where Kafka uses MD5: both give the 16 bytes a slot holds, and
//! which of two keys that collide in 128 bits is lost is equally negligible.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::fs;
use std::path::Path;

use twox_hash::XxHash3_128;

use super::config::LogConfig;
use super::error::{LogError, Result};
use super::partition::{list_segments, sync_dir};
use super::retention;
use super::segment::{self, LogSegment};
use super::txn_index::{AbortedTxn, TransactionIndex, ABORTED_TXN_CURRENT_VERSION};
use crate::record::{
    BatchBuilder, BatchHeader, ControlRecordType, RawBatch, RecordError, TimestampType,
    LOG_OVERHEAD, RECORD_BATCH_OVERHEAD,
};

/// Bytes of one slot of the offset map: a 16-byte hash and an 8-byte offset.
pub const BYTES_PER_ENTRY: usize = 24;
/// Kafka's `log.cleaner.io.buffer.load.factor`: the map is full at this share of its slots.
pub const LOAD_FACTOR: f64 = 0.9;
/// Kafka's `log.cleaner.dedupe.buffer.size` default (128 MiB).
pub const DEFAULT_DEDUPE_BUFFER_SIZE: usize = 128 << 20;

/// The topic settings compaction obeys (and the broker's dedupe buffer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactionConfig {
    /// `min.cleanable.dirty.ratio`.
    pub min_cleanable_dirty_ratio: f64,
    /// `min.compaction.lag.ms`.
    pub min_compaction_lag_ms: i64,
    /// `max.compaction.lag.ms`.
    pub max_compaction_lag_ms: i64,
    /// `delete.retention.ms`.
    pub delete_retention_ms: i64,
    /// `log.cleaner.dedupe.buffer.size` (the broker's; one cleaner thread).
    pub dedupe_buffer_size: usize,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            min_cleanable_dirty_ratio: 0.5,
            min_compaction_lag_ms: 0,
            max_compaction_lag_ms: i64::MAX,
            delete_retention_ms: 86_400_000,
            dedupe_buffer_size: DEFAULT_DEDUPE_BUFFER_SIZE,
        }
    }
}

/// The offset map's slots: anonymous memory on huge pages where the system gives them, else
/// the heap's.
#[derive(Debug)]
enum Table {
    Mapped(memmap2::MmapMut),
    Heap(Vec<u8>),
}

impl std::ops::Deref for Table {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Table::Mapped(m) => m,
            Table::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Table {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Table::Mapped(m) => m,
            Table::Heap(v) => v,
        }
    }
}

/// Kafka's `SkimpyOffsetMap`: an open-addressing table of key hashes and offsets in one buffer
/// of a fixed size.
#[derive(Debug)]
pub struct OffsetMap {
    bytes: Table,
    slots: usize,
    entries: usize,
    latest_offset: i64,
}

impl OffsetMap {
    /// A map within `memory` bytes.
    pub fn new(memory: usize) -> Self {
        let slots = (memory / BYTES_PER_ENTRY).max(1);
        let len = slots * BYTES_PER_ENTRY;
        OffsetMap {
            bytes: super::os::huge_zeroed(len)
                .map_or_else(|| Table::Heap(vec![0; len]), Table::Mapped),
            slots,
            entries: 0,
            latest_offset: -1,
        }
    }

    /// Its slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Distinct keys in it.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Kafka's `updateLatestOffset`: the map's end moves to `offset` (past a batch read
    /// whatever its keys, or to the end of a segment read whole).
    pub fn update_latest_offset(&mut self, offset: i64) {
        self.latest_offset = offset;
    }

    /// The last offset put (-1 when none).
    pub fn latest_offset(&self) -> i64 {
        self.latest_offset
    }

    /// How many keys it takes before it is full (Kafka's `maxDesiredMapSize`).
    pub fn max_entries(&self) -> usize {
        // The load factor of a table of at most a few hundred million slots: exact enough.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let max = (self.slots as f64 * LOAD_FACTOR) as usize;
        max
    }

    fn hash(key: &[u8]) -> [u8; 16] {
        let mut h = XxHash3_128::oneshot(key).to_le_bytes();
        // An all-zero hash marks an empty slot.
        if h == [0; 16] {
            h[0] = 1;
        }
        h
    }

    /// The slot of `hash`: where it is, or the empty one where it goes (linear probing).
    fn slot(&self, hash: &[u8; 16]) -> usize {
        let start = u64::from_le_bytes([
            hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7],
        ]);
        #[allow(clippy::cast_possible_truncation)]
        let mut slot = (start % self.slots as u64) as usize;
        loop {
            let at = slot * BYTES_PER_ENTRY;
            match self.bytes.get(at..at + 16) {
                Some(stored) if stored == hash || stored == [0u8; 16] => return slot,
                Some(_) => slot = (slot + 1) % self.slots,
                None => return 0,
            }
        }
    }

    /// Puts `key` at `offset` unless the map is full: `false` when full (Kafka stops the map
    /// there, whether or not the key is in it).
    pub fn put(&mut self, key: &[u8], offset: i64) -> bool {
        if self.entries >= self.max_entries() {
            return false;
        }
        let hash = Self::hash(key);
        let at = self.slot(&hash) * BYTES_PER_ENTRY;
        if let Some(slot) = self.bytes.get_mut(at..at + BYTES_PER_ENTRY) {
            if slot.get(..16) != Some(&hash[..]) {
                self.entries += 1;
                if let Some(h) = slot.get_mut(..16) {
                    h.copy_from_slice(&hash);
                }
            }
            if let Some(o) = slot.get_mut(16..) {
                o.copy_from_slice(&offset.to_le_bytes());
            }
        }
        self.latest_offset = offset;
        true
    }

    /// The offset of `key`, -1 when absent.
    pub fn get(&self, key: &[u8]) -> i64 {
        let hash = Self::hash(key);
        let at = self.slot(&hash) * BYTES_PER_ENTRY;
        match self.bytes.get(at..at + BYTES_PER_ENTRY) {
            Some(slot) if slot.get(..16) == Some(&hash[..]) => {
                let mut offset = [0u8; 8];
                if let Some(o) = slot.get(16..) {
                    offset.copy_from_slice(o);
                }
                i64::from_le_bytes(offset)
            }
            _ => -1,
        }
    }
}

/// Whether a cleaning would run now, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cleanability {
    /// The dirty ratio is above `min.cleanable.dirty.ratio`.
    DirtyRatio,
    /// A dirty segment is older than `max.compaction.lag.ms`.
    MaxCompactionLag,
    /// Not dirty enough (or nothing cleanable yet).
    NotDirtyEnough,
}

/// What a cleaning of a compacted partition would do, now.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPlan {
    /// Where the dirty part starts (`cleaner-offset-checkpoint`, else the log start).
    pub first_dirty_offset: i64,
    /// Where cleaning must stop: the active segment, or the first segment within
    /// `min.compaction.lag.ms`.
    pub first_uncleanable_offset: i64,
    /// Bytes of the clean part (Kafka's `cleanBytes`).
    pub clean_bytes: u64,
    /// Bytes of the cleanable dirty part.
    pub dirty_bytes: u64,
    /// `dirty / (clean + dirty)`, 0 when both are 0.
    pub dirty_ratio: f64,
    /// Whether it would clean, and why.
    pub cleanability: Cleanability,
    /// Where the cleaning ends: one past the last offset the map holds (the map filling up
    /// stops it before the first uncleanable offset); the cleaner checkpoint moves here.
    pub end_offset: i64,
    /// Distinct keys in the map.
    pub keys: usize,
    /// Records read in the segments a cleaning rewrites.
    pub records: u64,
    /// Records a later one of the same key supersedes.
    pub superseded: u64,
    /// Records without a key.
    pub without_key: u64,
    /// Tombstones whose delete horizon has passed.
    pub tombstones_removed: u64,
    /// Tombstones kept, in batches that get a delete horizon now.
    pub tombstones_marked: u64,
    /// Records of aborted transactions.
    pub aborted: u64,
    /// Transaction markers whose transactions have no data left, past their delete horizon.
    pub markers_removed: u64,
}

impl CompactionPlan {
    /// Records a cleaning would remove.
    pub fn removed(&self) -> u64 {
        self.superseded
            + self.without_key
            + self.tombstones_removed
            + self.aborted
            + self.markers_removed
    }
}

/// One segment as the analysis sees it.
struct Seg {
    base: i64,
    size: u64,
    largest_timestamp: i64,
    first_batch_timestamp: Option<i64>,
    mtime_ms: i64,
}

/// Kafka's cleanable offsets, dirty ratio and map over the compacted partition in `dir`, read
/// without a lock and without changing it; `cleaner_checkpoint` is its
/// `cleaner-offset-checkpoint` entry.
pub fn plan_read_only(
    dir: &Path,
    log_start_offset: i64,
    cleaner_checkpoint: Option<i64>,
    config: &CompactionConfig,
    now_ms: i64,
) -> Result<CompactionPlan> {
    let view = Checkpoints {
        log_start_offset,
        cleaner_checkpoint,
        log_end_offset: None,
    };
    analyse(dir, &view, config, now_ms, true).map(|a| a.plan)
}

/// Where a log starts and ends and was last cleaned, as [`analyse`] takes them.
struct Checkpoints {
    log_start_offset: i64,
    cleaner_checkpoint: Option<i64>,
    /// The log end when the caller knows it (its writer): the active segment is then not read
    /// (its indexes are the writer's, preallocated).
    log_end_offset: Option<i64>,
}

/// The modification time of `path` in ms since the epoch (0 when unknown), as Kafka's
/// `LogSegment.lastModified`.
fn mtime_ms(path: &Path) -> i64 {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .unwrap_or(0)
}

/// The aborted transactions whose markers lie in `[from, to)` (Kafka's
/// `collectAbortedTransactions` over the transaction indexes of those segments).
fn aborted_in(scan: &ProducerScan, from: i64, to: i64) -> impl Iterator<Item = &AbortedTxn> {
    scan.aborted
        .iter()
        .filter(move |t| t.last_offset >= from && t.last_offset < to)
}

/// [`plan_read_only`], the offset map, the producer scan and the segments' modification
/// times; the records a cleaning would remove are counted only when `count` (a cleaning
/// counts them as it goes).
#[allow(clippy::too_many_lines)]
fn analyse(
    dir: &Path,
    view: &Checkpoints,
    config: &CompactionConfig,
    now_ms: i64,
    count: bool,
) -> Result<Analysis> {
    let (log_start_offset, cleaner_checkpoint) = (view.log_start_offset, view.cleaner_checkpoint);
    let bases = list_segments(dir)?;
    let mut segs = Vec::with_capacity(bases.len());
    let mut log_end_offset = bases.first().copied().unwrap_or(0);
    for (i, &base) in bases.iter().enumerate() {
        let active = i + 1 == bases.len();
        let mtime = mtime_ms(&dir.join(segment::file_name(base, ".log")));
        if let (true, Some(end)) = (active, view.log_end_offset) {
            // Never cleaned nor counted: only its base matters.
            log_end_offset = end;
            segs.push(Seg {
                base,
                size: 0,
                largest_timestamp: now_ms,
                first_batch_timestamp: None,
                mtime_ms: mtime,
            });
            continue;
        }
        let seg = LogSegment::open_read_only(dir, base)?;
        if active {
            log_end_offset = seg.read_next_offset()?.unwrap_or(base);
        }
        let info = retention::segment_info(&seg)?;
        let mut reader = seg.reader_at(0)?;
        let first_batch_timestamp = reader.next_batch()?.map(|(_, b)| b.max_timestamp());
        segs.push(Seg {
            base,
            size: info.size,
            largest_timestamp: info.largest_timestamp,
            first_batch_timestamp,
            mtime_ms: mtime,
        });
    }
    let scan = scan_producers(dir, &bases)?;
    let start = log_start_offset.max(bases.first().copied().unwrap_or(0));
    let first_dirty = match cleaner_checkpoint {
        Some(c) if c >= start && c <= log_end_offset => c,
        _ => start,
    };
    let active_base = bases.last().copied().unwrap_or(0);
    // Non-active segments holding offsets at or after the first dirty one.
    let next_base = |i: usize| segs.get(i + 1).map_or(log_end_offset, |s| s.base);
    let dirty_non_active: Vec<usize> = (0..segs.len().saturating_sub(1))
        .filter(|&i| next_base(i) > first_dirty)
        .collect();
    // Kafka's `cleanableOffsets`: never past the last stable offset nor into the active segment.
    let mut first_uncleanable = active_base
        .min(log_end_offset)
        .min(scan.first_unstable_offset.unwrap_or(i64::MAX));
    if config.min_compaction_lag_ms > 0 {
        if let Some(&i) = dirty_non_active.iter().find(|&&i| {
            segs.get(i).is_some_and(|s| {
                s.largest_timestamp > now_ms.saturating_sub(config.min_compaction_lag_ms)
            })
        }) {
            first_uncleanable = first_uncleanable.min(segs.get(i).map_or(0, |s| s.base));
        }
    }
    // Kafka's logSegments(from, to): the segment holding `from` up to those starting before `to`.
    let overlapping = |from: i64, to: i64| -> u64 {
        segs.iter()
            .enumerate()
            .filter(|&(i, s)| s.base < to && next_base(i) > from)
            .map(|(_, s)| s.size)
            .sum()
    };
    let clean_bytes = overlapping(-1, first_dirty);
    // The segment holding the first uncleanable offset starts the uncleanable part.
    let uncleanable_base = segs
        .iter()
        .enumerate()
        .rev()
        .find(|&(_, s)| s.base <= first_uncleanable)
        .map_or(first_uncleanable, |(_, s)| s.base);
    let dirty_bytes = overlapping(first_dirty.max(start), uncleanable_base);
    let total = clean_bytes + dirty_bytes;
    #[allow(clippy::cast_precision_loss)]
    let dirty_ratio = if total == 0 {
        0.0
    } else {
        dirty_bytes as f64 / total as f64
    };
    let earliest_dirty = dirty_non_active
        .iter()
        .filter_map(|&i| segs.get(i).and_then(|s| s.first_batch_timestamp))
        .filter(|&t| t > 0)
        .min();
    let clean_until = now_ms.saturating_sub(config.max_compaction_lag_ms.max(0));
    let need_now = earliest_dirty.is_some_and(|t| t < clean_until);
    let cleanability = if need_now && dirty_bytes > 0 {
        Cleanability::MaxCompactionLag
    } else if dirty_ratio > config.min_cleanable_dirty_ratio {
        Cleanability::DirtyRatio
    } else {
        Cleanability::NotDirtyEnough
    };
    let mut plan = CompactionPlan {
        first_dirty_offset: first_dirty,
        first_uncleanable_offset: first_uncleanable,
        clean_bytes,
        dirty_bytes,
        dirty_ratio,
        cleanability,
        end_offset: first_dirty,
        keys: 0,
        records: 0,
        superseded: 0,
        without_key: 0,
        tombstones_removed: 0,
        tombstones_marked: 0,
        aborted: 0,
        markers_removed: 0,
    };
    // Kafka's `buildOffsetMap` over the segments overlapping [first dirty, first uncleanable),
    // up to where it fills: aborted batches are not mapped, and the map's end moves past every
    // batch read and, at the end of a segment read whole, to the next segment's base (or the
    // first uncleanable offset).
    let mut map = OffsetMap::new(config.dedupe_buffer_size);
    let mut txn = TxnState::default();
    let last_mapped = segs
        .iter()
        .rev()
        .find(|s| s.base < first_uncleanable)
        .map_or(first_uncleanable, |s| s.base);
    let mapped_to = (segs.iter().enumerate())
        .find(|&(_, s)| s.base == last_mapped)
        .map_or(first_uncleanable, |(i, _)| next_base(i));
    txn.add_aborted(
        aborted_in(&scan, first_dirty, mapped_to).filter(|t| t.first_offset < first_uncleanable),
    );
    'map: for (i, seg) in segs.iter().enumerate() {
        if seg.base >= first_uncleanable || next_base(i) <= first_dirty {
            continue;
        }
        let segment = LogSegment::open_read_only(dir, seg.base)?;
        let mut reader = segment.reader_at(0)?;
        while let Some((position, batch)) = reader.next_batch()? {
            let corrupt = |source| super::LogError::Corrupt {
                path: segment.log_path().to_path_buf(),
                position,
                source,
            };
            let aborted = txn.should_discard(&batch).map_err(corrupt)?;
            if !batch.is_control() && !aborted {
                // Keys are read in place: the map pass copies no record.
                let mut records = batch.record_iter().map_err(corrupt)?;
                let mut full = false;
                while let Some(read) = records.next_key(|offset, key, _| {
                    if let Some(key) = key {
                        if offset >= first_dirty && !map.put(key, offset) {
                            full = true;
                        }
                    }
                }) {
                    read.map_err(corrupt)?;
                    if full {
                        break 'map;
                    }
                }
            }
            if batch.last_offset() >= first_dirty {
                map.update_latest_offset(batch.last_offset());
            }
        }
        map.update_latest_offset(next_base(i).min(first_uncleanable) - 1);
    }
    plan.keys = map.len();
    plan.end_offset = if map.latest_offset() >= 0 {
        map.latest_offset() + 1
    } else {
        first_dirty
    };
    // Kafka's `legacyDeleteHorizonMs`: the last clean segment's mtime less delete.retention.ms.
    let legacy_delete_horizon_ms = segs
        .iter()
        .rev()
        .find(|s| s.base < first_dirty)
        .map_or(0, |s| s.mtime_ms.saturating_sub(config.delete_retention_ms));
    let mut analysis = Analysis {
        plan,
        map,
        scan,
        mtimes: segs.iter().map(|s| (s.base, s.mtime_ms)).collect(),
        legacy_delete_horizon_ms,
    };
    if !count {
        return Ok(analysis);
    }
    // What a cleaning of the segments from the start to the map's end would keep.
    let end_offset = analysis.plan.end_offset;
    let cleaning = Cleaning {
        map: &analysis.map,
        scan: &analysis.scan,
        config,
        now_ms,
        upper_bound: first_uncleanable,
        legacy_delete_horizon_ms,
    };
    let mut txn = TxnState::default();
    let mut keep = Vec::new();
    let mut plan = analysis.plan.clone();
    for (i, seg) in segs.iter().enumerate().filter(|(_, s)| s.base < end_offset) {
        txn.add_aborted(aborted_in(cleaning.scan, seg.base, next_base(i)));
        let segment = LogSegment::open_read_only(dir, seg.base)?;
        let mut reader = segment.reader_at(0)?;
        while let Some((position, batch)) = reader.next_batch()? {
            cleaning
                .judge(&batch, &mut txn, &mut plan, seg.mtime_ms, &mut keep)
                .map_err(|source| super::LogError::Corrupt {
                    path: segment.log_path().to_path_buf(),
                    position,
                    source,
                })?;
        }
    }
    analysis.plan = plan;
    Ok(analysis)
}

/// What [`analyse`] found.
struct Analysis {
    plan: CompactionPlan,
    map: OffsetMap,
    scan: ProducerScan,
    /// Each segment's base and modification time.
    mtimes: Vec<(i64, i64)>,
    legacy_delete_horizon_ms: i64,
}

/// How the tombstones of a batch are judged (Kafka's `shouldRetainDeletes`): a v2 batch by its
/// delete horizon, a legacy (magic 0/1) one by whether its segment was modified after the
/// legacy delete horizon.
#[derive(Debug, Clone, Copy)]
enum Deletes {
    /// The batch's delete horizon, if it has one.
    Horizon(Option<i64>),
    /// Whether legacy tombstones of this segment are kept.
    Legacy(bool),
}

/// Kafka's `Cleaner.shouldRetainRecord` for one record (its offset, key and whether it has a
/// value), counting in `plan` what it drops, and the tombstones it keeps without a horizon.
fn retain(
    plan: &mut CompactionPlan,
    map: &OffsetMap,
    offset: i64,
    key: Option<&[u8]>,
    has_value: bool,
    deletes: Deletes,
    now_ms: i64,
) -> bool {
    if offset > map.latest_offset() {
        return true;
    }
    let Some(key) = key else {
        plan.without_key += 1;
        return false;
    };
    if offset < map.get(key) {
        plan.superseded += 1;
        return false;
    }
    if !has_value {
        match deletes {
            Deletes::Horizon(Some(h)) if now_ms >= h => {
                plan.tombstones_removed += 1;
                return false;
            }
            Deletes::Horizon(Some(_)) | Deletes::Legacy(true) => {}
            Deletes::Horizon(None) => plan.tombstones_marked += 1,
            Deletes::Legacy(false) => {
                plan.tombstones_removed += 1;
                return false;
            }
        }
    }
    true
}

/// A producer's last batch, which a cleaning keeps (Kafka's `LastRecord` of
/// `lastRecordsOfActiveProducers`): the last offset of its last data batch, and its epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LastRecord {
    last_data_offset: Option<i64>,
    epoch: i16,
}

/// What one pass over the batch headers of a whole log (and its markers' keys) tells a
/// cleaning, as a broker's producer state and transaction indexes would: each producer's last
/// batch, the aborted transactions, and where the first transaction still open starts.
#[derive(Debug, Default)]
struct ProducerScan {
    last: HashMap<i64, LastRecord>,
    /// Kafka's `AbortedTxn` entries in the order of their ABORT markers: the `.txnindex` entry
    /// of a marker when the segment has one, else the entry a broker's recovery writes for it
    /// (`ProducerStateManager.lastStableOffset`: the first offset of the earliest other open
    /// transaction, else the marker's offset + 1). kafkit's own writer keeps no `.txnindex`.
    aborted: Vec<AbortedTxn>,
    /// The first offset of the earliest transaction without a marker (Kafka's
    /// `firstUnstableOffset`), which no cleaning passes.
    first_unstable_offset: Option<i64>,
}

/// The type of a control batch's (first) record; `None` for a batch emptied by a cleaning.
fn control_type(
    batch: &RawBatch<'_>,
) -> std::result::Result<Option<ControlRecordType>, RecordError> {
    let mut iter = batch.record_iter()?;
    let mut kind = None;
    match iter.next_key(|_, key, _| kind = Some(ControlRecordType::parse_key(key))) {
        None => Ok(None),
        Some(read) => {
            read?;
            kind.transpose()
        }
    }
}

/// [`ProducerScan`] of the segments `bases` of `dir`, from the batch headers (and the
/// records of control batches).
fn scan_producers(dir: &Path, bases: &[i64]) -> Result<ProducerScan> {
    use std::os::unix::fs::FileExt;
    let mut scan = ProducerScan::default();
    // Each producer's open transaction: its first offset.
    let mut ongoing: HashMap<i64, i64> = HashMap::new();
    let mut stored: HashMap<(i64, i64), AbortedTxn> = HashMap::new();
    let mut header = [0u8; RECORD_BATCH_OVERHEAD];
    for &base in bases {
        let index = dir.join(segment::file_name(base, ".txnindex"));
        if index.exists() {
            for entry in TransactionIndex::open(&index)?.entries() {
                let (_, txn) = entry?;
                stored.insert((txn.producer_id, txn.last_offset), txn);
            }
        }
        let path = dir.join(segment::file_name(base, ".log"));
        let file = fs::File::open(&path).map_err(LogError::io("opening segment", &path))?;
        let size = file
            .metadata()
            .map_err(LogError::io("reading the size of", &path))?
            .len();
        let mut position = 0u64;
        while position + header.len() as u64 <= size {
            if file.read_exact_at(&mut header, position).is_err() {
                break;
            }
            let Ok(h) = BatchHeader::parse(&header) else {
                break;
            };
            let Ok(length) = u64::try_from(h.batch_length) else {
                break;
            };
            let entry_size = LOG_OVERHEAD as u64 + length;
            if h.magic >= 2 && h.producer_id >= 0 {
                let pid = h.producer_id;
                if !h.is_control() {
                    scan.last.insert(
                        pid,
                        LastRecord {
                            last_data_offset: Some(h.last_offset()),
                            epoch: h.producer_epoch,
                        },
                    );
                    if h.is_transactional() {
                        ongoing.entry(pid).or_insert(h.base_offset);
                    }
                } else if h.records_count > 0 && position + entry_size <= size {
                    let mut bytes = vec![0u8; usize::try_from(entry_size).unwrap_or(0)];
                    file.read_exact_at(&mut bytes, position)
                        .map_err(LogError::io("reading", &path))?;
                    let corrupt = |source| LogError::Corrupt {
                        path: path.clone(),
                        position,
                        source,
                    };
                    let kind = RawBatch::read_at(&bytes, 0)
                        .map_err(corrupt)?
                        .map(|b| control_type(&b))
                        .transpose()
                        .map_err(corrupt)?
                        .flatten();
                    if let Some(kind @ (ControlRecordType::Abort | ControlRecordType::Commit)) =
                        kind
                    {
                        let marker = h.last_offset();
                        let first = ongoing.remove(&pid).unwrap_or(marker);
                        if kind == ControlRecordType::Abort {
                            let lso = ongoing.values().min().copied().unwrap_or(marker + 1);
                            scan.aborted.push(stored.remove(&(pid, marker)).unwrap_or(
                                AbortedTxn {
                                    version: ABORTED_TXN_CURRENT_VERSION,
                                    producer_id: pid,
                                    first_offset: first,
                                    last_offset: marker,
                                    last_stable_offset: lso,
                                },
                            ));
                        }
                        scan.last
                            .entry(pid)
                            .and_modify(|l| l.epoch = h.producer_epoch)
                            .or_insert(LastRecord {
                                last_data_offset: None,
                                epoch: h.producer_epoch,
                            });
                    }
                }
            }
            position += entry_size;
        }
    }
    scan.first_unstable_offset = ongoing.values().min().copied();
    Ok(scan)
}

/// Kafka's `CleanedTransactionMetadata`: the transactions a cleaning is inside of as it reads
/// the log front to back, which says which data batches are aborted (dropped) and which
/// markers may go (an ABORT once none of its data is left, a COMMIT when none of its data was
/// read), and collects the aborted transactions the cleaned segment's `.txnindex` keeps.
#[derive(Debug, Default)]
struct TxnState {
    /// Aborted transactions not reached yet: (first offset, index into `txns`), smallest first.
    pending: BinaryHeap<Reverse<(i64, usize)>>,
    txns: Vec<AbortedTxn>,
    /// Producers inside an aborted transaction: the transaction, and whether a batch of it was
    /// read.
    ongoing_aborted: HashMap<i64, (AbortedTxn, bool)>,
    /// Producers inside a committed transaction a batch of which was read.
    ongoing_committed: HashSet<i64>,
    /// The entries for the cleaned segment's transaction index.
    cleaned_index: Vec<AbortedTxn>,
}

impl TxnState {
    /// Kafka's `addAbortedTransactions`.
    fn add_aborted<'t>(&mut self, txns: impl IntoIterator<Item = &'t AbortedTxn>) {
        for txn in txns {
            self.pending
                .push(Reverse((txn.first_offset, self.txns.len())));
            self.txns.push(*txn);
        }
    }

    /// Kafka's `consumeAbortedTxnsUpTo`.
    fn consume_up_to(&mut self, offset: i64) {
        while let Some(&Reverse((first, i))) = self.pending.peek() {
            if first > offset {
                break;
            }
            self.pending.pop();
            if let Some(txn) = self.txns.get(i) {
                self.ongoing_aborted
                    .entry(txn.producer_id)
                    .or_insert((*txn, false));
            }
        }
    }

    /// Kafka's `onControlBatchRead` / `onBatchRead`: whether the batch may be discarded (an
    /// aborted data batch, or a marker whose transaction has no data left).
    fn should_discard(&mut self, batch: &RawBatch<'_>) -> std::result::Result<bool, RecordError> {
        self.consume_up_to(batch.last_offset());
        let pid = batch.producer_id();
        if batch.is_control() {
            return Ok(match control_type(batch)? {
                // Emptied by an earlier cleaning.
                None => true,
                Some(ControlRecordType::Abort) => match self.ongoing_aborted.remove(&pid) {
                    Some((txn, true)) => {
                        self.cleaned_index.push(txn);
                        false
                    }
                    _ => true,
                },
                Some(ControlRecordType::Commit) => !self.ongoing_committed.remove(&pid),
                Some(_) => false,
            });
        }
        if !batch.is_transactional() {
            return Ok(false);
        }
        if let Some((_, read)) = self.ongoing_aborted.get_mut(&pid) {
            *read = true;
            Ok(true)
        } else {
            self.ongoing_committed.insert(pid);
            Ok(false)
        }
    }
}

/// Kafka's `BatchRetention`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BatchRetention {
    /// Dropped whole, its records not read.
    Delete,
    /// Dropped if none of its records is kept.
    DeleteEmpty,
    /// Kept, as an empty batch if none of its records is.
    RetainEmpty,
}

/// What a cleaning does with one batch (Kafka's `checkBatchRetention` and the records'
/// `shouldRetainRecord`).
#[derive(Debug)]
struct Verdict {
    retention: BatchRetention,
    /// Whether the batch would get a delete horizon for being a marker of a transaction with
    /// no data left (`containsMarkerForEmptyTxn`).
    marker_for_empty_txn: bool,
    /// Records kept.
    kept: usize,
    /// Whether a kept record is a tombstone.
    tombstones: bool,
}

/// What a cleaning knows as it reads the batches of its segments.
struct Cleaning<'a> {
    map: &'a OffsetMap,
    scan: &'a ProducerScan,
    config: &'a CompactionConfig,
    now_ms: i64,
    /// The first uncleanable offset: the batch ending there is kept.
    upper_bound: i64,
    /// Kafka's `legacyDeleteHorizonMs`.
    legacy_delete_horizon_ms: i64,
}

impl Cleaning<'_> {
    /// Judges `batch` of a segment modified at `segment_mtime_ms`: its retention, and in `keep`
    /// whether each of its records stays (empty when the batch is deleted unread). Counts in
    /// `plan` what goes.
    fn judge(
        &self,
        batch: &RawBatch<'_>,
        txn: &mut TxnState,
        plan: &mut CompactionPlan,
        segment_mtime_ms: i64,
        keep: &mut Vec<bool>,
    ) -> std::result::Result<Verdict, RecordError> {
        keep.clear();
        let can_discard = txn.should_discard(batch)?;
        let control = batch.is_control();
        let now_ms = self.now_ms;
        let discard_records = if control {
            can_discard && batch.delete_horizon_ms().is_some_and(|h| h <= now_ms)
        } else {
            can_discard
        };
        let pid = batch.producer_id();
        let last_of_producer = self
            .scan
            .last
            .get(&pid)
            .is_some_and(|l| match l.last_data_offset {
                Some(offset) => batch.last_offset() == offset,
                None => control && batch.producer_epoch() == l.epoch,
            });
        // A producer's last batch keeps its producer state; the cleaning's last keeps the
        // offset where the cleaned part ends.
        let retention = if (pid >= 0 && last_of_producer) || batch.next_offset() == self.upper_bound
        {
            BatchRetention::RetainEmpty
        } else if discard_records {
            BatchRetention::Delete
        } else {
            BatchRetention::DeleteEmpty
        };
        let mut verdict = Verdict {
            retention,
            marker_for_empty_txn: can_discard && control,
            kept: 0,
            tombstones: false,
        };
        let dropped = |plan: &mut CompactionPlan, n: u64| {
            if control {
                plan.markers_removed += n;
            } else {
                plan.aborted += n;
            }
        };
        if retention == BatchRetention::Delete {
            let n = u64::try_from(batch.records_count().unwrap_or(0)).unwrap_or(0);
            plan.records += n;
            dropped(plan, n);
            return Ok(verdict);
        }
        let deletes = if batch.magic() < 2 {
            Deletes::Legacy(segment_mtime_ms > self.legacy_delete_horizon_ms)
        } else {
            Deletes::Horizon(batch.delete_horizon_ms())
        };
        let mut records = batch.record_iter()?;
        loop {
            let mut judged = None;
            let read = records.next_key(|offset, key, has_value| {
                plan.records += 1;
                let kept = if discard_records {
                    false
                } else if control {
                    true
                } else {
                    retain(plan, self.map, offset, key, has_value, deletes, now_ms)
                };
                judged = Some((kept, !has_value));
            });
            match read {
                None => break,
                Some(read) => read?,
            }
            if let Some((kept, tombstone)) = judged {
                if discard_records {
                    dropped(plan, 1);
                }
                keep.push(kept);
                if kept {
                    verdict.kept += 1;
                    verdict.tombstones |= tombstone;
                }
            }
        }
        Ok(verdict)
    }

    /// Kafka's `MemoryRecords.filterTo` for one judged batch: a v2 batch that keeps every
    /// record and needs no delete horizon is written as it is; one that keeps some is rebuilt
    /// from them with its codec, producer fields, leader epoch, base and last offsets
    /// (`overrideLastOffset`), and a delete horizon of now + `delete.retention.ms` when it
    /// keeps a tombstone or is the marker of a transaction with no data left and had none
    /// (stored as its base timestamp); one that keeps none is dropped, or kept empty when it is
    /// its producer's last or the last of the cleaning. A legacy (magic 0/1) message set is
    /// rewritten as a v2 batch from its first kept offset, as Kafka 4.0's cleaner does
    /// (KAFKA-13093): v0's missing timestamps as CreateTime -1.
    fn filter(
        &self,
        batch: &RawBatch<'_>,
        verdict: &Verdict,
        keep: &[bool],
    ) -> std::result::Result<Filtered, RecordError> {
        let legacy = batch.magic() < 2;
        if verdict.kept == 0 {
            return Ok(match (verdict.retention, batch.header()) {
                (BatchRetention::RetainEmpty, Some(h)) => Filtered::Rewritten(empty_batch(&h)),
                _ => Filtered::Dropped,
            });
        }
        let horizon = batch.delete_horizon_ms();
        let needs_horizon =
            !legacy && (verdict.tombstones || verdict.marker_for_empty_txn) && horizon.is_none();
        if !legacy && verdict.kept == keep.len() && !needs_horizon {
            return Ok(Filtered::Original);
        }
        let records = batch.records()?;
        let first_kept = records
            .iter()
            .zip(keep)
            .find(|(_, k)| **k)
            .map_or(batch.base_offset(), |(r, _)| r.offset);
        let timestamp_type = match batch.timestamp_type() {
            TimestampType::NoTimestamp => TimestampType::CreateTime,
            other => other,
        };
        let base = if legacy {
            first_kept
        } else {
            batch.base_offset()
        };
        let mut builder = BatchBuilder::new(base, batch.compression()?, timestamp_type)
            .producer_id(batch.producer_id())
            .producer_epoch(batch.producer_epoch())
            .base_sequence(batch.base_sequence())
            .partition_leader_epoch(batch.partition_leader_epoch())
            .transactional(batch.is_transactional())
            .control(batch.is_control());
        if !legacy {
            builder = builder.override_last_offset(batch.last_offset());
        }
        if needs_horizon {
            builder = builder
                .delete_horizon_ms(self.now_ms.saturating_add(self.config.delete_retention_ms));
        } else if let Some(h) = horizon {
            builder = builder.delete_horizon_ms(h);
        }
        if timestamp_type == TimestampType::LogAppendTime {
            builder = builder.log_append_time(batch.max_timestamp());
        }
        for (r, _) in records.iter().zip(keep).filter(|(_, k)| **k) {
            builder.append_with_offset(
                r.offset,
                r.timestamp,
                r.key.as_deref(),
                r.value.as_deref(),
                &r.headers,
            )?;
        }
        Ok(Filtered::Rewritten(builder.build()?))
    }
}

/// Kafka's `DefaultRecordBatch.writeEmptyHeader`: the batch kept without its records (its
/// producer's last, or the cleaning's last), its offsets, producer fields, timestamp type,
/// transactional and control bits and max timestamp as they were; uncompressed, no delete
/// horizon, base timestamp -1.
fn empty_batch(h: &BatchHeader) -> Vec<u8> {
    use crate::record::TimestampType as T;
    let mut attributes = 0i16;
    if h.timestamp_type() == T::LogAppendTime {
        attributes |= 0x08;
    }
    if h.is_transactional() {
        attributes |= 0x10;
    }
    if h.is_control() {
        attributes |= 0x20;
    }
    let empty = BatchHeader {
        batch_length: i32::try_from(RECORD_BATCH_OVERHEAD - LOG_OVERHEAD).unwrap_or(49),
        crc: 0,
        attributes,
        base_timestamp: crate::record::NO_TIMESTAMP,
        records_count: 0,
        ..*h
    };
    let mut bytes = empty.to_bytes().to_vec();
    let crc = crate::record::crc32c(bytes.get(21..).unwrap_or_default());
    if let Some(dst) = bytes.get_mut(17..21) {
        dst.copy_from_slice(&crc.to_be_bytes());
    }
    bytes
}

/// What one cleaned batch becomes.
enum Filtered {
    /// Written as it was.
    Original,
    /// Rewritten (fewer records, a delete horizon set, converted from magic 0/1), or kept empty.
    Rewritten(Vec<u8>),
    /// Dropped.
    Dropped,
}

/// Kafka's `groupSegmentsBySize`: consecutive segments while their current sizes together fit
/// `segment.bytes`, their indexes `segment.index.bytes`, and their offsets an int above the
/// first base.
fn group_segments(
    dir: &Path,
    bases: &[i64],
    end_offset: i64,
    log_config: &LogConfig,
) -> Result<Vec<Vec<i64>>> {
    let len = |base: i64, suffix: &str| -> u64 {
        fs::metadata(dir.join(segment::file_name(base, suffix))).map_or(0, |m| m.len())
    };
    let mut groups = Vec::new();
    let mut rest = bases;
    while let Some((&first, tail)) = rest.split_first() {
        let mut group = vec![first];
        let (mut log, mut index, mut time) = (
            len(first, ".log"),
            len(first, ".index"),
            len(first, ".timeindex"),
        );
        rest = tail;
        while let Some((&next, tail)) = rest.split_first() {
            let last_offset = tail.first().map_or(end_offset, |&b| b) - 1;
            let fits = log + len(next, ".log") <= u64::from(log_config.segment_bytes)
                && index + len(next, ".index") <= u64::from(log_config.segment_index_bytes)
                && time + len(next, ".timeindex") <= u64::from(log_config.segment_index_bytes)
                && (len(next, ".log") == 0 || last_offset - first <= i64::from(i32::MAX));
            if !fits {
                break;
            }
            log += len(next, ".log");
            index += len(next, ".index");
            time += len(next, ".timeindex");
            group.push(next);
            rest = tail;
        }
        groups.push(group);
    }
    Ok(groups)
}

/// Renames `<base><kind><from>` to `<base><kind><to>` for the segment files, `.log` first
/// (Kafka's `changeFileSuffixes`); absent files are skipped.
fn change_suffixes(dir: &Path, base: i64, from: &str, to: &str) -> Result<()> {
    for kind in [".log", ".index", ".timeindex", ".txnindex"] {
        let src = dir.join(segment::file_name(base, &format!("{kind}{from}")));
        let dst = dir.join(segment::file_name(base, &format!("{kind}{to}")));
        match fs::rename(&src, &dst) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LogError::io("renaming", src)(e)),
        }
    }
    Ok(())
}

/// Removes the `.cleaned` files of a cleaning given up.
fn remove_cleaned(dir: &Path, base: i64) {
    for kind in [".log", ".index", ".timeindex", ".txnindex"] {
        let _ = fs::remove_file(dir.join(segment::file_name(base, &format!("{kind}.cleaned"))));
    }
}

/// Cleans one group of segments into one (Kafka's `cleanSegments` and `replaceSegments`):
/// writes `<base>.log.cleaned` and its indexes (a `.txnindex` of the aborted transactions
/// whose data it keeps), syncs them, renames them `.swap`, renames the old segments
/// `.deleted`, then the swap to the final names. A crash before every `.swap` is there leaves
/// the old segments (the next open removes the rest); after, the next open finishes the swap
/// ([`super::partition`]'s leftover rules, Kafka's `LogLoader`). `txn` is carried from group
/// to group.
#[allow(clippy::too_many_arguments)]
fn clean_group(
    dir: &Path,
    group: &[i64],
    next_bases: &HashMap<i64, i64>,
    log_config: &LogConfig,
    cleaning: &Cleaning<'_>,
    mtimes: &HashMap<i64, i64>,
    txn: &mut TxnState,
    plan: &mut CompactionPlan,
    progress: &mut dyn FnMut(u64),
) -> Result<()> {
    let Some(&base) = group.first() else {
        return Ok(());
    };
    let mut cleaned =
        LogSegment::open_writable_suffixed(dir, base, log_config, cleaning.now_ms, ".cleaned")?;
    let mut last_mtime = None;
    let mut keep = Vec::new();
    txn.cleaned_index.clear();
    let written = (|| -> Result<()> {
        for &old in group {
            let seg = LogSegment::open_read_only(dir, old)?;
            last_mtime = fs::metadata(seg.log_path()).and_then(|m| m.modified()).ok();
            let segment_mtime = mtimes.get(&old).copied().unwrap_or(0);
            let next = next_bases.get(&old).copied().unwrap_or(i64::MAX);
            txn.add_aborted(aborted_in(cleaning.scan, old, next));
            let mut reader = seg.reader_at(0)?;
            while let Some((position, batch)) = reader.next_batch()? {
                progress(batch.size_in_bytes() as u64);
                let corrupt = |source| LogError::Corrupt {
                    path: seg.log_path().to_path_buf(),
                    position,
                    source,
                };
                let verdict = cleaning
                    .judge(&batch, txn, plan, segment_mtime, &mut keep)
                    .map_err(corrupt)?;
                match cleaning.filter(&batch, &verdict, &keep).map_err(corrupt)? {
                    Filtered::Original => cleaned.append(
                        batch.as_bytes(),
                        batch.last_offset(),
                        batch.max_timestamp(),
                        batch.last_offset(),
                    )?,
                    Filtered::Rewritten(bytes) => {
                        let raw = RawBatch::read_at(&bytes, 0)
                            .map_err(corrupt)?
                            .ok_or(LogError::InvalidOffset("an empty rewritten batch".into()))?;
                        let (last, max_ts) = (raw.last_offset(), raw.max_timestamp());
                        cleaned.append(&bytes, last, max_ts, last)?;
                    }
                    Filtered::Dropped => {}
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = written {
        // Kafka's `cleaned.deleteIfExists()` of a cleaning given up.
        drop(cleaned);
        remove_cleaned(dir, base);
        return Err(e);
    }
    cleaned.trim()?;
    cleaned.flush()?;
    drop(cleaned);
    if !txn.cleaned_index.is_empty() {
        let path = dir.join(segment::file_name(base, ".txnindex.cleaned"));
        let bytes: Vec<u8> = txn
            .cleaned_index
            .iter()
            .flat_map(AbortedTxn::encode)
            .collect();
        let write = || -> std::io::Result<()> {
            let mut file = fs::File::create(&path)?;
            std::io::Write::write_all(&mut file, &bytes)?;
            file.sync_all()
        };
        write().map_err(LogError::io("writing", &path))?;
    }
    if let Some(mtime) = last_mtime {
        for kind in [".log", ".index", ".timeindex"] {
            let path = dir.join(segment::file_name(base, &format!("{kind}.cleaned")));
            if let Ok(file) = fs::File::options().write(true).open(&path) {
                let _ = file.set_modified(mtime);
            }
        }
    }
    sync_dir(dir)?;
    change_suffixes(dir, base, ".cleaned", ".swap")?;
    sync_dir(dir)?;
    for &old in group {
        change_suffixes(dir, old, "", retention::DELETED_SUFFIX)?;
        if old != base {
            // Kafka's `deleteProducerSnapshots` of the segments replaced by none of the same base.
            let snapshot = dir.join(segment::file_name(old, ".snapshot"));
            let deleted = dir.join(segment::file_name(
                old,
                &format!(".snapshot{}", retention::DELETED_SUFFIX),
            ));
            match fs::rename(&snapshot, &deleted) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(LogError::io("renaming", snapshot)(e)),
            }
        }
    }
    sync_dir(dir)?;
    change_suffixes(dir, base, ".swap", "")?;
    sync_dir(dir)?;
    Ok(())
}

/// Cleans the compacted partition in `dir` (whose writer the caller is, holding its
/// partition lock; `bases` its segments, the last one active) as Kafka's cleaner would now,
/// if it would: the segments from the log start to the end of the offset map, group by group.
/// Returns the plan (its counts those of the records rewritten) and whether it cleaned;
/// `progress` is told the bytes of each batch rewritten. The `.deleted` files of the old segments are removed when
/// `file_delete_delay_ms` is 0, else left for a later pass.
#[allow(clippy::too_many_arguments)]
pub(crate) fn clean(
    dir: &Path,
    bases: &[i64],
    log_config: &LogConfig,
    log_start_offset: i64,
    log_end_offset: i64,
    cleaner_checkpoint: Option<i64>,
    config: &CompactionConfig,
    file_delete_delay_ms: i64,
    now_ms: i64,
    progress: &mut dyn FnMut(u64),
) -> Result<(CompactionPlan, bool)> {
    let view = Checkpoints {
        log_start_offset,
        cleaner_checkpoint,
        log_end_offset: Some(log_end_offset),
    };
    let analysis = analyse(dir, &view, config, now_ms, false)?;
    let mut plan = analysis.plan.clone();
    if !matches!(
        plan.cleanability,
        Cleanability::DirtyRatio | Cleanability::MaxCompactionLag
    ) || plan.end_offset <= plan.first_dirty_offset
    {
        return Ok((plan, false));
    }
    let cleaning = Cleaning {
        map: &analysis.map,
        scan: &analysis.scan,
        config,
        now_ms,
        upper_bound: plan.first_uncleanable_offset,
        legacy_delete_horizon_ms: analysis.legacy_delete_horizon_ms,
    };
    let mtimes: HashMap<i64, i64> = analysis.mtimes.iter().copied().collect();
    let next_bases: HashMap<i64, i64> = bases
        .iter()
        .zip(bases.iter().skip(1))
        .map(|(&b, &n)| (b, n))
        .collect();
    let to_clean: Vec<i64> = bases
        .iter()
        .copied()
        .filter(|&b| b < plan.end_offset)
        .collect();
    let mut txn = TxnState::default();
    for group in group_segments(dir, &to_clean, plan.first_uncleanable_offset, log_config)? {
        clean_group(
            dir,
            &group,
            &next_bases,
            log_config,
            &cleaning,
            &mtimes,
            &mut txn,
            &mut plan,
            progress,
        )?;
    }
    if file_delete_delay_ms == 0 {
        retention::remove_deleted_files(&retention::PartitionFiles::list(dir)?, 0, i64::MAX, true)?;
    }
    Ok((plan, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_in_place_are_the_records_keys() {
        use crate::record::{BatchBuilder, Compression, RawBatch, TimestampType};
        for codec in [Compression::None, Compression::Zstd] {
            let mut b = BatchBuilder::new(40, codec, TimestampType::CreateTime);
            b.append(1, Some(b"a"), Some(b"1"), &[]);
            b.append(2, None, Some(b"2"), &[]);
            b.append(3, Some(b"b"), None, &[]);
            let bytes = b.build().unwrap();
            let batch = RawBatch::read_at(&bytes, 0).unwrap().unwrap();
            let mut seen = Vec::new();
            let mut it = batch.record_iter().unwrap();
            while let Some(read) = it.next_key(|offset, key, value| {
                seen.push((offset, key.map(<[u8]>::to_vec), value));
            }) {
                read.unwrap();
            }
            let want: Vec<_> = batch
                .records()
                .unwrap()
                .into_iter()
                .map(|r| (r.offset, r.key, r.value.is_some()))
                .collect();
            assert_eq!(seen, want, "{codec:?}");
            assert_eq!(seen.len(), 3);
        }
    }

    #[test]
    fn an_emptied_batch_is_kafkas_empty_header() {
        use crate::record::{BatchBuilder, Compression, RawBatch, TimestampType};
        let mut b = BatchBuilder::new(10, Compression::Gzip, TimestampType::LogAppendTime)
            .producer_id(7)
            .producer_epoch(3)
            .base_sequence(5)
            .partition_leader_epoch(2)
            .transactional(true)
            .delete_horizon_ms(99)
            .log_append_time(1234);
        b.append(1, Some(b"k"), Some(b"v"), &[]);
        b.append(2, Some(b"k"), None, &[]);
        let bytes = b.build().unwrap();
        let empty = empty_batch(&BatchHeader::parse(&bytes).unwrap());
        assert_eq!(empty.len(), RECORD_BATCH_OVERHEAD);
        assert!(RawBatch::read_at(&empty, 0).unwrap().unwrap().is_valid());
        let e = BatchHeader::parse(&empty).unwrap();
        assert_eq!(
            (e.base_offset, e.last_offset(), e.records_count),
            (10, 11, 0)
        );
        assert_eq!((e.base_timestamp, e.max_timestamp), (-1, 1234));
        // LogAppendTime and transactional kept; no codec, no delete horizon.
        assert_eq!(e.attributes, 0x08 | 0x10);
        assert_eq!(
            (e.producer_id, e.producer_epoch, e.base_sequence),
            (7, 3, 5)
        );
        assert_eq!(e.partition_leader_epoch, 2);
    }

    #[test]
    fn a_rebuilt_batch_keeps_its_base_and_last_offsets() {
        use crate::record::{BatchBuilder, Compression, RawBatch, TimestampType};
        let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime)
            .producer_id(4)
            .producer_epoch(1)
            .base_sequence(9);
        b.append(5, Some(b"b"), Some(b"1"), &[]);
        b.append(6, Some(b"a"), Some(b"1"), &[]);
        let bytes = b.build().unwrap();
        let batch = RawBatch::read_at(&bytes, 0).unwrap().unwrap();
        // a has a later record (5): the batch's last record goes.
        let mut map = OffsetMap::new(100 * BYTES_PER_ENTRY);
        map.put(b"b", 0);
        map.put(b"a", 5);
        let (scan, config) = (ProducerScan::default(), CompactionConfig::default());
        let cleaning = Cleaning {
            map: &map,
            scan: &scan,
            config: &config,
            now_ms: 0,
            upper_bound: 100,
            legacy_delete_horizon_ms: 0,
        };
        let mut plan = CompactionPlan {
            first_dirty_offset: 0,
            first_uncleanable_offset: 100,
            clean_bytes: 0,
            dirty_bytes: 0,
            dirty_ratio: 0.0,
            cleanability: Cleanability::DirtyRatio,
            end_offset: 6,
            keys: 2,
            records: 0,
            superseded: 0,
            without_key: 0,
            tombstones_removed: 0,
            tombstones_marked: 0,
            aborted: 0,
            markers_removed: 0,
        };
        let (mut txn, mut keep) = (TxnState::default(), Vec::new());
        let verdict = cleaning
            .judge(&batch, &mut txn, &mut plan, 0, &mut keep)
            .unwrap();
        assert_eq!(keep, [true, false]);
        assert_eq!((plan.records, plan.superseded), (2, 1));
        let Filtered::Rewritten(out) = cleaning.filter(&batch, &verdict, &keep).unwrap() else {
            panic!("not rewritten");
        };
        let h = BatchHeader::parse(&out).unwrap();
        // Kafka's overrideLastOffset: the producer's last sequence (9 + 1) survives.
        assert_eq!((h.base_offset, h.last_offset(), h.records_count), (0, 1, 1));
        assert_eq!(
            (h.producer_id, h.producer_epoch, h.base_sequence),
            (4, 1, 9)
        );
        assert_eq!(h.last_sequence(), 10);
        let rewritten = RawBatch::read_at(&out, 0).unwrap().unwrap();
        assert!(rewritten.is_valid());
        let records = rewritten.records().unwrap();
        let kept: Vec<(i64, i64)> = records.iter().map(|r| (r.offset, r.timestamp)).collect();
        assert_eq!(kept, [(0, 5)]);
    }

    #[test]
    fn the_map_keeps_the_latest_offset_and_fills_at_nine_tenths() {
        let mut map = OffsetMap::new(10 * BYTES_PER_ENTRY);
        assert_eq!(map.slots(), 10);
        assert_eq!(map.max_entries(), 9);
        assert!(map.put(b"a", 1));
        assert!(map.put(b"a", 5));
        assert_eq!(map.get(b"a"), 5);
        assert_eq!(map.len(), 1);
        assert_eq!(map.get(b"absent"), -1);
        for i in 0..8u8 {
            assert!(map.put(&[b'k', i], i64::from(i) + 10));
        }
        assert_eq!(map.len(), 9);
        // Full: even a key it has is refused, as Kafka stops there.
        assert!(!map.put(b"a", 30));
        assert_eq!(map.get(b"a"), 5);
        assert_eq!(map.latest_offset(), 17);
        for i in 0..8u8 {
            assert_eq!(map.get(&[b'k', i]), i64::from(i) + 10);
        }
    }
}
