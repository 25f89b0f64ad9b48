//! `completions/` and `man/` are generated from the clap definitions and committed: they must
//! match what the current binary generates (`kafkit generate`, run here into a temporary
//! directory).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{cli, repo_root, tempdir};

/// Every file under `dir`, by its path relative to `root`.
fn files_under(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files_under(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).expect("under root").to_path_buf());
        }
    }
}

#[test]
fn completions_and_man_pages_are_fresh() {
    let tmp = tempdir();
    let out = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(["generate", "--out-dir"])
        .arg(tmp.path())
        .output()
        .expect("kafkit generate");
    assert!(out.status.success(), "kafkit generate: {out:?}");
    let mut files = Vec::new();
    files_under(tmp.path(), tmp.path(), &mut files);
    files.sort();
    assert!(
        files.len() >= 4,
        "expected completions for 3 shells and at least one man page: {files:?}"
    );
    let mut stale = Vec::new();
    for path in &files {
        let bytes = std::fs::read(tmp.path().join(path)).expect("generated file");
        let on_disk = std::fs::read(repo_root().join(path)).unwrap_or_default();
        if on_disk != bytes {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files: {stale:?}\nrun `cargo run -- generate` and commit the result"
    );
}

#[test]
fn the_readme_shows_the_exit_codes_the_man_pages_show() {
    // One table (src/bin/kafkit/exit_codes.rs) makes both; the man pages are checked above.
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let table = &cli().exit_codes_markdown;
    assert!(table.starts_with("| "), "{table}");
    let section = readme
        .split_once("## Exit codes\n\n")
        .map(|(_, rest)| rest)
        .expect("README: ## Exit codes");
    assert!(
        section.starts_with(table.as_str()),
        "README's \"Exit codes\" section must start with src/bin/kafkit/exit_codes.rs's table:\n\n{table}"
    );
}
