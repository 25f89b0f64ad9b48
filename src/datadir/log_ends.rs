//! The log-end cache: the log end offsets readers found, kept with the identity of what they
//! read them from, so that the next reader of an unchanged partition pays two `statx` for it
//! instead of listing its directory and reading the tail of its active segment.
//!
//! A broker answers "where does this log end" from memory. A kafkit command starts cold, and a
//! tool that needs the log end of every partition of a large group (`consumer-groups
//! --describe`) spends most of its time in the kernel reading them: 12 system calls a
//! partition. The cache, `.kafkit-log-ends` at the data directory's root, holds for each
//! partition read: the stamp (`FileStamp`) of its directory (any segment added, removed or renamed
//! changes it), the base offset and stamp of its active segment's `.log` (any append,
//! truncation or replacement changes it), and the log end offset found. A reader whose two
//! stamps still match uses the offset; any difference reads the log as before.
//!
//! **What is trusted.** A stamp misses a change only when the change leaves the size as it
//! was and happens within the same tick of the file system's clock as the stamped state (a
//! truncation and a rewrite to the same length in the same millisecond). So, as git does with
//! "racily clean" index entries, an entry is recorded only when both times of the directory
//! and of the segment are more than [`SETTLED`] before the reader started: any later change
//! then gets a later time, and with it another stamp. The stamps are taken before the
//! directory is listed and before the segment is read, so a change during the read leaves a
//! stamp that no longer matches. Nothing else is cached: a log whose active segment ends in
//! bytes that do not frame a batch (its warning is printed at every read), or that is read
//! from a cleaning's `.swap` files, is read every time.
//!
//! **Where.** Only in data directories kafkit already keeps files in (its topics file or its
//! unflushed tails): a read command adds no file to a copy of a broker's directory. The file
//! is only a cache: it is replaced through a temporary file of the process's own, never
//! synced; a missing, damaged (its CRC-32C does not match) or unwritable one costs only the
//! reads it would have saved.

use std::ffi::CStr;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hashbrown::HashTable;
use rustc_hash::FxHashMap;

use super::stamp::FileStamp;
use crate::log::{LogEnd, LogError, LogReader};

/// File name of the log-end cache (data directory root).
pub const LOG_END_CACHE: &str = ".kafkit-log-ends";

/// How long before a reader started a file must have last changed for its stamp to be trusted:
/// coarser than any file system clock's tick kafkit runs on.
pub const SETTLED: Duration = Duration::from_secs(2);

const MAGIC: &[u8; 8] = b"kafkitLE";
const VERSION: u32 = 1;

/// What is recorded of one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    dir: FileStamp,
    /// The active segment's base offset and its `.log`'s stamp; `None` for a log without
    /// segments.
    segment: Option<(i64, FileStamp)>,
    log_end: i64,
}

/// A lookup's answer: the log end (`None`: the partition has no directory) and what to record.
#[derive(Debug)]
pub struct Found {
    /// The log end, as [`LogReader::log_end`] gives it.
    pub end: Option<LogEnd>,
    /// Whether it is the recorded one (the partition's files unchanged since).
    pub from_cache: bool,
    /// The partition's new entry, when one may be recorded; `Stale` when the recorded one no
    /// longer holds and none replaces it.
    update: Update,
}

impl Found {
    /// Whether the log end is all there is to it: nothing to record, no skipped tail.
    pub(crate) fn is_plain(&self) -> bool {
        matches!(self.update, Update::None)
            && self.end.as_ref().is_none_or(|end| end.skipped.is_none())
    }
}

#[derive(Debug)]
enum Update {
    None,
    Record(String, Entry),
    Stale(String),
}

/// The cache of one data directory, as read when a command started.
#[derive(Debug)]
pub struct LogEndCache {
    root: PathBuf,
    /// The root, open for `fstatat` of the names under it (`None`: cannot be opened).
    root_dir: Option<fs::File>,
    recorded: Recorded,
    /// Files whose times are before this are settled.
    settled_before: (i64, i64),
    /// Whether the cache may be written here.
    writable: bool,
}

impl LogEndCache {
    /// The cache of the data directory at `root` (empty when there is none, or it is damaged).
    pub fn load(root: &Path) -> LogEndCache {
        let since_epoch = SystemTime::now()
            .checked_sub(SETTLED)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .unwrap_or_default();
        let writable = [super::TOPICS_FILE, super::UNFLUSHED_TAILS]
            .iter()
            .any(|f| root.join(f).is_file());
        let recorded = fs::read(root.join(LOG_END_CACHE))
            .ok()
            .and_then(Recorded::parse)
            .unwrap_or_default();
        LogEndCache {
            root: root.to_path_buf(),
            root_dir: fs::File::open(root).ok(),
            recorded,
            settled_before: (
                i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
                i64::from(since_epoch.subsec_nanos()),
            ),
            writable,
        }
    }

