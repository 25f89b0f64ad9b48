//! A Kafka cluster as its KRaft metadata log describes it.
//!
//! The log (`__cluster_metadata-0`: snapshots and segments of metadata records) is the truth,
//! as in KRaft: [`image::MetadataImage::load`] replays it into brokers, topics, partitions
//! (replicas, ISR, leader, epochs), configs and features, as a broker's `MetadataLoader` does;
//! [`whatif`] applies the controller's election rules to that image to tell what losing
//! brokers would do. The records are read through the layout-table decoder
//! ([`crate::decode`]), the one `dump-log-segments --cluster-metadata-decoder` uses, and typed
//! in [`records`].

pub mod brokers;
pub mod election;
pub mod image;
pub mod init;
pub mod reassign;
pub mod records;
pub mod replication;
pub mod topics;
pub mod whatif;

pub use image::{Broker, ImageError, MetadataImage, Partition, Topic, METADATA_PARTITION};
