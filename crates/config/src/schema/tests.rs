//! The schemas and the reference against the types: the committed files are what the types
//! make, every default in a schema reads back as the type's, every optional field has one,
//! and the forms' patterns accept what the parsers read and refuse what they refuse.
#![allow(clippy::print_stdout)]

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::reference::{Step, fields, path_text};
use super::*;
use crate::source::options;
use crate::units::{parse_bit_rate, parse_duration, parse_mac, parse_n4_address};
use crate::units::{parse_percent, parse_pps};
use crate::{
    Arp, CapacitySection, Cores, Device, Eal, Impairments, IpPrefix, Latency, N4Impairments, Pfcp,
    Qer, Rate, ReflectorPfcp, SearchSection, Sessions, Sweep, Window, system_from_str,
};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_committed_schemas_and_reference_pages_are_what_the_types_make() {
    let files = generated_files();
    assert_eq!(files.len(), 8, "four schemas, four pages");
    let mut stale = Vec::new();
    for file in &files {
        let committed = std::fs::read_to_string(repo().join(&file.path)).unwrap_or_default();
        if committed != file.text {
            let line = committed
                .lines()
                .zip(file.text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| committed.lines().count().min(file.text.lines().count()));
            stale.push(format!("{} (from line {})", file.path, line + 1));
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {}; run `cargo run -p upfbench-xtask -- config-reference` and commit \
         the files",
        stale.join(", ")
    );
    println!("{} generated files are as committed", files.len());
}

/// A file of each kind with every section given, and in each what its fields need: the field
/// under test is taken out of it, or written as the schema's default.
pub(super) fn scaffold(kind: FileKind) -> Value {
    match kind {
        FileKind::System => json!({
            "eal": {}, "cores": {}, "arp": {}, "pfcp": {"window": {}},
            "n3": {"device": "net_null0", "address": "192.168.13.131/24", "peer": "192.168.13.151",
                   "vlan": {"id": 13}, "qinq": {"id": 100}},
            "n6": {"device": "net_null1", "address": "192.168.16.152/24", "peer": "192.168.16.151",
                   "vlan": {"id": 16}, "qinq": {"id": 100}},
            "pairs": [{"name": "a", "workers": [2], "weight": 1,
                "n3": {"device": "net_null2", "address": "192.168.23.131/24",
                       "peer": "192.168.23.151", "vlan": {"id": 13}, "qinq": {"id": 100}},
                "n6": {"device": "net_null3", "address": "192.168.26.152/24",
                       "peer": "192.168.26.151", "vlan": {"id": 16}, "qinq": {"id": 100}}}],
        }),
        FileKind::Profile => json!({
            "name": "x",
            "sessions": {
                "uplink_teid": {"first": 7}, "downlink_teid": {"first": 8}, "qer": {}, "urr": {},
                "qos_flows": [{"qfi": 1, "mbr": {}, "gbr": {}}],
            },
            "streams": [{
                "name": "s", "direction": "both", "rate": "1kpps", "payload": 10,
                "ues": {"count": 1},
            }],
            "latency": {}, "sweep": {}, "capacity": {}, "churn": {},
            "search": {"goals": [{"name": "G", "latency": {"percentile": 99, "max": "1ms"}}]},
            "mobility": {
                "handovers": {},
                "target": {"address": "192.168.13.132", "downlink_teid": {"first": 100}},
            },
        }),
        FileKind::Cluster => json!({
            "agents": [{"name": "a", "url": "http://127.0.0.1:9801"}],
            "pfcp": {"local": "127.0.0.1", "peer": "127.0.0.2"},
        }),
        FileKind::Reflector => json!({
            "eal": {}, "cores": {}, "arp": {}, "pfcp": {}, "impairments": {"n4": {}, "qer": {}},
            "n3": {"device": "net_null0", "address": "192.168.13.151/24",
                   "vlan": {"id": 13}, "qinq": {"id": 100}},
            "n6": {"device": "net_null1", "address": "192.168.16.151/24",
                   "vlan": {"id": 16}, "qinq": {"id": 100}},
            "pairs": [{"name": "a", "workers": [2],
                "n3": {"device": "net_null2", "address": "192.168.23.151/24",
                       "vlan": {"id": 13}, "qinq": {"id": 100}},
                "n6": {"device": "net_null3", "address": "192.168.26.151/24",
                       "vlan": {"id": 16}, "qinq": {"id": 100}}}],
        }),
    }
}

/// The value at `path` in `document` (the first item of a list), and its parent mapping.
pub(super) fn parent_mut<'a>(
    document: &'a mut Value,
    path: &[Step],
) -> Result<&'a mut Map<String, Value>, String> {
    let (last, up) = path.split_last().ok_or("an empty path")?;
    let mut value = document;
    for step in up {
        value = match step {
            Step::Key(k) => value.get_mut(k),
            Step::Item => value.get_mut(0),
        }
        .ok_or_else(|| format!("the scaffold has nothing at {}", path_text(path)))?;
    }
    match (last, value) {
        (Step::Key(_), Value::Object(map)) => Ok(map),
        _ => Err(format!(
            "the scaffold has no mapping for {}",
            path_text(path)
        )),
    }
}

