//! The offsets `kafka-consumer-groups.sh --reset-offsets` computes for a group
//! (`ConsumerGroupCommand.prepareOffsetsToReset`, KIP-122): each scenario's offset per
//! partition, with `--to-offset`, `--shift-by` and `--from-file` clamped to the partition's
//! `[log start, log end]` as Kafka's `checkOffsetsRange` does; the text forms of
//! `--to-datetime` (Kafka's `Utils.getDateTime`) and `--by-duration` (Java's
//! `Duration.parse`); and the CSV of `--export`/`--from-file`.
//!
//! Log starts and ends are Kafka's ListOffsets `earliest`/`latest`, and timestamps its
//! `forTimestamp`: of a data directory through [`crate::client::offsets::list_offset`]
//! ([`DirOffsets`]), of a cluster through its ListOffsets answers (`net::groups`); the
//! [`Planner`] is one for both, over a [`LogOffsets`].

use std::collections::BTreeMap;

use super::state::CommittedOffset;
use crate::client::offsets::{list_offset, offset_range, OffsetSpec};
use crate::datadir::checkpoint::LOG_START_OFFSET_CHECKPOINT;
use crate::datadir::{DataDir, DataDirError, OffsetCheckpoint, TopicPartition};
use crate::log::{LogError, SkippedTail};

/// How the new offsets are chosen (one scenario of `--reset-offsets`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scenario {
    /// `--to-earliest`: the log start.
    Earliest,
    /// `--to-latest`: the log end.
    Latest,
    /// `--to-current`: the committed offset, or the log end without one.
    Current,
    /// `--to-offset N`, clamped.
    Offset(i64),
    /// `--shift-by N`: the committed offset plus N, clamped; a partition without a commit is an
    /// error.
    ShiftBy(i64),
    /// `--to-datetime` / `--by-duration`: the first offset whose timestamp is at least this
    /// (ms), or the log end when none is (with a warning).
    Timestamp(i64),
    /// `--from-file`: the file's offsets for this group, clamped.
    Plan(BTreeMap<TopicPartition, i64>),
}

/// Something Kafka's tool reports while it computes the offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// An offset past the log end was set to the end (a log4j WARN of Kafka's tool).
    AboveEnd {
        /// The partition.
        partition: TopicPartition,
        /// The offset asked for.
        requested: i64,
        /// The log end.
        end: i64,
    },
    /// An offset before the log start was set to the start (a log4j WARN).
    BelowStart {
        /// The partition.
        partition: TopicPartition,
        /// The offset asked for.
        requested: i64,
        /// The log start.
        start: i64,
    },
    /// No record at or after the timestamp: the log end is used (Kafka's `Warn: Partition P
    /// from topic T is empty. Falling back to latest known offset.` on stdout).
    NoTimestamp {
        /// The partition.
        partition: TopicPartition,
    },
    /// An active segment's unread tail.
    Skipped(SkippedTail),
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::AboveEnd {
                partition,
                requested,
                end,
            } => write!(
                f,
                "New offset ({requested}) is higher than latest offset for topic partition {partition}. Value will be set to {end}"
            ),
            Notice::BelowStart {
                partition,
                requested,
                start,
            } => write!(
                f,
                "New offset ({requested}) is lower than earliest offset for topic partition {partition}. Value will be set to {start}"
            ),
            Notice::NoTimestamp { partition } => write!(
                f,
                "Warn: Partition {} from topic {} is empty. Falling back to latest known offset.",
                partition.partition, partition.topic
            ),
            Notice::Skipped(tail) => tail.fmt(f),
        }
    }
}

/// Why the offsets could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    /// `--shift-by` of a partition the group has not committed.
    #[error("Cannot shift offset for partition {0} since there is no current committed offset")]
    NoCommittedOffset(TopicPartition),
    /// A partition the data directory does not have (Kafka's ListOffsets error).
    #[error("java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.")]
    UnknownPartition(TopicPartition),
    /// A cluster's ListOffsets failed (the admin client's exception, as Kafka's tool shows it).
    #[error("{0}")]
    Listing(Box<dyn std::error::Error + Send + Sync>),
    /// A partition's log could not be read.
    #[error("{partition}: {error}")]
    Log {
        /// The partition.
        partition: TopicPartition,
        /// The cause.
        error: LogError,
    },
}

