//! What a shell may complete an option's value with, for options whose values the command
//! checks itself (in Kafka's words) but which have a fixed set of usual values.
//!
//! Options with a closed set clap checks take a `ValueEnum`; options the command validates, as
//! Kafka's tool does with its own message, take [`Suggest`]: any text is accepted, and the
//! generated completions offer the set. Every other option says what it takes with a
//! `ValueHint` (a file, a directory, or anything: no file names offered), which
//! `tests/completions.rs` checks for every option.

use std::ffi::OsStr;

use clap::builder::{EnumValueParser, PossibleValue, StringValueParser, TypedValueParser};
use kafkit::client::{IsolationLevel, PartitionerKind};
use kafkit::output::dump::BytesDecoder;
use kafkit::output::format::FormatEscape;
use kafkit::output::OutputFormat;

/// A text value, with `values` offered by shell completion; clap accepts any text and the
/// command validates it (give the argument `hide_possible_values = true`: the help text says
/// what is accepted, which is more than the set).
#[derive(Debug, Clone)]
pub struct Suggest(Vec<String>);

impl Suggest {
    /// Offers `values`, in this order.
    pub fn new(values: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self(values.into_iter().map(Into::into).collect())
    }
}

impl TypedValueParser for Suggest {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|v| PossibleValue::new(v.clone())),
        ))
    }
}

/// A clap `ValueEnum` for a library enum, which derives none (the library knows no command
/// line): the same variants with the help each value shows (clap takes it from the variant's
/// doc comment), and a value parser that hands the command the library's value. Matches both
/// ways, so a variant added to either side fails to compile until the other has it.
macro_rules! value_enum {
    (
        $(#[$meta:meta])*
        $parser:ident: $name:ident => $lib:ident {
            $($(#[$vmeta:meta])* $variant:ident,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, clap::ValueEnum)]
        enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl From<$name> for $lib {
            fn from(value: $name) -> Self {
                match value {
                    $($name::$variant => $lib::$variant,)*
                }
            }
        }

        impl From<$lib> for $name {
            fn from(value: $lib) -> Self {
                match value {
                    $($lib::$variant => $name::$variant,)*
                }
            }
        }

        $(#[$meta])*
        pub fn $parser() -> impl TypedValueParser<Value = $lib> {
            EnumValueParser::<$name>::new().map(<$lib>::from)
        }
    };
}

value_enum! {
    /// `--output`: the two output forms every command offers.
    output_format: OutputArg => OutputFormat {
        /// Kafka's own text, line for line.
        Text,
        /// JSON Lines: one typed object per line (see `docs/json.md`).
        Json,
    }
}

value_enum! {
    /// `consume --format-escape`: how the format's text placeholders are written.
    format_escape: FormatEscapeArg => FormatEscape {
        /// Bytes as they are (kcat's way).
        None,
        /// JSON values: strings with their quotes, `null`, `{"base64": ...}`.
        Json,
    }
}

value_enum! {
    /// `dump-log-segments --key-decoder`/`--value-decoder`: Kafka's decoder classes.
    bytes_decoder: BytesDecoderArg => BytesDecoder {
        /// UTF-8, malformed sequences replaced by U+FFFD (Kafka's `StringDecoder`).
        String,
        /// Lower-case hexadecimal.
        Hex,
        /// A big-endian int32 from the first 4 bytes (Kafka's `IntegerDecoder`).
        Integer,
        /// A big-endian int64 from the first 8 bytes (Kafka's `LongDecoder`).
        Long,
    }
}

value_enum! {
    /// `consume --isolation-level`: which records a consumer sees.
    isolation_level: IsolationLevelArg => IsolationLevel {
        /// Every record, including those of open and aborted transactions.
        #[value(name = "read_uncommitted")]
        ReadUncommitted,
        /// Only committed records, up to the first open transaction.
        #[value(name = "read_committed")]
        ReadCommitted,
    }
}

value_enum! {
    /// `produce --partitioner`: the built-in strategies by name.
    partitioner: PartitionerArg => PartitionerKind {
        /// Keyed: murmur2; unkeyed: uniform sticky (Kafka 3.3+ default).
        Default,
        /// Strict rotation over the partitions, keys ignored.
        RoundRobin,
        /// A random partition per record, keys ignored.
        Random,
        /// Keyed: murmur2; unkeyed: rotation per record (Kafka before 2.4).
        Murmur2,
    }
}
