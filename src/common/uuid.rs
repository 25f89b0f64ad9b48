//! Kafka's `Uuid`: 16 bytes printed as 22 characters of URL-safe base64 without padding. Topic
//! ids, directory ids and cluster ids are all of this kind.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::Rng;

/// A Kafka `Uuid` (topic id, directory id, cluster id): its 16 bytes, most significant first.
///
/// `Ord` is the order of the bytes, which is Kafka's `compareTo` since it compares the halves
/// unsigned; [`Uuid::java_cmp`] is the signed comparison of Kafka 4.0, which the server-side
/// assignors' results depend on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

/// Why a string is not a Kafka `Uuid`; displays as the message of the exception Kafka's
/// `Uuid.fromString` throws (the decoding errors are `java.util.Base64`'s own).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UuidError {
    /// More than 24 characters (UTF-16 units, as Java counts).
    #[error("Input string with prefix `{0}` is too long to be decoded as a base64 UUID")]
    TooLong(String),
    /// A character outside the URL-safe alphabet (`Base64.getUrlDecoder()`); Java names its
    /// byte (the string's ISO-8859-1 encoding, `?` for a character outside it) as a signed
    /// hexadecimal number.
    #[error("Illegal base64 character {0}")]
    IllegalCharacter(String),
    /// One character only.
    #[error("Input byte[] should at least have 2 bytes for base64 bytes")]
    TooShort,
    /// `=` where no padding may be, or a single `=` after two characters.
    #[error("Input byte array has wrong 4-byte ending unit")]
    WrongEndingUnit,
    /// A last unit of one character.
    #[error("Last unit does not have enough valid bits")]
    DanglingCharacter,
    /// Characters after the padding; the position is that of the first, counted from 0.
    #[error("Input byte array has incorrect ending byte at {0}")]
    AfterPadding(usize),
    /// Base64, but not 16 bytes of it.
    #[error("Input string `{0}` decoded as {1} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID")]
    WrongLength(String, usize),
}

impl Uuid {
    /// The reserved all-zero id (`Uuid.ZERO_UUID`): "no id".
    pub const ZERO: Uuid = Uuid([0; 16]);
    /// The reserved id `Uuid.ONE_UUID`.
    pub const ONE: Uuid = Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    /// `Uuid.METADATA_TOPIC_ID`, the id of `__cluster_metadata` in KRaft mode: [`Uuid::ONE`].
    pub const METADATA_TOPIC_ID: Uuid = Uuid::ONE;
    /// `Uuid.RESERVED`: the ids [`Uuid::random`] never returns.
    pub const RESERVED: [Uuid; 2] = [Uuid::ZERO, Uuid::ONE];

    /// `new Uuid(mostSigBits, leastSigBits)`.
    pub fn from_halves(msb: i64, lsb: i64) -> Uuid {
        let mut bytes = [0u8; 16];
        let (hi, lo) = bytes.split_at_mut(8);
        hi.copy_from_slice(&msb.to_be_bytes());
        lo.copy_from_slice(&lsb.to_be_bytes());
        Uuid(bytes)
    }

    /// `getMostSignificantBits`.
    pub fn msb(&self) -> i64 {
        let [a, b, c, d, e, f, g, h, ..] = self.0;
        i64::from_be_bytes([a, b, c, d, e, f, g, h])
    }

    /// `getLeastSignificantBits`.
    pub fn lsb(&self) -> i64 {
        let [.., a, b, c, d, e, f, g, h] = self.0;
        i64::from_be_bytes([a, b, c, d, e, f, g, h])
    }

    /// A random version-4 id as `Uuid.randomUuid()` makes it: never a reserved id and never one
    /// whose text starts with `-` (it would read as a command-line option).
    pub fn random() -> Uuid {
        let mut rng = rand::rng();
        loop {
            let mut bytes = [0u8; 16];
            rng.fill_bytes(&mut bytes);
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            let id = Uuid(bytes);
            if !Uuid::RESERVED.contains(&id) && !id.to_string().starts_with('-') {
                return id;
            }
        }
    }

