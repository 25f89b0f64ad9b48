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
            serde_json::from_str::<serde_json::Value>(l).unwrap()["topic"]
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
    // An empty directory is accepted, and one holding only kafkit's own caches; and a path
    // that does not exist yet.
    for cache in [
        ".kafkit-log-ends",
        ".kafkit-coordinators",
        ".kafkit-unflushed.json",
    ] {
        std::fs::write(home.join(cache), "").unwrap();
    }
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

/// A check of what a run printed on the stream left open, or of what it did.
type Check<'a> = Box<dyn Fn(&crate::common::Run) + 'a>;

#[test]
fn no_command_panics_on_a_closed_stdout_or_stderr() {
    use crate::common::{kafkit_closed, kafkit_stdin, Closed};
    let tmp = tempdir();
    let dir = tmp.path();
    kafkit(dir, &["topics", "--create", "--topic", "t"]).ok();
    let lines: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    kafkit_stdin(dir, &["produce", "--topic", "t"], lines.as_bytes()).ok();
    let segment = dir.join("t-0").join("00000000000000000000.log");
    let segment = segment.to_str().unwrap();
    let missing = dir.join("missing.log");
    let missing = missing.to_str().unwrap();
    let both_files = format!("{missing},{segment}");
    // Two records too large for max.request.size among three that fit: each refusal is logged
    // on stderr and the producer goes on.
    let big = "x".repeat(2000);
    let mixed = format!("a\n{big}\nb\n{big}\nc\n");
    let too_small = ["--producer-property", "max.request.size=1000"];
    let offsets = |dir: &std::path::Path, topic: &str| {
        kafkit(dir, &["get-offsets", "--topic", topic])
            .ok()
            .to_string()
    };

    let cases: Vec<(Vec<&str>, &str, Closed, i32, Check)> = vec![
        // consume: Kafka's checkErr line and the count on stderr, exit 0.
        (
            vec![
                "consume",
                "--topic",
                "t",
                "--from-beginning",
                "--timeout-ms",
                "100",
            ],
            "",
            Closed::Stdout,
            0,
            Box::new(|run| {
                assert!(
                    run.stderr.starts_with(
                        "Unable to write to standard out, closing consumer.\nProcessed a total of "
                    ),
                    "{}",
                    run.stderr
                )
            }),
        ),
        // The records all go to stdout; the count and the timeout's ERROR lines are lost.
        (
            vec![
                "consume",
                "--topic",
                "t",
                "--from-beginning",
                "--timeout-ms",
                "100",
            ],
            "",
            Closed::Stderr,
            0,
            Box::new(|run| {
                assert_eq!(run.stdout.lines().count(), 2000);
                assert_eq!(run.stdout.lines().last(), Some("line 1999"));
            }),
        ),
        (
            vec![
                "consume",
                "--topic",
                "t",
                "--from-beginning",
                "--timeout-ms",
                "100",
            ],
            "",
            Closed::Both,
            0,
            Box::new(|_| {}),
        ),
        // An error is still an error when its message cannot be shown.
        (vec!["consume"], "", Closed::Stderr, 1, Box::new(|_| {})),
        // produce: refusals are logged on a closed stderr, the run goes on, and exits 1 for
        // them (the count of them is lost with stderr).
        (
            [&["produce", "--topic", "t"][..], &too_small].concat(),
            &mixed,
            Closed::Stderr,
            1,
            Box::new(|run| {
                assert_eq!(run.stdout, "");
                let consumed = kafkit(
                    dir,
                    &[
                        "consume",
                        "--topic",
                        "t",
                        "--offset",
                        "2000",
                        "--partition",
                        "0",
                        "--timeout-ms",
                        "100",
                    ],
                );
                assert_eq!(consumed.stdout, "a\nb\nc\n");
            }),
        ),
        // --output json reports written records on a closed stdout: that stops the report,
        // not the run, which exits 1 for the records it refused.
        (
            [
                &["produce", "--topic", "u", "--output", "json"][..],
                &too_small,
            ]
            .concat(),
            &mixed,
            Closed::Stdout,
            1,
            Box::new(|run| {
                assert!(
                    run.stderr.contains("RecordTooLargeException"),
                    "{}",
                    run.stderr
                );
                assert!(
                    run.stderr
                        .ends_with("\nCould not write 2 of 5 records to topic u\n"),
                    "{}",
                    run.stderr
                );
            }),
        ),
        (
            [
                &["produce", "--topic", "u", "--output", "json"][..],
                &too_small,
            ]
            .concat(),
            &mixed,
            Closed::Both,
            1,
            Box::new(|_| {}),
        ),
        (vec!["produce"], "a\n", Closed::Stderr, 1, Box::new(|_| {})),
        // topics: Kafka prints the topic command's errors on stdout.
        (
            vec!["topics", "--list"],
            "",
            Closed::Stdout,
            0,
            Box::new(|_| {}),
        ),
        (
            vec!["topics", "--describe", "--topic", "nope"],
            "",
            Closed::Stderr,
            1,
            Box::new(|run| {
                assert_eq!(
                    run.stdout,
                    "Error while executing topic command : Topic 'nope' does not exist as expected\n"
                )
            }),
        ),
        // The deprecation warning of --delete-config is lost; the alteration is made.
        (
            vec![
                "topics",
                "--alter",
                "--topic",
                "u",
                "--partitions",
                "2",
                "--delete-config",
                "x",
            ],
            "",
            Closed::Stderr,
            0,
            Box::new(|_| assert_eq!(offsets(dir, "u"), "u:0:6\nu:1:0\n")),
        ),
        (
            vec!["topics", "--create", "--topic", "v"],
            "",
            Closed::Both,
            0,
            Box::new(|_| assert_eq!(offsets(dir, "v"), "v:0:0\n")),
        ),
        // dump-log-segments: Kafka's tool dumps the other files and exits 1 after a file that
        // cannot be dumped, whose error goes to stderr.
        (
            vec!["dump-log-segments", "--files", segment, "--print-data-log"],
            "",
            Closed::Stdout,
            0,
            Box::new(|run| assert_eq!(run.stderr, "")),
        ),
        (
            vec!["dump-log-segments", "--files", &both_files],
            "",
            Closed::Stderr,
            1,
            Box::new(|run| {
                assert!(
                    run.stdout.starts_with(&format!("Dumping {missing}\n")),
                    "{}",
                    run.stdout
                );
                assert!(
                    run.stdout.contains(&format!("Dumping {segment}\n")),
                    "{}",
                    run.stdout
                );
            }),
        ),
        (
            vec!["dump-log-segments", "--files", segment, "--deep-iteration"],
            "",
            Closed::Both,
            0,
            Box::new(|_| {}),
        ),
        // simulate-assignment
        (
            vec![
                "simulate-assignment",
                "--topic",
                "orders:10",
                "--members",
                "C1,C2,C3",
            ],
            "",
            Closed::Stdout,
            0,
            Box::new(|run| assert_eq!(run.stderr, "")),
        ),
        (
            vec![
                "simulate-assignment",
                "--topic",
                "orders:10",
                "--members",
                "C1,C2,C3",
                "--strategy",
                "nope",
            ],
            "",
            Closed::Stderr,
            1,
            Box::new(|run| assert_eq!(run.stdout, "")),
        ),
        (
            vec![
                "simulate-assignment",
                "--topic",
                "orders:10",
                "--members",
                "C1,C2,C3",
                "--compare",
                "range,sticky",
            ],
            "",
            Closed::Both,
            0,
            Box::new(|_| {}),
        ),
        // clap's own help and usage errors.
        (vec!["--help"], "", Closed::Stdout, 0, Box::new(|_| {})),
        (
            vec!["--no-such-option"],
            "",
            Closed::Stderr,
            1,
            Box::new(|_| {}),
        ),
    ];
    kafkit(dir, &["topics", "--create", "--topic", "u"]).ok();
    for (args, stdin, closed, code, check) in cases {
        let run = kafkit_closed(dir, &args, stdin.as_bytes(), closed);
        // A panic exits 101 with "panicked at" on stderr (when it is open to show it).
        assert!(
            !said(&run).contains("panicked"),
            "{args:?} {closed:?}: {}",
            said(&run)
        );
        assert_eq!(run.code, code, "{args:?} {closed:?}: {}", said(&run));
        check(&run);
    }
}