/// Reads a document as a file of type `T` would be read (as YAML: JSON is YAML).
fn read<T: DeserializeOwned>(document: &Value) -> Result<T, String> {
    serde_saphyr::from_str_with_options(&document.to_string(), options()).map_err(|e| e.to_string())
}

fn defaults_read_back<T: DeserializeOwned + PartialEq + std::fmt::Debug>(kind: FileKind) -> usize {
    let schema = schema(kind);
    let mut checked = 0;
    for row in fields(kind, &schema).rows {
        let Some(default) = row.default_value else {
            continue;
        };
        let Some(Step::Key(key)) = row.path.last() else {
            continue;
        };
        let path = path_text(&row.path);
        let mut left_out = scaffold(kind);
        let mut written = scaffold(kind);
        parent_mut(&mut left_out, &row.path)
            .unwrap_or_else(|e| panic!("{kind}: {e}"))
            .remove(key);
        parent_mut(&mut written, &row.path)
            .unwrap_or_else(|e| panic!("{kind}: {e}"))
            .insert(key.clone(), default.clone());
        let left_out: T = read(&left_out).unwrap_or_else(|e| panic!("{kind} without {path}: {e}"));
        let written: T = read(&written).unwrap_or_else(|e| {
            panic!("{kind}: {path}: the schema's default {default} reads as {e}")
        });
        assert_eq!(
            written, left_out,
            "{kind}: {path}: the schema's default {default} is not what leaving it out gives"
        );
        checked += 1;
    }
    checked
}

#[test]
fn every_default_in_the_schemas_reads_back_as_the_field_left_out() {
    let counts = [
        defaults_read_back::<System>(FileKind::System),
        defaults_read_back::<Profile>(FileKind::Profile),
        defaults_read_back::<Reflector>(FileKind::Reflector),
    ];
    let cluster = defaults_read_back::<Cluster>(FileKind::Cluster);
    println!(
        "defaults read back: system {}, profile {}, reflector {}, cluster {cluster}",
        counts[0], counts[1], counts[2]
    );
    assert!(counts.iter().all(|&n| n > 10), "{counts:?}");
    // Its few fields with defaults: start_lead, agent_timeout, reports, an agent's token_file
    // and weight, pfcp's mode, local and peer.
    assert!(cluster >= 8, "cluster: {cluster}");
}

