//! Kafka's `ConsoleProducer`: lines of input become records of one topic, one a line, by
//! Kafka's `LineMessageReader` rules ([`LineFormat`]) or from the JSON Lines that `consume
//! --output json` prints ([`json_record`]).
//!
//! The loop runs on the caller's thread and owns the [`Producer`]'s open batches: before each
//! read that may block it hands the sealed batches and the lingered ones to the sender, and
//! waits for input ([`WaitForInput`]) no longer than the next batch's `linger.ms`. What the
//! producer learns is reported as it is acknowledged: written records as [`ProduceEvent`]s on
//! the output (from the sender or flushing thread, through the producer's callback; the output
//! is flushed after each acknowledgement), refused ones as Kafka's log lines on the
//! [`Diagnostics`]. A bad line ends the input as it ends Kafka's tool, and a stop request
//! ([`Wake::Stop`]) ends it where it was read, as Kafka's shutdown hook does: either way what
//! was accepted before is written and durable as `acks` asks before the run returns.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::Diagnostics;
use crate::client::line_reader::{LineError, LineFormat, Lines};
use crate::client::partitioner::Partitioner;
use crate::client::producer::{
    Destination, Event, ProduceError, Producer, ProducerConfig, SendFailure,
};
use crate::datadir::{now_ms, Topic};
use crate::output::json::{bytes_from_value, write_event, BytesError};
use crate::output::log4j;
use crate::output::progress::Progress;
use crate::record::{Header, NO_TIMESTAMP};

/// The logger of kafkit's own warnings about the console producer's input.
const PRODUCE_INPUT: &str = "kafkit.cli.produce";

/// The logger of Kafka's send callback that logs a refused record.
const ERROR_LOGGING_CALLBACK: &str =
    "org.apache.kafka.clients.producer.internals.ErrorLoggingCallback";

/// What `produce --output json` prints (`docs/json.md`, "produce"), written by
/// [`write_event`].
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProduceEvent<'a> {
    /// A record is written, and as durable as `acks` asks.
    Produced {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The offset.
        offset: i64,
        /// The record's CreateTime, or the append time on a `LogAppendTime` topic.
        timestamp: i64,
    },
}

/// How each line of input becomes a record.
#[derive(Debug, Clone)]
pub enum RecordReader {
    /// Kafka's `LineMessageReader` with its properties.
    Lines(LineFormat),
    /// JSON Lines in the shape `consume --output json` prints ([`json_record`]); blank lines
    /// are skipped.
    Json,
}

/// What a [`ConsoleProducer`] does besides producing.
#[derive(Debug, Clone)]
pub struct ConsoleProducerOptions {
    /// How each line becomes a record.
    pub reader: RecordReader,
    /// `--partition`: every record goes there (with [`RecordReader::Json`], over the record's
    /// own `partition`).
    pub partition: Option<i32>,
    /// The input is a terminal: a prompt `>` before each line is read, and each record is
    /// written before the next line is read.
    pub interactive: bool,
    /// Print a [`ProduceEvent::Produced`] for every record written (`--output json`).
    pub report_written: bool,
}

/// What a stop of the input looks like to [`WaitForInput`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// The input can be read (or is at its end, or failed: a read says which).
    Input,
    /// A stop was requested, by what the warning about a cut line names (`SIGINT`).
    Stop(&'static str),
    /// The deadline passed.
    Deadline,
}

/// Waits for the input before a read that may block: the binary polls its input beside a
/// signal pipe. The console producer hands its lingered batches to the sender before each wait,
/// and waits no longer than the next one's `linger.ms`.
pub trait WaitForInput {
    /// Waits until the input can be read, a stop is requested (also one requested before the
    /// call) or `deadline` passes.
    fn wait(&mut self, deadline: Option<Instant>) -> io::Result<Wake>;
}

/// Input that is always ready (a file, a buffer): no wait, no stop request.
#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysReady;

impl WaitForInput for AlwaysReady {
    fn wait(&mut self, _deadline: Option<Instant>) -> io::Result<Wake> {
        Ok(Wake::Input)
    }
}

/// What a run did: every record the input gave, and those refused (written to the log lines
/// on the [`Diagnostics`], not to the topic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducedSummary {
    /// The records the input gave the producer (those it refused included).
    pub records: u64,
    /// The records refused (too large, for an internal topic, refused by the log).
    pub refused: u64,
}

