//! Kafka's `Uuid`: 16 bytes printed as 22 characters of URL-safe base64 without padding. Topic
//! ids, directory ids and cluster ids are all of this kind.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;

/// A Kafka `Uuid` (topic id, directory id, cluster id).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

/// Why a string is not a Kafka `Uuid`; displays as Kafka's message (`Uuid.fromString`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UuidError {
    /// More than 24 characters.
    #[error("Input string with prefix `{0}` is too long to be decoded as a base64 UUID")]
    TooLong(String),
    /// Not base64 at all.
    #[error("Input string `{0}` is not a valid base64 string")]
    NotBase64(String),
    /// Base64, but not 16 bytes of it.
    #[error("Input string `{0}` decoded as {1} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID")]
    WrongLength(String, usize),
}

impl Uuid {
    /// The reserved all-zero id (`Uuid.ZERO_UUID`): "no id".
    pub const ZERO: Uuid = Uuid([0; 16]);
    /// The reserved id `Uuid.ONE_UUID` (used by Kafka for the metadata topic).
    pub const ONE: Uuid = Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);

    /// A random version-4 id as `Uuid.randomUuid()` makes it: never a reserved id and never one
    /// whose text starts with `-` (it would read as a command-line option).
    pub fn random() -> Uuid {
        let mut rng = rand::thread_rng();
        loop {
            let mut bytes = [0u8; 16];
            rng.fill_bytes(&mut bytes);
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            let id = Uuid(bytes);
            if id != Uuid::ZERO && id != Uuid::ONE && !id.to_string().starts_with('-') {
                return id;
            }
        }
    }

    /// Whether this is the reserved zero id.
    pub fn is_zero(&self) -> bool {
        *self == Uuid::ZERO
    }
}

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

impl FromStr for Uuid {
    type Err = UuidError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() > 24 {
            let prefix: String = s.chars().take(24).collect();
            return Err(UuidError::TooLong(prefix));
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(s.trim_end_matches('='))
            .map_err(|_| UuidError::NotBase64(s.to_string()))?;
        let array: [u8; 16] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| UuidError::WrongLength(s.to_string(), bytes.len()))?;
        Ok(Uuid(array))
    }
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
    fn round_trip_and_shape() {
        for _ in 0..1000 {
            let id = Uuid::random();
            let text = id.to_string();
            assert_eq!(text.len(), 22);
            assert!(!text.starts_with('-'));
            assert_eq!(text.parse::<Uuid>().unwrap(), id);
        }
        assert_eq!(Uuid::ZERO.to_string(), "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(Uuid::ONE.to_string(), "AAAAAAAAAAAAAAAAAAAAAQ");
        assert!("abc".parse::<Uuid>().is_err());
    }
}
