//! Integers in decimal, two digits at a time, without `fmt`'s machinery: dumps and reports
//! write millions of them.

const DIGITS: &[u8; 200] = b"0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The number of decimal digits of `v`.
pub(crate) fn digits(v: u64) -> usize {
    v.checked_ilog10().unwrap_or(0) as usize + 1
}

/// Writes the digits of `v` into `out`, which is [`digits`]`(v)` bytes long (a longer one gets
/// them at its end, a shorter one its low digits).
pub(crate) fn fill(out: &mut [u8], mut v: u64) {
    let mut pairs = out.rchunks_exact_mut(2);
    for pair in &mut pairs {
        let d = (v % 100) as usize * 2;
        v /= 100;
        pair.copy_from_slice(DIGITS.get(d..d + 2).unwrap_or(b"00"));
    }
    if let Some(first) = pairs.into_remainder().first_mut() {
        *first = b'0' + (v % 10) as u8;
    }
}

/// Appends `v` in decimal, with its sign, written in place: room is made with a copy of
/// constant size (no call) and cut to the number's length, then filled. (Digits laid out in a
/// buffer on the stack and copied from there stalled on reading back what had just been
/// written in pieces, and cost a call to `memcpy` for every number.)
pub(crate) fn push(out: &mut Vec<u8>, v: i64) {
    let sign = usize::from(v < 0);
    let start = out.len();
    out.extend_from_slice(&[b'-'; 21]);
    out.truncate(start + sign + digits(v.unsigned_abs()));
    fill(
        out.get_mut(start + sign..).unwrap_or_default(),
        v.unsigned_abs(),
    );
}

/// `v` in decimal, with its sign, in `buf`: the text is the returned slice.
pub(crate) fn format(buf: &mut [u8; 20], v: i64) -> &str {
    let n = digits(v.unsigned_abs());
    let sign = usize::from(v < 0);
    let text = buf.get_mut(..sign + n).unwrap_or_default();
    if let Some(minus) = text.first_mut().filter(|_| v < 0) {
        *minus = b'-';
    }
    fill(text.get_mut(sign..).unwrap_or_default(), v.unsigned_abs());
    std::str::from_utf8(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_decimal() {
        for v in [
            0i64,
            7,
            -1,
            10,
            99,
            100,
            -101,
            1_700_000_000_000,
            i64::MIN,
            i64::MAX,
        ] {
            assert_eq!(format(&mut [0; 20], v), v.to_string());
        }
        for v in [0i64, -7, 42, i64::MIN, i64::MAX] {
            let mut out = b"x".to_vec();
            push(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), format!("x{v}"));
        }
        for v in [0u64, 9, 10, u64::MAX] {
            let mut out = vec![0; digits(v)];
            fill(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
    }
}
