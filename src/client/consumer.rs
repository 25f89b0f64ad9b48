//! The consumer side: reading a partition from an offset on, batch by batch, without the data
//! directory's lock, and following it as it grows.
//!
//! A [`Fetcher`] finds its starting batch through [`LogReader::seek`] (segment binary search,
//! then the segment's `.index`), never by scanning the partition, then streams the segment and
//! moves to the next one. When it reaches the end it lets go of the files; the next fetch opens
//! the partition again and seeks, so records appended (and segments rolled) in between are seen.
//! It first checks that the partition is still there and still the topic it first read (its id
//! in `partition.metadata`): a topic deleted, or deleted and created again, ends the fetch with
//! an error instead of splicing the new topic's records onto the old one's offsets.
//!
//! [`PartitionConsumer`] turns batches into records as Kafka's consumer hands them out: control
//! batches are never shown, and with `read_committed` the records of aborted transactions are
//! skipped and nothing past the first open transaction (the last stable offset) is returned.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use crate::datadir::meta::read_partition_metadata;
use crate::datadir::Uuid;
use crate::log::{LogError, LogReader, SegmentReader, SkippedTail, Stop};
use crate::record::{ControlRecordType, RawBatch, Record, RecordError, RecordIter, MAGIC_V2};

/// Which records a consumer sees (`isolation.level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IsolationLevel {
    /// Every record, including those of open and aborted transactions.
    #[default]
    ReadUncommitted,
    /// Only committed records, up to the first open transaction.
    ReadCommitted,
}

/// Streams the batches of one partition directory from an offset on.
#[derive(Debug)]
pub struct Fetcher {
    dir: PathBuf,
    /// The offset the next batch must reach past.
    next: i64,
    open: Option<Open>,
    /// The partition's topic id (`partition.metadata`) when it was first opened: `None` before
    /// that, `Some(None)` for a partition without one.
    topic_id: Option<Option<Uuid>>,
    /// `check.crcs`: every batch handed out has its checksum verified.
    check_crcs: bool,
    /// The unread tail of the active segment last found, and whether it was handed to
    /// [`Self::take_skipped`] already (a follower finds it at every poll; it is told once).
    skipped: Option<(SkippedTail, bool)>,
}

#[derive(Debug)]
struct Open {
    log: LogReader,
    base: i64,
    reader: SegmentReader,
}

impl Fetcher {
    /// A fetcher of the partition in `dir` whose first batch holds `offset`.
    pub fn new(dir: PathBuf, offset: i64) -> Self {
        Self {
            dir,
            next: offset,
            open: None,
            topic_id: None,
            check_crcs: true,
            skipped: None,
        }
    }

    /// Sets `check.crcs` (true by default, as in Kafka's consumer).
    pub fn with_check_crcs(mut self, check_crcs: bool) -> Self {
        self.check_crcs = check_crcs;
        self
    }

    /// Bytes at the end of the active segment that the reading stopped before (they do not
    /// frame a batch: a torn or zero-filled tail), once for each place found.
    pub fn take_skipped(&mut self) -> Option<SkippedTail> {
        match &mut self.skipped {
            Some((tail, told @ false)) => {
                *told = true;
                Some(tail.clone())
            }
            _ => None,
        }
    }

    fn partition(&self) -> String {
        partition_name(&self.dir)
    }

    /// Kafka's consumer error for a batch it cannot hand out.
    fn invalid(&self, offset: i64, cause: String) -> ConsumeError {
        ConsumeError::Corrupt {
            partition: self.partition(),
            offset,
            cause,
        }
    }

    /// A corruption the log reader found, as the consumer reports it; other errors unchanged.
    fn corruption(&self, error: LogError) -> ConsumeError {
        match error {
            LogError::Corrupt {
                path,
                position,
                source,
            } => self.invalid(
                self.next,
                format!("{source} of {} (batch at byte {position})", path.display()),
            ),
            // Named by the offset the read had reached: the batch's own may be the damage.
            LogError::OffsetDisorder { .. } | LogError::EntryTooLarge { .. } => {
                self.invalid(self.next, error.to_string())
            }
            error => ConsumeError::Log(error),
        }
    }

