//! Lines in the shape of Kafka's tool logging (`[%d] %p %m (%c)%n` of `tools-log4j.properties`),
//! for the messages Kafka's tools print through log4j on stderr.

use std::time::{SystemTime, UNIX_EPOCH};

/// `2024-10-25 03:33:01,123` for a time in milliseconds since the epoch (UTC).
pub fn format_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02},{millis:03}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The logger of the warnings about an active segment's unread tail
/// ([`crate::log::SkippedTail`]): kafkit's reader, where Kafka's broker would have truncated the
/// tail in its log recovery before serving the partition.
pub const LOG_READER: &str = "kafkit.log.LogReader";

/// One log line: `[time] LEVEL message (class)`.
pub fn line(level: &str, message: &str, class: &str) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    format!("[{}] {level} {message} ({class})", format_time(now))
}

/// An ERROR line of Kafka's tool logging with the exception under it, as Kafka's tools log what
/// they caught (`LOG.error(message, exception)`: the exception's first lines).
pub fn error_lines(message: &str, class: &str, exception: &str) -> String {
    format!("{}\n{exception}", line("ERROR", message, class))
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_time() {
        assert_eq!(super::format_time(0), "1970-01-01 00:00:00,000");
        assert_eq!(
            super::format_time(1_729_827_181_123),
            "2024-10-25 03:33:01,123"
        );
    }
}
