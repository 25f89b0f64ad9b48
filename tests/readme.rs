//! The documentation's examples are true: every `$ kafkit ...` line of the code blocks of
//! `README.md` and `docs/*.md` is run, in the file's order, in one scratch directory per file
//! (the default data directory `./kafka-logs`, with `../shared` beside it as beside the
//! repository), and what it prints (all of stdout, then all of stderr, not interleaved as on a
//! terminal) must be the lines shown under it. A line `...` stands for any number of lines;
//! values that differ on every run (topic ids, timestamps, the CRCs that cover them, the
//! consumer's log time) are compared as placeholders.

use std::path::Path;
use std::process::{Command, Stdio};

use regex::Regex;

use super::common;

/// One command of a document and the output shown under it.
struct Example {
    line: usize,
    command: String,
    shown: Vec<String>,
}

/// The `$ ` lines of a document's code blocks, each with the lines after it up to the next
/// command or the end of the block.
fn examples(doc: &str) -> Vec<Example> {
    let mut found: Vec<Example> = Vec::new();
    let mut in_block = false;
    // The example that the block's next lines belong to: none at a block's start.
    let mut current: Option<usize> = None;
    for (i, line) in doc.lines().enumerate() {
        if line.starts_with("```") {
            in_block = !in_block;
            current = None;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            current = Some(found.len());
            found.push(Example {
                line: i + 1,
                command: command.to_string(),
                shown: Vec::new(),
            });
        } else if let Some(example) = current.and_then(|c| found.get_mut(c)) {
            example.shown.push(line.to_string());
        }
    }
    found
}

/// The fence that opens a block whose transcript a script prints (`scripts/NAME.sh`): such a
/// block runs as a whole, with processes in the background, so its test runs the script and
/// compares (see [`scripted_block`]), and the line-by-line runner leaves it out.
const SCRIPTED_FENCE: &str = "```console scripts/";

/// `doc` without its scripted blocks.
fn without_scripted_blocks(doc: &str) -> String {
    let mut kept = String::new();
    let mut scripted = false;
    for line in doc.lines() {
        if line.starts_with(SCRIPTED_FENCE) {
            scripted = true;
        } else if scripted && line.starts_with("```") {
            scripted = false;
        } else if !scripted {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

/// The lines of the README block that `script` (a path such as `scripts/seed-scene.sh`)
/// prints, and the README's line number of the fence.
pub fn scripted_block(script: &str) -> (usize, Vec<String>) {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).expect("README");
    let fence = format!("```console {script}");
    let start = readme
        .lines()
        .position(|l| l == fence)
        .unwrap_or_else(|| panic!("README.md has no block opened by {fence}"));
    let lines = readme
        .lines()
        .skip(start + 1)
        .take_while(|l| !l.starts_with("```"))
        .map(str::to_string)
        .collect();
    (start + 1, lines)
}

/// `PATH` with the kafkit under test first, as the documents' commands run.
pub fn path_with_kafkit() -> String {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kafkit"))
        .parent()
        .expect("binary directory");
    format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Replaces what changes from run to run with placeholders.
pub fn normalize(lines: &[String]) -> Vec<String> {
    let rules = [
        (r"TopicId: [A-Za-z0-9_-]{22}", "TopicId: <id>"),
        // A group member's id: its client id, then a random java.util.UUID.
        (
            r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "-<uuid>",
        ),
        (r#""topic_id":"[A-Za-z0-9_-]{22}""#, r#""topic_id":"<id>""#),
        // A cluster's and a log directory's random ids (`cluster init`).
        (
            r#""(cluster_id|directory_id)":"[A-Za-z0-9_-]{22}""#,
            r#""$1":"<id>""#,
        ),
        (r"Cluster id: [A-Za-z0-9_-]{22}", "Cluster id: <id>"),
        (r"crc: \d+", "crc: <crc>"),
        (r"crc = \d+", "crc = <crc>"),
        (r"\b1\d{12}\b", "<ms>"),
        (
            r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\]",
            "[<local time>]",
        ),
    ]
    .map(|(pattern, with)| (Regex::new(pattern).expect("pattern"), with));
    lines
        .iter()
        .map(|line| {
            rules.iter().fold(line.clone(), |l, (re, with)| {
                re.replace_all(&l, *with).into()
            })
        })
        .collect()
}

/// `actual` is `shown`, where a `...` line of `shown` stands for any number of lines.
pub fn matches(shown: &[String], actual: &[String]) -> bool {
    match shown.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, actual.get(skip..).unwrap_or_default()))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, after)| a == first && matches(rest, after)),
    }
}

