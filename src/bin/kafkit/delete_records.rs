//! `kafkit delete-records`: Kafka's `kafka-delete-records.sh` (`DeleteRecordsCommand`) over the
//! data directory (`kafka-cli-surface.md` §6.3): moves partitions' log start offsets.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueHint;

use super::{Example, Exit, GlobalArgs};
use kafkit::datadir::delete_records::{delete_records, parse_offset_json};
use kafkit::datadir::{DataDir, TopicPartition};
use kafkit::output::delete_records::{partition_line, DeleteRecordsEvent, COMPLETED, EXECUTING};
use kafkit::output::json::write_event;
use kafkit::output::OutputFormat;

/// Examples of `kafkit delete-records` (`tests/man.rs` runs them, in order, in an empty
/// directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a topic of ten records:",
        line: "kafkit topics --create --topic demo && seq 1 10 | kafkit produce --topic demo",
    },
    Example {
        what: "Delete its first four records:",
        line: "echo '{\"partitions\":[{\"topic\":\"demo\",\"partition\":0,\"offset\":4}],\"version\":1}' > offsets.json && kafkit delete-records --offset-json-file offsets.json",
    },
    Example {
        what: "Consumers now start at offset 4:",
        line: "kafkit get-offsets --topic demo --time earliest",
    },
];

/// Delete records of partitions below an offset (kafka-delete-records.sh).
///
/// This tool helps to delete records of the given partitions down to the specified offset:
/// each partition's log start offset moves there (recorded in log-start-offset-checkpoint), and
/// consumers start from it. The segment files below it stay on disk until retention removes
/// them, as in Kafka. With --bootstrap-server, the partitions' leaders in a cluster do it
/// (DeleteRecords).
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// The JSON file with offset per partition. The format to use is:
    /// {"partitions": [{"topic": "foo", "partition": 1, "offset": 1}], "version":1}
    /// (offset -1: up to the high watermark, here the log end).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub offset_json_file: Option<PathBuf>,
    /// The brokers to ask (DeleteRecords to each partition's leader),
    /// `HOST:PORT[,HOST:PORT...]`, instead of writing --data-dir.
    #[arg(long, value_name = "HOST:PORT", value_hint = ValueHint::Other)]
    pub bootstrap_server: Option<String>,
    /// With --bootstrap-server: a file of Kafka admin client properties (request.timeout.ms,
    /// default.api.timeout.ms, security.protocol, ...).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub command_config: Option<PathBuf>,
}

/// Runs `kafkit delete-records`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let Some(path) = &args.offset_json_file else {
        return Err(super::usage_error(
            "delete-records",
            "Missing required argument \"[offset-json-file]\"",
        ));
    };
    let cluster = match &args.bootstrap_server {
        Some(servers) => Some(super::net::cluster(
            "delete-records",
            servers,
            args.command_config.as_deref(),
            &[],
            global,
            "adminclient-1",
        )?),
        None => None,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| Exit::failure(format!("Could not read {}: {e}", path.display())))?;
    let offsets = parse_offset_json(&text).map_err(|e| Exit::failure(e.to_string()))?;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let text_mode = global.output == OutputFormat::Text;
    if text_mode {
        writeln!(out, "{EXECUTING}")?;
        out.flush()?;
    }
    // Each partition's low watermark, or the Java exception Kafka's tool prints for it.
    let results: Vec<(TopicPartition, Result<i64, String>)> = match cluster {
        None => {
            let datadir = DataDir::open(&global.data_dir)?;
            delete_records(&datadir, &offsets)?
                .into_iter()
                .map(|(tp, r)| (tp, r.map_err(|e| e.to_string())))
                .collect()
        }
        Some(mut cluster) => match cluster.delete_records(&offsets) {
            Ok(answers) => answers
                .into_iter()
                .map(|(tp, r)| (tp, r.map_err(|e| e.java_exception())))
                .collect(),
            // A failure of the whole call (no broker answered, a refused login) is every
            // partition's, as Kafka's admin client fails each partition's future with it; its
            // warning goes to stderr once.
            Err(e) => {
                super::net::message(&e);
                let error = e.java_exception();
                offsets
                    .keys()
                    .map(|tp| (tp.clone(), Err(error.clone())))
                    .collect()
            }
        },
    };
    if text_mode {
        writeln!(out, "{COMPLETED}")?;
    }
    let mut failed = 0usize;
    for (tp, result) in &results {
        failed += usize::from(result.is_err());
        match global.output {
            OutputFormat::Text => writeln!(
                out,
                "{}",
                partition_line(
                    &tp.to_string(),
                    result
                        .as_ref()
                        .map(|n| *n)
                        .map_err(|e| e as &dyn std::fmt::Display)
                )
            )?,
            OutputFormat::Json => match result {
                Ok(low_watermark) => write_event(
                    &mut out,
                    &DeleteRecordsEvent::LowWatermark {
                        topic: &tp.topic,
                        partition: tp.partition,
                        low_watermark: *low_watermark,
                    },
                )?,
                Err(e) => write_event(
                    &mut out,
                    &DeleteRecordsEvent::PartitionError {
                        topic: &tp.topic,
                        partition: tp.partition,
                        error: e.clone(),
                    },
                )?,
            },
        }
    }
    out.flush()?;
    if failed > 0 {
        return Err(Exit::failure(format!(
            "Could not delete records of {failed} of {} partitions",
            results.len()
        ))
        .into());
    }
    Ok(())
}
