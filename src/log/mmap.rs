//! The one place that memory-maps files. Every `unsafe` block of the storage code lives here.
//!
//! Kafka memory-maps a segment's `.index` and `.timeindex` and so does kafkit, but only while it
//! holds the data directory's `.lock` as the writer of that partition. A map of a file that another
//! process truncates raises SIGBUS on access; holding the lock means no other kafkit process
//! writes (and so truncates) these files while they are mapped. Readers that do not hold the lock
//! use positioned reads instead (see [`crate::log::index`]), never a map.

use std::fs::File;
use std::io;

use memmap2::MmapMut;

/// Maps `file` read-write, shared, over its current length.
pub(crate) fn map_mut(file: &File) -> io::Result<MmapMut> {
    // SAFETY: the map is only created by the holder of the data directory's write lock, for an
    // index file that only this process truncates or resizes, and every resize drops the map
    // first (`IndexFile::remap`). Bytes read through the map are treated as untrusted input and
    // never used to index memory unchecked.
    unsafe { MmapMut::map_mut(file) }
}
