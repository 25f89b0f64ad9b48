//! The `kafkit` binary: the command line over the `kafkit` library. One file per command, each
//! with its clap `Args` and a `run` function; here, `main`: parse, run, print the error chain,
//! map to an exit code.
//!
//! Each command reads top to bottom: arguments, validation, one call into the library, output.
//! The command line's crates (clap and its generators, indicatif, comfy-table, anyhow) are
//! this binary's alone, behind the package's default `cli` feature: the library uses none.
// println!/eprintln! panic on a closed stdout or stderr: commands write through a handle and
// print diagnostics with `stderrln!`.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueHint;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use kafkit::output::OutputFormat;

pub mod brokers;
pub mod cluster;
pub mod configs;
pub mod consume;
pub mod consumer_groups;
pub mod delete_records;
pub mod dump_log_segments;
pub mod exit_codes;
pub mod explain;
pub mod generate;
pub mod get_offsets;
pub mod leader_election;
pub mod log_cleaner;
pub mod log_dirs;
pub mod metadata;
pub mod net;
pub mod produce;
mod progress;
pub mod reassign_partitions;
// poll(2) has no safe wrapper in std.
#[allow(unsafe_code)]
mod signals;
pub mod simulate_assignment;
pub mod topics;
pub mod values;

/// `eprintln!` that never panics nor fails: the line goes to [`QuietStderr`].
///
/// `eprintln!` panics when stderr is closed (`2>&-`, or `2>&1 | head` once `head` is gone);
/// commands print their diagnostics with this instead (`clippy::print_stderr` is denied).
macro_rules! stderrln {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!($crate::QuietStderr, $($arg)*);
    }};
}
pub(crate) use stderrln;

/// Apache Kafka's command-line tools for local Kafka-format data directories: no JVM, no broker.
#[derive(Debug, Parser)]
#[command(name = "kafkit", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command accepts, before or after the subcommand name.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// The data directory, laid out like a broker's `log.dirs`.
    ///
    /// Commands that write (produce, topics --create/--alter/--delete) share its `.lock` while
    /// they run, so a Kafka broker cannot start on it; a directory a broker holds is refused
    /// after 10 s with Kafka's lock message.
    /// Readers take no lock. Writers refuse an existing directory that is neither empty nor a
    /// data directory (one with meta.properties or .kafkit-topics.json, or only the files and
    /// partition directories a data directory holds). `topics --create` makes a missing one as
    /// mkdir does (its parent must exist) and says so on stderr.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "KAFKIT_DATA_DIR",
        default_value = "./kafka-logs",
        value_name = "DIR",
        value_hint = ValueHint::DirPath,
    )]
    pub data_dir: PathBuf,
    /// How results are printed: Kafka's text, or JSON Lines for scripts.
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_parser = values::output_format(),
        default_value = "text"
    )]
    pub output: OutputFormat,
    /// Draw no progress bar. Bars show the progress of long work (dumping large or many files,
    /// consuming a large range, producing from a large --file, a log-cleaner pass over 100
    /// partitions or 256 MiB of logs) on stderr, only when stderr is a
    /// terminal and stdout is not: never in a pipe or a file, and stdout is the same with or
    /// without them.
    #[arg(short, long, global = true, help_heading = "Global options")]
    pub quiet: bool,
    /// Whether `--data-dir` was given on the command line (not its default nor its
    /// environment variable): with `--bootstrap-server` that is a usage error.
    #[arg(skip)]
    pub data_dir_given: bool,
}

impl GlobalArgs {
    /// Whether a command may draw a progress bar: not `--quiet`, stderr a terminal, and stdout
    /// not (records and a bar drawn over them on one screen would cut each other).
    pub fn progress_wanted(&self) -> bool {
        use std::io::IsTerminal as _;
        !self.quiet && QuietStderr::is_terminal() && !io::stdout().is_terminal()
    }
}

