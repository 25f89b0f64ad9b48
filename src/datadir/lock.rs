//! The data directory's `.lock` file, locked the way a Kafka broker locks it.
//!
//! Kafka takes `FileChannel.tryLock()` on `<dir>/.lock`, which on Linux is a POSIX `fcntl`
//! write lock over the whole file. We take an open-file-description lock (`F_OFD_SETLK`) on the
//! same range: OFD locks and classic POSIX locks conflict with each other, so a running broker
//! and kafkit exclude one another, and unlike classic POSIX locks OFD locks also conflict
//! between two opens in the same process (threads). `flock(2)` would not see a broker's lock.
//! The lock is released when the file is closed (the guard is dropped) or the process dies.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

/// The lock file's name inside a data directory.
pub const LOCK_FILE: &str = ".lock";

/// How long writers wait for another writer by default before giving up.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// Held while this process writes to a data directory; released on drop.
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
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Someone else holds it (Kafka's message).
    #[error("Failed to acquire lock on file .lock in {}. A Kafka instance in another process or thread is using this directory.", dir.display())]
    Held {
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

/// Locks `<dir>/.lock` (creating it), waiting up to `wait` while another holder has it.
pub fn lock_dir(dir: &Path, wait: Duration) -> Result<DirLock, LockError> {
    let path = dir.join(LOCK_FILE);
    let io_err = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io_err)?;
    let deadline = Instant::now() + wait;
    let mut pause = Duration::from_millis(2);
    loop {
        if try_write_lock(&file).map_err(io_err)? {
            return Ok(DirLock {
                _file: file,
                dir: dir.to_path_buf(),
            });
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(LockError::Held {
                dir: dir.to_path_buf(),
            });
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[cfg(target_os = "linux")]
const SET_LOCK: libc::c_int = libc::F_OFD_SETLK;
#[cfg(not(target_os = "linux"))]
const SET_LOCK: libc::c_int = libc::F_SETLK;

/// Tries to take a write lock over the whole file: `Ok(false)` when another holder has it.
///
/// The only `unsafe` of the data directory. `fcntl` with a lock command reads one `flock`
/// struct that lives on our stack for the duration of the call; the descriptor is owned by
/// `file`, which outlives the call. OFD locks require `l_pid == 0`, which `zeroed` gives.
fn try_write_lock(file: &File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` is a plain C struct for which all-zero bytes are a valid value.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK as _;
    lock.l_whence = libc::SEEK_SET as _;
    lock.l_start = 0;
    lock.l_len = 0;
    // SAFETY: a valid open descriptor and a pointer to an initialised `flock` (see above).
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), SET_LOCK, &lock as *const libc::flock) };
    if rc == 0 {
        return Ok(true);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(code) if code == libc::EAGAIN || code == libc::EACCES => Ok(false),
        _ => Err(err),
    }
}
