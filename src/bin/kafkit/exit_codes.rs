//! The exit codes of every command, in one table: the README's "Exit codes" section and the
//! EXIT STATUS section of every man page are made from it (`tests/generated.rs` checks both).

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct ExitCode {
    /// The code, as the shell sees it (`128+N` for a signal).
    pub code: &'static str,
    /// The commands the row is about; empty for every command.
    pub commands: &'static [&'static str],
    /// What it means, in Markdown (only `code spans`).
    pub meaning: &'static str,
}

/// Every exit code, by code, the rows of every command first.
pub const EXIT_CODES: &[ExitCode] = &[
    ExitCode {
        code: "0",
        commands: &[],
        meaning: "success (`--help` and `--version` too); also a run that stopped because its stdout was closed, as by `| head`: a closed pipe is a normal end",
    },
    ExitCode {
        code: "0",
        commands: &["produce"],
        meaning: "a closed stdout stops only the `--output json` report: every line of the input is still written",
    },
    ExitCode {
        code: "0",
        commands: &["consume", "get-offsets"],
        meaning: "also when a reader stopped at an active segment's torn tail, which it names on stderr (what a crash leaves; the next writer cuts it)",
    },
    ExitCode {
        code: "0",
        commands: &["dump-log-segments"],
        meaning: "without `--strict`, as Kafka's tool: also when it reports bad CRCs, invalid trailing bytes or index mismatches",
    },
    ExitCode {
        code: "0",
        commands: &["consumer-groups"],
        meaning: "also when a group to describe does not exist: as Kafka's tool, it prints `Error: Consumer group 'G' does not exist.` on stdout and goes on",
    },
    ExitCode {
        code: "1",
        commands: &[],
        meaning: "an error: an unknown or invalid option, bad input, a failed command; the message on stderr (or Kafka's stdout line, where Kafka prints one, as `topics` does) says what and where",
    },
    ExitCode {
        code: "1",
        commands: &["produce"],
        meaning: "records were refused (larger than `max.request.size` or the topic's `max.message.bytes`, or for an internal topic) and the others written: each refusal is logged as Kafka logs it, then `Could not write N of M records to topic T`; with `--sync` the first refusal ends the run",
    },
    ExitCode {
        code: "1",
        commands: &["consumer-groups"],
        meaning: "a reset refused for a group that is not inactive, a group or offsets not deleted: Kafka's `Error:` lines on stdout say which, after the rest was done (Kafka's tool exits 0)",
    },
    ExitCode {
        code: "1",
        commands: &["consume"],
        meaning: "a corrupt batch was reached, or a record could not be deserialized (without `--skip-message-on-error`), after printing the records before it",
    },
    ExitCode {
        code: "1",
        commands: &["get-offsets"],
        meaning: "a partition could not be read: the others are printed, then `Could not get offsets for N of M topic-partitions`",
    },
    ExitCode {
        code: "1",
        commands: &["delete-records"],
        meaning: "a partition's records could not be deleted (unknown partition, a `cleanup.policy` without `delete`, an offset past the end or negative; with `--bootstrap-server` also a partition whose leader was not found or did not answer in `default.api.timeout.ms`): every partition's line is printed, Kafka's error in it, then `Could not delete records of N of M partitions` (Kafka's tool exits 0 then)",
    },
    ExitCode {
        code: "1",
        commands: &["dump-log-segments"],
        meaning: "a file could not be dumped (after dumping the others)",
    },
    ExitCode {
        code: "2",
        commands: &["simulate-assignment"],
        meaning: "`--scenario <vector file>`: a replayed round differs from Kafka's expected result",
    },
    ExitCode {
        code: "3",
        commands: &["dump-log-segments"],
        meaning: "`--strict`: something was found wrong (bad CRC, invalid trailing bytes, index mismatch, non-consecutive offsets in a log that is not compacted)",
    },
    ExitCode {
        code: "128+N",
        commands: &["consume"],
        meaning: "ended by signal N (SIGINT, Ctrl-C: 130; SIGTERM: 143; SIGHUP: 129), after printing `Processed a total of N messages`",
    },
    ExitCode {
        code: "128+N",
        commands: &["produce"],
        meaning: "ended by signal N (SIGINT, Ctrl-C: 130; SIGTERM: 143; SIGHUP: 129), after writing every record it had read",
    },
];

/// What the table does not say, after it: a closed stderr.
pub const CLOSED_STDERR: &str = "A closed stderr (`2>&-`, or `2>&1 | head` once `head` has gone) changes nothing: what would have been printed there is lost, and the command goes on and exits with the code it would have. No command panics on a closed stdout or stderr.";

/// The rows about `command` (and every command); all of them for `None`.
pub fn rows(command: Option<&str>) -> impl Iterator<Item = &'static ExitCode> + '_ {
    EXIT_CODES.iter().filter(move |row| match command {
        Some(name) => row.commands.is_empty() || row.commands.contains(&name),
        None => true,
    })
}

/// The README's table, and the paragraph after it.
pub fn markdown() -> String {
    let mut text = String::from("| code | command | meaning |\n|---|---|---|\n");
    for row in EXIT_CODES {
        let commands = if row.commands.is_empty() {
            "every command".to_string()
        } else {
            row.commands
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        // A `|` splits a table cell, even in a code span, unless escaped.
        let meaning = row.meaning.replace('|', "\\|");
        text.push_str(&format!("| {} | {commands} | {meaning} |\n", row.code));
    }
    text.push('\n');
    text.push_str(CLOSED_STDERR);
    text.push('\n');
    text
}

/// The EXIT STATUS section of the man page of `command` (`None`: of `kafkit` itself, which
/// lists every row with the commands it is about).
pub fn roff(command: Option<&str>) -> String {
    let mut page = roff::Roff::new();
    page.control("SH", ["EXIT STATUS"]);
    for row in rows(command) {
        page.control("TP", []);
        let mut tag = vec![roff::bold(row.code)];
        if command.is_none() && !row.commands.is_empty() {
            tag.push(roff::roman(format!(" ({})", row.commands.join(", "))));
        }
        page.text(tag);
        page.text(inline(row.meaning));
    }
    page.control("PP", []);
    page.text(inline(CLOSED_STDERR));
    page.to_roff()
}

/// Markdown code spans as bold, the rest as roman text.
fn inline(text: &str) -> Vec<roff::Inline> {
    text.split('`')
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(i, part)| {
            if i % 2 == 1 {
                roff::bold(part)
            } else {
                roff::roman(part)
            }
        })
        .collect()
}
