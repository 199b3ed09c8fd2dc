//! Configuration: the system file (the machine and its ports), the profile (the traffic), the
//! reflector file and the cluster file (a coordinator's agents), read from YAML and checked completely before anything is touched.
//!
//! Every problem is reported at its place: `profiles/x.yaml:12:11: streams[1].rate: "10 Gbps"
//! needs L1 or L2 ...`. A file that does not parse (YAML syntax, an unknown field, a value of
//! the wrong type) stops at its first error; a file that parses is checked as a whole and every
//! problem found is reported. The types' documentation is the reference: [`schema`] makes the
//! JSON Schemas (`schema/*.schema.json`) and the reference pages (`docs/reference/*.md`) from
//! the types, their doc comments and their defaults.
//!
//! ```
//! use upfbench_config as config;
//!
//! let profile = config::profile_from_str(
//!     "name: one\nstreams:\n  - {name: ul, direction: uplink, rate: 1kpps, payload: 10}\n",
//!     "one.yaml",
//! )?;
//! assert_eq!(profile.sessions.count, 1);
//! assert_eq!(profile.sessions.first_ue_address().to_string(), "10.45.0.2");
//! # Ok::<(), config::ConfigError>(())
//! ```
#![forbid(unsafe_code)]

mod cluster;
mod cross;
pub mod devargs;
mod error;
mod field;
pub mod frame;
mod identifiers;
mod issues;
mod kind;
mod load;
mod multiplier;
mod n4_impairments;
pub mod overrides;
mod profile;
mod qer_impairment;
mod reflector;
pub mod schema;
pub mod segment;
mod serde_forms;
mod source;
mod system;
mod units;

use std::path::Path;

pub use cluster::{Cluster, ClusterAgent, ClusterPfcp, PfcpMode, StatefulSet, TOKEN_MIN_BYTES};
pub use error::{ConfigError, Diagnostic, NotIpv4, ipv4};
pub use n4_impairments::N4Impairments;
pub use profile::{
    Arrivals, Handovers, MAX_HANDOVER_RATE, Mobility, MovingUes, QosGate, TargetGnb,
};
pub use profile::{
    CapacitySection, Direction, DirectionSet, Family, FlowRates, GoalSection, Latency,
    LatencyBoundSection, MAX_LATENCY, MAX_PPS, MAX_QOS_BPS, PdnType, PercentText, Profile, Qer,
    QosFlow, SearchSection, Sessions, Spread, StrategyName, Stream, Sweep, TeidAllocation,
    TeidRange, TxMode, UeSelection, Urr,
};
pub use profile::{Churn, MAX_CHURN_RATE, MIN_PROBE_INTERVAL};
pub use qer_impairment::{Gates, Policing, QerImpairment};
pub use reflector::{
    Impairments, PortName, ReflectMode, Reflector, ReflectorPair, ReflectorPfcp, ReflectorPort,
};
pub use system::{
    Arp, Cores, Device, Eal, OnUpfLoss, OnUpfRestart, Pair, Pfcp, Port, System, Vlan, VlanOffload,
    Window, ue_blocks,
};
pub use system::{Host, ThisProcess};
pub use units::{IpPrefix, Ipv4Prefix, PFCP_PORT, Rate, parse_duration};
pub use upfbench_net::IpFamily;

use issues::{Check, Issues};
pub use kind::{FileKind, detect_kind};
use load::load;
pub use multiplier::{Multiplier, MultiplierKind};
use source::SourceMap;

/// A file of any kind, checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Config {
    /// A system file.
    System(System),
    /// A profile.
    Profile(Profile),
    /// A reflector file.
    Reflector(Reflector),
    /// A cluster file (a coordinator's agents).
    Cluster(Cluster),
}

impl Config {
    /// Its kind.
    pub fn kind(&self) -> FileKind {
        match self {
            Config::System(_) => FileKind::System,
            Config::Profile(_) => FileKind::Profile,
            Config::Reflector(_) => FileKind::Reflector,
            Config::Cluster(_) => FileKind::Cluster,
        }
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })
}

