//! Kafka's built-in deserializers (`org.apache.kafka.common.serialization`), as the console
//! consumer's `DefaultMessageFormatter` applies them with `key.deserializer`,
//! `value.deserializer` and `headers.deserializer` (`--key-deserializer`, `--value-deserializer`):
//! the bytes become a Java object, and what is printed is its `toString()` in UTF-8.

use crate::common::Uuid;
use crate::java::{double_to_string, float_to_string};
use std::io::Write as _;

/// What one of Kafka's deserializers throws for bytes it cannot read: displayed as the first
/// line of the exception (class and message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeserializeError {
    /// Data of the wrong size for a fixed-size type.
    #[error("org.apache.kafka.common.errors.SerializationException: Size of data received by {deserializer} is not {expected}")]
    Size {
        /// The name Kafka's message gives (`IntegerDeserializer`, or `Deserializer` for the
        /// floating-point ones).
        deserializer: &'static str,
        /// The size the type has.
        expected: usize,
    },
    /// A byte other than 0 or 1 for a boolean.
    #[error("org.apache.kafka.common.errors.SerializationException: Unexpected byte received by BooleanDeserializer: {0}")]
    Boolean(i8),
    /// Text that `UUID.fromString` refuses.
    #[error("org.apache.kafka.common.errors.SerializationException: Error parsing data into UUID")]
    Uuid,
    /// Any data for the `VoidDeserializer`.
    #[error("java.lang.IllegalArgumentException: Data should be null for a VoidDeserializer.")]
    NotNull,
}

/// The package of Kafka's deserializers: their class names are taken whole, as `Class.forName`
/// takes them.
const PACKAGE: &str = "org.apache.kafka.common.serialization.";

/// The serializers of [`PACKAGE`] (Kafka 4.x), which a user may name by mistake.
const SERIALIZERS: [&str; 13] = [
    "BooleanSerializer",
    "ByteArraySerializer",
    "ByteBufferSerializer",
    "BytesSerializer",
    "DoubleSerializer",
    "FloatSerializer",
    "IntegerSerializer",
    "ListSerializer",
    "LongSerializer",
    "ShortSerializer",
    "StringSerializer",
    "UUIDSerializer",
    "VoidSerializer",
];

/// One of Kafka's built-in deserializers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deserializer {
    /// `StringDeserializer`: the bytes as UTF-8 (malformed sequences as U+FFFD).
    String,
    /// `ShortDeserializer`: 2 bytes, big-endian.
    Short,
    /// `IntegerDeserializer`: 4 bytes, big-endian.
    Integer,
    /// `LongDeserializer`: 8 bytes, big-endian.
    Long,
    /// `FloatDeserializer`: 4 bytes of an IEEE 754 float, printed as Java's `Float.toString`
    /// (JDK 19 and later; older JDKs print more digits for some values).
    Float,
    /// `DoubleDeserializer`: 8 bytes of an IEEE 754 double, printed as `Double.toString`.
    Double,
    /// `BooleanDeserializer`: one byte, 1 for true and 0 for false.
    Boolean,
    /// `UUIDDeserializer`: the UTF-8 text of a UUID, printed in its canonical form.
    Uuid,
    /// `BytesDeserializer`: printable ASCII as it is, every other byte (and `\`) as `\xNN`.
    Bytes,
    /// `ByteBufferDeserializer`: the buffer's `toString()`, its position, limit and capacity.
    ByteBuffer,
    /// `VoidDeserializer`: refuses any bytes.
    Void,
}

/// What a deserializer class name stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeserializerClass {
    /// A deserializer kafkit has.
    Available(Deserializer),
    /// One of Kafka's that kafkit cannot print as Kafka does; the text says why.
    Unavailable(String),
    /// A class Kafka's formatter cannot make a deserializer of: it logs `Unable to instantiate
    /// a deserializer from <class>` with the exception, and prints the raw bytes.
    NotLoaded {
        /// The first line of the exception (`java.lang.ClassNotFoundException: <class>`, or the
        /// `ClassCastException` of a serializer named by mistake).
        exception: String,
    },
}

impl Deserializer {
    /// Every deserializer kafkit has.
    pub const ALL: [Self; 11] = [
        Self::String,
        Self::Short,
        Self::Integer,
        Self::Long,
        Self::Float,
        Self::Double,
        Self::Boolean,
        Self::Uuid,
        Self::Bytes,
        Self::ByteBuffer,
        Self::Void,
    ];

