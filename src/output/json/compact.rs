//! Compact JSON into a byte vector: what `serde_json::to_writer` writes, byte for byte, in
//! fewer and cheaper steps.
//!
//! serde_json hands its writer every token apart (a quote, a key, a colon) and looks up every
//! byte of a string in its escape table. A dump of millions of records is mostly that: a
//! record's line is a dozen short keys and one long value. Here tokens are appended to a
//! `Vec<u8>` directly, and a string is checked eight bytes at a time for what needs escaping
//! (a control character, `"` or `\`) and copied whole when nothing does, which is nearly
//! always. Floating-point numbers, rare here, are written by serde_json itself. A map key is
//! written as a value, then checked: a string stays, a number or a bool is quoted, anything else
//! is serde_json's error. The tests compare the two on every kind of value serde has.

use std::fmt::Display;

use serde::ser::{self, Serialize};

use crate::output::decimal;

/// Why a value could not be written (a map key that is not a string, a number or a bool, or a
/// value's own refusal).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SerializeError(String);

impl ser::Error for SerializeError {
    fn custom<T: Display>(msg: T) -> Self {
        SerializeError(msg.to_string())
    }
}

type Result<T = (), E = SerializeError> = std::result::Result<T, E>;

/// Appends `value` to `out` as compact JSON.
pub fn to_vec<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result {
    let mut ser = Compact {
        out: std::mem::take(out),
    };
    let written = value.serialize(&mut ser);
    *out = ser.out;
    written
}

/// The serializer: the line being written (owned while it is written, one indirection less
/// on every byte pushed).
struct Compact {
    out: Vec<u8>,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether any of the 8 bytes of `w` needs escaping: below 0x20, `"` or `\\`. A byte `b`
/// borrows into its high bit in `b - 0x20` exactly when it is below 0x20, and in `(b ^ c) -
/// 1` exactly when it is `c` (bytes with the high bit set are masked out by `!w`, which `b ^ c`
/// keeps for an ASCII `c`); borrows from a lower byte may mark a higher one too, but only when
/// the lower one was marked itself, so the whole is exact.
#[inline(always)]
fn needs_escape(w: u64) -> bool {
    let below = w.wrapping_sub(LO * 0x20);
    let quote = (w ^ (LO * u64::from(b'"'))).wrapping_sub(LO);
    let backslash = (w ^ (LO * u64::from(b'\\'))).wrapping_sub(LO);
    (below | quote | backslash) & !w & HI != 0
}

/// The bytes at `at..at + 8` as a word (zero when out of range, which the callers never are).
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    if let Some(src) = bytes.get(at..at + 8) {
        word.copy_from_slice(src);
    }
    u64::from_le_bytes(word)
}

/// Whether `bytes` need no escaping, checked eight at a time: the last word overlaps the one
/// before (a short string is padded with spaces, in registers; padding in memory cost a stall
/// on reading the word back).
#[inline(always)]
fn is_clean(bytes: &[u8]) -> bool {
    let len = bytes.len();
    if len < 8 {
        let mut word = LO * u64::from(b' ');
        for (i, &b) in bytes.iter().enumerate() {
            word ^= u64::from(b ^ b' ') << (8 * i);
        }
        return !needs_escape(word);
    }
    let mut at = 0;
    while at + 8 <= len {
        if needs_escape(word_at(bytes, at)) {
            return false;
        }
        at += 8;
    }
    at == len || !needs_escape(word_at(bytes, len - 8))
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it. Inlined: where `s` is a
/// constant (a field's name), its length is too, and the copy needs no call.
#[inline(always)]
fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if is_clean(bytes) {
        out.extend_from_slice(bytes);
    } else {
        write_escaped(out, bytes);
    }
    out.push(b'"');
}

/// Appends `bytes`, escaped: `\"`, `\\`, the short escapes of serde_json and `\u00XX` for the
/// other control characters.
#[cold]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                if b < 0x10 { b'0' } else { b'1' },
                HEX.get(usize::from(b & 0xf)).copied().unwrap_or(b'0'),
            ],
            _ => continue,
        };
        out.extend_from_slice(bytes.get(run..i).unwrap_or_default());
        out.extend_from_slice(escape);
        run = i + 1;
    }
    out.extend_from_slice(bytes.get(run..).unwrap_or_default());
}

/// A number serde_json writes its own way (floats, 128-bit integers), written by it.
fn by_serde_json<T: Serialize>(out: &mut Vec<u8>, v: &T) -> Result {
    serde_json::to_writer(out, v).map_err(|e| SerializeError(e.to_string()))
}

