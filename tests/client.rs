//! The client library's pure parts against Kafka's vectors (`spec/vectors/cli/`): murmur2, the
//! console producer's line rules, the console consumer's formatter; the partitioners; the
//! producer's batching and durability; the consumer's isolation levels; the console tools as
//! library calls.

use std::fs;

use serde_json::Value;

use kafkit::client::console::{
    AlwaysReady, ConsoleConsumerConfig, ConsoleProduceError, ConsoleProducerOptions, Diagnostics,
    ProducedSummary, RecordOutput, RecordReader, StartOffset, StopError, Subscription,
};
use kafkit::client::{
    murmur2, partition_for_key, to_positive, Acks, BuiltInPartitioner, ConsoleConsumer,
    ConsoleProducer, Event, IsolationLevel, LineError, LineFormat, Lines, Murmur2Partitioner,
    PartitionConsumer, Partitioner, PartitionerKind, ProduceError, Producer, ProducerConfig,
    RandomPartitioner, RecordRef, RoundRobinPartitioner,
};
use kafkit::datadir::{DataDir, NewTopic, PartitionWriter, TopicPartition};
use kafkit::log::LogReader;
use kafkit::output::message::{MessageFormatter, MessageView};
use kafkit::record::{BatchBuilder, Compression, EndTransactionMarker, Header, TimestampType};

use crate::common::{hex, tempdir, vectors};

fn vector_file(name: &str) -> Option<Value> {
    let dir = vectors()?;
    let text = fs::read_to_string(dir.join("cli").join(name)).expect("vector file");
    Some(serde_json::from_str(&text).expect("vector json"))
}

#[test]
fn murmur2_vectors_bit_exact_with_java() {
    let Some(doc) = vector_file("murmur2.json") else {
        return;
    };
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 50, "expected the full table");
    let mut partitions_checked = 0;
    for case in cases {
        let input = hex(case["input_hex"].as_str().expect("input_hex"));
        let expected = case["murmur2"].as_i64().expect("murmur2") as i32;
        assert_eq!(murmur2(&input), expected, "murmur2 of {case}");
        if let Some(tp) = case["to_positive"].as_i64() {
            assert_eq!(to_positive(expected) as i64, tp, "{case}");
        }
        if let Some(map) = case["partition_for_key"].as_object() {
            for (n, p) in map {
                let n: i32 = n.parse().expect("count");
                assert_eq!(
                    partition_for_key(&input, n) as i64,
                    p.as_i64().expect("partition"),
                    "{case} with {n} partitions"
                );
                partitions_checked += 1;
            }
        }
    }
    assert!(partitions_checked > 100);
}

/// A vector record: (key, value, headers) with `None` for JSON null.
type Expected = (
    Option<String>,
    Option<String>,
    Vec<(String, Option<String>)>,
);

