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

/// Everything a command printed, both streams.
fn said(run: &crate::common::Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

#[test]
fn a_data_dir_that_is_a_file_is_named_as_one_by_every_command() {
    let tmp = tempdir();
    let file = tmp.path().join("kafka-logs");
    std::fs::write(&file, "not a directory\n").unwrap();
    let want = format!("{} is a file, not a directory", file.display());
    let commands: &[&[&str]] = &[
        &["topics", "--list"],
        &["topics", "--describe"],
        &["topics", "--create", "--topic", "t"],
        &["topics", "--alter", "--topic", "t", "--partitions", "2"],
        &["topics", "--delete", "--topic", "t"],
        &["produce", "--topic", "t"],
        &["consume", "--topic", "t"],
        &["get-offsets", "--topic", "t"],
        &["get-offsets"],
        &["simulate-assignment", "--topic", "t", "--members", "a"],
    ];
    for args in commands {
        let run = kafkit(&file, args);
        assert_eq!(run.code, 1, "{args:?}: {}", said(&run));
        assert!(said(&run).contains(&want), "{args:?}: {}", said(&run));
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory\n");
    // Not only regular files: a device is named for what it is.
    let run = kafkit(std::path::Path::new("/dev/null"), &["topics", "--list"]);
    assert_eq!(run.code, 1);
    assert!(
        said(&run).contains("/dev/null is a character device, not a directory"),
        "{}",
        said(&run)
    );
}

/// The names in a directory, sorted.
fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn writers_refuse_a_directory_that_is_not_a_data_directory() {
    let tmp = tempdir();
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join("notes.txt"), "mine\n").unwrap();
    std::fs::create_dir(home.join("projects")).unwrap();
    let before = listing(&home);
    let want = format!(
        "{} is not a Kafka data directory: it holds \"notes.txt\" and no meta.properties or .kafkit-topics.json; kafkit writes only into a data directory, an empty directory or a new one",
        home.display()
    );
    for args in [
        &["topics", "--create", "--topic", "t"][..],
        &["topics", "--alter", "--topic", "t", "--partitions", "2"],
        &["topics", "--delete", "--topic", "t"],
    ] {
        let run = kafkit(&home, args);
        assert_eq!(run.code, 1, "{args:?}: {}", said(&run));
        assert_eq!(
            run.stdout,
            format!("Error while executing topic command : {want}\n"),
            "{args:?}"
        );
        assert_eq!(listing(&home), before, "{args:?} wrote into the directory");
    }
    // A partition-like directory beside an unrelated one is no excuse.
    std::fs::remove_file(home.join("notes.txt")).unwrap();
    std::fs::create_dir(home.join("orders-0")).unwrap();
    let run = kafkit(&home, &["topics", "--create", "--topic", "t"]);
    assert!(
        said(&run).contains("it holds \"projects\" and no meta.properties"),
        "{}",
        said(&run)
    );
    std::fs::remove_dir(home.join("orders-0")).unwrap();
    std::fs::remove_dir(home.join("projects")).unwrap();
    // An empty directory is accepted, and a path that does not exist yet.
    kafkit(&home, &["topics", "--create", "--topic", "t"]).ok();
    assert!(home.join("meta.properties").is_file());
    let fresh = tmp.path().join("fresh");
    kafkit(&fresh, &["topics", "--create", "--topic", "t"]).ok();
    assert!(fresh.join("t-0").is_dir());
    // A broker's directory: meta.properties, its checkpoints and partitions, and files it holds
    // while replacing them.
    let broker = tmp.path().join("broker");
    std::fs::create_dir(&broker).unwrap();
    std::fs::write(
        broker.join("meta.properties"),
        "version=1\nnode.id=0\ncluster.id=abc\n",
    )
    .unwrap();
    for name in [
        "recovery-point-offset-checkpoint",
        "replication-offset-checkpoint",
        "log-start-offset-checkpoint",
        "cleaner-offset-checkpoint",
        ".kafka_cleanshutdown",
    ] {
        std::fs::write(broker.join(name), "0\n0\n").unwrap();
    }
    std::fs::create_dir(broker.join("orders-0")).unwrap();
    kafkit(&broker, &["topics", "--create", "--topic", "t"]).ok();
    kafkit(
        &broker,
        &[
            "topics",
            "--alter",
            "--topic",
            "orders",
            "--partitions",
            "2",
        ],
    )
    .ok();
    assert!(broker.join("orders-1").is_dir());
    // Without meta.properties (an old broker, a copied log directory), only Kafka's entries.
    let old = tmp.path().join("old");
    std::fs::create_dir(&old).unwrap();
    std::fs::create_dir(old.join("orders-0")).unwrap();
    std::fs::create_dir(old.join("gone-0.0123456789abcdef0123456789abcdef-delete")).unwrap();
    std::fs::write(old.join("recovery-point-offset-checkpoint.tmp"), "").unwrap();
    std::fs::write(old.join(".lock"), "").unwrap();
    kafkit(&old, &["topics", "--create", "--topic", "t"]).ok();
    assert!(old.join("t-0").is_dir());
}
