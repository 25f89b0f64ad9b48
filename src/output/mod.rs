//! How results are shown: Kafka-exact text lines and JSON Lines, and how long work reports its
//! progress (the binary draws the tables and the bars).
//!
//! This is the only module that decides how a batch or a record looks on screen, so `consume`
//! and `dump-log-segments` print the same thing the same way.

#![deny(clippy::indexing_slicing)]

/// The two output forms every command offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// Kafka's own text, line for line.
    #[default]
    Text,
    /// JSON Lines: one typed object per line (see `docs/json.md`).
    Json,
}

pub mod cleaner;
pub mod cluster;
pub mod configs;
mod decimal;
pub mod delete_records;
pub mod deserializer;
pub mod dump;
pub mod format;
pub mod groups;
pub mod json;
pub mod log4j;
pub mod log_dirs;
pub mod message;
pub mod ops;
pub mod progress;
pub mod replication;
pub mod simulate;
pub mod topics;
