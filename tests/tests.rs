//! kafkit's integration tests: one test binary, one module per area.

mod assign;
mod assign_cli;
mod assign_props;
mod cli;
mod client;
mod common;
mod completions;
mod consume;
mod datadir;
mod dump;
mod generated;
mod get_offsets;
mod internal_formatters;
mod log;
mod man;
mod memory;
mod produce;
mod produce_interop;
mod produce_streams;
mod progress;
mod readers;
mod readme;
mod record;
mod skips;
mod topics;
mod writers;