/// What ended the input before its end.
#[derive(Debug, thiserror::Error)]
pub enum StopError {
    /// A line Kafka's `LineMessageReader` refuses, as Kafka's tool reports it.
    #[error("org.apache.kafka.common.KafkaException: {0}")]
    Line(#[from] LineError),
    /// A JSON line that is no record.
    #[error("Invalid JSON record on line number {line_number}: {source}")]
    Json {
        /// The line's number, from 1.
        line_number: u64,
        /// What is wrong with it.
        #[source]
        source: JsonRecordError,
    },
    /// A JSON record's own timestamp or partition, refused by the producer.
    #[error("Invalid JSON record on line number {line_number}: {source}")]
    Record {
        /// The line's number, from 1.
        line_number: u64,
        /// The producer's refusal.
        #[source]
        source: ProduceError,
    },
    /// Reading (or waiting for) the input failed.
    #[error("reading the input: {0}")]
    Input(#[source] io::Error),
    /// The producer failed.
    #[error(transparent)]
    Produce(#[from] ProduceError),
}

/// Why a console producer's run failed.
#[derive(Debug, thiserror::Error)]
pub enum ConsoleProduceError {
    /// What stopped the input, if anything did, then what writing the records accepted before
    /// failed with: a failed write stops the sender, and every later call reports it, so each
    /// line is said once.
    #[error("{}", failure_text(.stopped.as_deref(), .writing))]
    Failed {
        /// What ended the input before its end.
        stopped: Option<Box<StopError>>,
        /// The failures of the last writes (flush, close).
        writing: Vec<ProduceError>,
    },
    /// Writing the report on the output failed (after every record was written; a closed
    /// pipe is no error: it stops the report, not the run).
    #[error(transparent)]
    Output(io::Error),
}

fn failure_text(stopped: Option<&StopError>, writing: &[ProduceError]) -> String {
    let mut messages: Vec<String> = stopped.iter().map(ToString::to_string).collect();
    for error in writing {
        for line in error.to_string().lines() {
            if !messages.iter().any(|m| m.lines().any(|l| l == line)) {
                messages.push(line.to_string());
            }
        }
    }
    messages.join("\n")
}

/// Kafka's console producer over a [`Producer`] of one topic.
pub struct ConsoleProducer {
    producer: Producer,
    reporter: Reporter,
    options: ConsoleProducerOptions,
    /// `--sync`: each record is written and flushed before the next, and the first refusal
    /// ends the run.
    sync: bool,
    /// `max.request.size`: a line longer than this (a whole value) is read through, not held.
    max_request_size: usize,
}

impl std::fmt::Debug for ConsoleProducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsoleProducer")
            .field("producer", &self.producer)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ConsoleProducer {
    /// A console producer writing `topic` through `writer` as `config` asks; its events go to
    /// `out` and its log lines to `diagnostics`.
    pub fn new(
        writer: impl Into<Destination>,
        topic: Topic,
        partitioner: Box<dyn Partitioner>,
        config: ProducerConfig,
        options: ConsoleProducerOptions,
        out: Box<dyn Write + Send>,
        diagnostics: Arc<dyn Diagnostics>,
    ) -> Self {
        let reporter = Reporter::new(&topic.name, config.sync, out, diagnostics);
        // The sender thread reports each write as it is acknowledged, while the caller's thread
        // may be waiting for input.
        let acknowledge = {
            let reporter = reporter.clone();
            Box::new(move |events: &[Event]| reporter.print(events))
        };
        let sync = config.sync;
        let max_request_size = config.max_request_size;
        let producer =
            Producer::with_callback(writer, topic, partitioner, config, Some(acknowledge))
                .report_written(options.report_written);
        Self {
            producer,
            reporter,
            options,
            sync,
            max_request_size,
        }
    }

    /// Reads `input` to its end (or to a bad line, or a stop request), producing a record a
    /// line, then writes and closes what was accepted. `progress` measures the bytes read.
    pub fn run(
        self,
        input: impl Read,
        wait: &mut dyn WaitForInput,
        mut progress: Option<&mut dyn Progress>,
    ) -> Result<ProducedSummary, ConsoleProduceError> {
        let Self {
            mut producer,
            reporter,
            options,
            sync,
            max_request_size,
        } = self;
        let interactive = options.interactive;
        // Reads of 256 KiB: each block is parsed while it is still in the core's cache.
        let mut lines = Lines::new(input, 256 << 10);
        let whole_line_values =
            matches!(&options.reader, RecordReader::Lines(format) if format.whole_line_is_value());
        if whole_line_values {
            // A line longer than max.request.size cannot be sent: it is read through, not held.
            lines = lines.with_max_line(max_request_size);
        }
        // The records the input gave the producer (those it refused included).
        let mut records: u64 = 0;
        let mut headers: Vec<Header> = Vec::new();
        let mut stop: Option<StopError> = None;
        let mut stopped_by: Option<&'static str> = None;
        // CreateTime of text records: the clock is read when input arrives and every 64 lines,
        // not once per line (a clock read costs as much as parsing a line). With the read count
        // it was taken at.
        let mut clock = (u64::MAX, 0i64);
        // Lines that are whole values, not flushed one by one: the complete lines of each block
        // read go to the producer in one call, which reads the clock for each batch it starts;
        // the line that ends a block, or a lone `\r`, takes the path of a single line below,
        // which reads on.
        let by_block = whole_line_values && !sync && !interactive;
        loop {
            if by_block {
                let before = lines.line_count();
                let mut block = lines.buffered().peekable();
                // A call only when there is a line for it (not before each line of input whose
                // lines end with a lone `\r`).
                if block.peek().is_some() {
                    let mut stamped = clock.1;
                    let stamp = || {
                        stamped = now_ms();
                        stamped
                    };
                    let sent = producer.send_values(options.partition, stamp, block.map(Some));
                    // The lines after these are stamped no earlier than these were.
                    clock = (lines.reads(), stamped);
                    if let Err(e) = sent {
                        stop = Some(e.into());
                        break;
                    }
                    // One record a line, all of them sent.
                    records += lines.line_count() - before;
                    reporter.report_new(&mut producer);
                    if let Some(progress) = &mut progress {
                        progress.set_position(lines.consumed());
                    }
                }
            }
            if interactive {
                reporter.prompt();
            }
            // Before the input is read (which may block), what is due goes to the log.
            let mut waited = Ok(());
            let next = lines.advance_with(|| match wait_for_input(&mut producer, wait) {
                Ok(Wake::Stop(by)) => {
                    stopped_by = Some(by);
                    false
                }
                Ok(_) => true,
                Err(e) => {
                    waited = Err(*e);
                    false
                }
            });
            if let Err(e) = waited {
                stop = Some(e);
                break;
            }
            let line = match next {
                Ok(Some(range)) => range,
                Ok(None) => break,
                Err(e) => {
                    stop = Some(StopError::Input(e));
                    break;
                }
            };
            if let Some(length) = lines.dropped_line() {
                producer.refuse_unread_value(options.partition, length);
                records += 1;
                reporter.report_new(&mut producer);
                continue;
            }
            let line_number = lines.line_count();
            if clock.0 != lines.reads() || line_number.is_multiple_of(64) || interactive {
                clock = (lines.reads(), now_ms());
            }
            let now = clock.1;
            let line = lines.line(line);
            let sent = match &options.reader {
                RecordReader::Lines(format) => {
                    match format.parse(line, line_number, &mut headers) {
                        Ok(parsed) => producer.send(
                            options.partition,
                            now,
                            parsed.key,
                            parsed.value,
                            &headers,
                        ),
                        Err(e) => {
                            stop = Some(e.into());
                            break;
                        }
                    }
                }
                RecordReader::Json => {
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match json_record(line) {
                        Ok(r) => match producer.send(
                            options.partition.or(r.partition),
                            r.timestamp.unwrap_or(now),
                            r.key.as_deref(),
                            r.value.as_deref(),
                            &r.headers,
                        ) {
                            // The record's own timestamp or partition: say which line it is.
                            Err(
                                source @ (ProduceError::InvalidTimestamp(_)
                                | ProduceError::InvalidPartition(_)),
                            ) => {
                                stop = Some(StopError::Record {
                                    line_number,
                                    source,
                                });
                                break;
                            }
                            sent => sent,
                        },
                        Err(source) => {
                            stop = Some(StopError::Json {
                                line_number,
                                source,
                            });
                            break;
                        }
                    }
                }
            };
            if let Err(e) = sent {
                stop = Some(e.into());
                break;
            }
            records += 1;
            if sync || interactive {
                if let Err(e) = producer.flush() {
                    stop = Some(e.into());
                    break;
                }
            }
            reporter.report_new(&mut producer);
            if reporter.refused() > 0 && sync {
                break;
            }
            if let Some(progress) = &mut progress {
                if line_number.is_multiple_of(65_536) {
                    progress.set_position(lines.consumed());
                }
            }
        }
        if let Some(progress) = progress {
            progress.finish();
        }
        // As Java's readLine had not returned it, the start of a line is no record.
        if let Some(by) = stopped_by.filter(|_| lines.cut() > 0) {
            let message = format!(
                "The input was cut by {by} in the middle of a line: the {} bytes read of it were not sent.",
                lines.cut()
            );
            reporter.diagnostic(&log4j::line("WARN", &message, PRODUCE_INPUT));
        }
        // Whatever was accepted before a bad line or a stop is written and durable, as Kafka's
        // shutdown hook closes the producer. What the sender reported is printed even when
        // writing failed.
        let mut writing = Vec::new();
        if let Err(e) = producer.flush() {
            writing.push(e);
        }
        let refused: Vec<Event> = producer.take_events().collect();
        reporter.print(&refused);
        match producer.close() {
            Ok(events) => reporter.print(&events),
            Err(e) => writing.push(e),
        }
        if stop.is_some() || !writing.is_empty() {
            return Err(ConsoleProduceError::Failed {
                stopped: stop.map(Box::new),
                writing,
            });
        }
        // The logs are closed: an output that failed can be said now (a closed one is no error:
        // it stopped the report, not the run).
        if let Some(e) = reporter.output_error() {
            if e.kind() != io::ErrorKind::BrokenPipe {
                return Err(ConsoleProduceError::Output(e));
            }
        }
        Ok(ProducedSummary {
            records,
            refused: reporter.refused(),
        })
    }
}

/// Called before the input is read, which may block: hands the sealed batches to the sender,
/// with the open ones that have waited their linger time, and waits for input no longer than
/// the next open batch's linger time at a time.
fn wait_for_input(
    producer: &mut Producer,
    wait: &mut dyn WaitForInput,
) -> Result<Wake, Box<StopError>> {
    loop {
        let deadline = producer
            .send_lingered()
            .map_err(|e| Box::new(StopError::Produce(e)))?;
        match wait
            .wait(deadline)
            .map_err(|e| Box::new(StopError::Input(e)))?
        {
            Wake::Deadline => {}
            wake => return Ok(wake),
        }
    }
}

/// Prints what happened to records: events for written ones on the output, Kafka's log lines
/// for refused ones on the diagnostics. The sender thread prints each acknowledged write
/// through it as it happens ([`Producer::with_callback`]), the caller's thread the records the
/// producer refused itself; the output is flushed after each call, so a script reading it sees
/// each acknowledgement at once.
#[derive(Clone)]
struct Reporter {
    shared: Arc<ReporterState>,
}

struct ReporterState {
    topic: String,
    sync: bool,
    /// How many records were refused.
    refused: AtomicU64,
    out: Mutex<Box<dyn Write + Send>>,
    diagnostics: Arc<dyn Diagnostics>,
    /// The output failed (a closed pipe): nothing more is printed there, and the run ends.
    output: Mutex<Option<io::Error>>,
    output_closed: AtomicBool,
}

impl Reporter {
    fn new(
        topic: &str,
        sync: bool,
        out: Box<dyn Write + Send>,
        diagnostics: Arc<dyn Diagnostics>,
    ) -> Self {
        Self {
            shared: Arc::new(ReporterState {
                topic: topic.to_string(),
                sync,
                refused: AtomicU64::new(0),
                out: Mutex::new(out),
                diagnostics,
                output: Mutex::new(None),
                output_closed: AtomicBool::new(false),
            }),
        }
    }

    fn refused(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    fn diagnostic(&self, message: &str) {
        self.shared.diagnostics.print(message);
    }

    /// Writes `bytes` on the output and flushes it, unless it failed before.
    fn write(&self, bytes: &[u8]) {
        if self.output_closed() {
            return;
        }
        let mut out = self
            .shared
            .out
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
            self.close_output(e);
        }
    }

    /// The console producer's prompt, before it waits for a line from a terminal.
    fn prompt(&self) {
        self.write(b">");
    }

    /// Nothing more goes to the output after its first failure, which is kept to be said at the
    /// end.
    fn close_output(&self, error: io::Error) {
        let state = &self.shared;
        state.output_closed.store(true, Ordering::Relaxed);
        state
            .output
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(error);
    }

    fn output_closed(&self) -> bool {
        self.shared.output_closed.load(Ordering::Relaxed)
    }

    /// The error that closed the output, if it failed.
    fn output_error(&self) -> Option<io::Error> {
        self.shared
            .output
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Reports what the producer learnt since the last call: cheap after every record.
    fn report_new(&self, producer: &mut Producer) {
        if producer.may_have_events() {
            let events: Vec<Event> = producer.take_events().collect();
            self.print(&events);
        }
    }

    /// Prints `events`: the written records' lines on the output with one write, then flushed.
    fn print(&self, events: &[Event]) {
        let state = &self.shared;
        let mut lines = Vec::new();
        for event in events {
            match event {
                Event::Written(m) => {
                    let produced = ProduceEvent::Produced {
                        topic: &state.topic,
                        partition: m.partition,
                        offset: m.offset,
                        timestamp: m.timestamp,
                    };
                    // Writing to a vector does not fail.
                    let _ = write_event(&mut lines, &produced);
                }
                Event::Failed(f) => {
                    state.refused.fetch_add(1, Ordering::Relaxed);
                    self.print_failure(f);
                }
            }
        }
        if !lines.is_empty() {
            self.write(&lines);
        }
    }

    fn print_failure(&self, f: &SendFailure) {
        let size = |n: i32| {
            if n < 0 {
                "null".to_string()
            } else {
                format!("{n} bytes")
            }
        };
        // Kafka's callback logs the error and the producer goes on.
        if !self.shared.sync {
            self.diagnostic(&log4j::line(
                "ERROR",
                &format!(
                    "Error when sending message to topic {} with key: {}, value: {} with error: ",
                    self.shared.topic,
                    size(f.key_size),
                    size(f.value_size)
                ),
                ERROR_LOGGING_CALLBACK,
            ));
        }
        self.diagnostic(&f.error);
    }
}

/// A record read from a JSON line ([`json_record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonRecord {
    /// The key, `None` for null.
    pub key: Option<Vec<u8>>,
    /// The value, `None` for null.
    pub value: Option<Vec<u8>>,
    /// The headers, in order.
    pub headers: Vec<Header>,
    /// The timestamp; `None` when absent, `null` or -1 (Kafka's "no timestamp").
    pub timestamp: Option<i64>,
    /// The partition, when the line names one.
    pub partition: Option<i32>,
}

/// A JSON line that is no record.
#[derive(Debug, thiserror::Error)]
pub enum JsonRecordError {
    /// Not JSON.
    #[error("{0}")]
    Syntax(#[from] serde_json::Error),
    /// JSON, but not an object.
    #[error("expected an object")]
    NotAnObject,
    /// `key` or `value` is not bytes by the byte rule.
    #[error("\"{field}\": {source}")]
    Bytes {
        /// `key` or `value`.
        field: &'static str,
        /// What is wrong with it.
        #[source]
        source: BytesError,
    },
    /// `headers` is not a list.
    #[error("\"headers\" must be a list")]
    Headers,
    /// A header without a string key.
    #[error("each header needs a string \"key\" and a \"value\"")]
    HeaderKey,
    /// A header whose value is not bytes by the byte rule.
    #[error("header \"{key}\": {source}")]
    HeaderValue {
        /// The header's key.
        key: String,
        /// What is wrong with its value.
        #[source]
        source: BytesError,
    },
    /// `timestamp` or `partition` is not an integer.
    #[error("\"{0}\" must be an integer")]
    NotAnInteger(&'static str),
    /// `partition` is not an int.
    #[error("\"partition\" is out of range")]
    PartitionOutOfRange,
}

/// Reads one line of `consume --output json` output: `key`, `value` (by the byte rule),
/// `headers` (a list of `{"key", "value"}` objects or of `[key, value]` pairs), `timestamp`
/// and `partition`. Other fields (`type`, `topic`, `offset`, `timestamp_type`, `schema`) are
/// ignored.
pub fn json_record(line: &[u8]) -> Result<JsonRecord, JsonRecordError> {
    let Value::Object(obj) = serde_json::from_slice(line)? else {
        return Err(JsonRecordError::NotAnObject);
    };
    let bytes = |field: &'static str| match obj.get(field) {
        None => Ok(None),
        Some(v) => bytes_from_value(v).map_err(|source| JsonRecordError::Bytes { field, source }),
    };
    let key = bytes("key")?;
    let value = bytes("value")?;
    let mut headers = Vec::new();
    match obj.get("headers") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                let (k, v) = match item {
                    Value::Object(h) => (h.get("key"), h.get("value")),
                    Value::Array(pair) if pair.len() == 2 => (pair.first(), pair.get(1)),
                    _ => (None, None),
                };
                let Some(Value::String(k)) = k else {
                    return Err(JsonRecordError::HeaderKey);
                };
                let v = bytes_from_value(v.unwrap_or(&Value::Null)).map_err(|source| {
                    JsonRecordError::HeaderValue {
                        key: k.clone(),
                        source,
                    }
                })?;
                headers.push(Header {
                    key: k.clone(),
                    value: v,
                });
            }
        }
        Some(_) => return Err(JsonRecordError::Headers),
    }
    let int = |name: &'static str| match obj.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or(JsonRecordError::NotAnInteger(name)),
    };
    // -1 is what consume prints for a record without a timestamp (Kafka's NO_TIMESTAMP: magic 0,
    // or an older producer's record): copied as a record sent without one, stamped now, as
    // MirrorMaker copies it. Any other negative timestamp is refused by the producer, as Kafka's
    // ProducerRecord refuses it.
    let timestamp = int("timestamp")?.filter(|&t| t != NO_TIMESTAMP);
    let partition = match int("partition")? {
        Some(p) => Some(i32::try_from(p).map_err(|_| JsonRecordError::PartitionOutOfRange)?),
        None => None,
    };
    Ok(JsonRecord {
        key,
        value,
        headers,
        timestamp,
        partition,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_record_reads_what_consume_prints_and_ignores_the_rest() {
        let line = br#"{"type":"record","topic":"t","partition":2,"offset":7,"timestamp":42,"timestamp_type":"CreateTime","key":{"base64":"/w=="},"value":"v","headers":[{"key":"h","value":null},["p","q"]],"schema":1}"#;
        let record = json_record(line).expect("record");
        assert_eq!(
            record,
            JsonRecord {
                key: Some(vec![0xff]),
                value: Some(b"v".to_vec()),
                headers: vec![Header::new("h", None), Header::new("p", Some(&b"q"[..]))],
                timestamp: Some(42),
                partition: Some(2),
            }
        );
        assert_eq!(
            json_record(br#"{"timestamp":-1}"#).expect("-1").timestamp,
            None
        );
    }

    #[test]
    fn a_json_line_that_is_no_record_says_why() {
        for (line, message) in [
            (&br#"[1]"#[..], "expected an object"),
            (
                br#"{"key":3}"#,
                "\"key\": expected a string, null or {\"base64\": \"...\"}, found 3",
            ),
            (br#"{"headers":{}}"#, "\"headers\" must be a list"),
            (
                br#"{"headers":[{"value":"x"}]}"#,
                "each header needs a string \"key\" and a \"value\"",
            ),
            (
                br#"{"headers":[["k",{"base64":"!"}]]}"#,
                "header \"k\": invalid base64: Invalid symbol 33, offset 0.",
            ),
            (
                br#"{"timestamp":"now"}"#,
                "\"timestamp\" must be an integer",
            ),
            (
                br#"{"partition":4294967296}"#,
                "\"partition\" is out of range",
            ),
        ] {
            let error = json_record(line).expect_err("refused");
            assert_eq!(
                error.to_string(),
                message,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert!(matches!(json_record(b"{"), Err(JsonRecordError::Syntax(_))));
    }

    #[test]
    fn a_failure_says_what_stopped_the_input_then_each_new_line_of_the_writes() {
        let stopped = StopError::Json {
            line_number: 3,
            source: JsonRecordError::NotAnObject,
        };
        let writing = vec![
            ProduceError::Sender("a\nb".into()),
            ProduceError::Sender("b\nc".into()),
        ];
        assert_eq!(
            failure_text(Some(&stopped), &writing),
            "Invalid JSON record on line number 3: expected an object\na\nb\nc"
        );
        assert_eq!(failure_text(None, &writing[1..]), "b\nc");
    }
}
