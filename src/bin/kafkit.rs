//! The `kafkit` binary: parse the command line, run, print the error chain, map to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    kafkit::cli::main()
}
