//! The OpenAPI 3.1 document of v1 (`schema/api/v1/openapi.json`), made from [`ROUTES`] and the
//! request and answer types: a route is in the document because it is in the table the server
//! routes by, and its schemas are the types' (schemars, JSON Schema 2020-12, the dialect of
//! OpenAPI 3.1). `cargo run -p upfbench-xtask -- openapi` writes it; a test fails when the
//! committed file differs.
//!
//! ```
//! let doc = upfbench_api::v1::openapi::document();
//! assert_eq!(doc["openapi"], "3.1.0");
//! assert!(doc["paths"]["/v1/steps/{n}/result"]["get"].is_object());
//! ```

mod operations;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::{Body, ROUTES, Route};
use crate::problem::ProblemKind;
use operations::{Answer, operation};

/// Where the document is kept, from the repository's root.
pub const PATH: &str = "schema/api/v1/openapi.json";

/// The media type of every JSON body and answer.
const JSON: &str = "application/json";

/// The document, as JSON.
pub fn document() -> Value {
    let (mut requests, mut answers) = (generator(Contract::Request), generator(Contract::Answer));
    let mut paths = Map::new();
    for route in ROUTES {
        let op = path_item(route, &mut requests, &mut answers);
        let item = paths
            .entry(route.path)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(item) = item {
            item.insert(route.method.to_ascii_lowercase(), op);
        }
    }
    // A struct's schema goes into the components; the reference given back is not needed.
    let _ = answers.subschema_for::<crate::ProblemDocument>();
    let mut schemas = requests.take_definitions(true);
    schemas.extend(answers.take_definitions(true));
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "upfbench agent API",
            "version": "1",
            "description": "The HTTP API of `upfbench agent` (and `upfbench serve`): made from \
                the route table and the types of crates/api by `cargo run -p upfbench-xtask -- \
                openapi`: do not edit. The guide: docs/api.md. Errors are RFC 9457 problem \
                documents (application/problem+json). Requests refuse unknown fields; answers \
                may gain fields within v1.",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "servers": [{"url": "http://127.0.0.1:9800", "description": "the default --listen"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": sorted(schemas),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The agent's --token-file (at least 32 bytes); every route \
                        but /health takes it.",
                },
            },
        },
    });
    unwrap_descriptions(&mut doc);
    doc
}

/// Doc comments are wrapped at 100 columns: a description reads as one paragraph per blank
/// line, its lines joined.
fn unwrap_descriptions(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                match v {
                    Value::String(s) if k == "description" => {
                        *s = s
                            .split("\n\n")
                            .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => unwrap_descriptions(v),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// The document as the committed file holds it: pretty JSON and a final newline.
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
    text.push('\n');
    text
}

/// Which side of the wire a schema describes: a request as the server reads it, an answer
/// as the server writes it (a field skipped when empty is optional in an answer).
#[derive(Debug, Clone, Copy)]
enum Contract {
    Request,
    Answer,
}

fn generator(contract: Contract) -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    let settings = match contract {
        Contract::Request => settings.for_deserialize(),
        Contract::Answer => settings.for_serialize(),
    };
    settings.into_generator()
}

fn sorted(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<_> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().collect()
}

/// One route's operation object.
fn path_item(
    route: &Route,
    requests: &mut SchemaGenerator,
    answers: &mut SchemaGenerator,
) -> Value {
    let op = operation(route.name);
    let mut o = Map::new();
    o.insert("operationId".into(), json!(op.id));
    o.insert("summary".into(), json!(op.summary));
    if route.open {
        o.insert("security".into(), json!([]));
    }
    let parameters = parameters(route.path);
    if !parameters.is_empty() {
        o.insert("parameters".into(), Value::Array(parameters));
    }
    if let (Body::Json(limit), Some(request)) = (route.body, op.request) {
        o.insert(
            "requestBody".into(),
            json!({
                "required": true,
                "description": format!("At most {limit} bytes (413 above)."),
                "content": {JSON: {"schema": request(requests).to_value()}},
            }),
        );
    }
    let mut responses = Map::new();
    let (status, answer) = match op.answer {
        Answer::Json(status, schema, description) => (
            status,
            json!({"description": description, "content": {JSON: {"schema": schema(answers).to_value()}}}),
        ),
        Answer::Text(status, media, description) => (
            status,
            json!({"description": description, "content": {media: {"schema": {"type": "string"}}}}),
        ),
        Answer::Empty(status, description) => (status, json!({"description": description})),
    };
    responses.insert(status.to_string(), answer);
    for status in problems(route, op.conflicts) {
        responses.insert(status.to_string(), problem_response(status));
    }
    o.insert("responses".into(), Value::Object(responses));
    Value::Object(o)
}

/// The path's parameters: `{n}` a step's number, `{id}` a run's id (as [`super::parse`]
/// reads them).
fn parameters(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|segment| match segment {
            "{n}" => Some(json!({
                "name": "n", "in": "path", "required": true,
                "description": "The step's number, from 1.",
                "schema": {"type": "integer", "minimum": 1, "maximum": u32::MAX},
            })),
            "{id}" => Some(json!({
                "name": "id", "in": "path", "required": true,
                "description": "The run's id, as POST /v1/runs gave it.",
                "schema": {"type": "string", "pattern": format!("^[A-Za-z0-9._:-]{{1,{}}}$", super::RUN_ID_MAX)},
            })),
            _ => None,
        })
        .collect()
}

/// The statuses of the problems a route may answer.
fn problems(route: &Route, conflicts: bool) -> Vec<u16> {
    let mut statuses = Vec::new();
    if matches!(route.body, Body::Json(_)) {
        statuses.extend([400, 408, 413, 415, 422]);
    }
    if !route.open {
        statuses.push(401);
    }
    if route.path.contains('{') {
        statuses.push(404);
    }
    if conflicts {
        statuses.push(409);
    }
    if !route.open {
        statuses.push(503);
    }
    statuses.sort_unstable();
    statuses
}

fn problem_response(status: u16) -> Value {
    let titles: Vec<_> = ProblemKind::ALL
        .iter()
        .filter(|k| k.status() == status)
        .map(|k| format!("{} (`{}`)", k.title(), k.type_uri()))
        .collect();
    let mut response = json!({
        "description": titles.join("; "),
        "content": {crate::problem::PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/ProblemDocument"}}},
    });
    if status == 401 {
        response["headers"] = json!({"WWW-Authenticate": {
            "description": "`Bearer realm=\"upfbench\"`, with `error=\"invalid_token\"` for a wrong token (RFC 6750 §3).",
            "schema": {"type": "string"},
        }});
    }
    response
}

#[cfg(test)]
mod tests;
