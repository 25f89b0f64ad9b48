//! Corrupt and hostile input never panics, and every damage that can be seen is reported with
//! the file and byte position: flipped bytes through real fixtures, zero-filled and garbage
//! files, absurd lengths, truncation, a segment appended to while it is dumped, and random bytes
//! through every internal-topic decoder.

use std::fs;
use std::path::Path;

use kafkit::log::{Log, LogCheckpoints, LogConfig};
use kafkit::output::dump::{dump_files, expand_directories, DumpOptions, Outcome};
use kafkit::output::OutputFormat;
use kafkit::record::{batches, BatchBuilder, Compression, TimestampType};
use proptest::prelude::*;

use super::dump_in;
use crate::common::{fixtures, tempdir};

/// The library's options for `args`, written as the command's flags (the few these tests use),
/// and the files of `--files` (a directory standing for its segment files, as in the command).
fn options(args: &[&str]) -> (DumpOptions, Vec<String>) {
    let mut options = DumpOptions::default();
    let mut files = Vec::new();
    let mut args = args.iter();
    while let Some(&arg) = args.next() {
        match arg {
            "--files" => {
                let list: Vec<&str> = args.next().expect("--files LIST").split(',').collect();
                files = expand_directories(&list);
            }
            "--deep-iteration" => options.deep_iteration = true,
            "--print-data-log" => options.print_data_log = true,
            "--verify-index-only" => options.verify_index_only = true,
            "--index-sanity-check" => options.index_sanity_check = true,
            "--offsets-decoder" => options.offsets_decoder = true,
            "--transaction-log-decoder" => options.transaction_log_decoder = true,
            "--cluster-metadata-decoder" => options.cluster_metadata_decoder = true,
            "--skip-record-metadata" => options.skip_record_metadata = true,
            other => panic!("a flag dump_here does not know: {other}"),
        }
    }
    (options, files)
}

