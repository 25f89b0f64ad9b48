//! The generated bash completion (`completions/kafkit.bash`), run as bash runs it: values of
//! closed sets are completed, not file names; the `console-*` aliases complete as their
//! commands; hidden commands and options are not offered. Needs bash (in CI: a failure without
//! it; elsewhere a SKIPPED line).

use std::collections::BTreeSet;
use std::process::Command;

use crate::common::{cli, have_tool, repo_root, tempdir, CliCommand};

/// What `_kafkit` left for one command line.
#[derive(Debug, Default)]
struct Completion {
    /// `COMPREPLY`, as a set.
    reply: BTreeSet<String>,
    /// The `compopt` calls it made (`-o filenames`, `-o nospace`, ...).
    compopt: Vec<String>,
}

/// Runs `_kafkit` on each command line (its words; the last is the word being completed) in
/// one bash, in a directory holding files named like values (`latest`, `gzip.properties`...), so
/// that a completion of file names shows.
fn complete_all(lines: &[Vec<String>]) -> Option<Vec<Completion>> {
    if !have_tool("bash", "the bash completion tests") {
        return None;
    }
    let dir = tempdir();
    for file in ["latest", "gzip.properties", "topic.json", "t-file"] {
        std::fs::write(dir.path().join(file), b"").expect("write");
    }
    let quote = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
    let mut script = String::from(
        "source \"$1\" || exit 9\n\
         compopt() { COMPOPT+=(\"$*\"); }\n\
         run() {\n\
           COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); COMPOPT=()\n\
           COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}\n\
           _kafkit \"${COMP_WORDS[0]}\" \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n\
           if ((${#COMPREPLY[@]})); then printf 'reply:%s\\n' \"${COMPREPLY[@]}\"; fi\n\
           if ((${#COMPOPT[@]})); then printf 'compopt:%s\\n' \"${COMPOPT[@]}\"; fi\n\
           printf 'end\\n'\n\
         }\n",
    );
    for words in lines {
        script.push_str("run");
        for w in words {
            script.push(' ');
            script.push_str(&quote(w));
        }
        script.push('\n');
    }
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .arg("bash")
        .arg(repo_root().join("completions/kafkit.bash"))
        .current_dir(dir.path())
        .output()
        .expect("run bash");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        out.status.success(),
        "bash failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut all = Vec::new();
    let mut one = Completion::default();
    for line in stdout.lines() {
        if line == "end" {
            all.push(std::mem::take(&mut one));
        } else if let Some(r) = line.strip_prefix("reply:") {
            one.reply.insert(r.to_string());
        } else if let Some(c) = line.strip_prefix("compopt:") {
            one.compopt.push(c.to_string());
        }
    }
    assert_eq!(all.len(), lines.len(), "one result a line:\n{stdout}");
    Some(all)
}

fn words(line: &str) -> Vec<String> {
    let mut w: Vec<String> = line.split(' ').map(str::to_string).collect();
    if line.ends_with(' ') {
        // The last word is the one being completed, here empty.
        w.pop();
        w.push(String::new());
    }
    w
}

fn set(values: &[&str]) -> BTreeSet<String> {
    values.iter().map(|v| v.to_string()).collect()
}

