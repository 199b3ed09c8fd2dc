//! Where each value of a YAML document is: a map from field paths (`streams[1].rate`) to lines
//! and columns, built from the same text as the typed value, so that a check made on the typed
//! value can point into the file, and a serde error at a line and column can name its field.
//!
//! serde-saphyr gives [`Spanned`] locations only to values deserialized through it; the config
//! types stay plain Rust types, and this second, untyped pass over the text (a tree of
//! `Spanned` nodes, flattened into paths) supplies the places.

use std::collections::HashMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

use super::error::{ConfigError, Diagnostic};
use super::field::{join_index, join_key, parent};

/// A YAML node of any shape; only its place and, for scalars, its text matter here.
#[derive(Debug)]
enum Node {
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Scalar(String),
    Null,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_string()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_string()))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_string()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Scalar(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Scalar(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Scalar(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        // Keys that are not strings (`1: x`) still get a place: they read as their text.
        while let Some(key) = map.next_key::<Spanned<KeyText>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            let key = Spanned::new(key.value.0, key.referenced, key.defined);
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

/// A mapping key as text, whatever its YAML type.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(KeyText(match Node::deserialize(deserializer)? {
            Node::Scalar(s) => s,
            Node::Null => "~".to_owned(),
            Node::Map(_) | Node::Seq(_) => "<complex key>".to_owned(),
        }))
    }
}

/// A line and a column, 1-based.
type Place = (u64, u64);

fn place(location: &Location) -> Place {
    (location.line(), location.column())
}

/// One value of the document.
#[derive(Debug)]
struct Entry {
    path: String,
    /// Where its key is, for a mapping value.
    key: Option<Place>,
    /// Where the value is.
    value: Place,
    /// The scalar's text.
    scalar: Option<String>,
}

/// Field paths and their places in one document.
#[derive(Debug, Default)]
pub(crate) struct SourceMap {
    entries: Vec<Entry>,
    by_path: HashMap<String, usize>,
    /// The document's lines, to place a problem inside a scalar's text.
    lines: Vec<String>,
}

impl SourceMap {
    fn build(root: &Spanned<Node>, text: &str) -> SourceMap {
        let mut map = SourceMap {
            lines: text.lines().map(str::to_owned).collect(),
            ..SourceMap::default()
        };
        map.add(String::new(), None, root);
        map
    }

    /// Where byte `offset` of the text of the scalar at `path` is: inside the text when the file
    /// writes it as it reads, on one line (plain, or in quotes with no escape before the
    /// offset); else where the value starts.
    pub(crate) fn locate_within(&self, path: &str, offset: usize) -> Place {
        let start = self.locate(path);
        let Some(text) = self.scalar(path) else {
            return start;
        };
        let (line, column) = start;
        let Some(raw) = usize::try_from(line)
            .ok()
            .and_then(|l| self.lines.get(l.checked_sub(1)?))
        else {
            return start;
        };
        let raw: String = raw
            .chars()
            .skip(usize::try_from(column).unwrap_or(1).saturating_sub(1))
            .collect();
        let quote = usize::from(raw.starts_with(['"', '\'']));
        let written = raw.chars().skip(quote).collect::<String>();
        let Some(before) = text.get(..offset) else {
            return start;
        };
        if written.starts_with(before) {
            (line, column + (quote + before.chars().count()) as u64)
        } else {
            start
        }
    }

    fn add(&mut self, path: String, key: Option<Place>, node: &Spanned<Node>) {
        let scalar = match &node.value {
            Node::Scalar(s) => Some(s.clone()),
            _ => None,
        };
        self.by_path.insert(path.clone(), self.entries.len());
        self.entries.push(Entry {
            path: path.clone(),
            key,
            value: place(&node.referenced),
            scalar,
        });
        match &node.value {
            Node::Map(entries) => {
                for (k, v) in entries {
                    self.add(join_key(&path, &k.value), Some(place(&k.referenced)), v);
                }
            }
            Node::Seq(items) => {
                for (i, v) in items.iter().enumerate() {
                    self.add(join_index(&path, i), None, v);
                }
            }
            Node::Scalar(_) | Node::Null => {}
        }
    }

    /// Whether the document has this field.
    pub(crate) fn has(&self, path: &str) -> bool {
        self.by_path.contains_key(path)
    }

    /// The text of the scalar at `path`.
    pub(crate) fn scalar(&self, path: &str) -> Option<&str> {
        let &i = self.by_path.get(path)?;
        self.entries[i].scalar.as_deref()
    }

    /// Where `path`'s value is, or, for a field the file leaves out (a default), where its
    /// nearest written parent is; the document's start for the root.
    pub(crate) fn locate(&self, path: &str) -> Place {
        let mut p = path;
        loop {
            if let Some(&i) = self.by_path.get(p) {
                let e = &self.entries[i];
                // A parent stands for a missing child: point at the parent's key, which names it.
                return if p.len() < path.len() {
                    e.key.unwrap_or(e.value)
                } else {
                    e.value
                };
            }
            match parent(p) {
                Some(up) => p = up,
                None => return (1, 1),
            }
        }
    }

    /// The deepest value or key at this place.
    fn at(&self, at: Place) -> Option<(&Entry, bool)> {
        self.entries
            .iter()
            .filter_map(|e| {
                if e.key == Some(at) {
                    Some((e, true))
                } else if e.value == at {
                    Some((e, false))
                } else {
                    None
                }
            })
            .max_by_key(|(e, _)| e.path.len())
    }
}

pub(crate) fn options() -> serde_saphyr::Options {
    serde_saphyr::options! { with_snippet: false }
}

