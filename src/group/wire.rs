//! Kafka's message-format primitives, as its generated message classes read and write them:
//! big-endian integers, `STRING` (int16 length + UTF-8), `BYTES` (int32 length), arrays (int32
//! count) and, in flexible versions, their compact forms (unsigned varint length + 1, 0 for
//! null) and the tagged-field section that ends every struct.
//!
//! Positions in errors count from the start of the bytes handed to the [`Reader`] (a record's
//! key or value, after its 2-byte version).

use super::records::{ReadError, WriteError};
use crate::record::varint;

/// A tagged field kafkit does not know, kept so that writing the message again reproduces it
/// (Kafka's generated classes keep them as `_unknownTaggedFields` for the same reason).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawTaggedField {
    /// The field's tag.
    pub tag: u32,
    /// Its bytes, as stored.
    pub data: Vec<u8>,
}

/// Reads fields front to back; every read is bounds-checked.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes read so far.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        let end = self.pos.checked_add(n);
        match end.and_then(|end| self.buf.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(ReadError::Truncated {
                what,
                position: self.pos,
                needed: n,
                remaining: self.remaining(),
            }),
        }
    }

    fn fixed<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ReadError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    pub(crate) fn i16(&mut self, what: &'static str) -> Result<i16, ReadError> {
        Ok(i16::from_be_bytes(self.fixed(what)?))
    }

    pub(crate) fn i32(&mut self, what: &'static str) -> Result<i32, ReadError> {
        Ok(i32::from_be_bytes(self.fixed(what)?))
    }

    pub(crate) fn i64(&mut self, what: &'static str) -> Result<i64, ReadError> {
        Ok(i64::from_be_bytes(self.fixed(what)?))
    }

    fn uvarint(&mut self, what: &'static str) -> Result<u32, ReadError> {
        let at = self.pos;
        let rest = self.buf.get(at..).unwrap_or_default();
        match varint::read_unsigned_varint(rest) {
            Ok((value, used)) => {
                self.pos += used;
                Ok(value)
            }
            Err(crate::record::RecordError::VarintTooLong { .. }) => {
                Err(ReadError::VarintTooLong { what, position: at })
            }
            Err(_) => Err(ReadError::Truncated {
                what,
                position: at,
                needed: rest.len() + 1,
                remaining: rest.len(),
            }),
        }
    }

    /// A length or count: int16 (`STRING`) or int32 (`BYTES`, arrays), or in a flexible version
    /// an unsigned varint holding it plus one. `None` is null (-1, or 0 in the compact form).
    fn length(
        &mut self,
        what: &'static str,
        flexible: bool,
        short: bool,
    ) -> Result<Option<usize>, ReadError> {
        let at = self.pos;
        let length = if flexible {
            i64::from(self.uvarint(what)?) - 1
        } else if short {
            i64::from(self.i16(what)?)
        } else {
            i64::from(self.i32(what)?)
        };
        match length {
            -1 => Ok(None),
            n if n < 0 || (short && n > i64::from(i16::MAX)) => Err(ReadError::InvalidLength {
                what,
                position: at,
                length: n,
            }),
            n => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        }
    }

    pub(crate) fn nullable_string(
        &mut self,
        what: &'static str,
        flexible: bool,
    ) -> Result<Option<String>, ReadError> {
        match self.length(what, flexible, true)? {
            None => Ok(None),
            Some(n) => Ok(Some(
                crate::java::utf8_string(self.take(n, what)?).into_owned(),
            )),
        }
    }

    pub(crate) fn string(
        &mut self,
        what: &'static str,
        flexible: bool,
    ) -> Result<String, ReadError> {
        let at = self.pos;
        self.nullable_string(what, flexible)?
            .ok_or(ReadError::Null { what, position: at })
    }

    pub(crate) fn nullable_bytes(
        &mut self,
        what: &'static str,
        flexible: bool,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        match self.length(what, flexible, false)? {
            None => Ok(None),
            Some(n) => Ok(Some(self.take(n, what)?.to_vec())),
        }
    }

    pub(crate) fn bytes(
        &mut self,
        what: &'static str,
        flexible: bool,
    ) -> Result<Vec<u8>, ReadError> {
        let at = self.pos;
        self.nullable_bytes(what, flexible)?
            .ok_or(ReadError::Null { what, position: at })
    }

    /// The element count of a non-nullable array. A count larger than the bytes left is refused
    /// before anything is allocated (every element takes at least one byte), as Kafka's
    /// `Tried to allocate a collection of size N` check does.
    pub(crate) fn array_len(
        &mut self,
        what: &'static str,
        flexible: bool,
    ) -> Result<usize, ReadError> {
        let at = self.pos;
        let count = self
            .length(what, flexible, false)?
            .ok_or(ReadError::Null { what, position: at })?;
        if count > self.remaining() {
            return Err(ReadError::InvalidLength {
                what,
                position: at,
                length: i64::try_from(count).unwrap_or(i64::MAX),
            });
        }
        Ok(count)
    }

    /// An array of int32.
    pub(crate) fn i32_array(
        &mut self,
        what: &'static str,
        flexible: bool,
    ) -> Result<Vec<i32>, ReadError> {
        let count = self.array_len(what, flexible)?;
        (0..count).map(|_| self.i32(what)).collect()
    }

    /// The tagged-field section that ends a struct in a flexible version (none otherwise):
    /// none of the messages read here has a known tagged field, so every one is kept as it is.
    pub(crate) fn tagged_fields(
        &mut self,
        flexible: bool,
    ) -> Result<Vec<RawTaggedField>, ReadError> {
        if !flexible {
            return Ok(Vec::new());
        }
        let count = self.uvarint("tagged field count")?;
        let mut fields = Vec::new();
        for _ in 0..count {
            let tag = self.uvarint("tag")?;
            let size = self.uvarint("tagged field size")?;
            let data = self.take(size as usize, "tagged field")?.to_vec();
            fields.push(RawTaggedField { tag, data });
        }
        Ok(fields)
    }
}

