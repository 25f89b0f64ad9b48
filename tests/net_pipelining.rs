//! `--bootstrap-server` throughput: the producer's `max.in.flight.requests.per.connection`
//! pipelining and the consumer's fetching ahead, seen on the wire by a relay between kafkit
//! and a Tansu broker (the broker advertises the relay's port, so every connection goes
//! through it). The relay only forwards Kafka's frames, counting them by API, and may hold a
//! Produce answer back for a while (so that requests pile up) or cut a connection.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::broker::{self, Broker};
use crate::common::{kafkit, kafkit_stdin, tempdir, Run};

const PRODUCE: i16 = 0;
const FETCH: i16 = 1;
const LIST_OFFSETS: i16 = 2;

/// What the relay saw.
#[derive(Debug, Default)]
struct Seen {
    /// Produce requests forwarded and not answered yet, and the most there ever were.
    produce_waiting: usize,
    produce_most_waiting: usize,
    /// Produce requests forwarded to the broker.
    produce_forwarded: usize,
    /// Fetch requests forwarded, Fetch answers forwarded.
    fetches: usize,
    /// ListOffsets requests forwarded.
    list_offsets: usize,
    fetch_answers: usize,
    /// The largest Fetch answer's bytes.
    fetch_answer_most: usize,
    /// Produce requests dropped with the connection cut, once the cut was made.
    dropped: Option<usize>,
}

/// How the relay treats the traffic.
#[derive(Debug, Clone, Copy, Default)]
struct Rules {
    /// Each Produce answer is held back this long.
    produce_delay: Duration,
    /// The Produce request after this many is not forwarded: once the answers to those
    /// forwarded are, the connection is cut (one time).
    cut_after: Option<usize>,
}

struct Relay {
    port: u16,
    seen: Arc<Mutex<Seen>>,
    _broker: Broker,
}

impl Relay {
    /// A broker behind a relay, or `None` (skipped) without Tansu.
    fn start(rules: Rules) -> Option<Relay> {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let broker = broker::start_with(Some(port), &[])?;
        let seen = Arc::new(Mutex::new(Seen::default()));
        let target = broker.port();
        let shared = seen.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    return;
                };
                relay(client, server, shared.clone(), rules);
            }
        });
        Some(Relay {
            port,
            seen,
            _broker: broker,
        })
    }

    fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn seen<T>(&self, f: impl FnOnce(&Seen) -> T) -> T {
        f(&self.seen.lock().expect("lock"))
    }
}

/// One Kafka frame (4-byte size, then the body), or `None` at the end of the stream.
fn frame(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut size = [0u8; 4];
    stream.read_exact(&mut size).ok()?;
    let len = usize::try_from(i32::from_be_bytes(size)).ok()?;
    let mut all = size.to_vec();
    all.resize(4 + len, 0);
    stream.read_exact(&mut all[4..]).ok()?;
    Some(all)
}

/// Relays one connection: a thread each way; the APIs of the requests waiting for answers in
/// a queue (answers come in the order of the requests).
fn relay(client: TcpStream, server: TcpStream, seen: Arc<Mutex<Seen>>, rules: Rules) {
    let waiting: Arc<Mutex<VecDeque<i16>>> = Arc::default();
    let (mut from_client, mut to_server) = (
        client.try_clone().expect("clone"),
        server.try_clone().expect("clone"),
    );
    let (mut from_server, mut to_client) = (server, client);
    let (seen_up, waiting_up) = (seen.clone(), waiting.clone());
    std::thread::spawn(move || {
        while let Some(request) = frame(&mut from_client) {
            let api = i16::from_be_bytes([request[4], request[5]]);
            let cut = {
                let mut s = seen_up.lock().expect("lock");
                let cut = api == PRODUCE
                    && s.dropped.is_none()
                    && rules.cut_after.is_some_and(|n| s.produce_forwarded >= n);
                if !cut {
                    match api {
                        PRODUCE => {
                            s.produce_forwarded += 1;
                            s.produce_waiting += 1;
                            s.produce_most_waiting = s.produce_most_waiting.max(s.produce_waiting);
                        }
                        FETCH => s.fetches += 1,
                        LIST_OFFSETS => s.list_offsets += 1,
                        _ => {}
                    }
                    waiting_up.lock().expect("lock").push_back(api);
                }
                cut
            };
            if cut {
                // The answers to what was forwarded go back first; what the client sends
                // meanwhile on this connection is dropped with it.
                let mut dropped = 1;
                let _ = from_client.set_read_timeout(Some(Duration::from_millis(20)));
                let started = Instant::now();
                while !waiting_up.lock().expect("lock").is_empty()
                    || started.elapsed() < Duration::from_millis(300)
                {
                    if let Some(more) = frame(&mut from_client) {
                        dropped += usize::from(i16::from_be_bytes([more[4], more[5]]) == PRODUCE);
                    }
                }
                seen_up.lock().expect("lock").dropped = Some(dropped);
                let _ = from_client.shutdown(Shutdown::Both);
                let _ = to_server.shutdown(Shutdown::Both);
                return;
            }
            if to_server.write_all(&request).is_err() {
                return;
            }
        }
        let _ = to_server.shutdown(Shutdown::Both);
    });
    std::thread::spawn(move || {
        while let Some(answer) = frame(&mut from_server) {
            let api = waiting.lock().expect("lock").front().copied();
            if api == Some(PRODUCE) {
                std::thread::sleep(rules.produce_delay);
            }
            {
                let mut s = seen.lock().expect("lock");
                match api {
                    Some(PRODUCE) => s.produce_waiting -= 1,
                    Some(FETCH) => {
                        s.fetch_answers += 1;
                        s.fetch_answer_most = s.fetch_answer_most.max(answer.len());
                    }
                    _ => {}
                }
            }
            if to_client.write_all(&answer).is_err() {
                return;
            }
            waiting.lock().expect("lock").pop_front();
        }
        let _ = to_client.shutdown(Shutdown::Both);
    });
}

