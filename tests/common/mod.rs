//! Shared helpers: a temporary data directory and a runner for the `kafkit` binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The root of the repository (where `Cargo.toml` is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/kafka-fixtures`, or `None` with a visible note when it is absent.
pub fn fixtures() -> Option<PathBuf> {
    shared_dir("kafka-fixtures")
}

/// `../shared/spec/vectors`, or `None` with a visible note when it is absent.
pub fn vectors() -> Option<PathBuf> {
    shared_dir("spec/vectors")
}

fn shared_dir(rel: &str) -> Option<PathBuf> {
    let dir = repo_root().join("..").join("shared").join(rel);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: {} is absent (tests that need ../shared/{rel} did not run)",
            dir.display()
        );
        None
    }
}

/// A fresh temporary directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("kafkit-test-")
        .tempdir()
        .expect("temp dir")
}

/// The outcome of one run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub raw_stdout: Vec<u8>,
}

impl Run {
    fn from(out: Output) -> Self {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            raw_stdout: out.stdout,
        }
    }

    /// Asserts a zero exit and returns stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        &self.stdout
    }

    /// Asserts a non-zero exit and returns stderr.
    #[track_caller]
    pub fn fails(&self) -> &str {
        assert_ne!(
            self.code, 0,
            "expected failure\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        &self.stderr
    }
}

/// Runs `kafkit` with `args` against the data directory `data_dir`.
pub fn kafkit(data_dir: &Path, args: &[&str]) -> Run {
    kafkit_stdin(data_dir, args, b"")
}

/// Runs `kafkit` with `args`, feeding `stdin`.
pub fn kafkit_stdin(data_dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(args)
        .env("KAFKIT_DATA_DIR", data_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kafkit");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait kafkit");
    writer.join().expect("stdin writer");
    Run::from(out)
}

/// The bytes a hex string spells (two digits a byte).
pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Copies the directory `from` into `to` (created), subdirectories included.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("dir entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The address space a child of [`kafkit_peak_rss`] may map: a regression that allocates without
/// bound fails there in seconds instead of taking the machine's memory.
pub const ADDRESS_SPACE_LIMIT: u64 = 2 << 30;

/// Runs `kafkit` with `args` (stdin empty) and returns its outcome with its peak resident set
/// size in KiB, as the kernel counted it (`wait4`'s `ru_maxrss`). The child's address space is
/// limited to [`ADDRESS_SPACE_LIMIT`] (an allocation past it aborts it: exit code -1).
pub fn kafkit_peak_rss(data_dir: &Path, args: &[&str]) -> (Run, u64) {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_kafkit"));
    // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE_LIMIT,
                rlim_max: ADDRESS_SPACE_LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // Reaped by wait4 below, which also reads the peak resident set; child.wait() would reap it
    // first and lose the usage.
    #[allow(clippy::zombie_processes)]
    let mut child = command
        .args(args)
        .env("KAFKIT_DATA_DIR", data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kafkit");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).expect("read a pipe of kafkit");
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet reaped (child.wait() is never called on it); status
    // and usage are valid for writes.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    let run = Run {
        code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        raw_stdout: stdout,
    };
    (run, u64::try_from(usage.ru_maxrss).expect("ru_maxrss"))
}