    /// The id as `java.util.UUID.toString()` writes its 128 bits: five groups of lowercase hex,
    /// `8-4-4-4-12` (Kafka's member ids end with one; Kafka's `Uuid` prints base64 instead).
    pub fn to_java_uuid_string(&self) -> String {
        let mut out = String::with_capacity(36);
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                out.push('-');
            }
            let _ = write!(out, "{b:02x}");
        }
        out
    }

    /// Whether this is the reserved zero id.
    pub fn is_zero(&self) -> bool {
        *self == Uuid::ZERO
    }

    /// `Uuid.hashCode`: `(int)(x >> 32) ^ (int)x` with `x = msb ^ lsb`.
    pub fn java_hash(&self) -> i32 {
        let x = self.msb() ^ self.lsb();
        ((x >> 32) as i32) ^ (x as i32)
    }

    /// Kafka 4.0's `Uuid.compareTo`: the most significant halves, then the least, as signed
    /// longs (`spec/kafka-assignors.md` §5.3; later Kafka compares them unsigned, as `Ord`).
    pub fn java_cmp(&self, other: &Uuid) -> Ordering {
        self.msb()
            .cmp(&other.msb())
            .then(self.lsb().cmp(&other.lsb()))
    }
}

/// `Uuid.toString`: URL-safe base64 of the 16 bytes, without padding.
impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&URL_SAFE_NO_PAD.encode(self.0))
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

/// `Uuid.fromString`: at most 24 characters, decoded by Java's URL-safe base64 decoder (padding
/// optional but exact when present, the unused low bits of the last character ignored), into
/// exactly 16 bytes.
impl FromStr for Uuid {
    type Err = UuidError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.encode_utf16().count() > 24 {
            return Err(UuidError::TooLong(java_prefix(s, 24)));
        }
        let bytes = java_url_decode(s)?;
        let array: [u8; 16] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| UuidError::WrongLength(s.to_string(), bytes.len()))?;
        Ok(Uuid(array))
    }
}

/// `s.substring(0, units)`: the first `units` UTF-16 units; a surrogate pair cut in two leaves
/// its first half, which Java prints as `?`.
fn java_prefix(s: &str, units: usize) -> String {
    let mut out = String::new();
    let mut taken = 0;
    for c in s.chars() {
        let width = c.len_utf16();
        if taken + width > units {
            if taken < units {
                out.push('?');
            }
            break;
        }
        out.push(c);
        taken += width;
    }
    out
}

/// The value of a URL-safe base64 character, as `Base64.Decoder.fromBase64URL` holds it.
fn url_digit(b: u8) -> Option<u32> {
    let v = match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// `Base64.getUrlDecoder().decode(String)` (JDK 17's `Decoder.decode0`), with its exceptions.
fn java_url_decode(s: &str) -> Result<Vec<u8>, UuidError> {
    // `decode(String)` encodes the string as ISO-8859-1 first: any other character becomes `?`.
    let src: Vec<u8> = s
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    if src.len() == 1 {
        return Err(UuidError::TooShort);
    }
    let mut out = Vec::with_capacity(src.len() / 4 * 3 + 2);
    let mut bits: u32 = 0;
    let mut shift: i32 = 18;
    let mut at = 0;
    while let Some(&b) = src.get(at) {
        at += 1;
        let Some(v) = url_digit(b) else {
            if b == b'=' {
                // `xx=` must be `xx==`; `=` cannot open a unit.
                let second_pad = shift == 6 && {
                    let next = src.get(at).copied();
                    at += 1;
                    next == Some(b'=')
                };
                if (shift == 6 && !second_pad) || shift == 18 {
                    return Err(UuidError::WrongEndingUnit);
                }
                break;
            }
            // Java prints the (signed) byte in hexadecimal.
            let signed = i32::from(b as i8);
            let hex = if signed < 0 {
                format!("-{:x}", -signed)
            } else {
                format!("{signed:x}")
            };
            return Err(UuidError::IllegalCharacter(hex));
        };
        bits |= v << shift;
        shift -= 6;
        if shift < 0 {
            out.extend_from_slice(&bits.to_be_bytes()[1..]);
            shift = 18;
            bits = 0;
        }
    }
    match shift {
        6 => out.push((bits >> 16) as u8),
        0 => out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8]),
        12 => return Err(UuidError::DanglingCharacter),
        _ => {}
    }
    if at < src.len() {
        return Err(UuidError::AfterPadding(at));
    }
    Ok(out)
}

