//! Kafka's record format: bytes to batches and records and back. No files, no CLI.
#![deny(clippy::indexing_slicing)]
