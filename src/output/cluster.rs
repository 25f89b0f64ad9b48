//! `kafkit metadata` and `kafkit cluster what-if`: kcat's `-L` listing of a metadata image, and
//! the JSON Lines events of both (`docs/json.md`, "metadata" and "cluster what-if").

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::cluster::init::{InitReport, METADATA_VERSION};
use crate::cluster::records::{Endpoint, NO_LEADER};
use crate::cluster::whatif::{Health, PartitionOutcome, WhatIf};
use crate::cluster::{Broker, MetadataImage};
use crate::common::Uuid;

/// The listener a broker is shown at: the one named, else its first registered one. `None`
/// when it has no such listener (a metadata response then leaves the broker out).
pub fn listener<'a>(broker: &'a Broker, name: Option<&str>) -> Option<&'a Endpoint> {
    match name {
        Some(name) => broker.endpoints.iter().find(|e| e.name == name),
        None => broker.endpoints.first(),
    }
}

/// The brokers a metadata response lists: registered, unfenced, with the listener.
fn alive<'a>(
    image: &'a MetadataImage,
    listener_name: Option<&'a str>,
) -> impl Iterator<Item = (&'a Broker, &'a Endpoint)> + 'a {
    image
        .brokers
        .values()
        .filter(|b| !b.fenced)
        .filter_map(move |b| listener(b, listener_name).map(|e| (b, e)))
}