fn expected_record(v: &Value) -> Expected {
    let s = |v: &Value| v.as_str().map(str::to_string);
    let headers = v["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .map(|pair| (s(&pair[0]).expect("header key"), s(&pair[1])))
        .collect();
    (s(&v["key"]), s(&v["value"]), headers)
}

fn props(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn line_reader_vectors() {
    let Some(doc) = vector_file("console_producer_line_reader.json") else {
        return;
    };
    for case in doc["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().unwrap_or_default();
        let props = props(&case["props"]);
        let format =
            LineFormat::from_properties(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let input = case["input"].as_str().expect("input").as_bytes();
        let mut lines = Lines::new(input, 4096);
        let mut headers = Vec::new();
        let mut got: Vec<Result<Expected, String>> = Vec::new();
        let mut n = 0;
        while let Some(line) = lines.next_line().expect("read") {
            n += 1;
            got.push(
                format
                    .parse(line, n, &mut headers)
                    .map(|p| {
                        let s = |b: Option<&[u8]>| {
                            b.map(|b| String::from_utf8(b.to_vec()).expect("utf8"))
                        };
                        (
                            s(p.key),
                            s(p.value),
                            headers
                                .iter()
                                .map(|h| (h.key.clone(), s(h.value.as_deref())))
                                .collect(),
                        )
                    })
                    .map_err(|e| e.to_string()),
            );
        }
        let expected: Vec<Result<Expected, String>> = case["expected"]
            .as_array()
            .expect("expected")
            .iter()
            .map(|e| match e.get("error") {
                Some(err) => Err(err.as_str().expect("error").to_string()),
                None => Ok(expected_record(e)),
            })
            .collect();
        assert_eq!(got, expected, "case {name}");
    }
    for case in doc["config_errors"].as_array().expect("config errors") {
        let props = props(&case["props"]);
        let err = LineFormat::from_properties(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .expect_err("a configuration error");
        assert_eq!(
            err.to_string(),
            case["error"].as_str().expect("error"),
            "{case}"
        );
    }
}

#[test]
fn default_formatter_vectors() {
    let Some(doc) = vector_file("console_consumer_default_formatter.json") else {
        return;
    };
    let mut checked = 0;
    for case in doc["steps_cumulative"].as_array().expect("steps") {
        let config = props(&case["config"]);
        if config.iter().any(|(k, _)| k.ends_with(".deserializer")) {
            // These rows use a test's own deserializer class (upper-casing), not one of Kafka's.
            continue;
        }
        let formatter =
            MessageFormatter::from_properties(config.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let r = &case["record"];
        let headers: Vec<Header> = r["headers"]
            .as_array()
            .expect("headers")
            .iter()
            .map(|pair| {
                Header::new(
                    pair[0].as_str().expect("key"),
                    pair[1].as_str().map(str::as_bytes),
                )
            })
            .collect();
        let timestamp_type = match r["timestamp_type"].as_str().expect("type") {
            "NO_TIMESTAMP_TYPE" => TimestampType::NoTimestamp,
            "CREATE_TIME" => TimestampType::CreateTime,
            "LOG_APPEND_TIME" => TimestampType::LogAppendTime,
            other => panic!("type {other}"),
        };
        let view = MessageView {
            topic: r["topic"].as_str().expect("topic"),
            partition: r["partition"].as_i64().expect("partition") as i32,
            offset: r["offset"].as_i64().expect("offset"),
            timestamp: r["timestamp"].as_i64().expect("timestamp"),
            timestamp_type,
            key: r["key"].as_str().map(str::as_bytes),
            value: r["value"].as_str().map(str::as_bytes),
            headers: &headers,
            leader_epoch: r["leader_epoch"].as_i64().map(|e| e as i32),
            delivery_count: r["delivery_count"].as_i64().map(|e| e as i32),
        };
        let mut out = Vec::new();
        formatter.write(&mut out, &view).expect("write");
        assert_eq!(
            String::from_utf8(out).expect("utf8"),
            case["expected_output"].as_str().expect("expected"),
            "{case}"
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} formatter rows checked");
    // Nothing enabled: nothing at all is written.
    let f = MessageFormatter::from_properties([("print.value", "false")]);
    let mut out = Vec::new();
    let view = MessageView {
        topic: "t",
        partition: 0,
        offset: 0,
        timestamp: 0,
        timestamp_type: TimestampType::CreateTime,
        key: None,
        value: None,
        headers: &[],
        leader_epoch: None,
        delivery_count: None,
    };
    f.write(&mut out, &view).expect("write");
    assert!(out.is_empty());
}

fn rec<'a>(key: Option<&'a [u8]>) -> RecordRef<'a> {
    RecordRef {
        topic: "t",
        key,
        value: Some(b"v"),
    }
}

#[test]
fn partitioners() {
    // Round robin: strict rotation from 0, keys ignored.
    let mut rr = RoundRobinPartitioner::new();
    let got: Vec<i32> = (0..8).map(|_| rr.partition(&rec(Some(b"k")), 4)).collect();
    assert_eq!(got, [0, 1, 2, 3, 0, 1, 2, 3]);
    // Murmur2: keyed by the hash, unkeyed rotating.
    let mut m = Murmur2Partitioner::new();
    assert_eq!(m.partition(&rec(Some(b"foobar")), 10), 6);
    let got: Vec<i32> = (0..4).map(|_| m.partition(&rec(None), 3)).collect();
    assert_eq!(got, [0, 1, 2, 0]);
    // Built-in: keyed by the hash; unkeyed sticky until the batch is sealed.
    let mut b = BuiltInPartitioner::new(Some(7));
    assert_eq!(
        b.partition(&rec(Some(b"a-little-bit-longer-string")), 10),
        9
    );
    let first = b.partition(&rec(None), 5);
    for _ in 0..100 {
        assert_eq!(b.partition(&rec(None), 5), first, "sticky between batches");
    }
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let p = b.partition(&rec(None), 5);
        seen.insert(p);
        b.on_new_batch("t", 5, p);
    }
    assert_eq!(
        seen.len(),
        5,
        "new batches move over all partitions: {seen:?}"
    );
    // Random: in range, all partitions reached.
    let mut r = RandomPartitioner::new(Some(1));
    let seen: std::collections::BTreeSet<i32> =
        (0..200).map(|_| r.partition(&rec(None), 4)).collect();
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
}

/// A new data directory at `dir` with a topic `name` of `partitions` partitions.
pub fn topic(dir: &std::path::Path, name: &str, partitions: i32) -> DataDir {
    let datadir = DataDir::create(dir).expect("datadir");
    let lock = datadir.lock().expect("lock");
    datadir
        .create_topic(
            &lock,
            &NewTopic {
                name: name.to_string(),
                partitions: Some(partitions),
                ..NewTopic::default()
            },
        )
        .expect("create topic");
    drop(lock);
    datadir
}

/// A producer for topic `name` of `datadir`, round-robin partitioner.
fn producer(datadir: &DataDir, name: &str, config: ProducerConfig) -> Producer {
    let topic = datadir.topic(name).expect("topic").expect("exists");
    let writer = PartitionWriter::new(datadir).expect("writer");
    Producer::new(
        writer,
        topic,
        Box::new(RoundRobinPartitioner::new()),
        config,
    )
}

/// `acks=1` (each batch not fsynced) and `batch.size` of `batch_size`.
fn acks_1_with_batch_size(batch_size: usize) -> ProducerConfig {
    ProducerConfig {
        batch_size,
        acks: Acks::Leader,
        ..ProducerConfig::default()
    }
}

/// (record count, size) of every batch of a partition.
fn batches_of(datadir: &DataDir, tp: &TopicPartition) -> Vec<(i32, usize)> {
    let mut log = LogReader::open(&datadir.partition_dir(tp)).expect("open");
    let mut out = Vec::new();
    let mut base = log.segment_base_offsets().first().copied();
    while let Some(b) = base {
        let mut reader = log.reader(b, 0).expect("reader");
        while let Some((_, batch)) = reader.next_batch().expect("batch") {
            out.push((batch.records_count().unwrap_or(-1), batch.size_in_bytes()));
        }
        base = log.next_segment(b);
    }
    out
}

#[test]
fn producer_seals_batches_at_batch_size_like_the_record_accumulator() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let config = acks_1_with_batch_size(1000);
    let mut p = producer(&datadir, "t", config);
    let value = [b'x'; 100];
    for _ in 0..50 {
        p.send(None, 1_000, None, Some(&value), &[]).expect("send");
    }
    p.close().expect("close");
    let batches = batches_of(&datadir, &TopicPartition::new("t", 0));
    let total: i32 = batches.iter().map(|(n, _)| n).sum();
    assert_eq!(total, 50);
    // A record takes 109 bytes (length 2, attributes 1, deltas 2, null key 1, value 2 + 100,
    // header count 1) and the batch header 61: 8 records make 933 bytes, a ninth 1042 > 1000.
    for (n, size) in &batches[..batches.len() - 1] {
        assert_eq!((*n, *size), (8, 61 + 8 * 109), "{batches:?}");
    }
    assert!(batches.iter().all(|(_, size)| *size <= 1000));
}

#[test]
fn a_batch_holds_what_its_first_records_buffer_holds_like_the_record_accumulator() {
    // Kafka allocates a new batch max(batch.size, upper bound of its first record) bytes: 61
    // (batch header) + 21 (MAX_RECORD_OVERHEAD) + the record's fields. With batch.size 1 and
    // records of value "v" (fields: null key 1, value 1 + 1, header count 1 = 4), that is 86
    // bytes; each record takes 8 (length 1, attributes 1, deltas 1 + 1, fields 4), so a batch
    // takes 61 + 3 * 8 = 85 bytes and a fourth record would not fit.
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let config = acks_1_with_batch_size(1);
    let mut p = producer(&datadir, "t", config);
    for _ in 0..7 {
        p.send(None, 1_000, None, Some(b"v"), &[]).expect("send");
    }
    p.close().expect("close");
    assert_eq!(
        batches_of(&datadir, &TopicPartition::new("t", 0)),
        [(3, 85), (3, 85), (1, 69)]
    );
    // A record of 300 bytes, then three of "v", with batch.size 100: the records per batch.
    let counts = |compression: Compression| {
        let dir = tempdir();
        let datadir = topic(dir.path(), "t", 1);
        let config = ProducerConfig {
            batch_size: 100,
            acks: Acks::Leader,
            compression,
            ..ProducerConfig::default()
        };
        let mut p = producer(&datadir, "t", config);
        p.send(None, 1_000, None, Some(&[b'x'; 300]), &[])
            .expect("send");
        for _ in 0..3 {
            p.send(None, 1_000, None, Some(b"v"), &[]).expect("send");
        }
        p.close().expect("close");
        let batches = batches_of(&datadir, &TopicPartition::new("t", 0));
        batches.iter().map(|b| b.0).collect::<Vec<_>>()
    };
    // The large first record's upper bound (61 + 21 + 304 = 386) leaves 16 bytes after it (its
    // length takes 2 of the 5 bytes counted): room for two "v" records.
    assert_eq!(counts(Compression::None), [3, 1]);
    // A compressed batch is estimated at its records' bytes times the compression estimate (1
    // for a producer's first batch) and 1.05: the large record's batch is full at 61 + 324 of
    // its 386 bytes, the small ones go together.
    assert_eq!(counts(Compression::Gzip), [1, 3]);
}

#[test]
fn a_compressed_batch_fits_max_message_bytes_after_the_estimate_fell() {
    // Compressible records first bring the compression estimate down; then come records that
    // do not compress. Filled to max.message.bytes (4000) by the low estimate alone, a batch
    // would hold several times 4000 bytes that compress to as many: the log would refuse it
    // (a Kafka producer would split it). The room before compression keeps every batch
    // writable, and every record is written.
    let dir = tempdir();
    crate::produce::create_topic(dir.path(), "t", 1, &["max.message.bytes=4000"]);
    let datadir = DataDir::open(dir.path()).expect("datadir");
    let config = ProducerConfig {
        acks: Acks::Leader,
        compression: Compression::Gzip,
        ..ProducerConfig::default()
    };
    let mut p = producer(&datadir, "t", config);
    for i in 0..6000u32 {
        let mut value = [b'x'; 100];
        value[..4].copy_from_slice(&i.to_be_bytes());
        p.send(None, 1_000, None, Some(&value), &[]).expect("send");
        if i % 20 == 19 {
            // Let the sender compress what is sealed, so the estimate falls during the run.
            p.recovery_point(0).expect("barrier");
        }
    }
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..300 {
        let value: Vec<u8> = (0..13)
            .flat_map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.to_le_bytes()
            })
            .take(100)
            .collect();
        p.send(None, 1_000, None, Some(&value), &[]).expect("send");
    }
    let events = p.close().expect("close");
    let failed: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Failed(_)))
        .collect();
    assert!(
        failed.is_empty(),
        "{} failed: {:?}",
        failed.len(),
        failed.first()
    );
    let batches = batches_of(&datadir, &TopicPartition::new("t", 0));
    assert_eq!(batches.iter().map(|b| b.0).sum::<i32>(), 6300);
    assert!(batches.iter().all(|b| b.1 <= 4000), "{batches:?}");
}

