//! `kafkit produce` on inputs that stay open: records of a slow pipe are written within the
//! linger time (`--timeout`, `linger.ms`) while the input is still open, the `--output json`
//! report follows the acknowledgements as they happen, and SIGINT, SIGTERM and SIGHUP end a run
//! as the Java producer's `close()` ends it: every record read is written, then the exit code
//! is 128 + the signal's number. Also the warnings about unknown properties.
//!
//! No assertion here is timed: waits are bounded generously (seconds) and only check that
//! something happened before the input ended.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{kafkit_stdin, tempdir};
use crate::produce::{consume_all, create_topic, records_in_log};

/// Long enough for any of these waits on a loaded machine; reaching it is a failure.
const PATIENCE: Duration = Duration::from_secs(30);

/// A running `kafkit` whose stdout lines arrive on a channel as they are printed.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: mpsc::Receiver<String>,
    stderr: thread::JoinHandle<String>,
}

fn spawn(dir: &std::path::Path, args: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(args)
        .env("KAFKIT_DATA_DIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn kafkit");
    let stdin = child.stdin.take();
    let out = child.stdout.take().expect("stdout");
    let (lines, stdout) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut err = child.stderr.take().expect("stderr");
    let stderr = thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    Running {
        child,
        stdin,
        stdout,
        stderr,
    }
}

impl Running {
    fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("write stdin");
        stdin.flush().expect("flush stdin");
    }

    /// The next stdout line, waiting at most [`PATIENCE`].
    fn next_line(&self, what: &str) -> String {
        self.stdout
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|_| panic!("no stdout line: {what}"))
    }

    /// Waits until kafkit has read everything written to its stdin (the pipe is empty).
    fn wait_until_read(&self) {
        let stdin = self.stdin.as_ref().expect("stdin still open");
        wait_until("the input to be read", || {
            let mut queued: libc::c_int = 0;
            // SAFETY: FIONREAD writes the bytes queued in the pipe into the int it is given.
            let rc = unsafe { libc::ioctl(stdin.as_raw_fd(), libc::FIONREAD, &mut queued) };
            assert_eq!(rc, 0, "FIONREAD");
            queued == 0
        });
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: sends a signal to the child this test spawned (and has not waited for yet).
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0, "kill");
    }

    /// Closes stdin if still open and waits: (exit code, every stdout line not taken yet,
    /// stderr).
    fn finish(mut self) -> (Option<i32>, Vec<String>, String) {
        drop(self.stdin.take());
        self.wait()
    }

    /// Waits for the exit that a signal asked for with stdin still open (closed at once, the
    /// end of the input could come first), then closes it: as [`Self::finish`].
    fn finish_after_signal(mut self) -> (Option<i32>, Vec<String>, String) {
        wait_until("the exit", || {
            self.child.try_wait().expect("try_wait").is_some()
        });
        drop(self.stdin.take());
        self.wait()
    }

    fn wait(mut self) -> (Option<i32>, Vec<String>, String) {
        let status = self.child.wait().expect("wait");
        let stderr = self.stderr.join().expect("stderr reader");
        // The stdout reader ends at the end of the pipe, which the exit closed.
        let rest = self.stdout.iter().collect();
        (status.code(), rest, stderr)
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        thread::sleep(Duration::from_millis(10));
    }
}

/// (partition, offset, timestamp) of a `produced` line or a consumed record.
fn placed(v: &Value) -> (i64, i64, i64) {
    (
        v["partition"].as_i64().expect("partition"),
        v["offset"].as_i64().expect("offset"),
        v["timestamp"].as_i64().expect("timestamp"),
    )
}

fn produced(line: &str) -> Value {
    let v: Value = serde_json::from_str(line).expect("a JSON line");
    assert_eq!(v["type"], "produced", "{line}");
    v
}