    /// `check.crcs`: Kafka's `CompletedFetch.maybeEnsureValid` for a batch about to be handed
    /// out.
    fn ensure_valid(&self, batch: &RawBatch<'_>) -> Result<(), ConsumeError> {
        if !self.check_crcs {
            return Ok(());
        }
        match batch.ensure_valid() {
            Ok(()) => Ok(()),
            Err(RecordError::CrcMismatch {
                stored, computed, ..
            }) => {
                let cause =
                    format!("Record is corrupt (stored crc = {stored}, computed crc = {computed})");
                Err(if batch.magic() >= MAGIC_V2 {
                    self.invalid(batch.base_offset(), cause)
                } else {
                    // Kafka checks a legacy entry as a record.
                    ConsumeError::CorruptRecord {
                        partition: self.partition(),
                        offset: batch.base_offset(),
                        cause,
                    }
                })
            }
            Err(other) => Err(self.invalid(batch.base_offset(), other.to_string())),
        }
    }

    /// Checks that the partition is still the one first opened. A topic deleted and created
    /// again under the same name has a new id, and its log is not the one this position
    /// belongs to: reading it on from there would splice two topics' records.
    fn check_identity(&mut self) -> Result<(), ConsumeError> {
        // An unreadable partition.metadata is not this check's to report.
        let now = || read_partition_metadata(&self.dir).ok().flatten();
        let Some(first) = self.topic_id else {
            self.topic_id = Some(now());
            return Ok(());
        };
        if !self.dir.is_dir() {
            return Err(self.deleted());
        }
        match (first, now()) {
            (Some(was), Some(now)) if now != was => Err(ConsumeError::Replaced {
                dir: self.dir.clone(),
                was,
                now,
            }),
            _ => Ok(()),
        }
    }

    fn deleted(&self) -> ConsumeError {
        ConsumeError::Deleted {
            dir: self.dir.clone(),
        }
    }

    /// The offset after the last batch returned.
    pub fn position(&self) -> i64 {
        self.next
    }

    /// The next batch holding offsets at or past [`Self::position`] (a copy of its bytes), or
    /// `None` when the partition has nothing more yet.
    pub fn next_batch(&mut self) -> Result<Option<Vec<u8>>, ConsumeError> {
        self.read_next_batch().map_err(|e| self.unless_gone(e))
    }

    /// An error reading the partition, unless the partition went away meanwhile: its topic
    /// deleted (or deleted and created again), its segment files vanish under the reader, and
    /// that is what to report rather than the file that was missing. Corruption the log reader
    /// found is reported as Kafka's consumer reports it ([`ConsumeError::Corrupt`]).
    #[cold]
    fn unless_gone(&mut self, error: ConsumeError) -> ConsumeError {
        self.open = None;
        let error = match error {
            ConsumeError::Log(_) if self.topic_id.is_some() => {
                self.check_identity().err().unwrap_or(error)
            }
            error => error,
        };
        match error {
            ConsumeError::Log(error) => self.corruption(error),
            error => error,
        }
    }

    fn read_next_batch(&mut self) -> Result<Option<Vec<u8>>, ConsumeError> {
        loop {
            if self.open.is_none() {
                self.check_identity()?;
                let mut log = LogReader::open(&self.dir)?;
                let Some((base, found)) = log.seek(self.next)? else {
                    return Ok(None);
                };
                let reader = log.reader(base, found.position)?;
                self.open = Some(Open { log, base, reader });
            }
            let Some(mut open) = self.open.take() else {
                return Ok(None);
            };
            if let Some((_, batch)) = open.reader.next_batch()? {
                if batch.next_offset() <= self.next {
                    self.open = Some(open);
                    continue;
                }
                self.ensure_valid(&batch)?;
                self.next = batch.next_offset();
                let bytes = batch.as_bytes().to_vec();
                self.open = Some(open);
                return Ok(Some(bytes));
            }
            // The end of this segment: the next one if the reader knows it, else let go and
            // look again (with a fresh view of the directory) on the next call.
            match (open.log.next_segment(open.base), open.reader.stop()) {
                (Some(base), Stop::Clean) => {
                    open.reader = open.log.reader(base, 0)?;
                    open.base = base;
                    self.open = Some(open);
                }
                // A closed segment is whole: bytes after its last batch are corruption (the
                // active one's are a batch being written, or a torn tail).
                (
                    Some(_),
                    Stop::Trailing { position, bytes }
                    | Stop::Invalid {
                        position, bytes, ..
                    },
                ) => {
                    return Err(self.invalid(
                        self.next,
                        format!(
                            "{} ends with {bytes} bytes at byte {position} that do not form a record batch",
                            open.reader.path().display()
                        ),
                    ));
                }
                (None, stop) => {
                    if let Some(tail) = SkippedTail::from_stop(open.reader.path(), stop) {
                        if self
                            .skipped
                            .as_ref()
                            .is_none_or(|(known, _)| *known != tail)
                        {
                            self.skipped = Some((tail, false));
                        }
                    }
                    return Ok(None);
                }
            }
        }
    }
}