    /// The stamp of `path` (a NUL-terminated path under the root), `None` when it cannot be
    /// read.
    fn stamp(&self, path: &CStr) -> Option<FileStamp> {
        match &self.root_dir {
            Some(root) => FileStamp::at(root, path),
            None => FileStamp::of(&self.root.join(path.to_str().ok()?)),
        }
    }

    /// The log end of the partition whose directory is `name` under the root: the recorded one
    /// when the directory and its active segment are unchanged, else read from the log.
    pub fn log_end(&self, name: &str) -> Result<Found, LogError> {
        // The names to look up are built on the stack: one lookup costs two `fstatat` and no
        // allocation when the partition is unchanged.
        let mut path = StatPath::new(name);
        let dir_stamp = path.dir().and_then(|dir| self.stamp(dir));
        let mut segment_stamp = |base: i64| path.segment(base).and_then(|seg| self.stamp(seg));
        let Some(dir_stamp) = dir_stamp else {
            // No directory (or none that can be read): what the reader says of it.
            return read_log_end(&self.root.join(name)).map(|end| Found {
                end,
                from_cache: false,
                update: Update::None,
            });
        };
        let recorded = self.recorded.get(name);
        if let Some(entry) = recorded.filter(|e| e.dir == dir_stamp) {
            let unchanged = match entry.segment {
                None => true,
                Some((base, recorded)) => segment_stamp(base) == Some(recorded),
            };
            if unchanged {
                return Ok(Found {
                    end: Some(LogEnd {
                        offset: entry.log_end,
                        skipped: None,
                    }),
                    from_cache: true,
                    update: Update::None,
                });
            }
        }
        let dir = self.root.join(name);
        let mut log = match LogReader::open(&dir) {
            Ok(log) => log,
            Err(_) if !dir.is_dir() => {
                return Ok(Found {
                    end: None,
                    from_cache: false,
                    update: Update::None,
                })
            }
            Err(e) => return Err(e),
        };
        let segment = log
            .segment_base_offsets()
            .last()
            .map(|&base| (base, segment_stamp(base)));
        let end = log.log_end()?;
        let settled = |s: &FileStamp| s.settled_before(self.settled_before);
        let entry = match segment {
            _ if end.skipped.is_some() || log.reads_swap_files() || !settled(&dir_stamp) => None,
            None => Some(None),
            Some((base, Some(stamp))) if settled(&stamp) => Some(Some((base, stamp))),
            Some(_) => None,
        }
        .map(|segment| Entry {
            dir: dir_stamp,
            segment,
            log_end: end.offset,
        });
        let update = match entry {
            Some(entry) if recorded != Some(&entry) => Update::Record(name.to_string(), entry),
            Some(_) => Update::None,
            None if recorded.is_some() => Update::Stale(name.to_string()),
            None => Update::None,
        };
        Ok(Found {
            end: Some(end),
            from_cache: false,
            update,
        })
    }

    /// Records what `found` learned and writes the cache if it changed. A cache that cannot be
    /// written is left as it was (it only saves reads).
    pub fn save<'a>(self, found: impl IntoIterator<Item = &'a Found>) {
        let mut updates: FxHashMap<&str, Option<&Entry>> = FxHashMap::default();
        for f in found {
            match &f.update {
                Update::None => {}
                Update::Record(name, entry) => {
                    updates.insert(name, Some(entry));
                }
                Update::Stale(name) => {
                    if self.recorded.get(name).is_some() {
                        updates.insert(name, None);
                    }
                }
            }
        }
        if updates.is_empty() || !self.writable {
            return;
        }
        let kept = self
            .recorded
            .iter()
            .filter(|(name, _)| !updates.contains_key(name));
        let new = updates
            .iter()
            .filter_map(|(name, entry)| Some((*name, (*entry)?)));
        let mut entries: Vec<(&str, &Entry)> = kept.chain(new).collect();
        // In the order readers ask (`TopicPartition`'s: topic, then partition number), so
        // that their lookups walk the table's entries in memory order, not at random.
        entries.sort_unstable_by_key(|(name, _)| match name.rsplit_once('-') {
            Some((topic, partition)) => (topic, partition.parse::<u32>().unwrap_or(u32::MAX)),
            None => (*name, u32::MAX),
        });
        let path = self.root.join(LOG_END_CACHE);
        let tmp = self
            .root
            .join(format!("{LOG_END_CACHE}.{}.tmp", std::process::id()));
        let _ = super::atomic::replace_through(&path, &tmp, &encode(entries.into_iter()));
    }
}

