//! Custom partitioners from the classic Kafka tutorials, plugged into kafkit's producer through
//! the `kafkit::client::Partitioner` trait (Kafka's `Partitioner` interface).
//!
//! * [`TopicPartitionDemo`]: random for unkeyed records, `abs(key.hashCode() % n)` for keyed
//!   ones (the tutorial's "自定义消息分区算法").
//! * [`FixedPartitioner`]: the tutorial's `PartitionerWrapper`, which sends everything to
//!   partition 2.
//! * [`JavaHashPartitioner`]: Hadoop's `HashPartitioner`, `(key.hashCode() & MAX_INT) % n`, the
//!   "hashPartition" the notes compare Kafka with.
//!
//! Run: `cargo run --example custom_partitioners -- /tmp/partitioners-demo` (the directory is
//! created; the program prints where each partitioner put 12 records).

use kafkit::client::{Partitioner, ProducerConfig, RecordRef};

/// Java's `String.hashCode` of the key read as UTF-8 text (UTF-16 code units, `31 * h + c`).
pub fn java_string_hash(key: &[u8]) -> i32 {
    String::from_utf8_lossy(key)
        .encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The tutorial's `TopicPartitionDemo`: unkeyed records go to a random partition, keyed ones to
/// `Math.abs(key.hashCode() % n)`.
///
/// The Java original computes the keyed partition but forgets to assign it, so every keyed
/// record lands on partition 0; this port does what the comment says it should.
#[derive(Debug)]
pub struct TopicPartitionDemo {
    state: u64,
}

impl TopicPartitionDemo {
    /// A demo partitioner with its own small random generator (xorshift, seeded).
    pub fn new(seed: u64) -> Self {
        Self { state: seed | 1 }
    }

    fn next_random(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }
}

impl Partitioner for TopicPartitionDemo {
    fn partition(&mut self, record: &RecordRef<'_>, partitions: i32) -> i32 {
        match record.key {
            None => (self.next_random() % partitions.max(1) as u64) as i32,
            // Java's `%` keeps the sign of the dividend; `abs` then makes it positive.
            Some(key) => (java_string_hash(key) % partitions.max(1)).abs(),
        }
    }
}

/// The tutorial's `PartitionerWrapper`: every record to one fixed partition.
#[derive(Debug)]
pub struct FixedPartitioner(pub i32);

impl Partitioner for FixedPartitioner {
    fn partition(&mut self, _record: &RecordRef<'_>, _partitions: i32) -> i32 {
        self.0
    }
}

/// Hadoop's `HashPartitioner`: `(key.hashCode() & Integer.MAX_VALUE) % n`; unkeyed records
/// hash as the empty string (partition 0).
#[derive(Debug, Default)]
pub struct JavaHashPartitioner;

impl Partitioner for JavaHashPartitioner {
    fn partition(&mut self, record: &RecordRef<'_>, partitions: i32) -> i32 {
        (java_string_hash(record.key.unwrap_or_default()) & i32::MAX) % partitions.max(1)
    }
}

/// Produces 12 records with `partitioner` into a fresh topic and returns the partition of each.
pub fn run_demo(
    dir: &std::path::Path,
    topic: &str,
    partitioner: Box<dyn Partitioner>,
) -> Result<Vec<i32>, Box<dyn std::error::Error>> {
    use kafkit::client::{Acks, Event, Producer};
    use kafkit::datadir::{now_ms, DataDir, NewTopic, PartitionWriter};

    let datadir = DataDir::create(dir)?;
    {
        let lock = datadir.lock()?;
        if datadir.topic(topic)?.is_none() {
            datadir.create_topic(
                &lock,
                &NewTopic {
                    name: topic.to_string(),
                    partitions: Some(3),
                    ..NewTopic::default()
                },
            )?;
        }
    }
    let topic = datadir.topic(topic)?.ok_or("topic vanished")?;
    let writer = PartitionWriter::new(&datadir)?;
    let config = ProducerConfig {
        acks: Acks::Leader,
        ..ProducerConfig::default()
    };
    let mut producer = Producer::new(writer, topic, partitioner, config).report_written(true);
    for i in 0..12 {
        let key = format!("user{i}");
        let key = (i % 4 != 0).then_some(key.as_bytes());
        producer.send(
            None,
            now_ms(),
            key,
            Some(format!("message {i}").as_bytes()),
            &[],
        )?;
        // One batch per record, so written events come back in input order.
        producer.flush()?;
    }
    let events = producer.close()?;
    Ok(events
        .iter()
        .filter_map(|e| match e {
            Event::Written(m) => Some(m.partition),
            Event::Failed(_) => None,
        })
        .collect())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("kafkit-partitioners-demo"));
    let demos: Vec<(&str, Box<dyn Partitioner>)> = vec![
        ("demo-random-or-hash", Box::new(TopicPartitionDemo::new(42))),
        ("demo-fixed", Box::new(FixedPartitioner(2))),
        ("demo-java-hash", Box::new(JavaHashPartitioner)),
    ];
    for (topic, partitioner) in demos {
        let partitions = run_demo(&dir, topic, partitioner)?;
        println!("{topic}: {partitions:?}");
    }
    println!("data directory: {}", dir.display());
    Ok(())
}