#[test]
fn compressed_batches_grow_as_kafkas_compression_estimate_falls() {
    // Records of 100 identical bytes compress to a few percent. The first batch is estimated
    // with the ratio 1 (as Kafka's CompressionRatioEstimator starts): 8 records of 109 bytes
    // fill 61 + 915 of 1024 bytes. Each batch compressed then lowers the estimate by 0.005
    // (Kafka's improving step), so later batches hold more records. The sender compresses
    // batches as they are handed over; waiting for the sealed ones every 50 records (the
    // recovery point is such a barrier, and leaves the open batch open) makes that happen
    // during the run whatever the machine's speed.
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let config = ProducerConfig {
        batch_size: 1024,
        acks: Acks::Leader,
        compression: Compression::Gzip,
        ..ProducerConfig::default()
    };
    let mut p = producer(&datadir, "t", config);
    for i in 0..4000u32 {
        let mut value = [b'x'; 100];
        value[..4].copy_from_slice(&i.to_be_bytes());
        p.send(None, 1_000, None, Some(&value), &[]).expect("send");
        if i % 50 == 49 {
            p.recovery_point(0).expect("barrier");
        }
    }
    p.close().expect("close");
    let counts: Vec<i32> = batches_of(&datadir, &TopicPartition::new("t", 0))
        .iter()
        .map(|b| b.0)
        .collect();
    assert_eq!(counts.iter().sum::<i32>(), 4000);
    assert_eq!(counts[0], 8, "{counts:?}");
    let largest = counts.iter().max().copied().unwrap_or_default();
    assert!(largest >= 3 * counts[0], "{counts:?}");
    let records = crate::produce::consume_all(dir.path(), "t");
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["offset"], i as i64);
    }
}

#[test]
fn acks_all_checkpoints_each_batch_before_the_next() {
    for (acks, durable) in [(Acks::All, true), (Acks::Leader, false)] {
        let dir = tempdir();
        let datadir = topic(dir.path(), "t", 1);
        let config = ProducerConfig {
            batch_size: 500,
            acks,
            ..ProducerConfig::default()
        };
        let mut p = producer(&datadir, "t", config);
        for _ in 0..20 {
            p.send(None, 1_000, None, Some(&[b'y'; 100]), &[])
                .expect("send");
        }
        // Batches were sealed and written (flush waits for the sender); the logs are still
        // open.
        p.flush().expect("flush");
        let checkpoint = fs::read_to_string(dir.path().join("recovery-point-offset-checkpoint"))
            .unwrap_or_default();
        let recovered = checkpoint
            .lines()
            .any(|l| l.starts_with("t 0 ") && !l.ends_with(" 0"));
        assert_eq!(recovered, durable, "{acks:?}: checkpoint {checkpoint:?}");
        p.close().expect("close");
    }
}

