//! Kafka's variable-length integers (`ByteUtils`): unsigned LEB128 groups, zigzag for signed.

use super::RecordError;

/// Encodes `value` as an unsigned varint (the `int` read as 32 unsigned bits), at most 5 bytes.
pub fn write_unsigned_varint(value: u32, out: &mut Vec<u8>) {
    let mut v = value;
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push((v & 0x7f) as u8);
}

/// Encodes `value` as an unsigned varlong, at most 10 bytes.
pub fn write_unsigned_varlong(value: u64, out: &mut Vec<u8>) {
    let mut v = value;
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push((v & 0x7f) as u8);
}

/// Encodes `value` as a zigzag varint (Kafka's `writeVarint`).
pub fn write_varint(value: i32, out: &mut Vec<u8>) {
    write_unsigned_varint(((value << 1) ^ (value >> 31)).cast_unsigned(), out);
}

/// Encodes `value` as a zigzag varlong (Kafka's `writeVarlong`).
pub fn write_varlong(value: i64, out: &mut Vec<u8>) {
    write_unsigned_varlong(((value << 1) ^ (value >> 63)).cast_unsigned(), out);
}

/// Bytes of a varint by the leading zeros of its value with the lowest bit set (7 bits a
/// byte, at least one byte): one table read instead of a division on every record's several
/// length fields.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: an index out of range fails the build
const SIZE_BY_LEADING_ZEROS: [u8; 64] = {
    let mut sizes = [0u8; 64];
    let mut zeros: usize = 0;
    while zeros < 64 {
        // At most 10: the cast keeps the value.
        #[allow(clippy::cast_possible_truncation)]
        let size = (64 - zeros).div_ceil(7) as u8;
        sizes[zeros] = size;
        zeros += 1;
    }
    sizes
};

/// Bytes of the varint of `value`. Setting the lowest bit does not change the size (0 takes
/// one byte, like 1) and keeps the leading zeros below 64, so the table read needs no check.
#[inline(always)]
fn size_of_bits(value: u64) -> usize {
    let zeros = (value | 1).leading_zeros() as usize;
    SIZE_BY_LEADING_ZEROS
        .get(zeros & 63)
        .map_or(10, |&s| usize::from(s))
}

/// Bytes [`write_unsigned_varint`] uses for `value`.
#[inline(always)]
pub fn size_of_unsigned_varint(value: u32) -> usize {
    size_of_bits(u64::from(value))
}

/// Bytes [`write_varint`] uses for `value`.
#[inline(always)]
pub fn size_of_varint(value: i32) -> usize {
    size_of_unsigned_varint(((value << 1) ^ (value >> 31)).cast_unsigned())
}

/// Bytes [`write_varlong`] uses for `value`.
#[inline(always)]
pub fn size_of_varlong(value: i64) -> usize {
    size_of_bits(((value << 1) ^ (value >> 63)).cast_unsigned())
}

/// Reads an unsigned varint from the start of `buf`: the value and the bytes used.
///
/// Like Kafka, bits of the 5th byte beyond 32 are dropped, and a 5th byte with its high bit set
/// is [`RecordError::VarintTooLong`]. Positions in errors count from the start of `buf`.
pub fn read_unsigned_varint(buf: &[u8]) -> Result<(u32, usize), RecordError> {
    let mut value: u32 = 0;
    let mut shift = 0u32;
    for (i, &b) in buf.iter().enumerate().take(5) {
        value |= u32::from(b & 0x7f).wrapping_shl(shift);
        shift += 7;
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
        if i == 4 {
            return Err(RecordError::VarintTooLong { position: 0, value });
        }
    }
    Err(RecordError::Truncated {
        position: 0,
        what: "varint",
        needed: buf.len() + 1,
        remaining: buf.len(),
    })
}

/// Reads an unsigned varlong from the start of `buf`: the value and the bytes used.
///
/// A 10th byte with its high bit set is [`RecordError::VarlongTooLong`].
pub fn read_unsigned_varlong(buf: &[u8]) -> Result<(u64, usize), RecordError> {
    let mut value: u64 = 0;
    let mut shift = 0u32;
    for (i, &b) in buf.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f).wrapping_shl(shift);
        shift += 7;
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
        if i == 9 {
            return Err(RecordError::VarlongTooLong { position: 0, value });
        }
    }
    Err(RecordError::Truncated {
        position: 0,
        what: "varlong",
        needed: buf.len() + 1,
        remaining: buf.len(),
    })
}

/// Reads a zigzag varint from the start of `buf`: the value and the bytes used.
pub fn read_varint(buf: &[u8]) -> Result<(i32, usize), RecordError> {
    let (raw, used) = read_unsigned_varint(buf)?;
    Ok(((raw >> 1).cast_signed() ^ -(raw & 1).cast_signed(), used))
}

/// Reads a zigzag varlong from the start of `buf`: the value and the bytes used.
pub fn read_varlong(buf: &[u8]) -> Result<(i64, usize), RecordError> {
    let (raw, used) = read_unsigned_varlong(buf)?;
    Ok(((raw >> 1).cast_signed() ^ -(raw & 1).cast_signed(), used))
}
