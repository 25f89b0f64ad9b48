//! `kafkit metadata`: the cluster's metadata as kcat `-L` lists it (brokers, topics, every
//! partition's leader, replicas and ISR), rebuilt offline from a KRaft `__cluster_metadata-0`
//! directory: the newest snapshot, then the log after it.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::ValueHint;

use super::{stderrln, Example, GlobalArgs};
use kafkit::cluster::{MetadataImage, METADATA_PARTITION};
use kafkit::output::cluster::{write_image_events, write_kcat_listing};
use kafkit::output::OutputFormat;

/// Examples of `kafkit metadata` (`tests/man.rs` runs them, in order, in an empty directory).
pub const EXAMPLES: &[Example] = &[
    Example {
        what: "Make a cluster of three brokers in ./cluster:",
        line: "kafkit --data-dir cluster cluster init --brokers 3",
    },
    Example {
        what: "Its brokers, topics, leaders, replicas and ISRs, as kcat -L lists them:",
        line: "kafkit --data-dir cluster metadata",
    },
    Example {
        what: "The same from a copy of a broker's metadata log, as JSON Lines:",
        line: "kafkit --output json metadata --metadata-dir cluster/__cluster_metadata-0",
    },
];

/// Where the metadata log is: the data directory's `__cluster_metadata-0`, or the partition
/// directory itself.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct MetadataSource {
    /// The `__cluster_metadata-0` directory itself (a copy of a KRaft controller's or
    /// broker's), instead of the one in --data-dir.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub metadata_dir: Option<PathBuf>,
}

impl MetadataSource {
    /// The directory, and its image replayed; the replay's warnings go to stderr.
    pub fn load(&self, global: &GlobalArgs) -> Result<(PathBuf, MetadataImage)> {
        let dir = self
            .metadata_dir
            .clone()
            .unwrap_or_else(|| global.data_dir.join(METADATA_PARTITION));
        let image = MetadataImage::load(&dir)
            .with_context(|| format!("reading the cluster's metadata from {}", dir.display()))?;
        for warning in &image.provenance.warnings {
            stderrln!("WARN {warning}");
        }
        Ok((dir, image))
    }
}

/// Show a cluster's brokers, topics and partitions (leader, replicas, ISR) from its KRaft
/// metadata log, as kcat -L does.
///
/// The image is what a broker holds after loading the directory: the newest snapshot
/// (`<offset>-<epoch>.checkpoint`), then the log's records after it; a metadata transaction
/// counts once it ends. The text lists the brokers a metadata response would (unfenced, at
/// --listener or their first listener); the JSON lists every broker, every feature level and
/// config, and each partition's epochs and ELR.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub source: MetadataSource,
    /// The listener whose host and port are shown (a broker without it is left out, as a
    /// metadata response leaves it out). Default: each broker's first listener.
    #[arg(long, value_name = "NAME", value_hint = ValueHint::Other)]
    pub listener: Option<String>,
}

pub fn run(args: &Args, global: &GlobalArgs) -> Result<()> {
    let (dir, image) = args.source.load(global)?;
    let mut out = BufWriter::new(io::stdout().lock());
    match global.output {
        OutputFormat::Text => write_kcat_listing(&mut out, &image, &dir, args.listener.as_deref())?,
        OutputFormat::Json => write_image_events(&mut out, &image, &dir)?,
    }
    out.flush()?;
    Ok(())
}
