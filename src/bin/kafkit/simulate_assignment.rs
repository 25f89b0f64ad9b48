//! `kafkit simulate-assignment`: Kafka's consumer-group assignors over scripted rebalances.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::ValueHint;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};
use serde_json::Value;

use crate::values::Suggest;
use crate::{Example, Exit, GlobalArgs};
use kafkit::assign::limits::{
    self, RoundSize, VectorRoundSize, MAX_SCENARIO_BYTES, MAX_VECTOR_BYTES,
};
use kafkit::assign::scenario::{self, Event, Scenario, ScenarioMember, ScenarioTopic};
use kafkit::assign::simulate::{self, RoundReport, Simulation, DEFAULT_OFFSETS_TOPIC_PARTITIONS};
use kafkit::assign::{vectors, Strategy};
use kafkit::common::{TopicPartition, Uuid};
use kafkit::datadir::{file_kind, DataDir, DataDirError};
use kafkit::output::json::write_event;
use kafkit::output::simulate::SimulateEvent;
use kafkit::output::OutputFormat;

/// Examples of `kafkit simulate-assignment`, in its help and man page (`tests/man.rs` runs them, in order, in
/// an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Three consumers share a topic of ten partitions (range, Kafka's default):",
        line: "kafkit simulate-assignment --topic orders:10 --members c0,c1,c2",
    },
    Example {
        what: "A consumer joins, then one crashes, under the cooperative sticky assignor:",
        line: "kafkit simulate-assignment --strategy cooperative-sticky --topic orders:6 --members c1,c2,c3 --then \"join c4\" --then \"crash c1\"",
    },
    Example {
        what: "Four assignors side by side over the same rebalance:",
        line: "kafkit simulate-assignment --compare range,sticky,cooperative-sticky,uniform --topic t0:2 --topic t1:2 --members c0,c1,c2 --then \"leave c1\"",
    },
    Example {
        what: "A scenario file (docs/simulate-assignment.md), with the protocol of each round:",
        line: "echo '{\"topics\": [\"orders:6\"], \"members\": [\"c1\", \"c2\"], \"events\": [\"join c3\"]}' > group.json && kafkit simulate-assignment --scenario group.json --explain",
    },
];

