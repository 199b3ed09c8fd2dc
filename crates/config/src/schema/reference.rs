//! The reference pages (`docs/reference/*.md`), made from the schemas: a row per field (its
//! path, its form, its default, its description), in the order its type declares the fields,
//! a table per top-level section; then the value forms the file uses.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::super::{Cluster, FileKind, Profile, Reflector, System};
use super::{required, schema_path};

/// One step of a field's path: a key, or any item of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    /// `sessions`, `count`.
    Key(String),
    /// `[]`.
    Item,
}

/// `sessions.uplink_teid.first`, `streams[].rate`.
pub(super) fn path_text(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Item => text.push_str("[]"),
        }
    }
    text
}

/// One field of the reference.
#[derive(Debug, Clone)]
pub(super) struct Row {
    pub(super) path: Vec<Step>,
    pub(super) form: String,
    /// `required`, the default as the file writes it, or nothing (a section).
    pub(super) default: String,
    pub(super) description: String,
    /// The default as the schema has it.
    pub(super) default_value: Option<Value>,
    /// A mapping whose fields have the defaults, or an enum's variant with data.
    pub(super) section: bool,
}

/// The fields of a kind of file, in order, and the value forms they use.
pub(super) struct Fields {
    pub(super) rows: Vec<Row>,
    pub(super) forms: BTreeSet<String>,
    /// The mappings whose fields' order the type did not tell (`config::schema`'s tests want
    /// none).
    pub(super) unordered: Vec<String>,
}

/// The fields of `schema`, the schema of a `kind` file.
pub(super) fn fields(kind: FileKind, schema: &Value) -> Fields {
    let mut walk = Walk {
        kind,
        root: schema,
        fields: Fields {
            rows: Vec::new(),
            forms: BTreeSet::new(),
            unordered: Vec::new(),
        },
    };
    walk.mapping(schema, &[]);
    walk.fields
}

struct Walk<'a> {
    kind: FileKind,
    root: &'a Value,
    fields: Fields,
}

/// The name a `$ref` refers to.
fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// The alternatives of `anyOf` or `oneOf`.
fn alternatives(schema: &Value) -> &[Value] {
    ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| schema.get(k).and_then(Value::as_array))
        .map_or(&[], Vec::as_slice)
}

/// Whether `type` lists `null` beside a form's reference.
fn admits_null_type(schema: &Value) -> bool {
    schema
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|types| types.iter().any(|t| t == "null"))
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").is_some_and(|t| t == "null")
}

/// A mapping of one required key, as serde writes an enum's variant with data:
/// `{single_burst: {packets: 10}}`, `{echo: n6}`.
fn variant(schema: &Value) -> Option<(&str, &Value)> {
    let properties = schema.get("properties")?.as_object()?;
    let (key, value) = properties.iter().next()?;
    let object = schema.as_object()?;
    (properties.len() == 1 && required(object) == [key.clone()]).then_some((key.as_str(), value))
}

impl<'a> Walk<'a> {
    /// `schema`, or what it refers to.
    fn resolve(&self, schema: &'a Value) -> &'a Value {
        match ref_name(schema) {
            Some(name) => self.root["$defs"].get(name).unwrap_or(schema),
            None => schema,
        }
    }

    /// Whether a definition is a value form (a string pattern, an identifier): it is listed at
    /// the end, and a field's form links to it.
    fn is_form(&self, name: &str) -> bool {
        self.root["$defs"][name].get("examples").is_some()
    }

    /// The rows of a mapping's fields, at `path`.
    fn mapping(&mut self, object: &'a Value, path: &[Step]) {
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            return;
        };
        let required = object.as_object().map(required).unwrap_or_default();
        let order = match field_order(self.kind, path) {
            Some(order)
                if order.len() == properties.len()
                    && order.iter().all(|k| properties.contains_key(k)) =>
            {
                order
            }
            _ => {
                if properties.len() > 1 {
                    self.fields.unordered.push(path_text(path));
                }
                properties.keys().cloned().collect()
            }
        };
        for key in order {
            let field = &properties[&key];
            let mut at = path.to_vec();
            at.push(Step::Key(key.clone()));
            let default = if required.contains(&key) {
                "required".to_owned()
            } else {
                match field.get("default") {
                    None => String::new(),
                    Some(Value::Null) => "none".to_owned(),
                    Some(d) => format!(
                        "`{}`",
                        default_text(self.kind, d, &at, self.names_form(field, "Teid"))
                    ),
                }
            };
            let description = self.description(field);
            let section = self.is_section(field);
            self.row(at.clone(), field, default, description);
            if let Some(row) = self.fields.rows.last_mut() {
                row.default_value = field.get("default").cloned();
                row.section = section;
            }
            self.inside(field, &at);
        }
    }