/// The new offsets of one group: by partition, and what was reported on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reset {
    /// The new offset of each partition, by topic and partition.
    pub offsets: BTreeMap<TopicPartition, i64>,
    /// Clamps, fallbacks and unread tails, in the order met.
    pub notices: Vec<Notice>,
}

/// Where a [`Planner`] reads a partition's log start, log end and timestamps: a data
/// directory's logs ([`DirOffsets`]) or a cluster's ListOffsets answers (`net::groups`).
pub trait LogOffsets {
    /// The offset `spec` names in `tp` (only [`OffsetSpec::Earliest`], [`OffsetSpec::Latest`]
    /// and [`OffsetSpec::Timestamp`] are asked), `None` when there is none (no record at or
    /// after the timestamp); what was met on the way goes to `notices`.
    fn list(
        &mut self,
        tp: &TopicPartition,
        spec: OffsetSpec,
        notices: &mut Vec<Notice>,
    ) -> Result<Option<i64>, ResetError>;

    /// The log start and the log end of `tp`.
    fn range(&mut self, tp: &TopicPartition) -> Result<(i64, i64), ResetError>;

    /// Told before a plan what it will ask ([`LogOffsets::list`] of `specs`, where
    /// [`LogOffsets::range`] is Earliest and Latest) of `partitions`, so that a source paying a
    /// round trip a question can ask them all at once, as Kafka's admin client batches
    /// ListOffsets by leader. A source that reads them locally has nothing to do.
    fn prefetch(
        &mut self,
        _partitions: &[TopicPartition],
        _specs: &[OffsetSpec],
    ) -> Result<(), ResetError> {
        Ok(())
    }
}

/// A data directory's partitions, as a [`Planner`] reads them.
#[derive(Debug)]
pub struct DirOffsets<'a> {
    datadir: &'a DataDir,
    log_starts: BTreeMap<TopicPartition, i64>,
    /// Partition counts by topic, read once.
    partition_counts: BTreeMap<String, usize>,
}

impl<'a> DirOffsets<'a> {
    /// The partitions of `datadir` (its topics and checkpointed log starts read once).
    pub fn new(datadir: &'a DataDir) -> Result<Self, DataDirError> {
        let log_starts = OffsetCheckpoint::read(&datadir.root_file(LOG_START_OFFSET_CHECKPOINT))
            .unwrap_or_default();
        let partition_counts = datadir
            .topics()?
            .into_iter()
            .map(|t| (t.name.clone(), t.partition_count()))
            .collect();
        Ok(DirOffsets {
            datadir,
            log_starts,
            partition_counts,
        })
    }

    /// Whether the data directory has the partition (its topic, with that many partitions).
    pub fn exists(&self, tp: &TopicPartition) -> bool {
        self.partition_counts
            .get(&*tp.topic)
            .is_some_and(|&count| usize::try_from(tp.partition).is_ok_and(|p| p < count))
    }
}

impl LogOffsets for DirOffsets<'_> {
    fn list(
        &mut self,
        tp: &TopicPartition,
        spec: OffsetSpec,
        notices: &mut Vec<Notice>,
    ) -> Result<Option<i64>, ResetError> {
        if !self.exists(tp) {
            return Err(ResetError::UnknownPartition(tp.clone()));
        }
        let log_start = self.log_starts.get(tp).copied().unwrap_or(0);
        let listed =
            list_offset(&self.datadir.partition_dir(tp), spec, log_start).map_err(|error| {
                ResetError::Log {
                    partition: tp.clone(),
                    error,
                }
            })?;
        if let Some(tail) = listed.skipped {
            notices.push(Notice::Skipped(tail));
        }
        Ok(listed.offset)
    }

    /// Both read with one open of the log.
    fn range(&mut self, tp: &TopicPartition) -> Result<(i64, i64), ResetError> {
        if !self.exists(tp) {
            return Err(ResetError::UnknownPartition(tp.clone()));
        }
        let log_error = |error| ResetError::Log {
            partition: tp.clone(),
            error,
        };
        let log_start = self.log_starts.get(tp).copied().unwrap_or(0);
        let range = offset_range(&self.datadir.partition_dir(tp), log_start).map_err(log_error)?;
        Ok((range.start, range.end.map_err(log_error)?))
    }
}

/// Computes new offsets against the partitions a [`LogOffsets`] reads: one planner for a data
/// directory and a cluster.
#[derive(Debug)]
pub struct Planner<S> {
    source: S,
}