/// The commands, named after Kafka's shell tools.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create, delete, describe, or change a topic (kafka-topics.sh).
    ///
    /// The action is a flag as in kafka-topics.sh (--create, --list, --describe, --alter,
    /// --delete) or a word: `kafkit topics create --topic demo --partitions 3`. The data
    /// directory stands for a one-broker cluster whose broker id is its node.id (0 for a
    /// directory kafkit created). Writers take the directory's .lock as a broker does.
    Topics(Box<topics::Args>),
    /// Dump Kafka log segments, indexes and snapshots as `kafka-dump-log.sh` does.
    DumpLogSegments(dump_log_segments::Args),
    /// Write records to a topic from lines of text or JSON (kafka-console-producer.sh).
    #[command(visible_alias = "console-producer")]
    Produce(Box<produce::Args>),
    /// Read records from a topic's partitions (kafka-console-consumer.sh).
    #[command(visible_alias = "console-consumer")]
    Consume(Box<consume::Args>),
    /// Print the offsets of a topic's partitions: latest, earliest, max timestamp, or by time
    /// (kafka-get-offsets.sh).
    GetOffsets(Box<get_offsets::Args>),
    /// List and describe consumer groups: state, members, committed offsets and lag, read from
    /// the data directory's __consumer_offsets (kafka-consumer-groups.sh).
    ConsumerGroups(Box<consumer_groups::Args>),
    /// Describe or change a topic's configs: its overrides, with Kafka's validation
    /// (kafka-configs.sh).
    Configs(Box<configs::Args>),
    /// Delete records of partitions below an offset: moves their log start offsets
    /// (kafka-delete-records.sh).
    DeleteRecords(Box<delete_records::Args>),
    /// Describe the data directory's partitions and their sizes, as Kafka's JSON
    /// (kafka-log-dirs.sh).
    LogDirs(Box<log_dirs::Args>),
    /// Delete old segments and compact compacted topics as a broker's retention and log cleaner
    /// do, in one pass now or at --now; --dry-run shows what would go and why.
    LogCleaner(Box<log_cleaner::Args>),
    /// Write shell completions and man pages (used to refresh `completions/` and `man/`).
    #[command(hide = true)]
    Generate(generate::Args),
    /// Show how Kafka's consumer-group assignors share partitions over scripted rebalances
    /// (range, roundrobin, sticky, cooperative-sticky, uniform, server-range), exactly as Kafka.
    SimulateAssignment(Box<simulate_assignment::Args>),
    /// Show a cluster's brokers, topics and partitions (leader, replicas, ISR) from its KRaft
    /// metadata log (__cluster_metadata-0), as kcat -L does.
    Metadata(Box<metadata::Args>),
    /// A cluster described by its KRaft metadata log: what taking brokers down would do.
    Cluster(Box<cluster::Args>),
    /// Move partitions' replicas, with their data, between a cluster's brokers
    /// (kafka-reassign-partitions.sh).
    ReassignPartitions(Box<reassign_partitions::Args>),
    /// Elect partitions' leaders in a cluster: preferred or unclean (kafka-leader-election.sh).
    LeaderElection(Box<leader_election::Args>),
}

/// An example of a command, shown in its help (`-h`, `--help`: one command a line, never
/// wrapped) and in its man page's EXAMPLES.
///
/// `tests/man.rs` runs each command's examples, in order, in an empty directory with `kafkit`
/// on the `PATH`, so a command's list starts with what it needs (a topic, records).
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// What it does, one sentence ending with a colon.
    pub what: &'static str,
    /// The command line, as typed in a POSIX shell.
    pub line: &'static str,
}

/// Examples of `kafkit` itself, in its man page.
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Create a topic of three partitions in ./kafka-logs (made if absent):",
        line: "kafkit topics --create --topic demo --partitions 3",
    },
    Example {
        what: "Write ten records to it, one a line, then read them back:",
        line: "seq 1 10 | kafkit produce --topic demo && kafkit consume --topic demo --from-beginning --max-messages 10",
    },
    Example {
        what: "The same, in another data directory, with results as JSON Lines:",
        line: "kafkit --data-dir ./other-logs topics --create --topic demo && kafkit --data-dir ./other-logs --output json get-offsets",
    },
];

/// The examples of `kafkit <command>` (`None`: of `kafkit`), by the command's name.
pub fn examples(command: Option<&str>) -> &'static [Example] {
    match command {
        None => EXAMPLES,
        Some("topics") => topics::EXAMPLES,
        Some("produce") => produce::EXAMPLES,
        Some("consume") => consume::EXAMPLES,
        Some("get-offsets") => get_offsets::EXAMPLES,
        Some("consumer-groups") => consumer_groups::EXAMPLES,
        Some("dump-log-segments") => dump_log_segments::EXAMPLES,
        Some("log-cleaner") => log_cleaner::EXAMPLES,
        Some("simulate-assignment") => simulate_assignment::EXAMPLES,
        Some("configs") => configs::EXAMPLES,
        Some("delete-records") => delete_records::EXAMPLES,
        Some("log-dirs") => log_dirs::EXAMPLES,
        Some("metadata") => metadata::EXAMPLES,
        Some("cluster") => cluster::EXAMPLES,
        Some("cluster what-if") => cluster::WHAT_IF_EXAMPLES,
        Some("cluster init") => cluster::INIT_EXAMPLES,
        Some("cluster replicate") => brokers::REPLICATE_EXAMPLES,
        Some("cluster stop-broker") => brokers::STOP_EXAMPLES,
        Some("cluster start-broker") => brokers::START_EXAMPLES,
        Some("cluster status") => brokers::STATUS_EXAMPLES,
        Some("reassign-partitions") => reassign_partitions::EXAMPLES,
        Some("leader-election") => leader_election::EXAMPLES,
        Some(_) => &[],
    }
}

