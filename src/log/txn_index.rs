//! A segment's transaction index (`.txnindex`), as Kafka's `TransactionIndex` and `AbortedTxn`
//! read it.
//!
//! The index lists the transactions aborted in the segment, one entry appended when the ABORT
//! marker is, so that a `read_committed` consumer can skip their records without reading the
//! log twice. Entries are [`ABORTED_TXN_SIZE`] bytes, with no header and no preallocation:
//! int16 version (0), int64 producerId, int64 firstOffset, int64 lastOffset (the marker's
//! offset), int64 lastStableOffset. The file is created on the first abort, so most segments
//! have none.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::chunks::Chunks;
use super::error::{LogError, Result};

/// Bytes of one entry.
pub const ABORTED_TXN_SIZE: usize = 34;

/// The entry version Kafka writes and reads.
pub const ABORTED_TXN_CURRENT_VERSION: i16 = 0;

/// One aborted transaction (Kafka's `AbortedTxn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    /// The entry's version. Kafka reads it from the first byte only (`buffer.get`), so this is
    /// that byte, signed.
    pub version: i16,
    /// The producer whose transaction was aborted.
    pub producer_id: i64,
    /// The transaction's first offset.
    pub first_offset: i64,
    /// The offset of its ABORT marker.
    pub last_offset: i64,
    /// The partition's last stable offset when the marker was written.
    pub last_stable_offset: i64,
}

fn be_i64(bytes: &[u8; ABORTED_TXN_SIZE], at: usize) -> i64 {
    let mut raw = [0u8; 8];
    if let Some(src) = bytes.get(at..at + 8) {
        raw.copy_from_slice(src);
    }
    i64::from_be_bytes(raw)
}

impl AbortedTxn {
    /// Decodes an entry.
    pub fn decode(bytes: &[u8; ABORTED_TXN_SIZE]) -> Self {
        AbortedTxn {
            version: i16::from(bytes[0].cast_signed()),
            producer_id: be_i64(bytes, 2),
            first_offset: be_i64(bytes, 10),
            last_offset: be_i64(bytes, 18),
            last_stable_offset: be_i64(bytes, 26),
        }
    }

    /// Encodes an entry (the version as the int16 Kafka writes).
    pub fn encode(&self) -> [u8; ABORTED_TXN_SIZE] {
        let mut out = [0u8; ABORTED_TXN_SIZE];
        let fields = [
            self.producer_id,
            self.first_offset,
            self.last_offset,
            self.last_stable_offset,
        ];
        for (slot, field) in out
            .get_mut(2..)
            .unwrap_or_default()
            .chunks_exact_mut(8)
            .zip(fields)
        {
            slot.copy_from_slice(&field.to_be_bytes());
        }
        if let Some(slot) = out.get_mut(..2) {
            slot.copy_from_slice(&self.version.to_be_bytes());
        }
        out
    }
}

/// A `.txnindex` opened for reading.
#[derive(Debug)]
pub struct TransactionIndex {
    path: PathBuf,
    file: File,
    len: u64,
}

impl TransactionIndex {
    /// Opens the index at `path` for reading. Errors name `path` as given (Kafka names the
    /// absolute path: open it by that to read Kafka's messages).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(LogError::io("opening transaction index", path))?;
        let len = file
            .metadata()
            .map_err(LogError::io("reading the size of", path))?
            .len();
        Ok(TransactionIndex {
            path: path.to_path_buf(),
            file,
            len,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its length when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when it holds no whole entry.
    pub fn is_empty(&self) -> bool {
        self.len < ABORTED_TXN_SIZE as u64
    }

    /// The entries in file order, each with its byte position, read while a whole entry
    /// remains of the length seen at opening (a shorter tail is ignored, as Kafka does; a file
    /// trimmed under the reader ends where it ends). An entry of a version Kafka does not know
    /// is an error ([`LogError::AbortedTxnVersion`], Kafka's `KafkaException`), and the last
    /// item.
    pub fn entries(&self) -> AbortedTxns<'_> {
        AbortedTxns {
            index: self,
            chunks: Chunks::new(ABORTED_TXN_SIZE, 1024, self.len),
        }
    }
}

/// The entries of a [`TransactionIndex`] (see [`TransactionIndex::entries`]).
#[derive(Debug)]
pub struct AbortedTxns<'a> {
    index: &'a TransactionIndex,
    chunks: Chunks,
}

impl Iterator for AbortedTxns<'_> {
    type Item = Result<(u64, AbortedTxn)>;

    fn next(&mut self) -> Option<Self::Item> {
        let (position, txn) = match self.chunks.next(&self.index.file, &self.index.path)? {
            Ok((position, bytes)) => (position, AbortedTxn::decode(bytes.try_into().ok()?)),
            // Trimmed under the reader: its entries end there.
            Err(LogError::Io { source, .. }) if source.kind() == ErrorKind::UnexpectedEof => {
                return None
            }
            Err(e) => return Some(Err(e)),
        };
        if txn.version > ABORTED_TXN_CURRENT_VERSION {
            // Kafka's iteration stops here; so does this one.
            self.chunks.stop();
            return Some(Err(LogError::AbortedTxnVersion {
                version: txn.version,
                path: self.index.path.clone(),
                position,
            }));
        }
        Some(Ok((position, txn)))
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)] // a test's panic is its failure
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_and_a_short_tail_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.txnindex");
        let txns: Vec<AbortedTxn> = (0..2500)
            .map(|i| AbortedTxn {
                version: 0,
                producer_id: i,
                first_offset: 10 * i,
                last_offset: 10 * i + 5,
                last_stable_offset: 10 * i - 1,
            })
            .collect();
        let mut bytes: Vec<u8> = txns.iter().flat_map(AbortedTxn::encode).collect();
        bytes.extend_from_slice(&[0; 7]);
        std::fs::write(&path, &bytes).unwrap();
        let index = TransactionIndex::open(&path).unwrap();
        let read: Vec<(u64, AbortedTxn)> = index.entries().map(Result::unwrap).collect();
        assert_eq!(read.len(), txns.len());
        for (i, ((position, got), want)) in read.iter().zip(&txns).enumerate() {
            assert_eq!(*position, (i * ABORTED_TXN_SIZE) as u64);
            assert_eq!(got, want);
        }
    }

    #[test]
    fn an_unknown_version_ends_the_entries_in_kafkas_words() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.txnindex");
        let txn = AbortedTxn {
            version: 0,
            producer_id: 5,
            first_offset: 10,
            last_offset: 20,
            last_stable_offset: 10,
        };
        let mut bytes = [txn.encode(), txn.encode(), txn.encode()].concat();
        bytes[34] = 1;
        std::fs::write(&path, &bytes).unwrap();
        let index = TransactionIndex::open(&path).unwrap();
        let mut entries = index.entries();
        assert_eq!(entries.next().unwrap().unwrap(), (0, txn));
        let err = entries.next().unwrap().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "Unexpected aborted transaction version 1 in transaction index {}, current version is 0",
                path.display()
            )
        );
        assert!(matches!(
            err,
            LogError::AbortedTxnVersion { position: 34, .. }
        ));
        assert!(entries.next().is_none());
        // Kafka reads the version from the first byte: 0xff is -1, which it accepts.
        bytes[34] = 0xff;
        assert_eq!(
            AbortedTxn::decode(bytes[34..68].try_into().unwrap()).version,
            -1
        );
    }
}