#[test]
fn every_field_is_required_or_has_its_default_in_the_schema() {
    for kind in KINDS {
        let schema = schema(kind);
        let fields = fields(kind, &schema);
        let missing: Vec<String> = fields
            .rows
            .iter()
            .filter(|r| r.default != "required" && r.default_value.is_none() && !r.section)
            .map(|r| path_text(&r.path))
            .collect();
        assert!(
            missing.is_empty(),
            "{kind}: no default in the schema for {missing:?}: give the field's type \
             `Serialize` (derived, or `serialize` beside its `with` adapter)"
        );
        assert!(
            fields.unordered.is_empty(),
            "{kind}: serde did not tell the order of {:?}",
            fields.unordered
        );
        let no_description: Vec<String> = fields
            .rows
            .iter()
            .filter(|r| r.description.trim().is_empty())
            .map(|r| path_text(&r.path))
            .collect();
        assert!(
            no_description.is_empty(),
            "{kind}: no doc comment on {no_description:?}"
        );
    }
}

#[test]
fn the_sections_defaults_are_what_an_empty_section_reads_as() {
    fn empty<T: DeserializeOwned>() -> T {
        serde_saphyr::from_str_with_options("{}", options()).expect("an empty section reads")
    }
    assert_eq!(empty::<Eal>(), Eal::default());
    assert_eq!(empty::<Cores>(), Cores::default());
    assert_eq!(empty::<Arp>(), Arp::default());
    assert_eq!(empty::<Pfcp>(), Pfcp::default());
    assert_eq!(empty::<Window>(), Window::default());
    assert_eq!(empty::<Sessions>(), Sessions::default());
    assert_eq!(empty::<Qer>(), Qer::default());
    assert_eq!(empty::<Latency>(), Latency::default());
    assert_eq!(empty::<Sweep>(), Sweep::default());
    assert_eq!(empty::<SearchSection>(), SearchSection::default());
    assert_eq!(empty::<CapacitySection>(), CapacitySection::default());
    assert_eq!(empty::<ReflectorPfcp>(), ReflectorPfcp::default());
    assert_eq!(empty::<Impairments>(), Impairments::default());
    assert_eq!(empty::<N4Impairments>(), N4Impairments::default());
}

/// A form's pattern, from the profile's, system file's or reflector file's definitions.
fn pattern(form: &str) -> Regex {
    KINDS
        .iter()
        .find_map(|&kind| {
            schema(kind)["$defs"][form]["pattern"]
                .as_str()
                .map(str::to_owned)
        })
        .map(|p| Regex::new(&p).unwrap_or_else(|e| panic!("{form}: {e}")))
        .unwrap_or_else(|| panic!("no form {form}"))
}

/// The pattern of `form` accepts `accepted`, which `parse` reads, and refuses `refused`, which
/// `parse` refuses too.
fn agree(form: &str, parse: impl Fn(&str) -> bool, accepted: &[&str], refused: &[&str]) {
    let pattern = pattern(form);
    for text in accepted {
        assert!(
            pattern.is_match(text),
            "{form}: the pattern refuses {text:?}"
        );
        assert!(parse(text), "{form}: the parser refuses {text:?}");
    }
    for text in refused {
        assert!(
            !pattern.is_match(text),
            "{form}: the pattern accepts {text:?}"
        );
        assert!(!parse(text), "{form}: the parser reads {text:?}");
    }
}

#[test]
fn the_forms_patterns_accept_what_the_parsers_read() {
    quantity_forms_agree();
    address_forms_agree();
    device_forms_agree();
}