#[test]
fn closed_sets_complete_their_values_under_every_name_of_their_command() {
    let strategies = [
        "range",
        "roundrobin",
        "sticky",
        "cooperative-sticky",
        "uniform",
        "server-range",
    ];
    let codecs = ["none", "gzip", "snappy", "lz4", "zstd"];
    let cases: Vec<(&str, BTreeSet<String>)> = vec![
        (
            "kafkit consume --isolation-level ",
            set(&["read_committed", "read_uncommitted"]),
        ),
        (
            "kafkit console-consumer --isolation-level ",
            set(&["read_committed", "read_uncommitted"]),
        ),
        ("kafkit consume --offset ", set(&["earliest", "latest"])),
        ("kafkit console-consumer --offset l", set(&["latest"])),
        ("kafkit produce --compression-codec ", set(&codecs)),
        (
            "kafkit console-producer --compression-codec g",
            set(&["gzip"]),
        ),
        ("kafkit produce --acks ", set(&["all", "1", "0", "-1"])),
        ("kafkit produce --request-required-acks a", set(&["all"])),
        ("kafkit produce --input ", set(&["text", "json"])),
        ("kafkit simulate-assignment --strategy ", set(&strategies)),
        ("kafkit simulate-assignment --compare ", set(&strategies)),
        (
            "kafkit get-offsets --time ",
            set(&[
                "latest",
                "earliest",
                "max-timestamp",
                "earliest-local",
                "latest-tiered",
            ]),
        ),
        ("kafkit --output ", set(&["text", "json"])),
        ("kafkit dump-log --output ", set(&["text", "json"])),
        (
            "kafkit consume --formatter org.apache.kafka.tools.consumer.No",
            set(&["org.apache.kafka.tools.consumer.NoOpMessageFormatter"]),
        ),
        (
            "kafkit consume --value-deserializer org.apache.kafka.common.serialization.Lo",
            set(&["org.apache.kafka.common.serialization.LongDeserializer"]),
        ),
        // No value matches: nothing, not the file named `latest`... nor any file.
        ("kafkit consume --offset x", set(&[])),
    ];
    let lines: Vec<Vec<String>> = cases.iter().map(|(l, _)| words(l)).collect();
    let Some(got) = complete_all(&lines) else {
        return;
    };
    for ((line, want), got) in cases.iter().zip(&got) {
        assert_eq!(&got.reply, want, "completing `{line}`");
    }
}

/// Every option with a set of values (clap's possible values, for every command and alias)
/// completes exactly that set, read from the CLI definition itself.
#[test]
fn every_option_with_values_completes_them() {
    let mut cases: Vec<(Vec<String>, BTreeSet<String>)> = Vec::new();
    for sub in cli().command.subcommands.iter().filter(|c| !c.hidden) {
        let names: Vec<&str> = std::iter::once(sub.name.as_str())
            .chain(sub.aliases.iter().map(String::as_str))
            .collect();
        for arg in sub.args.iter().filter(|a| !a.hidden) {
            if !arg.takes_value {
                continue;
            }
            let (Some(long), Some(values)) = (&arg.long, &arg.possible_values) else {
                continue;
            };
            let want: BTreeSet<String> = values.iter().cloned().collect();
            for name in &names {
                cases.push((
                    vec![
                        "kafkit".into(),
                        (*name).into(),
                        format!("--{long}"),
                        String::new(),
                    ],
                    want.clone(),
                ));
            }
        }
    }
    assert!(cases.len() > 20, "{cases:?}");
    let lines: Vec<Vec<String>> = cases.iter().map(|(l, _)| l.clone()).collect();
    let Some(got) = complete_all(&lines) else {
        return;
    };
    for ((line, want), got) in cases.iter().zip(&got) {
        assert_eq!(&got.reply, want, "completing `{}`", line.join(" "));
    }
}

#[test]
fn file_options_complete_files_and_free_values_complete_nothing() {
    let files = set(&["latest", "gzip.properties", "topic.json", "t-file"]);
    let lines = [
        "kafkit consume --consumer.config ",
        "kafkit console-producer --producer.config ",
        "kafkit simulate-assignment --scenario ",
        "kafkit dump-log-segments --files ",
        "kafkit consume --topic t",
        "kafkit produce --topic ",
        "kafkit topics --config ",
        "kafkit --data-dir ",
    ];
    let Some(got) = complete_all(&lines.map(words)) else {
        return;
    };
    for (line, got) in lines.iter().take(4).zip(&got) {
        assert_eq!(got.reply, files, "completing `{line}`");
        assert!(
            got.compopt.iter().any(|c| c == "-o filenames"),
            "`{line}`: {got:?}"
        );
    }
    // A topic name, a config: the word as typed, never a file name (and no space after it).
    assert_eq!(got[4].reply, set(&["t"]), "{:?}", got[4]);
    assert_eq!(got[5].reply, set(&[""]), "{:?}", got[5]);
    assert_eq!(got[6].reply, set(&[""]), "{:?}", got[6]);
    assert!(got[4].compopt.iter().any(|c| c == "-o nospace"));
    // A directory: bash adds the directories (plusdirs), no file.
    assert_eq!(got[7].reply, set(&[]), "{:?}", got[7]);
    assert!(got[7].compopt.iter().any(|c| c == "-o plusdirs"));
}

