//! Kafka's murmur2 hash (`Utils.murmur2`) and the key-to-partition formula, bit-exact with Java
//! (`kafka-cli-surface.md` §3.1).

const SEED: u32 = 0x9747_b28c;
const M: u32 = 0x5bd1_e995;
const R: u32 = 24;

/// Kafka's 32-bit murmur2 of `data`, as the signed int Java returns.
///
/// Bytes are read unsigned, little-endian in 4-byte blocks, with wrapping arithmetic and logical
/// shifts: the three porting bugs the vectors catch (sign extension, arithmetic shift, `abs`)
/// cannot happen with `u32`.
pub fn murmur2(data: &[u8]) -> i32 {
    let mut h: u32 = SEED ^ (data.len() as u32);
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = blocks.remainder();
    if let Some(&b) = tail.get(2) {
        h ^= u32::from(b) << 16;
    }
    if let Some(&b) = tail.get(1) {
        h ^= u32::from(b) << 8;
    }
    if let Some(&b) = tail.first() {
        h ^= u32::from(b);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: clears the sign bit (not `abs`, which keeps `i32::MIN` negative).
pub const fn to_positive(x: i32) -> i32 {
    x & 0x7fff_ffff
}

/// The partition Kafka's producer picks for a key: `toPositive(murmur2(key)) % partitions`.
///
/// `partitions` is the topic's partition count; a count of 0 or less gives partition 0.
pub fn partition_for_key(key: &[u8], partitions: i32) -> i32 {
    if partitions <= 0 {
        return 0;
    }
    to_positive(murmur2(key)) % partitions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_values() {
        assert_eq!(murmur2(b"21"), -973_932_308);
        assert_eq!(murmur2(b"foobar"), -790_332_482);
        assert_eq!(murmur2(b""), 275_646_681);
        assert_eq!(murmur2(&[0xa4]), 367_232_046);
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(partition_for_key(b"foobar", 10), 6);
    }
}
