//! A bounds-checked big-endian reader whose errors name absolute byte positions.

use super::varint;
use super::RecordError;

/// Reads fields front to back from `buf`; `base` is where `buf` starts in the caller's input.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8], base: usize) -> Self {
        Self { buf, pos: 0, base }
    }

    /// The absolute position of the next byte.
    pub(crate) fn position(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes consumed since the cursor was made.
    pub(crate) fn consumed(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    pub(crate) fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or_default()
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], RecordError> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.buf.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(RecordError::Truncated {
                position: self.position(),
                what,
                needed: n,
                remaining: self.remaining(),
            }),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], RecordError> {
        let bytes = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(crate) fn i8(&mut self, what: &'static str) -> Result<i8, RecordError> {
        Ok(i8::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn i16(&mut self, what: &'static str) -> Result<i16, RecordError> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn i32(&mut self, what: &'static str) -> Result<i32, RecordError> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn i64(&mut self, what: &'static str) -> Result<i64, RecordError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    pub(crate) fn varint(&mut self, what: &'static str) -> Result<i32, RecordError> {
        // Most record fields (attributes aside) are small: one byte, decoded inline.
        if let Some(&b) = self.buf.get(self.pos).filter(|&&b| b & 0x80 == 0) {
            self.pos += 1;
            return Ok(i32::from(b >> 1) ^ -i32::from(b & 1));
        }
        let at = self.position();
        let (v, used) =
            varint::read_varint(self.rest()).map_err(|e| rename(e, what).offset_by(at))?;
        self.pos += used;
        Ok(v)
    }

    pub(crate) fn varlong(&mut self, what: &'static str) -> Result<i64, RecordError> {
        if let Some(&b) = self.buf.get(self.pos).filter(|&&b| b & 0x80 == 0) {
            self.pos += 1;
            return Ok(i64::from(b >> 1) ^ -i64::from(b & 1));
        }
        let at = self.position();
        let (v, used) =
            varint::read_varlong(self.rest()).map_err(|e| rename(e, what).offset_by(at))?;
        self.pos += used;
        Ok(v)
    }
}

fn rename(e: RecordError, what: &'static str) -> RecordError {
    match e {
        RecordError::Truncated {
            position,
            needed,
            remaining,
            ..
        } => RecordError::Truncated {
            position,
            what,
            needed,
            remaining,
        },
        other => other,
    }
}

/// Reads a big-endian field at a fixed offset of a slice known to be long enough; the fallback
/// is unreachable for entries `batches()` produced, and keeps untrusted input from panicking.
pub(crate) fn be<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(src) = bytes.get(at..at + N) {
        out.copy_from_slice(src);
    }
    out
}
