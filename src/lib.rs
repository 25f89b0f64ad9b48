//! # kafkit
//!
//! Apache Kafka's command-line tools, rebuilt in Rust over local Kafka-format data
//! directories: no JVM, no broker. The binary is glue; this library is the product.
//!
//! ## The model
//!
//! Kafka stores data as a hierarchy, and every module of this crate is named after one level of
//! it:
//!
//! ```text
//! data directory (log.dirs)          meta.properties, recovery-point-offset-checkpoint, .lock
//! └── topic                          a name, an id, a partition count, configs
//!     └── partition  <topic>-<p>/    an ordered, append-only log; partition.metadata
//!         └── segment                <base offset>.log + .index + .timeindex (+ .snapshot, .txnindex)
//!             └── batch              a header (offsets, timestamps, producer, CRC) + records,
//!                 │                  compressed together
//!                 └── record         offset delta, timestamp delta, key, value, headers
//! ```
//!
//! * [`common`] holds Kafka's shared value types, [`common::TopicPartition`] and
//!   [`common::Uuid`], which every other module names partitions and ids with.
//! * [`record`] turns bytes into batches and records and back (magic 0, 1 and 2, every codec).
//!   It knows nothing of files.
//! * [`log`] is one partition on disk: segments, their offset and time indexes, appending,
//!   rolling, reading by offset or timestamp, and crash recovery.
//! * [`datadir`] is a whole data directory: topics, their metadata and configs, name rules,
//!   the directory lock and the checkpoint files.
//! * [`client`] is what the console producer and consumer do on top: partitioners, batching,
//!   fetching, and the console tools' loops themselves ([`client::console`]).
//! * [`assign`] holds Kafka's consumer-group assignors as pure functions over plain data.
//! * [`group`] reads consumer groups from `__consumer_offsets`: its records, typed and written
//!   byte for byte as brokers write them, and the groups a data directory holds.
//! * [`output`] decides how results look: Kafka-exact text lines and JSON Lines.
//! * [`decode`] reads the records of Kafka's internal topics (`__consumer_offsets`,
//!   `__transaction_state`, `__cluster_metadata`) from a table of their layouts.
//! * `net` (the default feature `net`) is a blocking Kafka client over `std::net`, for
//!   `--bootstrap-server`: its messages from the `kafka-protocol` crate, its record batches
//!   from [`record`], and the producer's and console consumer's loops the same as for a
//!   directory.
//!
//! Arrows point one way: `client/group/assign/output -> log/datadir -> record`. The command line
//! (`src/bin/kafkit/`) sits above them all and is no part of this library: it depends on no
//! command-line crate (clap, indicatif, comfy-table, anyhow), and long work reports its
//! progress through [`output::progress::Progress`].
//!
//! ## A partition in ten lines
//!
//! ```
//! use kafkit::log::{Log, LogCheckpoints, LogConfig, LogReader};
//! use kafkit::record::{BatchBuilder, Compression, TimestampType};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let dir = tmp.path().join("demo-0");
//! let mut batch = BatchBuilder::new(0, Compression::Zstd, TimestampType::CreateTime);
//! batch.append(1_700_000_000_000, Some(b"key"), Some(b"value"), &[]);
//! let mut log = Log::open(&dir, LogConfig::default(), LogCheckpoints::default(), 0)?; // recovers, then appends
//! let written = log.append(&batch.build()?, 0)?; // offsets assigned from the log end
//! log.close()?; // flushed, indexes trimmed
//!
//! let mut reader = LogReader::open(&dir)?; // no lock, no change to any file
//! let (segment, at) = reader.seek(written.first_offset)?.ok_or("offset not found")?;
//! let mut batches = reader.reader(segment, at.position)?;
//! let (_, found) = batches.next_batch()?.ok_or("no batch")?;
//! assert_eq!(found.records()?[0].value.as_deref(), Some(&b"value"[..]));
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]
// println!/eprintln! panic on a closed stdout or stderr: the library writes only to the
// handles it is given (the binary prints its diagnostics with its `stderrln!`).
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod assign;
pub mod client;
pub mod cluster;
pub mod common;
pub mod datadir;
pub mod decode;
pub mod group;
mod java;
pub mod log;
#[cfg(feature = "net")]
pub mod net;
pub mod output;
pub mod record;
