//! Where a dump's events go: Kafka's text ([`super::text::TextPrinter`]) or JSON Lines
//! ([`JsonPrinter`]).

use std::io::{self, Write};

use super::event::DumpEvent;
use crate::output::json::write_event;

/// Prints a dump's events, in the order found.
pub trait Printer {
    /// Prints one event.
    fn print(&mut self, event: &DumpEvent<'_>) -> io::Result<()>;
    /// Flushes what is buffered, at the end of the dump.
    fn finish(&mut self) -> io::Result<()>;
}

/// One JSON object per event on `out` (`docs/json.md`), through [`write_event`]. Diagnostics
/// are events too: nothing goes to stderr.
pub struct JsonPrinter<W: Write> {
    out: W,
    /// The line being written: serde writes a line in many small pieces, which cost less
    /// appended to a vector than passed one by one to `out`.
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
        write_event(&mut self.line, event)?;
        self.out.write_all(&self.line)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
