//! The spec's record vectors (`../shared/spec/vectors/records/*.json`) that carry an expected
//! Kafka 4.0 dump: kafkit prints the same lines, except the Java port's fix named in
//! [`super::golden`] (no `}` after the crc of magic 0/1 record lines).

use serde_json::Value;

use super::dump_in;
use crate::common::{hex, tempdir, vectors};

fn lines(v: &Value) -> Vec<String> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|l| l.as_str().expect("line").to_string())
            .collect(),
        other => panic!("expected a list of lines, found {other}"),
    }
}

/// Kafka 4.0's `crc: N}` quirk → the Java port's `crc: N`.
fn port(line: &str) -> String {
    match line.find(" crc: ") {
        Some(at) if line.starts_with("| offset: ") => {
            let end = line[at + 6..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(line.len(), |n| at + 6 + n);
            if line[end..].starts_with('}') {
                format!("{}{}", &line[..end], &line[end + 1..])
            } else {
                line.to_string()
            }
        }
        _ => line.to_string(),
    }
}

struct Case {
    name: String,
    file: String,
    bytes: Vec<u8>,
    key: String,
    expected: Vec<String>,
    stderr: Option<Vec<String>>,
}

fn collect(v: &Value, name: &str, parent_hex: Option<&str>, out: &mut Vec<Case>) {
    match v {
        Value::Object(map) => {
            let own_hex = ["hex", "concatenated_hex", "log_entry_hex"]
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str));
            let bytes = match (own_hex, map.get("hex_suffix").and_then(Value::as_str)) {
                (Some(h), _) => Some(hex(h)),
                (None, Some(suffix)) => parent_hex.map(|p| {
                    let mut b = hex(p);
                    b.extend(hex(suffix));
                    b
                }),
                (None, None) => None,
            };
            if let Some(bytes) = &bytes {
                let file = map
                    .get("file")
                    .and_then(Value::as_str)
                    .unwrap_or("00000000000000000000.log")
                    .to_string();
                for (key, value) in map {
                    if !key.starts_with("expected_dump") {
                        continue;
                    }
                    let expected = match value {
                        Value::String(s) if s.starts_with('[') => {
                            // A Python list written as a string: only used for one file whose
                            // lines hold no quotes.
                            s.trim_matches(|c| c == '[' || c == ']')
                                .split("', '")
                                .map(|l| l.trim_matches('\'').to_string())
                                .collect()
                        }
                        other => lines(other),
                    };
                    out.push(Case {
                        name: format!("{name} {key}"),
                        file: file.clone(),
                        bytes: bytes.clone(),
                        key: key.clone(),
                        expected,
                        stderr: map.get("expected_stderr_of_concatenation").map(lines),
                    });
                }
            }
            for (k, child) in map {
                collect(child, &format!("{name}/{k}"), own_hex.or(parent_hex), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect(child, &format!("{name}[{i}]"), parent_hex, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_vector_with_an_expected_dump_prints_it() {
    let Some(dir) = vectors() else { return };
    let mut cases = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir.join("records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    for path in names {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        collect(&v, &name, None, &mut cases);
    }
    assert!(cases.len() >= 25, "{} cases", cases.len());
    for case in &cases {
        let tmp = tempdir();
        // The file name Kafka dumped (its base offset matters), from the `Dumping` line.
        let file = case.expected[0]
            .strip_prefix("Dumping ")
            .and_then(|p| p.rsplit('/').next())
            .unwrap_or(&case.file)
            .to_string();
        std::fs::write(tmp.path().join(&file), &case.bytes).unwrap();
        let mut args = vec!["--files", file.as_str()];
        if case.key.contains("print_data_log") {
            args.push("--print-data-log");
        } else if case.key.contains("deep_iteration") {
            args.push("--deep-iteration");
        }
        let run = dump_in(tmp.path(), &args);
        let actual: Vec<&str> = run.stdout.lines().collect();
        let expected: Vec<String> = case.expected.iter().map(|l| port(l)).collect();
        // The `Dumping <path>` line names wherever the vector's file lived.
        assert!(actual[0].starts_with("Dumping "), "{}", case.name);
        assert_eq!(
            &actual[1..],
            &expected[1..].iter().map(String::as_str).collect::<Vec<_>>()[..],
            "{}\n{}",
            case.name,
            run.stderr
        );
        if let Some(want) = &case.stderr {
            let abs = tmp.path().canonicalize().unwrap().join(&file);
            let want: Vec<String> = want
                .iter()
                .map(|l| l.replace("<absolute path of the file>", &abs.to_string_lossy()))
                .collect();
            assert_eq!(
                run.stderr.lines().collect::<Vec<_>>(),
                want,
                "{}",
                case.name
            );
        }
    }
}

#[test]
fn the_observed_producer_snapshot_prints_the_real_line() {
    let Some(dir) = vectors() else { return };
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("records/producer_snapshot_observed_fields.json"))
            .unwrap(),
    )
    .unwrap();
    let tmp = tempdir();
    let file = v["file"].as_str().unwrap();
    std::fs::write(tmp.path().join(file), hex(v["hex"].as_str().unwrap())).unwrap();
    let run = dump_in(tmp.path(), &["--files", file]);
    let mut want = format!("Dumping {file}\n");
    for line in lines(&v["observed_dump"]) {
        want += &line;
        want.push('\n');
    }
    assert_eq!(run.ok(), want);
}
