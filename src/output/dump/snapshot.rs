//! Producer-state snapshots (`.snapshot`, §17.3): one line per producer, read by
//! [`crate::log::producer_state`].

use std::io;
use std::path::Path;

use super::event::{DumpEvent, ProblemKind, ProducerEntry};
use super::printer::Printer;
use super::Dumper;
use crate::log::{read_snapshot, LogError};

impl<P: Printer> Dumper<'_, '_, P> {
    pub(super) fn dump_producer_snapshot(&mut self, path: &Path) -> io::Result<()> {
        let entries = match read_snapshot(path) {
            Ok(entries) => entries,
            // Kafka prints the exception's words and goes on with the next file.
            Err(LogError::CorruptSnapshot { source, .. }) => {
                let msg = source.to_string();
                return self.problem(None, ProblemKind::CorruptSnapshot, msg, false);
            }
            Err(e @ LogError::SnapshotTooLarge { .. }) => {
                return self.problem(None, ProblemKind::CorruptSnapshot, e.to_string(), true)
            }
            Err(e) => return self.io_problem(None, e.to_string()),
        };
        for e in &entries {
            self.emit(&DumpEvent::ProducerSnapshotEntry(ProducerEntry::from(e)))?;
        }
        Ok(())
    }
}
