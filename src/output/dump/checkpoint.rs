//! KRaft snapshots (`<20-digit end offset>-<10-digit epoch>.checkpoint`, and the
//! `bootstrap.checkpoint` of a new cluster): record batches like a `.log`, after a header line
//! that names the snapshot (§15).

use super::event::Header;
use crate::cluster::image::parse_snapshot_name;

/// The header Kafka prints before a `.checkpoint`'s batches: `KRaft bootstrap snapshot` for
/// `bootstrap.checkpoint`, else `Snapshot end offset: <offset>, epoch: <epoch>` from the name;
/// `None` for another name (where Kafka's tool fails).
pub(super) fn header(name: &str) -> Option<Header> {
    if name == "bootstrap.checkpoint" {
        return Some(Header {
            text: "KRaft bootstrap snapshot".to_string(),
            base_offset: None,
            end_offset: None,
            epoch: None,
        });
    }
    let (offset, epoch) = parse_snapshot_name(name)?;
    Some(Header {
        text: format!("Snapshot end offset: {offset}, epoch: {epoch}"),
        base_offset: None,
        end_offset: Some(offset),
        epoch: Some(epoch),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_names() {
        assert_eq!(
            parse_snapshot_name("00000000000000014459-0000000001.checkpoint"),
            Some((14459, 1))
        );
        assert_eq!(parse_snapshot_name("x.checkpoint"), None);
        assert_eq!(
            header("bootstrap.checkpoint").map(|h| h.text),
            Some("KRaft bootstrap snapshot".to_string())
        );
        assert_eq!(
            header("00000000000000014459-0000000001.checkpoint").map(|h| h.text),
            Some("Snapshot end offset: 14459, epoch: 1".to_string())
        );
    }
}