/// clap's default help template with the command's examples after the options: written in the
/// template, which clap does not wrap (it wraps `after_help` to the terminal's width, and a
/// command line cut in two cannot be copied).
fn help_template(examples: &[Example]) -> String {
    let mut template = String::from(
        "{before-help}{about-with-newline}\n{usage-heading} {usage}\n\n{all-args}\n\nExamples:",
    );
    for example in examples {
        template.push_str("\n  ");
        template.push_str(example.line);
    }
    template.push_str("{after-help}");
    template
}

/// An error that carries its own exit code and is printed as it is, without a chain.
///
/// Kafka's tools print usage errors and execution errors in set words; commands return this to
/// print exactly those words.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Exit {
    /// What to print on stderr (nothing when empty).
    pub message: String,
    /// The process exit code.
    pub code: u8,
}

impl Exit {
    /// An error with Kafka's exit code 1.
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code: 1,
        }
    }
}

/// A usage error of `kafkit <command>`: Kafka's message, the command's usage line and a hint,
/// exit code 1 (Kafka's `printUsageAndExit`).
pub(crate) fn usage_error(command: &str, message: impl Into<String>) -> anyhow::Error {
    let mut cmd = self::command();
    cmd.build();
    let usage = cmd
        .find_subcommand_mut(command)
        .map(|c| c.render_usage().to_string())
        .unwrap_or_default();
    Exit {
        message: format!(
            "{}\n\n{usage}\n\nFor more information, try 'kafkit {command} --help'.",
            message.into()
        ),
        code: 1,
    }
    .into()
}

/// Splits `name=value` at the first `=` (Kafka's `parseKeyValueArgs`: `name` alone gives `""`).
pub(crate) fn key_value(text: &str) -> (&str, &str) {
    text.split_once('=').unwrap_or((text, ""))
}

/// Properties from a Java `.properties` file (`--reader-config`, `--producer.config`, ...)
/// followed by `name=value` arguments, so that an argument wins over the file, as in Kafka.
///
/// The file is read with Java's rules ([`kafkit::datadir::properties`]: `key=value`,
/// `key: value` or `key value`, comments, line continuations, `\uXXXX` escapes).
pub(crate) fn properties(
    file: Option<&std::path::Path>,
    args: &[String],
) -> anyhow::Result<Vec<(String, String)>> {
    use anyhow::Context as _;
    let mut props = Vec::new();
    if let Some(path) = file {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        props = kafkit::datadir::properties::parse(&text)
            .with_context(|| format!("reading {}", path.display()))?;
    }
    for arg in args {
        let (name, value) = key_value(arg);
        props.push((name.to_string(), value.to_string()));
    }
    Ok(props)
}

/// Standard error for diagnostics, which never fails: when stderr is closed or failing, what is
/// written is lost and the command goes on and ends as if it had been printed.
///
/// A diagnostic that cannot be shown is no reason to stop writing records or to change the exit
/// code, and an error from stderr must not reach `report`, which takes a broken pipe for a
/// closed stdout (a normal end). Every write to stderr goes through this type (directly or
/// through `stderrln!`): `std::io::stderr` is a disallowed method (`clippy.toml`).
#[derive(Debug, Clone, Copy, Default)]
pub struct QuietStderr;

impl QuietStderr {
    /// Whether stderr is a terminal (progress bars are drawn only there).
    pub fn is_terminal() -> bool {
        use std::io::IsTerminal as _;
        #[allow(clippy::disallowed_methods)] // only asks, never writes
        io::stderr().is_terminal()
    }
}

impl Write for QuietStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[allow(clippy::disallowed_methods)] // the one place that writes to stderr
        let _ = io::stderr().lock().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Parses the command line, runs the command and maps the outcome to an exit code.
///
/// Usage errors exit with 1, as every Kafka tool's `printUsageAndExit` does; `--help` and
/// `--version` print and exit with 0.
pub fn main() -> ExitCode {
    let parsed = command().try_get_matches().and_then(|matches| {
        let mut cli = Cli::from_arg_matches(&matches)?;
        cli.global.data_dir_given = given_on_command_line(&matches, "data_dir");
        Ok(cli)
    });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            if !err.use_stderr() {
                return ExitCode::SUCCESS;
            }
            // The arguments did not parse, so `--output` is looked for in them as they are.
            if json_asked(std::env::args_os().skip(1)) {
                json_error(err.render().to_string().trim_end(), 1);
            }
            return ExitCode::from(1);
        }
    };
    let output = cli.global.output;
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => report(&err, output),
    }
}