/// Arguments of `simulate-assignment`.
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Limits (so that memory stays bounded, under 250 MiB at the limits; larger input exits with 1):
  a topic has 1 to 2147483647 partitions (Kafka's partition ids are int32);
  members x partitions (of all topics) in any round: at most 10000000;
  partitions + members summed over all rounds and strategies: at most 100000;
  rounds (the initial join, then one per event) x strategies: at most 10000;
  a --scenario file: at most 1048576 bytes (1 MiB).
An assignor vector file is replayed and printed one round at a time:
  the file: at most 67108864 bytes (64 MiB);
  a round where every member subscribes to the same topics and none has a rack, under sticky,
  cooperative-sticky or uniform (work grows with partitions + members): at most 2097152 partitions;
  any other round: members x partitions at most 10000000;
  partitions summed over the file's rounds: at most 10000000."
)]
pub struct Args {
    /// The assignment strategy: range, roundrobin, sticky, cooperative-sticky (classic protocol,
    /// client side), uniform, server-range (new consumer protocol, server side), or a Kafka class
    /// name such as org.apache.kafka.clients.consumer.CooperativeStickyAssignor.
    #[arg(long, value_name = "STRATEGY", value_parser = Suggest::new(Strategy::ALL.map(Strategy::name)), hide_possible_values = true)]
    pub strategy: Option<String>,
    /// A topic, as NAME:PARTITIONS; a bare NAME takes its partition count from --data-dir.
    #[arg(long = "topic", value_name = "TOPIC[:N]", value_hint = ValueHint::Other)]
    pub topics: Vec<String>,
    /// Members subscribed to every topic, comma-separated, in join order.
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',', value_hint = ValueHint::Other)]
    pub members: Vec<String>,
    /// A member with its own subscription, as ID=TOPIC,TOPIC (repeatable; joins after --members).
    #[arg(long = "member", value_name = "ID=TOPICS", value_hint = ValueHint::Other)]
    pub member: Vec<String>,
    /// A member's rack (client.rack), as ID=RACK (repeatable).
    #[arg(long = "rack", value_name = "ID=RACK", value_hint = ValueHint::Other)]
    pub racks: Vec<String>,
    /// A member's group.instance.id (static membership), as ID=INSTANCE (repeatable).
    #[arg(long = "instance-id", value_name = "ID=INSTANCE", value_hint = ValueHint::Other)]
    pub instance_ids: Vec<String>,
    /// A rebalance event, in order (repeatable): "join c4", "join c5=orders rack=b", "leave c2",
    /// "crash c1", "add-partitions orders:12", "create-topic audit:3", "subscribe c3=orders",
    /// "delete-topic payments".
    #[arg(long = "then", value_name = "EVENT", value_hint = ValueHint::Other)]
    pub then: Vec<String>,
    /// A scenario file (JSON, see docs/simulate-assignment.md), or an assignor test vector
    /// (spec/vectors/assignors schema), which is replayed round by round.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub scenario: Option<PathBuf>,
    /// Run the same script under several strategies and compare them side by side.
    #[arg(long, value_name = "S1,S2,...", value_delimiter = ',', value_parser = Suggest::new(Strategy::ALL.map(Strategy::name)), hide_possible_values = true)]
    pub compare: Vec<String>,
    /// Show the protocol trace of each round: coordinator, JoinGroup, leader, protocol,
    /// SyncGroup (classic) or target assignment and reconciliation (new protocol).
    #[arg(long)]
    pub explain: bool,
    /// The group id (it decides the coordinator).
    #[arg(long, value_name = "GROUP", value_hint = ValueHint::Other)]
    pub group: Option<String>,
    /// offsets.topic.num.partitions: the partition count of __consumer_offsets.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_OFFSETS_TOPIC_PARTITIONS, value_hint = ValueHint::Other)]
    pub offsets_topic_partitions: u32,
}

fn fail(message: impl Into<String>) -> anyhow::Error {
    Exit {
        message: format!("simulate-assignment: {}", message.into()),
        code: 1,
    }
    .into()
}

fn parse_strategy(s: &str) -> Result<Strategy> {
    Strategy::parse(s).ok_or_else(|| {
        fail(format!(
            "unknown strategy {s:?} (expected range, roundrobin, sticky, cooperative-sticky, uniform, server-range, or a Kafka assignor class name)"
        ))
    })
}