    /// Whether `schema` is the form `name`, or that form or `~`.
    fn names_form(&self, schema: &Value, name: &str) -> bool {
        ref_name(schema) == Some(name)
            || alternatives(schema)
                .iter()
                .any(|a| ref_name(a) == Some(name))
    }

    fn row(&mut self, path: Vec<Step>, schema: &'a Value, default: String, description: String) {
        let form = self.form(schema);
        self.fields.rows.push(Row {
            path,
            form,
            default,
            description,
            default_value: None,
            section: false,
        });
    }

    /// Whether a field is a mapping of fields (maybe `~`).
    fn is_section(&self, field: &'a Value) -> bool {
        let inner = alternatives(field)
            .iter()
            .find(|a| !is_null(a))
            .unwrap_or(field);
        self.resolve(inner).get("properties").is_some()
    }

    /// A field's description, and what its values mean when it does not name them all.
    fn description(&self, field: &'a Value) -> String {
        let mut text = field
            .get("description")
            .or_else(|| self.resolve(field).get("description"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let inner = alternatives(field)
            .iter()
            .find(|a| !is_null(a))
            .unwrap_or(field);
        let values: Vec<(&str, &str)> = alternatives(self.resolve(inner))
            .iter()
            .filter_map(|a| Some((a.get("const")?.as_str()?, a.get("description")?.as_str()?)))
            .collect();
        let named = values
            .iter()
            .all(|(value, _)| text.contains(&format!("`{value}`")));
        if !values.is_empty() && !named {
            let list: Vec<String> = values
                .iter()
                .map(|(value, what)| format!("`{value}`: {}", what.trim_end_matches('.')))
                .collect();
            let _ = write!(text, " Values: {}.", list.join("; "));
        }
        text
    }

    /// The rows of what is inside a field: a mapping's fields, a list's items', the mappings
    /// among its alternatives.
    fn inside(&mut self, schema: &'a Value, path: &[Step]) {
        let schema = self.resolve(schema);
        if schema.get("properties").is_some() {
            self.mapping(schema, path);
        }
        if let Some(items) = schema.get("items") {
            let mut at = path.to_vec();
            at.push(Step::Item);
            self.inside(items, &at);
        }
        for alternative in alternatives(schema) {
            let alternative = self.resolve(alternative);
            if let Some((key, inner)) = variant(alternative) {
                let mut at = path.to_vec();
                at.push(Step::Key(key.to_owned()));
                let description = alternative
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.row(at.clone(), inner, String::new(), description);
                if let Some(row) = self.fields.rows.last_mut() {
                    row.section = true;
                }
                self.inside(inner, &at);
            } else if alternative.get("properties").is_some() {
                self.mapping(alternative, path);
            }
        }
    }

    /// How a field is written: a value form, a keyword, a mapping, a list, and `~` if it may be
    /// none.
    fn form(&mut self, schema: &'a Value) -> String {
        if let Some(name) = ref_name(schema) {
            if self.is_form(name) {
                self.fields.forms.insert(name.to_owned());
                let link = format!("[{name}](#{})", name.to_lowercase());
                return if admits_null_type(schema) {
                    format!("{link} | `~`")
                } else {
                    link
                };
            }
            let resolved = self.resolve(schema);
            let form = if resolved.get("properties").is_some() {
                "mapping".to_owned()
            } else {
                self.form(resolved)
            };
            return if admits_null_type(schema) {
                format!("{form} | `~`")
            } else {
                form
            };
        }
        let alternatives = alternatives(schema);
        if !alternatives.is_empty() {
            let mut forms: Vec<String> = Vec::new();
            for alternative in alternatives {
                let form = match variant(self.resolve(alternative)) {
                    Some((key, _)) => format!("`{{{key}: …}}`"),
                    None => self.form(alternative),
                };
                if !forms.contains(&form) {
                    forms.push(form);
                }
            }
            return forms.join(" | ");
        }
        if let Some(value) = schema.get("const") {
            return format!("`{}`", value_text(value, false));
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let forms: Vec<String> = types
            .iter()
            .map(|t| match *t {
                "null" => "`~`".to_owned(),
                "array" => match schema.get("items") {
                    Some(items) => format!("list of {}", self.form(items)),
                    None => "list".to_owned(),
                },
                "object" if schema.get("properties").is_some() => "mapping".to_owned(),
                "object" => match schema
                    .get("patternProperties")
                    .and_then(Value::as_object)
                    .and_then(|p| p.values().next())
                {
                    Some(value) => format!("mapping of integer to {}", self.form(value)),
                    None => "mapping".to_owned(),
                },
                other => other.to_owned(),
            })
            .collect();
        forms.join(" | ")
    }
}

/// A value as a file writes it, in YAML's flow style: `10s`, `[10, 300, 1400]`,
/// `{first: 1, step: 2}`, `~` for none; a TEID in hexadecimal.
fn value_text(value: &Value, teid: bool) -> String {
    match value {
        Value::Null => "~".to_owned(),
        Value::Number(n) if teid => n
            .as_u64()
            .map_or_else(|| n.to_string(), |t| format!("{t:#x}")),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Bool(_) => value.to_string(),
        Value::String(s) if s.is_empty() => "\"\"".to_owned(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| value_text(v, false)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", value_text(v, false)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// A default, its mappings' keys in the order of their types (a JSON object keeps none).
fn default_text(kind: FileKind, value: &Value, path: &[Step], teid: bool) -> String {
    match value {
        Value::Object(map) => {
            let mut order = field_order(kind, path).unwrap_or_default();
            order.retain(|k| map.contains_key(k));
            let rest: Vec<String> = map.keys().filter(|k| !order.contains(k)).cloned().collect();
            order.extend(rest);
            let entries: Vec<String> = order
                .iter()
                .map(|k| {
                    let mut at = path.to_vec();
                    at.push(Step::Key(k.clone()));
                    format!("{k}: {}", default_text(kind, &map[k], &at, false))
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(items) => {
            let mut at = path.to_vec();
            at.push(Step::Item);
            let items: Vec<String> = items
                .iter()
                .map(|v| default_text(kind, v, &at, false))
                .collect();
            format!("[{}]", items.join(", "))
        }
        other => value_text(other, teid),
    }
}

/// The order a mapping's type declares its fields in, asked of serde itself: a file with an
/// unknown key at `path` is refused with the list of the keys there (`unknown field `?`,
/// expected one of `device`, `devargs`, ...`), in the type's order.
pub(super) fn field_order(kind: FileKind, path: &[Step]) -> Option<Vec<String>> {
    let mut document = json!({"?": 0});
    for step in path.iter().rev() {
        document = match step {
            Step::Key(key) => json!({ key: document }),
            Step::Item => json!([document]),
        };
    }
    fn refusal<T: DeserializeOwned>(document: Value) -> Option<String> {
        serde_json::from_value::<T>(document)
            .err()
            .map(|e| e.to_string())
    }
    let message = match kind {
        FileKind::System => refusal::<System>(document),
        FileKind::Profile => refusal::<Profile>(document),
        FileKind::Reflector => refusal::<Reflector>(document),
        FileKind::Cluster => refusal::<Cluster>(document),
    }?;
    let expected = message
        .strip_prefix("unknown field `?`, expected ")?
        .split(" at line ")
        .next()?;
    Some(
        expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect(),
    )
}

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    text.replace("\n\n", "<br><br>")
        .replace('\n', " ")
        .replace('|', "\\|")
}

const TABLE_HEAD: &str = "| field | form | default | description |\n| --- | --- | --- | --- |\n";

/// The reference page of a kind of file.
pub(super) fn page(kind: FileKind, schema: &Value) -> String {
    let fields = fields(kind, schema);
    let mut page = String::new();
    page_intro(&mut page, kind, schema);
    // Top-level scalars first, then a section per top-level mapping or list.
    let sections = top_fields(&mut page, &fields);
    field_sections(&mut page, schema, &fields, sections);
    value_forms(&mut page, schema, &fields);
    page.truncate(page.trim_end().len());
    page.push('\n');
    page
}

/// The page's title, its note that it is generated, the type's description and what the page
/// holds.
fn page_intro(page: &mut String, kind: FileKind, schema: &Value) {
    let title = match kind {
        FileKind::System => "The system file",
        FileKind::Profile => "The profile",
        FileKind::Reflector => "The reflector file",
        FileKind::Cluster => "The cluster file",
    };
    let _ = writeln!(page, "# {title}\n");
    let _ = writeln!(
        page,
        "<!-- Made from upfbench's config types by `cargo run -p upfbench-xtask -- \
         config-reference`: do not edit. -->\n"
    );
    if let Some(description) = schema.get("description").and_then(Value::as_str) {
        let _ = writeln!(page, "{description}\n");
    }
    let _ = writeln!(
        page,
        "Every field of {a_file}: its form, its default (or `required`) and what it is \
         for, in the order of its type in the code, whose doc comments these descriptions are. \
         Fields without a default whose section has one are required when their section is \
         given. `upfbench validate FILE` checks a file, each problem at its place; the JSON \
         Schema [`{schema_path}`](../../{schema_path}) checks the forms as the file is typed, \
         in an editor that reads a first line `# yaml-language-server: $schema=...` \
         ([profiles/README.md](../../profiles/README.md)). The forms of values written as text \
         (durations, rates, addresses) are [at the end](#value-forms).\n",
        schema_path = schema_path(kind),
        a_file = match kind {
            FileKind::Profile => "a profile".to_owned(),
            other => format!("a {other} file"),
        },
    );
}

/// The table of the top-level fields; returns those that are sections (a mapping or a list
/// with fields of its own).
fn top_fields(page: &mut String, fields: &Fields) -> Vec<Step> {
    let has_children = |key: &Step| {
        fields
            .rows
            .iter()
            .any(|r| r.path.len() > 1 && r.path.first() == Some(key))
    };
    let _ = write!(page, "## Fields\n\n{TABLE_HEAD}");
    let mut sections = Vec::new();
    for row in fields.rows.iter().filter(|r| r.path.len() == 1) {
        write_row(page, row);
        if has_children(&row.path[0]) {
            sections.push(row.path[0].clone());
        }
    }
    sections
}

/// A table per section; a section of the type of one before it (`n6` after `n3`) refers to
/// that one.
fn field_sections(page: &mut String, schema: &Value, fields: &Fields, sections: Vec<Step>) {
    let mut written: Vec<(&str, String)> = Vec::new();
    for section in sections {
        let name = path_text(std::slice::from_ref(&section));
        let field = &schema["properties"][&name];
        let type_name = ref_name(field).or_else(|| alternatives(field).iter().find_map(ref_name));
        let _ = write!(page, "\n## {name}\n\n");
        if let Some((_, first)) = written.iter().find(|(t, _)| Some(*t) == type_name) {
            let row = fields.rows.iter().find(|r| r.path == [section.clone()]);
            let description = row.map_or("", |r| r.description.as_str());
            let _ = writeln!(
                page,
                "{description} Its fields are those of [`{first}`](#{first}), under `{name}.`."
            );
            continue;
        }
        if let Some(type_name) = type_name {
            written.push((type_name, name.clone()));
        }
        let _ = write!(page, "{TABLE_HEAD}");
        for row in fields
            .rows
            .iter()
            .filter(|r| r.path.first() == Some(&section))
        {
            write_row(page, row);
        }
    }
}

/// The forms of the values written as text, with their examples.
fn value_forms(page: &mut String, schema: &Value, fields: &Fields) {
    let _ = writeln!(page, "\n## Value forms\n");
    for name in &fields.forms {
        let form = &schema["$defs"][name];
        let _ = writeln!(page, "### {name}\n");
        if let Some(description) = form.get("description").and_then(Value::as_str) {
            let _ = writeln!(page, "{description}\n");
        }
        if let Some(examples) = form.get("examples").and_then(Value::as_array) {
            let examples: Vec<String> = examples
                .iter()
                .map(|e| format!("`{}`", value_text(e, name == "Teid")))
                .collect();
            let _ = writeln!(page, "For example {}.\n", examples.join(", "));
        }
    }
}

fn write_row(page: &mut String, row: &Row) {
    let _ = writeln!(
        page,
        "| `{}` | {} | {} | {} |",
        path_text(&row.path),
        cell(&row.form),
        cell(&row.default),
        cell(&row.description)
    );
}
