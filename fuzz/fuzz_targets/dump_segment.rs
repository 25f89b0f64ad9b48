//! Arbitrary bytes as a whole file of every kind `dump-log-segments` reads (`.log`,
//! `.checkpoint`, `.index`, `.timeindex`, `.snapshot`, `.txnindex`), dumped with every printer
//! and decoder: the dump must finish with an outcome, never panic.
//! `cargo +nightly fuzz run dump_segment`.
#![no_main]

use std::io;

use kafkit::output::dump::{dump_files, BytesDecoder, DumpOptions};
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
    // `--deep-iteration` and one printer or decoder.
    let mut options = DumpOptions {
        deep_iteration: true,
        ..DumpOptions::default()
    };
    match (choice / 6) % 5 {
        0 => options.print_data_log = true,
        1 => options.offsets_decoder = true,
        2 => options.transaction_log_decoder = true,
        3 => options.cluster_metadata_decoder = true,
        _ => {
            options.skip_record_metadata = true;
            options.key_decoder = Some(BytesDecoder::Long);
            options.value_decoder = Some(BytesDecoder::Hex);
        }
    }
    options.index_sanity_check = choice & 0x80 != 0;
    let format = if choice & 0x40 != 0 {
        OutputFormat::Json
    } else {
        OutputFormat::Text
    };
    let outcome = dump_files(&options, &[path.as_str()], format, io::sink(), io::sink(), None);
    assert!(outcome.is_ok(), "writing to a sink cannot fail");
});
