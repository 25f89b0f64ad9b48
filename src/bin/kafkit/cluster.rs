//! `kafkit cluster`: a cluster described by its KRaft metadata log. `what-if` tells, with the
//! controller's election rules, what taking brokers down would do to every partition.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};

use anyhow::Result;
use clap::ValueHint;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, ContentArrangement, Table};

use super::metadata::MetadataSource;
use super::{key_value, Example, Exit, GlobalArgs};
use kafkit::cluster::init::init;
use kafkit::cluster::whatif::{what_if, WhatIf};
use kafkit::output::cluster::{id_list, leader_text, write_what_if_events, write_what_if_summary};
use kafkit::output::cluster::{write_init_events, write_init_text};
use kafkit::output::OutputFormat;

/// Examples of `kafkit cluster` (`tests/man.rs` runs them, in order, in an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a cluster of three brokers in ./cluster:",
        line: "kafkit --data-dir cluster cluster init --brokers 3",
    },
    Example {
        what: "What taking brokers 2 and 3 down would do to its partitions:",
        line: "kafkit --data-dir cluster cluster what-if --down 2,3",
    },
];

/// Examples of `kafkit cluster what-if`.
pub const WHAT_IF_EXAMPLES: &[Example] = &[
    Example {
        what: "Make a cluster of three brokers in ./cluster, with a topic on all three:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 && kafkit --data-dir cluster topics --create --topic orders --partitions 3 --replication-factor 3",
    },
    Example {
        what: "What taking brokers 2 and 3 down would do to its partitions, as JSON Lines:",
        line: "kafkit --data-dir cluster --output json cluster what-if --down 2,3",
    },
];

/// Examples of `kafkit cluster init`.
pub const INIT_EXAMPLES: &[Example] = &[
    Example {
        what: "Three brokers over two racks, min.insync.replicas=2 by default:",
        line: "kafkit --data-dir cluster cluster init --brokers 3 --rack 1=a --rack 2=b --rack 3=a --config min.insync.replicas=2",
    },
    Example {
        what: "Its metadata log, as Kafka's dump tool reads it:",
        line: "kafkit dump-log-segments --cluster-metadata-decoder --files cluster/__cluster_metadata-0/00000000000000000000.log",
    },
];

/// A cluster described by its KRaft metadata log: make one, or ask what losing brokers does.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

/// What to do with the cluster.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Which partitions would go offline or under min.insync.replicas, and where leadership
    /// moves, if these brokers went down (Kafka's controller rules, offline).
    ///
    /// Each broker goes down in the order given, as the controller fences it: it leaves the
    /// ISR of its partitions (the last ISR member stays, as in Kafka, unless eligible leader
    /// replicas are on) and each partition it led elects the first replica, in replica order,
    /// that is in the ISR and alive; unclean.leader.election.enable (the topic's config, else
    /// the cluster default) lets an out-of-sync replica lead when none is. A partition under
    /// min.insync.replicas (the topic's, else the cluster default, else 1) refuses producers
    /// with acks=all (NOT_ENOUGH_REPLICAS).
    WhatIf(WhatIfArgs),
    /// Make a local cluster in --data-dir: one log directory per broker (broker-<id>/ with
    /// meta.properties: node.id, the shared cluster.id, its directory.id) and the cluster's
    /// KRaft metadata log (__cluster_metadata-0: the metadata.version feature, each broker's
    /// registration with its rack and listener, its unfencing), which dump-log-segments
    /// --cluster-metadata-decoder reads as a controller's.
    ///
    /// Brokers are 1 to N; broker i listens on PLAINTEXT://localhost:<9091+i>; broker 1 is the
    /// controller. The directory must be new or empty; it is made whole or not at all.
    Init(InitArgs),
    /// Run the replica fetchers once: every follower on a running broker truncates what its
    /// leader does not have (OffsetsForLeaderEpoch), copies the leader's new batches byte for
    /// byte, and rejoins the ISR once caught up; then the high watermarks move to the lowest
    /// log end offset of each ISR. A produce with acks 0 or 1 leaves followers behind until
    /// this step (acks=all runs it for its topic before it ends).
    Replicate(ReplicateArgs),
    /// Stop a broker as the controller fences it: it leaves the ISR of its partitions, each
    /// partition it led elects the first in-sync replica that runs (an out-of-sync one with
    /// unclean.leader.election.enable), the leader epoch moves on.
    StopBroker(BrokerArgs),
    /// Start a stopped broker: it is unfenced, leads the partitions that had no leader and
    /// keep it in their ISR, and its replicas truncate to their leaders' epochs and catch up.
    StartBroker(BrokerArgs),
    /// The brokers (up or down) and each partition's leader, leader epoch, ISR, high
    /// watermark and each replica's log end offset.
    Status,
}

