//! The four kinds of file, and how to tell them apart by their content.

use std::fmt;

use serde::Deserialize;

use super::source;

/// The four kinds of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A [`System`](super::System) file.
    System,
    /// A [`Profile`](super::Profile).
    Profile,
    /// A [`Reflector`](super::Reflector) file.
    Reflector,
    /// A [`Cluster`](super::Cluster) file.
    Cluster,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::System => "system",
            FileKind::Profile => "profile",
            FileKind::Reflector => "reflector",
            FileKind::Cluster => "cluster",
        })
    }
}

const PROFILE_KEYS: &[&str] = &[
    "name",
    "description",
    "sessions",
    "streams",
    "duration",
    "warmup",
    "drain",
    "tx_mode",
    "max_burst",
    "catch_up",
    "reorder_window",
    "latency",
    "sweep",
];
const REFLECTOR_KEYS: &[&str] = &[
    "mode",
    "impairments",
    "error_indications_per_s",
    "pfcp.first_teid",
    "pfcp.first_seid",
];
const SYSTEM_KEYS: &[&str] = &[
    "reports",
    "pfcp.t1",
    "pfcp.n1",
    "pfcp.window",
    "pfcp.release_wait",
    "n3.mtu",
    "n3.speed",
    "n6.mtu",
    "n6.speed",
];

/// What kind of file `text` is, from its content:
/// - a `kind:` field says it;
/// - a cluster file has `agents` or `statefulset` (no other kind has them);
/// - otherwise a profile has any of `name`, `sessions`, `streams`, ... at the top;
/// - a reflector file has `mode`, `impairments`, `error_indications_per_s` or
///   `pfcp.first_teid`/`first_seid`;
/// - a system file has `reports`, `pfcp.t1`/`n1`/`window`/`release_wait`, or a port's `mtu` or
///   `speed`;
/// - with none of those, ports that both have a `peer` make a system file (the reflector's N3
///   port has none), and other ports a reflector file.
///
/// `None` when the text is not YAML, or matches no kind or several.
pub fn detect_kind(text: &str) -> Option<FileKind> {
    let map = source::source_map(text, "").ok()?;
    if map.has("kind") {
        return match map.scalar("kind")? {
            "system" => Some(FileKind::System),
            "profile" => Some(FileKind::Profile),
            "reflector" => Some(FileKind::Reflector),
            "cluster" => Some(FileKind::Cluster),
            _ => None,
        };
    }
    if map.has("agents") || map.has("statefulset") {
        return Some(FileKind::Cluster);
    }
    let any = |keys: &[&str]| keys.iter().any(|k| map.has(k));
    let evidence = [
        (FileKind::Profile, any(PROFILE_KEYS)),
        (FileKind::Reflector, any(REFLECTOR_KEYS)),
        (FileKind::System, any(SYSTEM_KEYS)),
    ];
    let mut found = evidence.iter().filter(|(_, yes)| *yes).map(|(k, _)| *k);
    match (found.next(), found.next()) {
        (Some(kind), None) => Some(kind),
        (Some(_), Some(_)) => None,
        (None, _) if map.has("n3") || map.has("n6") => {
            if map.has("n3.peer") && map.has("n6.peer") {
                Some(FileKind::System)
            } else {
                Some(FileKind::Reflector)
            }
        }
        (None, _) => None,
    }
}
