//! Kafka's console-producer line format (`LineMessageReader`, `kafka-cli-surface.md` §4.2):
//! reader properties, their conflicts, and how one line becomes a key, a value and headers.
//!
//! Lines are bytes here: Kafka reads UTF-8 text, so for UTF-8 input the records are the same,
//! and other bytes pass through unchanged instead of becoming U+FFFD.

use std::io::{self, Read};

use crate::datadir::properties::property_is_true;
use crate::record::Header;

/// Reader properties (`--property name=value`) after Kafka's parsing and checks.
#[derive(Debug, Clone)]
pub struct LineFormat {
    parse_key: bool,
    key_separator: Vec<u8>,
    parse_headers: bool,
    headers_delimiter: Vec<u8>,
    headers_separator: Splitter,
    headers_key_separator: Vec<u8>,
    ignore_error: bool,
    null_marker: Option<Vec<u8>>,
    /// No key, no headers, no null marker: each line is one value as it is (the default).
    whole_line_is_value: bool,
}

/// `headers.separator` is a Java regex in Kafka; most separators have no metacharacter and are
/// split literally, which gives the same pieces faster.
#[derive(Debug, Clone)]
enum Splitter {
    Literal(Vec<u8>),
    Regex(regex::bytes::Regex),
}

impl Splitter {
    fn new(pattern: &str) -> Result<Self, LineError> {
        const META: &[u8] = b"\\.^$|?*+()[]{}";
        if pattern.bytes().any(|b| META.contains(&b)) {
            regex::bytes::Regex::new(pattern)
                .map(Splitter::Regex)
                .map_err(|source| LineError::HeadersSeparator {
                    pattern: pattern.to_string(),
                    source,
                })
        } else {
            Ok(Splitter::Literal(pattern.as_bytes().to_vec()))
        }
    }

    /// Java's `Pattern.split(input)`: no match gives the input itself (so `""` gives one empty
    /// piece); otherwise trailing empty pieces are dropped, and a zero-width match at the start
    /// makes no leading empty piece.
    fn split<'a>(&self, input: &'a [u8], pieces: &mut Vec<&'a [u8]>) {
        pieces.clear();
        let mut start = 0;
        let mut matched = false;
        match self {
            Splitter::Literal(sep) => {
                if !sep.is_empty() {
                    let finder = memchr::memmem::Finder::new(sep);
                    for at in finder.find_iter(input) {
                        if at < start {
                            continue;
                        }
                        matched = true;
                        pieces.push(input.get(start..at).unwrap_or_default());
                        start = at + sep.len();
                    }
                }
            }
            Splitter::Regex(re) => {
                for m in re.find_iter(input) {
                    if m.end() == 0 {
                        continue;
                    }
                    matched = true;
                    pieces.push(input.get(start..m.start()).unwrap_or_default());
                    start = m.end();
                }
            }
        }
        if !matched {
            pieces.push(input);
            return;
        }
        pieces.push(input.get(start..).unwrap_or_default());
        while pieces.last().is_some_and(|p| p.is_empty()) {
            pieces.pop();
        }
    }
}

/// Reader properties or a line Kafka refuses; displays as Kafka's message (`No key separator
/// found on line number 2: '...'`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LineError {
    /// Two properties that must differ are equal.
    #[error("{0} and {1} may not be equal")]
    Conflict(&'static str, &'static str),
    /// `headers.separator` is not a valid pattern.
    #[error("Invalid headers.separator pattern '{pattern}': {source}")]
    HeadersSeparator {
        /// The pattern given.
        pattern: String,
        /// Why the regex engine refused it.
        #[source]
        source: regex::Error,
    },
    /// A line without the separator its properties ask for.
    #[error("No {separator} found on line number {line_number}: '{line}'")]
    NoSeparator {
        /// `key separator` or `headers delimiter`.
        separator: &'static str,
        /// The line's number, from 1.
        line_number: u64,
        /// The line, as text.
        line: String,
    },
    /// A header without `headers.key.separator`.
    #[error("No header key separator found in pair '{pair}' on line number {line_number}")]
    NoHeaderKeySeparator {
        /// The header's text.
        pair: String,
        /// The line's number, from 1.
        line_number: u64,
    },
    /// A header key equal to `null.marker`.
    #[error("Header keys should not be equal to the null marker '{key}' as they can't be null")]
    NullHeaderKey {
        /// The key.
        key: String,
    },
}