#[test]
fn a_data_dir_is_made_only_where_mkdir_would_make_it_and_said_once() {
    let tmp = tempdir();
    // A mistyped path: its parent is missing, so nothing is made, and the message names it.
    let typo = tmp.path().join("no-such-parent").join("kafka-logs");
    for args in [
        &["topics", "--create", "--topic", "t"][..],
        &["topics", "create", "--topic", "t", "--if-not-exists"],
        &["produce", "--topic", "t"],
    ] {
        let run = crate::common::kafkit_stdin(&typo, args, b"a\n");
        assert_eq!(run.code, 1, "{args:?}: {}", said(&run));
        assert!(
            said(&run).contains(&typo.display().to_string()),
            "{args:?}: {}",
            said(&run)
        );
        assert!(!tmp.path().join("no-such-parent").exists(), "{args:?}");
    }
    let run = kafkit(&typo, &["topics", "--create", "--topic", "t"]);
    let parent = tmp.path().join("no-such-parent");
    assert!(
        run.stdout.contains(&format!(
            "cannot create data directory {}: {} does not exist",
            typo.display(),
            parent.display()
        )),
        "{}",
        said(&run)
    );
    // Its parent exists: made, and said once on stderr, not again by the next command.
    let new = tmp.path().join("kafka-logs");
    let run = kafkit(&new, &["topics", "--create", "--topic", "a"]);
    assert_eq!(run.ok(), "Created topic a.\n");
    assert_eq!(
        run.stderr,
        format!("Created data directory {}\n", new.display())
    );
    let run = kafkit(&new, &["topics", "--create", "--topic", "b"]);
    assert_eq!(run.ok(), "Created topic b.\n");
    assert_eq!(run.stderr, "");
    // An existing empty directory is used as it is, without the note.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = kafkit(&empty, &["topics", "--create", "--topic", "c"]);
    assert_eq!(run.ok(), "Created topic c.\n");
    assert_eq!(run.stderr, "");
}

