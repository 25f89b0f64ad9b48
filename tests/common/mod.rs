//! Shared helpers: a temporary data directory and a runner for the `kafkit` binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub mod broker;
pub mod json_doc;

/// The root of the repository (where `Cargo.toml` is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/kafka-fixtures`, or `None` after a visible SKIPPED note when it is absent (a
/// failure where prerequisites are required: [`prerequisites_required`]).
#[track_caller]
pub fn fixtures() -> Option<PathBuf> {
    shared_dir("kafka-fixtures")
}

/// `../shared/spec/vectors`, or `None` as [`fixtures`].
#[track_caller]
pub fn vectors() -> Option<PathBuf> {
    shared_dir("spec/vectors")
}

/// The `shared` folder beside the repository (real broker data and Kafka's test vectors), or
/// the one `KAFKIT_TEST_SHARED` names (the skip tests point it at a missing path). It may be
/// absent: see [`fixtures`].
pub fn shared_root() -> PathBuf {
    std::env::var_os("KAFKIT_TEST_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("..").join("shared"))
}

#[track_caller]
fn shared_dir(rel: &str) -> Option<PathBuf> {
    let dir = shared_root().join(rel);
    if dir.is_dir() {
        Some(dir)
    } else {
        skip(&format!("{} is absent", dir.display()));
        None
    }
}

/// Whether a missing prerequisite (`../shared`, kafka-python) fails the test that needs it
/// instead of skipping it: in CI (`CI` set to anything but empty, `0` or `false`, as CI
/// services and `.ci/run` set it) or with `KAFKIT_REQUIRE_PREREQUISITES` set.
pub fn prerequisites_required() -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
    };
    set("CI") || set("KAFKIT_REQUIRE_PREREQUISITES")
}

/// The reasons tests were skipped in this run, for the summary at exit.
static SKIPS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Ends the calling test's use of a missing prerequisite: a failure where prerequisites are
/// required ([`prerequisites_required`]); otherwise a `SKIPPED: <test>: <why>` line on stderr
/// at once, and one summary line when the test binary exits, counting the skips by reason.
///
/// Both are written to the process's stderr directly: libtest captures what `eprintln!`
/// prints (and shows it only for a failed test, or with `--nocapture`), not writes to the
/// stream itself, so a plain `cargo test` shows them.
#[track_caller]
pub fn skip(why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    assert!(
        !prerequisites_required(),
        "{test}: {why} (CI or KAFKIT_REQUIRE_PREREQUISITES requires it; unset both to skip)"
    );
    write_stderr(&format!("SKIPPED: {test}: {why}\n"));
    let mut skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    if skips.is_empty() {
        // SAFETY: registers a plain function; atexit has no other precondition.
        unsafe { libc::atexit(summarize_skips) };
    }
    skips.push(why.to_string());
}

/// The summary of [`skip`], when the test binary exits.
extern "C" fn summarize_skips() {
    let skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for why in skips.iter() {
        match reasons.iter_mut().find(|(r, _)| *r == why.as_str()) {
            Some((_, n)) => *n += 1,
            None => reasons.push((why, 1)),
        }
    }
    let mut text = format!(
        "\nSKIPPED: {} test(s) did not run for want of a prerequisite (set CI=true to make that a failure):\n",
        skips.len()
    );
    for (why, n) in reasons {
        text.push_str(&format!("  {n} because {why}\n"));
    }
    write_stderr(&text);
}

/// Writes to the process's stderr, past libtest's capture of `eprint!`.
fn write_stderr(text: &str) {
    #[allow(clippy::disallowed_methods)] // a test helper: a failed write is nothing to handle
    let _ = std::io::stderr().write_all(text.as_bytes());
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
    run_with(data_dir, args, stdin, Stdio::piped(), Stdio::piped())
}

/// Runs `kafkit` with `args`, feeding `stdin` from a thread, its stdout and stderr as given
/// (a piped one is captured).
fn run_with(data_dir: &Path, args: &[&str], stdin: &[u8], stdout: Stdio, stderr: Stdio) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(args)
        .env("KAFKIT_DATA_DIR", data_dir)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(stderr)
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

/// Which of the binary's output streams [`kafkit_closed`] connects to a closed pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    Stdout,
    Stderr,
    Both,
}

/// Runs `kafkit` with `args`, feeding `stdin`, with stdout, stderr or both connected to a pipe
/// whose read end is already closed (as `| head` leaves it once `head` has gone, or `>&-`
/// without the `EBADF`): every write to it fails with `EPIPE`. A stream left open is captured
/// as by [`kafkit_stdin`]; a closed one reads as empty in the returned [`Run`].
pub fn kafkit_closed(data_dir: &Path, args: &[&str], stdin: &[u8], closed: Closed) -> Run {
    let closed_pipe = || {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        Stdio::from(writer)
    };
    let (stdout, stderr) = match closed {
        Closed::Stdout => (closed_pipe(), Stdio::piped()),
        Closed::Stderr => (Stdio::piped(), closed_pipe()),
        // One pipe for both, as `2>&1 | head` gives.
        Closed::Both => {
            let (reader, writer) = std::io::pipe().expect("pipe");
            drop(reader);
            let copy = writer.try_clone().expect("dup");
            (Stdio::from(writer), Stdio::from(copy))
        }
    };
    run_with(data_dir, args, stdin, stdout, stderr)
}

