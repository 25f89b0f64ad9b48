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
/// ([`push_event`], [`write_event`](crate::output::json::write_event)'s form for a buffer).
/// Diagnostics are events too: nothing goes to stderr.
pub struct JsonPrinter<W: Write> {
    out: W,
    /// Whole lines not yet written: they go to `out` [`BATCH`] bytes at a time, a copy
    /// less per line than writing each (a buffered `out` passes writes that large through).
    lines: Vec<u8>,
}

/// Bytes of lines gathered before they are written.
const BATCH: usize = 64 << 10;

impl<W: Write> JsonPrinter<W> {
    /// A printer to `out`.
    pub fn new(out: W) -> Self {
        JsonPrinter {
            out,
            lines: Vec::with_capacity(BATCH + 1024),
        }
    }

    fn write_lines(&mut self) -> io::Result<()> {
        let written = self.out.write_all(&self.lines);
        self.lines.clear();
        written
    }
}

impl<W: Write> Printer for JsonPrinter<W> {
    fn print(&mut self, event: &DumpEvent<'_>) -> io::Result<()> {
        push_event(&mut self.lines, event)?;
        if self.lines.len() >= BATCH {
            self.write_lines()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        self.write_lines()?;
        self.out.flush()
    }
}