    /// The deserializer class `name` (a fully qualified Java class name).
    pub fn for_class(name: &str) -> DeserializerClass {
        let not_found = || DeserializerClass::NotLoaded {
            exception: format!("java.lang.ClassNotFoundException: {name}"),
        };
        let Some(simple) = name.strip_prefix(PACKAGE) else {
            return not_found();
        };
        if let Some(available) = Self::ALL.into_iter().find(|d| d.name() == simple) {
            return DeserializerClass::Available(available);
        }
        match simple {
            "ByteArrayDeserializer" => {
                DeserializerClass::Unavailable(format!(
                    "{name} prints a Java array's identity ([B@ and a hash code), which kafkit cannot reproduce; without a deserializer the bytes are printed as they are"
                ))
            }
            // Configured without its list and inner classes, which kafkit does not take.
            "ListDeserializer" => {
                DeserializerClass::NotLoaded {
                    exception: "org.apache.kafka.common.config.ConfigException: Not able to determine the list class because it was neither passed via the constructor nor set in the config.".to_string(),
                }
            }
            // The package's interfaces have no constructor for `newInstance`.
            "Deserializer" | "Serializer" | "Serde" => DeserializerClass::NotLoaded {
                exception: format!("java.lang.NoSuchMethodException: {name}.<init>()"),
            },
            // Its other classes are made, then refused by the cast to `Deserializer`, with the
            // JVM's message for classes of Kafka's jars (the application loader's unnamed
            // module).
            _ if SERIALIZERS.contains(&simple) || simple == "Serdes" => {
                DeserializerClass::NotLoaded {
                    exception: format!(
                        "java.lang.ClassCastException: class {name} cannot be cast to class {PACKAGE}Deserializer ({name} and {PACKAGE}Deserializer are in unnamed module of loader 'app')"
                    ),
                }
            }
            _ => not_found(),
        }
    }

    /// The Java class's full name, as `--key-deserializer` takes it.
    pub fn class_name(self) -> String {
        format!("{PACKAGE}{}", self.name())
    }

    /// The Java class's simple name.
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "StringDeserializer",
            Self::Short => "ShortDeserializer",
            Self::Integer => "IntegerDeserializer",
            Self::Long => "LongDeserializer",
            Self::Float => "FloatDeserializer",
            Self::Double => "DoubleDeserializer",
            Self::Boolean => "BooleanDeserializer",
            Self::Uuid => "UUIDDeserializer",
            Self::Bytes => "BytesDeserializer",
            Self::ByteBuffer => "ByteBufferDeserializer",
            Self::Void => "VoidDeserializer",
        }
    }

    /// Appends the `toString()` of what `data` deserializes to, in UTF-8; or the first line of
    /// the exception Kafka's deserializer throws (class and message).
    pub fn write(self, data: &[u8], out: &mut Vec<u8>) -> Result<(), DeserializeError> {
        let size = |expected: usize, deserializer: &'static str| DeserializeError::Size {
            deserializer,
            expected,
        };
        match self {
            Self::String => out.extend_from_slice(crate::java::utf8_string(data).as_bytes()),
            Self::Short => {
                let bytes: [u8; 2] = data.try_into().map_err(|_| size(2, self.name()))?;
                write_text(out, format_args!("{}", i16::from_be_bytes(bytes)));
            }
            Self::Integer => {
                let bytes: [u8; 4] = data.try_into().map_err(|_| size(4, self.name()))?;
                write_text(out, format_args!("{}", i32::from_be_bytes(bytes)));
            }
            Self::Long => {
                let bytes: [u8; 8] = data.try_into().map_err(|_| size(8, self.name()))?;
                write_text(out, format_args!("{}", i64::from_be_bytes(bytes)));
            }
            Self::Float => {
                let bytes: [u8; 4] = data.try_into().map_err(|_| size(4, "Deserializer"))?;
                out.extend_from_slice(float_to_string(f32::from_be_bytes(bytes)).as_bytes());
            }
            Self::Double => {
                let bytes: [u8; 8] = data.try_into().map_err(|_| size(8, "Deserializer"))?;
                out.extend_from_slice(double_to_string(f64::from_be_bytes(bytes)).as_bytes());
            }
            Self::Boolean => match data {
                [1] => out.extend_from_slice(b"true"),
                [0] => out.extend_from_slice(b"false"),
                [other] => return Err(DeserializeError::Boolean(other.cast_signed())),
                _ => return Err(size(1, self.name())),
            },
            Self::Uuid => {
                let text = crate::java::utf8_string(data);
                let (most, least) = java_uuid(&text).ok_or(DeserializeError::Uuid)?;
                let mut bits = [0u8; 16];
                bits[..8].copy_from_slice(&most.to_be_bytes());
                bits[8..].copy_from_slice(&least.to_be_bytes());
                out.extend_from_slice(Uuid(bits).to_java_uuid_string().as_bytes());
            }
            Self::Bytes => {
                for &b in data {
                    if (b' '..=b'~').contains(&b) && b != b'\\' {
                        out.push(b);
                    } else {
                        write_text(out, format_args!("\\x{b:02X}"));
                    }
                }
            }
            Self::ByteBuffer => write_text(
                out,
                format_args!("java.nio.HeapByteBuffer[pos=0 lim={0} cap={0}]", data.len()),
            ),
            Self::Void => return Err(DeserializeError::NotNull),
        }
        Ok(())
    }
}