#[test]
fn producer_reports_written_records_and_refuses_oversized_ones() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let config = ProducerConfig {
        max_request_size: 300,
        ..ProducerConfig::default()
    };
    let mut p = producer(&datadir, "t", config).report_written(true);
    p.send(Some(1), 5, Some(b"k"), Some(b"v"), &[])
        .expect("send");
    p.send(Some(1), 6, None, Some(&[0u8; 400]), &[])
        .expect("send");
    let events = p.close().expect("close");
    assert_eq!(events.len(), 2, "{events:?}");
    // Kafka's upper bound: batch header 61 + MAX_RECORD_OVERHEAD 21 + fields (null key 1, value
    // length 2 + 400, header count 1).
    assert!(
        matches!(&events[0], Event::Failed(f) if f.error == "org.apache.kafka.common.errors.RecordTooLargeException: The message is 486 bytes when serialized which is larger than 300, which is the value of the max.request.size configuration." && f.value_size == 400),
        "{:?}",
        events[0]
    );
    assert!(
        matches!(&events[1], Event::Written(m) if m.partition == 1 && m.offset == 0 && m.timestamp == 5)
    );
}

#[test]
fn read_committed_skips_aborted_transactions_and_control_batches() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let topic = datadir.topic("t").expect("topic").expect("exists");
    let mut writer = PartitionWriter::new(&datadir).expect("writer");
    let log = writer.log(&topic, 0).expect("log");
    let txn = |pid: i64, values: &[&str]| {
        let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime)
            .producer_id(pid)
            .producer_epoch(0)
            .base_sequence(0)
            .transactional(true);
        for v in values {
            b.append(1, None, Some(v.as_bytes()), &[]);
        }
        b.build().expect("build")
    };
    let plain = |v: &str| {
        let mut b = BatchBuilder::new(0, Compression::None, TimestampType::CreateTime);
        b.append(1, None, Some(v.as_bytes()), &[]);
        b.build().expect("build")
    };
    let marker = |pid: i64, commit: bool| {
        let m = if commit {
            EndTransactionMarker::commit(0)
        } else {
            EndTransactionMarker::abort(0)
        };
        m.build_batch(0, 1, pid, 0, 0).expect("marker")
    };
    for batch in [
        plain("p1"),
        txn(7, &["c1", "c2"]),
        txn(8, &["a1"]),
        plain("p2"),
        marker(7, true),
        marker(8, false),
        txn(9, &["open"]),
        plain("p3"),
    ] {
        log.append(&batch, 1).expect("append");
    }
    writer.close().expect("close");
    let dirpath = datadir.partition_dir(&TopicPartition::new("t", 0));
    let read = |isolation| {
        let mut c = PartitionConsumer::new(dirpath.clone(), 0, isolation);
        let mut values = Vec::new();
        while let Some(r) = c.next_record().expect("record") {
            values.push(String::from_utf8(r.record.value.expect("value")).expect("utf8"));
        }
        values
    };
    assert_eq!(
        read(IsolationLevel::ReadUncommitted),
        ["p1", "c1", "c2", "a1", "p2", "open", "p3"]
    );
    // The open transaction of producer 9 is the last stable offset: nothing past it.
    assert_eq!(
        read(IsolationLevel::ReadCommitted),
        ["p1", "c1", "c2", "p2"]
    );
}

#[path = "../examples/custom_partitioners.rs"]
#[allow(dead_code)]
mod custom_partitioners;

#[test]
fn the_custom_partitioners_of_the_examples() {
    use custom_partitioners::{
        java_string_hash, run_demo, FixedPartitioner, JavaHashPartitioner, TopicPartitionDemo,
    };
    // Java's String.hashCode.
    assert_eq!(java_string_hash(b""), 0);
    assert_eq!(java_string_hash(b"abc"), 96354);
    assert_eq!(java_string_hash(b"polygenelubricants"), i32::MIN);
    assert_eq!(java_string_hash("€".as_bytes()), 0x20ac);
    let dir = tempdir();
    // Records 0, 4 and 8 are unkeyed; the others have keys user<i>.
    let fixed = run_demo(dir.path(), "fixed", Box::new(FixedPartitioner(2))).expect("demo");
    assert_eq!(fixed, vec![2; 12]);
    let hashed = run_demo(dir.path(), "hash", Box::new(JavaHashPartitioner)).expect("demo");
    for (i, p) in hashed.iter().enumerate() {
        let key = if i % 4 == 0 {
            String::new()
        } else {
            format!("user{i}")
        };
        assert_eq!(
            *p,
            (java_string_hash(key.as_bytes()) & i32::MAX) % 3,
            "record {i}"
        );
    }
    let demo = run_demo(dir.path(), "demo", Box::new(TopicPartitionDemo::new(7))).expect("demo");
    for (i, p) in demo.iter().enumerate() {
        assert!((0..3).contains(p));
        if i % 4 != 0 {
            let key = format!("user{i}");
            assert_eq!(
                *p,
                (java_string_hash(key.as_bytes()) % 3).abs(),
                "record {i}"
            );
        }
    }
    // What the producer reported is what the log holds.
    let records = crate::produce::consume_all(dir.path(), "fixed");
    assert!(records.iter().all(|r| r["partition"] == 2));
    assert_eq!(records.len(), 12);
    // A partitioner that answers out of range stops the producer with Kafka's message.
    let err = run_demo(dir.path(), "bad", Box::new(FixedPartitioner(-1))).expect_err("refused");
    assert_eq!(
        err.to_string(),
        "java.lang.IllegalArgumentException: The partitioner generated an invalid partition number: -1. Partition number should always be non-negative."
    );
}

#[test]
fn the_topics_flush_policy_is_honoured_with_acks_1() {
    // (flush.messages / flush.ms override, recovery point after 4 sealed one-record batches:
    // with batch.size 1 a batch's limit is its first record's upper bound, 82 bytes + fields,
    // which leaves 17 bytes after it, too few for another of these 23-byte records)
    for (configs, expected) in [
        (&[][..], 0),
        (&["flush.messages=3"][..], 3),
        (&["flush.ms=0"][..], 4),
    ] {
        let dir = tempdir();
        crate::produce::create_topic(dir.path(), "f", 1, configs);
        let datadir = DataDir::open(dir.path()).expect("datadir");
        let config = acks_1_with_batch_size(1);
        let mut p = producer(&datadir, "f", config);
        for _ in 0..5 {
            p.send(None, 1, None, Some(b"one-record-batch"), &[])
                .expect("send");
        }
        assert_eq!(p.recovery_point(0).expect("log"), expected, "{configs:?}");
        p.close().expect("close");
    }
}