/// The commands a user can name (`kafkit --help` lists them; `generate` is hidden).
fn visible_commands() -> Vec<String> {
    crate::common::cli()
        .command
        .subcommands
        .iter()
        // clap's own `help` command prints help, nothing that could fail.
        .filter(|c| !c.hidden && c.name != "help")
        .map(|c| c.name.clone())
        .collect()
}

#[test]
fn with_output_json_every_command_ends_an_error_with_one_error_object_on_stdout() {
    let tmp = tempdir();
    let dir = tmp.path();
    kafkit(dir, &["topics", "--create", "--topic", "t"]).ok();
    // (command line, stdin, what the error says)
    let cases: &[(&[&str], &[u8], &str)] = &[
        (
            &["topics", "--create", "--topic", "t"],
            b"",
            "Error while executing topic command : Topic 't' already exists.",
        ),
        (
            &["topics", "--create"],
            b"",
            "Missing required argument \"[topic]\"",
        ),
        (
            &[
                "produce",
                "--topic",
                "t",
                "--producer-property",
                "max.request.size=100",
            ],
            b"a value longer than a hundred bytes once serialized with its record and batch overhead: ..............\nok\n",
            "Could not write 1 of 2 records to topic t",
        ),
        (
            &["consume", "--topic", "t", "--offset", "1"],
            b"",
            "The partition is required when offset is specified.",
        ),
        (
            &["get-offsets", "--topic", "t", "--time", "yesterday"],
            b"",
            "Error occurred: Malformed time argument yesterday.",
        ),
        (
            &["consumer-groups", "--describe"],
            b"",
            "Option [describe] takes one of these options: [group], [all-groups]",
        ),
        (
            &["dump-log-segments"],
            b"",
            "Missing required argument \"[files]\"",
        ),
        (
            &["log-cleaner", "--now", "soon"],
            b"",
            "Invalid --now soon: expected milliseconds since the epoch",
        ),
        (
            &[
                "simulate-assignment",
                "--topic",
                "orders:0",
                "--members",
                "a",
            ],
            b"",
            "simulate-assignment: ",
        ),
        (
            &["configs", "--alter", "--topic", "t", "--delete-config", "retention.ms"],
            b"",
            "Invalid config(s): retention.ms",
        ),
        (
            &["delete-records", "--offset-json-file", "/dev/stdin"],
            b"{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":5}]}",
            "Could not delete records of 1 of 1 partitions",
        ),
        (
            &["log-dirs", "--describe", "--broker-list", "7"],
            b"",
            "ERROR: The given brokers do not exist from --broker-list: 7. Current existent brokers: 0",
        ),
        (
            &["metadata", "--metadata-dir", "no-such-dir"],
            b"",
            "reading the cluster's metadata from no-such-dir",
        ),
        (
            &["cluster", "what-if", "--metadata-dir", "no-such-dir", "--down", "1"],
            b"",
            "reading the cluster's metadata from no-such-dir",
        ),
        (
            &["reassign-partitions", "--verify", "--reassignment-json-file", "/dev/stdin"],
            b"",
            "is not a cluster directory",
        ),
        (
            &["leader-election", "--all-topic-partitions"],
            b"",
            "Missing required option(s): election-type",
        ),
        // A usage error clap finds, before any command runs.
        (&["consume", "--no-such-option"], b"", "--no-such-option"),
    ];
    let covered: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.0[0]).collect();
    for command in visible_commands() {
        assert!(
            covered.contains(command.as_str()),
            "{command} is not tested"
        );
    }
    for (args, stdin, says) in cases {
        for output in [&["--output", "json"][..], &["--output=json"]] {
            let args: Vec<&str> = args.iter().chain(output).copied().collect();
            let run = crate::common::kafkit_stdin(dir, &args, stdin);
            assert_eq!(run.code, 1, "{args:?}: {}", said(&run));
            let lines: Vec<serde_json::Value> = run
                .stdout
                .lines()
                .map(|l| serde_json::from_str(l).expect("a JSON line"))
                .collect();
            let errors: Vec<&serde_json::Value> =
                lines.iter().filter(|v| v["type"] == "error").collect();
            assert_eq!(errors.len(), 1, "{args:?}: {}", run.stdout);
            let error = lines.last().unwrap();
            assert_eq!(error["type"], "error", "{args:?}: last line {error}");
            assert_eq!(error["code"], 1, "{args:?}");
            let message = error["message"].as_str().unwrap();
            assert!(message.contains(says), "{args:?}: {message}");
            // The human text stays on stderr: the same message.
            assert!(
                run.stderr.trim_end().ends_with(message),
                "{args:?}: stderr {}\nmessage {message}",
                run.stderr
            );
        }
        // Text output has no JSON on stdout (topics prints Kafka's line there).
        let run = crate::common::kafkit_stdin(dir, args, stdin);
        assert_eq!(run.code, 1, "{args:?}");
        assert!(!said(&run).contains("\"type\":\"error\""), "{args:?}");
        assert!(said(&run).contains(says), "{args:?}: {}", said(&run));
    }
}

