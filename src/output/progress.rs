//! How long work reports its progress, and how much work is long.
//!
//! The library counts; the caller shows. A dump reports to a [`Progress`] once per batch, the
//! console consumer once per round of records, the console producer once per block of input
//! (or 65,536 lines), never per record, and the `kafkit` binary draws a bar from it on stderr
//! (indicatif, only on a terminal). The thresholds below are the commands' rules for when work
//! is long enough to be worth a bar.

/// At least this many bytes of files to dump make a bar (or [`DUMP_MIN_FILES`] files).
pub const DUMP_MIN_BYTES: u64 = 256 << 20;
/// At least this many files to dump make a bar.
pub const DUMP_MIN_FILES: usize = 20;
/// At least this many records between where a consumer starts and the partitions' ends (or
/// `--max-messages`, if fewer) make a bar.
pub const CONSUME_MIN_RECORDS: u64 = 100_000;

/// At least this many partitions in a `log-cleaner` pass make a bar (or [`DUMP_MIN_BYTES`] of
/// `.log` files).
pub const CLEANER_MIN_PARTITIONS: u64 = 100;

/// Where long work reports how far it got, in units of the whole it was given (bytes for a
/// dump: the sum of its files' sizes).
pub trait Progress {
    /// Work on `item` (a file, as named by the caller) begins.
    fn item(&mut self, item: &str) {
        let _ = item;
    }

    /// `done` units of the whole are done. It rises, except that a file which grew while it
    /// was read counts for its size when it ends.
    fn set_position(&mut self, done: u64);

    /// The work it measured is done (a consumer caught up with the ends it counted to, a
    /// producer's input ended): a bar goes away.
    fn finish(&mut self) {}
}

/// A closure of the position is a [`Progress`] that ignores items.
impl<F: FnMut(u64)> Progress for F {
    fn set_position(&mut self, done: u64) {
        self(done);
    }
}
