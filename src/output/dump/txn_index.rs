//! Transaction indexes (`.txnindex`, §17.4): one line per aborted transaction, read by
//! [`crate::log::txn_index`].

use std::io;
use std::path::Path;

use super::event::{DumpEvent, ProblemKind};
use super::printer::Printer;
use super::Dumper;
use crate::log::{AbortedTxn, LogError, TransactionIndex};

impl<P: Printer> Dumper<'_, '_, P> {
    pub(super) fn dump_txn_index(&mut self) -> io::Result<()> {
        // Opened by its absolute path, which Kafka's message about a bad entry names.
        let index = match TransactionIndex::open(Path::new(&self.absolute)) {
            Ok(index) => index,
            Err(e) => return self.io_problem(None, e.to_string()),
        };
        for entry in index.entries() {
            let (_, txn) = match entry {
                Ok(found) => found,
                Err(e @ LogError::AbortedTxnVersion { position, .. }) => {
                    let msg = e.to_string();
                    return self.problem(Some(position), ProblemKind::CorruptTxnIndex, msg, true);
                }
                Err(e) => return self.io_problem(None, e.to_string()),
            };
            let AbortedTxn {
                version,
                producer_id,
                first_offset,
                last_offset,
                last_stable_offset,
            } = txn;
            self.emit(&DumpEvent::AbortedTxn {
                version,
                producer_id,
                first_offset,
                last_offset,
                last_stable_offset,
            })?;
        }
        Ok(())
    }
}
