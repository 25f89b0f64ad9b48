//! `kafkit cluster replicate`, `stop-broker`, `start-broker` and `status`: replication in a
//! local cluster (`kafkit::cluster::replication`, `kafkit::cluster::brokers`).

use std::io::{self, BufWriter, Write};

use anyhow::Result;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};

use super::{Example, Exit, GlobalArgs};
use kafkit::cluster::brokers::{start_broker, status, stop_broker, BrokerChange, ClusterStatus};
use kafkit::cluster::replication::{replicate_at, ReplicationReport, Step};
use kafkit::datadir::{is_cluster_dir, now_ms};
use kafkit::output::cluster::{id_list, leader_text};
use kafkit::output::replication::{
    write_broker_change_events, write_replication_events, write_status_events,
};
use kafkit::output::OutputFormat;

/// Examples of `kafkit cluster replicate` (`tests/man.rs` runs each page's, in order, in an
/// empty directory).
pub const REPLICATE_EXAMPLES: &[Example] = &[
    Example {
        what: "A cluster of three brokers, a topic on all three, two records acknowledged by the leader alone:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic orders --replica-assignment 1:2:3 && seq 2 | kafkit --data-dir cluster produce --topic orders --acks 1",
    },
    Example {
        what: "The followers fetch them; the high watermark moves to 2:",
        line: "kafkit --data-dir cluster cluster replicate",
    },
];

/// Examples of `kafkit cluster stop-broker`.
pub const STOP_EXAMPLES: &[Example] = &[
    Example {
        what: "A cluster of three brokers with a topic led by broker 1:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic orders --replica-assignment 1:2:3",
    },
    Example {
        what: "Broker 1 stops: broker 2 leads, at leader epoch 1:",
        line: "kafkit --data-dir cluster cluster stop-broker 1",
    },
];

/// Examples of `kafkit cluster start-broker`.
pub const START_EXAMPLES: &[Example] = &[
    Example {
        what: "A cluster of three brokers whose broker 1 stopped with records its followers lacked:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic orders --replica-assignment 1:2:3 && seq 2 | kafkit --data-dir cluster produce --topic orders --acks 1 && kafkit --data-dir cluster cluster stop-broker 1",
    },
    Example {
        what: "It returns: it truncates them (the new leader never had them) and rejoins the ISR:",
        line: "kafkit --data-dir cluster cluster start-broker 1",
    },
];

/// Examples of `kafkit cluster status`.
pub const STATUS_EXAMPLES: &[Example] = &[
    Example {
        what: "A cluster of three brokers, a topic on all three, a record acknowledged by the leader alone:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic orders --replica-assignment 1:2:3 && echo a | kafkit --data-dir cluster produce --topic orders --acks 1",
    },
    Example {
        what: "Each replica's log end, and the high watermark consumers read up to, as JSON Lines:",
        line: "kafkit --data-dir cluster --output json cluster status",
    },
];

fn cluster_dir(global: &GlobalArgs) -> Result<()> {
    if is_cluster_dir(&global.data_dir) {
        return Ok(());
    }
    Err(Exit::failure(format!(
        "Error: {} is not a cluster's directory (make one with `kafkit --data-dir {} cluster init --brokers 3`)",
        global.data_dir.display(),
        global.data_dir.display()
    ))
    .into())
}

fn failure(e: impl std::fmt::Display) -> anyhow::Error {
    Exit::failure(format!("Error: {e}")).into()
}

/// `cluster replicate`: one replication step.
pub fn run_replicate(args: &super::cluster::ReplicateArgs, global: &GlobalArgs) -> Result<()> {
    cluster_dir(global)?;
    let wanted = (!args.topics.is_empty()).then_some(args.topics.as_slice());
    let now = match &args.now {
        Some(text) => super::log_cleaner::parse_now(text, now_ms())?,
        None => now_ms(),
    };
    let step = Step {
        fetch: true,
        now,
        stuck: args.stuck.clone(),
    };
    let report = replicate_at(&global.data_dir, wanted, &step).map_err(failure)?;
    let mut out = BufWriter::new(io::stdout().lock());
    match global.output {
        OutputFormat::Text => write_replication_text(&mut out, &report)?,
        OutputFormat::Json => write_replication_events(&mut out, &report)?,
    }
    out.flush()?;
    Ok(())
}

/// `cluster stop-broker ID` and `cluster start-broker ID`.
pub fn run_stop_start(id: i32, start: bool, global: &GlobalArgs) -> Result<()> {
    cluster_dir(global)?;
    let change = if start {
        start_broker(&global.data_dir, id)
    } else {
        stop_broker(&global.data_dir, id)
    }
    .map_err(failure)?;
    let mut out = BufWriter::new(io::stdout().lock());
    match global.output {
        OutputFormat::Text => write_change_text(&mut out, &change, start)?,
        OutputFormat::Json => write_broker_change_events(&mut out, &change)?,
    }
    out.flush()?;
    Ok(())
}

