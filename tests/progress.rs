//! Progress bars: drawn on stderr when it is a terminal (here a pseudo-terminal, through
//! util-linux's `script` or Python's `pty`), never when it is a pipe, never with `--quiet`;
//! stdout is byte for byte the same either way. Without `script` and python3 the pty tests fail
//! in CI and say SKIPPED elsewhere.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{in_ci, kafkit, kafkit_stdin, tempdir, Run};

/// What only a drawn bar puts on a terminal: indicatif's line clearing, the bar's blocks, its
/// "eta".
fn has_progress(text: &str) -> bool {
    text.contains("\u{1b}[2K")
        || text.contains(" eta ")
        || text.chars().any(|c| "█▉▊▋▌▍▎▏".contains(c))
}

/// Runs `kafkit args > out.txt` in `dir` with stderr on a pseudo-terminal; returns what the
/// terminal showed and out.txt's bytes. `None` (after a SKIPPED line) without a way to make a
/// pty, outside CI.
fn under_pty(data_dir: &Path, dir: &Path, args: &[&str]) -> Option<(String, Vec<u8>)> {
    let quote = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
    let mut line = quote(env!("CARGO_BIN_EXE_kafkit"));
    for arg in args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    line.push_str(" > out.txt");
    let works = |program: &str, arg: &str| {
        Command::new(program)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut command = if works("script", "--version") {
        let mut c = Command::new("script");
        c.args(["-qec", &line, "/dev/null"]).env("SHELL", "/bin/sh");
        c
    } else if works("python3", "--version") {
        let mut c = Command::new("python3");
        c.args([
            "-c",
            "import pty, sys; sys.exit(pty.spawn(['/bin/sh', '-c', sys.argv[1]]) >> 8)",
            &line,
        ]);
        c
    } else {
        assert!(
            !in_ci(),
            "the progress tests need util-linux's script or python3 (CI)"
        );
        eprintln!("SKIPPED: progress bars on a terminal (neither script nor python3 is installed)");
        return None;
    };
    let out = command
        .current_dir(dir)
        .env("KAFKIT_DATA_DIR", data_dir)
        .stdin(Stdio::null())
        .output()
        .expect("run under a pty");
    let terminal = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?} under a pty: {:?}\n{terminal}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read(dir.join("out.txt")).expect("out.txt");
    Some((terminal, written))
}

/// A topic `big` of 120000 records over two partitions (past the consumer's bar threshold).
fn big_topic(data: &Path) {
    kafkit(
        data,
        &["topics", "--create", "--topic", "big", "--partitions", "2"],
    )
    .ok();
    let lines: String = (0..120_000).map(|i| format!("record {i}\n")).collect();
    kafkit_stdin(
        data,
        &["produce", "--topic", "big", "--acks", "1"],
        lines.as_bytes(),
    )
    .ok();
}

#[test]
fn consume_of_a_large_range_shows_progress_on_a_terminal_only() {
    let dir = tempdir();
    let data = dir.path().join("data");
    big_topic(&data);
    let args = [
        "consume",
        "--topic",
        "big",
        "--from-beginning",
        "--max-messages",
        "120000",
    ];
    let piped = kafkit(&data, &args);
    piped.ok();
    assert_eq!(piped.stderr, "Processed a total of 120000 messages\n");
    assert!(!has_progress(&piped.stderr));
    assert_eq!(piped.stdout.lines().count(), 120_000);

    let Some((terminal, quiet)) = bar_on_a_terminal_only(&data, dir.path(), &args, &piped) else {
        return;
    };
    assert!(terminal.contains("records"), "{terminal}");
    assert!(terminal.contains("Processed a total of 120000 messages"));
    assert!(quiet.contains("Processed a total of 120000 messages"));
}

