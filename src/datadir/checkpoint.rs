//! Kafka's checkpoint text files (`kafka-disk-format.md` §11): `recovery-point-offset-checkpoint`,
//! `replication-offset-checkpoint`, `log-start-offset-checkpoint`, `cleaner-offset-checkpoint`
//! (log dir root) and `leader-epoch-checkpoint` (partition dir).
//!
//! Format: `<version>\n<entry count>\n<entry>\n…`, fields split on whitespace. Writes go to
//! `<file>.tmp`, are synced and renamed over the file. Errors carry Kafka's exact messages.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::atomic::write_atomic;
use crate::common::TopicPartition;

/// The version every checkpoint file Kafka writes today carries.
pub const CHECKPOINT_VERSION: i32 = 0;

/// File name of the recovery-point checkpoint (log dir root).
pub const RECOVERY_POINT_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
/// File name of the high-watermark checkpoint (log dir root).
pub const REPLICATION_OFFSET_CHECKPOINT: &str = "replication-offset-checkpoint";
/// File name of the log-start-offset checkpoint (log dir root).
pub const LOG_START_OFFSET_CHECKPOINT: &str = "log-start-offset-checkpoint";
/// File name of the cleaner's checkpoint (log dir root).
pub const CLEANER_OFFSET_CHECKPOINT: &str = "cleaner-offset-checkpoint";
/// File name of the leader-epoch checkpoint (partition dir).
pub const LEADER_EPOCH_CHECKPOINT: &str = "leader-epoch-checkpoint";

/// A checkpoint file that cannot be read or written; displays as Kafka's message.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file system failed.
    #[error("I/O error on checkpoint file {path}: {source}")]
    Io {
        /// The checkpoint file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The first line is a version this code does not read.
    #[error("Unrecognised version:{found}, expected version: {expected} in checkpoint file at: {}", path.display())]
    UnrecognisedVersion {
        /// The checkpoint file.
        path: PathBuf,
        /// The version found.
        found: i32,
        /// The version expected.
        expected: i32,
    },
    /// A line that is not a number where one is due, or an entry with the wrong fields.
    #[error("Malformed line in checkpoint file [{}]: {line}", path.display())]
    Malformed {
        /// The checkpoint file.
        path: PathBuf,
        /// The offending line.
        line: String,
    },
    /// The count line disagrees with the number of entries.
    #[error("Expected [{expected}] entries in checkpoint file [{}], but found only [{found}]", path.display())]
    CountMismatch {
        /// The checkpoint file.
        path: PathBuf,
        /// The count line's value.
        expected: i32,
        /// Entries actually present.
        found: usize,
    },
}

/// Splits a line on runs of whitespace like Java's `\s+` split (a leading separator yields a
/// leading empty field; trailing ones yield nothing).
fn fields(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if line.starts_with(|c: char| c.is_ascii_whitespace()) {
        out.push("");
    }
    out.extend(line.split_ascii_whitespace());
    out
}

/// Reads a checkpoint file of `version`, parsing each entry line's fields with `parse`
/// (`None` = malformed). A missing or empty file has no entries (Kafka creates it empty).
pub fn read_checkpoint<T>(
    path: &Path,
    version: i32,
    parse: impl Fn(&[&str]) -> Option<T>,
) -> Result<Vec<T>, CheckpointError> {
    let text = match fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(CheckpointError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let malformed = |line: &str| CheckpointError::Malformed {
        path: path.to_path_buf(),
        line: line.to_string(),
    };
    // Java's BufferedReader.readLine: lines end at \n, \r or \r\n; a final line needs no end.
    let mut lines = text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    let Some(first) = lines.next() else {
        return Ok(Vec::new());
    };
    let found: i32 = first.parse().map_err(|_| malformed(first))?;
    if found != version {
        return Err(CheckpointError::UnrecognisedVersion {
            path: path.to_path_buf(),
            found,
            expected: version,
        });
    }
    let Some(count_line) = lines.next() else {
        return Ok(Vec::new());
    };
    let expected: i32 = count_line.parse().map_err(|_| malformed(count_line))?;
    let mut entries = Vec::new();
    for line in lines {
        let entry = parse(&fields(line)).ok_or_else(|| malformed(line))?;
        entries.push(entry);
    }
    if usize::try_from(expected).ok() != Some(entries.len()) {
        return Err(CheckpointError::CountMismatch {
            path: path.to_path_buf(),
            expected,
            found: entries.len(),
        });
    }
    Ok(entries)
}

/// Writes a checkpoint file atomically: version, count, then one line per entry.
pub fn write_checkpoint(
    path: &Path,
    version: i32,
    entries: &[String],
) -> Result<(), CheckpointError> {
    let mut text = format!("{version}\n{}\n", entries.len());
    for entry in entries {
        text.push_str(entry);
        text.push('\n');
    }
    write_atomic(path, text.as_bytes()).map_err(|source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// An offset checkpoint: `topic partition offset` per line (recovery points, high watermarks,
/// log start offsets, cleaner offsets).
#[derive(Debug, Clone, Copy)]
pub struct OffsetCheckpoint;

impl OffsetCheckpoint {
    /// Reads every entry. Missing or empty file: no entries.
    pub fn read(path: &Path) -> Result<BTreeMap<TopicPartition, i64>, CheckpointError> {
        let entries = read_checkpoint(path, CHECKPOINT_VERSION, |f| match f {
            [topic, partition, offset] => Some((
                TopicPartition::new(*topic, partition.parse().ok()?),
                offset.parse::<i64>().ok()?,
            )),
            _ => None,
        })?;
        Ok(entries.into_iter().collect())
    }

    /// Writes every entry, sorted by topic and partition (Kafka leaves the order to a hash map).
    pub fn write(
        path: &Path,
        offsets: &BTreeMap<TopicPartition, i64>,
    ) -> Result<(), CheckpointError> {
        let lines: Vec<String> = offsets
            .iter()
            .map(|(tp, offset)| format!("{} {} {offset}", tp.topic, tp.partition))
            .collect();
        write_checkpoint(path, CHECKPOINT_VERSION, &lines)
    }
}

/// One entry of a `leader-epoch-checkpoint`: the first offset written under a leader epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct EpochEntry {
    /// The leader epoch.
    pub epoch: i32,
    /// The first offset of that epoch.
    pub start_offset: i64,
}

impl EpochEntry {
    /// The entry for `epoch` starting at `start_offset`.
    pub const fn new(epoch: i32, start_offset: i64) -> Self {
        EpochEntry {
            epoch,
            start_offset,
        }
    }
}

/// A partition's `leader-epoch-checkpoint`: `epoch startOffset` per line, ascending epochs.
#[derive(Debug, Clone, Copy)]
pub struct LeaderEpochCheckpoint;

impl LeaderEpochCheckpoint {
    /// Reads every entry in file order. Missing or empty file: no entries.
    pub fn read(path: &Path) -> Result<Vec<EpochEntry>, CheckpointError> {
        read_checkpoint(path, CHECKPOINT_VERSION, |f| match f {
            [epoch, offset] => Some(EpochEntry {
                epoch: epoch.parse().ok()?,
                start_offset: offset.parse().ok()?,
            }),
            _ => None,
        })
    }

    /// Writes the entries in the order given.
    pub fn write(path: &Path, entries: &[EpochEntry]) -> Result<(), CheckpointError> {
        let lines: Vec<String> = entries
            .iter()
            .map(|e| format!("{} {}", e.epoch, e.start_offset))
            .collect();
        write_checkpoint(path, CHECKPOINT_VERSION, &lines)
    }
}
