//! `completions/` and `man/` are generated from the clap definitions and committed: they must
//! match what the current CLI generates.

use crate::common::repo_root;

#[test]
fn completions_and_man_pages_are_fresh() {
    let files = kafkit::cli::generate::render().expect("render");
    assert!(
        files.len() >= 4,
        "expected completions for 3 shells and at least one man page"
    );
    let mut stale = Vec::new();
    for (path, bytes) in &files {
        let on_disk = std::fs::read(repo_root().join(path)).unwrap_or_default();
        if &on_disk != bytes {
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
    // One table (src/cli/exit_codes.rs) makes both; the man pages are checked above.
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let table = kafkit::cli::exit_codes::markdown();
    let section = readme
        .split_once("## Exit codes\n\n")
        .map(|(_, rest)| rest)
        .expect("README: ## Exit codes");
    assert!(
        section.starts_with(&table),
        "README's \"Exit codes\" section must start with src/cli/exit_codes.rs's table:\n\n{table}"
    );
}