/// A partition's directory name and the path of one of its segments, NUL-terminated for
/// `fstatat`, in a buffer on the stack. A name too long for it (no valid topic's is) gets no
/// stamp: its log is read every time, as one without a cache entry.
struct StatPath {
    buf: [u8; 320],
    name_len: usize,
}

impl StatPath {
    fn new(name: &str) -> Self {
        let mut buf = [0; 320];
        let name_len = match buf.get_mut(..name.len()) {
            Some(head) if !name.as_bytes().contains(&0) => {
                head.copy_from_slice(name.as_bytes());
                name.len()
            }
            _ => usize::MAX,
        };
        StatPath { buf, name_len }
    }

    /// `name`.
    fn dir(&mut self) -> Option<&CStr> {
        *self.buf.get_mut(self.name_len)? = 0;
        CStr::from_bytes_with_nul(self.buf.get(..=self.name_len)?).ok()
    }

    /// `name/<base, 20 digits>.log`.
    fn segment(&mut self, base: i64) -> Option<&CStr> {
        // `segment::file_name`'s form, with the digits put in place here: the formatter pads
        // them one character at a time (about 3% of a describe's CPU over 10,000 partitions).
        const TAIL: &[u8] = b"/00000000000000000000.log\0";
        let tail = self.buf.get_mut(self.name_len..)?.get_mut(..TAIL.len())?;
        tail.copy_from_slice(TAIL);
        let mut rest = u64::try_from(base).ok()?;
        for digit in tail.get_mut(1..21)?.iter_mut().rev() {
            *digit = b'0' + u8::try_from(rest % 10).ok()?;
            rest /= 10;
        }
        if rest != 0 {
            return None;
        }
        CStr::from_bytes_with_nul(self.buf.get(..self.name_len + TAIL.len())?).ok()
    }
}

/// The log end of the partition in `dir`, `None` when it has no directory.
fn read_log_end(dir: &Path) -> Result<Option<LogEnd>, LogError> {
    match LogReader::open(dir).and_then(|mut log| log.log_end()) {
        Ok(end) => Ok(Some(end)),
        Err(_) if !dir.is_dir() => Ok(None),
        Err(e) => Err(e),
    }
}

/// The entries of a cache file, as read: the file's bytes and, per partition, where its name is
/// in them and its entry, found by name through a hash table. Reading 10,000 entries allocates
/// three blocks, not one string each.
#[derive(Debug, Default)]
struct Recorded {
    bytes: Vec<u8>,
    slots: Vec<(Range<usize>, Entry)>,
    /// Indexes into `slots`, hashed by name.
    table: HashTable<usize>,
}

impl Recorded {
    /// The entries of a cache file; `None` if it is not one of this version or is damaged.
    fn parse(bytes: Vec<u8>) -> Option<Recorded> {
        let mut r = Reader {
            bytes: &bytes,
            at: 0,
        };
        if r.take(8)? != MAGIC || r.u32()? != VERSION {
            return None;
        }
        let crc = r.u32()?;
        if crate::record::crc32c(bytes.get(r.at..)?) != crc {
            return None;
        }
        let count = usize::try_from(r.u32()?).ok()?;
        let mut slots = Vec::with_capacity(count.min(1 << 20));
        let mut table = HashTable::with_capacity(count.min(1 << 20));
        for _ in 0..count {
            let len = usize::from(u16::from_be_bytes(r.array()?));
            let name = r.at..r.at + len;
            std::str::from_utf8(r.take(len)?).ok()?;
            let dir = FileStamp::from_bytes(&r.array()?);
            let segment = match r.take(1)? {
                [0] => None,
                [1] => Some((
                    i64::from_be_bytes(r.array()?),
                    FileStamp::from_bytes(&r.array()?),
                )),
                _ => return None,
            };
            let log_end = i64::from_be_bytes(r.array()?);
            let key = bytes.get(name.clone())?;
            let hash = hash_name(key);
            if table
                .find(hash, |&i| name_of(&slots, &bytes, i) == Some(key))
                .is_some()
            {
                return None;
            }
            table.insert_unique(hash, slots.len(), |&i| {
                name_of(&slots, &bytes, i).map_or(0, hash_name)
            });
            slots.push((
                name,
                Entry {
                    dir,
                    segment,
                    log_end,
                },
            ));
        }
        (r.at == bytes.len()).then_some(Recorded {
            bytes,
            slots,
            table,
        })
    }

