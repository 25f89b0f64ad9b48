//! `--output json` of `kafkit cluster replicate`, `stop-broker`, `start-broker` and `status`
//! (`docs/json.md`): one event per broker, partition, leader change and follower step.

use std::io::{self, Write};

use serde::Serialize;

use crate::cluster::brokers::{
    BrokerChange, BrokerStatus, ClusterStatus, LeaderChange, PartitionStatus,
};
use crate::cluster::replication::{FollowerReport, ReplicationReport};
use crate::output::json::write_event;

/// The events of the replication commands.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReplicationEvent<'a> {
    /// A broker and whether it runs.
    Broker(&'a BrokerStatus),
    /// A partition's leader, ISR, high watermark and replicas' log ends.
    Partition(&'a PartitionStatus),
    /// A partition whose leader or ISR a broker's stop or start changed.
    LeaderChange(&'a LeaderChange),
    /// What a replication step did to a follower replica.
    Follower(&'a FollowerReport),
    /// A partition's high watermark after a replication step.
    HighWatermark {
        /// The topic.
        topic: &'a str,
        /// The partition.
        partition: i32,
        /// The high watermark.
        high_watermark: i64,
    },
}

/// A replication step's events: followers, then high watermarks.
pub fn write_replication_events(out: &mut impl Write, r: &ReplicationReport) -> io::Result<()> {
    for f in &r.followers {
        write_event(out, &ReplicationEvent::Follower(f))?;
    }
    for (topic, partitions) in &r.high_watermarks {
        for (&partition, &high_watermark) in partitions {
            write_event(
                out,
                &ReplicationEvent::HighWatermark {
                    topic,
                    partition,
                    high_watermark,
                },
            )?;
        }
    }
    Ok(())
}

/// A stop's or start's events: the leader changes, then the replication step's.
pub fn write_broker_change_events(out: &mut impl Write, c: &BrokerChange) -> io::Result<()> {
    for p in &c.partitions {
        write_event(out, &ReplicationEvent::LeaderChange(p))?;
    }
    if let Some(r) = &c.replication {
        write_replication_events(out, r)?;
    }
    Ok(())
}

/// The status's events: brokers, then partitions.
pub fn write_status_events(out: &mut impl Write, s: &ClusterStatus) -> io::Result<()> {
    for b in &s.brokers {
        write_event(out, &ReplicationEvent::Broker(b))?;
    }
    for p in &s.partitions {
        write_event(out, &ReplicationEvent::Partition(p))?;
    }
    Ok(())
}
