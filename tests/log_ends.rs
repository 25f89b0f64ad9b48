//! The log-end cache (`.kafkit-log-ends`, `datadir::log_ends`): a partition whose directory and
//! active segment are unchanged is answered from it; any append, new segment or damage to the
//! cache reads the log again; files changed too recently to be trusted are not recorded; and a
//! directory kafkit keeps no files in gets none.

use std::fs;
use std::path::Path;
use std::time::Duration;

use kafkit::datadir::log_ends::{LogEndCache, LOG_END_CACHE, SETTLED};

use crate::common::{kafkit, kafkit_stdin};

/// `t` with 3 partitions and 3, 3 and 2 records; group `g` committed 5 of them (3, 2, 0).
fn data_dir() -> tempfile::TempDir {
    let dir = crate::common::tempdir();
    let d = dir.path();
    kafkit(
        d,
        &["topics", "--create", "--topic", "t", "--partitions", "3"],
    )
    .ok();
    let lines = (0..8).map(|i| format!("v{i}\n")).collect::<String>();
    kafkit_stdin(
        d,
        &["produce", "--topic", "t", "--partitioner", "round-robin"],
        lines.as_bytes(),
    )
    .ok();
    kafkit(
        d,
        &[
            "consume",
            "--topic",
            "t",
            "--group",
            "g",
            "--from-beginning",
            "--max-messages",
            "5",
            "--consumer-property",
            "group.initial.rebalance.delay.ms=0",
        ],
    )
    .ok();
    dir
}

fn describe(d: &Path) -> String {
    let run = kafkit(d, &["consumer-groups", "--describe", "--group", "g"]);
    assert_eq!(run.stderr, "\nConsumer group 'g' has no active members.\n");
    run.stdout
}

/// Each partition's (log end, whether the cache answered), as a fresh reader sees them.
fn lookups(d: &Path) -> Vec<(Option<i64>, bool)> {
    let cache = LogEndCache::load(d);
    (0..3)
        .map(|p| {
            let found = cache.log_end(&format!("t-{p}")).expect("reads");
            (found.end.map(|e| e.offset), found.from_cache)
        })
        .collect()
}

/// The LOG-END-OFFSET and LAG columns of a describe.
fn ends_and_lags(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter(|l| l.starts_with("g "))
        .map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            (cols[4].to_string(), cols[5].to_string())
        })
        .collect()
}

fn settle() {
    std::thread::sleep(SETTLED + Duration::from_millis(200));
}

#[test]
fn an_unchanged_partition_is_answered_from_the_cache_and_a_changed_one_is_read() {
    let dir = data_dir();
    let d = dir.path();
    // Just written: too recent to trust, so describe reads every log and records nothing.
    let fresh = describe(d);
    assert_eq!(
        lookups(d),
        [(Some(3), false), (Some(3), false), (Some(2), false)]
    );
    settle();
    assert_eq!(describe(d), fresh);
    assert!(d.join(LOG_END_CACHE).is_file());
    assert_eq!(
        lookups(d),
        [(Some(3), true), (Some(3), true), (Some(2), true)]
    );
    let lags = |out: &str| ends_and_lags(out);
    assert_eq!(
        lags(&fresh),
        [("3", "0"), ("3", "1"), ("2", "2")].map(|(a, b)| (a.to_string(), b.to_string()))
    );

    // An append to t-1: read again, the new end shown; the others still from the cache.
    kafkit_stdin(
        d,
        &["produce", "--topic", "t", "--partition", "1"],
        b"more\n",
    )
    .ok();
    assert_eq!(
        lookups(d),
        [(Some(3), true), (Some(4), false), (Some(2), true)]
    );
    assert_eq!(lags(&describe(d))[1], ("4".to_string(), "2".to_string()));

    // A new active segment in t-2's directory (empty, at offset 10): the directory changed, so
    // the log end is the new segment's base.
    let t2 = d.join("t-2");
    fs::write(t2.join("00000000000000000010.log"), b"").unwrap();
    assert_eq!(lookups(d)[2], (Some(10), false));
    assert_eq!(lags(&describe(d))[2], ("10".to_string(), "10".to_string()));

    // A damaged cache is ignored: the same answers, read from the logs.
    let before = describe(d);
    let mut bytes = fs::read(d.join(LOG_END_CACHE)).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(d.join(LOG_END_CACHE), &bytes).unwrap();
    assert!(lookups(d).iter().all(|(_, cached)| !cached));
    assert_eq!(describe(d), before);
    fs::write(d.join(LOG_END_CACHE), b"not a cache").unwrap();
    assert_eq!(describe(d), before);
}