impl<'a> Planner<DirOffsets<'a>> {
    /// A planner over `datadir` (its topics and checkpointed log starts read once).
    pub fn new(datadir: &'a DataDir) -> Result<Self, DataDirError> {
        Ok(Planner::over(DirOffsets::new(datadir)?))
    }
}

impl<S: LogOffsets> Planner<S> {
    /// A planner reading the partitions through `source`.
    pub fn over(source: S) -> Self {
        Planner { source }
    }

    fn bound(
        &mut self,
        tp: &TopicPartition,
        spec: OffsetSpec,
        notices: &mut Vec<Notice>,
    ) -> Result<i64, ResetError> {
        // Latest and Earliest always have an answer for a partition that exists.
        self.source
            .list(tp, spec, notices)?
            .ok_or_else(|| ResetError::UnknownPartition(tp.clone()))
    }

    /// Kafka's `checkOffsetsRange`: above the log end → the end, below the start → the start.
    fn clamp(
        &mut self,
        tp: &TopicPartition,
        offset: i64,
        notices: &mut Vec<Notice>,
    ) -> Result<i64, ResetError> {
        let (start, end) = self.source.range(tp)?;
        Ok(if offset > end {
            notices.push(Notice::AboveEnd {
                partition: tp.clone(),
                requested: offset,
                end,
            });
            end
        } else if offset < start {
            notices.push(Notice::BelowStart {
                partition: tp.clone(),
                requested: offset,
                start,
            });
            start
        } else {
            offset
        })
    }

    /// The new offsets of `partitions` (ignored by [`Scenario::Plan`], which names its own)
    /// for a group that committed `committed`.
    pub fn plan(
        &mut self,
        scenario: &Scenario,
        partitions: &[TopicPartition],
        committed: &BTreeMap<TopicPartition, CommittedOffset>,
    ) -> Result<Reset, ResetError> {
        let mut reset = Reset::default();
        let range = vec![OffsetSpec::Earliest, OffsetSpec::Latest];
        let (asked, specs): (Vec<TopicPartition>, Vec<OffsetSpec>) = match scenario {
            Scenario::Plan(plan) => (plan.keys().cloned().collect(), range),
            Scenario::Earliest => (partitions.to_vec(), vec![OffsetSpec::Earliest]),
            Scenario::Latest => (partitions.to_vec(), vec![OffsetSpec::Latest]),
            Scenario::Current => (
                partitions
                    .iter()
                    .filter(|tp| !committed.contains_key(*tp))
                    .cloned()
                    .collect(),
                vec![OffsetSpec::Latest],
            ),
            Scenario::Offset(_) | Scenario::ShiftBy(_) => (partitions.to_vec(), range),
            Scenario::Timestamp(ts) => (
                partitions.to_vec(),
                vec![OffsetSpec::Timestamp(*ts), OffsetSpec::Latest],
            ),
        };
        self.source.prefetch(&asked, &specs)?;
        let notices = &mut reset.notices;
        if let Scenario::Plan(plan) = scenario {
            for (tp, offset) in plan {
                let offset = self.clamp(tp, *offset, notices)?;
                reset.offsets.insert(tp.clone(), offset);
            }
            return Ok(reset);
        }
        let mut fallbacks = Vec::new();
        for tp in partitions {
            let offset = match scenario {
                Scenario::Earliest => self.bound(tp, OffsetSpec::Earliest, notices)?,
                Scenario::Latest => self.bound(tp, OffsetSpec::Latest, notices)?,
                Scenario::Current => match committed.get(tp) {
                    Some(c) => c.offset,
                    None => self.bound(tp, OffsetSpec::Latest, notices)?,
                },
                Scenario::Offset(offset) => self.clamp(tp, *offset, notices)?,
                Scenario::ShiftBy(by) => {
                    let current = committed
                        .get(tp)
                        .ok_or_else(|| ResetError::NoCommittedOffset(tp.clone()))?;
                    self.clamp(tp, current.offset.saturating_add(*by), notices)?
                }
                Scenario::Timestamp(ts) => {
                    match self.source.list(tp, OffsetSpec::Timestamp(*ts), notices)? {
                        Some(offset) => offset,
                        None => {
                            fallbacks.push(Notice::NoTimestamp {
                                partition: tp.clone(),
                            });
                            self.bound(tp, OffsetSpec::Latest, notices)?
                        }
                    }
                }
                Scenario::Plan(_) => continue,
            };
            reset.offsets.insert(tp.clone(), offset);
        }
        // Kafka prints the fallbacks once every timestamp was looked up.
        reset.notices.extend(fallbacks);
        Ok(reset)
    }
}