/// Durations, percentages, rates, packet rates and bit rates.
fn quantity_forms_agree() {
    agree(
        "Duration",
        |t| parse_duration(t).is_ok(),
        &[
            "10s", "500ms", "100us", "100µs", "250ns", "2min", "1h", "1.5s", "0s", "1_000ms", "5 s",
        ],
        &[
            "10", "s", "10 sec", "10S", "1e3s", "", "1.2.3s", "-1s", "fast",
        ],
    );
    agree(
        "Percent",
        |t| parse_percent(t).is_ok(),
        &["10%", "2.5%", "0%", "100 %"],
        &["10", "-1%", "%", "10 pct"],
    );
    agree(
        "Rate",
        |t| t.parse::<Rate>().is_ok(),
        &[
            "100000pps",
            "500kpps",
            "1.5Mpps",
            "1Kpps",
            "10Gbps L1",
            "2 Gbps L2",
            "100Mbit/s L2",
            "50%",
        ],
        &[
            "10Gbps",
            "10Gbps L3",
            "10kpps L1",
            "fast",
            "100000",
            "10 Gbps",
        ],
    );
    // A negative rate reads, and the checks refuse it at its place; the pattern refuses it.
    assert!(!pattern("Rate").is_match("-5pps") && "-5pps".parse::<Rate>().is_ok());
    agree(
        "PacketRate",
        |t| parse_pps(t).is_ok(),
        &["1Mpps", "100kpps", "10 pps"],
        &["1Gbps", "1Mpps L1", "50%", "1M"],
    );
    agree(
        "BitRate",
        |t| parse_bit_rate(t).is_ok(),
        &["100Mbps", "1.5Gbps", "10Gbit/s", "64kbps", "1bps"],
        &["10Gbps L1", "10G", "10 gbps", "1Mpps"],
    );
}

/// MAC and IP addresses, IPv4 addresses, prefixes and N4 addresses.
fn address_forms_agree() {
    agree(
        "MacAddress",
        |t| parse_mac(t).is_ok(),
        &[
            "02:00:00:00:00:01",
            "02-00-00-00-00-ff",
            "AA:BB:CC:DD:EE:FF",
        ],
        &[
            "02:00:00:00:00",
            "02:00:00:00:00:zz",
            "0200.0000.0001",
            "02:00:00:00:00:01:02",
        ],
    );
    agree(
        "IpAddress",
        |t| t.parse::<IpAddr>().is_ok(),
        &["192.168.13.151", "10.0.0.1", "::1", "2001:db8::1"],
        &[
            "256.1.1.1",
            "192.168.13",
            "upf.local",
            "192.168.13.151/24",
            "01.2.3.4",
        ],
    );
    agree(
        "Ipv4Address",
        |t| t.parse::<std::net::Ipv4Addr>().is_ok(),
        &["192.168.13.132"],
        &["::1", "192.168.13.132/24", "gnb"],
    );
    agree(
        "IpPrefix",
        |t| t.parse::<IpPrefix>().is_ok(),
        &[
            "192.168.13.131/24",
            "10.45.0.0/16",
            "0.0.0.0/0",
            "2001:db8::/48",
            "2001:db8::1/128",
        ],
        &[
            "10.45.0.0",
            "10.45.0.0/33",
            "10.45.0/16",
            "2001:db8::/129",
            "10.45.0.0/x",
        ],
    );
    agree(
        "N4Address",
        |t| parse_n4_address(t).is_ok(),
        &[
            "192.168.14.111",
            "192.168.14.111:8806",
            "127.0.0.2:8805",
            "::1",
            "[::1]:8805",
        ],
        &[
            "upf.local",
            "192.168.14.111:",
            "192.168.14.111:port",
            "192.168.14.111/24",
        ],
    );
}

/// DPDK devices and their devargs (read as the system file reads them).
fn device_forms_agree() {
    agree(
        "Device",
        |t| t.parse::<Device>().is_ok(),
        &["net_memif0", "net_af_packet1", "0000:3b:00.0", "3b:00.1"],
        &[
            "eth0",
            "net_",
            "net_memif0,role=client",
            "0000:3b:00.9",
            "3b:0.0",
            "NET_memif0",
        ],
    );
    let devargs_read = |devargs: &str| {
        let text = format!(
            "n3: {{device: net_null0, devargs: {}, address: 192.168.13.131/24, peer: 192.168.13.151}}\n\
             n6: {{device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n",
            serde_json::to_string(devargs).expect("a string")
        );
        match system_from_str(&text, "s.yaml") {
            Ok(_) => true,
            Err(e) => !e.diagnostics().iter().any(|d| d.field == "n3.devargs"),
        }
    };
    agree(
        "Devargs",
        devargs_read,
        &[
            "iface=n3",
            "role=client,socket=/tmp/x.sock",
            "a=",
            "a=b=c",
            " iface=n3,qpairs=1",
        ],
        &["oops", "", "a=b,", ",a=b", "=b", "iface=n3,,x=1"],
    );
}

