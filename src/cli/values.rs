//! What a shell may complete an option's value with, for options whose values the command
//! checks itself (in Kafka's words) but which have a fixed set of usual values.
//!
//! Options with a closed set clap checks take a `ValueEnum`; options the command validates, as
//! Kafka's tool does with its own message, take [`Suggest`]: any text is accepted, and the
//! generated completions offer the set. Every other option says what it takes with a
//! `ValueHint` (a file, a directory, or anything: no file names offered), which
//! `tests/completions.rs` checks for every option.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};

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