/// One parsed line: key and value borrow the line; headers are written to the caller's vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedLine<'a> {
    /// The key, `None` for null.
    pub key: Option<&'a [u8]>,
    /// The value, `None` for null.
    pub value: Option<&'a [u8]>,
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let rest = haystack.get(from..)?;
    if needle.is_empty() {
        return Some(from);
    }
    if let [byte] = needle {
        return memchr::memchr(*byte, rest).map(|i| i + from);
    }
    memchr::memmem::find(rest, needle).map(|i| i + from)
}

impl Default for LineFormat {
    fn default() -> Self {
        Self {
            parse_key: false,
            key_separator: b"\t".to_vec(),
            parse_headers: false,
            headers_delimiter: b"\t".to_vec(),
            headers_separator: Splitter::Literal(b",".to_vec()),
            headers_key_separator: b":".to_vec(),
            ignore_error: false,
            null_marker: None,
            whole_line_is_value: true,
        }
    }
}

impl LineFormat {
    /// The properties [`Self::from_properties`] reads (Kafka's `LineMessageReader`'s).
    pub const PROPERTIES: [&'static str; 8] = [
        "parse.key",
        "key.separator",
        "parse.headers",
        "headers.delimiter",
        "headers.separator",
        "headers.key.separator",
        "ignore.error",
        "null.marker",
    ];