#[test]
fn config_files_are_read_with_javas_properties_rules() {
    use crate::common::kafkit_stdin;
    let dir = tempdir();
    kafkit(dir.path(), &["topics", "create", "--topic", "p"]).ok();
    let reader = dir.path().join("reader.properties");
    // A `key value` pair continued on the next line, and a `\uXXXX` escape.
    std::fs::write(
        &reader,
        "! Java's rules\nparse.key \\\n    true\nkey.separator=\\u007C\n",
    )
    .expect("write");
    let reader = reader.to_str().expect("path");
    kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "p", "--reader-config", reader],
        b"k|v\n",
    )
    .ok();
    let run = kafkit(
        dir.path(),
        &[
            "consume",
            "--topic",
            "p",
            "--from-beginning",
            "--max-messages",
            "1",
            "--property",
            "print.key=true",
        ],
    );
    assert_eq!(run.ok(), "k\tv\n");

    let bad = dir.path().join("bad.properties");
    std::fs::write(&bad, "parse.key=true\nkey.separator=\\u12\n").expect("write");
    let bad = bad.to_str().expect("path");
    let run = kafkit_stdin(
        dir.path(),
        &["produce", "--topic", "p", "--reader-config", bad],
        b"k|v\n",
    );
    let stderr = run.fails();
    assert!(
        stderr.contains(bad) && stderr.contains("Malformed \\uxxxx encoding. (line 2)"),
        "{stderr}"
    );
}
