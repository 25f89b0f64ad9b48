//! The data directory's `.lock` file, locked so that kafkit processes share a directory among
//! themselves while a Kafka broker and kafkit exclude one another.
//!
//! Kafka takes `FileChannel.tryLock()` on `<dir>/.lock`, which on Linux is a POSIX `fcntl`
//! write lock over the whole file. kafkit takes open-file-description locks (`F_OFD_SETLK`) on
//! byte ranges of the same file; OFD locks and classic POSIX locks conflict with each other,
//! and unlike classic POSIX locks OFD locks also conflict between two opens in one process
//! (threads). `flock(2)` would not see a broker's lock. Three kinds of range:
//!
//! - byte 0, a **read** lock held by every kafkit writer for its life ([`DirLock`]): writers
//!   share it, and it conflicts with a broker's write lock both ways (kafkit refuses a
//!   directory a broker holds, and a broker cannot start on one kafkit is writing);
//! - byte 1, a write lock held while the directory's metadata changes ([`MetaLock`]: topic
//!   create, alter and delete, recovery of a crashed writer's leftovers, checkpoint merges);
//! - one byte per `__consumer_offsets` partition from [`COORDINATOR_RANGE_START`], a write
//!   lock taken without waiting by the member process that hosts that partition's group
//!   coordinator ([`CoordinatorLock`], `group::host`);
//! - one byte per partition above [`PARTITION_RANGE_START`], chosen by a hash of its name, a
//!   write lock held while a writer appends to the partition ([`PartitionLocks`]): appends of
//!   two writers never interleave. Two partitions may share a byte; they are then only appended
//!   to one at a time.
//!
//! Every lock is released when its file is closed (the guard is dropped) or the process dies.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

/// The lock file's name inside a data directory.
pub const LOCK_FILE: &str = ".lock";

/// How long writers wait for another writer by default before giving up.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// Held while this process writes to a data directory (shared with other kafkit processes,
/// never with a broker); released on drop.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    dir: PathBuf,
}

impl DirLock {
    /// The locked data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes the metadata lock, waiting up to `wait` while another kafkit process changes the
    /// directory's metadata.
    pub fn meta(&self, wait: Duration) -> Result<MetaLock, LockError> {
        let (path, file) = open_lock_file(&self.dir)?;
        lock_waiting(&file, Lock::Write, META_BYTE, wait)
            .map_err(|e| LockError::io(&path, e))?
            .then_some(MetaLock { _file: file })
            .ok_or_else(|| LockError::Busy {
                dir: self.dir.clone(),
            })
    }

    /// Tries to take the coordinator lock of `__consumer_offsets-<partition>` without waiting:
    /// `Ok(None)` when another open of `.lock` (another process, or another host in this one)
    /// holds it. Released on drop or when the process dies.
    pub fn try_coordinator(&self, partition: u32) -> Result<Option<CoordinatorLock>, LockError> {
        let (path, file) = open_lock_file(&self.dir)?;
        let byte = COORDINATOR_RANGE_START + i64::from(partition % COORDINATOR_RANGE_LEN);
        let taken =
            set_lock(&file, Lock::Write, byte, false).map_err(|e| LockError::io(&path, e))?;
        Ok(taken.then_some(CoordinatorLock { _file: file }))
    }

    /// A fresh set of partition locks (its own open of `.lock`: its locks conflict with those
    /// of every other set, in this process too).
    pub fn partition_locks(&self) -> Result<PartitionLocks, LockError> {
        let (path, file) = open_lock_file(&self.dir)?;
        Ok(PartitionLocks { file, path })
    }
}

/// Held while the directory's metadata changes; released on drop.
#[derive(Debug)]
pub struct MetaLock {
    _file: File,
}

/// Held while this process hosts the group coordinator of one `__consumer_offsets`
/// partition; released on drop.
#[derive(Debug)]
pub struct CoordinatorLock {
    _file: File,
}

/// Partition append locks of one writer ([`crate::datadir::PartitionWriter`]).
#[derive(Debug)]
pub struct PartitionLocks {
    file: File,
    path: PathBuf,
}

impl PartitionLocks {
    /// Takes the lock of the partition named `name` (`topic-partition`), waiting as long as
    /// another writer appends to it (an append holds it for one group of batches).
    pub fn lock(&self, name: &str) -> Result<(), LockError> {
        set_lock(&self.file, Lock::Write, partition_byte(name), true)
            .map(drop)
            .map_err(|e| LockError::io(&self.path, e))
    }