/// Whether the option `id` was typed on the command line, before or after the subcommand.
fn given_on_command_line(matches: &clap::ArgMatches, id: &str) -> bool {
    let here = matches!(
        matches
            .try_get_raw_occurrences(id)
            .ok()
            .flatten()
            .map(|_| matches.value_source(id)),
        Some(Some(clap::parser::ValueSource::CommandLine))
    );
    here || matches
        .subcommand()
        .is_some_and(|(_, sub)| given_on_command_line(sub, id))
}

/// Whether command-line arguments that clap refused ask for `--output json` (`--output json`
/// or `--output=json`, before a `--`).
fn json_asked(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    let mut previous_was_output = false;
    for arg in args {
        let Some(arg) = arg.to_str() else {
            previous_was_output = false;
            continue;
        };
        if arg == "--" {
            break;
        }
        if (previous_was_output && arg == "json") || arg == "--output=json" {
            return true;
        }
        previous_was_output = arg == "--output";
    }
    false
}

/// With `--output json`, an error also ends stdout's JSON Lines as one object, after what the
/// command printed (`docs/json.md`): an [`ErrorEvent`](kafkit::output::json::ErrorEvent) whose
/// message is what stderr shows. A closed stdout loses it, as it would lose any line.
fn json_error(message: &str, code: u8) {
    use kafkit::output::json::{write_event, ErrorEvent};
    let mut out = io::stdout().lock();
    let _ = write_event(&mut out, &ErrorEvent::Error { code, message }).and_then(|()| out.flush());
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let Cli { global, command } = cli;
    match command {
        Command::DumpLogSegments(args) => dump_log_segments::run(&args, &global),
        Command::Generate(args) => generate::run(&args),
        Command::SimulateAssignment(args) => simulate_assignment::run(&args, &global),
        Command::Topics(args) => topics::run(&args, &global),
        Command::Produce(args) => produce::run(&args, &global),
        Command::Consume(args) => consume::run(&args, &global),
        Command::GetOffsets(args) => get_offsets::run(&args, &global),
        Command::LogCleaner(args) => log_cleaner::run(&args, &global),
        Command::ConsumerGroups(args) => consumer_groups::run(&args, &global),
        Command::Configs(args) => configs::run(&args, &global),
        Command::DeleteRecords(args) => delete_records::run(&args, &global),
        Command::LogDirs(args) => log_dirs::run(&args, &global),
        Command::Metadata(args) => metadata::run(&args, &global),
        Command::Cluster(args) => cluster::run(&args, &global),
        Command::ReassignPartitions(args) => reassign_partitions::run(&args, &global),
        Command::LeaderElection(args) => leader_election::run(&args, &global),
    }
}

/// Prints an error on stderr (and with `--output json` as an `error` object on stdout) and
/// returns its exit code. A closed stdout is a normal end (stderr never fails:
/// [`QuietStderr`]). An [`Exit`] without a message prints nothing: the command has said why
/// already (in its own JSON objects too), or a signal ended it.
fn report(err: &anyhow::Error, output: OutputFormat) -> ExitCode {
    if is_broken_pipe(err) {
        return ExitCode::SUCCESS;
    }
    let (text, code) = match err.downcast_ref::<Exit>() {
        Some(exit) => (exit.message.clone(), exit.code),
        None => {
            let mut text = String::from("kafkit: error: ");
            text.push_str(&err.to_string());
            for cause in err.chain().skip(1) {
                text.push_str("\n  caused by: ");
                text.push_str(&cause.to_string());
            }
            (text, 1)
        }
    };
    if !text.is_empty() {
        stderrln!("{text}");
        if output == OutputFormat::Json {
            json_error(text.trim_end(), code);
        }
    }
    ExitCode::from(code)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The clap command tree: the derived one, each command with its examples in its help.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let names: Vec<(String, Vec<String>)> = cmd
        .get_subcommands()
        .map(|c| {
            let subs = c.get_subcommands().map(|s| s.get_name().to_string());
            (c.get_name().to_string(), subs.collect())
        })
        .collect();
    for (name, subs) in names {
        let examples = examples(Some(&name));
        if !examples.is_empty() {
            cmd = cmd.mut_subcommand(&name, |c| c.help_template(help_template(examples)));
        }
        for sub in subs {
            let examples = self::examples(Some(&format!("{name} {sub}")));
            if !examples.is_empty() {
                cmd = cmd.mut_subcommand(&name, |c| {
                    c.mut_subcommand(&sub, |s| s.help_template(help_template(examples)))
                });
            }
        }
    }
    cmd
}
