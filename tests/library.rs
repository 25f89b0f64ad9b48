//! The library is the product, and holds no command line: built without the package's default
//! `cli` feature (which only the `kafkit` binary needs), its dependency tree has none of the
//! command line's crates, and its code names none of them whatever the features.

use std::process::Command;

use crate::common::{repo_root, skip};

/// The crates only the binary uses, as `cargo tree` names them.
const CLI_CRATES: [&str; 8] = [
    "anyhow",
    "clap",
    "clap_complete",
    "clap_mangen",
    "comfy-table",
    "indicatif",
    "roff",
    "signal-hook",
];

/// The packages of `cargo tree -e normal -p kafkit` with `features`, by name; `None` (after a
/// SKIPPED line) when cargo cannot say offline.
fn normal_dependencies(features: &[&str]) -> Option<Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(repo_root())
        .args(["tree", "-e", "normal", "-p", "kafkit", "--prefix", "none"])
        .args(["--format", "{p}", "--offline", "--locked"])
        .args(features)
        .output();
    match out {
        Ok(out) if out.status.success() => Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split_whitespace().next())
                .map(str::to_string)
                .collect(),
        ),
        Ok(out) => {
            skip(&format!(
                "`cargo tree --offline` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            None
        }
        Err(e) => {
            skip(&format!("cargo could not run: {e}"));
            None
        }
    }
}

#[test]
fn the_library_depends_on_no_command_line_crate() {
    let Some(lib) = normal_dependencies(&["--no-default-features"]) else {
        return;
    };
    assert!(lib.iter().any(|p| p == "kafkit"), "{lib:?}");
    assert!(lib.iter().any(|p| p == "zstd"), "{lib:?}");
    let cli: Vec<&&str> = CLI_CRATES
        .iter()
        .filter(|c| lib.iter().any(|p| p == *c))
        .collect();
    assert!(
        cli.is_empty(),
        "the library without the `cli` feature depends on {cli:?}"
    );
    // With the default features (the binary's), they are there: the check above can fail.
    let Some(all) = normal_dependencies(&[]) else {
        return;
    };
    for c in CLI_CRATES {
        assert!(all.iter().any(|p| p == c), "{c} is not in {all:?}");
    }
}

/// The library's code names no command-line crate, so that it builds without the `cli`
/// feature (CI builds and documents it so too): a `use clap::...` under `src/` outside
/// `src/bin/` would compile in `cargo test` and break only there.
#[test]
fn the_library_code_names_no_command_line_crate() {
    let mut files = Vec::new();
    let mut dirs = vec![repo_root().join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                if path != repo_root().join("src/bin") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 40, "{files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for c in CLI_CRATES {
                let ident = c.replace('-', "_");
                if code.contains(&format!("{ident}::"))
                    || code.contains(&format!("extern crate {ident}"))
                {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "the library names a CLI crate:\n{}",
        found.join("\n")
    );
}
