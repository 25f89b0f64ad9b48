//! kafkit's integration tests: one test binary, one module per area.

mod assign;
mod common;
mod generated;
