//! A Kafka cluster as its KRaft metadata log describes it.
//!
//! The log (`__cluster_metadata-0`: snapshots and segments of metadata records) is the truth,
//! as in KRaft: [`image::MetadataImage::load`] replays it into brokers, topics, partitions
//! (replicas, ISR, leader, epochs), configs and features, as a broker's `MetadataLoader` does;
//! [`whatif`] applies the controller's election rules to that image to tell what losing
//! brokers would do. The records are read through the layout-table decoder
//! ([`crate::decode`]), the one `dump-log-segments --cluster-metadata-decoder` uses, and typed
//! in [`records`].

use std::path::Path;

use crate::datadir::lock::{lock_dir, DirLock, LockError, MetaLock, DEFAULT_LOCK_WAIT};

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

/// The cluster's controller, as one process at a time: held by every operation that reads the
/// metadata image and appends records decided from it (topic changes, broker stops and starts,
/// elections, reassignments, replication steps), so that two kafkit processes never decide
/// from the same image, as KRaft has one active controller. It is the metadata lock of the
/// cluster directory's own `.lock` (`datadir::lock`), waited for up to
/// [`DEFAULT_LOCK_WAIT`]; released when dropped. Not re-entrant: an operation that runs
/// another under it calls that one's unlocked form.
#[derive(Debug)]
pub struct Controller {
    _meta: MetaLock,
    _dir: DirLock,
}

/// Takes the controller lock of the cluster at `cluster`.
pub fn controller(cluster: &Path) -> Result<Controller, LockError> {
    let dir = lock_dir(cluster, DEFAULT_LOCK_WAIT)?;
    let meta = dir.meta(DEFAULT_LOCK_WAIT)?;
    Ok(Controller {
        _meta: meta,
        _dir: dir,
    })
}