/// `cluster status`.
pub fn run_status(global: &GlobalArgs) -> Result<()> {
    cluster_dir(global)?;
    let s = status(&global.data_dir).map_err(failure)?;
    let mut out = BufWriter::new(io::stdout().lock());
    match global.output {
        OutputFormat::Text => write_status_text(&mut out, &s)?,
        OutputFormat::Json => write_status_events(&mut out, &s)?,
    }
    out.flush()?;
    Ok(())
}

fn table(header: Vec<&str>) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_header(header);
    t
}

fn right(v: impl ToString) -> Cell {
    Cell::new(v.to_string()).set_alignment(CellAlignment::Right)
}

fn write_replication_text(out: &mut impl Write, r: &ReplicationReport) -> io::Result<()> {
    if r.followers.is_empty() {
        return writeln!(out, "No follower to replicate to.");
    }
    let mut t = table(vec![
        "TOPIC",
        "PARTITION",
        "FOLLOWER",
        "TRUNCATED TO",
        "FETCHED",
        "LOG END",
        "HIGH WATERMARK",
        "JOINED ISR",
    ]);
    for f in &r.followers {
        let hw = r
            .high_watermarks
            .get(&f.topic)
            .and_then(|p| p.get(&f.partition))
            .map_or_else(|| "-".to_string(), i64::to_string);
        t.add_row(vec![
            Cell::new(&f.topic),
            right(f.partition),
            right(f.broker),
            right(
                f.truncated_to
                    .map_or_else(|| "-".to_string(), |o| o.to_string()),
            ),
            right(f.fetched),
            right(f.log_end_offset),
            right(hw),
            Cell::new(if f.joined_isr { "yes" } else { "-" }),
        ]);
    }
    writeln!(out, "{t}")?;
    for f in r.followers.iter().filter(|f| f.left_isr) {
        writeln!(
            out,
            "Broker {} left the ISR of {}-{}: not caught up to the leader's log end for more than replica.lag.time.max.ms.",
            f.broker, f.topic, f.partition
        )?;
    }
    Ok(())
}

fn write_change_text(out: &mut impl Write, c: &BrokerChange, start: bool) -> io::Result<()> {
    writeln!(
        out,
        "Broker {} {}.",
        c.broker,
        if start { "started" } else { "stopped" }
    )?;
    if !c.partitions.is_empty() {
        let mut t = table(vec![
            "TOPIC",
            "PARTITION",
            "LEADER",
            "NEW LEADER",
            "LEADER EPOCH",
            "ISR",
        ]);
        for p in &c.partitions {
            let mut new_leader = leader_text(p.leader_after);
            if p.unclean {
                new_leader.push_str(" (unclean)");
            }
            t.add_row(vec![
                Cell::new(&p.topic),
                right(p.partition),
                Cell::new(leader_text(p.leader_before)),
                Cell::new(new_leader),
                right(p.leader_epoch),
                Cell::new(id_list(&p.isr)),
            ]);
        }
        writeln!(out, "{t}")?;
    }
    if let Some(r) = &c.replication {
        if !r.followers.is_empty() {
            write_replication_text(out, r)?;
        }
    }
    Ok(())
}

fn write_status_text(out: &mut impl Write, s: &ClusterStatus) -> io::Result<()> {
    let mut brokers = table(vec!["BROKER", "STATE", "RACK"]);
    for b in &s.brokers {
        brokers.add_row(vec![
            right(b.id),
            Cell::new(if b.up { "up" } else { "down" }),
            Cell::new(b.rack.as_deref().unwrap_or("-")),
        ]);
    }
    writeln!(out, "{brokers}")?;
    if s.partitions.is_empty() {
        return Ok(());
    }
    let mut t = table(vec![
        "TOPIC",
        "PARTITION",
        "LEADER",
        "EPOCH",
        "ISR",
        "HIGH WATERMARK",
        "LOG END (BROKER:OFFSET)",
    ]);
    for p in &s.partitions {
        let ends: Vec<String> = p
            .replicas
            .iter()
            .map(|r| format!("{}:{}", r.broker, r.log_end_offset))
            .collect();
        t.add_row(vec![
            Cell::new(&p.topic),
            right(p.partition),
            Cell::new(leader_text(p.leader)),
            right(p.leader_epoch),
            Cell::new(id_list(&p.isr)),
            right(if p.high_watermark < 0 {
                "-".to_string()
            } else {
                p.high_watermark.to_string()
            }),
            Cell::new(ends.join(" ")),
        ]);
    }
    writeln!(out, "{t}")
}
