//! kafkit's integration tests: one test binary, one module per area.

mod cli;
mod common;
mod datadir;
mod generated;
mod log;
mod record;
mod topics;
