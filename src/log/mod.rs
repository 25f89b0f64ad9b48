//! One partition on disk: segments, offset and time indexes, append, read, roll and recovery.
#![deny(clippy::indexing_slicing)]