fn ids(list: &[i32]) -> String {
    list.iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// kcat's `-L` text (`metadata_print`): the brokers a metadata response lists (unfenced, at
/// `listener_name` or their first listener; the controller marked), then every topic by name
/// with its partitions. A partition without a leader ends with librdkafka's
/// `Broker: Leader not available`, as the response's error. `source` stands where kcat names
/// the broker it asked.
pub fn write_kcat_listing(
    out: &mut impl Write,
    image: &MetadataImage,
    source: &Path,
    listener_name: Option<&str>,
) -> io::Result<()> {
    writeln!(
        out,
        "Metadata for all topics (from broker -1: {}):",
        source.display()
    )?;
    let brokers: Vec<_> = alive(image, listener_name).collect();
    writeln!(out, " {} brokers:", brokers.len())?;
    for (broker, endpoint) in brokers {
        let controller = if image.controller == Some(broker.id) {
            " (controller)"
        } else {
            ""
        };
        writeln!(
            out,
            "  broker {} at {}:{}{controller}",
            broker.id, endpoint.host, endpoint.port
        )?;
    }
    writeln!(out, " {} topics:", image.topics.len())?;
    for topic in image.topics.values() {
        writeln!(
            out,
            "  topic \"{}\" with {} partitions:",
            topic.name,
            topic.partitions.len()
        )?;
        for (number, p) in &topic.partitions {
            write!(
                out,
                "    partition {number}, leader {}, replicas: {}, isrs: {}",
                p.leader,
                ids(&p.replicas),
                ids(&p.isr)
            )?;
            if p.leader == NO_LEADER {
                write!(out, ", Broker: Leader not available")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// A broker's listener in JSON.
#[derive(Debug, Serialize)]
pub struct EndpointJson<'a> {
    /// The listener name.
    pub name: &'a str,
    /// The host.
    pub host: &'a str,
    /// The port.
    pub port: u16,
    /// Kafka's security protocol id.
    pub security_protocol: i16,
}

/// One JSON Lines object of `kafkit metadata --output json`, in the order and with the fields
/// of its table in `docs/json.md`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MetadataEvent<'a> {
    /// First: where the image comes from.
    Image {
        /// The `__cluster_metadata-0` directory.
        directory: String,
        /// The snapshot loaded, if any.
        snapshot: Option<String>,
        /// The offset after the last record applied.
        end_offset: i64,
        /// Metadata records read (control records not counted).
        records: u64,
        /// Record types read and passed over, with their counts.
        skipped: &'a BTreeMap<&'static str, u64>,
        /// The active controller, when the log's `LeaderChange` records tell.
        controller: Option<i32>,
    },
    /// A finalized feature level.
    Feature {
        /// Its name.
        name: &'a str,
        /// Its level.
        level: i16,
    },
    /// A registered broker, by id (fenced ones too).
    Broker {
        /// Its id.
        id: i32,
        /// Its rack.
        rack: Option<&'a str>,
        /// Its listeners, in registration order.
        endpoints: Vec<EndpointJson<'a>>,
        /// Its epoch.
        epoch: i64,
        /// Fenced (not alive).
        fenced: bool,
        /// In controlled shutdown.
        in_controlled_shutdown: bool,
    },
    /// A topic, by name.
    Topic {
        /// Its name.
        name: &'a str,
        /// Its id.
        topic_id: Uuid,
        /// Its partition count.
        partitions: usize,
        /// Its config overrides, name → value.
        configs: &'a BTreeMap<String, String>,
    },
    /// A partition, after its topic.
    Partition {
        /// The topic.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// The leader (-1: none).
        leader: i32,
        /// The leader epoch.
        leader_epoch: i32,
        /// The partition epoch.
        partition_epoch: i32,
        /// Replicas, preferred leader first.
        replicas: &'a [i32],
        /// In-sync replicas.
        isr: &'a [i32],
        /// Eligible leader replicas.
        elr: &'a [i32],
        /// Last known eligible leader replicas.
        last_known_elr: &'a [i32],
        /// Replicas a reassignment adds.
        adding_replicas: &'a [i32],
        /// Replicas a reassignment removes.
        removing_replicas: &'a [i32],
        /// Whether its leader is recovering from an unclean election.
        recovering: bool,
    },
    /// A broker config of the log: `broker` `""` is the cluster-wide default.
    BrokerConfig {
        /// The broker id, or `""`.
        broker: &'a str,
        /// The config's name.
        name: &'a str,
        /// Its value.
        value: &'a str,
    },
}

/// A topic without overrides.
static NO_CONFIGS: BTreeMap<String, String> = BTreeMap::new();

/// The events of a whole image, in the order `docs/json.md` gives.
pub fn write_image_events(
    out: &mut impl Write,
    image: &MetadataImage,
    dir: &Path,
) -> io::Result<()> {
    use crate::output::json::write_event;
    let p = &image.provenance;
    write_event(
        out,
        &MetadataEvent::Image {
            directory: dir.display().to_string(),
            snapshot: p.snapshot.as_ref().map(|s| s.display().to_string()),
            end_offset: p.end_offset,
            records: p.records,
            skipped: &p.skipped,
            controller: image.controller,
        },
    )?;
    for (name, &level) in &image.features {
        write_event(out, &MetadataEvent::Feature { name, level })?;
    }
    for b in image.brokers.values() {
        write_event(
            out,
            &MetadataEvent::Broker {
                id: b.id,
                rack: b.rack.as_deref(),
                endpoints: b
                    .endpoints
                    .iter()
                    .map(|e| EndpointJson {
                        name: &e.name,
                        host: &e.host,
                        port: e.port,
                        security_protocol: e.security_protocol,
                    })
                    .collect(),
                epoch: b.epoch,
                fenced: b.fenced,
                in_controlled_shutdown: b.in_controlled_shutdown,
            },
        )?;
    }
    for (broker, configs) in &image.broker_configs {
        for (name, value) in configs {
            write_event(
                out,
                &MetadataEvent::BrokerConfig {
                    broker,
                    name,
                    value,
                },
            )?;
        }
    }
    for t in image.topics.values() {
        write_event(
            out,
            &MetadataEvent::Topic {
                name: &t.name,
                topic_id: t.id,
                partitions: t.partitions.len(),
                configs: image.topic_configs.get(&t.name).unwrap_or(&NO_CONFIGS),
            },
        )?;
        for (&partition, p) in &t.partitions {
            write_event(
                out,
                &MetadataEvent::Partition {
                    topic: &t.name,
                    partition,
                    leader: p.leader,
                    leader_epoch: p.leader_epoch,
                    partition_epoch: p.partition_epoch,
                    replicas: &p.replicas,
                    isr: &p.isr,
                    elr: &p.elr,
                    last_known_elr: &p.last_known_elr,
                    adding_replicas: &p.adding_replicas,
                    removing_replicas: &p.removing_replicas,
                    recovering: p.leader_recovery_state == 1,
                },
            )?;
        }
    }
    Ok(())
}

/// One JSON Lines object of `kafkit cluster what-if --output json`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WhatIfEvent<'a> {
    /// A partition with a replica on a broker taken down, by topic and number.
    Partition {
        /// The topic.
        topic: &'a str,
        /// The partition number.
        partition: i32,
        /// Its replicas.
        replicas: &'a [i32],
        /// Its leader now (-1: none).
        leader_before: i32,
        /// Its leader after (-1: none).
        leader_after: i32,
        /// Its ISR now.
        isr_before: &'a [i32],
        /// Its ISR after.
        isr_after: &'a [i32],
        /// Its ELR after.
        elr_after: &'a [i32],
        /// Whether the new leader was elected uncleanly (from outside the ISR).
        unclean: bool,
        /// Its `min.insync.replicas`.
        min_isr: usize,
        /// Its state now.
        before: Health,
        /// Its state after.
        after: Health,
    },
    /// One per registered broker: the partitions it leads now and after.
    Broker {
        /// Its id.
        id: i32,
        /// Whether it is taken down.
        down: bool,
        /// Partitions it leads now.
        leaders_before: usize,
        /// Partitions it leads after.
        leaders_after: usize,
    },
    /// Last: the totals.
    Summary {
        /// The brokers taken down, in order.
        down: &'a [i32],
        /// Partitions in the cluster.
        partitions: usize,
        /// Partitions with a replica on a broker taken down.
        affected: usize,
        /// Partitions without a leader after.
        offline: usize,
        /// Partitions with a leader but fewer in-sync replicas than `min.insync.replicas`
        /// after (producers with acks=all get NOT_ENOUGH_REPLICAS).
        under_min_isr: usize,
        /// Partitions whose leader moves to another broker.
        leaders_moved: usize,
        /// Unclean elections among those.
        unclean_elections: usize,
    },
}

impl<'a> WhatIfEvent<'a> {
    /// The `partition` event of an outcome.
    pub fn partition(o: &'a PartitionOutcome) -> Self {
        WhatIfEvent::Partition {
            topic: &o.topic,
            partition: o.partition,
            replicas: &o.replicas,
            leader_before: o.leader_before,
            leader_after: o.leader_after,
            isr_before: &o.isr_before,
            isr_after: &o.isr_after,
            elr_after: &o.elr_after,
            unclean: o.unclean,
            min_isr: o.min_isr,
            before: o.before,
            after: o.after,
        }
    }

    /// The `summary` event.
    pub fn summary(w: &'a WhatIf) -> Self {
        WhatIfEvent::Summary {
            down: &w.down,
            partitions: w.total_partitions,
            affected: w.partitions.len(),
            offline: w.offline,
            under_min_isr: w.under_min_isr,
            leaders_moved: w.leaders_moved,
            unclean_elections: w.unclean,
        }
    }
}

/// Every event of a what-if answer: partitions, brokers, the summary.
pub fn write_what_if_events(out: &mut impl Write, w: &WhatIf) -> io::Result<()> {
    use crate::output::json::write_event;
    for o in &w.partitions {
        write_event(out, &WhatIfEvent::partition(o))?;
    }
    for (&id, l) in &w.leadership {
        write_event(
            out,
            &WhatIfEvent::Broker {
                id,
                down: w.down.contains(&id),
                leaders_before: l.before,
                leaders_after: l.after,
            },
        )?;
    }
    write_event(out, &WhatIfEvent::summary(w))
}

/// The summary's text lines.
pub fn write_what_if_summary(out: &mut impl Write, w: &WhatIf) -> io::Result<()> {
    writeln!(
        out,
        "Brokers down: {}. Partitions: {} in the cluster, {} with a replica down.",
        ids(&w.down),
        w.total_partitions,
        w.partitions.len()
    )?;
    writeln!(
        out,
        "Offline (no leader): {}. Under min.insync.replicas (acks=all fails with NOT_ENOUGH_REPLICAS): {}.",
        w.offline, w.under_min_isr
    )?;
    writeln!(
        out,
        "Leaders moved: {} ({} unclean).",
        w.leaders_moved, w.unclean
    )
}

/// A list of broker ids as the tables show it (`1,2,3`; `-` when empty).
pub fn id_list(list: &[i32]) -> String {
    if list.is_empty() {
        "-".to_string()
    } else {
        ids(list)
    }
}

/// A leader as the tables show it (`none` for -1).
pub fn leader_text(leader: i32) -> String {
    if leader == NO_LEADER {
        "none".to_string()
    } else {
        leader.to_string()
    }
}

/// One JSON Lines object of `kafkit cluster init --output json`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InitEvent<'a> {
    /// First: the cluster.
    Cluster {
        /// The cluster id every broker's `meta.properties` holds.
        cluster_id: &'a str,
        /// The metadata log's directory.
        metadata_dir: String,
        /// The `metadata.version` feature level written.
        metadata_version: i16,
    },
    /// One per broker, by id.
    Broker {
        /// Its id.
        id: i32,
        /// Its log directory.
        dir: String,
        /// Its log directory's id.
        directory_id: Uuid,
        /// Its rack.
        rack: Option<&'a str>,
        /// Its listener's port on localhost.
        port: u16,
    },
}

/// `cluster init`'s events.
pub fn write_init_events(out: &mut impl Write, r: &InitReport) -> io::Result<()> {
    use crate::output::json::write_event;
    write_event(
        out,
        &InitEvent::Cluster {
            cluster_id: &r.cluster_id,
            metadata_dir: r.metadata_dir.display().to_string(),
            metadata_version: METADATA_VERSION,
        },
    )?;
    for b in &r.brokers {
        write_event(
            out,
            &InitEvent::Broker {
                id: b.id,
                dir: b.dir.display().to_string(),
                directory_id: b.directory_id,
                rack: b.rack.as_deref(),
                port: b.port,
            },
        )?;
    }
    Ok(())
}

/// `cluster init`'s text, in the words of `kafka-storage.sh format`.
pub fn write_init_text(out: &mut impl Write, r: &InitReport) -> io::Result<()> {
    writeln!(
        out,
        "Formatting metadata directory {} with metadata.version 4.0-IV3.",
        r.metadata_dir.display()
    )?;
    for b in &r.brokers {
        write!(
            out,
            "Formatting data directory {} of broker {} (PLAINTEXT://localhost:{}",
            b.dir.display(),
            b.id,
            b.port
        )?;
        match &b.rack {
            Some(rack) => writeln!(out, ", rack {rack}).")?,
            None => writeln!(out, ").")?,
        }
    }
    writeln!(out, "Cluster id: {}", r.cluster_id)
}