/// Integers written as the widest of their kind.
macro_rules! widen {
    ($($method:ident($narrow:ty) => $wide_method:ident($wide:ty),)*) => {$(
        #[inline]
        fn $method(self, v: $narrow) -> Result {
            self.$wide_method(<$wide>::from(v))
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Compact {
    type Ok = ();
    type Error = SerializeError;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Seq<'a>;
    type SerializeStruct = Seq<'a>;
    type SerializeStructVariant = Seq<'a>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result {
        if v {
            self.out.extend_from_slice(b"true");
        } else {
            self.out.extend_from_slice(b"false");
        }
        Ok(())
    }
    widen! {
        serialize_i8(i8) => serialize_i64(i64),
        serialize_i16(i16) => serialize_i64(i64),
        serialize_i32(i32) => serialize_i64(i64),
        serialize_u8(u8) => serialize_u64(u64),
        serialize_u16(u16) => serialize_u64(u64),
        serialize_u32(u32) => serialize_u64(u64),
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result {
        decimal::push(&mut self.out, v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result {
        by_serde_json(&mut self.out, &v)
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result {
        match i64::try_from(v) {
            Ok(v) => decimal::push(&mut self.out, v),
            Err(_) => {
                let start = self.out.len();
                self.out.resize(start + decimal::digits(v), b'0');
                decimal::fill(self.out.get_mut(start..).unwrap_or_default(), v);
            }
        }
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result {
        by_serde_json(&mut self.out, &v)
    }
    fn serialize_f32(self, v: f32) -> Result {
        by_serde_json(&mut self.out, &v)
    }
    fn serialize_f64(self, v: f64) -> Result {
        by_serde_json(&mut self.out, &v)
    }
    fn serialize_char(self, v: char) -> Result {
        write_str(&mut self.out, v.encode_utf8(&mut [0u8; 4]));
        Ok(())
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result {
        write_str(&mut self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    #[inline]
    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }
    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }
    #[inline]
    fn serialize_unit(self) -> Result {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    #[inline]
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a>> {
        self.out.push(b'[');
        Ok(Seq::new(self, b']', false))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'a>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a>> {
        Ok(self.variant(variant, b'[', b']'))
    }
    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Seq<'a>> {
        self.out.push(b'{');
        Ok(Seq::new(self, b'}', false))
    }
    #[inline]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Seq<'a>> {
        Ok(Seq::fields(self))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a>> {
        Ok(self.variant(variant, b'{', b'}'))
    }
}

impl Compact {
    /// A variant's array or object (`open`), in the object `{"variant": ...}` serde_json wraps
    /// it in.
    fn variant(&mut self, variant: &str, open: u8, close: u8) -> Seq<'_> {
        self.out.push(b'{');
        write_str(&mut self.out, variant);
        self.out.push(b':');
        self.out.push(open);
        Seq::new(self, close, true)
    }
}

/// An array or object being written: a comma before every element but the first, then its
/// closing bytes.
struct Seq<'a> {
    ser: &'a mut Compact,
    first: bool,
    /// `]` or `}`, and `}` again for a variant's wrapper.
    close: u8,
    wrapped: bool,
    /// A struct's fields each start with a comma, the first one's turned into the opening
    /// brace at the end (it is at this position): a field's name and punctuation are then
    /// one copy, with no test of whether it is the first.
    opened_at: Option<usize>,
}

impl<'a> Seq<'a> {
    fn new(ser: &'a mut Compact, close: u8, wrapped: bool) -> Self {
        Seq {
            ser,
            first: true,
            close,
            wrapped,
            opened_at: None,
        }
    }

    /// A struct's fields, whose opening brace comes last (see `opened_at`).
    fn fields(ser: &'a mut Compact) -> Self {
        let at = ser.out.len();
        Seq {
            opened_at: Some(at),
            ..Seq::new(ser, b'}', false)
        }
    }

    #[inline(always)]
    fn comma(&mut self) {
        if !self.first {
            self.ser.out.push(b',');
        }
        self.first = false;
    }

    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.comma();
        value.serialize(&mut *self.ser)
    }

    /// A field: `,"key":value`. Where this is inlined the name is a constant, and its
    /// punctuated form too: one copy of constant size.
    #[inline(always)]
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        let name = key.as_bytes();
        let len = name.len();
        if self.opened_at.is_some() && len <= 28 && is_clean(name) {
            let mut token = [b','; 32];
            if let Some(quote) = token.get_mut(1) {
                *quote = b'"';
            }
            if let Some(dst) = token.get_mut(2..2 + len) {
                dst.copy_from_slice(name);
            }
            if let Some(end) = token.get_mut(2 + len..4 + len) {
                end.copy_from_slice(b"\":");
            }
            let out = &mut self.ser.out;
            let start = out.len();
            out.extend_from_slice(&token);
            out.truncate(start + len + 4);
        } else {
            if self.opened_at.is_some() {
                self.ser.out.push(b',');
            } else {
                self.comma();
            }
            write_str(&mut self.ser.out, key);
            self.ser.out.push(b':');
        }
        value.serialize(&mut *self.ser)
    }

    #[inline]
    fn close(self) -> Result {
        let out = &mut self.ser.out;
        if let Some(at) = self.opened_at {
            match out.get_mut(at) {
                Some(comma) => *comma = b'{',
                None => out.push(b'{'),
            }
        }
        out.push(self.close);
        if self.wrapped {
            out.push(b'}');
        }
        Ok(())
    }
}

/// The traits of the arrays: their elements are values.
macro_rules! elements {
    ($($trait:ident::$method:ident),*) => {$(
        impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = SerializeError;
            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                self.element(value)
            }
            #[inline]
            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The traits of the objects with named fields.
macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = SerializeError;
            #[inline(always)]
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result {
                self.field(key, value)
            }
            #[inline]
            fn end(self) -> Result {
                self.close()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Seq<'_> {
    type Ok = ();
    type Error = SerializeError;
    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.comma();
        let start = self.ser.out.len();
        key.serialize(&mut *self.ser)?;
        let out = &mut self.ser.out;
        match out.get(start) {
            Some(b'"') => Ok(()),
            // A number or a bool, quoted as serde_json quotes them.
            Some(b'-' | b'0'..=b'9' | b't' | b'f') => {
                out.insert(start, b'"');
                out.push(b'"');
                Ok(())
            }
            _ => {
                out.truncate(start);
                Err(SerializeError("key must be a string".to_string()))
            }
        }
    }
    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.ser.out.push(b':');
        value.serialize(&mut *self.ser)
    }
    #[inline]
    fn end(self) -> Result {
        self.close()
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)] // a test's panic is its failure
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::json;

    use super::*;

    #[track_caller]
    fn same<T: Serialize + ?Sized>(value: &T) {
        let mut ours = Vec::new();
        let theirs = serde_json::to_vec(value);
        match (to_vec(&mut ours, value), theirs) {
            (Ok(()), Ok(theirs)) => assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs)
            ),
            (Err(_), Err(_)) => {}
            (ours, theirs) => panic!("ours {ours:?}, serde_json's {theirs:?}"),
        }
    }

    #[derive(Serialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Tagged<'a> {
        Unit,
        Fields { a: i64, s: &'a str, o: Option<u8> },
        Inner(Inner),
    }

    #[derive(Serialize)]
    struct Inner {
        x: f64,
        list: Vec<(u8, char)>,
        #[serde(flatten)]
        extra: BTreeMap<String, bool>,
    }

    #[derive(Serialize)]
    enum External {
        Unit,
        Newtype(u32),
        Tuple(i8, i16),
        Struct { a: u128, b: i128 },
    }

    #[test]
    fn every_kind_of_value_is_written_as_serde_json_writes_it() {
        same(&json!({"a": [1, -2, 3.5, 1e300, -0.0, null, true, false, "x\u{1}\"\\\n"], "": {}}));
        same(&json!([[], {}, [[]], {"k": {"l": []}}]));
        same(&Tagged::Unit);
        same(&Tagged::Fields {
            a: i64::MIN,
            s: "é→\u{7f}\u{1f}",
            o: None,
        });
        same(&Tagged::Inner(Inner {
            x: f64::NAN,
            list: vec![(0, 'a'), (255, '"')],
            extra: BTreeMap::from([("k\t".to_string(), true)]),
        }));
        for e in [
            External::Unit,
            External::Newtype(u32::MAX),
            External::Tuple(-1, i16::MIN),
            External::Struct {
                a: u128::MAX,
                b: i128::MIN,
            },
        ] {
            same(&e);
        }
        same(&BTreeMap::from([(1i32, "a"), (-7, "b")]));
        same(&BTreeMap::from([(true, 1)]));
        same(&BTreeMap::from([('c', 1)]));
        same(&BTreeMap::from([(u64::MAX, 1)]));
        same(&FloatKey(0.1));
        same(&FloatKey(f32::INFINITY));
        same(&BTreeMap::from([(vec![1u8], 1)]));
        same(&BTreeMap::from([((), 1)]));
        same(&BTreeMap::from([(Some("k"), 1), (None, 2)]));
        same(&BTreeMap::from([(Some(3), 1)]));
        same(&serde_bytes_like(&[1, 2, 255]));
        same(&Some("x"));
        same(&());
    }

    #[test]
    fn one_byte_to_escape_is_found_wherever_it_is() {
        for len in 0..40 {
            same(&"a".repeat(len));
            for at in 0..len {
                for c in ['"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '~', '\u{7f}', 'é'] {
                    let mut s = "a".repeat(len);
                    s.replace_range(at..at + 1, c.encode_utf8(&mut [0; 4]));
                    same(&s);
                }
            }
        }
    }

    /// A map of one entry whose key is a float.
    struct FloatKey(f32);
    impl Serialize for FloatKey {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut map = s.serialize_map(Some(1))?;
            map.serialize_entry(&self.0, &1)?;
            map.end()
        }
    }

    /// A value serialized with `serialize_bytes`.
    fn serde_bytes_like(bytes: &[u8]) -> impl Serialize + '_ {
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
        Bytes(bytes)
    }

    proptest! {
        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(s in any::<String>(), t in "[\\x00-\\x7f]{0,40}") {
            same(&s);
            same(&t);
            same(&BTreeMap::from([(s.clone(), t.clone())]));
        }

        #[test]
        fn numbers_are_written_as_serde_json_writes_them(i in any::<i64>(), u in any::<u64>(), f in any::<f64>(), g in any::<f32>()) {
            same(&(i, u, f, g));
        }
    }
}
