//! kafkit's integration tests: one test binary, one module per area.

mod client;
mod common;
mod consume;
mod datadir;
mod generated;
mod get_offsets;
mod log;
mod produce;
mod produce_interop;
mod record;
mod topics;