#[test]
fn a_failing_sender_stops_the_producer_with_the_logs_error() {
    // The partition directory is a file: the sender cannot open the log. The error reaches the
    // caller at the next flush (and again at close), never as a hang or a panic.
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let partition_dir = datadir.partition_dir(&TopicPartition::new("t", 0));
    fs::remove_dir_all(&partition_dir).expect("remove");
    fs::write(&partition_dir, b"not a directory").expect("write");
    let config = ProducerConfig {
        acks: Acks::Leader,
        ..ProducerConfig::default()
    };
    let mut p = producer(&datadir, "t", config);
    p.send(None, 1, None, Some(b"v"), &[])
        .expect("accepted into a batch");
    let err = p.flush().expect_err("the log cannot be opened");
    // The first report keeps the error's type; later ones repeat its message.
    assert!(matches!(err, ProduceError::DataDir(_)), "{err:?}");
    let err = err.to_string();
    assert!(err.contains("t-0"), "{err}");
    assert!(
        p.send(None, 1, None, Some(b"w"), &[]).is_err() || p.flush().is_err(),
        "the producer stays failed"
    );
    let closed = p.close().expect_err("close reports it too").to_string();
    assert!(closed.contains("t-0"), "{closed}");
}

#[test]
fn a_dropped_producer_still_closes_its_logs() {
    // Dropping without close: what was flushed stays written, indexed and checkpointed, and the
    // indexes are trimmed as on a clean close (not left preallocated).
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let config = ProducerConfig {
        acks: Acks::Leader,
        ..ProducerConfig::default()
    };
    let mut p = producer(&datadir, "t", config);
    for _ in 0..1000 {
        p.send(Some(0), 1, None, Some(&[b'z'; 100]), &[])
            .expect("send");
    }
    p.flush().expect("flush");
    // Then batches sealed but not handed over yet (many within a millisecond), and an open one.
    for _ in 0..1000 {
        p.send(Some(0), 1, None, Some(&[b'z'; 100]), &[])
            .expect("send");
    }
    drop(p);
    let tp = TopicPartition::new("t", 0);
    let total: i32 = batches_of(&datadir, &tp).iter().map(|(n, _)| n).sum();
    // A 16,384-byte batch holds 148 of these records (61 bytes of header, 109 bytes a record,
    // 110 from offset delta 64 on): of the second thousand, the sealed batches (6 x 148) are
    // written and the open one (112 records) is dropped.
    assert_eq!(total, 1000 + 6 * 148);
    let index = datadir
        .partition_dir(&tp)
        .join("00000000000000000000.index");
    assert!(fs::metadata(&index).expect("index").len() < 4096);
    // With acks=1 nothing was fsynced: the recovery point stays at 0, and the next writer
    // (the lock went with the sender thread) trusts the tail the sender closed at 1888.
    let checkpoint =
        fs::read_to_string(dir.path().join("recovery-point-offset-checkpoint")).expect("read");
    assert!(checkpoint.lines().any(|l| l == "t 0 0"), "{checkpoint}");
    let mut writer = PartitionWriter::new(&datadir).expect("the lock is free");
    let topic = datadir.topic("t").expect("topic").expect("exists");
    let log = writer.log(&topic, 0).expect("log");
    assert_eq!((log.log_end_offset(), log.recovery_point()), (1888, 0));
}

#[test]
fn a_sealed_batch_is_written_without_waiting_for_a_flush() {
    // A slow stream (`tail -f | kafkit produce`): a full batch must reach the log on its own,
    // not wait for more input or the end of it.
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let config = acks_1_with_batch_size(500);
    let mut p = producer(&datadir, "t", config);
    // Four 109-byte records fill a 500-byte batch; the fifth seals it.
    for _ in 0..5 {
        p.send(Some(0), 1, None, Some(&[b'q'; 100]), &[])
            .expect("send");
    }
    let tp = TopicPartition::new("t", 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let written: i32 = batches_of(&datadir, &tp).iter().map(|(n, _)| n).sum();
        if written == 4 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the sealed batch was not written ({written} records)"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    p.close().expect("close");
    let written: i32 = batches_of(&datadir, &tp).iter().map(|(n, _)| n).sum();
    assert_eq!(written, 5);
}

#[test]
fn asking_for_a_missing_partitions_recovery_point_fails_alone() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 3);
    let mut p = producer(
        &datadir,
        "t",
        ProducerConfig {
            acks: Acks::Leader,
            ..ProducerConfig::default()
        },
    );
    p.send(Some(1), 1, None, Some(b"kept"), &[]).expect("send");
    let err = p.recovery_point(5).expect_err("no partition 5").to_string();
    assert!(err.contains('5'), "{err}");
    // A partition that exists but whose log cannot be opened: the sender's answer, not fatal.
    let broken = datadir.partition_dir(&TopicPartition::new("t", 2));
    fs::remove_dir_all(&broken).expect("remove");
    fs::write(&broken, b"not a directory").expect("write");
    let err = p
        .recovery_point(2)
        .expect_err("t-2 cannot open")
        .to_string();
    assert!(err.contains("t-2"), "{err}");
    // The producer is not failed by it: the record sent before is written at close.
    p.send(Some(1), 1, None, Some(b"also"), &[]).expect("send");
    p.close().expect("close");
    let written: i32 = batches_of(&datadir, &TopicPartition::new("t", 1))
        .iter()
        .map(|(n, _)| n)
        .sum();
    assert_eq!(written, 2);
}

