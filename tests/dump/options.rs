//! Every option of `dump-log-segments`, on partitions written by kafkit's own log (with
//! indexes), plus hand-made producer snapshots and transaction indexes.

use std::fs;
use std::path::{Path, PathBuf};

use kafkit::log::{Log, LogCheckpoints, LogConfig};
use kafkit::record::{BatchBuilder, Compression, TimestampType};

use super::dump_in;
use crate::common::tempdir;

const BATCHES: usize = 20;
const PER_BATCH: usize = 5;

/// A partition `t-0` of 20 batches × 5 records (`k<b>-<r>` → `value <b>-<r>`), indexed every
/// 128 bytes, closed (so its indexes are trimmed). Returns the partition directory.
pub fn partition(root: &Path) -> PathBuf {
    let dir = root.join("t-0");
    let config = LogConfig {
        index_interval_bytes: 128,
        ..LogConfig::default()
    };
    let mut log = Log::open(&dir, config, LogCheckpoints::default(), 1_000).expect("open");
    for b in 0..BATCHES {
        let mut builder = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        for r in 0..PER_BATCH {
            builder.append(
                1_700_000_000_000 + (b * 10 + r) as i64,
                Some(format!("k{b}-{r}").as_bytes()),
                Some(format!("value {b}-{r}").as_bytes()),
                &[],
            );
        }
        log.append(&builder.build().expect("build"), 1_000)
            .expect("append");
    }
    log.close().expect("close");
    dir
}

/// Batches of one record (`v`) based at `bases`, one after the other.
pub fn batches_at(bases: &[i64]) -> Vec<u8> {
    let mut log = Vec::new();
    for &base in bases {
        let mut b = BatchBuilder::new(base, Compression::None, TimestampType::CreateTime);
        b.append(1, None, Some(b"v"), &[]);
        log.extend_from_slice(&b.build().unwrap());
    }
    log
}

const LOG: &str = "t-0/00000000000000000000.log";
const INDEX: &str = "t-0/00000000000000000000.index";
const TIMEINDEX: &str = "t-0/00000000000000000000.timeindex";

fn count(text: &str, prefix: &str) -> usize {
    text.lines().filter(|l| l.starts_with(prefix)).count()
}

#[test]
fn batch_level_deep_and_print_data_modes() {
    let tmp = tempdir();
    partition(tmp.path());
    let run = dump_in(tmp.path(), &["--files", LOG]);
    let out = run.ok();
    assert!(out.starts_with(&format!("Dumping {LOG}\nLog starting offset: 0\n")));
    assert_eq!(count(out, "baseOffset: "), BATCHES);
    assert_eq!(count(out, "| offset: "), 0);

    let out = dump_in(tmp.path(), &["--files", LOG, "--deep-iteration"]);
    let out = out.ok();
    assert_eq!(count(out, "| offset: "), BATCHES * PER_BATCH);
    assert!(out.contains("| offset: 0 CreateTime: 1700000000000 keySize: 4 valueSize: 9 sequence: -1 headerKeys: []\n"));

    for args in [
        &["--files", LOG, "--print-data-log"][..],
        &["--files", LOG, "--print-data-log", "--deep-iteration"],
    ] {
        let run = dump_in(tmp.path(), args);
        assert!(run.ok().contains(
            "| offset: 99 CreateTime: 1700000000194 keySize: 5 valueSize: 10 sequence: -1 headerKeys: [] key: k19-4 payload: value 19-4\n"
        ));
    }
}

#[test]
fn skip_record_metadata() {
    let tmp = tempdir();
    partition(tmp.path());
    let run = dump_in(
        tmp.path(),
        &["--files", LOG, "--print-data-log", "--skip-record-metadata"],
    );
    let out = run.ok();
    assert!(out.contains("\n| key: k0-0 payload: value 0-0\n"));
    assert_eq!(count(out, "| offset: "), 0);
    // Without contents every record prints an empty line, as Kafka does.
    let run = dump_in(
        tmp.path(),
        &["--files", LOG, "--deep-iteration", "--skip-record-metadata"],
    );
    assert_eq!(
        run.ok().lines().filter(|l| l.is_empty()).count(),
        BATCHES * PER_BATCH
    );
}