/// A record and the batch facts that go with it.
#[derive(Debug, Clone)]
pub struct ConsumedRecord {
    /// The record.
    pub record: Record,
    /// The batch's partitionLeaderEpoch (-1 when none).
    pub leader_epoch: i32,
}

/// Errors while consuming.
#[derive(Debug, thiserror::Error)]
pub enum ConsumeError {
    /// The log could not be read.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The partition's directory was removed while it was read (its topic deleted).
    #[error("{}: the partition no longer exists (its topic was deleted while it was consumed)", dir.display())]
    Deleted {
        /// The partition directory.
        dir: PathBuf,
    },
    /// The topic was deleted and created again under the same name while it was read.
    #[error("{}: the topic was deleted and created again while it was consumed (topic id {was}, now {now}); the new topic is not read on from the old one's position", dir.display())]
    Replaced {
        /// The partition directory.
        dir: PathBuf,
        /// The topic id when the partition was first read.
        was: Uuid,
        /// The topic id now.
        now: Uuid,
    },
    /// A batch fails its checksum (`check.crcs`) or breaks the log's framing or offset order:
    /// Kafka's consumer error for it.
    #[error(
        "Record batch for partition {partition} at offset {offset} is invalid, cause: {cause}"
    )]
    Corrupt {
        /// `topic-partition`.
        partition: String,
        /// The batch's base offset, or the offset the read had reached.
        offset: i64,
        /// What is wrong with it.
        cause: String,
    },
    /// A legacy (magic 0 or 1) entry fails its checksum: Kafka checks those as records.
    #[error("Record for partition {partition} at offset {offset} is invalid, cause: {cause}")]
    CorruptRecord {
        /// `topic-partition`.
        partition: String,
        /// The entry's offset.
        offset: i64,
        /// What is wrong with it.
        cause: String,
    },
    /// A batch did not decode (with `check.crcs=false`, or bytes the CRC covers that are wrong
    /// all the same): Kafka's consumer error for it, the decoder's error its cause.
    #[error("Received exception when fetching the next record from {partition}. If needed, please seek past the record to continue consumption.")]
    Record {
        /// `topic-partition`.
        partition: String,
        /// The batch's base offset.
        offset: i64,
        /// The decoder's error.
        #[source]
        source: crate::record::RecordError,
    },
    /// Fetching from a cluster failed (`--bootstrap-server`).
    #[cfg(feature = "net")]
    #[error(transparent)]
    Network(#[from] crate::net::NetError),
}

/// Where a [`PartitionConsumer`] gets its partition's batches: a [`Fetcher`] reading the
/// partition's directory, or a cluster's Fetch responses (`net::fetch`).
pub trait BatchSource: std::fmt::Debug + Send {
    /// The next batch holding offsets past the last one returned, or `None` when there is
    /// nothing more yet.
    fn next_batch(&mut self) -> Result<Option<Vec<u8>>, ConsumeError>;

    /// A torn tail the source stopped before, once for each place found.
    fn take_skipped(&mut self) -> Option<SkippedTail> {
        None
    }
}