/// Why a `--to-datetime` or `--by-duration` value was refused, in the words of the Java
/// exception Kafka's tool reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeParseError {
    /// No `T` (Kafka's own check).
    #[error("java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format. Timestamp: {0}")]
    NoT(String),
    /// Not `yyyy-MM-dd'T'HH:mm:ss.SSS` with an optional zone (`SimpleDateFormat`).
    #[error("java.text.ParseException: Unparseable date: \"{0}\"")]
    Date(String),
    /// Not `PnDTnHnMnS` (`Duration.parse`).
    #[error("Text cannot be parsed to a Duration")]
    Duration,
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Takes a run of ASCII digits (at least one) from the front of `s`.
fn digits(s: &mut &str) -> Option<i64> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 || end > 9 {
        return None;
    }
    let (number, rest) = s.split_at(end);
    *s = rest;
    number.parse().ok()
}

fn expect(s: &mut &str, c: char) -> Option<()> {
    *s = s.strip_prefix(c)?;
    Some(())
}

/// `Z`, `±hh`, `±hhmm` or `±hh:mm` (SimpleDateFormat's `X` and `XXX`), in minutes east of UTC.
fn zone(s: &str) -> Option<i64> {
    if s == "Z" {
        return Some(0);
    }
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = s.get(1..)?;
    let (h, m) = match rest.len() {
        2 => (rest, "00"),
        4 => (rest.get(..2)?, rest.get(2..)?),
        5 if rest.as_bytes().get(2) == Some(&b':') => (rest.get(..2)?, rest.get(3..)?),
        _ => return None,
    };
    if !h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 23 && m <= 59).then_some(sign * (h * 60 + m))
}