#[test]
fn files_are_dumped_in_order_and_the_alias_works() {
    let tmp = tempdir();
    partition(tmp.path());
    let list = format!("{TIMEINDEX},{LOG},{INDEX},");
    let run = dump_in(tmp.path(), &["--files", &list]);
    let dumping: Vec<&str> = run
        .ok()
        .lines()
        .filter(|l| l.starts_with("Dumping "))
        .collect();
    assert_eq!(
        dumping,
        [
            format!("Dumping {TIMEINDEX}"),
            format!("Dumping {LOG}"),
            format!("Dumping {INDEX}")
        ]
    );
    let alias = std::process::Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(["dump-log", "--files", LOG])
        .current_dir(tmp.path())
        .output()
        .expect("run");
    assert!(alias.status.success());
    assert!(String::from_utf8_lossy(&alias.stdout).contains("baseOffset: 95 lastOffset: 99"));
    // Unknown files and duplicate slashes.
    let run = dump_in(
        tmp.path(),
        &["--files", "t-0//leader-epoch-checkpoint,x.properties"],
    );
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stderr,
        "Ignoring unknown file t-0/leader-epoch-checkpoint\nIgnoring unknown file x.properties\n"
    );
}

#[test]
fn a_partition_directory_dumps_its_segment_files_in_offset_order() {
    let tmp = tempdir();
    let dir = tmp.path().join("t-0");
    let config = LogConfig {
        segment_bytes: 600,
        index_interval_bytes: 128,
        ..LogConfig::default()
    };
    let mut log = Log::open(&dir, config, LogCheckpoints::default(), 1_000).expect("open");
    for b in 0..BATCHES {
        let mut builder = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        for r in 0..PER_BATCH {
            builder.append(
                1_700_000_000_000,
                None,
                Some(format!("value {b}-{r}").as_bytes()),
                &[],
            );
        }
        log.append(&builder.build().expect("build"), 1_000)
            .expect("append");
    }
    log.close().expect("close");
    fs::write(dir.join("partition.metadata"), "version: 0\n").expect("metadata");
    // The segments' files as a script would list them: by base offset, the log first.
    let mut bases: Vec<String> = fs::read_dir(&dir)
        .expect("read dir")
        .filter_map(|e| {
            let name = e.expect("entry").file_name().into_string().expect("utf-8");
            name.strip_suffix(".log").map(str::to_string)
        })
        .collect();
    bases.sort();
    assert!(bases.len() >= 3, "{bases:?}");
    // 00000000000000000010 sorts after 00000000000000000005 as text too: 20 digits.
    let listed: Vec<String> = bases
        .iter()
        .flat_map(|base| {
            [".log", ".index", ".timeindex"].map(|suffix| format!("t-0/{base}{suffix}"))
        })
        .collect();
    let by_list = dump_in(
        tmp.path(),
        &["--files", &listed.join(","), "--deep-iteration"],
    );
    for arg in ["t-0", "t-0/"] {
        let by_dir = dump_in(tmp.path(), &["--files", arg, "--deep-iteration"]);
        assert_eq!(by_dir.ok(), by_list.ok(), "--files {arg}");
        assert_eq!(by_dir.stderr, by_list.stderr, "--files {arg}");
        assert!(
            !by_dir.stderr.contains("Ignoring"),
            "partition.metadata is no segment file"
        );
    }
    let first = by_list.stdout.lines().next().expect("a line");
    assert_eq!(first, format!("Dumping {}", listed[0]));
    // An empty directory is not a log file, as before.
    fs::create_dir(tmp.path().join("empty-0")).expect("mkdir");
    let run = dump_in(tmp.path(), &["--files", "empty-0"]);
    assert_eq!(run.stderr, "Ignoring unknown file empty-0\n");
}

#[test]
fn missing_files_option_is_kafkas_usage_error() {
    let tmp = tempdir();
    let run = dump_in(tmp.path(), &[]);
    assert_eq!(run.code, 1);
    assert!(run
        .stderr
        .starts_with("Missing required argument \"[files]\"\n"));
}

