//! One partition on disk: segments, offset and time indexes, append, read, roll and recovery.
#![deny(clippy::indexing_slicing)]

pub mod config;

pub use config::{CompressionPolicy, LogConfig};