/// `cluster replicate`'s options.
#[derive(Debug, clap::Args)]
pub struct ReplicateArgs {
    /// Only these topics (repeatable); all by default.
    #[arg(long = "topic", value_name = "TOPIC", value_hint = ValueHint::Other)]
    pub topics: Vec<String>,
    /// The step's clock: milliseconds since the epoch, or the current time plus a duration
    /// (`+90s`, `+30m`, `+500ms`). An ISR follower not caught up to its leader's log end for
    /// more than replica.lag.time.max.ms (30000 by default) by then leaves the ISR. Default:
    /// now.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true, value_hint = ValueHint::Other)]
    pub now: Option<String>,
    /// A broker whose fetchers do not run in this step, as if stuck (repeatable): its replicas
    /// fall behind and, past replica.lag.time.max.ms, out of the ISR.
    #[arg(long = "stuck-broker", value_name = "ID", value_hint = ValueHint::Other)]
    pub stuck: Vec<i32>,
}

/// `cluster stop-broker` and `start-broker`'s argument.
#[derive(Debug, clap::Args)]
pub struct BrokerArgs {
    /// The broker's id.
    #[arg(value_name = "ID", value_hint = ValueHint::Other)]
    pub id: i32,
}

/// `cluster init`'s options.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// How many brokers (ids 1 to N).
    #[arg(long, value_name = "N", value_hint = ValueHint::Other)]
    pub brokers: i32,
    /// A broker's rack (broker.rack), as ID=RACK (repeatable).
    #[arg(long = "rack", value_name = "ID=RACK", value_hint = ValueHint::Other)]
    pub racks: Vec<String>,
    /// A cluster-wide broker config, as NAME=VALUE (repeatable): the default every topic
    /// without its own override takes, e.g. min.insync.replicas=2 or
    /// unclean.leader.election.enable=true (kafka-configs.sh --entity-default).
    #[arg(long = "config", value_name = "NAME=VALUE", value_hint = ValueHint::Other)]
    pub configs: Vec<String>,
    /// Makes the controller's replica placement repeatable (kafkit's, not Kafka's): every
    /// topics --create without --replica-assignment draws Kafka's StripedReplicaPlacer from
    /// Kafka's test MockRandom with this seed. Without it placement is random, as a KRaft
    /// controller's is.
    #[arg(long, value_name = "SEED", value_hint = ValueHint::Other)]
    pub placement_seed: Option<u64>,
}

/// `cluster what-if`'s options.
#[derive(Debug, clap::Args)]
pub struct WhatIfArgs {
    #[command(flatten)]
    pub source: MetadataSource,
    /// The brokers to take down, comma-separated, in the order they go.
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',', required = true, value_hint = ValueHint::Other)]
    pub down: Vec<i32>,
}

pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    match &args.action {
        Action::WhatIf(a) => run_what_if(a, global),
        Action::Init(a) => run_init(a, global),
        Action::Replicate(a) => super::brokers::run_replicate(a, global),
        Action::StopBroker(a) => super::brokers::run_stop_start(a.id, false, global),
        Action::StartBroker(a) => super::brokers::run_stop_start(a.id, true, global),
        Action::Status => super::brokers::run_status(global),
    }
}