/// The bytes a hex string spells (two digits a byte).
pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// One case of `spec/vectors/cli/consumer_offsets_records.json`: the case, its key's bytes and
/// its value's (`None`: a tombstone).
pub type OffsetsVector = (serde_json::Value, Vec<u8>, Option<Vec<u8>>);

/// The cases of the spec's `__consumer_offsets` record vectors, or `None` as [`vectors`].
#[track_caller]
pub fn consumer_offsets_vectors() -> Option<Vec<OffsetsVector>> {
    let vectors = vectors()?;
    let text = std::fs::read_to_string(vectors.join("cli/consumer_offsets_records.json"))
        .expect("vector file");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = doc["cases"].as_array().expect("cases");
    Some(
        cases
            .iter()
            .map(|case| {
                let key = hex(case["key_hex"].as_str().expect("key"));
                let value = case["value_hex"].as_str().map(hex);
                (case.clone(), key, value)
            })
            .collect(),
    )
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

/// Runs `kafkit` with `args` like [`kafkit`], its address space limited to `max_bytes`
/// (`RLIMIT_AS`): an allocation past it fails and the run fails. Virtual memory bounds resident
/// memory from above, so a run that succeeds used less than `max_bytes` of RAM. (Peak RSS from
/// `wait4` would not do: a child made with `vfork` starts with the test process's high-water
/// mark, which the kernel carries across `exec`.)
pub fn kafkit_within(data_dir: &Path, args: &[&str], max_bytes: u64) -> Run {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_kafkit"));
    command
        .args(args)
        .env("KAFKIT_DATA_DIR", data_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let limit = libc::rlimit {
        rlim_cur: max_bytes,
        rlim_max: max_bytes,
    };
    // SAFETY: setrlimit is async-signal-safe and touches only the child being made.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    Run::from(command.output().expect("run kafkit"))
}

/// Whether the tests run in CI (`CI` set, as CI services set it, and not `false` or `0`): a
/// test whose tool is missing fails there instead of being skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Whether the program `name` runs (`name --version`). When it does not: in CI the test fails,
/// elsewhere a SKIPPED line says which test did not run and why, and this returns false.
#[track_caller]
pub fn have_tool(name: &str, test: &str) -> bool {
    let runs = Command::new(name)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        assert!(
            !in_ci(),
            "{name} is needed by {test} and is not installed (CI)"
        );
        eprintln!("SKIPPED: {test} ({name} is not installed)");
    }
    runs
}

/// The command line as the binary describes it (`kafkit generate --describe`): the clap
/// command tree, every command's examples and the README's exit-code table. The tests run the
/// binary for it; the library has no command line to ask.
#[derive(Debug, serde::Deserialize)]
pub struct CliDescription {
    /// `kafkit`, as clap builds it (with its `help` command).
    pub command: CliCommand,
    /// Example command lines by command name (`""`: of `kafkit` itself).
    pub examples: std::collections::BTreeMap<String, Vec<String>>,
    /// The table the README's "Exit codes" section starts with.
    pub exit_codes_markdown: String,
}

/// A command of [`CliDescription`].
#[derive(Debug, serde::Deserialize)]
pub struct CliCommand {
    pub name: String,
    /// Visible aliases.
    pub aliases: Vec<String>,
    pub hidden: bool,
    pub args: Vec<CliArg>,
    pub subcommands: Vec<CliCommand>,
}

/// An argument of a [`CliCommand`].
#[derive(Debug, serde::Deserialize)]
pub struct CliArg {
    pub id: String,
    pub long: Option<String>,
    pub hidden: bool,
    pub takes_value: bool,
    /// Its value parser's possible values (those not hidden), `None` when it has none.
    pub possible_values: Option<Vec<String>>,
    /// clap's `ValueHint`, by its name (`FilePath`, `Other`, `Unknown`...).
    pub value_hint: String,
}

/// [`CliDescription`], asked of the binary once.
pub fn cli() -> &'static CliDescription {
    static CLI: std::sync::OnceLock<CliDescription> = std::sync::OnceLock::new();
    CLI.get_or_init(|| {
        let out = Command::new(env!("CARGO_BIN_EXE_kafkit"))
            .args(["generate", "--describe"])
            .output()
            .expect("kafkit generate --describe");
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).expect("kafkit generate --describe: JSON")
    })
}