    /// The entry recorded for `name`.
    fn get(&self, name: &str) -> Option<&Entry> {
        let name = name.as_bytes();
        let i = self
            .table
            .find(hash_name(name), |&i| self.name(i) == Some(name))?;
        self.slots.get(*i).map(|(_, entry)| entry)
    }

    fn name(&self, i: usize) -> Option<&[u8]> {
        name_of(&self.slots, &self.bytes, i)
    }

    /// Every entry, in the file's order.
    fn iter(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.slots.iter().filter_map(|(name, entry)| {
            let name = std::str::from_utf8(self.bytes.get(name.clone())?).ok()?;
            Some((name, entry))
        })
    }
}

/// The name of slot `i`.
fn name_of<'a>(slots: &[(Range<usize>, Entry)], bytes: &'a [u8], i: usize) -> Option<&'a [u8]> {
    slots.get(i).and_then(|(name, _)| bytes.get(name.clone()))
}

/// SipHash: names such as `orders-1234` differ in a few bytes, which FxHash spreads too little
/// for the table's probes.
fn hash_name(name: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(name);
    hasher.finish()
}

/// The file: magic, version, the CRC-32C of what follows it, the entry count, then each entry:
/// its name (length-prefixed), the directory's stamp, a segment flag with the base offset and
/// stamp, the log end. Numbers are big-endian.
fn encode<'a>(entries: impl Iterator<Item = (&'a str, &'a Entry)>) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&[0; 4]);
    let mut count: u32 = 0;
    for (name, entry) in entries {
        let name = name.as_bytes();
        let Ok(len) = u16::try_from(name.len()) else {
            continue;
        };
        let Some(next) = count.checked_add(1) else {
            break;
        };
        count = next;
        body.extend_from_slice(&len.to_be_bytes());
        body.extend_from_slice(name);
        body.extend_from_slice(&entry.dir.to_bytes());
        match entry.segment {
            None => body.push(0),
            Some((base, stamp)) => {
                body.push(1);
                body.extend_from_slice(&base.to_be_bytes());
                body.extend_from_slice(&stamp.to_bytes());
            }
        }
        body.extend_from_slice(&entry.log_end.to_be_bytes());
    }
    if let Some(head) = body.get_mut(..4) {
        head.copy_from_slice(&count.to_be_bytes());
    }
    let mut out = Vec::with_capacity(body.len() + 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&crate::record::crc32c(&body).to_be_bytes());
    out.extend_from_slice(&body);
    out
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let taken = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(taken)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_be_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(n: u64) -> FileStamp {
        FileStamp {
            device: 1,
            inode: n,
            size: n * 10,
            modified: (1_700_000_000, 5),
            changed: (1_700_000_000, 6),
        }
    }

    #[test]
    fn a_segment_path_is_the_partition_and_the_segments_file_name() {
        let mut path = StatPath::new("orders-12");
        for base in [0, 7, 42_000, i64::MAX] {
            let expected = format!("orders-12/{}", crate::log::segment::file_name(base, ".log"));
            assert_eq!(
                path.segment(base).and_then(|p| p.to_str().ok()),
                Some(expected.as_str())
            );
        }
        assert_eq!(path.segment(-1), None);
        assert_eq!(path.dir().and_then(|p| p.to_str().ok()), Some("orders-12"));
    }

    #[test]
    fn the_file_reads_back_and_a_damaged_one_is_ignored() {
        let mut entries = FxHashMap::default();
        entries.insert(
            "orders-0".to_string(),
            Entry {
                dir: stamp(1),
                segment: Some((100, stamp(2))),
                log_end: 142,
            },
        );
        entries.insert(
            "empty-3".to_string(),
            Entry {
                dir: stamp(3),
                segment: None,
                log_end: 0,
            },
        );
        let bytes = encode(entries.iter().map(|(name, entry)| (name.as_str(), entry)));
        let read = |bytes: &[u8]| {
            Recorded::parse(bytes.to_vec()).map(|recorded| {
                let entries: FxHashMap<String, Entry> = recorded
                    .iter()
                    .map(|(name, entry)| (name.to_string(), *entry))
                    .collect();
                assert_eq!(entries.len(), recorded.slots.len());
                for (name, entry) in &entries {
                    assert_eq!(recorded.get(name), Some(entry));
                }
                assert_eq!(recorded.get("orders-1"), None);
                entries
            })
        };
        assert_eq!(read(&bytes), Some(entries));
        for i in [0, 9, 13, 20, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x40;
            assert_eq!(read(&damaged), None, "byte {i}");
        }
        assert_eq!(read(&bytes[..bytes.len() - 1]), None);
        assert_eq!(read(b""), None);
    }
}
