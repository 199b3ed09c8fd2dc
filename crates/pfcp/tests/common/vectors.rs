//! The reference vectors (testdata/pfcp.json) and hex text.

use serde_json::Value;

/// Bytes from hex digits (white space between them ignored).
pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Every vector: name, hex, description, fields.
pub fn vectors() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("../../testdata/pfcp.json")).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

/// The bytes of the vector called `name`.
pub fn vector_bytes(name: &str) -> Vec<u8> {
    let v = vectors().into_iter().find(|v| v["name"] == name).unwrap();
    hex(v["hex"].as_str().unwrap())
}