/// Reads a `--scenario` file, at most [`MAX_VECTOR_BYTES`] (what an assignor vector file may
/// hold; a scenario file is held to [`MAX_SCENARIO_BYTES`] once its kind is known): reading
/// stops there, so a device such as `/dev/zero` ends at once, with an error. Returns the text
/// and what the file is (for the message when a scenario is too large).
fn read_scenario(path: &Path) -> Result<(String, String)> {
    let cannot = |e: io::Error| fail(format!("cannot read scenario file {}: {e}", path.display()));
    let file = File::open(path).map_err(cannot)?;
    let kind = file.metadata().map_err(cannot)?.file_type();
    let what = if kind.is_file() {
        String::new()
    } else {
        format!(" ({}, not a regular file)", file_kind(&kind))
    };
    // Sized from the metadata (a guess: a device says 0), so a large file is not copied as the
    // buffer grows.
    let size = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(MAX_VECTOR_BYTES + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(MAX_VECTOR_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_VECTOR_BYTES {
        return Err(fail(format!(
            "scenario file {}{what} is larger than {MAX_VECTOR_BYTES} bytes (64 MiB), the most an assignor vector file may hold (a scenario file: {MAX_SCENARIO_BYTES} bytes)",
            path.display()
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(format!(
            "{}: not valid JSON: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((text, what))
}

/// Whether a field is present (with any value, `null` included).
#[derive(Default)]
struct Present(bool);

impl<'de> serde::Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| Present(true))
    }
}

/// The two fields that tell an assignor vector file from a scenario file.
#[derive(serde::Deserialize)]
struct Probe {
    #[serde(default)]
    rounds: Present,
    #[serde(default)]
    assignor: Present,
}

/// True for an assignor vector file: a JSON object with `rounds` and `assignor`. Skims the text
/// without building it.
fn is_vector(text: &str) -> bool {
    text.trim_start().starts_with('{')
        && serde_json::from_str::<Probe>(text).is_ok_and(|p| p.rounds.0 && p.assignor.0)
}

/// Reads an assignor vector file, or tells that the text is not one (`Ok(None)`). A vector file
/// may hold millions of values, so it is parsed as one at once, and only skimmed again when that
/// fails.
fn parse_vector(text: &str, path: &Path) -> Result<Option<vectors::VectorFile>> {
    match vectors::parse(text) {
        Ok(file) => Ok(Some(file)),
        Err(_) if !is_vector(text) => Ok(None),
        Err(e) => Err(fail(format!("{}: {e}", path.display()))),
    }
}

/// Runs the command.
pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut file = None;
    if let Some(path) = &args.scenario {
        let (text, what) = read_scenario(path)?;
        if let Some(vector) = parse_vector(&text, path)? {
            return replay_vector(vector, path, global.output, &mut out);
        }
        if u64::try_from(text.len()).unwrap_or(u64::MAX) > MAX_SCENARIO_BYTES {
            return Err(fail(format!(
                "scenario file {}{what} is larger than {MAX_SCENARIO_BYTES} bytes (1 MiB), the most a scenario file may hold",
                path.display()
            )));
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| fail(format!("{}: not valid JSON: {e}", path.display())))?;
        file = Some((path, value));
    }
    let (scenario, file_strategy) = build_scenario(args, file, &global.data_dir)?;
    scenario.validate().map_err(|e| fail(e.to_string()))?;
    let strategies: Vec<Strategy> = if args.compare.is_empty() {
        let s = args
            .strategy
            .as_deref()
            .or(file_strategy.as_deref())
            .unwrap_or("range");
        vec![parse_strategy(s)?]
    } else {
        args.compare
            .iter()
            .map(|s| parse_strategy(s))
            .collect::<Result<_>>()?
    };
    limits::check(&scenario.round_sizes(), strategies.len()).map_err(limit_error)?;
    let sims: Vec<Simulation> = strategies
        .iter()
        .map(|&s| simulate::simulate(&scenario, s, args.offsets_topic_partitions))
        .collect();
    match global.output {
        OutputFormat::Json => write_json(&sims, args.explain, &mut out)?,
        OutputFormat::Text => {
            if sims.len() > 1 {
                write_compare(&sims, args.explain, &mut out)?;
            } else {
                for sim in &sims {
                    write_text(sim, args.explain, &mut out)?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn limit_error(e: limits::LimitError) -> anyhow::Error {
    fail(format!(
        "{e}; see Limits in `kafkit simulate-assignment --help`"
    ))
}

fn build_scenario(
    args: &Args,
    file: Option<(&PathBuf, Value)>,
    data_dir: &Path,
) -> Result<(Scenario, Option<String>)> {
    let (mut sc, strategy) = match file {
        Some((path, value)) => {
            scenario::parse_value(&value).map_err(|e| fail(format!("{}: {e}", path.display())))?
        }
        None => (
            Scenario {
                group: "my-group".into(),
                topics: Vec::new(),
                members: Vec::new(),
                events: Vec::new(),
            },
            None,
        ),
    };
    for spec in &args.topics {
        let (name, count) = scenario::parse_topic_count(spec).map_err(|e| fail(e.to_string()))?;
        let on_disk = topic_on_disk(data_dir, &name);
        let partitions = match (count, &on_disk) {
            (Some(n), _) => n,
            (None, Ok(Some((n, _)))) => *n,
            (None, Ok(None)) => {
                return Err(fail(format!(
                    "topic {name:?} has no partition count: write --topic {name}:N, or point --data-dir at a data directory that holds it (looked in {})",
                    data_dir.display()
                )))
            }
            (None, Err(e)) => {
                return Err(fail(format!(
                    "topic {name:?} has no partition count: write --topic {name}:N, or point --data-dir at a data directory that holds it ({e})"
                )))
            }
        };
        sc.topics.push(ScenarioTopic {
            name: name.clone(),
            partitions,
            racks: None,
            id: on_disk.ok().flatten().and_then(|(_, id)| id),
        });
    }
    for id in &args.members {
        let id = id.trim();
        if !id.is_empty() {
            sc.members.push(ScenarioMember::new(id));
        }
    }
    for spec in &args.member {
        sc.members
            .push(scenario::parse_member(spec).map_err(|e| fail(e.to_string()))?);
    }
    for spec in &args.racks {
        let (id, rack) = spec
            .split_once('=')
            .ok_or_else(|| fail(format!("--rack {spec:?}: expected MEMBER=RACK")))?;
        let m = sc
            .members
            .iter_mut()
            .find(|m| m.id == id)
            .ok_or_else(|| fail(format!("--rack {spec:?}: unknown member {id:?}")))?;
        m.rack = Some(rack.to_string());
    }
    for spec in &args.instance_ids {
        let (id, inst) = spec
            .split_once('=')
            .ok_or_else(|| fail(format!("--instance-id {spec:?}: expected MEMBER=INSTANCE")))?;
        let m = sc
            .members
            .iter_mut()
            .find(|m| m.id == id)
            .ok_or_else(|| fail(format!("--instance-id {spec:?}: unknown member {id:?}")))?;
        m.instance_id = Some(inst.to_string());
    }
    for e in &args.then {
        sc.events
            .push(Event::parse(e).map_err(|m| fail(format!("--then: {m}")))?);
    }
    if let Some(g) = &args.group {
        sc.group = g.clone();
    }
    if sc.topics.is_empty() {
        return Err(fail(
            "no topics: give --topic NAME:PARTITIONS (or --scenario FILE)",
        ));
    }
    if sc.members.is_empty() {
        return Err(fail(
            "no members: give --members c1,c2 or --member c1=TOPIC (or --scenario FILE)",
        ));
    }
    Ok((sc, strategy))
}

/// A topic's partition count and id as the data directory describes it (`None`: the directory
/// does not hold the topic); an error when the directory cannot be read.
fn topic_on_disk(dir: &Path, topic: &str) -> Result<Option<(i32, Option<Uuid>)>, DataDirError> {
    let t = match DataDir::open(dir) {
        Ok(d) => d.topic(topic)?,
        Err(DataDirError::Missing(_)) => None,
        Err(e) => return Err(e),
    };
    Ok(t.and_then(|t| {
        let n = i32::try_from(t.partition_count()).ok().filter(|&n| n > 0)?;
        Some((n, t.id))
    }))
}

/// "orders 0-2,5; payments 1" from a sorted list.
pub fn compact(list: &[TopicPartition]) -> String {
    let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for tp in list {
        by_topic.entry(&tp.topic).or_default().push(tp.partition);
    }
    let mut parts = Vec::new();
    for (t, mut ps) in by_topic {
        ps.sort_unstable();
        // A list may name a partition twice (a vector file's owned partitions): shown once.
        ps.dedup();
        let mut ranges: Vec<String> = Vec::new();
        let mut i = 0;
        while i < ps.len() {
            let start = ps[i];
            let mut end = start;
            while i + 1 < ps.len() && ps[i + 1] == end + 1 {
                i += 1;
                end = ps[i];
            }
            ranges.push(if start == end {
                start.to_string()
            } else {
                format!("{start}-{end}")
            });
            i += 1;
        }
        parts.push(format!("{t} {}", ranges.join(",")));
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("; ")
    }
}

fn member_table(assignment: &BTreeMap<String, Vec<TopicPartition>>) -> Table {
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(vec!["MEMBER", "COUNT", "PARTITIONS"]);
    for (m, list) in assignment {
        table.add_row(vec![
            Cell::new(m),
            Cell::new(list.len()).set_alignment(CellAlignment::Right),
            Cell::new(compact(list)),
        ]);
    }
    table
}

fn who(m: &Option<String>) -> &str {
    m.as_deref().unwrap_or("(none)")
}

fn write_round(
    sim: &Simulation,
    r: &RoundReport,
    explain: bool,
    out: &mut impl Write,
) -> Result<()> {
    let title = match &r.event {
        None => "initial join".to_string(),
        Some(e) => e.clone(),
    };
    writeln!(out, "Round {}: {title}  [{}]", r.round, sim.strategy)?;
    if explain {
        for line in &r.explain {
            writeln!(out, "  | {line}")?;
        }
    }
    if let Some(e) = &r.error {
        writeln!(out, "  Kafka's assignor throws: {e}")?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "{}", member_table(&r.assignment))?;
    if sim.strategy.is_cooperative() {
        for (i, p) in r.phases.iter().enumerate() {
            let label = if sim.strategy.is_server_side() {
                format!("reconciliation step {} (epoch {})", i + 1, p.generation)
            } else if i == 0 {
                format!("rebalance (generation {})", p.generation)
            } else {
                format!("follow-up rebalance (generation {})", p.generation)
            };
            let revoked: Vec<TopicPartition> = p.revoked.iter().map(|(tp, _)| tp.clone()).collect();
            let added: Vec<TopicPartition> = p.added.iter().map(|(tp, _)| tp.clone()).collect();
            writeln!(
                out,
                "  {label}: revoked {} [{}], assigned {} [{}]",
                revoked.len(),
                compact(&sorted(revoked.clone())),
                added.len(),
                compact(&sorted(added.clone()))
            )?;
        }
    } else if let Some(p) = r.phases.first().filter(|p| !p.revoked.is_empty()) {
        writeln!(
            out,
            "  eager rebalance (generation {}): every member revoked everything it owned ({} partitions) before rejoining",
            p.generation,
            p.revoked.len()
        )?;
    }
    let (fresh, moved): (Vec<_>, Vec<_>) = r.moves.iter().partition(|m| m.from.is_none());
    if !fresh.is_empty() {
        writeln!(out, "  assigned for the first time: {}", fresh.len())?;
    }
    if moved.is_empty() {
        if r.event.is_some() {
            writeln!(out, "  moves: none")?;
        }
    } else {
        let list: Vec<String> = moved
            .iter()
            .map(|m| format!("{} {} -> {}", m.partition, who(&m.from), who(&m.to)))
            .collect();
        writeln!(out, "  moves ({}): {}", moved.len(), list.join(", "))?;
    }
    let b = r.balance;
    let ideal = if b.ideal_min == b.ideal_max {
        b.ideal_min.to_string()
    } else {
        format!("{}-{}", b.ideal_min, b.ideal_max)
    };
    writeln!(
        out,
        "  balance: min {} max {} (ideal {ideal}); stickiness: kept {}/{} ({:.0}%); unavailable during the round: {}",
        b.min,
        b.max,
        r.kept,
        r.previously_owned,
        r.stickiness() * 100.0,
        r.unavailable
    )?;
    writeln!(out)?;
    Ok(())
}

fn sorted(mut v: Vec<TopicPartition>) -> Vec<TopicPartition> {
    v.sort();
    v
}

fn write_text(sim: &Simulation, explain: bool, out: &mut impl Write) -> Result<()> {
    writeln!(
        out,
        "Group {:?}: coordinator is the leader of __consumer_offsets-{} (Utils.abs(\"{}\".hashCode()) % {}); strategy {} ({})",
        sim.group,
        sim.coordinator_partition,
        sim.group,
        sim.offsets_topic_partitions,
        sim.strategy,
        sim.strategy.class_name()
    )?;
    writeln!(out)?;
    for r in &sim.rounds {
        write_round(sim, r, explain, out)?;
    }
    let s = &sim.summary;
    writeln!(
        out,
        "Summary: {} rounds, {} rebalances, {} moves, {} partition-unavailabilities, final balance {}-{}, stickiness {:.0}%",
        s.rounds,
        s.rebalances,
        s.moves,
        s.unavailable,
        s.final_balance.min,
        s.final_balance.max,
        s.stickiness * 100.0
    )?;
    Ok(())
}

fn write_compare(sims: &[Simulation], explain: bool, out: &mut impl Write) -> Result<()> {
    if explain {
        for sim in sims {
            write_text(sim, true, out)?;
            writeln!(out)?;
        }
    }
    let mut table = Table::new();
    table
        .load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    let mut header = vec![Cell::new("STRATEGY")];
    if let Some(first) = sims.first() {
        for r in &first.rounds {
            header.push(Cell::new(format!(
                "{} {}",
                r.round,
                r.event.clone().unwrap_or_else(|| "initial join".into())
            )));
        }
    }
    for h in [
        "MOVES",
        "UNAVAILABLE",
        "REBALANCES",
        "STICKY",
        "FINAL MIN-MAX",
    ] {
        header.push(Cell::new(h));
    }
    table.set_header(header);
    for s in sims {
        let mut row = vec![Cell::new(s.strategy.name())];
        for r in &s.rounds {
            row.push(Cell::new(if r.error.is_some() {
                "throws".to_string()
            } else {
                format!(
                    "{} / {} / {}-{}",
                    r.moves.len(),
                    r.unavailable,
                    r.balance.min,
                    r.balance.max
                )
            }));
        }
        let m = &s.summary;
        row.push(Cell::new(m.moves).set_alignment(CellAlignment::Right));
        row.push(Cell::new(m.unavailable).set_alignment(CellAlignment::Right));
        row.push(Cell::new(m.rebalances).set_alignment(CellAlignment::Right));
        row.push(
            Cell::new(format!("{:.0}%", m.stickiness * 100.0)).set_alignment(CellAlignment::Right),
        );
        row.push(Cell::new(format!(
            "{}-{}",
            m.final_balance.min, m.final_balance.max
        )));
        table.add_row(row);
    }
    writeln!(out, "{table}")?;
    writeln!(
        out,
        "per round: moves / unavailable / min-max. moves: partitions whose owner changed; unavailable: partitions nobody consumed at some point in the round (eager strategies stop all of them); min-max: the members' partition counts; rebalances: generations (classic) or reconciliation steps (new protocol)"
    )?;
    for s in sims {
        if let Some(last) = s.rounds.last() {
            writeln!(out)?;
            writeln!(out, "Final assignment under {}:", s.strategy)?;
            writeln!(out, "{}", member_table(&last.assignment))?;
        }
    }
    Ok(())
}

fn write_json(sims: &[Simulation], explain: bool, out: &mut impl Write) -> Result<()> {
    for sim in sims {
        for r in &sim.rounds {
            write_event(out, &SimulateEvent::round(sim, r, explain))?;
        }
        write_event(out, &SimulateEvent::summary(sim))?;
    }
    Ok(())
}

fn replay_vector(
    mut file: vectors::VectorFile,
    path: &Path,
    format: OutputFormat,
    out: &mut impl Write,
) -> Result<()> {
    let strategy =
        vectors::strategy_of(&file).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let linear_strategy = matches!(
        strategy,
        Strategy::Sticky | Strategy::CooperativeSticky | Strategy::Uniform
    );
    let sizes: Vec<VectorRoundSize> = file
        .rounds
        .iter()
        .map(|r| VectorRoundSize {
            size: RoundSize {
                members: u64::try_from(r.members.len()).unwrap_or(u64::MAX),
                partitions: r.topics.values().fold(0u64, |sum, &n| {
                    sum.saturating_add(u64::try_from(n).unwrap_or(0))
                }),
            },
            linear: linear_strategy
                && !r
                    .subscription_type
                    .as_deref()
                    .is_some_and(|t| t.eq_ignore_ascii_case("HETEROGENEOUS"))
                && r.is_uniform_without_racks(),
        })
        .collect();
    limits::check_vector(&sizes).map_err(limit_error)?;
    let mut replayer = vectors::Replayer::new(&file).context("replaying the vector")?;
    let rounds = std::mem::take(&mut file.rounds);
    let count = rounds.len();
    let server = strategy.is_server_side();
    let mut matching = 0;
    let mut checked = 0;
    if format == OutputFormat::Text {
        writeln!(
            out,
            "Vector {} ({}): {}",
            file.id, strategy, file.description
        )?;
        writeln!(out)?;
    }
    // One round at a time: replayed, printed, dropped.
    for (i, round) in rounds.into_iter().enumerate() {
        let r = replayer.replay(round);
        let check = r.round.has_expectation().then(|| r.check(server));
        if let Some(c) = &check {
            checked += 1;
            if c.is_ok() {
                matching += 1;
            }
        }
        match format {
            OutputFormat::Json => write_event(
                out,
                &SimulateEvent::vector_round(&r, i + 1, strategy, check.as_ref()),
            )?,
            OutputFormat::Text => {
                writeln!(
                    out,
                    "Round {}{}",
                    i + 1,
                    r.round
                        .note
                        .as_deref()
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default()
                )?;
                match &r.result {
                    Err(e) => writeln!(out, "  Kafka's assignor throws: {e}")?,
                    Ok(a) => {
                        let owned;
                        let before: BTreeMap<&str, &[TopicPartition]> = match r.before_borrowed() {
                            Some(b) => b,
                            None => {
                                owned = r.before();
                                owned
                                    .iter()
                                    .map(|(m, l)| (m.as_str(), l.as_slice()))
                                    .collect()
                            }
                        };
                        let mut table = Table::new();
                        table
                            .load_preset(UTF8_FULL_CONDENSED)
                            .set_content_arrangement(ContentArrangement::Dynamic)
                            .set_header(vec![
                                "MEMBER",
                                "OWNED BEFORE",
                                "COUNT",
                                "ASSIGNED (Kafka's list order)",
                            ]);
                        for (m, list) in a {
                            let b = before.get(m.as_str()).copied().unwrap_or_default();
                            table.add_row(vec![
                                Cell::new(m),
                                Cell::new(compact(b)),
                                Cell::new(list.len()).set_alignment(CellAlignment::Right),
                                Cell::new(
                                    list.iter()
                                        .map(ToString::to_string)
                                        .collect::<Vec<_>>()
                                        .join(" "),
                                ),
                            ]);
                        }
                        writeln!(out, "{table}")?;
                    }
                }
                if let Some(Some(t)) = &r.transferring {
                    if !t.is_empty() {
                        let list: Vec<String> =
                            t.iter().map(|(tp, m)| format!("{tp} -> {m}")).collect();
                        writeln!(
                            out,
                            "  partitions transferring ownership: {}",
                            list.join(", ")
                        )?;
                    }
                }
                match &check {
                    Some(Ok(())) => writeln!(out, "  matches Kafka's expected result")?,
                    Some(Err(why)) => writeln!(out, "  DIFFERS from Kafka: {why}")?,
                    None => writeln!(out, "  no expected result in the file: not checked")?,
                }
                writeln!(out)?;
            }
        }
        if i + 1 == count {
            // The run ends after this round: the memory goes back to the system at once, where
            // freeing the round's lists (up to a million partitions each way) would cost time.
            std::mem::forget(r);
        }
    }
    match format {
        OutputFormat::Json => write_event(
            out,
            &SimulateEvent::VectorSummary {
                vector: &file.id,
                strategy: strategy.name(),
                rounds: count,
                checked,
                matching,
            },
        )?,
        OutputFormat::Text if checked == count => {
            writeln!(out, "{matching}/{count} rounds match Kafka")?
        }
        OutputFormat::Text if checked == 0 => writeln!(
            out,
            "{count} round(s) replayed; the file gives no expected result to check them against"
        )?,
        OutputFormat::Text => writeln!(
            out,
            "{matching}/{checked} rounds match Kafka ({} more without an expected result)",
            count - checked
        )?,
    }
    if matching != checked {
        return Err(Exit {
            message: String::new(),
            code: 2,
        }
        .into());
    }
    Ok(())
}