/// Writes fields front to back into a buffer.
pub struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        Writer { out }
    }

    pub(crate) fn i16(&mut self, v: i16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    fn length(
        &mut self,
        what: &'static str,
        len: Option<usize>,
        flexible: bool,
        short: bool,
    ) -> Result<(), WriteError> {
        let limit = if short {
            i16::MAX as usize
        } else {
            i32::MAX as usize - 1
        };
        match len {
            Some(n) if n > limit => Err(WriteError::TooLong {
                what,
                length: n,
                limit,
            }),
            Some(n) if flexible => {
                varint::write_unsigned_varint(n as u32 + 1, self.out);
                Ok(())
            }
            None if flexible => {
                self.out.push(0);
                Ok(())
            }
            Some(n) if short => {
                self.i16(n as i16);
                Ok(())
            }
            Some(n) => {
                self.i32(n as i32);
                Ok(())
            }
            None if short => {
                self.i16(-1);
                Ok(())
            }
            None => {
                self.i32(-1);
                Ok(())
            }
        }
    }

    pub(crate) fn nullable_string(
        &mut self,
        what: &'static str,
        s: Option<&str>,
        flexible: bool,
    ) -> Result<(), WriteError> {
        self.length(what, s.map(str::len), flexible, true)?;
        self.out.extend_from_slice(s.unwrap_or_default().as_bytes());
        Ok(())
    }

    pub(crate) fn string(
        &mut self,
        what: &'static str,
        s: &str,
        flexible: bool,
    ) -> Result<(), WriteError> {
        self.nullable_string(what, Some(s), flexible)
    }

    pub(crate) fn nullable_bytes(
        &mut self,
        what: &'static str,
        b: Option<&[u8]>,
        flexible: bool,
    ) -> Result<(), WriteError> {
        self.length(what, b.map(<[u8]>::len), flexible, false)?;
        self.out.extend_from_slice(b.unwrap_or_default());
        Ok(())
    }

    pub(crate) fn array_len(
        &mut self,
        what: &'static str,
        n: usize,
        flexible: bool,
    ) -> Result<(), WriteError> {
        self.length(what, Some(n), flexible, false)
    }

    pub(crate) fn i32_array(
        &mut self,
        what: &'static str,
        items: &[i32],
        flexible: bool,
    ) -> Result<(), WriteError> {
        self.array_len(what, items.len(), flexible)?;
        for &item in items {
            self.i32(item);
        }
        Ok(())
    }

    /// The tagged-field section of a struct in a flexible version (nothing otherwise).
    pub(crate) fn tagged_fields(
        &mut self,
        fields: &[RawTaggedField],
        flexible: bool,
    ) -> Result<(), WriteError> {
        if !flexible {
            return Ok(());
        }
        let too_long = |length| WriteError::TooLong {
            what: "tagged field",
            length,
            limit: u32::MAX as usize,
        };
        let count = u32::try_from(fields.len()).map_err(|_| too_long(fields.len()))?;
        varint::write_unsigned_varint(count, self.out);
        for field in fields {
            varint::write_unsigned_varint(field.tag, self.out);
            let size = u32::try_from(field.data.len()).map_err(|_| too_long(field.data.len()))?;
            varint::write_unsigned_varint(size, self.out);
            self.out.extend_from_slice(&field.data);
        }
        Ok(())
    }
}
