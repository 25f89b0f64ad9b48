//! `kafkit generate`: writes `completions/` and `man/` from the clap definitions, or describes
//! the command line as JSON for the tests (`--describe`), which run the binary and cannot reach
//! its clap definitions otherwise.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::ValueHint;
use clap_complete::Shell;

/// Arguments of the hidden `generate` command.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory that receives `completions/` and `man/`.
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub out_dir: PathBuf,
    /// Write nothing: print the command line on stdout as one JSON object, for the tests
    /// (`tests/completions.rs`, `tests/man.rs`, `tests/generated.rs`): the command tree as
    /// clap builds it (names, visible aliases, options with their possible values and value
    /// hints), every command's examples and the README's exit-code table.
    #[arg(long)]
    pub describe: bool,
}

/// Writes bash, zsh and fish completions and one man page per command.
pub fn run(args: &Args) -> Result<()> {
    if args.describe {
        let mut out = std::io::stdout().lock();
        kafkit::output::json::write_line(&mut out, &describe())?;
        return Ok(std::io::Write::flush(&mut out)?);
    }
    write_all(&args.out_dir)
}

/// The `--describe` object: `{"command": TREE, "examples": {COMMAND: [LINE...]},
/// "exit_codes_markdown": TABLE}`, the examples of `kafkit` itself under `""`.
fn describe() -> serde_json::Value {
    let mut cmd = super::command();
    cmd.build();
    let mut examples = serde_json::Map::new();
    let names = std::iter::once(None).chain(cmd.get_subcommands().map(|c| Some(c.get_name())));
    for name in names {
        let lines: Vec<&str> = super::examples(name).iter().map(|e| e.line).collect();
        examples.insert(name.unwrap_or_default().to_string(), lines.into());
    }
    serde_json::json!({
        "command": describe_command(&cmd),
        "examples": examples,
        "exit_codes_markdown": super::exit_codes::markdown(),
    })
}

/// One command of the tree and its subcommands, as the tests look at them.
fn describe_command(cmd: &clap::Command) -> serde_json::Value {
    let args: Vec<serde_json::Value> = cmd
        .get_arguments()
        .map(|arg| {
            let values = arg.get_value_parser().possible_values().map(|values| {
                values
                    .filter(|v| !v.is_hide_set())
                    .map(|v| v.get_name().to_string())
                    .collect::<Vec<_>>()
            });
            serde_json::json!({
                "id": arg.get_id().as_str(),
                "long": arg.get_long(),
                "hidden": arg.is_hide_set(),
                "takes_value": arg.get_num_args().is_some_and(|n| n.takes_values()),
                "possible_values": values,
                "value_hint": format!("{:?}", arg.get_value_hint()),
            })
        })
        .collect();
    serde_json::json!({
        "name": cmd.get_name(),
        "aliases": cmd.get_visible_aliases().collect::<Vec<_>>(),
        "hidden": cmd.is_hide_set(),
        "args": args,
        "subcommands": cmd.get_subcommands().map(describe_command).collect::<Vec<_>>(),
    })
}

