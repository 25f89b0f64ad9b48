//! `kafkit delete-records`: Kafka's `kafka-delete-records.sh` lines (`kafka-cli-surface.md`
//! §6.3) and the JSON Lines events of `--output json` (`docs/json.md`, "delete-records").

use serde::Serialize;

/// The line before the work.
pub const EXECUTING: &str = "Executing records delete operation";
/// The line after it, before one line per partition.
pub const COMPLETED: &str = "Records delete operation completed:";

/// A partition's line: `partition: t-0\tlow_watermark: 5`, or `partition: t-0\terror: <class>:
/// <message>`.
pub fn partition_line(partition: &str, result: Result<i64, &dyn std::fmt::Display>) -> String {
    match result {
        Ok(low_watermark) => format!("partition: {partition}\tlow_watermark: {low_watermark}"),
        Err(error) => format!("partition: {partition}\terror: {error}"),
    }
}

/// One JSON Lines object of `kafkit delete-records --output json`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DeleteRecordsEvent<'a> {
    /// The partition's log start offset now.
    LowWatermark {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// Its log start offset (low watermark) after the deletion.
        low_watermark: i64,
    },
    /// Why the partition's records were not deleted.
    PartitionError {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// Kafka's text: the Java exception class, `: `, its message.
        error: String,
    },
}
