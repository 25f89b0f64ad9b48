//! `kafkit consumer-groups` output: Kafka's `kafka-consumer-groups.sh` text
//! (`kafka-cli-surface.md` §6.2: columns, widths, order, messages) and its JSON Lines events.
//!
//! Kafka's tool prints with Java format strings (`%-Ns`, padding counted in UTF-16 units), each
//! block starting with an empty line. Notices about a group's state go where Kafka sends them:
//! "does not exist" on stdout (as `Error: ...`), "has no active members" and "is rebalancing"
//! on stderr.

use std::io::{self, Write};

use serde::Serialize;

use super::json::write_event;
use super::OutputFormat;
use crate::group::describe::{Coordinator, MemberAssignment, OffsetRow};
use crate::group::{Group, GroupState, MemberMetadata};

/// One JSON Lines object of `kafkit consumer-groups --output json` (`docs/json.md`,
/// "consumer-groups").
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GroupEvent<'a> {
    /// `--list`: one per group.
    Group {
        /// The group id.
        group: &'a str,
        /// `Classic` or `Consumer`.
        group_type: &'static str,
        /// Kafka's state name.
        state: &'static str,
        /// `consumer`, or empty for a group with only committed offsets.
        protocol_type: &'a str,
    },
    /// `--describe --offsets`: one per row.
    Offset {
        /// The group id.
        group: &'a str,
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The committed offset.
        current_offset: Option<i64>,
        /// The partition's log end.
        log_end_offset: Option<i64>,
        /// `log_end_offset - current_offset`.
        lag: Option<i64>,
        /// The owning member.
        consumer_id: Option<&'a str>,
        /// Its host.
        host: Option<&'a str>,
        /// Its client id.
        client_id: Option<&'a str>,
        /// The committed leader epoch.
        leader_epoch: Option<i32>,
        /// The committed metadata.
        metadata: Option<&'a str>,
        /// When the offset was committed.
        commit_timestamp: Option<i64>,
    },
    /// `--describe --members`: one per member.
    Member {
        /// The group id.
        group: &'a str,
        /// The member id.
        consumer_id: &'a str,
        /// `group.instance.id` of a static member.
        group_instance_id: Option<&'a str>,
        /// The host.
        host: &'a str,
        /// The client id.
        client_id: &'a str,
        /// How many partitions it is assigned.
        partitions: usize,
        /// Its partitions as `[topic, partition]`.
        assignment: Vec<(&'a str, i32)>,
        /// `session.timeout.ms`.
        session_timeout_ms: i32,
        /// `max.poll.interval.ms`.
        rebalance_timeout_ms: i32,
    },
    /// `--describe --state`: one per group.
    State {
        /// The group id.
        group: &'a str,
        /// The coordinator: `{"id", "host", "port"}`.
        coordinator: &'a Coordinator,
        /// The assignor, when the group has members.
        assignment_strategy: Option<&'a str>,
        /// Kafka's state name.
        state: &'static str,
        /// The member count.
        members: usize,
        /// The protocol type.
        protocol_type: &'a str,
        /// The generation.
        generation: i32,
        /// The leader's member id.
        leader: Option<&'a str>,
    },
    /// A group `--describe` was asked about that does not exist.
    NotFound {
        /// The group id.
        group: &'a str,
        /// Kafka's text.
        message: String,
    },
}

/// One JSON Lines object of `kafkit consumer-groups --reset-offsets`, `--delete` and
/// `--delete-offsets` with `--output json` (`docs/json.md`, "consumer-groups writes").
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GroupWriteEvent<'a> {
    /// `--reset-offsets`: one per partition, by group, topic and partition.
    ResetOffset {
        /// The group id.
        group: &'a str,
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The offset it is reset to.
        new_offset: i64,
        /// Whether it was committed (`--execute`) or only planned (`--dry-run`).
        executed: bool,
    },
    /// `--reset-offsets` of a group that is not inactive: nothing is reset.
    ResetRefused {
        /// The group id.
        group: &'a str,
        /// Its state (Kafka's name).
        state: &'a str,
        /// Kafka's text.
        message: String,
    },
    /// `--delete`: one per group deleted.
    GroupDeleted {
        /// The group id.
        group: &'a str,
    },
    /// `--delete`: one per group not deleted.
    GroupNotDeleted {
        /// The group id.
        group: &'a str,
        /// Kafka's error name (`NON_EMPTY_GROUP`, `GROUP_ID_NOT_FOUND`).
        error: &'static str,
        /// Kafka's message.
        message: &'static str,
    },
    /// `--delete-offsets`: one per partition, in the table's order.
    OffsetDeleted {
        /// The group id.
        group: &'a str,
        /// The topic.
        topic: &'a str,
        /// The partition (`null`: a topic the data directory does not have, Kafka's "Not
        /// Provided").
        partition: Option<i32>,
        /// `null` when deleted, else Kafka's error name.
        error: Option<&'static str>,
        /// `null` when deleted, else Kafka's message.
        message: Option<&'static str>,
    },
}