/// A document read as a tree, or its syntax errors.
pub(crate) fn source_map(text: &str, name: &str) -> Result<SourceMap, ConfigError> {
    match serde_saphyr::from_str_with_options::<Spanned<Node>>(text, options()) {
        Ok(root) => Ok(SourceMap::build(&root, text)),
        Err(e) => Err(ConfigError::invalid(vec![serde_diagnostic(
            &e,
            &SourceMap::default(),
            name,
        )])),
    }
}

/// A serde-saphyr error as a diagnostic: its place, the field there, and its message without
/// the "at line L, column C" that the place already says.
pub(crate) fn serde_diagnostic(
    err: &serde_saphyr::Error,
    map: &SourceMap,
    name: &str,
) -> Diagnostic {
    let err = err.without_snippet();
    let (line, column) = err.location().map_or((0, 0), |l| place(&l));
    let mut message = err.to_string();
    let suffix = format!(" at line {line}, column {column}");
    if let Some(stripped) = message.strip_suffix(&suffix) {
        message = stripped.to_owned();
    }
    let mut field = String::new();
    let (mut line, mut column) = (line, column);
    if let Some((entry, is_key)) = map.at((line, column)) {
        field = entry.path.clone();
        if let Some(missing) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.strip_suffix('`'))
        {
            // Reported at a sibling key (or at an empty mapping): name the mapping's field and
            // point at the mapping's own key.
            let owner = if is_key {
                parent(&entry.path).unwrap_or("").to_owned()
            } else {
                entry.path.clone()
            };
            (line, column) = map.locate(&owner);
            if owner.is_empty() {
                (line, column) = (1, 1);
            }
            field = join_key(&owner, missing);
            message = format!("missing field `{missing}`");
        } else if !is_key {
            message = friendlier(&message, entry.scalar.as_deref());
        }
    }
    Diagnostic {
        file: name.to_owned(),
        line,
        column,
        field,
        message,
    }
}

/// serde-saphyr's "invalid u32" says neither what was found nor what is allowed.
fn friendlier(message: &str, found: Option<&str>) -> String {
    let expected = match message {
        "invalid u8" => "a whole number from 0 to 255",
        "invalid u16" => "a whole number from 0 to 65535",
        "invalid u32" => "a whole number from 0 to 4294967295",
        "invalid u64" => "a whole number from 0 to 18446744073709551615",
        "invalid i64" | "invalid i32" => "a whole number",
        "invalid f64" | "invalid f32" => "a number",
        "invalid bool" | "invalid boolean" => "true or false",
        _ => return message.to_owned(),
    };
    match found {
        Some(found) => format!("expected {expected}, found `{found}`"),
        None => format!("expected {expected}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
name: x
streams:
  - name: a
    rate: 10pps
  - {name: b, rate: 1Mpps}
sessions:
  count: 3
";

    #[test]
    fn every_value_has_its_place() {
        let map = source_map(TEXT, "t.yaml").expect("parses");
        assert_eq!(map.locate("name"), (1, 7));
        assert_eq!(map.locate("streams[0].rate"), (4, 11));
        assert_eq!(map.locate("streams[1].rate"), (5, 21));
        assert_eq!(map.locate("sessions.count"), (7, 10));
        assert!(map.has("streams[1].name"));
        assert!(!map.has("streams[2]"));
    }

    #[test]
    fn a_field_left_out_points_at_its_nearest_parent_key() {
        let map = source_map(TEXT, "t.yaml").expect("parses");
        assert_eq!(map.locate("sessions.ue_pool"), (6, 1));
        assert_eq!(map.locate("streams[0].payload"), (3, 5));
        assert_eq!(map.locate("duration"), (1, 1));
    }

    #[test]
    fn places_name_their_field() {
        let map = source_map(TEXT, "t.yaml").expect("parses");
        let (e, is_key) = map.at((4, 5)).expect("a key");
        assert_eq!((e.path.as_str(), is_key), ("streams[0].rate", true));
        let (e, is_key) = map.at((5, 21)).expect("a value");
        assert_eq!((e.path.as_str(), is_key), ("streams[1].rate", false));
        assert_eq!(e.scalar.as_deref(), Some("1Mpps"));
    }

    #[test]
    fn a_place_inside_a_text_counts_its_quote_and_falls_back_on_escapes() {
        let text = "a: permit out 17\nb: \"permit out 17\"\nc: \"p\\x65rmit out 17\"\n";
        let map = source_map(text, "t.yaml").expect("parses");
        assert_eq!(map.locate_within("a", 11), (1, 15));
        assert_eq!(map.locate_within("b", 11), (2, 16));
        // An escape before the offset: the text is not written as it reads.
        assert_eq!(map.locate_within("c", 11), map.locate("c"));
        assert_eq!(map.locate_within("a", 99), map.locate("a"), "past the text");
    }

    #[test]
    fn syntax_errors_are_located() {
        let err = source_map("a: 1\n  b: 2\n", "s.yaml").expect_err("bad YAML");
        let d = &err.diagnostics()[0];
        assert_eq!((d.line, d.column, d.field.as_str()), (2, 4, ""));
        assert_eq!(d.file, "s.yaml");
        assert!(!d.message.contains("at line"), "{}", d.message);
    }

    #[test]
    fn parents_walk_up_to_the_root() {
        assert_eq!(parent("a.b[2].c"), Some("a.b[2]"));
        assert_eq!(parent("a.b[2]"), Some("a.b"));
        assert_eq!(parent("a"), Some(""));
        assert_eq!(parent(""), None);
    }
}