/// Kafka's `Utils.getDateTime`: `yyyy-MM-dd'T'HH:mm:ss.SSS` and a zone (`Z`, `±hh`, `±hhmm`,
/// `±hh:mm`), none meaning UTC, parsed strictly (fields in range); milliseconds since the epoch.
pub fn parse_datetime(text: &str) -> Result<i64, TimeParseError> {
    let Some((_, time_part)) = text.split_once('T') else {
        return Err(TimeParseError::NoT(text.to_string()));
    };
    if time_part.is_empty() {
        return Err(TimeParseError::NoT(text.to_string()));
    }
    let zoned = if time_part.contains(['+', '-', 'Z']) {
        text.to_string()
    } else {
        format!("{text}Z")
    };
    let mut s = zoned.as_str();
    let field = |s: &mut &str, after: Option<char>| -> Option<i64> {
        let n = digits(s)?;
        if let Some(c) = after {
            expect(s, c)?;
        }
        Some(n)
    };
    let parsed = (|| {
        let year = field(&mut s, Some('-'))?;
        let month = field(&mut s, Some('-'))?;
        let day = field(&mut s, Some('T'))?;
        let hour = field(&mut s, Some(':'))?;
        let minute = field(&mut s, Some(':'))?;
        let second = field(&mut s, Some('.'))?;
        let millis = field(&mut s, None)?;
        let offset = zone(s)?;
        let valid = (1..=12).contains(&month)
            && (1..=days_in_month(year, month)).contains(&day)
            && hour <= 23
            && minute <= 59
            && second <= 59
            && millis <= 999;
        valid.then(|| {
            let days = days_from_civil(year, month, day);
            ((days * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + millis
        })
    })();
    // SimpleDateFormat names the text it was given, the appended zone included.
    parsed.ok_or_else(|| TimeParseError::Date(zoned.clone()))
}

/// Java's `Duration.parse` (`PnDTnHnMnS`, each part optional and signed, seconds with up to
/// nine decimals, a leading sign, either case), in milliseconds (nanoseconds dropped).
pub fn parse_duration(text: &str) -> Result<i64, TimeParseError> {
    let err = || TimeParseError::Duration;
    let upper = text.to_ascii_uppercase();
    let mut s = upper.as_str();
    let negate = s.starts_with('-');
    s = s.strip_prefix(['-', '+']).unwrap_or(s);
    s = s.strip_prefix('P').ok_or_else(err)?;
    let signed = |s: &mut &str| -> Option<i64> {
        let negative = s.starts_with('-');
        *s = s.strip_prefix(['-', '+']).unwrap_or(s);
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        if end == 0 || end > 18 {
            return None;
        }
        let (number, rest) = s.split_at(end);
        *s = rest;
        let n: i64 = number.parse().ok()?;
        Some(if negative { -n } else { n })
    };
    let mut total: i64 = 0;
    let mut any = false;
    let add = |total: &mut i64, n: i64, unit: i64| -> Option<()> {
        *total = total.checked_add(n.checked_mul(unit)?)?;
        Some(())
    };
    // Days.
    let mut probe = s;
    if let Some(n) = signed(&mut probe) {
        if let Some(rest) = probe.strip_prefix('D') {
            add(&mut total, n, 86_400_000).ok_or_else(err)?;
            any = true;
            s = rest;
        }
    }
    if let Some(rest) = s.strip_prefix('T') {
        s = rest;
        let mut in_time = false;
        for (unit, ms) in [('H', 3_600_000), ('M', 60_000)] {
            let mut probe = s;
            if let Some(n) = signed(&mut probe) {
                if let Some(rest) = probe.strip_prefix(unit) {
                    add(&mut total, n, ms).ok_or_else(err)?;
                    in_time = true;
                    s = rest;
                }
            }
        }
        let mut probe = s;
        let negative_seconds = probe.starts_with('-');
        if let Some(n) = signed(&mut probe) {
            let mut fraction_ms = 0;
            if let Some(rest) = probe.strip_prefix(['.', ',']) {
                let end = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                if end == 0 || end > 9 {
                    return Err(err());
                }
                let (digits, after) = rest.split_at(end);
                let padded = format!("{digits:0<3}");
                fraction_ms = padded
                    .get(..3)
                    .and_then(|ms| ms.parse::<i64>().ok())
                    .ok_or_else(err)?;
                probe = after;
            }
            let rest = probe.strip_prefix('S').ok_or_else(err)?;
            add(&mut total, n, 1000).ok_or_else(err)?;
            let fraction = if negative_seconds {
                -fraction_ms
            } else {
                fraction_ms
            };
            total = total.checked_add(fraction).ok_or_else(err)?;
            in_time = true;
            s = rest;
        }
        if !in_time {
            return Err(err());
        }
        any = true;
    }
    if !any || !s.is_empty() {
        return Err(err());
    }
    Ok(if negate { -total } else { total })
}

/// A field of Kafka's reset CSV as Jackson's CSV writer writes it: quoted (quotes doubled) when
/// it holds a separator, a quote or a line break.
fn csv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// `--export`'s CSV: `topic,partition,offset` lines when one group was named with `--group`
/// (`with_group` false), else `group,topic,partition,offset`.
pub fn export_csv<'g>(
    resets: impl IntoIterator<Item = (&'g str, &'g BTreeMap<TopicPartition, i64>)>,
    with_group: bool,
) -> String {
    let mut out = String::new();
    for (group, offsets) in resets {
        for (tp, offset) in offsets {
            if with_group {
                out.push_str(&csv_field(group));
                out.push(',');
            }
            out.push_str(&format!(
                "{},{},{offset}\n",
                csv_field(&tp.topic),
                tp.partition
            ));
        }
    }
    out
}

/// Why a `--from-file` plan was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} of the reset plan: {what}")]
pub struct PlanError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// Splits a CSV line into fields (double-quoted fields with doubled quotes).
fn csv_fields(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next()? {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    '"' => break,
                    c => field.push(c),
                }
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Some(fields);
                }
                Some(',') => {}
                Some(_) => return None,
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field);
                        return Some(fields);
                    }
                    Some(',') => break,
                    Some(c) => field.push(c),
                }
            }
        }
        fields.push(field);
    }
}

