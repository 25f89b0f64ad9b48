//! What Java prints for values kafkit shows as Kafka's tools show them.

/// Java's `Double.toString` (JDK 19 and later): see [`decimal`].
pub(crate) fn double_to_string(v: f64) -> String {
    decimal(v, v.is_nan(), v.is_infinite())
}

/// Java's `Float.toString` (JDK 19 and later): see [`decimal`].
pub(crate) fn float_to_string(v: f32) -> String {
    decimal(v, v.is_nan(), v.is_infinite())
}

/// Java's `Double.toString` / `Float.toString` (JDK 19 and later) of `v`, from Rust's forms of
/// the same value: the shortest in `LowerExp` (the fewest digits that read back as the value)
/// and `{:.1e}` (the value rounded to two digits). Java takes the shortest, except
/// that when it has one digit the closest decimal of one or two digits is chosen (`4.9E-324`,
/// not `5.0E-324`). Laid out plain for magnitudes in [10^-3, 10^7), else as `d.dddE<n>`, with at
/// least one digit after the point (`1.0`, `1.0E10`); `NaN`, `Infinity`, `-0.0` as Java spells
/// them.
fn decimal<T>(v: T, nan: bool, infinite: bool) -> String
where
    T: std::fmt::LowerExp + std::str::FromStr + PartialEq,
{
    let (shortest, two_digits) = (format!("{v:e}"), format!("{v:.1e}"));
    if nan {
        return "NaN".to_string();
    }
    let sign = if shortest.starts_with('-') { "-" } else { "" };
    if infinite {
        return format!("{sign}Infinity");
    }
    let parts = |form: &str| {
        let unsigned = form.trim_start_matches('-');
        let (mantissa, exponent) = unsigned.split_once('e').unwrap_or((unsigned, "0"));
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        (digits, exponent.parse::<i32>().unwrap_or(0))
    };
    let (mut digits, mut exponent) = parts(&shortest);
    if digits.bytes().all(|d| d == b'0') {
        return format!("{sign}0.0");
    }
    if digits.len() == 1 {
        (digits, exponent) = parts(&two_digits);
    }
    // Of two candidates equally close to the value, Java takes the one with an even last digit;
    // Rust's forms take the one away from zero.
    if let Some(even) = even_at_tie(&v, &digits, exponent) {
        digits = even;
    }
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        kept => kept,
    };
    if (-3..7).contains(&exponent) {
        // Plain: the point after digit `exponent + 1` (leading zeros for negative exponents).
        let point = exponent + 1;
        if point <= 0 {
            let zeros = "0".repeat(point.unsigned_abs() as usize);
            format!("{sign}0.{zeros}{digits}")
        } else {
            let point = point as usize;
            let padded = format!("{digits:0<point$}");
            let (int_part, frac_part) = padded.split_at(point);
            let frac_part = if frac_part.is_empty() { "0" } else { frac_part };
            format!("{sign}{int_part}.{frac_part}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exponent}")
    }
}

/// For `digits` (×10^`exponent`, the point after the first digit) ending in an odd digit: the
/// same digits with the last one lowered, when that decimal also reads back as `v` and `v` lies
/// exactly halfway between the two (its exact expansion is the lower one followed by a 5).
fn even_at_tie<T>(v: &T, digits: &str, exponent: i32) -> Option<String>
where
    T: std::fmt::LowerExp + std::str::FromStr + PartialEq,
{
    let last = *digits.as_bytes().last()?;
    if last % 2 == 0 {
        return None;
    }
    let mut lower = digits.to_string();
    lower.pop();
    lower.push(char::from(last - 1));
    let sign = if format!("{v:e}").starts_with('-') {
        "-"
    } else {
        ""
    };
    let (first, rest) = lower.split_at(1);
    let reads_back = format!("{sign}{first}.{rest}e{exponent}")
        .parse::<T>()
        .is_ok_and(|back| back == *v);
    if !reads_back {
        return None;
    }
    // Every binary float has a finite decimal expansion; 1100 digits hold any f64's.
    let exact = format!("{v:.1100e}");
    let (mantissa, exact_exponent) = exact.trim_start_matches('-').split_once('e')?;
    let exact_digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let tie = exact_exponent.parse::<i32>().ok()? == exponent
        && exact_digits
            .strip_prefix(lower.as_str())
            .and_then(|after| after.strip_prefix('5'))
            .is_some_and(|zeros| zeros.bytes().all(|d| d == b'0'));
    tie.then_some(lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The forms the other callers print (config values, dump JSON); the deserializer tests
    /// cover ties, extremes and a property test.
    #[test]
    fn doubles_as_java_prints_them() {
        assert_eq!(double_to_string(2.0), "2.0");
        assert_eq!(double_to_string(0.5), "0.5");
        assert_eq!(double_to_string(1e10), "1.0E10");
        assert_eq!(double_to_string(-1.5e-5), "-1.5E-5");
        assert_eq!(float_to_string(0.1), "0.1");
    }
}