#[test]
fn offset_index_entries_verify_only_and_sanity_check() {
    let tmp = tempdir();
    let dir = partition(tmp.path());
    let run = dump_in(tmp.path(), &["--files", INDEX]);
    let out = run.ok().to_string();
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let entries = count(&out, "offset: ");
    assert!(entries >= 5, "{out}");
    let run = dump_in(tmp.path(), &["--files", INDEX, "--verify-index-only"]);
    assert_eq!(run.ok(), format!("Dumping {INDEX}\n"));
    let run = dump_in(tmp.path(), &["--files", INDEX, "--index-sanity-check"]);
    assert_eq!(
        run.ok(),
        format!("Dumping {INDEX}\n{INDEX} passed sanity check.\n")
    );

    // Point the first entry at the first batch: Kafka's mismatch report, newest first.
    let path = dir.join("00000000000000000000.index");
    let mut bytes = fs::read(&path).unwrap();
    bytes[4..8].copy_from_slice(&0i32.to_be_bytes());
    fs::write(&path, &bytes).unwrap();
    let first = i32::from_be_bytes(bytes[0..4].try_into().unwrap());
    let run = dump_in(tmp.path(), &["--files", INDEX, "--verify-index-only"]);
    assert_eq!(run.code, 0, "mismatches do not change Kafka's exit code");
    let abs = tmp.path().canonicalize().unwrap().join(INDEX);
    assert_eq!(
        run.stderr,
        format!(
            "Mismatches in :{}\n  Index offset: {first}, log offset: 4\n",
            abs.display()
        )
    );
    let strict = dump_in(tmp.path(), &["--files", INDEX, "--strict"]);
    assert_eq!(strict.code, 3);

    // A length that is not whole entries fails the sanity check with Kafka's message.
    bytes.push(0);
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", INDEX, "--index-sanity-check"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(&format!(
            "Index file {} is corrupt, found {} bytes which is neither positive nor a multiple of 8",
            abs.display(),
            bytes.len()
        )),
        "{}",
        run.stderr
    );
    // An empty index.
    fs::write(&path, b"").unwrap();
    let run = dump_in(tmp.path(), &["--files", INDEX]);
    assert_eq!(run.ok(), format!("Dumping {INDEX}\n{INDEX} is empty.\n"));
}

#[test]
fn max_message_size_bounds_the_index_check() {
    let tmp = tempdir();
    partition(tmp.path());
    let run = dump_in(tmp.path(), &["--files", INDEX, "--max-message-size", "20"]);
    // Kafka fails here (no batch fits the slice); kafkit says where and goes on.
    assert_eq!(run.code, 1);
    assert!(run
        .stderr
        .contains(&format!("Problem in {INDEX} at byte 0: index entry 0")));
    assert!(run.stderr.contains("--max-message-size"));
    assert!(run.stdout.contains("offset: "));
}

#[test]
fn time_index_entries_sanity_and_mismatch() {
    let tmp = tempdir();
    let dir = partition(tmp.path());
    let run = dump_in(tmp.path(), &["--files", TIMEINDEX]);
    let out = run.ok().to_string();
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert!(count(&out, "timestamp: ") >= 5);
    assert!(
        out.ends_with("timestamp: 1700000000194 offset: 99\n"),
        "{out}"
    );
    let run = dump_in(tmp.path(), &["--files", TIMEINDEX, "--index-sanity-check"]);
    assert_eq!(
        run.ok(),
        format!("Dumping {TIMEINDEX}\n{TIMEINDEX} passed sanity check.\n")
    );
    let run = dump_in(tmp.path(), &["--files", TIMEINDEX, "--verify-index-only"]);
    assert_eq!(run.ok(), format!("Dumping {TIMEINDEX}\n"));

    // A preallocated tail (an active segment copied off a broker): Kafka counts every slot, so
    // the last entry is a zero slot and the sanity check fails on its timestamp 0.
    let path = dir.join("00000000000000000000.timeindex");
    let good = fs::read(&path).unwrap();
    let first_ts = i64::from_be_bytes(good[..8].try_into().unwrap());
    let mut padded = good.clone();
    padded.extend_from_slice(&[0u8; 36]);
    fs::write(&path, &padded).unwrap();
    let run = dump_in(tmp.path(), &["--files", TIMEINDEX, "--index-sanity-check"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains(&format!(
            "Corrupt time index found, time index file ({}) has non-zero size but the last timestamp is 0 which is less than the first timestamp {first_ts}",
            tmp.path().join(TIMEINDEX).display()
        )),
        "{}",
        run.stderr
    );
    fs::write(&path, &good).unwrap();

    // Change the last entry's timestamp: a mismatch and, against its predecessor, nothing else.
    let path = dir.join("00000000000000000000.timeindex");
    let mut bytes = fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 12..n - 4].copy_from_slice(&1_800_000_000_000i64.to_be_bytes());
    // And point the first entry at an offset that is not a batch end.
    bytes[8..12].copy_from_slice(&2i32.to_be_bytes());
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", TIMEINDEX, "--verify-index-only"]);
    assert_eq!(run.code, 0);
    let abs = tmp.path().canonicalize().unwrap().join(TIMEINDEX);
    assert_eq!(
        run.stderr,
        format!(
            "Found timestamp mismatch in :{}\n  Index timestamp: 1800000000000, log timestamp: 1700000000194\nThe following indexed offsets are not found in the log.\nIndexed offset: 2, found log offset: 4\n",
            abs.display()
        )
    );
    assert_eq!(
        dump_in(tmp.path(), &["--files", TIMEINDEX, "--strict"]).code,
        3
    );
}