/// Writes every generated file under `root` (`completions/…`, `man/…`).
pub fn write_all(root: &Path) -> Result<()> {
    for (path, bytes) in render()? {
        let path = root.join(path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Every generated file, as (relative path, contents), in a fixed order.
pub fn render() -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    for (shell, name) in [
        (Shell::Bash, "kafkit.bash"),
        (Shell::Zsh, "_kafkit"),
        (Shell::Fish, "kafkit.fish"),
    ] {
        let mut cmd = offered(&super::command());
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "kafkit", &mut buf);
        if shell == Shell::Bash {
            buf = no_default_completion(buf)?;
        }
        files.push((Path::new("completions").join(name), buf));
    }
    man_pages(&mut files)?;
    Ok(files)
}

/// clap_complete's bash script registered with `-o bashdefault -o default` falls back to file
/// names whenever its candidates are empty (a value of a closed set that matches nothing, a
/// word where no option goes). Options that take files complete them themselves
/// (`compgen -f`, `compopt -o filenames` or `plusdirs`), so the fallback is dropped.
fn no_default_completion(script: Vec<u8>) -> Result<Vec<u8>> {
    let script = String::from_utf8(script).context("a bash script that is not UTF-8")?;
    let fallback = " -o bashdefault -o default kafkit";
    anyhow::ensure!(
        script.matches(fallback).count() == 2,
        "clap_complete's bash script no longer registers `{fallback}` twice: look at generate.rs"
    );
    Ok(script.replace(fallback, " kafkit").into_bytes())
}

/// `cmd` as completions offer it: without its hidden commands and options (`generate`, the
/// options kept for compatibility with Kafka's tools), which clap_complete's bash script would
/// offer, and with what completion needs of the rest: names, visible aliases, help texts,
/// arguments (values and value hints) and the version flag.
fn offered(cmd: &clap::Command) -> clap::Command {
    let mut out = clap::Command::new(cmd.get_name().to_string())
        .visible_aliases(cmd.get_visible_aliases().map(str::to_string))
        .propagate_version(cmd.is_propagate_version_set());
    if let Some(about) = cmd.get_about() {
        out = out.about(about.clone());
    }
    if let Some(about) = cmd.get_long_about() {
        out = out.long_about(about.clone());
    }
    if let Some(version) = cmd.get_version() {
        out = out.version(version.to_string());
    }
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        out = out.arg(arg.clone());
    }
    for sub in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
        out = out.subcommand(offered(sub));
    }
    out
}

/// The man pages: `kafkit.1` and one a command (`kafkit-<command>.1`), hidden commands left out.
///
/// Each page has NAME, SYNOPSIS (a command line as typed: `kafkit <command> [--option VALUE]...`),
/// DESCRIPTION, OPTIONS and GLOBAL OPTIONS (every command takes them), EXAMPLES
/// ([`super::examples`]), EXIT STATUS ([`super::exit_codes`]), ENVIRONMENT, FILES (the data
/// directory's layout), SEE ALSO (the other pages) and VERSION.
fn man_pages(files: &mut Vec<(PathBuf, Vec<u8>)>) -> Result<()> {
    // `kafkit help` is `kafkit --help`: no page of its own.
    let mut root = super::command().disable_help_subcommand(true);
    // Built, each command holds the global options and is named `kafkit <command>`.
    root.build();
    // Every command, and each subcommand of one (`cluster what-if`: `kafkit-cluster-what-if`,
    // the page clap_mangen's SUBCOMMANDS section names), by its words after `kafkit`.
    let mut commands: Vec<(&clap::Command, String)> = Vec::new();
    for c in root.get_subcommands().filter(|c| !c.is_hide_set()) {
        commands.push((c, c.get_name().to_string()));
        for sub in c.get_subcommands().filter(|s| !s.is_hide_set()) {
            commands.push((sub, format!("{} {}", c.get_name(), sub.get_name())));
        }
    }
    let names: Vec<String> = std::iter::once("kafkit".to_string())
        .chain(
            commands
                .iter()
                .map(|(_, words)| format!("kafkit-{}", words.replace(' ', "-"))),
        )
        .collect();
    let pages = std::iter::once((&root, None))
        .chain(commands.iter().map(|(c, words)| (*c, Some(words.as_str()))));
    for ((cmd, command), name) in pages.zip(&names) {
        let see_also: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| n != name)
            .collect();
        let text = man_page(cmd, command, &see_also)?;
        files.push((
            Path::new("man").join(format!("{name}.1")),
            text.into_bytes(),
        ));
    }
    Ok(())
}