fn name_of(path: &Path) -> String {
    path.display().to_string()
}

/// Reads and checks a system file.
pub fn load_system(path: impl AsRef<Path>) -> Result<System, ConfigError> {
    let path = path.as_ref();
    system_from_str(&read(path)?, &name_of(path))
}

/// Reads and checks a profile.
pub fn load_profile(path: impl AsRef<Path>) -> Result<Profile, ConfigError> {
    let path = path.as_ref();
    profile_from_str(&read(path)?, &name_of(path))
}

/// Reads and checks a reflector file.
pub fn load_reflector(path: impl AsRef<Path>) -> Result<Reflector, ConfigError> {
    let path = path.as_ref();
    reflector_from_str(&read(path)?, &name_of(path))
}

/// Reads and checks a cluster file.
pub fn load_cluster(path: impl AsRef<Path>) -> Result<Cluster, ConfigError> {
    let path = path.as_ref();
    cluster_from_str(&read(path)?, &name_of(path))
}

/// Checks a cluster file's text; `name` names it in diagnostics.
pub fn cluster_from_str(text: &str, name: &str) -> Result<Cluster, ConfigError> {
    load::<Cluster>(text, name).map(|(v, _)| v.expanded())
}

/// Checks a system file's text; `name` names it in diagnostics.
pub fn system_from_str(text: &str, name: &str) -> Result<System, ConfigError> {
    load(text, name).map(|(v, _)| v)
}

/// [`system_from_str`] with `cores: auto` and `device: {env: NAME}` resolved on `host` (the
/// other loaders resolve them on [`ThisProcess`]).
pub fn system_from_str_on(text: &str, name: &str, host: &dyn Host) -> Result<System, ConfigError> {
    load::load_on(text, name, host).map(|(v, _)| v)
}

/// [`reflector_from_str`] with `cores: auto` and `device: {env: NAME}` resolved on `host`.
pub fn reflector_from_str_on(
    text: &str,
    name: &str,
    host: &dyn Host,
) -> Result<Reflector, ConfigError> {
    load::load_on(text, name, host).map(|(v, _)| v)
}

/// Checks a profile's text; `name` names it in diagnostics.
pub fn profile_from_str(text: &str, name: &str) -> Result<Profile, ConfigError> {
    load(text, name).map(|(v, _)| v)
}

/// A profile's text, checked, and as JSON of its file's schema: what a coordinator hands its
/// agents in their segments (each checks it against its own system file).
pub fn profile_and_json(
    text: &str,
    name: &str,
) -> Result<(Profile, serde_json::Value), ConfigError> {
    let (profile, map) = load::<Profile>(text, name)?;
    let json = serde_saphyr::from_str_with_options(text, source::options())
        .map_err(|e| ConfigError::invalid(vec![source::serde_diagnostic(&e, &map, name)]))?;
    Ok((profile, json))
}

/// Checks a reflector file's text; `name` names it in diagnostics.
pub fn reflector_from_str(text: &str, name: &str) -> Result<Reflector, ConfigError> {
    load(text, name).map(|(v, _)| v)
}

/// Reads and checks the two files of a run, each alone and then the profile against the
/// system (UE pool against the ports' subnets, payloads against MTUs, rates against line
/// rates). All diagnostics of both files are reported together.
pub fn load_run(
    system: impl AsRef<Path>,
    profile: impl AsRef<Path>,
) -> Result<(System, Profile), ConfigError> {
    load_sweep(system, profile, None)
}

/// [`load_run`] for a sweep whose payloads the command line gives (`--payloads`): they replace
/// the profile's `sweep.payloads` and pass the same checks (the tag fits, no size twice, the
/// packets fit the ports' MTUs), reported against the option.
pub fn load_sweep(
    system: impl AsRef<Path>,
    profile: impl AsRef<Path>,
    payloads: Option<&[u16]>,
) -> Result<(System, Profile), ConfigError> {
    let (system, profile) = (system.as_ref(), profile.as_ref());
    run_from_texts(
        &read(system)?,
        &name_of(system),
        &read(profile)?,
        &name_of(profile),
        payloads,
    )
}