impl BatchSource for Fetcher {
    fn next_batch(&mut self) -> Result<Option<Vec<u8>>, ConsumeError> {
        Fetcher::next_batch(self)
    }

    fn take_skipped(&mut self) -> Option<SkippedTail> {
        Fetcher::take_skipped(self)
    }
}

/// A partition's name as Kafka prints it (`topic-partition`): its directory's name.
fn partition_name(dir: &std::path::Path) -> String {
    dir.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The batch a consumer is handing out.
#[derive(Debug)]
struct Current {
    records: RecordIter<'static>,
    leader_epoch: i32,
    base_offset: i64,
    next_offset: i64,
}

/// A [`PartitionConsumer`]'s batches. The directory's fetcher stays inline: it is what
/// every local read goes through, one per partition.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Source {
    Dir(Fetcher),
    Other(Box<dyn BatchSource>),
}

/// One partition read as a consumer sees it.
#[derive(Debug)]
pub struct PartitionConsumer {
    fetcher: Source,
    /// `topic-partition`, for errors.
    name: String,
    isolation: IsolationLevel,
    /// The offset of the next record to hand out.
    position: i64,
    /// The leader epoch of the last batch read up to [`Self::position`] (Kafka's
    /// `FetchPosition.offsetEpoch`), `None` until one with an epoch is read.
    position_epoch: Option<i32>,
    /// Batches read ahead (read_committed: waiting for their transaction's outcome).
    pending: VecDeque<Vec<u8>>,
    /// Transaction markers seen ahead, per producer id: (marker offset, committed).
    markers: HashMap<i64, VecDeque<(i64, bool)>>,
    /// The batch being handed out, its records decoded (and decompressed) one at a time.
    current: Option<Current>,
}

impl PartitionConsumer {
    /// A consumer of the partition in `dir`, starting at `offset`.
    pub fn new(dir: PathBuf, offset: i64, isolation: IsolationLevel) -> Self {
        Self {
            name: partition_name(&dir),
            fetcher: Source::Dir(Fetcher::new(dir, offset)),
            isolation,
            position: offset,
            position_epoch: None,
            pending: VecDeque::new(),
            markers: HashMap::new(),
            current: None,
        }
    }

    /// A consumer of partition `name` (`topic-partition`) reading the batches `source` hands
    /// out, starting at `offset`.
    pub fn from_source(
        name: String,
        source: Box<dyn BatchSource>,
        offset: i64,
        isolation: IsolationLevel,
    ) -> Self {
        Self {
            name,
            fetcher: Source::Other(source),
            isolation,
            position: offset,
            position_epoch: None,
            pending: VecDeque::new(),
            markers: HashMap::new(),
            current: None,
        }
    }

    /// Sets `check.crcs` (true by default, as in Kafka's consumer): a batch whose checksum
    /// does not match ends the read with [`ConsumeError::Corrupt`]. (Another source checks
    /// as it was made to.)
    pub fn with_check_crcs(mut self, check_crcs: bool) -> Self {
        if let Source::Dir(fetcher) = self.fetcher {
            self.fetcher = Source::Dir(fetcher.with_check_crcs(check_crcs));
        }
        self
    }

    /// See [`Fetcher::take_skipped`].
    pub fn take_skipped(&mut self) -> Option<SkippedTail> {
        self.source().take_skipped()
    }

    fn source(&mut self) -> &mut dyn BatchSource {
        match &mut self.fetcher {
            Source::Dir(fetcher) => fetcher,
            Source::Other(source) => source.as_mut(),
        }
    }

    /// The offset of the next record this consumer will hand out.
    pub fn position(&self) -> i64 {
        self.position
    }

    /// The leader epoch that goes with [`Self::position`]: the partitionLeaderEpoch of the
    /// last batch read (Kafka's consumer commits it with the offset), else the one it started
    /// from ([`Self::with_position_epoch`]), else `None`.
    pub fn position_epoch(&self) -> Option<i32> {
        self.position_epoch
    }

    /// Starts with `epoch` as the position's leader epoch (a committed offset's).
    pub fn with_position_epoch(mut self, epoch: Option<i32>) -> Self {
        self.position_epoch = epoch;
        self
    }