/// Dumps in-process through the library; returns the outcome, stdout and stderr.
fn dump_here(args: &[&str], format: OutputFormat) -> (Outcome, String, String) {
    let (options, files) = options(args);
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = dump_files(&options, &files, format, &mut out, &mut err, None).expect("dump");
    (
        outcome,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// Byte ranges no checksum covers (v2: baseOffset, partitionLeaderEpoch; legacy: offset):
/// damage there can go unnoticed, as it does in Kafka.
fn unchecked_ranges(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for b in batches(bytes) {
        let Ok(b) = b else { break };
        let s = b.position();
        out.push(s..s + 8);
        if b.magic() >= 2 {
            out.push(s + 12..s + 16);
        }
    }
    out
}

fn flip_through(root: &Path, rel: &str, stride: usize, extra: &[&str]) -> usize {
    let original = fs::read(root.join(rel)).expect("fixture");
    let unchecked = unchecked_ranges(&original);
    let tmp = tempdir();
    let name = Path::new(rel).file_name().unwrap().to_str().unwrap();
    let path = tmp.path().join(name);
    let path_str = path.to_str().unwrap().to_string();
    let mut args = vec!["--files", &path_str, "--deep-iteration", "--print-data-log"];
    args.extend_from_slice(extra);
    let mut checked = 0;
    for at in (0..original.len()).step_by(stride) {
        let mut bytes = original.clone();
        bytes[at] ^= 0x01;
        fs::write(&path, &bytes).unwrap();
        // JSON for a seventh of the flips: the same reader, another printer.
        let formats: &[OutputFormat] = if checked % 7 == 0 {
            &[OutputFormat::Text, OutputFormat::Json]
        } else {
            &[OutputFormat::Text]
        };
        for &format in formats {
            let (outcome, out, err) = dump_here(&args, format);
            if unchecked.iter().any(|r| r.contains(&at)) {
                continue;
            }
            assert!(
                outcome.wrong || outcome.failed,
                "{rel}: flipped byte {at} went unreported\n{out}\n{err}"
            );
            if format == OutputFormat::Text && outcome.failed {
                assert!(err.contains(&format!("Problem in {path_str}")), "{err}");
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn flipped_bytes_through_fixtures_never_panic_and_are_reported() {
    let Some(root) = fixtures() else { return };
    let mut total = 0;
    for (rel, stride, extra) in [
        ("SharaWeil__kafka-0.11.0/test0-0/00000000000000000000.log", 2, &[][..]),
        (
            "DonaldY__kafka-2.7.1/__consumer_offsets-39/00000000000000000000.log",
            1,
            &["--offsets-decoder"][..],
        ),
        (
            "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/__transaction_state-44/00000000000000000000.log",
            1,
            &["--transaction-log-decoder"][..],
        ),
        (
            "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/_confluent-ksql-default__command_topic-0/00000000000000000000.log",
            31,
            &[][..],
        ),
        (
            "8sylla__citypulse/__cluster_metadata-0/00000000000000014459-0000000001.checkpoint",
            11,
            &["--cluster-metadata-decoder"][..],
        ),
        (
            "mscaldas2012__kafka-connect-spooldir/_confluent-command-0/00000000000000000000.log",
            1,
            &[][..],
        ),
        (
            "mscaldas2012__kafka-connect-spooldir/__consumer_offsets-9/00000000000000000000.log",
            41,
            &["--offsets-decoder"][..],
        ),
        ("asayers__kafkalite/hamlet-snappy-0/00000000000000000000.log", 24_001, &[][..]),
        ("asayers__kafkalite/hamlet-gzip-0/00000000000000000000.log", 18_001, &[][..]),
    ] {
        total += flip_through(&root, rel, stride, extra);
    }
    assert!(total > 1500, "{total} flips");
}

fn v2_batch(base: i64, n: usize) -> Vec<u8> {
    let mut b = BatchBuilder::new(base, Compression::None, TimestampType::CreateTime);
    for i in 0..n {
        b.append(
            1_000 + i as i64,
            Some(b"k"),
            Some(format!("v{i}").as_bytes()),
            &[],
        );
    }
    b.build().unwrap()
}

#[test]
fn a_zero_filled_log_is_explained_not_a_crash() {
    let tmp = tempdir();
    let dir = tmp.path().join("z-0");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("00000000000000000000.log"), vec![0u8; 4096]).unwrap();
    // A preallocated active segment: real batches, then zeros.
    let mut log = v2_batch(0, 3);
    let valid = log.len();
    log.extend_from_slice(&[0u8; 1000]);
    fs::write(dir.join("00000000000000000003.log"), &log).unwrap();
    let f0 = "z-0/00000000000000000000.log";
    let f3 = "z-0/00000000000000000003.log";
    let run = dump_in(tmp.path(), &["--files", &format!("{f0},{f3}")]);
    assert_eq!(run.code, 1, "Kafka fails on these too");
    assert!(
        run.stderr.contains(&format!(
        "Problem in {f0} at byte 0: Found record size 0 smaller than minimum record overhead (14)"
    )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("4096 byte(s) are not a batch"));
    assert!(run
        .stderr
        .contains(&format!("Problem in {f3} at byte {valid}: ")));
    assert!(run.stdout.contains("baseOffset: 0 lastOffset: 2 count: 3"));
}

#[test]
fn absurd_lengths_truncation_and_garbage() {
    let tmp = tempdir();
    let dir = tmp.path().join("a-0");
    fs::create_dir_all(&dir).unwrap();
    let f = "a-0/00000000000000000000.log";
    let path = dir.join("00000000000000000000.log");
    let good = v2_batch(0, 2);

    // A size field of i32::MAX: the entry runs past the end, so it is trailing bytes.
    let mut bytes = good.clone();
    let mut huge = good.clone();
    huge[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    bytes.extend_from_slice(&huge);
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", f, "--deep-iteration"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.ends_with(&format!(
        "Found {} invalid bytes at the end of 00000000000000000000.log\n",
        good.len()
    )));
    assert_eq!(dump_in(tmp.path(), &["--files", f, "--strict"]).code, 3);

    // A negative size.
    huge[8..12].copy_from_slice(&(-5i32).to_be_bytes());
    let mut bytes = good.clone();
    bytes.extend_from_slice(&huge);
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", f]);
    assert_eq!(run.code, 1);
    assert!(run
        .stderr
        .contains(&format!("at byte {}: Found record size -5", good.len())));

    // A batch cut short.
    let mut bytes = good.clone();
    bytes.extend_from_slice(&good[..good.len() - 3]);
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", f]);
    assert!(run.ok().ends_with(&format!(
        "Found {} invalid bytes at the end of 00000000000000000000.log\n",
        good.len() - 3
    )));

    // A v2 size too small for the header, an unknown magic, a record count of -1.
    for (at, value) in [(8usize, 20i32.to_be_bytes().to_vec()), (16, vec![7u8])] {
        let mut bytes = good.clone();
        bytes[at..at + value.len()].copy_from_slice(&value);
        bytes.extend_from_slice(&good);
        fs::write(&path, &bytes).unwrap();
        let (outcome, _, err) = dump_here(
            &["--files", path.to_str().unwrap(), "--deep-iteration"],
            OutputFormat::Text,
        );
        assert!(outcome.failed, "{err}");
        assert!(err.contains("at byte 0: "), "{err}");
    }

    // Random garbage of every kind of file.
    let mut seed = 0x9e3779b97f4a7c15u64;
    for name in [
        "00000000000000000000.log",
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
        "00000000000000000000.snapshot",
        "00000000000000000000.txnindex",
        "00000000000000000000-0000000000.checkpoint",
    ] {
        for len in [0usize, 1, 17, 18, 61, 100, 4096] {
            let garbage: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            fs::write(dir.join(name), &garbage).unwrap();
            let p = dir.join(name);
            for extra in [
                &[][..],
                &["--index-sanity-check"][..],
                &["--offsets-decoder"][..],
            ] {
                let mut args = vec!["--files", p.to_str().unwrap(), "--deep-iteration"];
                args.extend_from_slice(extra);
                let _ = dump_here(&args, OutputFormat::Text);
                let _ = dump_here(&args, OutputFormat::Json);
            }
        }
    }
}

#[test]
fn an_index_pointing_outside_its_log_is_reported() {
    let tmp = tempdir();
    let dir = tmp.path().join("i-0");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("00000000000000000000.log"), v2_batch(0, 2)).unwrap();
    let mut index = Vec::new();
    for (rel, pos) in [(1i32, 0i32), (5, 1 << 20), (6, -4)] {
        index.extend_from_slice(&rel.to_be_bytes());
        index.extend_from_slice(&pos.to_be_bytes());
    }
    fs::write(dir.join("00000000000000000000.index"), &index).unwrap();
    let f = "i-0/00000000000000000000.index";
    let run = dump_in(tmp.path(), &["--files", f]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains(&format!("Problem in {f} at byte 8: index entry 1 (offset 5, position 1048576): the position is outside the log")), "{}", run.stderr);
    assert!(run.stderr.contains(&format!("Problem in {f} at byte 16: ")));
    assert!(run.stdout.contains("offset: 1 position: 0\n"));
    // The log has no such index entry's offset: Kafka's mismatch summary too.
    assert!(
        run.stderr.contains("  Index offset: 1, log offset: 1")
            || !run.stderr.contains("Mismatches")
    );
}

#[test]
fn a_time_index_entry_is_looked_for_where_the_offset_index_points() {
    // Kafka's DumpLogSegments looks every time-index entry up in the offset index and scans the
    // log from there. kafkit goes on from the previous entry's batch only where that scan would
    // pass it anyway: an offset-index entry pointing into the middle of a batch is still found
    // out, not stepped over.
    let batch = |base: i64| {
        let mut b = BatchBuilder::new(base, Compression::None, TimestampType::CreateTime);
        for i in 0..10 {
            b.append(10_000 + base + i, None, Some(b"value"), &[]);
        }
        b.build().unwrap()
    };
    let (a, b, c) = (batch(0), batch(10), batch(20));
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("00000000000000000000.log"),
        [a.as_slice(), &b, &c].concat(),
    )
    .unwrap();
    let mut index = Vec::new();
    for (rel, pos) in [(10i32, a.len() as i32), (20, 50)] {
        index.extend_from_slice(&rel.to_be_bytes());
        index.extend_from_slice(&pos.to_be_bytes());
    }
    fs::write(dir.join("00000000000000000000.index"), &index).unwrap();
    let mut time_index = Vec::new();
    for (ts, rel) in [(10_019i64, 19i32), (10_029, 29)] {
        time_index.extend_from_slice(&ts.to_be_bytes());
        time_index.extend_from_slice(&rel.to_be_bytes());
    }
    fs::write(dir.join("00000000000000000000.timeindex"), &time_index).unwrap();
    let file = dir.join("00000000000000000000.timeindex");
    let (outcome, out, err) = dump_here(
        &["--files", file.to_str().unwrap(), "--verify-index-only"],
        OutputFormat::Text,
    );
    // The scan from byte 50 (inside the first batch) finds no batch for offset 29; from the
    // previous entry's batch it would have found it.
    assert!(outcome.wrong, "nothing reported:\n{out}\n{err}");
    assert!(
        err.contains("Indexed offset: 29, found log offset: -1"),
        "{err}"
    );
}

#[test]
fn a_segment_appended_to_while_it_is_dumped() {
    let tmp = tempdir();
    let path = tmp.path().join("00000000000000000000.log");
    fs::write(&path, v2_batch(0, 5)).unwrap();
    let writer_path = path.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_w = stop.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&writer_path)
            .unwrap();
        let mut base = 5;
        while !stop_w.load(std::sync::atomic::Ordering::Relaxed) && base < 50_000 {
            let b = v2_batch(base, 5);
            // Write in two halves so readers see torn batches.
            f.write_all(&b[..b.len() / 2]).unwrap();
            f.write_all(&b[b.len() / 2..]).unwrap();
            base += 5;
        }
    });
    let p = path.to_str().unwrap().to_string();
    for _ in 0..30 {
        let (outcome, out, err) =
            dump_here(&["--files", &p, "--deep-iteration"], OutputFormat::Text);
        assert!(!outcome.failed, "{err}");
        // Every batch line printed is whole and in order.
        let mut next = 0;
        for line in out.lines().filter(|l| l.starts_with("baseOffset: ")) {
            assert!(line.starts_with(&format!("baseOffset: {next} ")), "{line}");
            assert!(line.ends_with("isvalid: true"), "{line}");
            next += 5;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
}

#[test]
fn a_live_segments_indexes_dumped_while_the_writer_appends_and_rolls() {
    // The index entries a writer adds after the dump took the log's length name batches past
    // that length: they are checked against the log as it is then, not reported as missing
    // (before: "no batch starts there", exit 1). A segment rolled meanwhile has its index
    // trimmed under the dump: its entries end there.
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let config = LogConfig {
        segment_bytes: 64 << 10,
        index_interval_bytes: 1,
        ..LogConfig::default()
    };
    let mut log = Log::open(&dir, config, LogCheckpoints::default(), 0).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_w = stop.clone();
    let writer = std::thread::spawn(move || {
        let mut ts = 1_700_000_000_000;
        let mut appended = 0u64;
        // Every batch a new largest timestamp: an offset and a time index entry each. (At most
        // 200,000 batches, 50 MB, on a machine slow enough to need them.)
        while appended < 2
            || (appended < 200_000 && !stop_w.load(std::sync::atomic::Ordering::Relaxed))
        {
            let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
            b.append(ts, Some(b"k"), Some(&[b'v'; 200]), &[]);
            log.append(&b.build().unwrap(), 0).unwrap();
            ts += 1;
            appended += 1;
        }
        appended
    });
    // The newest segment whose index has its first entry, whole. (A segment's first batch is
    // never indexed, so a new segment's first slot stays zeros until its second batch; Kafka's
    // dump reads that slot as an entry of the base offset, and so does kafkit's. The writer
    // stores an entry's relative offset last: once it is there, the entry is whole.)
    let newest_indexed = |ext: &str| loop {
        let offset_field = if ext == "index" { 0..4 } else { 8..12 };
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        files.sort();
        let found = files.into_iter().rev().find(|f| {
            let mut first = [0u8; 12];
            fs::File::open(f)
                .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut first))
                .is_ok_and(|()| first[offset_field.clone()] != [0; 4])
        });
        match found {
            Some(file) => break file,
            None => std::thread::yield_now(),
        }
    };
    for ext in ["index", "timeindex"].iter().cycle().take(400) {
        let file = newest_indexed(ext);
        let (outcome, _, err) = dump_here(
            &["--files", file.to_str().unwrap(), "--verify-index-only"],
            OutputFormat::Text,
        );
        assert!(
            !outcome.failed && !outcome.wrong,
            "{}: {err}",
            file.display()
        );
        assert_eq!(outcome.problems, 0, "{}: {err}", file.display());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let appended = writer.join().unwrap();
    let segments = fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "log")
        })
        .count();
    assert!(
        segments >= 3,
        "{appended} batches in {segments} segments: no roll under the dumps"
    );
}

