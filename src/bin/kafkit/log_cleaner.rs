//! `kafkit log-cleaner`: one pass of a broker's log-retention scheduler over the data
//! directory, at this moment or at `--now` (`kafkit::datadir::cleaner`). Kafka has no such
//! script; a broker runs the same rules on its timers.

use std::io::{self, BufWriter, Write};

use anyhow::Result;
use clap::ValueHint;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};

use super::{progress, stderrln, Example, Exit, GlobalArgs};
use kafkit::datadir::cleaner::{self, CleanerOptions, PartitionReport};
use kafkit::datadir::{now_ms, DataDir, TopicFilter};
use kafkit::output::cleaner::{partition_events, CleanerEvent};
use kafkit::output::json::write_event;
use kafkit::output::OutputFormat;

/// Examples of `kafkit log-cleaner`, in its help and man page (`tests/man.rs` runs them, in
/// order, in an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "A topic that keeps records for an hour, and three records in it:",
        line: "kafkit topics --create --topic events --config retention.ms=3600000 && seq 1 3 | kafkit produce --topic events",
    },
    Example {
        what: "What a pass two hours from now would delete, and why:",
        line: "kafkit log-cleaner --dry-run --now +2h",
    },
    Example {
        what: "Run that pass on the topic:",
        line: "kafkit log-cleaner --topic events --now +2h",
    },
    Example {
        what: "A compacted topic: what a cleaning would keep of it, then the cleaning:",
        line: "kafkit topics --create --topic users --config cleanup.policy=compact --config segment.ms=1000 && kafkit log-cleaner --topic users --dry-run && kafkit log-cleaner --topic users",
    },
];

/// Delete old segments and compact logs as a broker's retention and log cleaner do, once, now.
///
/// A broker applies its topics' retention every log.retention.check.interval.ms; this runs
/// one such pass over the data directory (or the topics --topic matches) at the current time,
/// or at the time --now gives. Segments go oldest first, and only closed ones: when every
/// segment of a partition has expired, a new empty one is rolled first, as Kafka does. Deleted
/// segments are renamed .deleted and removed by a later pass once file.delete.delay.ms has
/// passed since (judged at the pass's time), or by the next writer that opens the partition;
/// log-start-offset-checkpoint and leader-epoch-checkpoint follow the new log start.
/// Compacted topics (cleanup.policy=compact) are cleaned as Kafka's log cleaner does when their
/// dirty ratio passes min.cleanable.dirty.ratio (or max.compaction.lag.ms has passed): the
/// latest record of each key is kept at its offset, records without a key go, tombstones get
/// a delete horizon (now + delete.retention.ms) and go at a cleaning after it, and
/// cleaner-offset-checkpoint moves; a kill at any moment leaves the log before or after the
/// cleaning. The records of aborted transactions go, and transaction markers once their
/// transactions have no data left and their delete horizon has passed; magic 0/1 message sets
/// are rewritten as v2 batches. Retention's log-start-offset rule applies to compacted topics
/// too (all three with compact,delete).
/// The pass shares the data directory's .lock with other kafkit writers (a producer appending
/// meanwhile waits for each partition's deletion) and refuses a directory a broker holds.
#[derive(Debug, Default, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// Only the topics this matches: a regular expression that must match whole names (`,`
    /// means `|`). Default: all topics.
    #[arg(long, value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topic: Option<String>,
    /// The time of the pass: milliseconds since the epoch, or the current time plus a duration
    /// (`+90s`, `+30m`, `+2h`, `+7d`, `+500ms`). Default: now.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub now: Option<String>,
    /// Print what the pass would delete and why, per segment (a table; JSON with --output
    /// json), and change nothing. Takes no lock.
    #[arg(long)]
    pub dry_run: bool,
    /// The broker's log.cleaner.dedupe.buffer.size: the memory of the key-to-offset map a
    /// cleaning builds (24 bytes a key, filled to 90%); once it is full the cleaning stops
    /// there and the rest waits for the next pass, as in Kafka.
    #[arg(long, value_name = "BYTES", default_value_t = kafkit::log::compaction::DEFAULT_DEDUPE_BUFFER_SIZE, value_hint = ValueHint::Other)]
    pub dedupe_buffer_size: usize,
}

/// `--now`: milliseconds, or `+N<unit>` after the clock.
pub(crate) fn parse_now(text: &str, clock_ms: i64) -> Result<i64> {
    let invalid = || {
        Exit::failure(format!(
            "Invalid --now {text}: expected milliseconds since the epoch or +N followed by ms, s, m, h or d"
        ))
    };
    let Some(ahead) = text.strip_prefix('+') else {
        return text.parse::<i64>().map_err(|_| invalid().into());
    };
    let digits = ahead.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit_ms: i64 = match ahead.get(digits.len()..).unwrap_or_default() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(invalid().into()),
    };
    let n: i64 = digits.parse().map_err(|_| invalid())?;
    n.checked_mul(unit_ms)
        .and_then(|ms| clock_ms.checked_add(ms))
        .ok_or_else(|| invalid().into())
}

