//! Tests that need `../shared` or kafka-python say so when they cannot run: a visible SKIPPED
//! line and a summary in a plain `cargo test`, a failure in CI (`common::skip`).

use std::process::Command;

use crate::common::{fixtures, tempdir};

/// Reads the fixtures when they are there; [`the_probe_skips_visibly_or_fails_in_ci`] runs it
/// where they are not.
#[test]
fn probe_the_fixtures() {
    let Some(root) = fixtures() else { return };
    assert!(
        root.join("DonaldY__kafka-2.7.1").is_dir(),
        "{}",
        root.display()
    );
}

/// Runs [`probe_the_fixtures`] in a copy of this test binary, as `cargo test` runs it (output
/// captured: no `--nocapture`), with `../shared` pointed at a missing path and `env` set.
fn probe(missing: &std::path::Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let exe = std::env::current_exe().expect("test binary");
    let mut command = Command::new(exe);
    command
        .args(["skips::probe_the_fixtures", "--exact"])
        .env("KAFKIT_TEST_SHARED", missing)
        .env_remove("CI")
        .env_remove("KAFKIT_REQUIRE_PREREQUISITES");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("run the test binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_probe_skips_visibly_or_fails_in_ci() {
    let tmp = tempdir();
    let missing = tmp.path().join("no-shared");
    let absent = format!("{} is absent", missing.join("kafka-fixtures").display());
    // Outside CI: the test passes, and says why it did not run, without --nocapture.
    for env in [&[][..], &[("CI", "false")], &[("CI", "")]] {
        let (code, stdout, stderr) = probe(&missing, env);
        assert_eq!(code, 0, "{env:?}\n{stdout}\n{stderr}");
        assert!(stdout.contains("1 passed"), "{env:?}\n{stdout}");
        assert!(
            stderr.contains(&format!("SKIPPED: skips::probe_the_fixtures: {absent}")),
            "{env:?}\n{stderr}"
        );
        assert!(
            stderr.contains("SKIPPED: 1 test(s) did not run")
                && stderr.contains(&format!("1 because {absent}")),
            "{env:?}\n{stderr}"
        );
    }
    // In CI (or asked to): the same test fails, naming what is missing.
    for env in [
        &[("CI", "true")][..],
        &[("CI", "1")],
        &[("KAFKIT_REQUIRE_PREREQUISITES", "1")],
    ] {
        let (code, stdout, stderr) = probe(&missing, env);
        assert_eq!(code, 101, "{env:?}\n{stdout}\n{stderr}");
        assert!(stdout.contains("1 failed"), "{env:?}\n{stdout}");
        assert!(
            format!("{stdout}{stderr}").contains(&absent),
            "{env:?}\n{stdout}\n{stderr}"
        );
        assert!(!stderr.contains("SKIPPED"), "{env:?}\n{stderr}");
    }
}