#[test]
fn max_bytes_reads_whole_batches_only_and_suppresses_the_invalid_bytes_line() {
    let tmp = tempdir();
    let dir = partition(tmp.path());
    let out = dump_in(tmp.path(), &["--files", LOG]).stdout;
    let sizes: Vec<u64> = out
        .lines()
        .filter_map(|l| l.split(" size: ").nth(1))
        .map(|s| s.split(' ').next().unwrap().parse().unwrap())
        .collect();
    let two = (sizes[0] + sizes[1]).to_string();
    let run = dump_in(tmp.path(), &["--files", LOG, "--max-bytes", &two]);
    assert_eq!(count(run.ok(), "baseOffset: "), 2);
    let cut = (sizes[0] + sizes[1] + 10).to_string();
    let run = dump_in(tmp.path(), &["--files", LOG, "--max-bytes", &cut]);
    assert_eq!(count(run.ok(), "baseOffset: "), 2);
    assert!(!run.stdout.contains("invalid bytes"));
    // A negative size is named as out of range (not taken for an unknown option).
    for option in ["--max-bytes", "--max-message-size"] {
        let run = dump_in(tmp.path(), &["--files", LOG, option, "-1"]);
        assert_eq!(run.code, 1);
        assert!(
            run.stderr.contains("-1 is not in 0..=2147483647"),
            "{}",
            run.stderr
        );
    }

    // Without --max-bytes a partial tail is reported, and --strict fails on it.
    let log = dir.join("00000000000000000000.log");
    let mut bytes = fs::read(&log).unwrap();
    bytes.extend_from_slice(&[0u8; 10]);
    fs::write(&log, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", LOG]);
    assert!(run
        .ok()
        .ends_with("Found 10 invalid bytes at the end of 00000000000000000000.log\n"));
    assert_eq!(dump_in(tmp.path(), &["--files", LOG, "--strict"]).code, 3);
    assert_eq!(dump_in(tmp.path(), &["--files", INDEX, "--strict"]).code, 0);
}

#[test]
fn key_and_value_decoders() {
    let tmp = tempdir();
    let dir = tmp.path().join("n-0");
    fs::create_dir_all(&dir).unwrap();
    let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    b.append(
        5,
        Some(&7i32.to_be_bytes()),
        Some(&(-9i64).to_be_bytes()),
        &[],
    );
    b.append(6, Some(b"ab"), None, &[]);
    fs::write(dir.join("00000000000000000000.log"), b.build().unwrap()).unwrap();
    let f = "n-0/00000000000000000000.log";
    let run = dump_in(
        tmp.path(),
        &[
            "--files",
            f,
            "--key-decoder",
            "integer",
            "--value-decoder",
            "long",
        ],
    );
    assert!(
        run.stdout.contains("key: 7 payload: -9\n"),
        "{}",
        run.stdout
    );
    // Two bytes cannot hold an integer: said on stderr, the line still printed.
    assert!(run
        .stdout
        .contains("key: <2 byte(s) cannot hold an integer (4 bytes)>\n"));
    assert!(run.stderr.contains("record at offset 1"));
    let run = dump_in(
        tmp.path(),
        &[
            "--files",
            f,
            "--key-decoder",
            "hex",
            "--value-decoder",
            "string",
        ],
    );
    assert!(run.ok().contains("key: 00000007 payload: "));
    assert!(run.stdout.contains("key: 6162\n"));
}

#[test]
fn decoder_precedence_is_kafkas() {
    let Some(root) = crate::common::fixtures() else {
        return;
    };
    let f = "DonaldY__kafka-2.7.1/__consumer_offsets-39/00000000000000000018.log";
    let run = dump_in(
        &root,
        &[
            "--files",
            f,
            "--cluster-metadata-decoder",
            "--transaction-log-decoder",
            "--offsets-decoder",
        ],
    );
    assert!(run.ok().contains(
        "key: {\"type\":\"2\",\"data\":{\"group\":\"console-consumer-65070\"}} payload: <DELETE>"
    ));
    let run = dump_in(&root, &["--files", f, "--cluster-metadata-decoder"]);
    assert!(
        run.ok().contains(" payload: Error at 18, skipping. "),
        "{}",
        run.stdout
    );
}

fn snapshot_bytes(entries: &[[i64; 8]]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&(entries.len() as i32).to_be_bytes());
    for e in entries {
        body.extend_from_slice(&e[0].to_be_bytes());
        body.extend_from_slice(&(e[1] as i16).to_be_bytes());
        body.extend_from_slice(&(e[2] as i32).to_be_bytes());
        body.extend_from_slice(&e[3].to_be_bytes());
        body.extend_from_slice(&(e[4] as i32).to_be_bytes());
        body.extend_from_slice(&e[5].to_be_bytes());
        body.extend_from_slice(&(e[6] as i32).to_be_bytes());
        body.extend_from_slice(&e[7].to_be_bytes());
    }
    let mut out = 1i16.to_be_bytes().to_vec();
    out.extend_from_slice(&kafkit::record::crc32c(&body).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

#[test]
fn producer_snapshots() {
    let tmp = tempdir();
    let dir = tmp.path().join("p-0");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("00000000000000000372.snapshot");
    fs::write(
        &path,
        snapshot_bytes(&[
            [1004, 0, 371, 371, 1, 1706471404037, -1, -1],
            [7, 3, -1, -1, 0, 55, 2, 100],
        ]),
    )
    .unwrap();
    let f = "p-0/00000000000000000372.snapshot";
    let run = dump_in(tmp.path(), &["--files", f]);
    assert_eq!(
        run.ok(),
        format!("Dumping {f}\nproducerId: 1004 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty lastTimestamp: 1706471404037 firstSequence: 370 lastSequence: 371 lastOffset: 371 offsetDelta: 1 timestamp: 1706471404037\nproducerId: 7 producerEpoch: 3 coordinatorEpoch: 2 currentTxnFirstOffset: OptionalLong[100] lastTimestamp: 55\n")
    );
    // A flipped byte breaks the CRC: Kafka's message on stderr, exit 0.
    let mut bytes = fs::read(&path).unwrap();
    bytes[20] ^= 1;
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", f]);
    assert_eq!(run.code, 0);
    assert!(run
        .stderr
        .starts_with("Snapshot is corrupt (CRC is no longer valid). Stored crc: "));
    assert!(run.stderr.contains(f));
    bytes[1] = 9;
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", f]);
    assert!(run.stderr.starts_with(
        "Snapshot failed schema validation: Snapshot contained an unknown file version 9"
    ));
}

#[test]
fn transaction_indexes() {
    let tmp = tempdir();
    let dir = tmp.path().join("x-0");
    fs::create_dir_all(&dir).unwrap();
    let mut bytes = Vec::new();
    for (pid, first, last, lso) in [(5i64, 10i64, 20i64, 10i64), (6, 30, 31, 25)] {
        bytes.extend_from_slice(&0i16.to_be_bytes());
        for v in [pid, first, last, lso] {
            bytes.extend_from_slice(&v.to_be_bytes());
        }
    }
    bytes.extend_from_slice(&[0u8; 7]); // a short tail is ignored, as Kafka does
    let path = dir.join("00000000000000000000.txnindex");
    fs::write(&path, &bytes).unwrap();
    let f = "x-0/00000000000000000000.txnindex";
    let run = dump_in(tmp.path(), &["--files", f]);
    assert_eq!(
        run.ok(),
        format!("Dumping {f}\nversion: 0 producerId: 5 firstOffset: 10 lastOffset: 20 lastStableOffset: 10\nversion: 0 producerId: 6 firstOffset: 30 lastOffset: 31 lastStableOffset: 25\n")
    );
    bytes[34] = 1;
    fs::write(&path, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", f]);
    assert_eq!(run.code, 1);
    assert!(run
        .stderr
        .contains("Unexpected aborted transaction version 1 in transaction index "));
}

#[test]
fn non_consecutive_offsets_and_strict() {
    let tmp = tempdir();
    let dir = tmp.path().join("g-0");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("00000000000000000000.log"), batches_at(&[0, 1, 5])).unwrap();
    let f = "g-0/00000000000000000000.log";
    let run = dump_in(tmp.path(), &["--files", f, "--deep-iteration"]);
    assert_eq!(run.code, 0);
    let abs = tmp.path().canonicalize().unwrap().join(f);
    assert_eq!(
        run.stderr,
        format!(
            "Non-consecutive offsets in {}\n  1 is followed by 5\n",
            abs.display()
        )
    );
    assert_eq!(
        dump_in(tmp.path(), &["--files", f, "--deep-iteration", "--strict"]).code,
        3
    );
    // Batch-level dumps do not look at record offsets.
    assert_eq!(dump_in(tmp.path(), &["--files", f, "--strict"]).code, 0);
}

#[test]
fn kraft_snapshot_names_and_the_bootstrap_checkpoint() {
    let Some(root) = crate::common::fixtures() else {
        return;
    };
    let tmp = tempdir();
    let original = root
        .join("8sylla__citypulse/__cluster_metadata-0/00000000000000014459-0000000001.checkpoint");
    fs::copy(&original, tmp.path().join("bootstrap.checkpoint")).unwrap();
    fs::copy(&original, tmp.path().join("weird.checkpoint")).unwrap();
    let run = dump_in(tmp.path(), &["--files", "bootstrap.checkpoint"]);
    assert!(run
        .ok()
        .starts_with("Dumping bootstrap.checkpoint\nKRaft bootstrap snapshot\nbaseOffset: 0 "));
    // Kafka fails on a snapshot name it cannot parse; kafkit says so and dumps the batches.
    let run = dump_in(tmp.path(), &["--files", "weird.checkpoint"]);
    assert_eq!(run.code, 1);
    assert!(run
        .stderr
        .contains("Problem in weird.checkpoint: not a KRaft snapshot name"));
    assert_eq!(count(&run.stdout, "baseOffset: "), 3);
}

#[test]
fn a_coordinator_record_without_key_is_reported() {
    let tmp = tempdir();
    let dir = tmp.path().join("__consumer_offsets-0");
    fs::create_dir_all(&dir).unwrap();
    let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
    b.append(5, None, Some(b"v"), &[]);
    fs::write(dir.join("00000000000000000000.log"), b.build().unwrap()).unwrap();
    let f = "__consumer_offsets-0/00000000000000000000.log";
    let run = dump_in(tmp.path(), &["--files", f, "--offsets-decoder"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains(" key: Failed to decode message at offset 0 using the specified decoder (message had a missing key)\n"));
    assert!(run.stderr.contains(&format!(
        "Problem in {f} at byte 0: Failed to decode message at offset 0"
    )));
}

#[test]
fn a_closed_pipe_is_a_quiet_success() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let Some(root) = crate::common::fixtures() else {
        return;
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args([
            "dump-log-segments",
            "--files",
            "asayers__kafkalite/hamlet-none-0/00000000000000000000.log",
            "--print-data-log",
        ])
        .current_dir(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("Dumping "));
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_bad_crc_is_shown_reported_and_fails_strict() {
    let tmp = tempdir();
    let dir = partition(tmp.path());
    let log = dir.join("00000000000000000000.log");
    let mut bytes = fs::read(&log).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x20; // inside the last record's value
    fs::write(&log, &bytes).unwrap();
    let run = dump_in(tmp.path(), &["--files", LOG]);
    assert_eq!(run.code, 0, "Kafka's exit status does not change");
    assert_eq!(count(&run.stdout, "baseOffset: 95 "), 1);
    assert!(run
        .stdout
        .lines()
        .any(|l| l.starts_with("baseOffset: 95 ") && l.ends_with("isvalid: false")));
    assert!(
        run.stderr.contains(&format!("Problem in {LOG} at byte ")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(": Record is corrupt (stored crc = "));
    assert_eq!(dump_in(tmp.path(), &["--files", LOG, "--strict"]).code, 3);
}