    /// The format the properties describe, or Kafka's configuration error (checked in Kafka's
    /// order: the header separators against each other, then `null.marker` against each).
    /// Other properties are ignored, as Kafka's reader ignores them (the console producer
    /// warns about them).
    pub fn from_properties<'p>(
        props: impl IntoIterator<Item = (&'p str, &'p str)>,
    ) -> Result<Self, LineError> {
        let mut key_separator = "\t";
        let mut headers_delimiter = "\t";
        let mut headers_separator = ",";
        let mut headers_key_separator = ":";
        let mut null_marker = None;
        let mut format = LineFormat::default();
        for (name, value) in props {
            match name {
                "parse.key" => format.parse_key = property_is_true(value),
                "key.separator" => key_separator = value,
                "parse.headers" => format.parse_headers = property_is_true(value),
                "headers.delimiter" => headers_delimiter = value,
                "headers.separator" => headers_separator = value,
                "headers.key.separator" => headers_key_separator = value,
                "ignore.error" => format.ignore_error = property_is_true(value),
                "null.marker" => null_marker = Some(value),
                // Every name above is in PROPERTIES.
                _ => debug_assert!(!Self::PROPERTIES.contains(&name), "{name}"),
            }
        }
        let conflict = |a, b| Err(LineError::Conflict(a, b));
        if headers_delimiter == headers_separator {
            return conflict("headers.delimiter", "headers.separator");
        }
        if headers_delimiter == headers_key_separator {
            return conflict("headers.delimiter", "headers.key.separator");
        }
        if headers_separator == headers_key_separator {
            return conflict("headers.separator", "headers.key.separator");
        }
        if let Some(marker) = null_marker {
            for (name, value) in [
                ("key.separator", key_separator),
                ("headers.separator", headers_separator),
                ("headers.delimiter", headers_delimiter),
                ("headers.key.separator", headers_key_separator),
            ] {
                if marker == value {
                    return conflict("null.marker", name);
                }
            }
        }
        format.key_separator = key_separator.as_bytes().to_vec();
        format.headers_delimiter = headers_delimiter.as_bytes().to_vec();
        format.headers_separator = Splitter::new(headers_separator)?;
        format.headers_key_separator = headers_key_separator.as_bytes().to_vec();
        format.null_marker = null_marker.map(|m| m.as_bytes().to_vec());
        format.whole_line_is_value =
            !format.parse_key && !format.parse_headers && format.null_marker.is_none();
        Ok(format)
    }

    /// Whether each line is a record's value as it is: no key, no headers, no null marker (the
    /// default), so [`Self::parse`] has nothing to do and cannot fail.
    pub fn whole_line_is_value(&self) -> bool {
        self.whole_line_is_value
    }

    /// Whether lines carry headers (`parse.headers`).
    pub fn parses_headers(&self) -> bool {
        self.parse_headers
    }

    fn is_null(&self, bytes: &[u8]) -> bool {
        self.null_marker.as_deref() == Some(bytes)
    }

    /// Kafka's `parse`: the text from `start` to the next `separator`, `None` when parsing is
    /// off (or the separator is missing and errors are ignored).
    fn field<'a>(
        &self,
        enabled: bool,
        line: &'a [u8],
        start: usize,
        separator: &[u8],
        name: &'static str,
        line_number: u64,
    ) -> Result<Option<&'a [u8]>, LineError> {
        if !enabled {
            return Ok(None);
        }
        match find(line, separator, start) {
            Some(end) => Ok(line.get(start..end)),
            None if self.ignore_error => Ok(None),
            None => Err(LineError::NoSeparator {
                separator: name,
                line_number,
                line: String::from_utf8_lossy(line).into_owned(),
            }),
        }
    }

    /// Parses line `line_number` (counted from 1) without its terminator; headers are appended
    /// to `headers` (cleared first).
    #[inline(always)]
    pub fn parse<'a>(
        &self,
        line: &'a [u8],
        line_number: u64,
        headers: &mut Vec<Header>,
    ) -> Result<ParsedLine<'a>, LineError> {
        headers.clear();
        if self.whole_line_is_value {
            return Ok(ParsedLine {
                key: None,
                value: Some(line),
            });
        }
        self.parse_fields(line, line_number, headers)
    }

    /// [`Self::parse`] when the line may hold a key, headers or the null marker.
    #[inline(never)]
    fn parse_fields<'a>(
        &self,
        line: &'a [u8],
        line_number: u64,
        headers: &mut Vec<Header>,
    ) -> Result<ParsedLine<'a>, LineError> {
        let header_text = self.field(
            self.parse_headers,
            line,
            0,
            &self.headers_delimiter,
            "headers delimiter",
            line_number,
        )?;
        let header_offset = header_text.map_or(0, |h| h.len() + self.headers_delimiter.len());
        let key = self.field(
            self.parse_key,
            line,
            header_offset,
            &self.key_separator,
            "key separator",
            line_number,
        )?;
        let key_offset = key.map_or(0, |k| k.len() + self.key_separator.len());
        let value = line.get(header_offset + key_offset..).unwrap_or_default();
        if let Some(text) = header_text.filter(|h| !self.is_null(h)) {
            self.split_headers(text, line_number, headers)?;
        }
        Ok(ParsedLine {
            key: key.filter(|k| !self.is_null(k)),
            value: Some(value).filter(|v| !self.is_null(v)),
        })
    }

    fn split_headers(
        &self,
        text: &[u8],
        line_number: u64,
        headers: &mut Vec<Header>,
    ) -> Result<(), LineError> {
        let mut pieces = Vec::new();
        self.headers_separator.split(text, &mut pieces);
        for pair in pieces {
            let Some(at) = find(pair, &self.headers_key_separator, 0) else {
                if self.ignore_error {
                    headers.push(Header::new(String::from_utf8_lossy(pair), None));
                    continue;
                }
                return Err(LineError::NoHeaderKeySeparator {
                    pair: String::from_utf8_lossy(pair).into_owned(),
                    line_number,
                });
            };
            let key = pair.get(..at).unwrap_or_default();
            if self.is_null(key) {
                return Err(LineError::NullHeaderKey {
                    key: String::from_utf8_lossy(key).into_owned(),
                });
            }
            let value = pair
                .get(at + self.headers_key_separator.len()..)
                .unwrap_or_default();
            headers.push(Header::new(
                String::from_utf8_lossy(key),
                Some(value).filter(|v| !self.is_null(v)),
            ));
        }
        Ok(())
    }
}

/// Splits a byte stream into lines as Java's `BufferedReader.readLine` does: `\n`, `\r` and
/// `\r\n` end a line, the last line needs no terminator. Reads in large blocks; a line is a
/// slice of the internal buffer, so nothing is allocated per line.
#[derive(Debug)]
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    block: usize,
    consumed: u64,
    reads: u64,
    /// Lines taken so far.
    lines: u64,
    /// Where the next `\r` of the unread input is (`end` if none): most input has none, and
    /// looking for `\n` alone up to it is cheaper than looking for both on every line.
    next_cr: usize,
    /// Bytes of an unterminated last line left out because the input was stopped
    /// ([`Self::advance_with`]).
    cut: u64,
    /// A line longer than this is read through and dropped, not held ([`Self::with_max_line`]).
    max_line: usize,
    /// The length of the line the last advance dropped for being too long.
    dropped: Option<u64>,
}