/// `--reset-offsets`' table (Kafka 4.0's `printOffsetsToReset`, `%n%-30s %-30s %-10s %-15s`,
/// padded to the last column): the header when some group was asked about, a row per
/// partition, a final newline. Groups come in id order and rows by topic and partition (Kafka's
/// are in hash-map order).
pub fn write_reset(
    out: &mut impl Write,
    resets: &[(
        &str,
        &std::collections::BTreeMap<crate::datadir::TopicPartition, i64>,
    )],
    executed: bool,
    format: OutputFormat,
) -> io::Result<()> {
    if format == OutputFormat::Json {
        for (group, offsets) in resets {
            for (tp, offset) in offsets.iter() {
                write_event(
                    out,
                    &GroupWriteEvent::ResetOffset {
                        group,
                        topic: &tp.topic,
                        partition: tp.partition,
                        new_offset: *offset,
                        executed,
                    },
                )?;
            }
        }
        return Ok(());
    }
    let mut line = |cells: [&str; 4]| -> io::Result<()> {
        out.write_all(b"\n")?;
        for (i, (cell, w)) in cells.iter().zip([30, 30, 10, 15]).enumerate() {
            if i > 0 {
                out.write_all(b" ")?;
            }
            pad(out, cell, w)?;
        }
        Ok(())
    };
    if !resets.is_empty() {
        line(["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"])?;
    }
    for (group, offsets) in resets {
        for (tp, offset) in offsets.iter() {
            line([
                group,
                &tp.topic,
                &tp.partition.to_string(),
                &offset.to_string(),
            ])?;
        }
    }
    out.write_all(b"\n")
}

/// `--delete-offsets`' table (`%n%-30s %-15s %-15s`): `TOPIC PARTITION STATUS`, rows sorted by
/// the text of topic and partition run together, as Kafka sorts them; a partition `None` is a
/// topic the data directory does not have (`Not Provided`).
pub fn write_offset_deletions(
    out: &mut impl Write,
    group: &str,
    rows: &[(
        crate::datadir::TopicPartition,
        Option<i32>,
        Option<crate::group::admin::AdminError>,
    )],
    format: OutputFormat,
) -> io::Result<()> {
    let mut rows: Vec<_> = rows.iter().collect();
    rows.sort_by_key(|(tp, p, _)| {
        format!(
            "{}{}",
            tp.topic,
            p.map_or_else(|| "-1".to_string(), |p| p.to_string())
        )
    });
    if format == OutputFormat::Json {
        for (tp, partition, error) in rows {
            write_event(
                out,
                &GroupWriteEvent::OffsetDeleted {
                    group,
                    topic: &tp.topic,
                    partition: *partition,
                    error: error.map(|e| e.name()),
                    message: error.map(|e| e.message()),
                },
            )?;
        }
        return Ok(());
    }
    let mut line = |[topic, partition, status]: [&str; 3]| -> io::Result<()> {
        out.write_all(b"\n")?;
        pad(out, topic, 30)?;
        out.write_all(b" ")?;
        pad(out, partition, 15)?;
        out.write_all(b" ")?;
        pad(out, status, 15)
    };
    line(["TOPIC", "PARTITION", "STATUS"])?;
    for (tp, partition, error) in rows {
        let partition = partition.map_or_else(|| "Not Provided".to_string(), |p| p.to_string());
        let status = error.map_or_else(|| "Successful".to_string(), |e| format!("Error: :{e}"));
        line([&tp.topic, &partition, &status])?;
    }
    out.write_all(b"\n")
}

/// Writes `s` left-justified in `width` columns (Java's `%-Ns`, which counts UTF-16 units).
fn pad(out: &mut impl Write, s: &str, width: usize) -> io::Result<()> {
    const SPACES: &[u8; 64] = &[b' '; 64];
    out.write_all(s.as_bytes())?;
    let mut missing = width.saturating_sub(java_len(s));
    while missing > 0 {
        let n = missing.min(SPACES.len());
        out.write_all(SPACES.get(..n).unwrap_or_default())?;
        missing -= n;
    }
    Ok(())
}

