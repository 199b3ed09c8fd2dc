//! The JSON Schemas of the four kinds of file, made from the config types themselves, and the
//! reference pages made from the schemas: what the repository ships as `schema/*.schema.json`
//! and `docs/reference/*.md` (`cargo run -p upfbench-xtask -- config-reference` writes them;
//! the tests fail when the committed files differ from what the types make).
//!
//! What a schema takes from the types: each field's name, whether it is required, its form,
//! its default (from the same `default = "..."` function serde reads the field with, written as
//! the files write it) and its description (the field's doc comment). The forms of values
//! written as text are strings with a pattern (`forms.rs`). What the checks find (ranges, one
//! field against another) the schema does not repeat: a file the schema accepts can still be
//! refused, at its place, by `upfbench validate`.
//!
//! ```
//! use upfbench_config::{FileKind, schema};
//!
//! let profile = schema::schema(FileKind::Profile);
//! assert_eq!(profile["properties"]["duration"]["default"], "10s");
//! assert_eq!(profile["required"], serde_json::json!(["name", "streams"]));
//! ```

mod forms;
mod reference;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod validator;

use schemars::{JsonSchema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use super::{Cluster, FileKind, Profile, Reflector, System};
use forms::{IpAddress, Ipv4Address};

pub(crate) use forms::Devargs;

/// The schema of a kind of file, as JSON (JSON Schema 2020-12).
pub fn schema(kind: FileKind) -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let root = match kind {
        FileKind::System => generator.root_schema_for::<System>(),
        FileKind::Profile => generator.root_schema_for::<Profile>(),
        FileKind::Reflector => generator.root_schema_for::<Reflector>(),
        FileKind::Cluster => generator.root_schema_for::<Cluster>(),
    };
    let mut root = root.to_value();
    own_kind_only(&mut root, kind);
    replace_std_addresses(&mut root, &mut generator);
    forms_typed_where_used(&mut root);
    default_null_where_absent_is_none(&mut root);
    plain_descriptions(&mut root);
    if let Some(root) = root.as_object_mut() {
        root.insert(
            "$comment".to_owned(),
            json!(format!(
                "The {kind} file of upfbench, made from its types by `cargo run -p \
                 upfbench-xtask -- config-reference`: do not edit. The reference: \
                 docs/reference/{kind}.md."
            )),
        );
    }
    root
}

/// `kind:` says which kind a file is, and the checks refuse another kind's name: the schema of
/// a kind takes that kind's name only.
fn own_kind_only(root: &mut Value, kind: FileKind) {
    if let Some(Value::Object(field)) = root.pointer_mut("/properties/kind") {
        field.remove("$ref");
        field.insert(
            "anyOf".to_owned(),
            json!([{"const": kind.to_string()}, {"type": "null"}]),
        );
    }
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        defs.remove("FileKind");
    }
}

/// A file `config-reference` writes: its path from the repository's root, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// `schema/profile.schema.json`, `docs/reference/profile.md`, ...
    pub path: String,
    /// What it holds.
    pub text: String,
}

/// The kinds of file, in the order the reference lists them.
pub const KINDS: [FileKind; 4] = [
    FileKind::System,
    FileKind::Profile,
    FileKind::Reflector,
    FileKind::Cluster,
];

/// Where a kind's schema is, from the repository's root: `schema/profile.schema.json`.
pub(crate) fn schema_path(kind: FileKind) -> String {
    format!("schema/{kind}.schema.json")
}

/// Where a kind's reference page is, from the repository's root: `docs/reference/profile.md`.
pub(crate) fn reference_path(kind: FileKind) -> String {
    format!("docs/reference/{kind}.md")
}

/// Every file `config-reference` writes: the four schemas and their reference pages.
pub fn generated_files() -> Vec<GeneratedFile> {
    let mut files = Vec::new();
    for kind in KINDS {
        let schema = schema(kind);
        let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
        text.push('\n');
        files.push(GeneratedFile {
            path: schema_path(kind),
            text,
        });
        files.push(GeneratedFile {
            path: reference_path(kind),
            text: reference::page(kind, &schema),
        });
    }
    files
}

/// schemars gives `IpAddr` and `Ipv4Addr` a `format` that validators need not check (`ip` is
/// none of JSON Schema's): each becomes a reference to a form with a pattern.
fn replace_std_addresses(root: &mut Value, generator: &mut SchemaGenerator) {
    let mut used = Vec::new();
    replace_formats(root, &mut used);
    let Some(defs) = root.get_mut("$defs").and_then(Value::as_object_mut) else {
        return;
    };
    for name in used {
        let schema = match name {
            "IpAddress" => IpAddress::json_schema(generator),
            _ => Ipv4Address::json_schema(generator),
        };
        defs.insert(name.to_owned(), schema.to_value());
    }
}

fn replace_formats(value: &mut Value, used: &mut Vec<&'static str>) {
    match value {
        Value::Object(map) => {
            let form = match map.get("format").and_then(Value::as_str) {
                Some("ip") => Some("IpAddress"),
                Some("ipv4") => Some("Ipv4Address"),
                _ => None,
            };
            if let Some(form) = form {
                let nullable = map
                    .get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|types| types.iter().any(|t| t == "null"));
                map.remove("format");
                map.remove("type");
                let reference = json!({"$ref": format!("#/$defs/{form}")});
                if nullable {
                    map.insert("anyOf".to_owned(), json!([reference, {"type": "null"}]));
                } else {
                    map.insert("$ref".to_owned(), reference["$ref"].clone());
                }
                if !used.contains(&form) {
                    used.push(form);
                }
            }
            map.values_mut().for_each(|v| replace_formats(v, used));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_formats(v, used)),
        _ => {}
    }
}

