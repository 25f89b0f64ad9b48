//! The storage code's calls into the operating system that `std` does not wrap: memory maps of
//! index files, and writeback of a segment's data. Every `unsafe` block of `log/` lives here.
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

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to disk, without waiting
/// (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`; elsewhere nothing). It is only a hint that
/// makes the next `fdatasync` short: the data is not durable until that sync.
pub(crate) fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
            return;
        };
        // SAFETY: an FFI call on a descriptor `file` keeps open for the duration of the call;
        // it reads no memory of ours. Its result is ignored on purpose: a failed hint only
        // leaves the work to the next fdatasync, which reports any I/O error.
        let _ = unsafe {
            libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE)
        };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}
