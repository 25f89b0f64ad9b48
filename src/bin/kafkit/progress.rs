//! Progress bars of long work (indicatif), drawn on stderr.
//!
//! The commands decide whether to show one (`GlobalArgs::progress_wanted`: not `--quiet`,
//! stderr a terminal, stdout not the terminal the bar would be drawn over; and the work over
//! the library's thresholds, `kafkit::output::progress`); a bar made here also hides
//! itself when stderr is not a terminal, so a bar never reaches a pipe or a file. Callers move
//! it once per batch or per round of records, never per record: the position is an atomic add,
//! and drawing is limited to 20 times a second.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub use kafkit::output::progress::{
    CLEANER_MIN_PARTITIONS, CONSUME_MIN_RECORDS, DUMP_MIN_BYTES, DUMP_MIN_FILES,
};

/// A bar the library moves: it reports through [`kafkit::output::progress::Progress`], and
/// the bar shows the item it works on as its message.
#[derive(Debug, Clone)]
pub struct Bar(pub ProgressBar);

impl kafkit::output::progress::Progress for Bar {
    fn item(&mut self, item: &str) {
        self.0.set_message(item.to_string());
    }

    fn set_position(&mut self, done: u64) {
        self.0.set_position(done);
    }

    fn finish(&mut self) {
        self.0.finish_and_clear();
    }
}

/// A bar of `len` bytes on stderr, drawn at once.
pub fn bytes(len: u64) -> ProgressBar {
    bar(
        len,
        "{bar:40.cyan/blue} {bytes}/{total_bytes} {bytes_per_sec} eta {eta} {wide_msg}",
    )
}

/// A bar of `len` records on stderr, drawn at once.
pub fn records(len: u64) -> ProgressBar {
    bar(
        len,
        "{bar:40.cyan/blue} {human_pos}/{human_len} records {per_sec} eta {eta}",
    )
}

fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("█▉▊▋▌▍▎▏ "),
    );
    // The first draw is not rate limited: the bar shows before the work starts.
    bar.tick();
    bar
}