    fn corrupt(&self, offset: i64, source: crate::record::RecordError) -> ConsumeError {
        ConsumeError::Record {
            partition: self.name.clone(),
            offset,
            source,
        }
    }

    /// Reads one batch ahead into `pending`; false when the partition has nothing more yet.
    fn read_ahead(&mut self) -> Result<bool, ConsumeError> {
        let Some(bytes) = self.source().next_batch()? else {
            return Ok(false);
        };
        if self.isolation == IsolationLevel::ReadCommitted {
            if let Some(batch) = RawBatch::read_at(&bytes, 0).ok().flatten() {
                if batch.is_control() && batch.is_transactional() {
                    let pid = batch.header().map_or(-1, |h| h.producer_id);
                    let commit = batch
                        .records()
                        .ok()
                        .and_then(|r| r.into_iter().next())
                        .and_then(|r| ControlRecordType::of_record(&r).ok())
                        .is_some_and(|t| t == ControlRecordType::Commit);
                    self.markers
                        .entry(pid)
                        .or_default()
                        .push_back((batch.base_offset(), commit));
                }
            }
        }
        self.pending.push_back(bytes);
        Ok(true)
    }

    /// The next record, or `None` when there is nothing more to hand out yet.
    pub fn next_record(&mut self) -> Result<Option<ConsumedRecord>, ConsumeError> {
        loop {
            if let Some(current) = self.current.as_mut() {
                match current.records.next() {
                    Some(Ok(record)) if record.offset < self.position => continue,
                    Some(Ok(record)) => {
                        self.position = record.offset + 1;
                        return Ok(Some(ConsumedRecord {
                            record,
                            leader_epoch: current.leader_epoch,
                        }));
                    }
                    Some(Err(source)) => {
                        let base = current.base_offset;
                        self.current = None;
                        return Err(self.corrupt(base, source));
                    }
                    None => {
                        self.position = self.position.max(current.next_offset);
                        self.current = None;
                    }
                }
            }
            if self.pending.is_empty() && !self.read_ahead()? {
                return Ok(None);
            }
            let Some(bytes) = self.pending.front() else {
                return Ok(None);
            };
            let batch = match RawBatch::read_at(bytes, 0) {
                Ok(Some(batch)) => batch,
                Ok(None) => {
                    self.pending.pop_front();
                    continue;
                }
                Err(source) => return Err(self.corrupt(self.position, source)),
            };
            let base = batch.base_offset();
            let next = batch.next_offset();
            let pid = batch.header().map_or(-1, |h| h.producer_id);
            let mut deliver = !batch.is_control();
            if batch.is_control() && self.isolation == IsolationLevel::ReadCommitted {
                if let Some(queue) = self.markers.get_mut(&pid) {
                    if queue.front().is_some_and(|(o, _)| *o == base) {
                        queue.pop_front();
                    }
                }
            }
            if deliver
                && batch.is_transactional()
                && self.isolation == IsolationLevel::ReadCommitted
            {
                let last = batch.last_offset();
                let outcome = self
                    .markers
                    .get(&pid)
                    .and_then(|q| q.iter().find(|(o, _)| *o > last))
                    .map(|(_, commit)| *commit);
                match outcome {
                    Some(commit) => deliver = commit,
                    None => {
                        // The transaction is still open: the last stable offset. Read ahead
                        // for its marker, or stop here until it is written.
                        if self.read_ahead()? {
                            continue;
                        }
                        return Ok(None);
                    }
                }
            }
            let leader_epoch = batch.partition_leader_epoch();
            let Some(bytes) = self.pending.pop_front() else {
                continue;
            };
            // Kafka's CompletedFetch: every batch read, delivered or skipped, with an epoch
            // sets the position's.
            if leader_epoch >= 0 {
                self.position_epoch = Some(leader_epoch);
            }
            if deliver {
                let records =
                    RecordIter::owned(bytes).map_err(|source| self.corrupt(base, source))?;
                self.current = Some(Current {
                    records,
                    leader_epoch,
                    base_offset: base,
                    next_offset: next,
                });
            } else {
                self.position = self.position.max(next);
            }
        }
    }
}