/// [`load_run`] on texts.
pub fn run_from_str(
    system_text: &str,
    system_name: &str,
    profile_text: &str,
    profile_name: &str,
) -> Result<(System, Profile), ConfigError> {
    run_from_texts(system_text, system_name, profile_text, profile_name, None)
}

/// [`load_sweep`] on texts.
pub fn sweep_from_str(
    system_text: &str,
    system_name: &str,
    profile_text: &str,
    profile_name: &str,
    payloads: Option<&[u16]>,
) -> Result<(System, Profile), ConfigError> {
    run_from_texts(
        system_text,
        system_name,
        profile_text,
        profile_name,
        payloads,
    )
}

/// The command line's option for the sweep's payloads, and the profile's field it replaces.
const PAYLOADS_OPTION: (&str, &str) = ("--payloads", "sweep.payloads");

fn run_from_texts(
    system_text: &str,
    system_name: &str,
    profile_text: &str,
    profile_name: &str,
    payloads: Option<&[u16]>,
) -> Result<(System, Profile), ConfigError> {
    let system = load::<System>(system_text, system_name);
    let profile = load::<Profile>(profile_text, profile_name);
    match (system, profile) {
        (Ok((system, _)), Ok((mut profile, profile_map))) => {
            let given = payloads.map(|payloads| {
                profile.sweep.payloads = payloads.to_vec();
                // The rest of the profile passed already: only the new payloads can fail.
                let mut own = Issues::default();
                profile.check(&mut own);
                own
            });
            check_pair(
                &system,
                system_name,
                &profile,
                &profile_map,
                profile_name,
                given,
            )?;
            Ok((system, profile))
        }
        (system, profile) => {
            let mut all = Vec::new();
            for err in [system.err(), profile.err()].into_iter().flatten() {
                match err {
                    ConfigError::Invalid { diagnostics } => all.extend(diagnostics),
                    read @ ConfigError::Read { .. } => return Err(read),
                }
            }
            Err(ConfigError::invalid(all))
        }
    }
}

/// The profile against the system. `command_line` is `Some` when the command line gave the
/// sweep's payloads, with what the profile's own checks found in them: those payloads'
/// problems are reported against the option, the others at their place in the profile.
fn check_pair(
    system: &System,
    system_name: &str,
    profile: &Profile,
    profile_map: &SourceMap,
    profile_name: &str,
    command_line: Option<Issues>,
) -> Result<(), ConfigError> {
    let mut issues = Issues::default();
    cross::check_profile_on_system(system, system_name, profile, &mut issues);
    let diagnostics = match command_line {
        None => issues.located(profile_map, profile_name),
        Some(mut given) => {
            let (option, field) = PAYLOADS_OPTION;
            let (under, rest) = issues.partition(field);
            given.extend(under);
            let mut all = rest.located(profile_map, profile_name);
            all.extend(given.on_command_line(field, option));
            all
        }
    };
    if diagnostics.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::invalid(diagnostics))
    }
}

/// Checks a profile against a checked system file named `system_name`, with the profile's
/// text for the places (`upfbench validate` given both kinds of file).
pub fn check_profile_on_system(
    system: &System,
    system_name: &str,
    profile_text: &str,
    profile_name: &str,
) -> Result<(), ConfigError> {
    let (profile, map) = load::<Profile>(profile_text, profile_name)?;
    check_pair(system, system_name, &profile, &map, profile_name, None)
}

/// Reads and checks a file of any kind, telling the kind by [`detect_kind`].
pub fn load_any(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
    let path = path.as_ref();
    any_from_str(&read(path)?, &name_of(path))
}

