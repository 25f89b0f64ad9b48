//! `kafkit dump-log-segments`: golden files from Kafka's own tool, every option, JSON output,
//! robustness against corrupt input, and interop with kafka-python.

pub mod golden;
mod json;
pub mod options;
mod robustness;
mod vectors;

use std::path::Path;
use std::process::Command;

use crate::common::Run;

/// Runs `kafkit dump-log-segments <args>` in `dir`.
pub fn dump_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .arg("dump-log-segments")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kafkit");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        raw_stdout: out.stdout,
    }
}
