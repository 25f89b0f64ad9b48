//! Behaviour every command shares: exit codes, global options in either position.

use crate::common::{kafkit, tempdir};

#[test]
fn usage_errors_exit_1_and_help_and_version_exit_0() {
    let tmp = tempdir();
    let run = kafkit(tmp.path(), &["--no-such-option"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("--no-such-option"), "{}", run.stderr);
    let run = kafkit(tmp.path(), &["--version"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("kafkit "));
    let run = kafkit(tmp.path(), &["--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("topics"));
}

#[test]
fn global_options_are_accepted_before_or_after_the_command() {
    let tmp = tempdir();
    let dir = tmp.path().join("elsewhere");
    let d = dir.to_str().unwrap();
    kafkit(
        tmp.path(),
        &["--data-dir", d, "topics", "--create", "--topic", "a"],
    )
    .ok();
    kafkit(
        tmp.path(),
        &["topics", "--create", "--topic", "b", "--data-dir", d],
    )
    .ok();
    let listed = kafkit(
        tmp.path(),
        &["topics", "--list", "--data-dir", d, "--output", "json"],
    );
    let names: Vec<String> = listed
        .ok()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(names, ["a", "b"]);
    // KAFKIT_DATA_DIR (set by the helper to tmp) was not used.
    assert!(!tmp.path().join("a-0").exists());
    assert!(dir.join("a-0").is_dir());
}
