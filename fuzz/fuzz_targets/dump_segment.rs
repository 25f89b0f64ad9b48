//! Arbitrary bytes as a whole file of every kind `dump-log-segments` reads (`.log`,
//! `.checkpoint`, `.index`, `.timeindex`, `.snapshot`, `.txnindex`), dumped with every printer
//! and decoder: the dump must finish with an outcome, never panic.
//! `cargo +nightly fuzz run dump_segment`.
#![no_main]

use std::io;

use kafkit::cli::dump_log_segments::{dump, Args};
use kafkit::output::OutputFormat;
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 6] = [
    "00000000000000000000.log",
    "00000000000000014459-0000000001.checkpoint",
    "00000000000000000000.index",
    "00000000000000000000.timeindex",
    "00000000000000000000.snapshot",
    "00000000000000000000.txnindex",
];

fuzz_target!(|data: &[u8]| {
    // The first byte chooses the file kind and the options; the rest is the file.
    let Some((&choice, body)) = data.split_first() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("kafkit-fuzz-dump-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let name = NAMES[usize::from(choice) % NAMES.len()];
    let path = dir.join(name);
    if std::fs::write(&path, body).is_err() {
        return;
    }
    // Index files are checked against a log of the same bytes.
    if !name.ends_with(".log") && std::fs::write(dir.join(NAMES[0]), body).is_err() {
        return;
    }
    let path = path.to_string_lossy().into_owned();
    let mut args = vec!["--files", path.as_str(), "--deep-iteration"];
    match (choice / 6) % 5 {
        0 => args.push("--print-data-log"),
        1 => args.push("--offsets-decoder"),
        2 => args.push("--transaction-log-decoder"),
        3 => args.push("--cluster-metadata-decoder"),
        _ => args.extend(["--skip-record-metadata", "--key-decoder", "long", "--value-decoder", "hex"]),
    }
    if choice & 0x80 != 0 {
        args.push("--index-sanity-check");
    }
    let format = if choice & 0x40 != 0 {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let Ok(args) = Args::parse_list(&args) else {
        return;
    };
    let outcome = dump(&args, format, io::sink(), io::sink(), None);
    assert!(outcome.is_ok(), "writing to a sink cannot fail");
});