    /// Releases the partition's lock.
    pub fn unlock(&self, name: &str) -> Result<(), LockError> {
        set_lock(&self.file, Lock::Unlock, partition_byte(name), false)
            .map(drop)
            .map_err(|e| LockError::io(&self.path, e))
    }
}

/// Where the coordinator lock bytes start in `.lock` (one per `__consumer_offsets` partition).
pub const COORDINATOR_RANGE_START: i64 = 1 << 10;
/// How many coordinator lock bytes there are (Kafka allows at most this many partitions of
/// `__consumer_offsets` well below it; the range ends before the partitions').
const COORDINATOR_RANGE_LEN: u32 = (1 << 20) - (1 << 10);
/// Where partition lock bytes start in `.lock`.
pub const PARTITION_RANGE_START: i64 = 1 << 20;
/// How many partition lock bytes there are.
const PARTITION_RANGE_LEN: u64 = 1 << 40;
const SHARED_BYTE: i64 = 0;
const META_BYTE: i64 = 1;

/// The lock byte of a partition: FNV-1a of its name, a stable spread over a large range.
fn partition_byte(name: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    PARTITION_RANGE_START + (hash % PARTITION_RANGE_LEN) as i64
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// A broker (or something else taking a write lock on `.lock`) holds it (Kafka's message).
    #[error("Failed to acquire lock on file .lock in {}. A Kafka instance in another process or thread is using this directory.", dir.display())]
    Held {
        /// The data directory.
        dir: PathBuf,
    },
    /// Another kafkit process kept changing the directory's metadata for the whole wait.
    #[error("Timed out waiting for another kafkit process to finish changing the metadata of {}", dir.display())]
    Busy {
        /// The data directory.
        dir: PathBuf,
    },
    /// The lock file could not be opened or locked.
    #[error("could not lock {}: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

impl LockError {
    fn io(path: &Path, source: io::Error) -> Self {
        LockError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

fn open_lock_file(dir: &Path) -> Result<(PathBuf, File), LockError> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| LockError::io(&path, e))?;
    Ok((path, file))
}

/// Asks whether processes host the group coordinators of a data directory (hold their
/// [`CoordinatorLock`]s), without taking the locks and without creating `.lock`.
#[derive(Debug)]
pub struct CoordinatorProbe {
    /// `.lock`, when there is one (a directory without one has no host).
    lock_file: Option<(PathBuf, File)>,
}

impl CoordinatorProbe {
    /// The probe of the data directory `dir`.
    pub fn open(dir: &Path) -> Result<CoordinatorProbe, LockError> {
        let path = dir.join(LOCK_FILE);
        let lock_file = match File::open(&path) {
            Ok(file) => Some((path, file)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(LockError::io(&path, e)),
        };
        Ok(CoordinatorProbe { lock_file })
    }

    /// Whether a process hosts the coordinator of `__consumer_offsets-<partition>`.
    pub fn hosted(&self, partition: u32) -> Result<bool, LockError> {
        use std::os::fd::AsRawFd;
        let Some((path, file)) = &self.lock_file else {
            return Ok(false);
        };
        // SAFETY: `flock` is a plain C struct for which all-zero bytes are a valid value.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = libc::F_WRLCK as _;
        lock.l_whence = libc::SEEK_SET as _;
        lock.l_start =
            (COORDINATOR_RANGE_START + i64::from(partition % COORDINATOR_RANGE_LEN)) as _;
        lock.l_len = 1;
        // SAFETY: a valid open descriptor and a pointer to an initialised `flock`, which the
        // call overwrites with the conflicting lock, if any.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), GET_LOCK, &mut lock as *mut libc::flock) };
        if rc != 0 {
            return Err(LockError::io(path, io::Error::last_os_error()));
        }
        Ok(i32::from(lock.l_type) != libc::F_UNLCK)
    }
}

/// Takes the shared lock of `dir`'s `.lock` (creating it), waiting up to `wait` while a broker
/// (or an older kafkit, which took a write lock) holds it.
pub fn lock_dir(dir: &Path, wait: Duration) -> Result<DirLock, LockError> {
    let (path, file) = open_lock_file(dir)?;
    if lock_waiting(&file, Lock::Read, SHARED_BYTE, wait).map_err(|e| LockError::io(&path, e))? {
        Ok(DirLock {
            _file: file,
            dir: dir.to_path_buf(),
        })
    } else {
        Err(LockError::Held {
            dir: dir.to_path_buf(),
        })
    }
}

/// Tries to take a lock until `wait` has passed: `Ok(false)` when another holder kept it.
fn lock_waiting(file: &File, kind: Lock, byte: i64, wait: Duration) -> io::Result<bool> {
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(2);
    loop {
        if set_lock(file, kind, byte, false)? {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[derive(Debug, Clone, Copy)]
enum Lock {
    Read,
    Write,
    Unlock,
}

#[cfg(target_os = "linux")]
const SET_LOCK: libc::c_int = libc::F_OFD_SETLK;
#[cfg(target_os = "linux")]
const SET_LOCK_WAIT: libc::c_int = libc::F_OFD_SETLKW;
#[cfg(not(target_os = "linux"))]
const SET_LOCK: libc::c_int = libc::F_SETLK;
#[cfg(not(target_os = "linux"))]
const SET_LOCK_WAIT: libc::c_int = libc::F_SETLKW;
#[cfg(target_os = "linux")]
const GET_LOCK: libc::c_int = libc::F_OFD_GETLK;
#[cfg(not(target_os = "linux"))]
const GET_LOCK: libc::c_int = libc::F_GETLK;

/// Sets a lock on one byte of the file (`byte` 0 for the shared lock, and beyond the end for
/// the others: POSIX locks may cover bytes a file does not have): `Ok(false)` when another
/// holder has a conflicting one (never when `wait`, which blocks until it is free).
///
/// The only `unsafe` of the data directory. `fcntl` with a lock command reads one `flock`
/// struct that lives on our stack for the duration of the call; the descriptor is owned by
/// `file`, which outlives the call. OFD locks require `l_pid == 0`, which `zeroed` gives.
fn set_lock(file: &File, kind: Lock, byte: i64, wait: bool) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` is a plain C struct for which all-zero bytes are a valid value.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = match kind {
        Lock::Read => libc::F_RDLCK,
        Lock::Write => libc::F_WRLCK,
        Lock::Unlock => libc::F_UNLCK,
    } as _;
    lock.l_whence = libc::SEEK_SET as _;
    lock.l_start = byte as _;
    lock.l_len = 1;
    let command = if wait { SET_LOCK_WAIT } else { SET_LOCK };
    loop {
        // SAFETY: a valid open descriptor and a pointer to an initialised `flock` (see above).
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), command, &lock as *const libc::flock) };
        if rc == 0 {
            return Ok(true);
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(code) if code == libc::EINTR => continue,
            Some(code) if !wait && (code == libc::EAGAIN || code == libc::EACCES) => {
                return Ok(false)
            }
            _ => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_coordinator_lock_per_partition_until_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let lock = lock_dir(dir.path(), Duration::ZERO).unwrap();
        let held = lock.try_coordinator(3).unwrap();
        assert!(held.is_some());
        // Another open of `.lock` (another host, here in the same process) is refused...
        assert!(lock.try_coordinator(3).unwrap().is_none());
        // ...not another partition's, nor a partition lock or the metadata lock.
        assert!(lock.try_coordinator(4).unwrap().is_some());
        let partitions = lock.partition_locks().unwrap();
        partitions.lock("__consumer_offsets-3").unwrap();
        drop(lock.meta(Duration::ZERO).unwrap());
        drop(held);
        assert!(lock.try_coordinator(3).unwrap().is_some());
    }

    #[test]
    fn the_probe_sees_a_held_coordinator_lock_without_taking_it() {
        let dir = tempfile::tempdir().unwrap();
        // No `.lock`: no host, and none is made.
        assert!(!CoordinatorProbe::open(dir.path())
            .unwrap()
            .hosted(3)
            .unwrap());
        assert!(!dir.path().join(LOCK_FILE).exists());
        let lock = lock_dir(dir.path(), Duration::ZERO).unwrap();
        let probe = CoordinatorProbe::open(dir.path()).unwrap();
        assert!(!probe.hosted(3).unwrap());
        let held = lock.try_coordinator(3).unwrap();
        assert!(held.is_some());
        assert!(probe.hosted(3).unwrap());
        assert!(!probe.hosted(4).unwrap());
        // Asking took nothing: the holder keeps it, and it is free once dropped.
        assert!(lock.try_coordinator(3).unwrap().is_none());
        drop(held);
        assert!(!probe.hosted(3).unwrap());
        assert!(lock.try_coordinator(3).unwrap().is_some());
    }
}
