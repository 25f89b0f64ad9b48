//! `kafkit generate`: writes `completions/` and `man/` from the clap definitions.

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
}

/// Writes bash, zsh and fish completions and one man page per command.
pub fn run(args: &Args) -> Result<()> {
    write_all(&args.out_dir)
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
    let cmd = super::command();
    man_pages(&cmd, "kafkit", None, &mut files)?;
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

/// The man page of `cmd` (`command`: the kafkit command it is, `None` for kafkit itself) and
/// of its subcommands, each with its EXIT STATUS section ([`super::exit_codes`]).
fn man_pages(
    cmd: &clap::Command,
    name: &str,
    command: Option<&str>,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
) -> Result<()> {
    if cmd.is_hide_set() {
        return Ok(());
    }
    let page = cmd.clone().name(name.to_string());
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .context("rendering a man page")?;
    let mut text = String::from_utf8(buf).context("a man page that is not UTF-8")?;
    // Before VERSION and AUTHORS, where man pages keep it.
    let exit_status = super::exit_codes::roff(command);
    let at = text.find("\n.SH VERSION").map_or(text.len(), |at| at + 1);
    text.insert_str(at, &exit_status);
    files.push((
        Path::new("man").join(format!("{name}.1")),
        text.into_bytes(),
    ));
    for sub in cmd.get_subcommands() {
        man_pages(
            sub,
            &format!("{name}-{}", sub.get_name()),
            Some(command.unwrap_or(sub.get_name())),
            files,
        )?;
    }
    Ok(())
}