/// Java's `String.length()`.
fn java_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// `max(floor, the longest of values)`, in Java's lengths.
fn width<'a>(floor: usize, values: impl IntoIterator<Item = &'a str>) -> usize {
    values.into_iter().map(java_len).fold(floor, usize::max)
}

/// Writes a row of columns, `%-Ws` each, one space between, the last unpadded.
fn row<'a>(
    out: &mut impl Write,
    cells: impl IntoIterator<Item = (&'a str, usize)>,
    last: &str,
) -> io::Result<()> {
    for (cell, w) in cells {
        pad(out, cell, w)?;
        out.write_all(b" ")?;
    }
    out.write_all(last.as_bytes())
}

const MISSING: &str = "-";

/// A number's text, or `-` for none, in a buffer kept from row to row.
#[derive(Default)]
struct Number(String);

impl Number {
    fn of(&mut self, n: Option<i64>) -> &str {
        use std::fmt::Write as _;
        self.0.clear();
        match n {
            Some(n) => {
                let _ = write!(self.0, "{n}");
            }
            None => self.0.push_str(MISSING),
        }
        &self.0
    }
}

/// Kafka's `shouldPrintMemberState`: the notice for a group's state (a missing group: `Error:
/// ... does not exist.` on stdout; Empty and rebalancing groups on `diag`), and whether its
/// rows are printed (it exists and has some).
fn state_notice(
    out: &mut impl Write,
    diag: &mut dyn Write,
    id: &str,
    group: Option<&Group>,
    rows: usize,
    format: OutputFormat,
) -> io::Result<bool> {
    let Some(group) = group else {
        let message = format!("Consumer group '{id}' does not exist.");
        match format {
            OutputFormat::Text => writeln!(out, "\nError: {message}")?,
            OutputFormat::Json => write_event(out, &GroupEvent::NotFound { group: id, message })?,
        }
        return Ok(false);
    };
    match group.state {
        GroupState::Empty => {
            out.flush()?;
            writeln!(diag, "\nConsumer group '{id}' has no active members.")?;
        }
        GroupState::PreparingRebalance
        | GroupState::CompletingRebalance
        | GroupState::Assigning
        | GroupState::Reconciling => {
            out.flush()?;
            writeln!(diag, "\nWarning: Consumer group '{id}' is rebalancing.")?;
        }
        GroupState::Stable | GroupState::Dead | GroupState::Unknown => {}
    }
    Ok(rows > 0)
}

/// `--list`: the groups' ids one a line, or with `--type`/`--state` a table of `GROUP`
/// (`max(15, longest id) + 10` wide) and the `TYPE`/`STATE` columns (`%-20s`).
pub fn write_list(
    out: &mut impl Write,
    groups: &[&Group],
    with_type: bool,
    with_state: bool,
    format: OutputFormat,
) -> io::Result<()> {
    if format == OutputFormat::Json {
        for g in groups {
            write_event(
                out,
                &GroupEvent::Group {
                    group: &g.id,
                    group_type: g.group_type.name(),
                    state: g.state.name(),
                    protocol_type: &g.protocol_type,
                },
            )?;
        }
        return Ok(());
    }
    if !with_type && !with_state {
        for g in groups {
            writeln!(out, "{}", g.id)?;
        }
        return Ok(());
    }
    let group_width = width(15, groups.iter().map(|g| g.id.as_str())) + 10;
    let mut line = |id: &str, kind: &str, state: &str| -> io::Result<()> {
        pad(out, id, group_width)?;
        if with_type {
            out.write_all(b" ")?;
            pad(out, kind, 20)?;
        }
        if with_state {
            out.write_all(b" ")?;
            pad(out, state, 20)?;
        }
        out.write_all(b"\n")
    };
    line("GROUP", "TYPE", "STATE")?;
    for g in groups {
        line(&g.id, g.group_type.name(), g.state.name())?;
    }
    Ok(())
}

