//! Unflushed tails: where writers that closed a log without flushing it left that log, trusted by
//! the next writer until the machine restarts.
//!
//! A broker fsyncs a log only when its flush policy says so (`flush.messages`, `flush.ms`, a
//! segment roll) and leaves the rest to the operating system; its recovery point is what is on
//! disk, and only the tail after it is validated after an unclean shutdown. A kafkit process is
//! a broker that stops after every command, and `acks` 0 and 1 do not flush at the end of the
//! run either ([`super::PartitionWriter::close_unflushed`]). Validating that whole tail at every
//! next open would make each command pay for what earlier ones wrote, so the writer records,
//! with the kernel's boot id, the log end it closed at and the identity of its active segment
//! file (device, inode, size, modification and change times). While the machine has not
//! restarted the page cache holds what was written, so the next writer that finds the file
//! unchanged starts recovery at that end ([`crate::log::LogCheckpoints::intact_to`]). After a restart
//! (another boot id), or once anything has changed the file, recovery starts at the recovery
//! point as it always did.
//!
//! The file is only a cache: it is never fsynced (after a crash its boot id no longer matches),
//! and a missing, unreadable or malformed one is ignored, which only costs a longer recovery.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stamp::FileStamp;
use crate::common::TopicPartition;

/// File name of the unflushed tails (data directory root).
pub const UNFLUSHED_TAILS: &str = ".kafkit-unflushed.json";

/// One log closed without flushing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Tail {
    topic: String,
    partition: i32,
    /// The log end offset at close: everything below it was intact then.
    end_offset: i64,
    /// Base offset of the active segment at close, and its file's stamp.
    segment: i64,
    stamp: FileStamp,
}

#[derive(Debug, Serialize, Deserialize)]
struct TailsFile {
    boot_id: String,
    tails: Vec<Tail>,
}

/// The kernel's boot id: it changes with every restart, so page-cache contents recorded under
/// one id are still there while it is current. `None` where there is none (not Linux): nothing
/// is then trusted.
fn boot_id() -> Option<String> {
    if cfg!(target_os = "linux") {
        let id = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let id = id.trim();
        (!id.is_empty()).then(|| id.to_string())
    } else {
        None
    }
}

/// The unflushed tails a writer read when it started and updates as it closes logs.
#[derive(Debug, Default)]
pub(crate) struct UnflushedTails {
    boot_id: Option<String>,
    tails: BTreeMap<TopicPartition, Tail>,
    changed: bool,
}

impl UnflushedTails {
    /// The tails recorded under the current boot, from `path` (none if the file is missing,
    /// unreadable, malformed or from another boot).
    pub(crate) fn read(path: &Path) -> UnflushedTails {
        let boot_id = boot_id();
        let recorded = boot_id.as_ref().and_then(|current| {
            let bytes = fs::read(path).ok()?;
            let file: TailsFile = serde_json::from_slice(&bytes).ok()?;
            (file.boot_id == *current).then_some(file.tails)
        });
        let tails = recorded
            .unwrap_or_default()
            .into_iter()
            .map(|tail| {
                (
                    TopicPartition::new(tail.topic.clone(), tail.partition),
                    tail,
                )
            })
            .collect();
        UnflushedTails {
            boot_id,
            tails,
            changed: false,
        }
    }

    /// The offset up to which the log in `dir` is intact, if a writer of this boot closed it
    /// there unflushed and its segment file has not changed since.
    pub(crate) fn intact_to(&self, tp: &TopicPartition, dir: &Path) -> Option<i64> {
        let tail = self.tails.get(tp)?;
        (FileStamp::of_segment(dir, tail.segment)? == tail.stamp).then_some(tail.end_offset)
    }

    /// Records that the log in `dir` was closed unflushed at `end_offset`, its active segment
    /// starting at `segment`. Without a boot id, or a readable segment file, nothing is trusted.
    pub(crate) fn closed_unflushed(
        &mut self,
        tp: &TopicPartition,
        dir: &Path,
        end_offset: i64,
        segment: i64,
    ) {
        let stamp = self
            .boot_id
            .as_ref()
            .and_then(|_| FileStamp::of_segment(dir, segment));
        match stamp {
            Some(stamp) => {
                let tail = Tail {
                    topic: tp.topic.to_string(),
                    partition: tp.partition,
                    end_offset,
                    segment,
                    stamp,
                };
                self.tails.insert(tp.clone(), tail);
                self.changed = true;
            }
            None => self.forget(tp),
        }
    }

    /// Puts what this record says of `partitions` into `other` (read again from the file: other
    /// writers of the directory may have changed it meanwhile).
    pub(crate) fn merge_into<'a>(
        &self,
        other: &mut UnflushedTails,
        partitions: impl IntoIterator<Item = &'a TopicPartition>,
    ) {
        for tp in partitions {
            match self.tails.get(tp) {
                Some(tail) => {
                    other.tails.insert(tp.clone(), tail.clone());
                    other.changed = true;
                }
                None => other.forget(tp),
            }
        }
    }

    /// Drops what is recorded for a log (it was flushed, or its file could not be stamped, or
    /// its topic was deleted).
    pub(crate) fn forget(&mut self, tp: &TopicPartition) {
        self.changed |= self.tails.remove(tp).is_some();
    }

    /// Writes the tails to `path` if they changed (replaced through a temporary file, not
    /// synced: see the module documentation).
    pub(crate) fn write(&self, path: &Path) -> std::io::Result<()> {
        let Some(boot_id) = &self.boot_id else {
            return Ok(());
        };
        if !self.changed {
            return Ok(());
        }
        let file = TailsFile {
            boot_id: boot_id.clone(),
            tails: self.tails.values().cloned().collect(),
        };
        let bytes = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
        super::atomic::replace(path, &bytes)
    }
}