/// [`load_any`] on a text.
pub fn any_from_str(text: &str, name: &str) -> Result<Config, ConfigError> {
    match detect_kind(text) {
        Some(FileKind::System) => system_from_str(text, name).map(Config::System),
        Some(FileKind::Profile) => profile_from_str(text, name).map(Config::Profile),
        Some(FileKind::Reflector) => reflector_from_str(text, name).map(Config::Reflector),
        Some(FileKind::Cluster) => cluster_from_str(text, name).map(Config::Cluster),
        None => {
            // Not YAML: report the syntax error; YAML of no single kind: say how to tell.
            source::source_map(text, name)?;
            Err(ConfigError::invalid(vec![Diagnostic {
                file: name.to_owned(),
                line: 1,
                column: 1,
                field: String::new(),
                message: "cannot tell a system file, a profile, a reflector file and a \
                          cluster file apart here: add `kind: system`, `kind: profile`, \
                          `kind: reflector` or `kind: cluster`"
                    .to_owned(),
            }]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORTS: &str = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
                         n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";

    /// What a coordinator hands its agents is the same profile: its JSON, read back as a
    /// profile file's text (the agent's way), is the profile the coordinator checked.
    #[test]
    fn a_profile_s_json_reads_back_as_the_same_profile() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../profiles/qos.yaml"),
        )
        .unwrap();
        let (profile, json) = profile_and_json(&text, "qos.yaml").unwrap();
        assert_eq!(json["name"], "qos");
        assert_eq!(json["duration"], "5s");
        let back = serde_json::to_string_pretty(&json).unwrap();
        assert_eq!(profile_from_str(&back, "segment").unwrap(), profile);
        // A profile that does not check is refused with its place, as a file is.
        let bad = profile_and_json("name: x\nstreams: []\n", "bad.yaml").unwrap_err();
        assert!(bad.to_string().contains("bad.yaml"), "{bad}");
    }

    #[test]
    fn kinds_are_told_apart_by_content() {
        assert_eq!(
            detect_kind("name: x\nstreams: []\n"),
            Some(FileKind::Profile)
        );
        assert_eq!(detect_kind(PORTS), Some(FileKind::System));
        assert_eq!(
            detect_kind(&format!("{PORTS}reports: r\n")),
            Some(FileKind::System)
        );
        assert_eq!(
            detect_kind("n3: {device: net_null0, address: 192.168.13.151/24}\n"),
            Some(FileKind::Reflector)
        );
        assert_eq!(
            detect_kind(&format!("{PORTS}mode: upf\n")),
            Some(FileKind::Reflector)
        );
        assert_eq!(
            detect_kind(&format!("{PORTS}pfcp: {{first_teid: 5}}\n")),
            Some(FileKind::Reflector)
        );
        assert_eq!(
            detect_kind("kind: reflector\nname: x\n"),
            Some(FileKind::Reflector)
        );
        assert_eq!(detect_kind("kind: other\n"), None);
        assert_eq!(
            detect_kind("name: x\nmode: upf\n"),
            None,
            "two kinds at once"
        );
        assert_eq!(detect_kind("eal: {args: []}\n"), None);
        assert_eq!(detect_kind("a: [\n"), None);
    }

    #[test]
    fn defaults_follow_the_design_address_plan() {
        let s = system_from_str(&format!("{PORTS}pfcp: {{}}\n"), "s.yaml").expect("valid");
        let pfcp = s.pfcp.clone().expect("pfcp");
        assert_eq!(pfcp, Pfcp::default());
        assert_eq!(pfcp.local.to_string(), "192.168.14.111:8805");
        assert_eq!(pfcp.peer.to_string(), "192.168.14.151:8805");
        assert_eq!((pfcp.window.initial, pfcp.window.max), (16, 64));
        assert_eq!(
            s.cores,
            Cores {
                workers: vec![1],
                ..Cores::default()
            },
            "the short form's one worker"
        );
        let p0 = s.pair(0);
        assert_eq!((s.pairs().len(), p0.name.as_str()), (1, "p0"));
        assert_eq!((p0.n3.rx_descriptors, p0.n3.queues), (1024, None));
        assert_eq!(p0.queue_count(), 1, "one queue per worker");
        let p = profile_from_str(
            "name: x\nstreams: [{name: a, direction: both, rate: 1kpps, payload: 10}]\n",
            "p.yaml",
        )
        .expect("valid");
        assert_eq!(p.sessions, Sessions::default());
        assert_eq!((p.max_burst, p.reorder_window), (32, 64));
        assert_eq!(p.tx_mode, TxMode::Continuous);
        assert_eq!(p.streams[0].ues, UeSelection::All);
        assert_eq!(p.streams[0].spread, Spread::RoundRobin);
        let r = reflector_from_str(
            "n3: {device: net_null0, address: 192.168.13.151/24}\n\
             n6: {device: net_null1, address: 192.168.16.151/24, peer: 192.168.16.152}\n\
             pfcp: {}\n",
            "r.yaml",
        )
        .expect("valid");
        assert_eq!(r.pfcp, Some(ReflectorPfcp::default()));
        assert_eq!(r.impairments, Impairments::default());
        assert_eq!(r.mode, ReflectMode::Upf);
    }

    #[test]
    fn every_form_of_the_enumerations_reads() {
        let p = profile_from_str(
            "name: x\n\
             sessions: {count: 4, uplink_teid: upf, qfi: ~, pdu_session_container: false,\n\
             \x20 uplink_pdr_qfi: false, dnn: ~, urr: {period: 10s}}\n\
             streams: [{name: a, direction: uplink, rate: 1Gbps L2, payload: 10,\n\
             \x20 ues: {first: 1, count: 2}, spread: {consecutive: 8}}]\n\
             tx_mode: {multi_burst: {packets: 10, bursts: 3, gap: 5ms}}\n",
            "p.yaml",
        )
        .expect("valid");
        assert_eq!(p.sessions.uplink_teid, TeidAllocation::ChosenByUpf);
        assert_eq!((p.sessions.qfi, p.sessions.dnn.as_deref()), (None, None));
        assert_eq!(p.streams[0].ues, UeSelection::Range { first: 1, count: 2 });
        assert_eq!(p.streams[0].spread, Spread::Consecutive(8));
        assert_eq!(p.streams[0].rate, Rate::BitsL2(1e9));
        assert_eq!(
            p.tx_mode,
            TxMode::MultiBurst {
                packets: 10,
                bursts: 3,
                gap: std::time::Duration::from_millis(5)
            }
        );
        let r = reflector_from_str(
            "n3: {device: net_null0, address: 192.168.13.151/24}\n\
             n6: {device: net_null1, address: 192.168.16.151/24}\nmode: {echo: n6}\n\
             impairments: {drop_one_in: 100, delay: 100us, rate_cap: 1Mpps}\n",
            "r.yaml",
        )
        .expect("valid");
        assert_eq!(r.mode, ReflectMode::Echo(PortName::N6));
        assert_eq!(r.impairments.drop_one_in, Some(100));
        assert_eq!(r.impairments.rate_cap, Some(1e6));
    }

    #[test]
    fn upf_chosen_teids_need_pfcp() {
        let profile = "name: x\nsessions: {uplink_teid: upf}\n\
                       streams: [{name: a, direction: uplink, rate: 1kpps, payload: 10}]\n";
        let err = run_from_str(PORTS, "s.yaml", profile, "p.yaml").expect_err("no pfcp");
        assert_eq!(
            err.to_string(),
            "p.yaml:2:25: sessions.uplink_teid: the UPF chooses TEIDs over PFCP, and s.yaml \
             has no `pfcp` section"
        );
        let with_pfcp = format!("{PORTS}pfcp: {{}}\n");
        run_from_str(&with_pfcp, "s.yaml", profile, "p.yaml").expect("valid with pfcp");
    }

    #[test]
    fn both_files_of_a_run_report_together() {
        let err = run_from_str(
            "n3: {device: eth0}\n",
            "s.yaml",
            "name: x\nstreams: []\n",
            "p.yaml",
        )
        .expect_err("both bad");
        let files: Vec<&str> = err.diagnostics().iter().map(|d| d.file.as_str()).collect();
        assert_eq!(files, ["p.yaml", "s.yaml"]);
    }
}