#[test]
fn a_slow_pipe_is_written_within_the_linger_time_while_the_input_stays_open() {
    // `(echo a; sleep 3; echo b) | kafkit produce`: `a` reaches the log, the report and a
    // consumer following the partition while the producer still waits for `b`.
    let dir = tempdir();
    create_topic(dir.path(), "t", 1, &[]);
    let consumer = spawn(dir.path(), &["consume", "--topic", "t", "--from-beginning"]);
    // Kafka's console default: --timeout (linger.ms) 1000 ms; acks=all.
    let mut producer = spawn(dir.path(), &["produce", "--topic", "t", "--output", "json"]);
    producer.write(b"a\n");
    let report = produced(&producer.next_line("the report of `a` while stdin is open"));
    assert_eq!(
        (report["partition"].as_i64(), report["offset"].as_i64()),
        (Some(0), Some(0))
    );
    assert_eq!(
        records_in_log(dir.path(), "t", 0),
        1,
        "reported, so in the log"
    );
    assert_eq!(consumer.next_line("the consumer printing `a`"), "a");

    producer.write(b"b\n");
    let (code, rest, stderr) = producer.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(produced(&rest[0])["offset"], 1);
    assert_eq!(consumer.next_line("the consumer printing `b`"), "b");
    consumer.signal(libc::SIGINT);
    let (code, rest, stderr) = consumer.finish_after_signal();
    assert_eq!(code, Some(130));
    assert!(rest.is_empty(), "{rest:?}");
    assert_eq!(stderr, "Processed a total of 2 messages\n");

    // linger.ms as a producer config, with acks 1: the log, read through the library.
    let mut producer = spawn(
        dir.path(),
        &[
            "produce",
            "--topic",
            "t",
            "--acks",
            "1",
            "--producer-property",
            "linger.ms=50",
        ],
    );
    producer.write(b"c\n");
    wait_until("`c` in the log while stdin is open", || {
        records_in_log(dir.path(), "t", 0) == 3
    });
    let (code, rest, stderr) = producer.finish();
    assert_eq!((code, rest.len(), stderr.as_str()), (Some(0), 0, ""));
    assert_eq!(records_in_log(dir.path(), "t", 0), 3);
}

/// Feeds keyed lines over three partitions, plus the start of a line, with a linger so long
/// that every batch is still open; waits until kafkit has read them; sends `signal`.
fn stopped_by(signal: libc::c_int, name: &str) {
    let dir = tempdir();
    create_topic(dir.path(), "s", 3, &[]);
    let mut producer = spawn(
        dir.path(),
        &[
            "produce",
            "--topic",
            "s",
            "--property",
            "parse.key=true",
            "--timeout",
            "600000",
            "--output",
            "json",
        ],
    );
    let fed: Vec<String> = (0..60).map(|i| format!("{name}-{i}")).collect();
    let mut input: String = fed
        .iter()
        .enumerate()
        .map(|(i, v)| format!("key{i}\t{v}\n"))
        .collect();
    input.push_str("key60\tcut-short");
    producer.write(input.as_bytes());
    producer.wait_until_read();
    producer.signal(signal);
    let (code, report, stderr) = producer.finish_after_signal();
    assert_eq!(code, Some(128 + signal), "{name}: {stderr}");
    assert!(
        stderr.contains("in the middle of a line: the 15 bytes read of it were not sent."),
        "{name}: {stderr}"
    );

    // Every record read is in the log exactly once; the line the signal cut is not.
    let records = consume_all(dir.path(), "s");
    let mut values: Vec<String> = records
        .iter()
        .map(|r| r["value"].as_str().expect("value").to_string())
        .collect();
    values.sort();
    let mut expected = fed.clone();
    expected.sort();
    assert_eq!(values, expected, "{name}");
    let partitions: BTreeSet<i64> = records.iter().map(|r| placed(r).0).collect();
    assert_eq!(partitions.len(), 3, "{name}: records on every partition");

    // The report names exactly the records of the log.
    let reported: BTreeSet<(i64, i64, i64)> = report.iter().map(|l| placed(&produced(l))).collect();
    let logged: BTreeSet<(i64, i64, i64)> = records.iter().map(placed).collect();
    assert_eq!(report.len(), fed.len(), "{name}: one report line a record");
    assert_eq!(reported, logged, "{name}");
}

#[test]
fn sigint_writes_every_record_read_and_exits_130() {
    stopped_by(libc::SIGINT, "int");
}

#[test]
fn sigterm_writes_every_record_read_and_exits_143() {
    stopped_by(libc::SIGTERM, "term");
}

#[test]
fn sighup_writes_every_record_read_and_exits_129() {
    stopped_by(libc::SIGHUP, "hup");
}