/// `--describe --offsets` of group `id` (`None`: it does not exist).
pub fn write_offsets(
    out: &mut impl Write,
    diag: &mut dyn Write,
    id: &str,
    group: Option<&Group>,
    rows: &[OffsetRow<'_>],
    format: OutputFormat,
) -> io::Result<()> {
    if !state_notice(out, diag, id, group, rows.len(), format)? {
        return Ok(());
    }
    fn member<'a>(r: &OffsetRow<'a>, f: fn(&'a MemberMetadata) -> &'a str) -> Option<&'a str> {
        r.member.map(f)
    }
    if format == OutputFormat::Json {
        for r in rows {
            write_event(
                out,
                &GroupEvent::Offset {
                    group: id,
                    topic: &r.partition.topic,
                    partition: r.partition.partition,
                    current_offset: r.committed.map(|c| c.offset),
                    log_end_offset: r.log_end_offset,
                    lag: r.lag(),
                    consumer_id: member(r, |m| &m.member_id),
                    host: member(r, |m| &m.client_host),
                    client_id: member(r, |m| &m.client_id),
                    leader_epoch: r.committed.and_then(|c| c.leader_epoch),
                    metadata: r.committed.map(|c| c.metadata.as_str()),
                    commit_timestamp: r.committed.map(|c| c.commit_timestamp),
                },
            )?;
        }
        return Ok(());
    }
    // The numbers' columns have fixed widths, so rows are written as they are formatted.
    fn member_or_missing<'a>(r: &OffsetRow<'a>, f: fn(&'a MemberMetadata) -> &'a str) -> &'a str {
        member(r, f).unwrap_or(MISSING)
    }
    let widths = [
        width(15, rows.iter().map(|_| id)),
        width(15, rows.iter().map(|r| &*r.partition.topic)),
        10,
        15,
        15,
        15,
        width(
            15,
            rows.iter().map(|r| member_or_missing(r, |m| &m.member_id)),
        ),
        width(
            15,
            rows.iter()
                .map(|r| member_or_missing(r, |m| &m.client_host)),
        ),
    ];
    out.write_all(b"\n")?;
    row(
        out,
        [
            "GROUP",
            "TOPIC",
            "PARTITION",
            "CURRENT-OFFSET",
            "LOG-END-OFFSET",
            "LAG",
            "CONSUMER-ID",
            "HOST",
        ]
        .into_iter()
        .zip(widths),
        "CLIENT-ID",
    )?;
    let mut numbers = [
        Number::default(),
        Number::default(),
        Number::default(),
        Number::default(),
    ];
    for r in rows {
        let [partition, current, end, lag] = &mut numbers;
        let cells = [
            id,
            &r.partition.topic,
            partition.of(Some(i64::from(r.partition.partition))),
            current.of(r.committed.map(|c| c.offset)),
            end.of(r.log_end_offset),
            lag.of(r.lag()),
            member_or_missing(r, |m| &m.member_id),
            member_or_missing(r, |m| &m.client_host),
        ];
        out.write_all(b"\n")?;
        row(
            out,
            cells.into_iter().zip(widths),
            member_or_missing(r, |m| &m.client_id),
        )?;
    }
    out.write_all(b"\n")
}

/// Kafka's (≤3.6, Scala) form of a member's assignment: `topic(0,1), other(2)`, partitions in
/// number order, topics sorted as strings; `-` when empty.
fn assignment_text(partitions: &[crate::datadir::TopicPartition]) -> String {
    if partitions.is_empty() {
        return MISSING.to_string();
    }
    let mut by_topic: std::collections::BTreeMap<&str, Vec<i32>> = Default::default();
    for tp in partitions {
        by_topic.entry(&tp.topic).or_default().push(tp.partition);
    }
    let mut entries: Vec<String> = by_topic
        .into_iter()
        .map(|(topic, mut ps)| {
            ps.sort_unstable();
            let list: Vec<String> = ps.iter().map(i32::to_string).collect();
            format!("{topic}({})", list.join(","))
        })
        .collect();
    entries.sort();
    entries.join(", ")
}