/// Whether `value` has the forms `schema` asks for: patterns, constants, types, items and
/// properties, alternatives, references into `root`.
fn has_forms(root: &Value, schema: &Value, value: &Value) -> bool {
    if let Some(name) = schema.get("$ref").and_then(Value::as_str) {
        let name = name.trim_start_matches("#/$defs/");
        if !has_forms(root, &root["$defs"][name], value) {
            return false;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array)
            && !alternatives.iter().any(|a| has_forms(root, a, value))
        {
            return false;
        }
    }
    if schema.get("const").is_some_and(|c| c != value) {
        return false;
    }
    if let Some(types) = schema.get("type") {
        let name = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let ok = |t: &Value| t == name || (t == "number" && name == "integer");
        let typed = match types {
            Value::Array(ts) => ts.iter().any(ok),
            t => ok(t),
        };
        if !typed {
            return false;
        }
    }
    if let (Some(p), Value::String(text)) = (schema.get("pattern").and_then(Value::as_str), value)
        && !Regex::new(p).expect("a pattern").is_match(text)
    {
        return false;
    }
    if let (Some(items), Value::Array(values)) = (schema.get("items"), value)
        && !values.iter().all(|v| has_forms(root, items, v))
    {
        return false;
    }
    if let (Some(Value::Object(properties)), Value::Object(values)) =
        (schema.get("properties"), value)
        && !values
            .iter()
            .all(|(k, v)| properties.get(k).is_some_and(|p| has_forms(root, p, v)))
    {
        return false;
    }
    true
}

#[test]
fn every_default_has_its_fields_form() {
    let mut checked = 0;
    for kind in KINDS {
        let schema = schema(kind);
        for row in fields(kind, &schema).rows {
            let Some(default) = &row.default_value else {
                continue;
            };
            // The field's own schema, found again by its path.
            let mut field = &schema;
            for step in &row.path {
                field = match step {
                    Step::Key(k) => find_property(&schema, field, k),
                    Step::Item => find_items(&schema, field),
                };
            }
            assert!(
                has_forms(&schema, field, default),
                "{kind}: {}: the default {default} is not of the field's form",
                path_text(&row.path)
            );
            checked += 1;
        }
    }
    println!("{checked} defaults have their fields' forms");
    assert!(checked > 100);
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(name) => &root["$defs"][name.trim_start_matches("#/$defs/")],
        None => schema,
    }
}

/// The schema of property `key` of `schema`, looking through references and alternatives.
fn find_property<'a>(root: &'a Value, schema: &'a Value, key: &str) -> &'a Value {
    let schema = resolve(root, schema);
    if let Some(p) = schema.get("properties").and_then(|p| p.get(key)) {
        return p;
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(k).and_then(Value::as_array))
        .flatten()
        .map(|a| find_property(root, a, key))
        .find(|p| !p.is_null())
        .unwrap_or(&Value::Null)
}

fn find_items<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let schema = resolve(root, schema);
    schema.get("items").unwrap_or(&Value::Null)
}

#[test]
fn a_kind_s_schema_takes_its_own_kind_only() {
    for kind in KINDS {
        let schema = schema(kind);
        let field = &schema["properties"]["kind"];
        assert!(has_forms(&schema, field, &json!(kind.to_string())));
        assert!(has_forms(&schema, field, &Value::Null));
        for other in KINDS.iter().filter(|&&k| k != kind) {
            assert!(
                !has_forms(&schema, field, &json!(other.to_string())),
                "{kind}: {other}"
            );
        }
    }
}