impl serde::Serialize for Uuid {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Uuid {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_uuid_text_is_hex_in_8_4_4_4_12() {
        let id = Uuid([
            0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17,
            0x40, 0x00,
        ]);
        assert_eq!(
            id.to_java_uuid_string(),
            "123e4567-e89b-12d3-a456-426614174000"
        );
    }

    // Random ids' shape: `tests/datadir.rs`, `topic_ids_are_kafka_shaped`.
    #[test]
    fn reserved_ids_and_halves() {
        let id: Uuid = "wydHvqZNQEC9doralF51Mw".parse().unwrap();
        assert_eq!(Uuid::from_halves(id.msb(), id.lsb()), id);
        assert_eq!(Uuid::ZERO.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(
            Uuid::METADATA_TOPIC_ID.to_string(),
            "AAAAAAAAAAAAAAAAAAAAAQ"
        );
        assert_eq!(Uuid::from_halves(0, 1), Uuid::ONE);
    }

    #[test]
    fn parses_as_javas_decoder_does() {
        // The unused low bits of the last character are ignored (the assignor vectors' ids
        // have them set), and padding is optional but exact.
        let id: Uuid = "T2-B4s3VTwiI5YHbPp6YUe".parse().unwrap();
        assert_eq!(id, "T2-B4s3VTwiI5YHbPp6YUQ".parse().unwrap());
        assert_eq!(id, "T2-B4s3VTwiI5YHbPp6YUe==".parse().unwrap());
        let cases = [
            ("", "Input string `` decoded as 0 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID"),
            ("A", "Input byte[] should at least have 2 bytes for base64 bytes"),
            ("abc", "Input string `abc` decoded as 2 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID"),
            ("not a uuid", "Illegal base64 character 20"),
            ("AAAA+AAAAAAAAAAAAAAAAA", "Illegal base64 character 2b"),
            ("AAAAAAAAAAAAAAAAAAAAAé", "Illegal base64 character -17"),
            ("AAAAAAAAAAAAAAAAAAAAA→", "Illegal base64 character 3f"),
            ("AAAAAAAAAAAAAAAAAAAAAA=", "Input byte array has wrong 4-byte ending unit"),
            ("=AAAAAAAAAAAAAAAAAAAAA", "Input byte array has wrong 4-byte ending unit"),
            ("AAAAAAAAAAAAAAAAAAAAA", "Last unit does not have enough valid bits"),
            ("AAAAAAAAAAAAAAAAAAAAA=", "Last unit does not have enough valid bits"),
            ("AAAAAAAAAAAAAAAAAA==AA", "Input byte array has incorrect ending byte at 20"),
            ("AAAAAAAAAAAAAAAAAAAA==", "Input byte array has wrong 4-byte ending unit"),
            ("AAAAAAAAAAAAAAAAAAAAAAAAA", "Input string with prefix `AAAAAAAAAAAAAAAAAAAAAAAA` is too long to be decoded as a base64 UUID"),
        ];
        for (text, message) in cases {
            let err = text.parse::<Uuid>().unwrap_err();
            assert_eq!(err.to_string(), message, "{text:?}");
        }
        assert_eq!(java_prefix("ab😀", 3), "ab?");
    }

    #[test]
    fn hashes_and_compares_as_kafka() {
        let id: Uuid = "T1-A4s3VTwiI5CTbEp6POw".parse().unwrap();
        assert_eq!(id.java_hash(), 418407434);
        // The signed comparison puts a set top bit first; the byte order last.
        let high = Uuid::from_halves(-1, 0);
        assert_eq!(high.java_cmp(&Uuid::ONE), Ordering::Less);
        assert!(high > Uuid::ONE);
    }
}