/// `1 segment`, `2 segments`.
fn plural(n: u64, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A table row per segment that goes: the dry run's text.
fn dry_run_row(table: &mut Table, event: &CleanerEvent<'_>) {
    if let CleanerEvent::Segment {
        topic,
        partition,
        base_offset,
        next_offset,
        records,
        bytes,
        rule,
        reason,
        ..
    } = event
    {
        table.add_row(vec![
            Cell::new(format!("{topic}-{partition}")),
            Cell::new(base_offset).set_alignment(CellAlignment::Right),
            Cell::new(format!("{base_offset}..{next_offset}")),
            Cell::new(records).set_alignment(CellAlignment::Right),
            Cell::new(bytes).set_alignment(CellAlignment::Right),
            Cell::new(rule),
            Cell::new(reason),
        ]);
    }
}

/// The text of one event of a pass that changed files (and the dry run's lines that are not
/// table rows).
fn text_line(event: &CleanerEvent<'_>, dry_run: bool) -> Option<String> {
    Some(match event {
        CleanerEvent::Segment {
            topic,
            partition,
            base_offset,
            next_offset,
            records,
            bytes,
            rule,
            reason,
            ..
        } => format!(
            "Deleted segment {base_offset} of {topic}-{partition} (offsets {base_offset}..{next_offset}, {}, {bytes} bytes) by {rule}: {reason}",
            plural(*records, "record")
        ),
        CleanerEvent::Partition {
            topic,
            partition,
            log_start_offset,
            rolled,
            ..
        } => format!(
            "{topic}-{partition} now starts at offset {log_start_offset}{}",
            if *rolled {
                " (its active segment was rolled first)"
            } else {
                ""
            }
        ),
        CleanerEvent::RemovedFile { file, dry_run, .. } => format!(
            "{} {file} (file.delete.delay.ms has passed)",
            if *dry_run { "Would remove" } else { "Removed" }
        ),
        CleanerEvent::Compaction {
            topic,
            partition,
            cleaned: true,
            end_offset,
            records,
            superseded,
            without_key,
            tombstones_removed,
            tombstones_marked,
            aborted,
            markers_removed,
            ..
        } => format!(
            "Cleaned {topic}-{partition} up to offset {end_offset}: removed {} of {} ({superseded} superseded, {without_key} without a key, {tombstones_removed} tombstones past their delete horizon{}), {} given a delete horizon",
            superseded + without_key + tombstones_removed + aborted + markers_removed,
            plural(*records, "record"),
            transactional_counts(*aborted, *markers_removed),
            plural(*tombstones_marked, "tombstone"),
        ),
        CleanerEvent::Compaction {
            topic,
            partition,
            first_dirty_offset,
            dirty_ratio,
            why,
            ..
        } if !dry_run => format!(
            "{topic}-{partition}: dirty ratio {dirty_ratio:.3} from offset {first_dirty_offset}, not cleaned ({why})"
        ),
        CleanerEvent::Compaction {
            topic,
            partition,
            first_dirty_offset,
            dirty_ratio,
            cleanable,
            why,
            end_offset,
            records,
            superseded,
            without_key,
            tombstones_removed,
            tombstones_marked,
            aborted,
            markers_removed,
            ..
        } => format!(
            "{topic}-{partition}: dirty ratio {dirty_ratio:.3} from offset {first_dirty_offset}, {} ({why}); a cleaning to offset {end_offset} would remove {} of {} ({superseded} superseded, {without_key} without a key, {tombstones_removed} tombstones past their delete horizon{}) and give {} a delete horizon",
            if *cleanable { "cleanable" } else { "not cleanable" },
            superseded + without_key + tombstones_removed + aborted + markers_removed,
            plural(*records, "record"),
            transactional_counts(*aborted, *markers_removed),
            plural(*tombstones_marked, "tombstone"),
        ),
        CleanerEvent::Summary { .. } => return None,
    })
}

/// The records of aborted transactions and the markers a cleaning removes, when there are
/// any: `, 2 of aborted transactions, 1 transaction marker`.
fn transactional_counts(aborted: u64, markers_removed: u64) -> String {
    if aborted + markers_removed == 0 {
        return String::new();
    }
    format!(
        ", {aborted} of aborted transactions, {}",
        plural(markers_removed, "transaction marker")
    )
}

/// Runs `kafkit log-cleaner`.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let now = match &args.now {
        Some(text) => parse_now(text, now_ms())?,
        None => now_ms(),
    };
    let topic = args
        .topic
        .as_deref()
        .map(TopicFilter::new)
        .transpose()
        .map_err(|e| Exit::failure(e.to_string()))?;
    let datadir = DataDir::open(&global.data_dir)?;
    let topics = datadir.topics()?;
    if let Some(filter) = &topic {
        if !topics.iter().any(|t| filter.matches(&t.name)) {
            return Err(Exit::failure(format!(
                "Topic '{}' does not exist as expected",
                filter.raw()
            ))
            .into());
        }
    }
    let configs: std::collections::BTreeMap<String, _> = topics
        .iter()
        .map(|t| {
            let configs = cleaner::effective_configs(t);
            (t.name.clone(), cleaner::retention_config(&configs))
        })
        .collect();
    let options = CleanerOptions {
        topic,
        now_ms: now,
        dry_run: args.dry_run,
        dedupe_buffer_size: args.dedupe_buffer_size,
    };
    // A bar of the `.log` bytes gone through, for a long pass: many partitions or much data.
    let bar = if global.progress_wanted() {
        let (partitions, bytes) = cleaner::pass_log_bytes(&datadir, options.topic.as_ref())?;
        (partitions >= progress::CLEANER_MIN_PARTITIONS || bytes >= progress::DUMP_MIN_BYTES)
            .then(|| progress::bytes(bytes))
    } else {
        None
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(vec![
            "PARTITION",
            "SEGMENT",
            "OFFSETS",
            "RECORDS",
            "BYTES",
            "RULE",
            "WHY",
        ]);
    let mut notes: Vec<String> = Vec::new();
    let json = global.output == OutputFormat::Json;
    let mut report = |report: &PartitionReport| -> kafkit::datadir::Result<()> {
        let default = Default::default();
        let config = configs.get(&*report.tp.topic).unwrap_or(&default);
        let written: io::Result<()> = (|| {
            for event in partition_events(report, config, now, args.dry_run) {
                if json {
                    write_event(&mut out, &event)?;
                } else if args.dry_run {
                    dry_run_row(&mut table, &event);
                    if !matches!(
                        event,
                        CleanerEvent::Segment { .. } | CleanerEvent::Partition { .. }
                    ) {
                        notes.extend(text_line(&event, true));
                    }
                } else if let Some(line) = text_line(&event, false) {
                    writeln!(out, "{line}")?;
                }
            }
            Ok(())
        })();
        if let Some(bar) = &bar {
            bar.set_message(report.tp.to_string());
        }
        written.map_err(|source| kafkit::datadir::DataDirError::Io {
            path: "<stdout>".into(),
            source,
        })
    };
    let mut moved = |done: u64| {
        if let Some(bar) = &bar {
            bar.set_position(done);
        }
    };
    let summary = cleaner::run_pass(&datadir, &options, &mut report, &mut moved)?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let verb = if args.dry_run {
        "Would delete"
    } else {
        "Deleted"
    };
    if json {
        write_event(
            &mut out,
            &CleanerEvent::Summary {
                partitions: summary.partitions,
                segments: summary.segments,
                bytes: summary.bytes,
                records: summary.records,
                removed_files: summary.removed_files,
                cleaned: summary.cleaned,
                dry_run: args.dry_run,
            },
        )?;
    } else {
        if args.dry_run && summary.segments > 0 {
            writeln!(out, "{table}")?;
        }
        for note in &notes {
            writeln!(out, "{note}")?;
        }
        let cleaned = if summary.cleaned > 0 {
            format!(
                "; compacted {}",
                plural(summary.cleaned as u64, "partition")
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "{verb} {} ({} bytes, {}) of {}{cleaned}.",
            plural(summary.segments as u64, "segment"),
            summary.bytes,
            plural(summary.records, "record"),
            plural(summary.partitions as u64, "partition"),
        )?;
    }
    out.flush()?;
    if summary.partitions == 0 {
        stderrln!("No partition to clean in {}", global.data_dir.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_is_milliseconds_or_a_duration_ahead() {
        assert_eq!(parse_now("1700000000000", 5).unwrap(), 1_700_000_000_000);
        assert_eq!(parse_now("+2h", 5).unwrap(), 7_200_005);
        assert_eq!(parse_now("+500ms", 5).unwrap(), 505);
        assert_eq!(parse_now("+7d", 0).unwrap(), 604_800_000);
        assert!(parse_now("+2y", 0).is_err());
        assert!(parse_now("+h", 0).is_err());
        assert!(parse_now("soon", 0).is_err());
    }
}