#[test]
fn no_cache_is_written_into_a_directory_kafkit_keeps_no_files_in() {
    let dir = data_dir();
    let d = dir.path();
    for name in [".kafkit-topics.json", ".kafkit-unflushed.json"] {
        let _ = fs::remove_file(d.join(name));
    }
    settle();
    let out = describe(d);
    assert_eq!(ends_and_lags(&out).len(), 3);
    assert!(!d.join(LOG_END_CACHE).exists());
    assert!(lookups(d).iter().all(|(_, cached)| !cached));
}

/// What describe cannot take from the cache it says each time, as before the cache: a torn
/// tail of an active segment is warned about and not recorded, and a log that cannot be read
/// is skipped in Kafka's words; the partitions beside them are answered from the cache.
#[test]
fn a_torn_tail_and_an_unreadable_log_are_said_at_every_describe() {
    let dir = data_dir();
    let d = dir.path();
    // t-1: a batch header of an unknown magic after its batches.
    let mut tail = Vec::new();
    tail.extend_from_slice(&3i64.to_be_bytes());
    tail.extend_from_slice(&50i32.to_be_bytes());
    tail.extend_from_slice(&0i32.to_be_bytes());
    tail.push(7);
    tail.resize(62, 0);
    let t1 = d.join("t-1").join("00000000000000000000.log");
    let mut bytes = fs::read(&t1).unwrap();
    let torn_at = bytes.len();
    bytes.extend_from_slice(&tail);
    fs::write(&t1, &bytes).unwrap();
    // t-2: its segment's `.log` is a directory.
    let t2 = d.join("t-2").join("00000000000000000000.log");
    fs::remove_file(&t2).unwrap();
    fs::create_dir(&t2).unwrap();
    settle();
    let expected_err = format!(
        "WARN Found invalid messages in log segment {} at byte offset {torn_at}: unknown magic 7 at byte {torn_at}. The 62 bytes from there to the end of the active segment are not read, as Kafka's log recovery would truncate them (kafkit.log.LogReader)\n\
         Skip getting the log end offset of t-2 due to error: reading {}: Is a directory (os error 21)\n\
         \n\
         Consumer group 'g' has no active members.\n",
        t1.display(),
        t2.display()
    );
    let mut outs = Vec::new();
    for _ in 0..2 {
        let run = kafkit(d, &["consumer-groups", "--describe", "--group", "g"]);
        // The warning's log4j time stamp, `[yyyy-MM-dd HH:mm:ss,SSS] `, left out.
        let stderr = run.stderr.split_once("] ").map(|(_, rest)| rest);
        assert_eq!(stderr, Some(expected_err.as_str()), "{}", run.stderr);
        assert_eq!(
            ends_and_lags(run.ok()),
            [("3", "0"), ("3", "1"), ("-", "-")].map(|(a, b)| (a.to_string(), b.to_string()))
        );
        outs.push(run.stdout);
    }
    assert_eq!(outs[0], outs[1]);
    // The first describe recorded t-0 alone: t-1's tail and t-2's error are read again.
    let cache = LogEndCache::load(d);
    assert!(cache.log_end("t-0").expect("t-0").from_cache);
    assert!(!cache.log_end("t-1").expect("t-1").from_cache);
    assert!(cache.log_end("t-2").is_err());
}