/// A definition of one type (a value form such as `Duration`, a section such as `Pfcp`) is typed
/// where it is used, `"type": "string"`, or `["string", "null"]` for an optional one, rather
/// than as schemars has it, `anyOf: [definition, null]`, whose failure validators report as "not
/// valid under any of the given schemas": so a bad duration in an optional field, or a bad field
/// in an optional section, is reported at its place as in a required one.
fn forms_typed_where_used(root: &mut Value) {
    let Some(Value::Object(defs)) = root.get("$defs") else {
        return;
    };
    let forms: Vec<(String, Value)> = defs
        .iter()
        .filter_map(|(name, def)| {
            let form_type = def.get("type").filter(|t| t.is_string())?;
            Some((format!("#/$defs/{name}"), form_type.clone()))
        })
        .collect();
    type_uses(root, &forms);
    if let Some(Value::Object(defs)) = root.get_mut("$defs") {
        for (reference, _) in &forms {
            if let Some(Value::Object(def)) = defs.get_mut(reference.trim_start_matches("#/$defs/"))
            {
                def.remove("type");
            }
        }
    }
}

fn type_uses(value: &mut Value, forms: &[(String, Value)]) {
    let form_of = |schema: &Value| {
        let reference = schema.get("$ref")?.as_str()?;
        forms.iter().find(|(r, _)| r == reference)
    };
    match value {
        Value::Object(map) => {
            let nullable = map
                .get("anyOf")
                .and_then(Value::as_array)
                .filter(|alternatives| alternatives.len() == 2)
                .and_then(|alternatives| {
                    let null = alternatives
                        .iter()
                        .position(|a| a == &json!({"type": "null"}))?;
                    form_of(&alternatives[1 - null])
                })
                .cloned();
            if let Some((reference, form_type)) = nullable {
                map.remove("anyOf");
                map.insert("$ref".to_owned(), json!(reference));
                map.insert("type".to_owned(), json!([form_type, "null"]));
            } else if let Some((_, form_type)) = form_of(&Value::Object(map.clone())) {
                map.insert("type".to_owned(), form_type.clone());
            }
            map.values_mut().for_each(|v| type_uses(v, forms));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| type_uses(v, forms)),
        _ => {}
    }
}

/// Whether a schema admits `null` (`~`).
fn admits_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(k)
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(admits_null))
        }),
    }
}

/// An optional field left out is `~` (its type an `Option` read as `None`): its default is
/// `null`, where schemars writes none because the field's type is not `Serialize`.
fn default_null_where_absent_is_none(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                let required = required(map);
                let absent_is_none: Vec<String> = properties
                    .iter()
                    .filter(|(name, schema)| {
                        !required.contains(name)
                            && schema.get("default").is_none()
                            && admits_null(schema)
                    })
                    .map(|(name, _)| name.clone())
                    .collect();
                if let Some(Value::Object(properties)) = map.get_mut("properties") {
                    for name in absent_is_none {
                        if let Some(Value::Object(p)) = properties.get_mut(&name) {
                            p.insert("default".to_owned(), Value::Null);
                        }
                    }
                }
            }
            map.values_mut().for_each(default_null_where_absent_is_none);
        }
        Value::Array(items) => items.iter_mut().for_each(default_null_where_absent_is_none),
        _ => {}
    }
}

/// An object schema's required properties.
fn required(object: &Map<String, Value>) -> Vec<String> {
    object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Descriptions as a reader (an editor's hover, the reference) wants them: doc comments' lines
/// joined into paragraphs (code blocks kept as they are), and rustdoc's links to Rust items
/// (`` [`Port`](super::Port) ``, `` [`MAX_LATENCY`] ``) as plain code.
fn plain_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(text) if key == "description" || key == "title" => {
                        *text = plain_text(text);
                    }
                    _ => plain_descriptions(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain_descriptions),
        _ => {}
    }
}

/// A doc comment's text: lines joined into paragraphs, rustdoc's item links as code.
pub(crate) fn plain_text(doc: &str) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut in_code = false;
    for line in doc.lines() {
        let fence = line.trim_start().starts_with("```");
        if in_code || fence {
            current.push_str(line);
            current.push('\n');
            in_code ^= fence;
            continue;
        }
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current).trim_end().to_owned());
            }
            continue;
        }
        if !current.is_empty() && !current.ends_with('\n') {
            current.push(' ');
        }
        current.push_str(line.trim());
    }
    if !current.is_empty() {
        paragraphs.push(current.trim_end().to_owned());
    }
    item_links_as_code(&paragraphs.join("\n\n"))
}

/// `` [`Port`](super::Port) `` and `` [`MAX_LATENCY`] `` → `` `Port` ``, `` `MAX_LATENCY` ``;
/// links to pages and anchors stay.
fn item_links_as_code(text: &str) -> String {
    let is_item_path = |target: &str| {
        !target.is_empty()
            && target
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find("`]") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let code = &after[..end + 1];
        let tail = &after[end + 2..];
        if let Some(link) = tail.strip_prefix('(')
            && let Some(close) = link.find(')')
        {
            if is_item_path(&link[..close]) {
                out.push_str(code);
                rest = &link[close + 1..];
            } else {
                out.push_str(&rest[start..start + 1 + end + 2]);
                rest = tail;
            }
        } else {
            out.push_str(code);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}