#[test]
fn a_consumer_stops_when_its_topic_is_deleted_or_replaced() {
    // A consumer at the end of a partition whose topic is deleted and created again under the
    // same name must not read on from its old position in the new topic (the stress audit saw
    // a follower print the old topic's offsets 0-4 and then the new one's 5-7); a partition
    // deleted outright is said to be gone, not an OS error from listing it.
    use crate::common::{kafkit, kafkit_stdin};
    use kafkit::client::ConsumeError;
    let tmp = tempdir();
    let data = tmp.path();
    let dir = data.join("t2-0");
    let values = |c: &mut PartitionConsumer| {
        let mut out = Vec::new();
        while let Some(r) = c.next_record().expect("record") {
            out.push(String::from_utf8(r.record.value.expect("value")).expect("utf8"));
        }
        out
    };
    kafkit(data, &["topics", "--create", "--topic", "t2"]).ok();
    kafkit_stdin(
        data,
        &["produce", "--topic", "t2", "--acks", "1"],
        b"old-1\nold-2\n",
    )
    .ok();
    let mut replaced = PartitionConsumer::new(dir.clone(), 0, IsolationLevel::ReadUncommitted);
    assert_eq!(values(&mut replaced), ["old-1", "old-2"]);
    kafkit_stdin(
        data,
        &["produce", "--topic", "t2", "--acks", "1"],
        b"old-3\n",
    )
    .ok();
    assert_eq!(values(&mut replaced), ["old-3"]);

    kafkit(data, &["topics", "--delete", "--topic", "t2"]).ok();
    let deleted = replaced.next_record().expect_err("a deleted partition");
    assert!(matches!(deleted, ConsumeError::Deleted { .. }), "{deleted}");
    assert!(
        deleted
            .to_string()
            .contains("the partition no longer exists"),
        "{deleted}"
    );

    kafkit(data, &["topics", "--create", "--topic", "t2"]).ok();
    kafkit_stdin(
        data,
        &["produce", "--topic", "t2", "--acks", "1"],
        b"new-1\nnew-2\nnew-3\nnew-4\nnew-5\n",
    )
    .ok();
    let err = replaced.next_record().expect_err("a replaced topic");
    assert!(matches!(err, ConsumeError::Replaced { .. }), "{err}");
    assert!(
        err.to_string().contains("deleted and created again"),
        "{err}"
    );
    // A consumer started on the new topic reads it from its start.
    let mut fresh = PartitionConsumer::new(dir, 0, IsolationLevel::ReadUncommitted);
    assert_eq!(
        values(&mut fresh),
        ["new-1", "new-2", "new-3", "new-4", "new-5"]
    );
}

#[test]
fn a_consumer_part_way_through_a_deleted_topic_says_so_not_that_a_file_is_missing() {
    // A consumer holds its current segment open and opens the next one by path when it gets
    // there. With its topic deleted meanwhile (or deleted and created again), that open fails:
    // what to report is the deletion, not the missing file (a pattern subscription drops the
    // topic on it; a NotFound ended the whole run).
    use crate::common::{kafkit, kafkit_stdin};
    use kafkit::client::ConsumeError;
    let tmp = tempdir();
    let data = tmp.path();
    let lines: String = (0..12_000)
        .map(|i| format!("{i:06} {}\n", "r".repeat(93)))
        .collect();
    for (topic, created_again) in [("gone", false), ("again", true)] {
        let create = [
            "topics",
            "--create",
            "--topic",
            topic,
            "--config",
            "segment.bytes=1048576",
        ];
        kafkit(data, &create).ok();
        let produce = ["produce", "--topic", topic, "--acks", "1"];
        kafkit_stdin(data, &produce, lines.as_bytes()).ok();
        let dir = data.join(format!("{topic}-0"));
        let segments = LogReader::open(&dir)
            .expect("log")
            .segment_base_offsets()
            .len();
        assert!(segments >= 2, "{segments} segments");
        let mut consumer = PartitionConsumer::new(dir, 0, IsolationLevel::ReadUncommitted);
        assert!(consumer.next_record().expect("record").is_some());
        kafkit(data, &["topics", "--delete", "--topic", topic]).ok();
        if created_again {
            kafkit(data, &create).ok();
            kafkit_stdin(data, &produce, b"new\n").ok();
        }
        let err = loop {
            match consumer.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("{topic}: the consumer read to the end of a deleted topic"),
                Err(e) => break e,
            }
        };
        if created_again {
            assert!(
                matches!(err, ConsumeError::Replaced { .. }),
                "{topic}: {err}"
            );
        } else {
            assert!(
                matches!(err, ConsumeError::Deleted { .. }),
                "{topic}: {err}"
            );
        }
    }
}

use proptest::strategy::Strategy as _;

/// Where the producer of [`sent_both_ways`] puts records.
#[derive(Debug, Clone, Copy)]
enum Placement {
    Forced(i32),
    Kind(PartitionerKind),
}

/// Sends `runs` (each a timestamp and its values) to a fresh topic of `partitions`, with a
/// `send` per value or a `send_values` per run; returns the events and every partition's
/// `.log` bytes.
fn sent_both_ways(
    runs: &[(i64, Vec<Option<Vec<u8>>>)],
    by_run: bool,
    partitions: i32,
    placement: Placement,
    config: ProducerConfig,
) -> (Vec<Event>, Vec<Vec<u8>>) {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", partitions);
    let topic = datadir.topic("t").expect("topic").expect("exists");
    let writer = PartitionWriter::new(&datadir).expect("writer");
    let (forced, kind) = match placement {
        Placement::Forced(p) => (Some(p), PartitionerKind::Random),
        Placement::Kind(kind) => (None, kind),
    };
    let mut p = Producer::new(writer, topic, kind.build(Some(7)), config).report_written(true);
    for (timestamp, values) in runs {
        if by_run {
            p.send_values(forced, || *timestamp, values.iter().map(|v| v.as_deref()))
                .expect("send_values");
        } else {
            for value in values {
                p.send(forced, *timestamp, None, value.as_deref(), &[])
                    .expect("send");
            }
        }
    }
    let events = p.close().expect("close");
    let logs = (0..partitions)
        .map(|n| {
            let tp = TopicPartition::new("t", n);
            // A partition nothing was sent to has no log yet.
            fs::read(datadir.partition_dir(&tp).join("00000000000000000000.log"))
                .unwrap_or_default()
        })
        .collect();
    (events, logs)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// `send_values` writes the very batches a `send` per value writes, and reports the same:
    /// batch boundaries, partitions (sticky, rotating, random, named), refusals.
    #[test]
    fn sending_values_by_run_writes_what_sending_them_one_by_one_writes(
        runs in proptest::collection::vec(
            (0i64..3, proptest::collection::vec(
                proptest::option::weighted(0.9, proptest::prop_oneof![
                    6 => proptest::collection::vec(proptest::num::u8::ANY, 0..400),
                    1 => proptest::collection::vec(proptest::num::u8::ANY, 8185..8195),
                ]),
                0..40,
            )),
            1..6,
        ),
        partitions in 1i32..4,
        placement in proptest::prop_oneof![
            (0i32..3).prop_map(Placement::Forced),
            proptest::sample::select(vec![
                PartitionerKind::Default,
                PartitionerKind::RoundRobin,
                PartitionerKind::Random,
                PartitionerKind::Murmur2,
            ]).prop_map(Placement::Kind),
        ],
        batch_size in 1usize..20_000,
        max_request_size in 100usize..10_000,
        lz4: bool,
    ) {
        let placement = match placement {
            Placement::Forced(p) => Placement::Forced(p % partitions),
            // A compressed batch ends where the sender's running compression estimate says,
            // which depends on timing (as in Kafka): with a named partition the records are
            // the same whatever the batches.
            _ if lz4 => Placement::Forced(0),
            other => other,
        };
        // Timestamps that go down as well as up between runs.
        let runs: Vec<_> = runs.into_iter().map(|(t, v)| (1_000 + 7 * t, v)).collect();
        let config = ProducerConfig {
            batch_size,
            max_request_size,
            acks: Acks::Leader,
            compression: if lz4 { Compression::Lz4 } else { Compression::None },
            ..ProducerConfig::default()
        };
        let one_by_one = sent_both_ways(&runs, false, partitions, placement, config.clone());
        let by_run = sent_both_ways(&runs, true, partitions, placement, config);
        proptest::prop_assert_eq!(&by_run.0, &one_by_one.0);
        if !lz4 {
            proptest::prop_assert!(by_run.1 == one_by_one.1, "the logs differ");
        }
    }
}

