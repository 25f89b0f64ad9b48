//! Fixed-size entries of a file, read a chunk at a time with positioned reads: what reading a
//! whole `.index`, `.timeindex` or `.txnindex` takes (a read per entry cost a system call
//! each).

use std::fs::File;
use std::io::{self, ErrorKind};
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::error::{LogError, Result};

/// Where a reader of entries is: the chunk read last and what follows.
#[derive(Debug)]
pub(crate) struct Chunks {
    /// Bytes of an entry.
    size: usize,
    /// Bytes read at once (whole entries).
    chunk: usize,
    buf: Vec<u8>,
    /// The next entry's place in `buf`.
    at: usize,
    /// The file position of `buf`'s end.
    next: u64,
    /// Where the entries end.
    end: u64,
    done: bool,
}

impl Chunks {
    /// The entries of `size` bytes from the start of a file to `end` (whole entries only), read
    /// `per_read` at a time.
    pub(crate) fn new(size: usize, per_read: usize, end: u64) -> Self {
        let size = size.max(1);
        Chunks {
            size,
            chunk: size * per_read.max(1),
            buf: Vec::new(),
            at: 0,
            next: 0,
            end: end / size as u64 * size as u64,
            done: false,
        }
    }

    /// The next entry of `file` (`path` names it in errors): its byte position and its bytes;
    /// `None` after the last. A file shorter than the end given is an error of kind
    /// `UnexpectedEof` at the first entry gone (the entries before it are entries). An error
    /// ends the entries.
    pub(crate) fn next(&mut self, file: &File, path: &Path) -> Option<Result<(u64, &[u8])>> {
        if self.done {
            return None;
        }
        if self.at >= self.buf.len() {
            match self.fill(file) {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(LogError::io("reading", path)(e)));
                }
            }
        }
        let position = self.next - (self.buf.len() - self.at) as u64;
        let bytes = self.buf.get(self.at..self.at + self.size)?;
        self.at += self.size;
        Some(Ok((position, bytes)))
    }

    /// Ends the entries: `next` answers `None` from now on.
    pub(crate) fn stop(&mut self) {
        self.done = true;
    }

    /// Reads the next chunk into `buf`; false at the end.
    fn fill(&mut self, file: &File) -> io::Result<bool> {
        // At most `chunk`, a usize: the conversion cannot fail.
        let want = usize::try_from(self.end.saturating_sub(self.next).min(self.chunk as u64))
            .unwrap_or(self.chunk);
        self.buf.resize(want, 0);
        self.at = 0;
        let mut got = 0;
        while let Some(rest) = self.buf.get_mut(got..).filter(|r| !r.is_empty()) {
            match file.read_at(rest, self.next + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.buf.truncate(got - got % self.size);
        self.next += self.buf.len() as u64;
        if self.buf.is_empty() && want > 0 {
            return Err(ErrorKind::UnexpectedEof.into());
        }
        Ok(!self.buf.is_empty())
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)] // a test's panic is its failure
mod tests {
    use super::*;

    #[test]
    fn entries_come_whole_and_a_cut_is_an_error_after_the_entries_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("entries");
        let bytes: Vec<u8> = (0..=255).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        // Entries of 10 bytes, 3 at a time: 25 entries, the 6 bytes after them left out.
        let mut chunks = Chunks::new(10, 3, 256);
        let mut read = Vec::new();
        while let Some(entry) = chunks.next(&file, &path) {
            let (position, entry) = entry.unwrap();
            let at = usize::try_from(position).unwrap();
            assert_eq!(entry, &bytes[at..at + 10]);
            read.push(position);
        }
        assert_eq!(read, (0..25).map(|i| i * 10).collect::<Vec<u64>>());
        // A file shorter than its entries were said to be.
        let mut chunks = Chunks::new(10, 3, 300);
        let mut n = 0;
        let err = loop {
            match chunks.next(&file, &path).unwrap() {
                Ok(_) => n += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(n, 25);
        assert!(
            matches!(&err, LogError::Io { source, .. } if source.kind() == ErrorKind::UnexpectedEof)
        );
        assert!(chunks.next(&file, &path).is_none());
    }
}