/// The complete lines of a [`Lines`] buffer ([`Lines::buffered`]); what it yields is consumed
/// when it is dropped.
#[derive(Debug)]
pub struct BufferedLines<'a> {
    newline: NewlineFinder,
    /// The buffer up to the end of the input read.
    rest: &'a [u8],
    /// Where the next line starts in `rest`.
    from: usize,
    /// Where the next `\r` at or after `from` is (the length of `rest` if none).
    cr: usize,
    /// Lines yielded.
    taken: u64,
    start: &'a mut usize,
    consumed: &'a mut u64,
    lines: &'a mut u64,
    next_cr: &'a mut usize,
}

/// Finds `\n`. `memchr::memchr` picks its implementation on every call, which is a third of
/// its cost on a 100-byte line; where the CPU has AVX2, memchr's AVX2 searcher is built once
/// per block instead.
#[derive(Debug, Clone, Copy)]
enum NewlineFinder {
    #[cfg(target_arch = "x86_64")]
    Avx2(memchr::arch::x86_64::avx2::memchr::One),
    Generic,
}

impl NewlineFinder {
    fn new() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(one) = memchr::arch::x86_64::avx2::memchr::One::new(b'\n') {
            return NewlineFinder::Avx2(one);
        }
        NewlineFinder::Generic
    }

    #[inline]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        match self {
            #[cfg(target_arch = "x86_64")]
            NewlineFinder::Avx2(one) => one.find(haystack),
            NewlineFinder::Generic => memchr::memchr(b'\n', haystack),
        }
    }
}

impl<'a> Iterator for BufferedLines<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        // `\n` is looked for alone up to the next `\r`.
        let unread = self.rest.get(self.from..self.cr)?;
        let (end, next) = match self.newline.find(unread) {
            Some(len) => (self.from + len, self.from + len + 1),
            // A line that ends at the `\r` is taken here only as `\r\n`: a lone `\r`, or one
            // at the end of the input read so far, is left to `Lines::advance`.
            None if self.rest.get(self.cr + 1) == Some(&b'\n') => {
                let end = self.cr;
                let after = self.rest.get(end + 2..).unwrap_or_default();
                self.cr = memchr::memchr(b'\r', after).map_or(self.rest.len(), |i| end + 2 + i);
                (end, end + 2)
            }
            None => return None,
        };
        let line = self.rest.get(self.from..end);
        self.from = next;
        self.taken += 1;
        line
    }
}

impl Drop for BufferedLines<'_> {
    fn drop(&mut self) {
        *self.consumed += (self.from - *self.start) as u64;
        *self.start = self.from;
        *self.lines += self.taken;
        *self.next_cr = self.cr;
    }
}

impl<R: Read> Lines<R> {
    /// Lines of `reader`, read `block` bytes at a time (at least 4 KiB).
    pub fn new(reader: R, block: usize) -> Self {
        Self {
            reader,
            buf: Vec::new(),
            start: 0,
            end: 0,
            eof: false,
            block: block.max(4096),
            consumed: 0,
            reads: 0,
            lines: 0,
            next_cr: 0,
            cut: 0,
            max_line: usize::MAX,
            dropped: None,
        }
    }

    /// Lines longer than `max_line` bytes are read through without being held: the advance
    /// that reaches one returns an empty line and [`Self::dropped_line`] says how long it
    /// was. Memory then stays at `max_line` plus a block, whatever the input.
    pub fn with_max_line(mut self, max_line: usize) -> Self {
        self.max_line = max_line;
        self
    }

    /// The length, terminator excluded, of the line the last advance dropped for being longer
    /// than [`Self::with_max_line`] allows; `None` when it returned a line.
    pub fn dropped_line(&self) -> Option<u64> {
        self.dropped
    }

    /// Bytes consumed so far, terminators included (for progress bars).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Lines taken so far: the number of the last line taken, counting from 1.
    pub fn line_count(&self) -> u64 {
        self.lines
    }

    /// The length of the unterminated line that ended the input when it was stopped
    /// ([`Self::advance_with`]), which is not handed out; 0 if there was none.
    pub fn cut(&self) -> u64 {
        self.cut
    }

    /// How many reads returned input so far: a change means new input arrived (the producer
    /// reads the clock again then).
    pub fn reads(&self) -> u64 {
        self.reads
    }

