//! kafkit's integration tests: one test binary, one module per area.

mod assign;
mod assign_cli;
mod assign_props;
mod cli;
mod common;
mod datadir;
mod dump;
mod generated;
mod log;
mod record;
mod topics;
