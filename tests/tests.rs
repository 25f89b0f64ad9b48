//! kafkit's integration tests: one test binary, one module per area.

// The tests call libc themselves (signals to children, fcntl locks, ioctl on pipes, atexit).
#![allow(unsafe_code, clippy::undocumented_unsafe_blocks)]

mod assign;
mod assign_cli;
mod assign_props;
mod cli;
mod client;
mod cluster;
mod common;
mod completions;
mod configs;
mod consume;
mod datadir;
mod dump;
mod generated;
mod get_offsets;
mod group_writes;
mod groups;
mod internal_formatters;
mod json_schema;
mod library;
mod live_groups;
mod log;
mod log_cleaner;
mod log_ends;
mod log_start;
mod man;
mod memory;
mod net;
mod net_groups;
mod net_security;
mod ops;
mod produce;
mod produce_explain;
mod produce_interop;
mod produce_streams;
mod progress;
mod readers;
mod readme;
mod record;
mod replication;
mod skips;
mod striped;
mod topics;
mod writers;