    /// Reads more input after the unread part; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        // The unread input was searched for `\r` already: only what is read now needs it (a long
        // line read block by block is searched once, not once a block).
        let had_cr = self.next_cr < self.end;
        let shift = self.start;
        if shift > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= shift;
            self.start = 0;
        }
        let searched = self.end;
        let refilled = self.read_more();
        self.next_cr = if had_cr {
            self.next_cr - shift
        } else {
            self.find_cr(searched)
        };
        refilled
    }

    /// The first `\r` at or after `from` in the unread input, or `end`.
    fn find_cr(&self, from: usize) -> usize {
        let rest = self.buf.get(from..self.end).unwrap_or_default();
        memchr::memchr(b'\r', rest).map_or(self.end, |i| from + i)
    }

    fn read_more(&mut self) -> io::Result<bool> {
        if self.buf.len() < self.end + self.block {
            self.buf.resize(self.end + self.block, 0);
        }
        loop {
            let dst = self.buf.get_mut(self.end..).unwrap_or_default();
            match self.reader.read(dst) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.reads += 1;
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next line without its terminator, or `None` at the end of the input.
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        Ok(match self.advance()? {
            Some(range) => self.buf.get(range),
            None => None,
        })
    }

    /// The complete lines already read, without reading more: each line of the buffered input
    /// that ends with `\n` or `\r\n`, taken as the iterator yields them (lines the iterator
    /// does not reach stay unread). It stops before a line that is incomplete, ends with a
    /// lone `\r`, or ends with the last byte read being `\r`; [`Self::advance`] takes such a
    /// line (and reads the input).
    ///
    /// A producer sends a whole block's lines this way, without a call per line.
    pub fn buffered(&mut self) -> BufferedLines<'_> {
        BufferedLines {
            newline: NewlineFinder::new(),
            rest: self.buf.get(..self.end).unwrap_or_default(),
            from: self.start,
            cr: self.next_cr.min(self.end),
            taken: 0,
            start: &mut self.start,
            consumed: &mut self.consumed,
            lines: &mut self.lines,
            next_cr: &mut self.next_cr,
        }
    }

    /// The line at `range`, as returned by [`Self::advance`] (valid until the next advance).
    pub fn line(&self, range: std::ops::Range<usize>) -> &[u8] {
        self.buf.get(range).unwrap_or_default()
    }

    /// Moves to the next line and returns where it is in the buffer ([`Self::line`] gives the
    /// bytes), or `None` at the end of the input.
    pub fn advance(&mut self) -> io::Result<Option<std::ops::Range<usize>>> {
        self.advance_with(|| true)
    }

    /// [`Self::advance`], calling `before_read` whenever the buffered input holds no further
    /// line and the input must be read (which may block: a producer hands over its batches then,
    /// and waits for input no longer than its linger time, so a quiet stream does not hold
    /// them back).
    ///
    /// `before_read` says whether to read on: `false` stops the input where it was read (a
    /// signal ends the run), as its end would, except that an unterminated last line is left out
    /// ([`Self::cut`] gives its length): it was cut, not ended, so it is no line yet (Java's
    /// `readLine` would not have returned it either). A line ended by a `\r` that is the last
    /// byte read is still a line.
    pub fn advance_with(
        &mut self,
        mut before_read: impl FnMut() -> bool,
    ) -> io::Result<Option<std::ops::Range<usize>>> {
        self.dropped = None;
        let mut searched = 0;
        let mut stopped = false;
        loop {
            let from = self.start + searched;
            let limit = self.next_cr.min(self.end);
            let lf = memchr::memchr(b'\n', self.buf.get(from..limit).unwrap_or_default());
            let found = match lf {
                Some(i) => Some((from + i, false)),
                None if limit < self.end => Some((limit, true)),
                None => None,
            };
            if let Some((at, is_cr)) = found {
                if is_cr && at + 1 == self.end && !self.eof && at - self.start > self.max_line {
                    // A line too long, its `\r` at the edge of the buffer: reading on to see
                    // whether `\n` follows would grow the buffer past the limit.
                    return self.drop_line(before_read).map(Some);
                }
                if is_cr && at + 1 == self.end && !self.eof {
                    // A `\r` at the edge of the buffer: is it `\r\n`? Read on and look again
                    // (stopped, the `\r` ends the line as Java's `readLine` ends it).
                    if before_read() {
                        let relative = at - self.start;
                        self.fill()?;
                        searched = relative;
                        continue;
                    }
                    self.eof = true;
                }
                // Only the unread input counts: the buffer beyond `end` holds stale bytes.
                let unread = self.buf.get(..self.end).unwrap_or_default();
                let skip = if is_cr && unread.get(at + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                let line_start = self.start;
                self.start = at + skip;
                if is_cr {
                    self.next_cr = self.find_cr(self.start);
                }
                self.consumed += (self.start - line_start) as u64;
                self.lines += 1;
                return Ok(Some(line_start..at));
            }
            searched = self.end - self.start;
            if searched > self.max_line {
                return self.drop_line(before_read).map(Some);
            }
            if !self.eof && !before_read() {
                self.eof = true;
                stopped = true;
            }
            if !self.fill()? {
                if self.start == self.end {
                    return Ok(None);
                }
                if stopped {
                    self.cut = (self.end - self.start) as u64;
                    self.start = self.end;
                    return Ok(None);
                }
                let line_start = self.start;
                self.consumed += (self.end - line_start) as u64;
                self.start = self.end;
                self.lines += 1;
                return Ok(Some(line_start..self.end));
            }
        }
    }
}

