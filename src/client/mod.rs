//! The producer side (partitioners, line parsing, batching) and the consumer side (fetching
//! batches from an offset, isolation levels).
//!
//! * [`murmur2`](mod@murmur2): Kafka's key hash, bit-exact with Java.
//! * [`partitioner`]: the [`Partitioner`] trait and Kafka's strategies; plug in your own.
//! * [`line_reader`]: the console producer's line format (`LineMessageReader`).
//! * [`producer`]: per-partition batch accumulators writing to the partition logs.
//! * [`consumer`]: reading partitions from an offset, following them as they grow.
//! * [`configs`]: the consumer and producer configs read, parsed as Kafka's ConfigDef parses them.
//! * [`offsets`]: Kafka's `ListOffsets` on a local partition (`get-offsets`).
//! * [`console`]: Kafka's console producer and consumer as loops over the two sides
//!   ([`ConsoleProducer`], [`ConsoleConsumer`]): what `kafkit produce` and `kafkit consume` run.

pub mod configs;
pub mod console;
pub mod consumer;
pub mod group;
pub mod line_reader;
pub mod murmur2;
pub mod offsets;
pub mod partitioner;
pub mod producer;

pub use console::{ConsoleConsumer, ConsoleProducer};
pub use consumer::{ConsumeError, ConsumedRecord, Fetcher, IsolationLevel, PartitionConsumer};
pub use line_reader::{BufferedLines, LineError, LineFormat, Lines, ParsedLine};
pub use murmur2::{murmur2, partition_for_key, to_positive};
pub use partitioner::{
    BuiltInPartitioner, Murmur2Partitioner, Partitioner, PartitionerKind, RandomPartitioner,
    RecordRef, RoundRobinPartitioner,
};
pub use producer::{
    partition_error, Acks, Callback, Event, ProduceError, Producer, ProducerConfig, RecordMetadata,
    SendFailure,
};