#[test]
fn commands_and_aliases_are_offered_hidden_ones_are_not() {
    let lines = [
        "kafkit ",
        "kafkit help ",
        "kafkit c",
        "kafkit produce --",
        "kafkit console-producer --",
    ];
    let Some(got) = complete_all(&lines.map(words)) else {
        return;
    };
    for name in [
        "topics",
        "produce",
        "console-producer",
        "consume",
        "console-consumer",
        "dump-log-segments",
        "get-offsets",
        "consumer-groups",
        "simulate-assignment",
        "configs",
        "delete-records",
        "log-dirs",
        "metadata",
        "cluster",
    ] {
        assert!(got[0].reply.contains(name), "{name}: {:?}", got[0]);
    }
    assert!(!got[0].reply.contains("generate"), "{:?}", got[0]);
    assert!(!got[1].reply.contains("generate"), "{:?}", got[1]);
    assert!(got[1].reply.contains("consume"), "{:?}", got[1]);
    assert_eq!(
        got[2].reply,
        set(&[
            "configs",
            "cluster",
            "consume",
            "console-consumer",
            "console-producer",
            "consumer-groups"
        ])
    );
    for g in &got[3..] {
        assert!(g.reply.contains("--compression-codec"), "{g:?}");
        assert!(g.reply.contains("--data-dir"), "{g:?}");
        // Kept for compatibility with Kafka's network options, hidden from help: not offered.
        assert!(!g.reply.contains("--message-send-max-retries"), "{g:?}");
    }
}

#[test]
fn the_script_registers_no_file_name_fallback() {
    // `complete -o default` would offer file names whenever a value matches nothing.
    if !have_tool("bash", "the bash completion tests") {
        return;
    }
    let out = Command::new("bash")
        .arg("-c")
        .arg("source \"$1\" && complete -p kafkit")
        .arg("bash")
        .arg(repo_root().join("completions/kafkit.bash"))
        .output()
        .expect("run bash");
    let spec = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{spec}");
    assert!(spec.contains("-F _kafkit"), "{spec}");
    assert!(!spec.contains("-o default"), "{spec}");
    assert!(!spec.contains("-o bashdefault"), "{spec}");
}

/// Every option that takes a value says what completes it: a set of values, files, a
/// directory, or anything (`ValueHint::Other`: no file names). A new option without one would
/// complete file names.
#[test]
fn every_option_declares_what_completes_its_value() {
    let mut missing = Vec::new();
    let mut checked = 0;
    let mut commands: Vec<&CliCommand> = vec![&cli().command];
    while let Some(cmd) = commands.pop() {
        for arg in cmd.args.iter().filter(|a| !a.hidden) {
            if !arg.takes_value || arg.possible_values.is_some() {
                continue;
            }
            checked += 1;
            if matches!(arg.value_hint.as_str(), "Unknown" | "AnyPath") {
                missing.push(format!("{} --{}", cmd.name, arg.id));
            }
        }
        commands.extend(cmd.subcommands.iter().filter(|c| !c.hidden));
    }
    assert!(checked > 20, "{checked} options checked");
    assert!(missing.is_empty(), "no value hint: {missing:?}");
}