#[test]
fn sending_values_checks_each_record_as_send_does() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 2);
    let mut p = producer(&datadir, "t", ProducerConfig::default());
    let values = [Some(&b"v"[..])];
    // The timestamp first, then the partition, as `send` (and the Java client) checks them.
    assert!(matches!(
        p.send_values(Some(2), || -5, values),
        Err(ProduceError::InvalidTimestamp(-5))
    ));
    assert!(matches!(
        p.send_values(Some(2), || 1, values),
        Err(ProduceError::InvalidPartition(m)) if m.contains("2")
    ));
    // No values, no checks: as no `send` at all.
    p.send_values(Some(7), || -1, std::iter::empty())
        .expect("no values");
    p.close().expect("close");
    assert!(batches_of(&datadir, &TopicPartition::new("t", 1)).is_empty());

    // Records for an internal topic are each refused, as the broker refuses a client's.
    let datadir = topic(&dir.path().join("internal"), "__consumer_offsets", 1);
    let mut p = producer(&datadir, "__consumer_offsets", ProducerConfig::default());
    p.send_values(None, || 1, [Some(&b"a"[..]), None])
        .expect("refused, not failed");
    let events = p.close().expect("close");
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events.iter().all(|e| matches!(e, Event::Failed(f)
        if f.error.ends_with("Cannot append to internal topic __consumer_offsets"))));
}

/// The clock is read for each batch the values start: records of one batch share a reading,
/// a later batch has a later one.
#[test]
fn sending_values_reads_the_clock_for_each_batch() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    let config = acks_1_with_batch_size(1000);
    let mut p = producer(&datadir, "t", config).report_written(true);
    let mut readings = 0;
    let value = [b'x'; 100];
    p.send_values(
        Some(0),
        || {
            readings += 1;
            1_000 * readings
        },
        std::iter::repeat_n(Some(&value[..]), 20),
    )
    .expect("send");
    let events = p.close().expect("close");
    // 8 records of 109 bytes fill a 1000-byte batch (as producer_seals_batches_at_batch_size):
    // 20 records make batches of 8, 8 and 4, stamped at the first, second and third reading.
    let stamps: Vec<i64> = events
        .iter()
        .map(|e| match e {
            Event::Written(m) => m.timestamp,
            other => panic!("{other:?}"),
        })
        .collect();
    let expected: Vec<i64> = [1_000; 8]
        .into_iter()
        .chain([2_000; 8])
        .chain([3_000; 4])
        .collect();
    assert_eq!(stamps, expected);
}

#[test]
fn open_batches_go_once_they_have_waited_linger_ms() {
    use std::time::{Duration, Instant};
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 1);
    // acks=all: the recovery point is the end of what the sender wrote.
    let mut p = producer(
        &datadir,
        "t",
        ProducerConfig {
            linger: Duration::from_secs(3600),
            ..ProducerConfig::default()
        },
    );
    assert_eq!(p.linger_deadline(), None, "no open batch");
    let before = Instant::now();
    p.send(Some(0), 1_000, None, Some(b"a"), &[]).expect("send");
    let deadline = p.send_lingered().expect("send_lingered");
    assert!(
        deadline.is_some_and(|at| at >= before + Duration::from_secs(3600)),
        "an hour after the batch started"
    );
    assert_eq!(
        p.recovery_point(0).expect("barrier"),
        0,
        "not due: kept open"
    );
    p.close().expect("close");
    assert_eq!(batches_of(&datadir, &TopicPartition::new("t", 0)).len(), 1);

    // linger.ms 0: due at once.
    let mut p = producer(&datadir, "t", ProducerConfig::default());
    p.send(Some(0), 1_000, None, Some(b"b"), &[]).expect("send");
    assert!(p.linger_deadline().is_some());
    assert_eq!(p.send_lingered().expect("send_lingered"), None, "none open");
    assert_eq!(p.recovery_point(0).expect("barrier"), 2, "written");
    p.close().expect("close");
}

