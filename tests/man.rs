//! The man pages in `man/` (generated, checked fresh by `tests/generated.rs`): every page has
//! the sections a man page should, its SYNOPSIS is a command line, the pages it names exist, and
//! its EXAMPLES run. And the help's examples are never cut in two.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{have_tool, repo_root, tempdir};

/// Every page of `man/`, by file name, as text.
fn pages() -> BTreeMap<String, String> {
    let mut pages = BTreeMap::new();
    for entry in std::fs::read_dir(repo_root().join("man")).expect("man/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        assert!(name.ends_with(".1"), "{name}: not a page of section 1");
        pages.insert(name, std::fs::read_to_string(&path).expect("read page"));
    }
    assert!(pages.len() >= 7, "{:?}", pages.keys());
    pages
}

/// The page's sections, by name, each with its roff lines.
fn sections(page: &str) -> BTreeMap<String, Vec<String>> {
    let mut sections = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        if let Some(name) = line.strip_prefix(".SH ") {
            let name = name.trim_matches('"').to_string();
            assert!(
                !sections.contains_key(&name),
                "section {name} twice:\n{page}"
            );
            sections.insert(name.clone(), Vec::new());
            current = Some(name);
        } else if let Some(name) = &current {
            sections
                .get_mut(name)
                .expect("section")
                .push(line.to_string());
        }
    }
    sections
}

/// Roff text as it reads: font escapes dropped, escaped characters as themselves.
fn plain(roff: &str) -> String {
    roff.replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\fP", "")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
        .replace("\\(aq", "'")
        .replace("\\&", "")
        .replace("\\e", "\\")
        .replace("\\\\", "\\")
}

/// `kafkit-get-offsets.1` → `Some("get-offsets")`; `kafkit.1` → `None`.
/// The words after `kafkit` a page is about: `kafkit-topics.1` → `topics`,
/// `kafkit-cluster-what-if.1` → `cluster what-if` (a command's own subcommand).
fn command_of(page: &str) -> Option<String> {
    let name = page
        .strip_suffix(".1")
        .expect(".1")
        .strip_prefix("kafkit-")?;
    for c in &crate::common::cli().command.subcommands {
        for s in &c.subcommands {
            if name == format!("{}-{}", c.name, s.name) {
                return Some(format!("{} {}", c.name, s.name));
            }
        }
    }
    Some(name.to_string())
}

#[test]
fn every_page_has_every_section() {
    for (name, page) in pages() {
        let sections = sections(&page);
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "GLOBAL OPTIONS",
            "EXAMPLES",
            "EXIT STATUS",
            "ENVIRONMENT",
            "FILES",
            "SEE ALSO",
        ] {
            let lines = sections.get(section);
            assert!(
                lines.is_some_and(|l| l.iter().any(|l| !l.trim().is_empty())),
                "{name}: no {section} section (has {:?})",
                sections.keys()
            );
        }
        let text = |section: &str| plain(&sections[section].join("\n"));
        let stem = name.strip_suffix(".1").expect(".1");
        assert!(text("NAME").starts_with(&format!("{stem} - ")), "{name}");
        // Every command takes the global options: each page shows them.
        for option in ["--data-dir <DIR>", "--output <OUTPUT>"] {
            assert!(text("GLOBAL OPTIONS").contains(option), "{name}: {option}");
        }
        assert!(text("ENVIRONMENT").contains("KAFKIT_DATA_DIR"), "{name}");
        for file in [
            "DIR/meta.properties",
            "DIR/topic-partition/",
            "DIR/.lock",
            "DIR/recovery-point-offset-checkpoint",
            "DIR/log-start-offset-checkpoint",
            ".log",
            ".index",
            ".timeindex",
        ] {
            assert!(text("FILES").contains(file), "{name}: FILES without {file}");
        }
        assert!(
            text("EXIT STATUS").contains("\n0\n") && text("EXIT STATUS").contains("\n1\n"),
            "{name}: {}",
            text("EXIT STATUS")
        );
    }
}