/// Runs the examples of `doc` (a path under the repository) in a scratch directory of their
/// own, with `../shared` beside it as beside the repository; returns how many ran.
fn check_examples(doc: &str) -> usize {
    let text = without_scripted_blocks(
        &std::fs::read_to_string(common::repo_root().join(doc)).expect("doc"),
    );
    let examples = examples(&text);
    // Every command line of the file is in a block the parser saw (none indented or fenced
    // otherwise, where it would go unchecked).
    let command_lines = text
        .lines()
        .filter(|l| {
            ["$ kafkit ", "$ printf ", "$ truncate "]
                .iter()
                .any(|start| l.trim_start().starts_with(start))
        })
        .count();
    assert_eq!(
        examples.len(),
        command_lines,
        "{doc}: some `$ ` lines are outside the code blocks the test reads"
    );
    let scratch = common::tempdir();
    let dir = scratch.path().join("work");
    std::fs::create_dir(&dir).expect("scratch dir");
    let shared = common::shared_root();
    let have_shared = shared.is_dir();
    if have_shared {
        std::os::unix::fs::symlink(&shared, scratch.path().join("shared")).expect("link shared");
    }
    // The README's offsets-decoder example reads a real broker's `__consumer_offsets` segment
    // by a path relative to where it runs.
    const OFFSETS_FIXTURE: &str = "__consumer_offsets-39";
    let fixtures = common::fixtures();
    if let Some(fixtures) = &fixtures {
        let src = fixtures.join("DonaldY__kafka-2.7.1").join(OFFSETS_FIXTURE);
        common::copy_dir(&src, &dir.join(OFFSETS_FIXTURE));
    }
    let path = path_with_kafkit();
    let mut ran = 0;
    for example in &examples {
        // Besides kafkit, only the two ways the damaged-data example breaks a segment.
        assert!(
            example.command.starts_with("kafkit ")
                || example.command.contains("| kafkit ")
                || example.command.starts_with("truncate -s +")
                || example.command.contains("| dd of=kafka-logs/"),
            "{doc} line {}: not a kafkit command: {}",
            example.line,
            example.command
        );
        if (example.command.contains("../shared") && !have_shared)
            || (example.command.contains(OFFSETS_FIXTURE) && fixtures.is_none())
        {
            continue;
        }
        // A wrong example must fail the test, not hang it (a consumer waiting for a record
        // that never comes).
        let out = Command::new("timeout")
            .args(["60", "sh", "-c", &example.command])
            .current_dir(&dir)
            .env("PATH", &path)
            .env_remove("KAFKIT_DATA_DIR")
            .stdin(Stdio::null())
            .output()
            .expect("run sh");
        let actual: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&out.stderr).lines())
            .map(str::to_string)
            .collect();
        let (shown, actual) = (normalize(&example.shown), normalize(&actual));
        assert!(
            matches(&shown, &actual),
            "{doc} line {}: `{}` (exit {:?}) printed\n{}\n\nwhere {doc} shows\n{}",
            example.line,
            example.command,
            out.status.code(),
            actual.join("\n"),
            shown.join("\n")
        );
        // A command shown without output succeeds (every failure prints something, which the
        // comparison above catches; this holds the examples to it).
        assert!(
            !example.shown.is_empty() || out.status.success(),
            "{doc} line {}: `{}` exited {:?}",
            example.line,
            example.command,
            out.status.code()
        );
        ran += 1;
    }
    ran
}

#[test]
fn the_readme_examples_print_what_the_readme_shows() {
    let ran = check_examples("README.md");
    assert!(ran >= 24, "only {ran} README commands ran");
}

#[test]
fn the_guides_examples_print_what_they_show() {
    let mut docs: Vec<String> = std::fs::read_dir(common::repo_root().join("docs"))
        .expect("docs/")
        .map(|e| format!("docs/{}", e.expect("entry").file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".md"))
        .collect();
    docs.sort();
    let ran: Vec<(String, usize)> = docs
        .into_iter()
        .map(|doc| {
            let ran = check_examples(&doc);
            (doc, ran)
        })
        .collect();
    // docs/json.md shows 9 commands, docs/simulate-assignment.md 7.
    let total: usize = ran.iter().map(|(_, n)| n).sum();
    assert!(total >= 10, "only {total} commands of docs/ ran: {ran:?}");
}

#[test]
fn an_ellipsis_stands_for_any_lines_and_nothing_else_does() {
    let l = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(matches(&l(&["a", "...", "d"]), &l(&["a", "b", "c", "d"])));
    assert!(matches(&l(&["a", "..."]), &l(&["a"])));
    assert!(!matches(&l(&["a", "b"]), &l(&["a", "b", "c"])));
    assert!(!matches(&l(&["a", "...", "d"]), &l(&["a", "b", "c"])));
    assert!(!matches(&l(&["b"]), &l(&["a"])));
    assert_eq!(
        normalize(&l(&[
            "x TopicId: 4nisy9hPTEm23g7u0DmUJw CreateTime: 1796086513663 crc: 493196126"
        ])),
        l(&["x TopicId: <id> CreateTime: <ms> crc: <crc>"])
    );
}
