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
//! `.cleaned` and `.swap` files. Partitions holding transactional, control or legacy (magic
//! 0/1) batches are reported as such and left alone (Kafka's rules for aborted transactions,
//! markers and legacy tombstones are not done).
//!
//! The key hash is XXH3-128 where Kafka uses MD5: both give the 16 bytes a slot holds, and
//! which of two keys that collide in 128 bits is lost is equally negligible.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use twox_hash::XxHash3_128;

use super::config::LogConfig;
use super::error::{LogError, Result};
use super::partition::{list_segments, sync_dir};
use super::retention;
use super::segment::{self, LogSegment};
use crate::record::{BatchBuilder, BatchHeader, RawBatch, TimestampType};

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

/// Kafka's `SkimpyOffsetMap`: an open-addressing table of key hashes and offsets in one buffer
/// of a fixed size.
#[derive(Debug)]
pub struct OffsetMap {
    bytes: Vec<u8>,
    slots: usize,
    entries: usize,
    latest_offset: i64,
}

impl OffsetMap {
    /// A map within `memory` bytes.
    pub fn new(memory: usize) -> Self {
        let slots = (memory / BYTES_PER_ENTRY).max(1);
        OffsetMap {
            bytes: vec![0; slots * BYTES_PER_ENTRY],
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
    /// The log holds batches this analysis does not read (transactional, control, magic 0/1).
    Unsupported,
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
}

impl CompactionPlan {
    /// Records a cleaning would remove.
    pub fn removed(&self) -> u64 {
        self.superseded + self.without_key + self.tombstones_removed
    }
}

/// One segment as the analysis sees it.
struct Seg {
    base: i64,
    size: u64,
    largest_timestamp: i64,
    first_batch_timestamp: Option<i64>,
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
    analyse(dir, &view, config, now_ms, true).map(|(plan, _)| plan)
}

/// Where a log starts and ends and was last cleaned, as [`analyse`] takes them.
struct Checkpoints {
    log_start_offset: i64,
    cleaner_checkpoint: Option<i64>,
    /// The log end when the caller knows it (its writer): the active segment is then not read
    /// (its indexes are the writer's, preallocated).
    log_end_offset: Option<i64>,
}

/// [`plan_read_only`], and the offset map; the records a cleaning would remove are counted
/// only when `count` (a cleaning counts them as it goes).
fn analyse(
    dir: &Path,
    view: &Checkpoints,
    config: &CompactionConfig,
    now_ms: i64,
    count: bool,
) -> Result<(CompactionPlan, OffsetMap)> {
    let (log_start_offset, cleaner_checkpoint) = (view.log_start_offset, view.cleaner_checkpoint);
    let bases = list_segments(dir)?;
    let mut segs = Vec::with_capacity(bases.len());
    let mut log_end_offset = bases.first().copied().unwrap_or(0);
    for (i, &base) in bases.iter().enumerate() {
        let active = i + 1 == bases.len();
        if let (true, Some(end)) = (active, view.log_end_offset) {
            // Never cleaned nor counted: only its base matters.
            log_end_offset = end;
            segs.push(Seg {
                base,
                size: 0,
                largest_timestamp: now_ms,
                first_batch_timestamp: None,
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
        });
    }
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
    let mut first_uncleanable = active_base.min(log_end_offset);
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
    let mut cleanability = if need_now && dirty_bytes > 0 {
        Cleanability::MaxCompactionLag
    } else if dirty_ratio > config.min_cleanable_dirty_ratio {
        Cleanability::DirtyRatio
    } else {
        Cleanability::NotDirtyEnough
    };
    let mut plan = CompactionPlan {
        first_dirty_offset: first_dirty,
        first_uncleanable_offset: uncleanable_base,
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
    };
    // The map over the dirty range, up to where it fills.
    let mut map = OffsetMap::new(config.dedupe_buffer_size);
    let mut supported = true;
    'map: for (i, seg) in segs.iter().enumerate() {
        if seg.base >= uncleanable_base || next_base(i) <= first_dirty {
            continue;
        }
        let segment = LogSegment::open_read_only(dir, seg.base)?;
        let mut reader = segment.reader_at(0)?;
        while let Some((_, batch)) = reader.next_batch()? {
            if batch.magic() < 2 || batch.is_transactional() || batch.is_control() {
                supported = false;
                break 'map;
            }
            let corrupt = |source| super::LogError::Corrupt {
                path: segment.log_path().to_path_buf(),
                position: 0,
                source,
            };
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
    }
    if !supported {
        cleanability = Cleanability::Unsupported;
        plan.cleanability = cleanability;
        return Ok((plan, map));
    }
    plan.keys = map.len();
    plan.end_offset = if map.latest_offset() >= 0 {
        map.latest_offset() + 1
    } else {
        first_dirty
    };
    if !count {
        return Ok((plan, map));
    }
    // What a cleaning of the segments from the start to the map's end would keep.
    let end_offset = plan.end_offset;
    for seg in segs.iter().filter(|s| s.base < end_offset) {
        let segment = LogSegment::open_read_only(dir, seg.base)?;
        let mut reader = segment.reader_at(0)?;
        while let Some((_, batch)) = reader.next_batch()? {
            if batch.magic() < 2 || batch.is_transactional() || batch.is_control() {
                plan.cleanability = Cleanability::Unsupported;
                return Ok((plan, map));
            }
            let horizon = batch.delete_horizon_ms();
            let records = batch.records().map_err(|source| super::LogError::Corrupt {
                path: segment.log_path().to_path_buf(),
                position: 0,
                source,
            })?;
            for r in &records {
                retain(&mut plan, &map, r, horizon, now_ms);
            }
        }
    }
    Ok((plan, map))
}

/// Kafka's `Cleaner.shouldRetainRecord`, counting in `plan` what it keeps and drops.
fn retain(
    plan: &mut CompactionPlan,
    map: &OffsetMap,
    r: &crate::record::Record,
    horizon: Option<i64>,
    now_ms: i64,
) -> bool {
    plan.records += 1;
    if r.offset > map.latest_offset() {
        return true;
    }
    let Some(key) = &r.key else {
        plan.without_key += 1;
        return false;
    };
    if r.offset < map.get(key) {
        plan.superseded += 1;
        return false;
    }
    if r.value.is_none() {
        match horizon {
            Some(h) if now_ms >= h => {
                plan.tombstones_removed += 1;
                return false;
            }
            Some(_) => {}
            None => plan.tombstones_marked += 1,
        }
    }
    true
}

/// The last offset of each producer's last data batch in the segments `bases` of `dir`
/// (Kafka's active producers' `lastDataOffset`), from the batch headers alone.
fn producers_last_offsets(dir: &Path, bases: &[i64]) -> Result<HashMap<i64, i64>> {
    use std::os::unix::fs::FileExt;
    let mut last = HashMap::new();
    let mut header = [0u8; crate::record::RECORD_BATCH_OVERHEAD];
    for &base in bases {
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
            if h.magic >= 2 && h.producer_id >= 0 && !h.is_control() {
                last.insert(h.producer_id, h.last_offset());
            }
            position += crate::record::LOG_OVERHEAD as u64 + length;
        }
    }
    Ok(last)
}

/// Kafka's `DefaultRecordBatch.writeEmptyHeader`: the batch kept without its records (the last
/// one of a producer), its offsets, producer fields and max timestamp as they were.
fn empty_batch(h: &BatchHeader) -> Vec<u8> {
    let empty = BatchHeader {
        batch_length: i32::try_from(
            crate::record::RECORD_BATCH_OVERHEAD - crate::record::LOG_OVERHEAD,
        )
        .unwrap_or(49),
        crc: 0,
        base_timestamp: h.max_timestamp,
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
    /// Rewritten (fewer records, or a delete horizon set), or kept empty.
    Rewritten(Vec<u8>),
    /// Dropped.
    Dropped,
}

/// Kafka's `MemoryRecords.filterTo` for one batch of a cleaning: records are kept by
/// [`retain`]; a batch that keeps them all and needs no delete horizon is written as it is;
/// one that keeps some is rebuilt from them with its codec, producer fields and leader epoch,
/// from its first kept offset, with a delete horizon of now + `delete.retention.ms` when it
/// keeps a tombstone and had none (Kafka stores it as the base timestamp); one that keeps none
/// is dropped, unless it is its producer's last, which stays as an empty batch.
fn filter_batch(
    batch: &RawBatch<'_>,
    plan: &mut CompactionPlan,
    map: &OffsetMap,
    producers: &HashMap<i64, i64>,
    config: &CompactionConfig,
    now_ms: i64,
) -> std::result::Result<Filtered, crate::record::RecordError> {
    let header = batch
        .header()
        .ok_or(crate::record::RecordError::Truncated {
            position: 0,
            what: "record batch",
            needed: crate::record::RECORD_BATCH_OVERHEAD,
            remaining: batch.size_in_bytes(),
        })?;
    let horizon = batch.delete_horizon_ms();
    let records = batch.records()?;
    let mut kept = Vec::with_capacity(records.len());
    let mut tombstones = false;
    for r in records {
        if retain(plan, map, &r, horizon, now_ms) {
            tombstones |= r.value.is_none();
            kept.push(r);
        }
    }
    let needs_horizon = tombstones && horizon.is_none();
    let count = usize::try_from(header.records_count).unwrap_or(0);
    if kept.len() == count && !needs_horizon {
        return Ok(Filtered::Original);
    }
    let Some(first) = kept.first() else {
        let last_of_producer = header.producer_id >= 0
            && producers.get(&header.producer_id) == Some(&header.last_offset());
        return Ok(if last_of_producer {
            Filtered::Rewritten(empty_batch(&header))
        } else {
            Filtered::Dropped
        });
    };
    let mut builder = BatchBuilder::new(first.offset, batch.compression()?, batch.timestamp_type())
        .producer_id(header.producer_id)
        .producer_epoch(header.producer_epoch)
        .base_sequence(header.base_sequence)
        .partition_leader_epoch(header.partition_leader_epoch);
    if needs_horizon {
        builder = builder.delete_horizon_ms(now_ms.saturating_add(config.delete_retention_ms));
    } else if let Some(h) = horizon {
        builder = builder.delete_horizon_ms(h);
    }
    if batch.timestamp_type() == TimestampType::LogAppendTime {
        builder = builder.log_append_time(header.max_timestamp);
    }
    for r in &kept {
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
/// writes `<base>.log.cleaned` and its indexes, syncs them, renames them `.swap`, renames the
/// old segments `.deleted`, then the swap to the final names. A crash before every `.swap` is
/// there leaves the old segments (the next open removes the rest); after, the next open
/// finishes the swap ([`super::partition`]'s leftover rules, Kafka's `LogLoader`). `Ok(false)`
/// when a batch it cannot clean is met: nothing changes.
#[allow(clippy::too_many_arguments)]
fn clean_group(
    dir: &Path,
    group: &[i64],
    log_config: &LogConfig,
    plan: &mut CompactionPlan,
    map: &OffsetMap,
    producers: &HashMap<i64, i64>,
    config: &CompactionConfig,
    now_ms: i64,
    progress: &mut dyn FnMut(u64),
) -> Result<bool> {
    let Some(&base) = group.first() else {
        return Ok(true);
    };
    let mut cleaned =
        LogSegment::open_writable_suffixed(dir, base, log_config, now_ms, ".cleaned")?;
    let mut last_mtime = None;
    for &old in group {
        let seg = LogSegment::open_read_only(dir, old)?;
        last_mtime = fs::metadata(seg.log_path()).and_then(|m| m.modified()).ok();
        let mut reader = seg.reader_at(0)?;
        while let Some((position, batch)) = reader.next_batch()? {
            progress(batch.size_in_bytes() as u64);
            if batch.magic() < 2 || batch.is_transactional() || batch.is_control() {
                drop(cleaned);
                remove_cleaned(dir, base);
                return Ok(false);
            }
            let corrupt = |source| LogError::Corrupt {
                path: seg.log_path().to_path_buf(),
                position,
                source,
            };
            match filter_batch(&batch, plan, map, producers, config, now_ms).map_err(corrupt)? {
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
    cleaned.trim()?;
    cleaned.flush()?;
    drop(cleaned);
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
    Ok(true)
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
    let (mut plan, map) = analyse(dir, &view, config, now_ms, false)?;
    if !matches!(
        plan.cleanability,
        Cleanability::DirtyRatio | Cleanability::MaxCompactionLag
    ) || plan.end_offset <= plan.first_dirty_offset
    {
        return Ok((plan, false));
    }
    let producers = producers_last_offsets(dir, bases)?;
    let to_clean: Vec<i64> = bases
        .iter()
        .copied()
        .filter(|&b| b < plan.end_offset)
        .collect();
    for group in group_segments(dir, &to_clean, plan.end_offset, log_config)? {
        if !clean_group(
            dir, &group, log_config, &mut plan, &map, &producers, config, now_ms, progress,
        )? {
            // Groups before this one are cleaned; the checkpoint stays where it was, so the
            // next cleaning maps the same range again.
            plan.cleanability = Cleanability::Unsupported;
            return Ok((plan, false));
        }
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