/// Runs `args` under a pseudo-terminal (stdout to a file), then with `--quiet`: a bar shows
/// the first time and not the second, and stdout is byte for byte `piped`'s both times.
/// Returns both terminals' text, `None` where no pseudo-terminal can be had (outside CI).
fn bar_on_a_terminal_only(
    data: &std::path::Path,
    dir: &std::path::Path,
    args: &[&str],
    piped: &Run,
) -> Option<(String, String)> {
    let (terminal, written) = under_pty(data, dir, args)?;
    assert!(
        has_progress(&terminal),
        "no bar on the terminal:\n{terminal}"
    );
    assert_eq!(written, piped.raw_stdout, "stdout changed with the bar");
    let quiet: Vec<&str> = std::iter::once("--quiet")
        .chain(args.iter().copied())
        .collect();
    let (quiet_terminal, written) = under_pty(data, dir, &quiet).expect("pty");
    assert!(
        !has_progress(&quiet_terminal),
        "a bar with --quiet:\n{quiet_terminal}"
    );
    assert_eq!(written, piped.raw_stdout);
    Some((terminal, quiet_terminal))
}

#[test]
fn consume_of_a_small_range_shows_no_progress() {
    let dir = tempdir();
    let data = dir.path().join("data");
    big_topic(&data);
    let args = [
        "consume",
        "--topic",
        "big",
        "--from-beginning",
        "--max-messages",
        "1000",
    ];
    let Some((terminal, written)) = under_pty(&data, dir.path(), &args) else {
        return;
    };
    assert!(!has_progress(&terminal), "{terminal}");
    assert_eq!(written.iter().filter(|b| **b == b'\n').count(), 1000);
}

#[test]
fn dump_of_many_files_shows_progress_on_a_terminal_only() {
    let dir = tempdir();
    let data = dir.path().join("data");
    kafkit(&data, &["topics", "--create", "--topic", "demo"]).ok();
    let lines: String = (0..2000).map(|i| format!("value {i}\n")).collect();
    kafkit_stdin(
        &data,
        &["produce", "--topic", "demo", "--acks", "1"],
        lines.as_bytes(),
    )
    .ok();
    let segment = data.join("demo-0/00000000000000000000.log");
    let segment = segment.to_str().expect("utf-8 path");
    // 20 files (one, 20 times) make a bar.
    let files = vec![segment; 20].join(",");
    let args = ["dump-log-segments", "--deep-iteration", "--files", &files];
    let piped = kafkit(&data, &args);
    piped.ok();
    assert!(!has_progress(&piped.stderr), "{}", piped.stderr);
    assert!(!piped.stderr.contains('\r'), "{}", piped.stderr);
    assert!(piped.stdout.contains("baseOffset: 0"), "{}", piped.stdout);

    if bar_on_a_terminal_only(&data, dir.path(), &args, &piped).is_none() {
        return;
    }

    // One file: no bar.
    let (terminal, _) = under_pty(
        &data,
        dir.path(),
        &["dump-log-segments", "--files", segment],
    )
    .expect("pty");
    assert!(!has_progress(&terminal), "{terminal}");
}

#[test]
fn a_log_cleaner_pass_over_many_partitions_shows_progress_on_a_terminal_only() {
    let dir = tempdir();
    let data = dir.path().join("data");
    kafkit(
        &data,
        &[
            "topics",
            "--create",
            "--topic",
            "many",
            "--partitions",
            "100",
            "--config",
            "retention.ms=1000",
        ],
    )
    .ok();
    let lines: String = (0..1000).map(|i| format!("record {i}\n")).collect();
    kafkit_stdin(&data, &["produce", "--topic", "many"], lines.as_bytes()).ok();
    let args = ["log-cleaner", "--dry-run", "--now", "4102444800000"];
    let piped = kafkit(&data, &args);
    assert!(piped.ok().contains("Would delete"), "{}", piped.stdout);
    assert!(!has_progress(&piped.stderr));
    let Some((terminal, _)) = bar_on_a_terminal_only(&data, dir.path(), &args, &piped) else {
        return;
    };
    assert!(terminal.contains("many-"), "{terminal}");
}
