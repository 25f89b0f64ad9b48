//! kafkit's integration tests: one test binary, one module per area.

mod common;
mod datadir;
mod generated;
mod log;
mod record;
mod topics;
mod client;
mod produce;
mod produce_interop;
mod consume;
mod get_offsets;