fn run_init(args: &InitArgs, global: &GlobalArgs) -> Result<()> {
    let mut racks = BTreeMap::new();
    for spec in &args.racks {
        let (id, rack) = key_value(spec);
        let id: i32 = id
            .trim()
            .parse()
            .map_err(|_| Exit::failure(format!("Error: --rack takes ID=RACK, not {spec}")))?;
        if rack.is_empty() {
            return Err(Exit::failure(format!("Error: --rack {spec} names no rack")).into());
        }
        racks.insert(id, rack.to_string());
    }
    let mut configs = BTreeMap::new();
    for spec in &args.configs {
        let (name, value) = key_value(spec);
        if name.trim().is_empty() || !spec.contains('=') {
            return Err(
                Exit::failure(format!("Error: --config takes NAME=VALUE, not {spec}")).into(),
            );
        }
        configs.insert(name.trim().to_string(), value.trim().to_string());
    }
    let now = kafkit::datadir::now_ms();
    let report = init(
        &global.data_dir,
        args.brokers,
        &racks,
        &configs,
        args.placement_seed,
        now,
    )
    .map_err(|e| Exit::failure(format!("Error: {e}")))?;
    let mut out = BufWriter::new(io::stdout().lock());
    match global.output {
        OutputFormat::Text => write_init_text(&mut out, &report)?,
        OutputFormat::Json => write_init_events(&mut out, &report)?,
    }
    out.flush()?;
    Ok(())
}

fn run_what_if(args: &WhatIfArgs, global: &GlobalArgs) -> Result<()> {
    let (_, image) = args.source.load(global)?;
    let answer = what_if(&image, &args.down).map_err(|e| Exit::failure(format!("Error: {e}")))?;
    let mut out = BufWriter::new(io::stdout().lock());
    match global.output {
        OutputFormat::Text => write_tables(&mut out, &answer)?,
        OutputFormat::Json => write_what_if_events(&mut out, &answer)?,
    }
    out.flush()?;
    Ok(())
}

fn write_tables(out: &mut impl Write, w: &WhatIf) -> io::Result<()> {
    if !w.partitions.is_empty() {
        let mut table = Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_header(vec![
                "TOPIC",
                "PARTITION",
                "REPLICAS",
                "LEADER",
                "NEW LEADER",
                "ISR",
                "NEW ISR",
                "MIN ISR",
                "STATE",
            ]);
        for o in &w.partitions {
            let mut state = o.after.as_str().to_string();
            if o.unclean {
                state.push_str(" (unclean)");
            }
            table.add_row(vec![
                Cell::new(&o.topic),
                Cell::new(o.partition).set_alignment(CellAlignment::Right),
                Cell::new(id_list(&o.replicas)),
                Cell::new(leader_text(o.leader_before)),
                Cell::new(leader_text(o.leader_after)),
                Cell::new(id_list(&o.isr_before)),
                Cell::new(id_list(&o.isr_after)),
                Cell::new(o.min_isr).set_alignment(CellAlignment::Right),
                Cell::new(state),
            ]);
        }
        writeln!(out, "{table}")?;
    }
    let mut brokers = Table::new();
    brokers
        .load_preset(UTF8_FULL_CONDENSED)
        .set_header(vec!["BROKER", "LEADERS", "NEW LEADERS"]);
    for (id, l) in &w.leadership {
        let name = if w.down.contains(id) {
            format!("{id} (down)")
        } else {
            id.to_string()
        };
        brokers.add_row(vec![
            Cell::new(name),
            Cell::new(l.before).set_alignment(CellAlignment::Right),
            Cell::new(l.after).set_alignment(CellAlignment::Right),
        ]);
    }
    writeln!(out, "{brokers}")?;
    write_what_if_summary(out, w)
}