/// The man page of `cmd` (`command`: the kafkit command it is, `None` for kafkit itself).
fn man_page(cmd: &clap::Command, command: Option<&str>, see_also: &[&str]) -> Result<String> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut buf = Vec::new();
    let render = |buf: &mut Vec<u8>, f: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
        f(buf).context("rendering a man page")
    };
    render(&mut buf, &|w| man.render_title(w))?;
    render(&mut buf, &|w| man.render_name_section(w))?;
    buf.extend(synopsis(cmd, command).into_bytes());
    render(&mut buf, &|w| man.render_description_section(w))?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        render(&mut buf, &|w| man.render_options_section(w))?;
    }
    if cmd.get_subcommands().any(|c| !c.is_hide_set()) {
        render(&mut buf, &|w| man.render_subcommands_section(w))?;
    }
    if cmd.get_after_help().is_some() || cmd.get_after_long_help().is_some() {
        render(&mut buf, &|w| man.render_extra_section(w))?;
    }
    let mut text = String::from_utf8(buf).context("a man page that is not UTF-8")?;
    // Each of clap_mangen's sections starts with the page's preamble: once is enough.
    let preamble = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    if let Some(first) = text.find(preamble).map(|at| at + preamble.len()) {
        let rest = text.split_off(first).replace(preamble, "");
        text.push_str(&rest);
    }
    text.push_str(&examples(super::examples(command)));
    text.push_str(&super::exit_codes::roff(command));
    text.push_str(&environment_and_files());
    text.push_str(&see_also_section(see_also));
    if let Some(version) = cmd.get_version() {
        let mut page = roff::Roff::new();
        page.control("SH", ["VERSION"]);
        page.text([roff::roman(format!("v{version}"))]);
        text.push_str(&page.to_roff());
    }
    Ok(text)
}

/// SYNOPSIS: `kafkit <command>` and every option as it is typed, `[--name VALUE]`.
fn synopsis(cmd: &clap::Command, command: Option<&str>) -> String {
    use roff::{bold, italic, roman};
    let mut line = vec![bold(match command {
        Some(command) => format!("kafkit {command}"),
        None => "kafkit".to_string(),
    })];
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        line.push(roman(" ["));
        match (arg.get_short(), arg.get_long()) {
            (Some(short), Some(long)) => {
                line.push(bold(format!("-{short}")));
                line.push(roman("|"));
                line.push(bold(format!("--{long}")));
            }
            (None, Some(long)) => line.push(bold(format!("--{long}"))),
            (Some(short), None) => line.push(bold(format!("-{short}"))),
            (None, None) => {}
        }
        let num = arg.get_num_args().unwrap_or_default();
        if num.takes_values() {
            let shown: Vec<String> = if arg.is_hide_possible_values_set() {
                Vec::new()
            } else {
                arg.get_possible_values()
                    .iter()
                    .filter(|v| !v.is_hide_set())
                    .map(|v| v.get_name().to_string())
                    .collect()
            };
            let value = if shown.is_empty() {
                italic(
                    arg.get_value_names()
                        .map(|n| {
                            n.iter()
                                .map(|n| n.to_string())
                                .collect::<Vec<_>>()
                                .join(" ")
                        })
                        .unwrap_or_else(|| arg.get_id().to_string()),
                )
            } else {
                bold(shown.join("|"))
            };
            let optional = num.min_values() == 0;
            if !arg.is_positional() {
                line.push(roman(if optional { " [" } else { " " }));
            }
            line.push(value);
            if optional && !arg.is_positional() {
                line.push(roman("]"));
            }
        }
        line.push(roman("]"));
        if matches!(arg.get_action(), clap::ArgAction::Append) {
            line.push(roman("..."));
        }
    }
    if cmd.get_subcommands().any(|c| !c.is_hide_set()) {
        line.push(roman(" "));
        line.push(italic("COMMAND"));
        line.push(roman(" ["));
        line.push(italic("OPTIONS"));
        line.push(roman("]"));
    }
    let mut page = roff::Roff::new();
    page.control("SH", ["SYNOPSIS"]);
    page.text(line);
    page.to_roff()
}

/// EXAMPLES: what each does, then its command line as typed.
fn examples(examples: &[super::Example]) -> String {
    let mut page = roff::Roff::new();
    if examples.is_empty() {
        return String::new();
    }
    page.control("SH", ["EXAMPLES"]);
    for example in examples {
        page.control("PP", []);
        page.text([roff::roman(example.what)]);
        page.control("PP", []);
        page.control("RS", ["4"]);
        page.control("nf", []);
        page.text([roff::roman(format!("$ {}", example.line))]);
        page.control("fi", []);
        page.control("RE", []);
    }
    page.to_roff()
}

