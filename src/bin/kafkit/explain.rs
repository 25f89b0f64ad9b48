//! `produce --explain` on a local cluster: what a Kafka producer does before its records land.
//!
//! The producer routes by its cached metadata (Kafka's `Metadata`): the leader of each partition
//! it last learned. kafkit keeps that view per cluster in [`CACHE_FILE`], written by every
//! `produce` on the cluster. `--explain` prints the metadata lookup (each partition's leader,
//! its listener and leader epoch from the image, as `kafkit metadata` shows them) and, for
//! each partition, the broker its batches go to. When the cached leader is no longer the
//! leader (a `cluster stop-broker` moved it), the old leader answers NOT_LEADER_OR_FOLLOWER,
//! the producer logs Sender's WARN, refreshes its metadata and resends to the new leader.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};

use kafkit::cluster::{MetadataImage, METADATA_PARTITION};
use kafkit::output::log4j;

/// The producer's last metadata view of a cluster: `topic partition leader epoch` lines.
pub const CACHE_FILE: &str = "producer-metadata-cache";

/// Sender's class, as Kafka's WARN line names it.
const SENDER: &str = "org.apache.kafka.clients.producer.internals.Sender";

/// The default `retries` (Integer.MAX_VALUE): a first retry has this many attempts left.
const ATTEMPTS_LEFT: i64 = i32::MAX as i64 - 1;

/// Each partition's (leader, leader epoch).
type Leaders = BTreeMap<i32, (i32, i32)>;

fn image(cluster: &Path) -> Result<MetadataImage> {
    let dir = cluster.join(METADATA_PARTITION);
    MetadataImage::load(&dir)
        .with_context(|| format!("reading the cluster's metadata from {}", dir.display()))
}

fn leaders(image: &MetadataImage, topic: &str) -> Leaders {
    image.topics.get(topic).map_or_else(BTreeMap::new, |t| {
        t.partitions
            .iter()
            .map(|(p, part)| (*p, (part.leader, part.leader_epoch)))
            .collect()
    })
}

/// The cached leaders of `topic`, if the producer has seen it; a missing or unreadable cache
/// is an empty one (a new producer starts with no metadata).
fn cached(cluster: &Path, topic: &str) -> Leaders {
    let text = fs::read_to_string(cluster.join(CACHE_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut f = line.split('\t');
            let (t, p, l, e) = (f.next()?, f.next()?, f.next()?, f.next()?);
            (t == topic).then_some(())?;
            Some((p.parse().ok()?, (l.parse().ok()?, e.parse().ok()?)))
        })
        .collect()
}

/// Records the producer's metadata view of `topic` after a run: the image's leaders now.
pub fn remember(cluster: &Path, topic: &str) -> Result<()> {
    let now = leaders(&image(cluster)?, topic);
    let path = cluster.join(CACHE_FILE);
    let old = fs::read_to_string(&path).unwrap_or_default();
    let mut text: String = old
        .lines()
        .filter(|l| l.split('\t').next() != Some(topic))
        .map(|l| format!("{l}\n"))
        .collect();
    for (p, (leader, epoch)) in now {
        text.push_str(&format!("{topic}\t{p}\t{leader}\t{epoch}\n"));
    }
    // Written aside then renamed: a reader sees the old view or the new one, never half.
    let tmp = cluster.join(format!("{CACHE_FILE}.tmp"));
    let mut file = fs::File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The explanation of a produce to `topic` (only `partition` if given), one line each.
pub fn explain(cluster: &Path, topic: &str, partition: Option<i32>) -> Result<Vec<String>> {
    let image = image(cluster)?;
    let broker = |id: i32| match image.brokers.get(&id).and_then(|b| b.endpoints.first()) {
        Some(e) => format!("broker {id} ({}:{})", e.host, e.port),
        None => format!("broker {id}"),
    };
    let now = leaders(&image, topic);
    let old = cached(cluster, topic);
    let wanted = |p: &i32| partition.is_none_or(|w| w == *p);
    let mut out = Vec::new();
    if old.is_empty() {
        out.push(format!(
            "explain: no cached metadata for topic {topic}: metadata request to the cluster"
        ));
    } else {
        out.push(format!(
            "explain: cached metadata for topic {topic} (from the last produce)"
        ));
        for (p, (leader, epoch)) in old.iter().filter(|(p, _)| wanted(p)) {
            out.push(format!(
                "explain:   {topic}-{p}: leader {}, leader epoch {epoch}",
                broker(*leader)
            ));
        }
    }
    let mut correlation = 0;
    let mut lines = Vec::new();
    for (p, (leader, epoch)) in now.iter().filter(|(p, _)| wanted(p)) {
        correlation += 1;
        match old.get(p) {
            Some((was, _)) if was != leader => {
                lines.push(format!(
                    "explain: {topic}-{p}: sent to {} -> NOT_LEADER_OR_FOLLOWER -> metadata refresh -> leader is now broker {leader} (epoch {epoch}) -> sent to {}",
                    broker(*was),
                    broker(*leader)
                ));
                lines.push(log4j::line(
                    "WARN",
                    &format!(
                        "[Producer clientId=console-producer] Got error produce response with correlation id {correlation} on topic-partition {topic}-{p}, retrying ({ATTEMPTS_LEFT} attempts left). Error: NOT_LEADER_OR_FOLLOWER"
                    ),
                    SENDER,
                ));
                correlation += 1;
            }
            _ => lines.push(format!("explain: {topic}-{p}: sent to {}", broker(*leader))),
        }
    }
    out.push(format!(
        "explain: metadata for topic {topic} (the routing table)"
    ));
    for (p, (leader, epoch)) in now.iter().filter(|(p, _)| wanted(p)) {
        out.push(format!(
            "explain:   {topic}-{p}: leader {}, leader epoch {epoch}",
            broker(*leader)
        ));
    }
    out.extend(lines);
    Ok(out)
}