impl<R: Read> Lines<R> {
    /// Reads through the rest of a line that is too long, holding none of it; returns the
    /// empty range [`Self::advance_with`] gives for it, with its length in `dropped`.
    fn drop_line(
        &mut self,
        mut before_read: impl FnMut() -> bool,
    ) -> io::Result<std::ops::Range<usize>> {
        let mut length = 0u64;
        loop {
            let unread = self.buf.get(self.start..self.end).unwrap_or_default();
            let Some(i) = memchr::memchr2(b'\n', b'\r', unread) else {
                // No terminator in what was read: drop it all and read on.
                length += unread.len() as u64;
                self.consumed += unread.len() as u64;
                self.start = self.end;
                self.next_cr = self.end;
                if !self.eof && !before_read() {
                    // Stopped: the line ends where it was read.
                    self.eof = true;
                }
                if self.fill()? {
                    continue;
                }
                break;
            };
            let at = self.start + i;
            length += i as u64;
            self.consumed += i as u64;
            self.start = at;
            if self.buf.get(at) == Some(&b'\r') && at + 1 == self.end && !self.eof {
                // A `\r` at the edge of what was read: is it `\r\n`? Read on and look.
                self.next_cr = at;
                if before_read() {
                    self.fill()?;
                } else {
                    self.eof = true;
                }
            }
            let crlf = self.buf.get(self.start) == Some(&b'\r')
                && self.start + 1 < self.end
                && self.buf.get(self.start + 1) == Some(&b'\n');
            let skip = if crlf { 2 } else { 1 };
            self.consumed += skip;
            self.start += skip as usize;
            break;
        }
        self.next_cr = self.find_cr(self.start);
        self.lines += 1;
        self.dropped = Some(length);
        Ok(self.start..self.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], block: usize) -> Vec<Vec<u8>> {
        let mut lines = Lines::new(input, block);
        lines.block = block;
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            out.push(line.to_vec());
        }
        out
    }

    #[test]
    fn java_line_terminators() {
        for block in [1, 2, 3, 4096] {
            assert_eq!(
                lines(b"a\nb\r\nc\rd\n\ne", block),
                vec![
                    b"a".to_vec(),
                    b"b".to_vec(),
                    b"c".to_vec(),
                    b"d".to_vec(),
                    b"".to_vec(),
                    b"e".to_vec()
                ]
            );
            assert_eq!(lines(b"x\r", block), vec![b"x".to_vec()]);
            assert_eq!(lines(b"x\r\n", block), vec![b"x".to_vec()]);
            assert!(lines(b"", block).is_empty());
        }
    }

    /// A reader whose reads return the given chunks, one each.
    struct Chunks(Vec<&'static [u8]>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let chunk = self.0.remove(0);
            buf[..chunk.len()].copy_from_slice(chunk);
            Ok(chunk.len())
        }
    }

    /// Java's `readLine` spelled out one byte at a time, to check the searches against.
    fn reference_lines(input: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut line = Vec::new();
        let mut i = 0;
        while let Some(&b) = input.get(i) {
            i += 1;
            match b {
                b'\n' => out.push(std::mem::take(&mut line)),
                b'\r' => {
                    out.push(std::mem::take(&mut line));
                    if input.get(i) == Some(&b'\n') {
                        i += 1;
                    }
                }
                _ => line.push(b),
            }
        }
        if !line.is_empty() {
            out.push(line);
        }
        out
    }

    /// Checks the lines as the console producer takes them (the buffered ones while there are
    /// some, at most `take` at a time as a run may stop early, then one through `advance`)
    /// against Java's `readLine`, with every line counted and every byte consumed.
    fn assert_lines_by_block(input: &[u8], block: usize, take: usize) {
        let mut lines = Lines::new(input, block);
        lines.block = block;
        let mut out = Vec::new();
        loop {
            out.extend(lines.buffered().take(take).map(<[u8]>::to_vec));
            match lines.next_line().unwrap() {
                Some(line) => out.push(line.to_vec()),
                None => break,
            }
        }
        assert_eq!(lines.line_count(), out.len() as u64, "lines counted");
        assert_eq!(out, reference_lines(input));
        assert_eq!(lines.consumed(), input.len() as u64);
    }

    /// A line read, or the length of one dropped for being too long.
    type LineOrDropped = Result<Vec<u8>, u64>;

    /// Every line of `input` read with `max_line`, and the reader after them.
    fn lines_within(
        input: &[u8],
        block: usize,
        max_line: usize,
    ) -> (Vec<LineOrDropped>, Lines<&[u8]>) {
        let mut lines = Lines::new(input, block).with_max_line(max_line);
        lines.block = block;
        let mut out = Vec::new();
        while let Some(range) = lines.advance().unwrap() {
            out.push(match lines.dropped_line() {
                Some(length) => Err(length),
                None => Ok(lines.line(range).to_vec()),
            });
        }
        (out, lines)
    }

    proptest::proptest! {
        /// Lines longer than the limit may be dropped (those that arrive whole in one read are
        /// not), with their length; no line within it is, and every line is counted and every
        /// byte consumed; the buffer never holds more than the limit, its `\r` and a block.
        #[test]
        fn long_lines_are_dropped_with_their_length(
            input in proptest::collection::vec(
                proptest::prop_oneof![90 => proptest::strategy::Just(b'a'), 6 => proptest::strategy::Just(b'\n'), 4 => proptest::strategy::Just(b'\r')],
                0..2000,
            ),
            block in 1usize..64,
            max_line in 1usize..100,
        ) {
            let (out, lines) = lines_within(&input, block, max_line);
            let expected = reference_lines(&input);
            proptest::prop_assert_eq!(out.len(), expected.len());
            for (got, line) in out.iter().zip(&expected) {
                match got {
                    Ok(got) => proptest::prop_assert_eq!(got, line),
                    Err(length) => {
                        proptest::prop_assert_eq!(*length, line.len() as u64);
                        proptest::prop_assert!(line.len() > max_line);
                    }
                }
            }
            proptest::prop_assert_eq!(lines.line_count(), expected.len() as u64);
            proptest::prop_assert_eq!(lines.consumed(), input.len() as u64);
            // The unread input a read follows is at most a line within the limit and its `\r`.
            proptest::prop_assert!(
                lines.buf.len() <= max_line + block + 1,
                "buffer {} max_line {max_line} block {block}",
                lines.buf.len()
            );
        }

        #[test]
        fn lines_match_java_read_line(
            input in proptest::collection::vec(proptest::sample::select(b"ab\r\n".to_vec()), 0..200),
            block in 1usize..40,
        ) {
            proptest::prop_assert_eq!(lines(&input, block), reference_lines(&input));
        }

        #[test]
        fn buffered_lines_of_long_lines_and_few_carriage_returns(
            input in proptest::collection::vec(
                proptest::prop_oneof![90 => proptest::strategy::Just(b'a'), 9 => proptest::strategy::Just(b'\n'), 1 => proptest::strategy::Just(b'\r')],
                0..3000,
            ),
            block in 1usize..700,
            take in 1usize..50,
        ) {
            assert_lines_by_block(&input, block, take);
        }

        #[test]
        fn buffered_lines_are_the_lines_read_one_by_one(
            input in proptest::collection::vec(proptest::sample::select(b"ab\r\n".to_vec()), 0..300),
            block in 1usize..64,
            take in 1usize..8,
        ) {
            assert_lines_by_block(&input, block, take);
        }
    }

    #[test]
    fn buffered_lines_stop_before_a_lone_carriage_return_and_an_incomplete_line() {
        let mut lines = Lines::new(&b"a\nbc\nd\r\ne\rf\ng\r\nh"[..], 4096);
        assert!(lines.buffered().next().is_none(), "nothing read yet");
        assert_eq!(lines.next_line().unwrap(), Some(&b"a"[..]));
        let run: Vec<&[u8]> = lines.buffered().collect();
        assert_eq!(
            run,
            [&b"bc"[..], &b"d"[..]],
            "\\r\\n ends a line, a lone \\r stops"
        );
        assert_eq!(lines.consumed(), 8);
        assert_eq!(lines.next_line().unwrap(), Some(&b"e"[..]));
        let run: Vec<&[u8]> = lines.buffered().collect();
        assert_eq!(
            run,
            [&b"f"[..], &b"g"[..]],
            "not the unterminated last line"
        );
        assert_eq!(lines.next_line().unwrap(), Some(&b"h"[..]));
        assert_eq!(lines.next_line().unwrap(), None);
        assert_eq!(lines.line_count(), 7);
    }

    #[test]
    fn buffered_lines_leave_a_carriage_return_at_the_end_of_the_input_read() {
        // Is the `\r` that ends what was read the start of `\r\n`? Only a read can tell.
        let mut lines = Lines::new(Chunks(vec![b"a\r\nb\r", b"\nc\n"]), 4096);
        assert_eq!(lines.next_line().unwrap(), Some(&b"a"[..]));
        assert!(lines.buffered().next().is_none());
        assert_eq!(lines.next_line().unwrap(), Some(&b"b"[..]));
        let run: Vec<&[u8]> = lines.buffered().collect();
        assert_eq!(
            run,
            [&b"c"[..]],
            "the \\n after it was not a line of its own"
        );
        assert_eq!(lines.next_line().unwrap(), None);
    }

    #[test]
    fn before_read_runs_only_when_no_buffered_line_is_left() {
        // Two reads of a chunked reader: the hook runs before each read, never while buffered
        // lines remain.
        let mut lines = Lines::new(Chunks(vec![b"a\nb\nc", b"\nd\n"]), 4096);
        let mut log = Vec::new();
        let mut hooks = 0;
        while let Some(range) = lines
            .advance_with(|| {
                hooks += 1;
                true
            })
            .unwrap()
        {
            log.push((hooks, lines.line(range).to_vec()));
        }
        assert_eq!(
            log,
            vec![
                (1, b"a".to_vec()),
                (1, b"b".to_vec()),
                (2, b"c".to_vec()),
                (2, b"d".to_vec())
            ]
        );
        assert_eq!(
            hooks, 3,
            "before the first, the second and the final (empty) read"
        );
    }

    /// The lines of `chunks` (one a read) when the input is stopped before its second read.
    fn stopped_after_one_read(chunks: Vec<&'static [u8]>) -> (Vec<Vec<u8>>, Lines<Chunks>) {
        let mut lines = Lines::new(Chunks(chunks), 4096);
        let mut reads = 0;
        let mut out = Vec::new();
        while let Some(range) = lines
            .advance_with(|| {
                reads += 1;
                reads == 1
            })
            .unwrap()
        {
            out.push(lines.line(range).to_vec());
        }
        (out, lines)
    }

    #[test]
    fn a_stopped_input_ends_after_its_complete_lines() {
        // Stopped before the second read: the complete lines read are handed out, the
        // unterminated one is left out and counted.
        let (out, mut lines) = stopped_after_one_read(vec![b"a\nbc\nde", b"f\n"]);
        assert_eq!(out, vec![b"a".to_vec(), b"bc".to_vec()]);
        assert_eq!(lines.cut(), 2);
        assert_eq!(lines.consumed(), 5);
        assert_eq!(lines.advance_with(|| true).unwrap(), None, "it stays ended");

        // A `\r` that is the last byte read ends its line even though no read tells whether a
        // `\n` follows; nothing is cut.
        let (out, lines) = stopped_after_one_read(vec![b"a\r", b"\nb\n"]);
        assert_eq!(out, vec![b"a".to_vec()]);
        assert_eq!(lines.cut(), 0);
    }

    #[test]
    fn java_pattern_split() {
        let split = |sep: &str, input: &[u8]| {
            let mut pieces = Vec::new();
            Splitter::new(sep).unwrap().split(input, &mut pieces);
            pieces.iter().map(|p| p.to_vec()).collect::<Vec<_>>()
        };
        assert_eq!(split(",", b""), vec![b"".to_vec()]);
        assert!(split(",", b",").is_empty());
        assert!(split(",", b",,").is_empty());
        assert_eq!(
            split(",", b"a,,b,,"),
            vec![b"a".to_vec(), vec![], b"b".to_vec()]
        );
        assert_eq!(split("[|]", b"a|b"), vec![b"a".to_vec(), b"b".to_vec()]);
    }
}