#[test]
fn lingered_batches_move_the_sticky_partitioner_on_after_batch_size_bytes() {
    // A slow stream: each record is sent alone when its linger ends. Kafka's built-in
    // partitioner moves on after batch.size bytes, full batches or not: here 6 batches of one
    // 109-byte record (170 bytes with the batch header) reach 1000 bytes.
    let dir = tempdir();
    let datadir = topic(dir.path(), "t", 3);
    let topic = datadir.topic("t").expect("topic").expect("exists");
    let writer = PartitionWriter::new(&datadir).expect("writer");
    let config = ProducerConfig {
        batch_size: 1000,
        acks: Acks::Leader,
        ..ProducerConfig::default()
    };
    let mut p = Producer::new(
        writer,
        topic,
        Box::new(BuiltInPartitioner::new(Some(7))),
        config,
    );
    let value = [b'x'; 100];
    for _ in 0..60 {
        p.send(None, 1_000, None, Some(&value), &[]).expect("send");
        p.send_lingered().expect("send_lingered");
    }
    p.close().expect("close");
    let mut used = 0;
    for partition in 0..3 {
        let batches = batches_of(&datadir, &TopicPartition::new("t", partition));
        assert!(
            batches.iter().all(|&(n, size)| n == 1 && size == 170),
            "{batches:?}"
        );
        assert_eq!(batches.len() % 6, 0, "runs of 6 on partition {partition}");
        used += usize::from(!batches.is_empty());
    }
    assert!(used >= 2, "the partitioner moved on");
}

/// What a console tool printed, shared with the test that reads it back.
#[derive(Clone, Default)]
struct Printed(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Printed {
    fn lines(&self) -> Vec<String> {
        let bytes = self.0.lock().expect("lock").clone();
        String::from_utf8(bytes)
            .expect("utf-8")
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// A diagnostics sink writing each message as a line here.
    fn diagnostics(&self) -> std::sync::Arc<dyn Diagnostics> {
        let printed = self.clone();
        std::sync::Arc::new(move |message: &str| {
            let mut bytes = printed.0.lock().expect("lock");
            bytes.extend_from_slice(message.as_bytes());
            bytes.push(b'\n');
        })
    }
}

impl std::io::Write for Printed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A console producer of `parse.key` lines into topic `name`, reporting to `out` and `err`.
fn console_producer(
    datadir: &DataDir,
    name: &str,
    out: &Printed,
    err: &Printed,
) -> ConsoleProducer {
    let topic = datadir.topic(name).expect("topic").expect("exists");
    ConsoleProducer::new(
        PartitionWriter::new(datadir).expect("writer"),
        topic,
        Box::new(RoundRobinPartitioner::new()),
        ProducerConfig {
            max_request_size: 200,
            ..ProducerConfig::default()
        },
        ConsoleProducerOptions {
            reader: RecordReader::Lines(
                LineFormat::from_properties([("parse.key", "true")]).expect("format"),
            ),
            partition: None,
            interactive: false,
            report_written: true,
        },
        Box::new(out.clone()),
        err.diagnostics(),
    )
}

/// The console tools are library calls: a producer over any `Read`, reporting written records
/// as events and refused ones as Kafka's log lines, a consumer printing to any `Write`, both
/// without the binary.
#[test]
fn the_console_producer_and_consumer_run_without_the_binary() {
    let dir = tempdir();
    let datadir = topic(dir.path(), "c", 2);
    let (out, err) = (Printed::default(), Printed::default());
    let input = format!("a\t1\nb\t2\nc\t{}\n", "x".repeat(300));
    let summary = console_producer(&datadir, "c", &out, &err)
        .run(input.as_bytes(), &mut AlwaysReady, None)
        .expect("run");
    assert_eq!(
        summary,
        ProducedSummary {
            records: 3,
            refused: 1
        }
    );
    let produced: Vec<Value> = out
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(produced.len(), 2, "{produced:?}");
    assert!(produced
        .iter()
        .all(|p| p["type"] == "produced" && p["topic"] == "c" && p["offset"] == 0));
    assert!(
        err.lines()
            .iter()
            .any(|l| l.starts_with("org.apache.kafka.common.errors.RecordTooLargeException")),
        "{:?}",
        err.lines()
    );

    // A bad line ends the input, as Kafka's reader ends it; the records before it are written.
    let (out, err) = (Printed::default(), Printed::default());
    let failed = console_producer(&datadir, "c", &out, &err)
        .run(&b"d\t3\nno separator\ne\t4\n"[..], &mut AlwaysReady, None)
        .expect_err("a bad line");
    assert!(matches!(
        &failed,
        ConsoleProduceError::Failed { stopped: Some(stop), writing }
            if matches!(**stop, StopError::Line(LineError::NoSeparator { line_number: 2, .. }))
                && writing.is_empty()
    ));
    assert!(failed.to_string().starts_with(
        "org.apache.kafka.common.KafkaException: No key separator found on line number 2"
    ));
    assert_eq!(out.lines().len(), 1);

    let config = ConsoleConsumerConfig {
        subscription: Subscription::Topic {
            name: "c".to_string(),
            partition: None,
        },
        start: StartOffset::Earliest,
        reset: Some(StartOffset::Earliest),
        isolation: IsolationLevel::ReadUncommitted,
        check_crcs: true,
        metadata_max_age: std::time::Duration::from_secs(300),
        exclude_internal: true,
        max_messages: None,
        timeout: None,
        exit_at_end: true,
        skip_message_on_error: false,
        group: None,
    };
    let mut consumer = ConsoleConsumer::open(datadir.clone(), config.clone()).expect("open");
    assert_eq!(consumer.expected_records(), 3);
    let mut printed = Vec::new();
    let never = std::sync::atomic::AtomicBool::new(false);
    consumer
        .run(
            &RecordOutput::Json,
            &mut printed,
            None,
            &never,
            &|_: &str| {},
        )
        .expect("consume");
    assert_eq!(consumer.consumed(), 3);
    let mut values: Vec<(String, String)> = String::from_utf8(printed)
        .expect("utf-8")
        .lines()
        .map(|l| {
            let r: Value = serde_json::from_str(l).expect("json");
            assert_eq!(r["type"], "record");
            let text = |v: &Value| v.as_str().expect("text").to_string();
            (text(&r["key"]), text(&r["value"]))
        })
        .collect();
    values.sort();
    let pairs = [("a", "1"), ("b", "2"), ("d", "3")];
    assert_eq!(values, pairs.map(|(k, v)| (k.to_string(), v.to_string())));

    // A stop request ends the run before the first record.
    let mut consumer = ConsoleConsumer::open(datadir, config).expect("open");
    let stop = std::sync::atomic::AtomicBool::new(true);
    let mut printed = Vec::new();
    consumer
        .run(
            &RecordOutput::Json,
            &mut printed,
            None,
            &stop,
            &|_: &str| {},
        )
        .expect("consume");
    assert_eq!((consumer.consumed(), printed.len()), (0, 0));
}
