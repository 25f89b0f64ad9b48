//! The storage code's calls into the operating system that `std` does not wrap: memory maps of
//! index files, and writeback of a segment's data. Every `unsafe` block of `log/` lives here.
//!
//! Kafka memory-maps a segment's `.index` and `.timeindex` and so does kafkit, but a writer
//! touches its maps only while it holds the partition's append lock, and only after checking
//! that no other writer changed the files since it last held it ([`crate::log::Log::freshness`]:
//! the indexes still have the lengths it maps). A map of a file that another process truncated
//! raises SIGBUS on access; a writer that finds the files changed drops its maps unread and maps
//! them again ([`crate::log::Log::refresh`]). Readers use positioned reads instead (see
//! [`crate::log::index`]), never a map.

use std::fs::File;
use std::io;

use memmap2::MmapMut;

/// Maps `file` read-write, shared, over its current length.
pub(crate) fn map_mut(file: &File) -> io::Result<MmapMut> {
    // SAFETY: the map is only created and used under the partition's append lock, after the
    // file's length was checked to be the one mapped (another writer resizes it only under that
    // lock, and this one then drops the map unread), and every resize here drops the map first
    // (`IndexFile::resize_slots`). Bytes read through the map are treated as untrusted input
    // and never used to index memory unchecked.
    unsafe { MmapMut::map_mut(file) }
}

/// `len` zeroed bytes of anonymous memory, asked to be backed by huge pages where the system
/// allows it (Linux `MADV_HUGEPAGE`): a compaction's offset map, whose random probes over
/// 128 MiB otherwise miss the TLB nearly every time. `None` when the map fails (the caller
/// then takes ordinary heap memory).
pub(crate) fn huge_zeroed(len: usize) -> Option<MmapMut> {
    let map = MmapMut::map_anon(len.max(1)).ok()?;
    #[cfg(target_os = "linux")]
    {
        // Only a hint: without huge pages the map works the same.
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    Some(map)
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

/// The soft limit on open files of this process (`RLIMIT_NOFILE`), `None` when unlimited or
/// unknown.
pub(crate) fn open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one `rlimit` struct into the one we own, nothing else.
        let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
        // `rlim_t` is u64 on Linux, not on every Unix.
        #[allow(clippy::unnecessary_cast)]
        let soft = limit.rlim_cur as u64;
        (rc == 0 && limit.rlim_cur != libc::RLIM_INFINITY).then_some(soft)
    }
    #[cfg(not(unix))]
    None
}

/// What `fstatat` tells of a file: the fields of a [`crate::datadir`] file stamp.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StatAt {
    pub(crate) device: u64,
    pub(crate) inode: u64,
    pub(crate) size: u64,
    pub(crate) modified: (i64, i64),
    pub(crate) changed: (i64, i64),
}

/// The metadata of `name`, a path relative to the directory open as `dir` (`fstatat`,
/// following symbolic links): one lookup of `name`'s components instead of the whole path's,
/// for callers that stat many files under one directory.
#[cfg(unix)]
pub(crate) fn stat_at(dir: &File, name: &std::ffi::CStr) -> io::Result<StatAt> {
    use std::os::fd::AsRawFd;
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is a NUL-terminated string that outlives the call, `stat` is memory of
    // ours sized for one `struct stat`, and `dir` keeps its descriptor open for the call.
    let rc = unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), stat.as_mut_ptr(), 0) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fstatat returned 0, so it filled the whole struct.
    let stat = unsafe { stat.assume_init() };
    // The field types differ between platforms (and are these types on Linux x86-64).
    #[allow(clippy::unnecessary_cast, clippy::cast_sign_loss)]
    Ok(StatAt {
        device: stat.st_dev as u64,
        inode: stat.st_ino as u64,
        size: stat.st_size as u64,
        modified: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
        changed: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
    })
}
