//! Where a dump's events go: Kafka's text ([`super::text::TextPrinter`]) or JSON Lines
//! ([`JsonPrinter`]).

use std::io::{self, Write};

use super::event::DumpEvent;
use crate::output::json::push_event;

/// Prints a dump's events, in the order found.
pub trait Printer {
    /// Prints one event.
    fn print(&mut self, event: &DumpEvent<'_>) -> io::Result<()>;
    /// Flushes what is buffered, at the end of the dump.
    fn finish(&mut self) -> io::Result<()>;
}

/// One JSON object per event on `out` (`docs/json.md`), through the one JSON printer
/// ([`push_event`], [`write_event`](crate::output::json::write_event)'s form for a reused
/// line). Diagnostics are events too: nothing goes to stderr.
pub struct JsonPrinter<W: Write> {
    out: W,
    /// The line being written, reused from event to event.
    line: Vec<u8>,
}

impl<W: Write> JsonPrinter<W> {
    /// A printer to `out`.
    pub fn new(out: W) -> Self {
        JsonPrinter {
            out,
            line: Vec::with_capacity(1024),
        }
    }
}

impl<W: Write> Printer for JsonPrinter<W> {
    fn print(&mut self, event: &DumpEvent<'_>) -> io::Result<()> {
        self.line.clear();
        push_event(&mut self.line, event)?;
        self.out.write_all(&self.line)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