/// `n` numbered lines of 100 bytes.
fn lines(n: usize) -> String {
    (0..n).map(|i| format!("{i:0>99}\n")).collect()
}

/// Creates `topic` with one partition (Tansu would make several on the first produce).
fn create(bootstrap: &str, topic: &str) {
    let args = [
        "topics",
        "--create",
        "--topic",
        topic,
        "--partitions",
        "1",
        "--bootstrap-server",
        bootstrap,
    ];
    kafkit(&tempdir().path().join("unused"), &args).ok();
}

fn produce(bootstrap: &str, topic: &str, input: &str, props: &[&str]) -> Run {
    let mut args = vec!["produce", "--topic", topic, "--bootstrap-server", bootstrap];
    for p in props {
        args.extend(["--producer-property", p]);
    }
    kafkit_stdin(&tempdir().path().join("unused"), &args, input.as_bytes())
}

fn consume_all(bootstrap: &str, topic: &str, n: usize) -> String {
    let n = n.to_string();
    let args = [
        "consume",
        "--topic",
        topic,
        "--from-beginning",
        "--max-messages",
        &n,
        "--bootstrap-server",
        bootstrap,
    ];
    kafkit(&tempdir().path().join("unused"), &args)
        .ok()
        .to_string()
}

#[test]
fn produce_keeps_up_to_max_in_flight_requests_waiting_on_a_connection() {
    // 3,000 records of 100 bytes: 20 batches of 16 KiB, one Produce request each (Kafka's
    // brokers take one batch a partition a request), each answer held back 30 ms.
    let rules = Rules {
        produce_delay: Duration::from_millis(30),
        ..Rules::default()
    };
    let input = lines(5000);
    for (props, most) in [
        (&["max.in.flight.requests.per.connection=1"][..], 1),
        (&[][..], 5),
        (
            &[
                "max.in.flight.requests.per.connection=8",
                "enable.idempotence=false",
            ][..],
            8,
        ),
    ] {
        let Some(relay) = Relay::start(rules) else {
            return;
        };
        let bootstrap = relay.bootstrap();
        create(&bootstrap, "p");
        produce(&bootstrap, "p", &input, props).ok();
        // As many waiting as allowed (the relay counts a request from when it reads it to
        // when it forwards its answer: never more than the producer has waiting).
        assert_eq!(relay.seen(|s| s.produce_most_waiting), most, "{props:?}");
        assert!(relay.seen(|s| s.produce_forwarded) >= 20, "{props:?}");
        // The same records, in the order read.
        assert_eq!(consume_all(&bootstrap, "p", 5000), input, "{props:?}");
    }
    // Kafka's idempotent producer allows at most 5.
    let Some(relay) = Relay::start(rules) else {
        return;
    };
    let exception = "org.apache.kafka.common.config.ConfigException";
    for (value, message) in [
        ("6", "To use the idempotent producer, max.in.flight.requests.per.connection must be set to at most 5. Current value is 6."),
        ("0", "Invalid value 0 for configuration max.in.flight.requests.per.connection: Value must be at least 1"),
    ] {
        let prop = format!("max.in.flight.requests.per.connection={value}");
        let run = produce(&relay.bootstrap(), "p", "a\n", &[prop.as_str()]);
        assert_eq!(run.code, 1);
        assert_eq!(run.stderr, format!("{exception}: {message}\n"));
    }
    assert_eq!(relay.seen(|s| s.produce_forwarded), 0);
}

#[test]
fn a_connection_cut_with_requests_in_flight_loses_and_reorders_nothing() {
    // The 4th Produce request and those behind it on its connection never reach the broker;
    // the answers to the first 3 do reach kafkit, then the connection closes.
    let Some(relay) = Relay::start(Rules {
        produce_delay: Duration::from_millis(30),
        cut_after: Some(3),
    }) else {
        return;
    };
    let bootstrap = relay.bootstrap();
    let input = lines(5000);
    create(&bootstrap, "c");
    let run = produce(&bootstrap, "c", &input, &[]);
    run.ok();
    assert_eq!(run.stderr, "");
    let dropped = relay.seen(|s| s.dropped).expect("the connection was cut");
    // More than one request was in flight when it was cut.
    assert!(dropped >= 2, "{dropped}");
    assert!(relay.seen(|s| s.produce_forwarded) >= 20);
    // Sent again in sequence order: every record once, in the order read.
    assert_eq!(consume_all(&bootstrap, "c", 5000), input);
}

