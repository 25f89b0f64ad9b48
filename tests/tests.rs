//! kafkit's integration tests: one test binary, one module per area.

mod common;
mod dump;
mod generated;
mod log;
mod record;
