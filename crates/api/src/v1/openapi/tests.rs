use std::path::Path;

use serde_json::Value;

use super::*;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn the_committed_document_is_what_the_routes_and_types_make() {
    let committed = std::fs::read_to_string(repo().join(PATH)).unwrap_or_default();
    let made = text();
    let line = committed
        .lines()
        .zip(made.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| committed.lines().count().min(made.lines().count()));
    assert!(
        committed == made,
        "{PATH} is out of date from line {}; run `cargo run -p upfbench-xtask -- openapi` \
         and commit it",
        line + 1
    );
}

#[test]
fn every_route_of_the_table_is_an_operation_and_nothing_else_is() {
    let doc = document();
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let upper = method.to_ascii_uppercase();
            assert!(
                ROUTES.iter().any(|r| r.path == path && r.method == upper),
                "{upper} {path} is in the document, not in ROUTES"
            );
            operations += 1;
        }
    }
    assert_eq!(operations, ROUTES.len());
    let mut ids: Vec<_> = ROUTES.iter().map(|r| operation(r.name).id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), ROUTES.len(), "an operationId twice");
    // Only /health is open; the bodies' routes take JSON and say their limit.
    assert_eq!(
        doc["paths"]["/health"]["get"]["security"],
        serde_json::json!([])
    );
    assert!(doc["paths"]["/v1/status"]["get"].get("security").is_none());
    let segment = &doc["paths"]["/v1/segment"]["put"];
    assert_eq!(
        segment["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Segment"
    );
    assert!(segment["responses"]["413"].is_object());
    assert!(
        segment["requestBody"]["description"]
            .as_str()
            .unwrap()
            .contains(&super::super::SEGMENT_LIMIT.to_string())
    );
}

fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r);
            }
            m.values().for_each(|v| refs(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[test]
fn every_reference_resolves_and_every_component_is_used() {
    let doc = document();
    let mut found = Vec::new();
    refs(&doc, &mut found);
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for r in &found {
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{r}: not into the components"));
        assert!(schemas.contains_key(name), "{r} resolves to nothing");
    }
    for name in schemas.keys() {
        let r = format!("#/components/schemas/{name}");
        assert!(found.contains(&r.as_str()), "{name} is never referenced");
    }
    // What the exact merge needs is there (docs/scale.md §3).
    let stream = &schemas["StreamFigures"]["properties"];
    for field in ["seq", "latency", "jitter_mean_ns", "jitter_flows"] {
        assert!(stream.get(field).is_some(), "StreamFigures.{field}");
    }
    let histogram = &schemas["LatencyHistogram"]["required"];
    for field in ["hdr", "count", "sum_ns", "negative", "over_range"] {
        assert!(
            histogram.as_array().unwrap().contains(&Value::from(field)),
            "LatencyHistogram.{field}"
        );
    }
}

#[test]
fn a_type_on_both_sides_of_the_wire_has_one_schema() {
    // The document keeps one schema per name: a request type that is also in an answer must
    // read the same whether the server reads it or writes it.
    let doc = document();
    let mut requests = generator(Contract::Request);
    let mut answers = generator(Contract::Answer);
    for route in ROUTES {
        let _ = path_item(route, &mut requests, &mut answers);
    }
    let mut requests = Value::Object(requests.take_definitions(true));
    let mut answers = Value::Object(answers.take_definitions(true));
    unwrap_descriptions(&mut requests);
    unwrap_descriptions(&mut answers);
    let (requests, answers) = (requests.as_object().unwrap(), answers.as_object().unwrap());
    let mut shared = 0;
    for (name, schema) in requests {
        if let Some(other) = answers.get(name) {
            assert_eq!(
                schema, other,
                "{name} differs between a request and an answer"
            );
            shared += 1;
        }
        assert_eq!(&doc["components"]["schemas"][name], schema, "{name}");
    }
    assert!(shared >= 1, "UeBlock is in a request and an answer");
}