/// ENVIRONMENT and FILES: what every command reads.
fn environment_and_files() -> String {
    use kafkit::datadir::checkpoint::{
        CLEANER_OFFSET_CHECKPOINT, LEADER_EPOCH_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT,
        RECOVERY_POINT_CHECKPOINT, REPLICATION_OFFSET_CHECKPOINT,
    };
    use kafkit::datadir::lock::LOCK_FILE;
    use kafkit::datadir::meta::{META_PROPERTIES, PARTITION_METADATA};
    use kafkit::datadir::{TOPICS_FILE, UNFLUSHED_TAILS};
    use roff::{bold, italic, roman};
    let mut page = roff::Roff::new();
    page.control("SH", ["ENVIRONMENT"]);
    page.control("TP", []);
    page.text([bold("KAFKIT_DATA_DIR")]);
    page.text([roman(
        "The data directory when --data-dir is not given (default: ./kafka-logs). --data-dir wins over it.",
    )]);
    page.control("SH", ["FILES"]);
    page.text([roman(
        "A data directory is laid out as a Kafka broker's log.dirs, so that a broker can open it and kafkit can read a broker's:",
    )]);
    let entry = |page: &mut roff::Roff, tag: Vec<roff::Inline>, text: &str| {
        page.control("TP", []);
        page.text(tag);
        page.text([roman(text)]);
    };
    let file = |name: &str| vec![italic("DIR"), bold(format!("/{name}"))];
    entry(
        &mut page,
        file(META_PROPERTIES),
        "The broker's identity: version, node.id and cluster.id (written when kafkit creates the directory).",
    );
    entry(
        &mut page,
        vec![italic("DIR"), roman("/"), italic("topic"), bold("-"), italic("partition"), bold("/")],
        &format!("One directory a partition: its segments, each a BASE.log (the batches; BASE is the segment's base offset, 20 digits) with its BASE.index (offset index) and BASE.timeindex (time index), producer snapshots (BASE.snapshot), transaction indexes (BASE.txnindex), {LEADER_EPOCH_CHECKPOINT} and {PARTITION_METADATA} (the topic id)."),
    );
    entry(
        &mut page,
        file(LOCK_FILE),
        "Held (an OFD record lock, which conflicts with a running broker's) by commands that write: produce and topics --create, --alter, --delete. Readers take no lock.",
    );
    entry(
        &mut page,
        file(RECOVERY_POINT_CHECKPOINT),
        "Where each partition's log is known to be flushed: a writer recovers a log from there.",
    );
    entry(
        &mut page,
        file(LOG_START_OFFSET_CHECKPOINT),
        "Each partition's first offset, where retention or deletion moved it past the first segment's base.",
    );
    entry(
        &mut page,
        vec![
            italic("DIR"),
            bold(format!("/{REPLICATION_OFFSET_CHECKPOINT}")),
            roman(", "),
            italic("DIR"),
            bold(format!("/{CLEANER_OFFSET_CHECKPOINT}")),
        ],
        "Each partition's high watermark, and where the log cleaner (compaction) stopped, as a broker keeps them.",
    );
    entry(
        &mut page,
        file(TOPICS_FILE),
        "kafkit's topic metadata (names, ids, partition counts, configs), replaced atomically.",
    );
    entry(
        &mut page,
        file(UNFLUSHED_TAILS),
        "A cache of where the last writer left logs it did not fsync (--acks 0 or 1), so that the next writer of the same boot need not validate them again.",
    );
    page.to_roff()
}

/// SEE ALSO: the other kafkit pages (all of them exist, in `man/`).
fn see_also_section(pages: &[&str]) -> String {
    let mut page = roff::Roff::new();
    page.control("SH", ["SEE ALSO"]);
    let mut line = Vec::new();
    for (i, name) in pages.iter().enumerate() {
        if i > 0 {
            line.push(roff::roman(", "));
        }
        line.push(roff::bold(*name));
        line.push(roff::roman("(1)"));
    }
    page.text(line);
    page.to_roff()
}
