//! When each coordinator host was last alive, so that a group whose members all died with their
//! host is read as Kafka's coordinator would leave it once their sessions expired.
//!
//! A broker's coordinator outlives the members: when they all die (`kill -9`), it expires their
//! sessions after `session.timeout.ms` and writes the group Empty. In a data directory the
//! coordinator is one of the member processes (`group::host`), so when every member dies no
//! process is left to expire anyone, and the group's last metadata still lists them. What
//! is known is when the host was last alive: it writes the time into its slot of
//! `.kafkit-coordinators` at the data directory's root when it starts and every
//! [`STAMP_INTERVAL`] after. A reader that finds no host for the partition (its coordinator lock
//! is free) knows that no member has been heard from since that time (every member talks to the
//! host), so the members' sessions ended at the latest of that time and the group's own state
//! time, plus the longest session timeout ([`Group::sessions_end`](super::state::Group)). Past
//! that, the group is read as expired ([`Group::expire_members`](super::state::Group)): Empty,
//! at the next generation, as Kafka writes it.
//!
//! A partition no kafkit host ever served (a directory copied from a broker) has no slot, and
//! its groups read as the records say: what a broker shows right after loading them, before
//! their sessions run out on its clock.
//!
//! The file holds one little-endian `i64` (ms since the epoch; 0: never) per partition, each
//! written in place by the one process that holds that partition's coordinator lock. It is only
//! a hint kept beside the logs: a missing or short file means "never hosted".

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

use super::state::Groups;
use crate::datadir::lock::CoordinatorProbe;
use crate::datadir::{DataDir, COORDINATOR_STAMPS};

/// How often a running host records that it is alive.
pub const STAMP_INTERVAL: Duration = Duration::from_secs(1);

/// The times the hosts of a data directory were last alive, as read once.
#[derive(Debug, Default)]
pub struct HostStamps {
    bytes: Vec<u8>,
}

impl HostStamps {
    /// The stamps of the data directory at `root` (none when the file is missing).
    pub fn read(root: &Path) -> io::Result<HostStamps> {
        match std::fs::read(root.join(COORDINATOR_STAMPS)) {
            Ok(bytes) => Ok(HostStamps { bytes }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(HostStamps::default()),
            Err(e) => Err(e),
        }
    }

    /// When the host of `__consumer_offsets-<partition>` was last alive (ms since the epoch),
    /// if one ever ran.
    pub fn last_alive(&self, partition: u32) -> Option<i64> {
        let start = usize::try_from(partition).ok()?.checked_mul(8)?;
        let slot: [u8; 8] = self.bytes.get(start..start + 8)?.try_into().ok()?;
        Some(i64::from_le_bytes(slot)).filter(|&t| t > 0)
    }
}

/// A host's writer of its own slot.
#[derive(Debug)]
pub struct StampWriter {
    file: File,
    partition: u32,
}

impl StampWriter {
    /// The writer of `partition`'s slot in the data directory at `root` (creating the file).
    pub fn open(root: &Path, partition: u32) -> io::Result<StampWriter> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(root.join(COORDINATOR_STAMPS))?;
        Ok(StampWriter { file, partition })
    }

    /// Records that the host is alive at `now` (ms since the epoch).
    pub fn stamp(&self, now: i64) -> io::Result<()> {
        self.file
            .write_all_at(&now.to_le_bytes(), u64::from(self.partition) * 8)
    }
}

/// Why the hosts' stamps could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LivenessError {
    /// The stamps file could not be read.
    #[error("reading {}: {error}", path.display())]
    Stamps {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        error: io::Error,
    },
}

impl Groups {
    /// Reads as expired (at `now`, ms since the epoch) every group of `datadir` whose members'
    /// sessions have ended with no host running to expire them (see the module's
    /// documentation).
    pub fn expire_unhosted(&mut self, datadir: &DataDir, now: i64) -> Result<(), LivenessError> {
        // Only groups with members can expire: most reads have none and read nothing here.
        if self.iter().all(|g| g.members.is_empty()) {
            return Ok(());
        }
        let root = datadir.path();
        let stamps = HostStamps::read(root).map_err(|error| LivenessError::Stamps {
            path: root.join(COORDINATOR_STAMPS),
            error,
        })?;
        // A lock that cannot be asked counts as held: the records are left as they are.
        let probe = CoordinatorProbe::open(root).ok();
        let mut hosted = std::collections::HashMap::new();
        self.expire_where(now, |partition| {
            let partition = u32::try_from(partition).ok()?;
            let last_alive = stamps.last_alive(partition)?;
            let running = *hosted.entry(partition).or_insert_with(|| {
                probe
                    .as_ref()
                    .is_none_or(|p| p.hosted(partition).unwrap_or(true))
            });
            (!running).then_some(last_alive)
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_read_back_per_partition_and_a_missing_slot_is_never() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(
            HostStamps::read(dir.path()).expect("read").last_alive(0),
            None
        );
        StampWriter::open(dir.path(), 3)
            .expect("open")
            .stamp(1_700_000_000_123)
            .expect("stamp");
        StampWriter::open(dir.path(), 1)
            .expect("open")
            .stamp(42)
            .expect("stamp");
        let stamps = HostStamps::read(dir.path()).expect("read");
        assert_eq!(stamps.last_alive(3), Some(1_700_000_000_123));
        assert_eq!(stamps.last_alive(1), Some(42));
        assert_eq!(stamps.last_alive(0), None);
        assert_eq!(stamps.last_alive(2), None);
        assert_eq!(stamps.last_alive(4), None);
    }
}
