//! An ordered JSON value printed the way Kafka's Jackson-based converters print it.
//!
//! Kafka's generated `*JsonConverter` classes build Jackson trees whose objects keep the field
//! order of the message schema, and `JsonNode.toString()` prints them compactly. serde_json's
//! `Value` sorts object keys (this crate does not enable `preserve_order`), so decoded messages are
//! kept in [`JValue`] and printed by [`JValue::to_kafka_string`]; [`JValue::to_json`] converts to a
//! `serde_json::Value` for the JSON Lines output, where key order does not matter.

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;

/// A JSON value with ordered objects and a distinct case for bytes (printed as base64, and kept
/// as bytes so an embedded message can be decoded further).
#[derive(Debug, Clone, PartialEq)]
pub enum JValue {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// Any integer field (int8 … int64, uint16, uint32).
    Int(i64),
    /// A float64 field.
    Float(f64),
    /// A string.
    Str(String),
    /// A bytes field; Jackson prints it as standard base64 with padding.
    Bytes(Vec<u8>),
    /// An array.
    Arr(Vec<JValue>),
    /// An object, fields in schema order.
    Obj(Vec<(String, JValue)>),
}

impl JValue {
    /// Field `name` of an object.
    pub fn get(&self, name: &str) -> Option<&JValue> {
        match self {
            JValue::Obj(fields) => fields.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Replaces field `name` of an object in place (keeping its position), if present.
    pub fn replace(&mut self, name: &str, value: JValue) {
        if let JValue::Obj(fields) = self {
            if let Some(slot) = fields.iter_mut().find(|(k, _)| k == name) {
                slot.1 = value;
            }
        }
    }

    /// Compact JSON exactly as Jackson's `JsonNode.toString()` writes it.
    pub fn to_kafka_string(&self) -> String {
        let mut out = String::new();
        self.write_to(&mut out);
        out
    }

    /// Appends the compact JSON form to `out`.
    pub fn write_to(&self, out: &mut String) {
        match self {
            JValue::Null => out.push_str("null"),
            JValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JValue::Int(n) => {
                let _ = write!(out, "{n}");
            }
            JValue::Float(f) => out.push_str(&crate::java::double_to_string(*f)),
            JValue::Str(s) => write_string(s, out),
            JValue::Bytes(b) => {
                out.push('"');
                out.push_str(&base64::engine::general_purpose::STANDARD.encode(b));
                out.push('"');
            }
            JValue::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_to(out);
                }
                out.push(']');
            }
            JValue::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write_to(out);
                }
                out.push('}');
            }
        }
    }

    /// The same value as a `serde_json::Value` (bytes become base64 strings, as Kafka prints them).
    pub fn to_json(&self) -> Value {
        match self {
            JValue::Null => Value::Null,
            JValue::Bool(b) => Value::Bool(*b),
            JValue::Int(n) => Value::from(*n),
            JValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            JValue::Str(s) => Value::String(s.clone()),
            JValue::Bytes(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
            JValue::Arr(items) => Value::Array(items.iter().map(JValue::to_json).collect()),
            JValue::Obj(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Jackson's string escaping: `"`, `\` and control characters; everything else raw UTF-8.
fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_jackson() {
        let v = JValue::Obj(vec![
            ("a".into(), JValue::Str("x\"\n\u{1}é".into())),
            ("b".into(), JValue::Bytes(b"Assignment".to_vec())),
            ("c".into(), JValue::Arr(vec![JValue::Int(-1), JValue::Null])),
            ("d".into(), JValue::Float(1.0)),
            ("e".into(), JValue::Float(1e10)),
        ]);
        assert_eq!(
            v.to_kafka_string(),
            r#"{"a":"x\"\n\u0001é","b":"QXNzaWdubWVudA==","c":[-1,null],"d":1.0,"e":1.0E10}"#
        );
    }
}