/// Reads a `--from-file` plan in either of Kafka's forms: `topic,partition,offset` lines are
/// `single_group`'s (accepted only when one group was named, as Kafka's tool does), and
/// `group,topic,partition,offset` lines name their group. Blank lines are skipped.
pub fn parse_plan(
    text: &str,
    single_group: Option<&str>,
) -> Result<BTreeMap<String, BTreeMap<TopicPartition, i64>>, PlanError> {
    let mut plans: BTreeMap<String, BTreeMap<TopicPartition, i64>> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let fail = |what: String| PlanError {
            line: line_no,
            what,
        };
        if line.trim().is_empty() {
            continue;
        }
        let fields = csv_fields(line).ok_or_else(|| fail("an unclosed quote".into()))?;
        let (group, topic, partition, offset) = match (fields.as_slice(), single_group) {
            ([topic, partition, offset], Some(group)) => (group, topic, partition, offset),
            ([group, topic, partition, offset], _) => (group.as_str(), topic, partition, offset),
            ([_, _, _], None) => {
                return Err(fail(
                    "topic,partition,offset lines need exactly one --group".into(),
                ))
            }
            _ => {
                return Err(fail(format!(
                    "{} fields where group,topic,partition,offset or topic,partition,offset were expected",
                    fields.len()
                )))
            }
        };
        let partition: i32 = partition
            .trim()
            .parse()
            .map_err(|_| fail(format!("partition '{partition}' is not an int")))?;
        let offset: i64 = offset
            .trim()
            .parse()
            .map_err(|_| fail(format!("offset '{offset}' is not a long")))?;
        plans
            .entry(group.to_string())
            .or_default()
            .insert(TopicPartition::new(topic.as_str(), partition), offset);
    }
    Ok(plans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes_in_kafkas_forms() {
        let utc = 1_704_067_200_000; // 2024-01-01T00:00:00Z
        assert_eq!(parse_datetime("2024-01-01T00:00:00.000"), Ok(utc));
        assert_eq!(parse_datetime("2024-01-01T00:00:00.000Z"), Ok(utc));
        assert_eq!(parse_datetime("2024-01-01T01:00:00.000+01:00"), Ok(utc));
        assert_eq!(parse_datetime("2024-01-01T01:00:00.000+0100"), Ok(utc));
        assert_eq!(parse_datetime("2023-12-31T23:00:00.000-01"), Ok(utc));
        assert_eq!(
            parse_datetime("2024-02-29T00:00:00.5"),
            Ok(1_709_164_800_005)
        );
        for bad in [
            "2024-02-30T00:00:00.000",
            "2024-01-01T24:00:00.000",
            "2024-01-01T00:00:00",
            "2024-01-01T00:00:00.000+1",
            "2024-01-01Tx",
        ] {
            assert_eq!(
                parse_datetime(bad),
                Err(TimeParseError::Date(
                    if bad.contains(['+', 'Z'])
                        || bad.split_once('T').is_some_and(|(_, t)| t.contains('-'))
                    {
                        bad.to_string()
                    } else {
                        format!("{bad}Z")
                    }
                )),
                "{bad}"
            );
        }
        assert_eq!(
            parse_datetime("2024-01-01"),
            Err(TimeParseError::NoT("2024-01-01".into()))
        );
    }

    #[test]
    fn durations_as_java_parses_them() {
        assert_eq!(parse_duration("PT1H"), Ok(3_600_000));
        assert_eq!(parse_duration("P1DT2H3M4.5S"), Ok(93_784_500));
        assert_eq!(parse_duration("p2d"), Ok(172_800_000));
        assert_eq!(parse_duration("-PT-1M"), Ok(60_000));
        assert_eq!(parse_duration("PT-0.5S"), Ok(-500));
        for bad in ["", "P", "PT", "1H", "PT1", "P1H", "PT1S2M", "PT1.S"] {
            assert_eq!(parse_duration(bad), Err(TimeParseError::Duration), "{bad}");
        }
    }

    #[test]
    fn the_csv_round_trips_in_both_forms() {
        let mut offsets = BTreeMap::new();
        offsets.insert(TopicPartition::new("t", 1), 5);
        offsets.insert(TopicPartition::new("t", 0), 3);
        let single = export_csv([("g", &offsets)], false);
        assert_eq!(single, "t,0,3\nt,1,5\n");
        let plan = parse_plan(&single, Some("g")).unwrap();
        assert_eq!(plan.get("g"), Some(&offsets));
        let multi = export_csv([("a,\"b", &offsets)], true);
        assert_eq!(multi, "\"a,\"\"b\",t,0,3\n\"a,\"\"b\",t,1,5\n");
        let plan = parse_plan(&multi, None).unwrap();
        assert_eq!(plan.get("a,\"b"), Some(&offsets));
        assert!(parse_plan("t,0,3\n", None).is_err());
        assert_eq!(
            parse_plan("t,x,3\n", Some("g")).unwrap_err().to_string(),
            "line 1 of the reset plan: partition 'x' is not an int"
        );
    }
}