/// One `kafkit produce --output json` (acks=all) on one partition, fed `{run}-{i}` lines
/// until it is killed with SIGKILL once it has reported `after` records (0: at once): the
/// report, without a line the kill cut short.
fn killed_producer(dir: &std::path::Path, run: usize, after: usize) -> Vec<(i64, i64, i64)> {
    let mut producer = spawn(
        dir,
        &[
            "produce",
            "--topic",
            "k",
            "--timeout",
            "1",
            "--output",
            "json",
        ],
    );
    let mut stdin = producer.stdin.take().expect("stdin");
    let writer = thread::spawn(move || {
        for chunk in 0..5000 {
            let lines: String = (0..20)
                .map(|i| format!("{run}-{}\n", chunk * 20 + i))
                .collect();
            if stdin.write_all(lines.as_bytes()).is_err() {
                break;
            }
            thread::sleep(Duration::from_micros(200));
        }
    });
    let mut report = Vec::new();
    while report.len() < after {
        report.push(producer.next_line("report lines while the input flows"));
    }
    producer.signal(libc::SIGKILL);
    let (code, rest, _) = producer.finish();
    assert_eq!(code, None, "run {run}: killed by the signal");
    writer.join().expect("writer");
    report.extend(rest);
    report
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| placed(&v))
        .collect()
}

#[test]
fn kill_9_at_random_moments_never_loses_an_acknowledged_record() {
    // acks=all: a record is reported once an fsync covers it (group commit), so whatever
    // kafkit printed before SIGKILL is in the log, at the offset and with the timestamp it
    // printed, after any number of crashes and the recoveries of the runs that follow (which
    // cut the torn tails the kills leave). The moments are spread by a fixed pseudo-random
    // sequence of report counts; the kills land wherever the writer is at that time.
    let dir = tempdir();
    create_topic(dir.path(), "k", 1, &[]);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut runs = Vec::new();
    for run in 0..12 {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let after = if run % 4 == 0 {
            0
        } else {
            (seed >> 33) as usize % 3000
        };
        runs.push(killed_producer(dir.path(), run, after));
    }
    let logged: std::collections::BTreeMap<i64, (i64, String)> = consume_all(dir.path(), "k")
        .iter()
        .map(|v| {
            let (_, offset, timestamp) = placed(v);
            let value = v["value"].as_str().expect("value").to_string();
            (offset, (timestamp, value))
        })
        .collect();
    let offsets: Vec<i64> = logged.keys().copied().collect();
    assert_eq!(
        offsets,
        (0..offsets.len() as i64).collect::<Vec<_>>(),
        "offsets stay consecutive across the crashes"
    );
    let mut acknowledged = 0;
    for (run, report) in runs.iter().enumerate() {
        // One partition: the records are reported in the order they were read.
        for (i, (partition, offset, timestamp)) in report.iter().enumerate() {
            assert_eq!(*partition, 0);
            let expected = (*timestamp, format!("{run}-{i}"));
            assert_eq!(
                logged.get(offset),
                Some(&expected),
                "run {run} reported record {i} at offset {offset}"
            );
        }
        acknowledged += report.len();
    }
    assert!(
        acknowledged > 0,
        "some runs acknowledged records before the kill"
    );
}

/// stderr lines without their log time (`[2026-01-01 00:00:00,000] `).
fn untimed(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .map(|l| l.split_once("] ").map_or(l, |(_, rest)| rest).to_string())
        .collect()
}

#[test]
fn unknown_properties_are_warned_about_as_kafka_warns_about_unused_configs() {
    let dir = tempdir();
    create_topic(dir.path(), "u", 1, &[]);
    let config = dir.path().join("producer.properties");
    std::fs::write(&config, "client.id=me\ntypo.ms=5\n").expect("write");
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "u",
            "--property",
            "pars.key=true",
            "--property",
            "parse.key=false",
            "--producer-property",
            "foo=1",
            "--producer-property",
            "bootstrap.servers=localhost:9092",
            "--producer-property",
            "enable.idempotence=true",
            "--producer-property",
            "linger.ms=0",
            "--producer.config",
            config.to_str().expect("path"),
        ],
        b"v\n",
    );
    run.ok();
    assert_eq!(
        untimed(&run.stderr),
        [
            "WARN These configurations '[enable.idempotence, foo, typo.ms]' were supplied but are not used yet. (org.apache.kafka.clients.producer.ProducerConfig)",
            "WARN These configurations '[pars.key]' were supplied but are not used yet. (org.apache.kafka.tools.LineMessageReader)",
        ]
    );
    // Warned about, the run goes on: the record is written.
    assert_eq!(consume_all(dir.path(), "u")[0]["value"], "v");

    // Names kafkit reads, and Kafka's connection settings, are not warned about.
    let run = kafkit_stdin(
        dir.path(),
        &[
            "produce",
            "--topic",
            "u",
            "--property",
            "parse.key=true",
            "--property",
            "key.separator=:",
            "--producer-property",
            "acks=1",
            "--producer-property",
            "client.id=me",
            "--producer-property",
            "security.protocol=SSL",
        ],
        b"k:v\n",
    );
    run.ok();
    assert_eq!(run.stderr, "");
}
