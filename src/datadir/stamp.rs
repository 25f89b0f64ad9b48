//! The identity of a file as its metadata gives it, for caches that trust what they recorded of
//! a file while the file is unchanged (`tails`, `log_ends`).

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::log::segment;

/// The identity of a file: any write, truncation or replacement changes it (size, inode, or
/// the modification and change times), and its change time cannot be set back.
///
/// A stamp shows a change only if the change moved a time or the size: two writes within one
/// tick of the file system's clock that leave the size as it was look alike. A cache that
/// records stamps it took at some time T is safe from that if it records only files whose
/// times are well before T ([`FileStamp::settled_before`]), as git's index is from "racily
/// clean" entries: any later change then gets a later time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileStamp {
    pub(crate) device: u64,
    pub(crate) inode: u64,
    pub(crate) size: u64,
    pub(crate) modified: (i64, i64),
    pub(crate) changed: (i64, i64),
}

/// The size of [`FileStamp::to_bytes`].
pub(crate) const STAMP_BYTES: usize = 56;

impl FileStamp {
    /// The stamp of the `.log` file of the segment at `base` in `dir`.
    pub(crate) fn of_segment(dir: &Path, base: i64) -> Option<FileStamp> {
        Self::of(&dir.join(segment::file_name(base, ".log")))
    }

    /// The stamp of the file or directory at `path`, `None` if it cannot be read.
    #[cfg(unix)]
    pub(crate) fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(path).ok()?;
        Some(FileStamp {
            device: meta.dev(),
            inode: meta.ino(),
            size: meta.size(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// No stamps where there are no inodes: nothing is trusted.
    #[cfg(not(unix))]
    pub(crate) fn of(_path: &Path) -> Option<FileStamp> {
        None
    }

    /// The stamp of `name`, a path relative to the directory open as `dir`, `None` if it
    /// cannot be read (one lookup of `name`'s components, not of the whole path).
    #[cfg(unix)]
    pub(crate) fn at(dir: &fs::File, name: &std::ffi::CStr) -> Option<FileStamp> {
        let s = crate::log::os::stat_at(dir, name).ok()?;
        Some(FileStamp {
            device: s.device,
            inode: s.inode,
            size: s.size,
            modified: s.modified,
            changed: s.changed,
        })
    }

    /// No stamps where there are no inodes: nothing is trusted.
    #[cfg(not(unix))]
    pub(crate) fn at(_dir: &fs::File, _name: &std::ffi::CStr) -> Option<FileStamp> {
        None
    }

    /// Whether both of the file's times are before `time` (seconds, nanoseconds).
    pub(crate) fn settled_before(&self, time: (i64, i64)) -> bool {
        self.modified < time && self.changed < time
    }

    /// The stamp as 56 bytes (seven big-endian 64-bit numbers).
    pub(crate) fn to_bytes(self) -> [u8; STAMP_BYTES] {
        let numbers = [
            self.device.to_be_bytes(),
            self.inode.to_be_bytes(),
            self.size.to_be_bytes(),
            self.modified.0.to_be_bytes(),
            self.modified.1.to_be_bytes(),
            self.changed.0.to_be_bytes(),
            self.changed.1.to_be_bytes(),
        ];
        let mut out = [0; STAMP_BYTES];
        for (chunk, n) in out.chunks_exact_mut(8).zip(numbers) {
            chunk.copy_from_slice(&n);
        }
        out
    }

    /// A stamp from [`Self::to_bytes`]'s form.
    pub(crate) fn from_bytes(bytes: &[u8; STAMP_BYTES]) -> FileStamp {
        let mut n = bytes
            .chunks_exact(8)
            .map(|c| u64::from_be_bytes(c.try_into().unwrap_or_default()));
        let mut next = || n.next().unwrap_or_default();
        let signed = |v: u64| i64::from_be_bytes(v.to_be_bytes());
        FileStamp {
            device: next(),
            inode: next(),
            size: next(),
            modified: (signed(next()), signed(next())),
            changed: (signed(next()), signed(next())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_reads_back_from_its_bytes() {
        let stamp = FileStamp {
            device: 2049,
            inode: u64::MAX - 1,
            size: 1 << 40,
            modified: (1_764_000_000, 999_999_999),
            changed: (-1, 0),
        };
        assert_eq!(FileStamp::from_bytes(&stamp.to_bytes()), stamp);
        assert!(stamp.settled_before((1_764_000_001, 0)));
        assert!(!stamp.settled_before((1_764_000_000, 999_999_999)));
    }
}
