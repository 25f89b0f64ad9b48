//! `docs/json.md` read as a schema: every `--output json` object a test prints is checked
//! against the table that documents its type, and a family's test checks that it printed every
//! type and field its section documents.
//!
//! The convention the tables follow (written at the top of `docs/json.md`): a `##` section per
//! command (and `## Errors` for the `error` object every command shares); in a table whose first
//! column is `type`, a row per type (each type once per section); its last column lists the
//! object's fields in the order they are printed, as backticked names outside parentheses
//! (parentheses explain; names inside them are values or nested keys, not fields).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::repo_root;

/// A section's documented types: type → its fields in order.
type Section = BTreeMap<String, Vec<String>>;

/// `docs/json.md`, parsed.
pub struct JsonDoc {
    sections: BTreeMap<String, Section>,
    /// Types a section documents twice (an error when that section is checked).
    twice: BTreeSet<(String, String)>,
}

/// What a family's runs printed: type → the fields seen (in any object of that type).
#[derive(Default, Debug)]
pub struct Seen(BTreeMap<String, BTreeSet<String>>);

impl JsonDoc {
    pub fn load() -> Self {
        let text = std::fs::read_to_string(repo_root().join("docs/json.md")).expect("docs/json.md");
        Self::parse(&text)
    }

    fn parse(text: &str) -> Self {
        let mut sections: BTreeMap<String, Section> = BTreeMap::new();
        let mut twice = BTreeSet::new();
        let mut current: Option<String> = None;
        let mut in_type_table = false;
        for line in text.lines() {
            if let Some(title) = line.strip_prefix("## ") {
                current = Some(title.trim().to_lowercase());
                in_type_table = false;
                continue;
            }
            let Some(row) = line.trim().strip_prefix('|') else {
                in_type_table = false;
                continue;
            };
            let cells: Vec<&str> = row
                .trim_end_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let first = cells[0].trim_matches('`');
            if first == "type" {
                in_type_table = true;
                continue;
            }
            if !in_type_table || first.chars().all(|c| c == '-' || c == ':') {
                continue;
            }
            let section = current
                .clone()
                .expect("a type table outside any ## section");
            let fields = field_names(cells.last().expect("a row has cells"));
            let previous = sections
                .entry(section.clone())
                .or_default()
                .insert(first.to_string(), fields);
            if previous.is_some() {
                twice.insert((section, first.to_string()));
            }
        }
        JsonDoc { sections, twice }
    }

    #[track_caller]
    fn assert_once(&self, section: &str) {
        for (s, kind) in &self.twice {
            assert!(
                s != section,
                "docs/json.md documents type {kind:?} twice in section {section:?}"
            );
        }
    }

    /// The documented fields of `kind` in `section` (or in `errors`, which every command shares).
    fn fields(&self, section: &str, kind: &str) -> Option<&Vec<String>> {
        self.sections
            .get(section)
            .and_then(|s| s.get(kind))
            .or_else(|| self.sections.get("errors").and_then(|s| s.get(kind)))
    }

    /// Checks every line of `stdout` (JSON Lines) against `section`'s tables: a documented type,
    /// `schema` last with the current version, and the other keys in the documented order (a
    /// field may be left out where the table says when). Adds what it saw to `seen`.
    #[track_caller]
    pub fn check(&self, section: &str, stdout: &str, seen: &mut Seen) {
        self.assert_once(section);
        for line in stdout.lines() {
            let Ordered(entries) = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON object ({e}): {line}"));
            let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(keys.first(), Some(&"type"), "`type` is not first: {line}");
            assert_eq!(keys.last(), Some(&"schema"), "`schema` is not last: {line}");
            assert_eq!(
                entries.last().map(|(_, v)| v),
                Some(&Value::from(1)),
                "schema: {line}"
            );
            let kind = entries[0].1.as_str().expect("type is a string");
            let documented = self.fields(section, kind).unwrap_or_else(|| {
                panic!(
                    "type {kind:?} is not documented in docs/json.md section {section:?}: {line}"
                )
            });
            let fields = &keys[1..keys.len() - 1];
            let mut at = documented.iter();
            for field in fields {
                assert!(
                    at.any(|d| d == field),
                    "field {field:?} of {kind:?} is not documented, or not in the documented \
                     order {documented:?}: {line}"
                );
            }
            let entry = seen.0.entry(kind.to_string()).or_default();
            entry.extend(fields.iter().map(|f| f.to_string()));
        }
    }

    /// Asserts the runs behind `seen` printed every type `section` documents, and every field
    /// of each.
    #[track_caller]
    pub fn assert_covered(&self, section: &str, seen: &Seen) {
        self.assert_covered_but(section, seen, &[]);
    }

    /// [`Self::assert_covered`], but for the `(type, field)`s of `unreachable`: those no run
    /// can print (what the test broker never answers), checked elsewhere.
    #[track_caller]
    pub fn assert_covered_but(&self, section: &str, seen: &Seen, unreachable: &[(&str, &str)]) {
        self.assert_once(section);
        let documented = self
            .sections
            .get(section)
            .unwrap_or_else(|| panic!("docs/json.md has no section {section:?}"));
        for (kind, fields) in documented {
            let printed = seen
                .0
                .get(kind)
                .unwrap_or_else(|| panic!("no run printed a {kind:?} object ({section})"));
            for field in fields {
                if unreachable.contains(&(kind.as_str(), field.as_str())) {
                    assert!(
                        !printed.contains(field),
                        "{kind:?}'s field {field:?} is printed now: check it ({section})"
                    );
                    continue;
                }
                assert!(
                    printed.contains(field),
                    "no {kind:?} object printed its documented field {field:?} ({section})"
                );
            }
        }
    }
}

/// A JSON object's entries in the order of the text (`serde_json::Map` sorts them).
struct Ordered(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// The backticked names outside parentheses in a fields cell, in order.
fn field_names(cell: &str) -> Vec<String> {
    let mut outside = String::new();
    let mut depth = 0usize;
    let mut in_code = false;
    for c in cell.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                if depth == 0 {
                    outside.push(c);
                }
            }
            '(' if !in_code => depth += 1,
            ')' if !in_code => depth = depth.saturating_sub(1),
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    outside
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn fields_are_the_backticked_names_outside_parentheses() {
    assert_eq!(
        field_names("`file`, `status` (`empty`, `sanity_check_passed`), `text` (Kafka's line)"),
        ["file", "status", "text"]
    );
    assert_eq!(field_names("`a` (see `(b)`), `\"x\"`, `c`"), ["a", "c"]);
}
