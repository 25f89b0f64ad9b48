//! Kafka's console tools as library loops: [`ConsoleProducer`] (`kafka-console-producer.sh`,
//! Kafka's `ConsoleProducer`) reads lines into a topic, [`ConsoleConsumer`]
//! (`kafka-console-consumer.sh`, Kafka's `ConsoleConsumer`) prints the records of partitions
//! as they come. The `kafkit` binary's `produce` and `consume` turn their arguments into one of
//! these and run it; another program can run them the same way.
//!
//! What the binary alone knows comes in through small seams, so that the library holds no
//! command line: records and events go to an `impl Write` (stdout), diagnostics (Kafka's log
//! lines, warnings) to a [`Diagnostics`] (stderr, above any progress bar), progress to an
//! [`crate::output::progress::Progress`], and a request to stop (the binary's SIGINT, SIGTERM
//! and SIGHUP, which end Kafka's tools through their shutdown hooks) through a shared flag
//! for the consumer, or through the producer's [`WaitForInput`], which waits for input or that
//! request. Errors are typed; the binary maps them to its messages and exit codes.

mod consumer;
mod producer;

pub use consumer::{
    ConsoleConsumeError, ConsoleConsumer, ConsoleConsumerConfig, ConsumerGroup, RecordOutput,
    StartOffset, Subscription, CONSOLE_CONSUMER,
};
pub use producer::{
    json_record, AlwaysReady, ConsoleProduceError, ConsoleProducer, ConsoleProducerOptions,
    JsonRecord, JsonRecordError, ProduceEvent, ProducedSummary, RecordReader, StopError,
    WaitForInput, Wake,
};

/// Where a console tool's diagnostics go (the binary: stderr, lifting its progress bar off the
/// screen first): each call is one message of one or more whole lines, without the final
/// newline. A diagnostic that cannot be shown is dropped; it never fails the run.
pub trait Diagnostics: Send + Sync {
    /// Shows `message`.
    fn print(&self, message: &str);
}

/// A closure of the message is [`Diagnostics`].
impl<F: Fn(&str) + Send + Sync> Diagnostics for F {
    fn print(&self, message: &str) {
        self(message);
    }
}
