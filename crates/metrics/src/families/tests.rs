//! The families' names, labels and documentation.

use super::*;

/// Labels a family may have: bounded sets, none per UE, flow or worker (a QoS flow's QFI is
/// one of 64, not one per session).
const BOUNDED: [&str; 11] = [
    "direction",
    "step",
    "port",
    "kind",
    "cause",
    "phase",
    "role",
    "version",
    "name",
    "qfi",
    "verdict",
];

#[test]
fn names_follow_the_prometheus_conventions() {
    for f in GENERATOR.iter().chain(REFLECTOR) {
        let n = f.name;
        assert!(n.starts_with("upfbench_"), "{n}: the prefix");
        assert!(
            n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{n}: snake case"
        );
        // The encoder adds `_total`; a name with it would come out as `_total_total`.
        assert!(!n.ends_with("_total"), "{n}");
        // Base units only: seconds and bytes, never ms, us, ns, bits or kilo-anything.
        for unit in [
            "_ms", "_us", "_ns", "_millis", "_micro", "_bits", "_kb", "_mb",
        ] {
            assert!(!n.contains(unit), "{n}: not a base unit");
        }
        let a_time = ["latency", "behind", "late_seconds", "slipped"];
        if a_time.iter().any(|t| n.contains(t)) {
            assert!(n.ends_with("_seconds"), "{n}: a time is in seconds");
        }
        if f.kind == Histogram {
            assert!(n.ends_with("_seconds"), "{n}: this histogram is of times");
        }
        if n.ends_with("_info") {
            assert_eq!(f.kind, Gauge, "{n}");
        }
        assert!(f.help.ends_with('.'), "{n}: help is a sentence");
        for l in f.labels {
            assert!(BOUNDED.contains(l), "{n}: label {l} is not a bounded one");
        }
    }
}

#[test]
fn docs_operations_lists_every_family() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/operations.md");
    let docs = std::fs::read_to_string(path).expect("docs/operations.md");
    for f in GENERATOR.iter().chain(REFLECTOR) {
        let shown = match f.kind {
            Counter => format!("| `{}_total` |", f.name),
            Gauge | Histogram => format!("| `{}` |", f.name),
        };
        assert!(
            docs.contains(&shown),
            "docs/operations.md does not list {shown}"
        );
    }
}

#[test]
fn no_two_families_share_a_name_and_each_role_has_the_common_ones() {
    let mut seen = std::collections::BTreeSet::new();
    for f in GENERATOR.iter().chain(&REFLECTOR[2..]) {
        assert!(seen.insert(f.name), "{} twice", f.name);
    }
    for role in [Role::Generator, Role::Reflector] {
        assert_eq!(of(role)[..2], [&BUILD_INFO, &PHASE]);
    }
    let names = sample_names();
    for n in [
        "upfbench_received_packets_total",
        "upfbench_latency_seconds_bucket",
        "upfbench_latency_seconds_sum",
        "upfbench_latency_seconds_count",
        "upfbench_phase",
        "upfbench_reflector_dropped_packets_total",
    ] {
        assert!(names.contains(n), "{n} in {names:?}");
    }
}
