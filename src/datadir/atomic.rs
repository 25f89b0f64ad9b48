//! Crash-safe file replacement: write a temporary file, sync it, rename it over the target,
//! sync the directory. A crash at any instant leaves either the old file or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The temporary name used while `path` is being replaced: `<path>.tmp`, as Kafka names its
/// checkpoint temporaries. Writers hold the directory lock, so one name is enough.
pub fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Replaces `path` with `bytes` atomically and durably, through `<path>.tmp`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_via(path, &temp_path(path), bytes)
}

/// Replaces `path` with `bytes` atomically and durably, through the temporary file `tmp`
/// (which must be on the same file system).
pub fn write_atomic_via(path: &Path, tmp: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_via(path, tmp, bytes, true)
}

/// Replaces `path` with `bytes` through `<path>.tmp` without syncing anything: readers see the
/// old file or the new one, but a crash may leave neither (for files only worth having until
/// the machine restarts).
pub(crate) fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_via(path, &temp_path(path), bytes, false)
}

/// [`replace`] through the temporary file `tmp`, for files that writers without the lock
/// replace (each its own `tmp`).
pub(crate) fn replace_through(path: &Path, tmp: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_via(path, tmp, bytes, false)
}

fn replace_via(path: &Path, tmp: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(tmp)?;
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        drop(file);
        fs::rename(tmp, path)?;
        if durable {
            sync_parent(path)?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(tmp);
    }
    result
}

/// Syncs the directory holding `path`, so a rename or a new entry in it survives a crash.
pub fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => sync_dir(dir),
        _ => sync_dir(Path::new(".")),
    }
}

/// Syncs a directory's entries.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