/// `--describe --members [--verbose]` of group `id` (`None`: it does not exist). As in Kafka,
/// the header is printed whatever the group's state.
pub fn write_members(
    out: &mut impl Write,
    diag: &mut dyn Write,
    id: &str,
    group: Option<&Group>,
    members: &[MemberAssignment<'_>],
    verbose: bool,
    format: OutputFormat,
) -> io::Result<()> {
    let show = state_notice(out, diag, id, group, members.len(), format)?;
    if format == OutputFormat::Json {
        for m in members.iter().filter(|_| show) {
            let meta = m.member;
            write_event(
                out,
                &GroupEvent::Member {
                    group: id,
                    consumer_id: &meta.member_id,
                    group_instance_id: meta.group_instance_id.as_deref(),
                    host: &meta.client_host,
                    client_id: &meta.client_id,
                    partitions: m.partitions.len(),
                    assignment: m
                        .partitions
                        .iter()
                        .map(|tp| (&*tp.topic, tp.partition))
                        .collect(),
                    session_timeout_ms: meta.session_timeout,
                    rebalance_timeout_ms: meta.rebalance_timeout,
                },
            )?;
        }
        return Ok(());
    }
    let shown: &[MemberAssignment<'_>] = if show { members } else { &[] };
    fn instance<'a>(m: &MemberAssignment<'a>) -> &'a str {
        m.member.group_instance_id.as_deref().unwrap_or("")
    }
    let with_instance = shown.iter().any(|m| !instance(m).is_empty());
    let group_w = width(15, shown.iter().map(|_| id));
    let id_w = width(15, shown.iter().map(|m| m.member.member_id.as_str()));
    let instance_w = width(17, shown.iter().map(instance));
    let host_w = width(15, shown.iter().map(|m| m.member.client_host.as_str()));
    let client_w = width(15, shown.iter().map(|m| m.member.client_id.as_str()));
    let mut line = |cells: [&str; 6], tail: &str| -> io::Result<()> {
        let [group, member, inst, host, client, count] = cells;
        let mut padded = vec![(group, group_w), (member, id_w)];
        if with_instance {
            padded.push((inst, instance_w));
        }
        padded.extend([(host, host_w), (client, client_w), (count, 15)]);
        out.write_all(b"\n")?;
        row(out, padded, tail)
    };
    line(
        [
            "GROUP",
            "CONSUMER-ID",
            "GROUP-INSTANCE-ID",
            "HOST",
            "CLIENT-ID",
            "#PARTITIONS",
        ],
        if verbose { "ASSIGNMENT" } else { "" },
    )?;
    for m in shown {
        let count = m.partitions.len().to_string();
        let tail = if verbose {
            assignment_text(&m.partitions)
        } else {
            String::new()
        };
        line(
            [
                id,
                &m.member.member_id,
                instance(m),
                &m.member.client_host,
                &m.member.client_id,
                &count,
            ],
            &tail,
        )?;
    }
    out.write_all(b"\n")
}

/// `--describe --state` of group `id` (`None`: it does not exist): Kafka 4.0's
/// `\n%-Ks %-25s %-20s %-15s %s` with K = max(25, the coordinator's length) for the GROUP
/// column too (a quirk Kafka kept from its Scala tool).
pub fn write_state(
    out: &mut impl Write,
    diag: &mut dyn Write,
    id: &str,
    group: Option<&Group>,
    coordinator: &Coordinator,
    format: OutputFormat,
) -> io::Result<()> {
    if !state_notice(out, diag, id, group, 1, format)? {
        return Ok(());
    }
    let Some(group) = group else { return Ok(()) };
    let strategy = group.protocol.as_deref().filter(|p| !p.is_empty());
    if format == OutputFormat::Json {
        return write_event(
            out,
            &GroupEvent::State {
                group: id,
                coordinator,
                assignment_strategy: strategy,
                state: group.state.name(),
                members: group.members.len(),
                protocol_type: &group.protocol_type,
                generation: group.generation,
                leader: group.leader.as_deref(),
            },
        );
    }
    let coordinator = coordinator.to_string();
    let k = width(25, [coordinator.as_str()]);
    let members = group.members.len().to_string();
    for (cells, last) in [
        (
            [
                ("GROUP", k),
                ("COORDINATOR (ID)", 25),
                ("ASSIGNMENT-STRATEGY", 20),
                ("STATE", 15),
            ],
            "#MEMBERS",
        ),
        (
            [
                (id, k),
                (coordinator.as_str(), 25),
                (strategy.unwrap_or(MISSING), 20),
                (group.state.name(), 15),
            ],
            members.as_str(),
        ),
    ] {
        out.write_all(b"\n")?;
        row(out, cells, last)?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_counts_utf16_units_as_java_does() {
        let mut out = Vec::new();
        pad(&mut out, "é😀", 5).unwrap();
        // é is one unit, 😀 two: two spaces make five.
        assert_eq!(String::from_utf8(out).unwrap(), "é😀  ");
    }

    #[test]
    fn scala_assignment_text() {
        use crate::datadir::TopicPartition as Tp;
        let parts = [
            Tp::new("b", 10),
            Tp::new("a", 2),
            Tp::new("b", 9),
            Tp::new("a", 0),
        ];
        assert_eq!(assignment_text(&parts), "a(0,2), b(9,10)");
        assert_eq!(assignment_text(&[]), "-");
    }
}