#[test]
fn an_index_trimmed_while_it_is_dumped_ends_there() {
    // A writer closing its segment trims the preallocated index to its entries. A dump that
    // took the longer length reads to the new end and stops there: no error, no problem, and
    // the next file is still dumped (before: "failed to fill whole buffer" ended the whole
    // dump).
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    {
        let config = LogConfig {
            index_interval_bytes: 1,
            ..LogConfig::default()
        };
        let mut log = Log::open(&dir, config, LogCheckpoints::default(), 0).unwrap();
        for i in 0..2000 {
            let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
            b.append(1_700_000_000_000 + i, None, Some(b"v"), &[]);
            log.append(&b.build().unwrap(), 0).unwrap();
        }
        log.close().unwrap();
    }
    let log_file = dir.join("00000000000000000000.log");
    for ext in ["index", "timeindex"] {
        let file = dir.join(format!("00000000000000000000.{ext}"));
        let full = fs::metadata(&file).unwrap().len();
        assert!(full >= 1999 * 8, "{ext}: {full} bytes");
        let original = fs::read(&file).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (stop_t, file_t) = (stop.clone(), file.clone());
        // Trims the file to a tenth of its entries (at an entry boundary: 24 bytes are three
        // offset or two time index entries) and writes the rest back in one write, over and
        // over: a dump sees the file whole or trimmed, its bytes always right.
        let toggler = std::thread::spawn(move || {
            use std::os::unix::fs::FileExt;
            let f = fs::OpenOptions::new().write(true).open(&file_t).unwrap();
            let trimmed = full / 10 / 24 * 24;
            let mut toggles = 0u64;
            while !stop_t.load(std::sync::atomic::Ordering::Relaxed) {
                f.set_len(trimmed).unwrap();
                f.write_all_at(&original[trimmed as usize..], trimmed)
                    .unwrap();
                toggles += 1;
            }
            toggles
        });
        let files = format!("{},{}", file.display(), log_file.display());
        for _ in 0..300 {
            let (outcome, out, err) = dump_here(&["--files", &files], OutputFormat::Text);
            assert!(!outcome.failed && !outcome.wrong, "{ext}: {err}");
            assert_eq!(outcome.problems, 0, "{ext}: {err}");
            assert!(
                out.contains(&format!("Dumping {}", log_file.display())),
                "{ext}: the log after the index was not dumped\n{err}"
            );
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(toggler.join().unwrap() > 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_through_every_decoder(
        key in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
        value in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..200)),
        record_type in 0i16..20,
        version in -1i16..6,
    ) {
        // Well-formed record type and version prefixes reach the message readers.
        let mut k = record_type.to_be_bytes().to_vec();
        k.extend_from_slice(key.as_deref().unwrap_or_default());
        let v = value.as_ref().map(|v| {
            let mut out = version.to_be_bytes().to_vec();
            out.extend_from_slice(v);
            out
        });
        let _ = kafkit::decode::offsets(Some(&k), v.as_deref(), 1);
        let _ = kafkit::decode::offsets(key.as_deref(), value.as_deref(), 1);
        let _ = kafkit::decode::transaction_log(Some(&k), v.as_deref(), 1);
        let mut m = vec![1u8, record_type as u8, version.max(0) as u8];
        m.extend_from_slice(value.as_deref().unwrap_or_default());
        let _ = kafkit::decode::cluster_metadata(Some(&m), 1);
        let _ = kafkit::decode::cluster_metadata(value.as_deref(), 1);
        for t in 2..8 {
            let _ = kafkit::decode::kraft_control(
                kafkit::record::ControlRecordType::from_id(t),
                value.as_deref(),
            );
        }
    }
}