#[test]
fn consume_fetches_ahead_while_it_prints_within_bounded_memory() {
    let Some(relay) = Relay::start(Rules::default()) else {
        return;
    };
    let bootstrap = relay.bootstrap();
    // 5 MB in one partition.
    create(&bootstrap, "f");
    produce(&bootstrap, "f", &lines(50_000), &[]).ok();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kafkit"))
        .args(["consume", "--topic", "f", "--from-beginning"])
        .args(["--bootstrap-server", &bootstrap])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("consume");
    // Its output is not read: the consumer stops printing once the pipe is full (64 KiB),
    // in the first answer's records. The Fetch after it went out already, when the first
    // answer came; no third, with an answer's worth buffered and one in flight.
    let started = Instant::now();
    while relay.seen(|s| s.fetch_answers) < 2 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let (fetches, answers) = relay.seen(|s| (s.fetches, s.fetch_answers));
    let _ = child.kill();
    let mut out = child.stdout.take().expect("stdout");
    let mut printed = Vec::new();
    let _ = out.read_to_end(&mut printed);
    let _ = child.wait();
    assert_eq!((fetches, answers), (2, 2));
    // Tansu differs: its first answer held more than max.partition.fetch.bytes (1 MiB) of
    // the partition (Kafka stops after the first batch past it).
    assert!(relay.seen(|s| s.fetch_answer_most) > 1 << 20);
    assert!(printed.len() < 1 << 20, "{}", printed.len());
}

#[test]
fn tansu_opens_no_fetch_session() {
    use kafka_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
    use kafka_protocol::messages::{BrokerId, FetchRequest, TopicName};
    use kafka_protocol::protocol::StrBytes;
    use kafkit::net::{parse_bootstrap, ClientConfig, Connection};

    let Some(broker) = broker::start() else {
        return;
    };
    let bootstrap = broker.bootstrap();
    create(&bootstrap, "s");
    produce(&bootstrap, "s", "a\n", &[]).ok();
    let address = parse_bootstrap(&bootstrap).expect("address").remove(0);
    let mut conn = Connection::open(&address, -1, &ClientConfig::new("t")).expect("connect");
    // KIP-227: session id 0 and epoch 0 ask for a new session (Kafka answers its id).
    let request = FetchRequest::default()
        .with_replica_id(BrokerId(-1))
        .with_max_wait_ms(500)
        .with_min_bytes(1)
        .with_max_bytes(1 << 20)
        .with_session_id(0)
        .with_session_epoch(0)
        .with_topics(vec![FetchTopic::default()
            .with_topic(TopicName(StrBytes::from_static_str("s")))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(0)
                .with_current_leader_epoch(-1)
                .with_last_fetched_epoch(-1)
                .with_log_start_offset(-1)
                .with_fetch_offset(0)
                .with_partition_max_bytes(1 << 20)])]);
    let response = conn.call(&request).expect("fetch");
    assert_eq!(response.error_code, 0);
    assert!(response.responses[0].partitions[0].records.is_some());
    // Tansu 0.6 differs: no session (id 0), so every fetch kafkit sends is a full one.
    assert_eq!(response.session_id, 0);
}

/// `--reset-offsets` asks the log offsets it needs of all the partitions at once, one
/// ListOffsets per leader and timestamp (Tansu has one broker), as Kafka's admin client
/// batches them, not a request a partition.
#[test]
fn reset_offsets_asks_list_offsets_once_per_leader_and_timestamp() {
    let Some(relay) = Relay::start(Rules::default()) else {
        return;
    };
    let bootstrap = relay.bootstrap();
    let unused = tempdir();
    let data = unused.path().join("unused");
    kafkit(
        &data,
        &[
            "topics",
            "--create",
            "--topic",
            "r",
            "--partitions",
            "8",
            "--bootstrap-server",
            &bootstrap,
        ],
    )
    .ok();
    produce(
        &bootstrap,
        "r",
        &lines(40),
        &["partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner"],
    )
    .ok();
    let reset = |scenario: &[&str]| {
        let before = relay.seen(|s| s.list_offsets);
        let mut args = vec![
            "consumer-groups",
            "--bootstrap-server",
            &bootstrap,
            "--reset-offsets",
            "--group",
            "batched",
            "--topic",
            "r",
            "--execute",
        ];
        args.extend_from_slice(scenario);
        let run = kafkit(&data, &args);
        let rows = run
            .ok()
            .lines()
            .filter(|l| l.starts_with("batched "))
            .count();
        assert_eq!(rows, 8, "{}", run.stdout);
        relay.seen(|s| s.list_offsets) - before
    };
    // Earliest: one request; an offset is clamped to each log's range: two.
    assert_eq!(reset(&["--to-earliest"]), 1);
    assert_eq!(reset(&["--to-offset", "3"]), 2);
    assert_eq!(reset(&["--to-datetime", "2020-01-01T00:00:00.000"]), 2);
}