#[test]
fn the_synopsis_is_a_kafkit_command_line() {
    for (name, page) in pages() {
        let synopsis = plain(&sections(&page)["SYNOPSIS"].join(" "));
        let start = match command_of(&name) {
            Some(command) => format!("kafkit {command} ["),
            None => "kafkit [".to_string(),
        };
        assert!(synopsis.starts_with(&start), "{name}: {synopsis}");
        for option in ["[--data-dir DIR]", "[--output text|json]", "[-h|--help]"] {
            assert!(synopsis.contains(option), "{name}: {option} in {synopsis}");
        }
        // Each option it names is one the command takes (its help lists it).
        let mut args: Vec<&str> = vec![];
        let command = command_of(&name);
        if let Some(command) = &command {
            args.extend(command.split(' '));
        }
        args.push("--help");
        let help = Command::new(env!("CARGO_BIN_EXE_kafkit"))
            .args(&args)
            .output()
            .expect("kafkit --help");
        let help = String::from_utf8(help.stdout).expect("utf-8");
        for word in synopsis.split(['[', ']', ' ', '|']) {
            if word.starts_with("--") {
                assert!(help.contains(word), "{name}: {word} is not in --help");
            }
        }
    }
}

#[test]
fn see_also_names_only_pages_that_exist() {
    let pages = pages();
    for (name, page) in &pages {
        let see_also = plain(&sections(page)["SEE ALSO"].join(" "));
        let named: Vec<&str> = see_also
            .split(", ")
            .map(|p| p.trim().strip_suffix("(1)").unwrap_or(p))
            .collect();
        assert!(named.len() >= 6, "{name}: {see_also}");
        // Every other page, and only pages of man/.
        for other in pages.keys().filter(|p| *p != name) {
            assert!(
                named.contains(&other.strip_suffix(".1").expect(".1")),
                "{name} does not name {other}"
            );
        }
        // Any `page(1)` anywhere in the page (SEE ALSO, SUBCOMMANDS) is a page of man/.
        let text = plain(page);
        for (at, _) in text.match_indices("(1)") {
            let before = &text[..at];
            let start = before
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(0, |i| i + 1);
            let target = &before[start..];
            assert!(
                pages.contains_key(&format!("{target}.1")),
                "{name} names {target}(1), which man/ does not have"
            );
        }
    }
}

/// The shell lines of a page's EXAMPLES (`$ ` lines of its `.nf` blocks), as typed.
fn example_lines(page: &str) -> Vec<String> {
    sections(page)["EXAMPLES"]
        .iter()
        .filter_map(|l| l.strip_prefix("$ "))
        .map(plain)
        .collect()
}

#[test]
fn every_example_runs() {
    if !have_tool("bash", "the man pages' examples") {
        return;
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_kafkit"));
    let bin_dir = bin.parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for (name, page) in pages() {
        let lines = example_lines(&page);
        assert!(lines.len() >= 2, "{name}: {lines:?}");
        // Each page's examples in order, from an empty directory, as a reader would.
        let dir = tempdir();
        for line in lines {
            let out = run_line(dir.path(), &path, &line);
            assert!(
                out.status.success(),
                "{name}: `{line}` failed ({:?})\nstdout:\n{}\nstderr:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 20, "{ran}");
}

/// Runs one example line under bash (`pipefail`: a failing kafkit fails a pipeline).
fn run_line(dir: &Path, path: &str, line: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("set -eo pipefail\n{line}"))
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("KAFKIT_DATA_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("run bash")
}

/// Every command's help shows its examples one to a line, whether it is `-h` or `--help`, at
/// clap's width when stdout is not a terminal (100) or at COLUMNS=80: a command line cut in
/// two cannot be copied.
#[test]
fn help_examples_are_never_cut() {
    let mut checked = 0;
    for command in [
        "topics",
        "produce",
        "consume",
        "get-offsets",
        "dump-log-segments",
        "simulate-assignment",
    ] {
        let examples = &crate::common::cli().examples[command];
        assert!(!examples.is_empty(), "{command}");
        for flag in ["-h", "--help"] {
            for columns in [None, Some("80")] {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_kafkit"));
                cmd.args([command, flag]);
                match columns {
                    Some(c) => cmd.env("COLUMNS", c),
                    None => cmd.env_remove("COLUMNS"),
                };
                let out = cmd.output().expect("kafkit help");
                assert!(out.status.success());
                let help = String::from_utf8(out.stdout).expect("utf-8");
                assert!(help.contains("\nExamples:\n"), "{command} {flag}:\n{help}");
                for example in examples {
                    let line = format!("  {example}");
                    assert!(
                        help.lines().any(|l| l == line),
                        "{command} {flag} (COLUMNS={columns:?}): `{example}` is not on one line:\n{help}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 40, "{checked}");
}