/// Formats straight into `out` (writing to a `Vec` cannot fail).
fn write_text(out: &mut Vec<u8>, args: std::fmt::Arguments<'_>) {
    let _ = out.write_fmt(args);
}

/// `java.util.UUID.fromString`: five groups of hex digits separated by `-` (the whole at most 36
/// UTF-16 units), each read as a Java long (an optional `+`; none above `Long.MAX_VALUE`) and cut
/// to its field's width (8, 4, 4, 4 and 12 digits) as Java masks it, as (most, least)
/// significant bits.
fn java_uuid(text: &str) -> Option<(u64, u64)> {
    if text.chars().map(char::len_utf16).sum::<usize>() > 36 {
        return None;
    }
    let groups: Vec<&str> = text.split('-').collect();
    let [a, b, c, d, e] = groups.as_slice() else {
        return None;
    };
    let part = |g: &str, bits: u32| -> Option<u64> {
        let v = i64::from_str_radix(g, 16).ok()? as u64;
        Some(v & ((1u64 << bits) - 1))
    };
    let most = (part(a, 32)? << 32) | (part(b, 16)? << 16) | part(c, 16)?;
    let least = (part(d, 16)? << 48) | part(e, 48)?;
    Some((most, least))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(d: Deserializer, data: &[u8]) -> Result<String, String> {
        let mut out = Vec::new();
        d.write(data, &mut out).map_err(|e| e.to_string())?;
        Ok(String::from_utf8(out).expect("utf8"))
    }

    #[test]
    // The tie cases are written as their exact binary values, more digits than their shortest.
    #[allow(clippy::excessive_precision)]
    fn doubles_and_floats_print_as_java_prints_them() {
        for (v, java) in [
            (1.0, "1.0"),
            (0.001, "0.001"),
            (1.0e-4, "1.0E-4"),
            (1.0e7, "1.0E7"),
            (9_999_999.0, "9999999.0"),
            (123.456, "123.456"),
            (1.0e10, "1.0E10"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (100.0, "100.0"),
            (1.5e300, "1.5E300"),
            (f64::NAN, "NaN"),
            // Halfway between two shortest candidates: the even one, as Java.
            (8_796_093_022_208.812_5, "8.796093022208812E12"),
            (f64::NEG_INFINITY, "-Infinity"),
            (4.9e-324, "4.9E-324"),
        ] {
            let bits = f64::to_be_bytes(v);
            assert_eq!(
                shown(Deserializer::Double, &bits).as_deref(),
                Ok(java),
                "{v}"
            );
        }
        for (v, java) in [
            (0.1f32, "0.1"),
            (48_811.812_5, "48811.812"),
            (8_129.281_25, "8129.2812"),
            (-8_129.281_25, "-8129.2812"),
            (1.401_298_5e-45, "1.4E-45"),
            (f32::MAX, "3.4028235E38"),
            (1.0e-3, "0.001"),
        ] {
            let bits = f32::to_be_bytes(v);
            assert_eq!(
                shown(Deserializer::Float, &bits).as_deref(),
                Ok(java),
                "{v}"
            );
        }
    }

    #[test]
    fn each_deserializer_prints_what_its_java_object_prints() {
        use Deserializer::*;
        for (d, data, java) in [
            (String, &b"caf\xc3\xa9 \xff"[..], "caf\u{e9} \u{fffd}"),
            (Short, &[0x80, 0x00][..], "-32768"),
            (Integer, &[0, 0, 1, 0][..], "256"),
            (Long, &[0xff; 8][..], "-1"),
            (Boolean, &[1][..], "true"),
            (Boolean, &[0][..], "false"),
            (
                Uuid,
                &b"123e4567-E89B-12d3-a456-426614174000"[..],
                "123e4567-e89b-12d3-a456-426614174000",
            ),
            (
                Uuid,
                &b"1-2-3-4-5"[..],
                "00000001-0002-0003-0004-000000000005",
            ),
            (
                Uuid,
                &b"+1-2-3-4-5"[..],
                "00000001-0002-0003-0004-000000000005",
            ),
            (Bytes, &b"a b~\x00\\\x7f\xff"[..], r"a b~\x00\x5C\x7F\xFF"),
            (
                ByteBuffer,
                &b"12345"[..],
                "java.nio.HeapByteBuffer[pos=0 lim=5 cap=5]",
            ),
        ] {
            assert_eq!(shown(d, data).as_deref(), Ok(java), "{d:?}");
        }
    }

    #[test]
    fn refused_bytes_get_the_exception_kafka_throws() {
        use Deserializer::*;
        let serialization = "org.apache.kafka.common.errors.SerializationException: ";
        for (d, data, message) in [
            (
                Short,
                &b"a"[..],
                "Size of data received by ShortDeserializer is not 2",
            ),
            (
                Integer,
                &b"nul"[..],
                "Size of data received by IntegerDeserializer is not 4",
            ),
            (
                Long,
                &b"null"[..],
                "Size of data received by LongDeserializer is not 8",
            ),
            (
                Float,
                &b"abc"[..],
                "Size of data received by Deserializer is not 4",
            ),
            (
                Double,
                &b"abc"[..],
                "Size of data received by Deserializer is not 8",
            ),
            (
                Boolean,
                &b"ab"[..],
                "Size of data received by BooleanDeserializer is not 1",
            ),
            (
                Boolean,
                &[0xff][..],
                "Unexpected byte received by BooleanDeserializer: -1",
            ),
            (Uuid, &b"not-a-uuid"[..], "Error parsing data into UUID"),
            (
                Uuid,
                &b"0-0-0-0-8000000000000000"[..],
                "Error parsing data into UUID",
            ),
            (
                Uuid,
                &b"123e4567-e89b-12d3-a456-4266141740000"[..],
                "Error parsing data into UUID",
            ),
        ] {
            assert_eq!(
                shown(d, data),
                Err(format!("{serialization}{message}")),
                "{d:?}"
            );
        }
        assert_eq!(
            shown(Void, b"null"),
            Err(
                "java.lang.IllegalArgumentException: Data should be null for a VoidDeserializer."
                    .into()
            )
        );
    }

    #[test]
    fn class_names_are_taken_whole() {
        let full = |s: &str| format!("{PACKAGE}{s}");
        assert_eq!(
            Deserializer::for_class(&full("LongDeserializer")),
            DeserializerClass::Available(Deserializer::Long)
        );
        assert_eq!(
            Deserializer::for_class("LongDeserializer"),
            DeserializerClass::NotLoaded {
                exception: "java.lang.ClassNotFoundException: LongDeserializer".into()
            }
        );
        assert_eq!(
            Deserializer::for_class(&full("Nope")),
            DeserializerClass::NotLoaded {
                exception: format!("java.lang.ClassNotFoundException: {PACKAGE}Nope")
            }
        );
        assert!(matches!(
            Deserializer::for_class(&full("ByteArrayDeserializer")),
            DeserializerClass::Unavailable(_)
        ));
        for d in Deserializer::ALL {
            assert_eq!(
                Deserializer::for_class(&full(d.name())),
                DeserializerClass::Available(d)
            );
        }
        // A serializer named by mistake: Kafka makes it, then its cast fails.
        assert_eq!(
            Deserializer::for_class(&full("StringSerializer")),
            DeserializerClass::NotLoaded {
                exception: "java.lang.ClassCastException: class org.apache.kafka.common.serialization.StringSerializer cannot be cast to class org.apache.kafka.common.serialization.Deserializer (org.apache.kafka.common.serialization.StringSerializer and org.apache.kafka.common.serialization.Deserializer are in unnamed module of loader 'app')".into()
            }
        );
        for s in SERIALIZERS.into_iter().chain(["Serdes"]) {
            assert!(
                matches!(
                    Deserializer::for_class(&full(s)),
                    DeserializerClass::NotLoaded { exception } if exception.starts_with("java.lang.ClassCastException: ")
                ),
                "{s}"
            );
        }
        assert_eq!(
            Deserializer::for_class(&full("Deserializer")),
            DeserializerClass::NotLoaded {
                exception: format!(
                    "java.lang.NoSuchMethodException: {PACKAGE}Deserializer.<init>()"
                )
            }
        );
    }

    proptest::proptest! {
        /// Whatever the bits, Java's form reads back as the same value (the shortest digits are
        /// the value's; only their layout is Java's), and no bytes make a deserializer panic.
        #[test]
        fn java_decimals_read_back_and_no_bytes_panic(
            bits in proptest::num::u64::ANY,
            bits32 in proptest::num::u32::ANY,
            data in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
        ) {
            let v = f64::from_bits(bits);
            let text = shown(Deserializer::Double, &bits.to_be_bytes()).expect("8 bytes");
            if v.is_finite() {
                proptest::prop_assert_eq!(text.parse::<f64>().ok(), Some(v), "{}", text);
                proptest::prop_assert!(text.contains('.'), "{}", text);
            }
            let v = f32::from_bits(bits32);
            let text = shown(Deserializer::Float, &bits32.to_be_bytes()).expect("4 bytes");
            if v.is_finite() {
                proptest::prop_assert_eq!(text.parse::<f32>().ok(), Some(v), "{}", text);
            }
            for d in Deserializer::ALL {
                let _ = shown(d, &data);
            }
        }
    }
}
