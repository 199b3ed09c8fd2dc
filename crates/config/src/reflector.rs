//! The reflector file (`upfbench reflect`): a minimal UPF, or an echo on one port.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use serde::Deserialize;
use upfbench_net::Teid;
use upfbench_pfcp::Seid;

use super::error::{NotIpv4, ipv4};
use super::field::{join_index, join_key};
use super::identifiers;
use super::issues::{Check, Issues};
use super::kind::FileKind;
use super::n4_impairments::N4Impairments;
use super::profile::{check_dns_name, check_rate};
use super::qer_impairment::{QerImpairment, check_qer_burst, default_qer_burst};
use super::system::{
    Arp, Cores, Eal, HostParts, Pair, PairPlace, PairsForm, Port, check_arp, check_form,
    check_kind, check_n4_address, check_pair_ports, check_pairs, default_heartbeat, eal_devices,
    normalise,
};
use super::system::{check_cores, check_eal};
use super::units::{PFCP_PORT, Rate, serde_text};

/// The reflector's machine, ports, PFCP server and impairments. Its ports are one N3/N6 pair
/// (top-level `n3`, `n6` and `cores.workers`) or several (`pairs`), served by one PFCP server.
///
/// ```yaml
/// kind: reflector
/// n3: {device: net_memif0, devargs: "role=server,socket=/tmp/upfbench/n3.sock", address: 192.168.13.151/24}
/// n6: {device: net_memif1, devargs: "role=server,socket=/tmp/upfbench/n6.sock", address: 192.168.16.151/24, peer: 192.168.16.152}
/// pfcp: {local: 127.0.0.2, peer: 127.0.0.1}
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reflector {
    /// `kind: reflector`, optional (the fields below usually tell).
    #[serde(default)]
    pub kind: Option<FileKind>,
    /// EAL arguments and file prefix, as in the system file.
    #[serde(default)]
    pub eal: Eal,
    /// Main and worker lcores, as in the system file (`auto` too).
    #[serde(default, with = "super::system::CoresOrAuto")]
    pub cores: Cores,
    /// The N3 port (towards the gNB: GTP-U): a port as in the system file, its `peer` optional,
    /// without `mtu` and `speed`. Needed in `upf` mode and in echo mode (which answers ARP and ICMP
    /// on the other port).
    #[serde(default)]
    n3: Option<ReflectorPort>,
    /// The N6 port (towards the data network: plain IP), as `n3`. Needed in `upf` mode and in echo
    /// mode.
    #[serde(default)]
    n6: Option<ReflectorPort>,
    /// The port pairs, as the system file's (each its own ports and workers; ports as `n3` and
    /// `n6` here, no `weight`): a frame that comes in on one pair leaves by the same pair. Not with
    /// top-level `n3`/`n6` nor `cores.workers`. A loaded file holds its pairs here whichever form
    /// it used (the short form's as pair `p0`, its `n3` and `n6` then empty). Absent: the short
    /// form's one pair. Each worker serves one pair; a downlink leaves by its pair's N3 toward the
    /// session's gNB, and one whose gNB that N3 does not reach (off its subnet, no N3 `peer`) is
    /// dropped as `no_route`.
    #[serde(default)]
    #[schemars(extend("default" = []))]
    pub pairs: Vec<ReflectorPair>,
    /// ARP: the reflector resolves its next hops itself (the N6 `peer` and any N3 `peer` from the
    /// start, the gNBs of the sessions' FARs when they arrive): a request every `timeout` until a
    /// reply, at most `retries + 1` requests per hop, asked again when new rules come; traffic to a
    /// next hop still unknown asks at most once per `timeout` and counts `no_neighbor`; traffic
    /// to a destination no route of its pair reaches (off the port's subnet, no `peer`) counts
    /// `no_route`, and nothing is asked.
    #[serde(default)]
    pub arp: Arp,
    /// The PFCP server, needed in `upf` mode; `pfcp: {}` takes all defaults.
    #[serde(default)]
    pub pfcp: Option<ReflectorPfcp>,
    /// `upf`: decapsulate N3 → N6 and encapsulate N6 → N3 by the sessions' rules. `{echo: n6}` or
    /// `{echo: n3}`: send each unfragmented IPv4/UDP packet back on that port with Ethernet, IPv4
    /// and UDP addresses swapped (checksums stay valid); ARP and ICMP go to the service plane (ARP
    /// and echo requests for its address answered); other IPv4 (TCP, fragments, other protocols)
    /// and other EtherTypes are counted `not_user_traffic`, broken headers `malformed`; the other
    /// port only answers ARP and ICMP.
    #[serde(default)]
    pub mode: ReflectMode,
    /// Faults put in on purpose to test the tester; each off unless given.
    #[serde(default)]
    pub impairments: Impairments,
    /// GTP-U Error Indications for G-PDUs to unknown TEIDs: at most this many per second, and at
    /// once, for the whole process (each of W workers sends at most 1/W of it, so adding workers
    /// does not multiply the answers to a flood); 0: none. Sent and suppressed are on the
    /// per-second line (`err-ind sent/suppressed`) and in the totals at exit.
    #[serde(default = "default_error_indications")]
    pub error_indications_per_s: u32,
    /// Each QER's token bucket holds this long at its MBR (`10ms`: a 100 Mbit/s QER passes a
    /// burst of 125,000 bytes above its rate), per direction; not 0, at most 1s. The gate and the
    /// MBR are the session's (Create QER, Update QER); `impairments.qer` misbehaves on purpose.
    #[serde(default = "default_qer_burst", with = "serde_text::duration")]
    pub qer_burst: Duration,
    /// How the file gave its ports, for the checks.
    #[serde(skip)]
    form: PairsForm,
}

/// One of the reflector's port pairs: a [`Pair`] whose ports' peers are optional.
pub type ReflectorPair = Pair<Option<IpAddr>>;

fn default_error_indications() -> u32 {
    100
}

/// One of the reflector's ports: a [`Port`] whose peer is optional.
pub type ReflectorPort = Port<Option<IpAddr>>;

impl ReflectorPort {
    /// The IPv4 address of the next hop, if one is set (validation refuses any other).
    pub fn peer_v4(&self) -> Result<Option<Ipv4Addr>, NotIpv4> {
        self.peer.map(ipv4).transpose()
    }
}

/// The generator's settings of a pair and its ports, which the reflector does not use: refused
/// at their place rather than ignored.
fn check_generator_only(pair: &ReflectorPair, at: &PairPlace, issues: &mut Issues) {
    if pair.weight.is_some() {
        issues.add(
            at.field("weight"),
            "the reflector does not use a pair's weight (the generator does): leave it out",
        );
    }
    for (name, port) in [("n3", &pair.n3), ("n6", &pair.n6)] {
        for (field, given) in [("mtu", port.mtu.is_some()), ("speed", port.speed.is_some())] {
            if given {
                issues.add(
                    at.field(&join_key(name, field)),
                    format!(
                        "the reflector does not use a port's {field} (the generator does): leave \
                         it out"
                    ),
                );
            }
        }
    }
}

/// The reflector's PFCP server (the UPF side).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReflectorPfcp {
    /// The address it listens on, also its Node ID (port 8805 unless given).
    #[serde(default = "default_local", with = "serde_text::n4_address")]
    pub local: SocketAddr,
    /// The one CP address allowed to associate.
    #[serde(default = "default_peer")]
    pub peer: IpAddr,
    /// The first TEID it gives out when the CP asks the UPF to choose (CH=1); not 0.
    #[serde(default = "default_first_teid", with = "identifiers::teid")]
    pub first_teid: Teid,
    /// The first UP SEID it gives out; not 0.
    #[serde(default = "default_first_seid", with = "identifiers::seid")]
    pub first_seid: Seid,
    /// Its own Heartbeat Requests' interval; `~`: none.
    #[serde(default = "default_heartbeat", with = "serde_text::opt_duration")]
    pub heartbeat: Option<Duration>,
    /// The network instances (DNNs) it serves, `[internet]`: a session whose PDRs name another one
    /// is rejected with Cause 73 "Rule creation/modification Failure", Offending IE Network
    /// Instance and the PDR as failed rule, as UPG-VPP rejects a network instance it is not
    /// configured for. Empty: any accepted.
    #[serde(default)]
    pub network_instances: Vec<String>,
    /// The most sessions it holds at once; the next Session Establishment Request is refused with
    /// Cause 75 "No resources available" and no Offending IE, as a UPF whose session table is full
    /// refuses it (`upfbench capacity` finds this number exactly); `~`: no limit but memory.
    #[serde(default)]
    pub max_sessions: Option<usize>,
}

fn default_local() -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, 14, 151)), PFCP_PORT)
}

fn default_peer() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(192, 168, 14, 111))
}

fn default_first_teid() -> Teid {
    Teid(0x1000_0000)
}

fn default_first_seid() -> Seid {
    Seid(1)
}

impl Default for ReflectorPfcp {
    /// Each field's default (the address plan of docs/measurement.md), as `pfcp: {}` reads.
    fn default() -> Self {
        ReflectorPfcp {
            local: default_local(),
            peer: default_peer(),
            first_teid: default_first_teid(),
            first_seid: default_first_seid(),
            heartbeat: default_heartbeat(),
            network_instances: Vec::new(),
            max_sessions: None,
        }
    }
}

/// A port by its role, as the reflector's file writes it: `n3` and `n6`, lowercase like every
/// key and value of the configuration files. Reports, lines and tables name the tester's ports
/// `N3` and `N6` (`upfbench_stats::PortName`, which also indexes per-port arrays on the hot
/// path); this crate does not depend on the hot path's, and one enum cannot be written both ways.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum PortName {
    /// The N3 port.
    N3,
    /// The N6 port.
    N6,
}

impl fmt::Display for PortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PortName::N3 => "n3",
            PortName::N6 => "n6",
        })
    }
}

/// What the reflector does with packets.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ReflectMode {
    /// A minimal UPF: `mode: upf`.
    #[default]
    Upf,
    /// Send packets back on the port they came from, Ethernet, IPv4 and UDP addresses
    /// swapped: `mode: {echo: n6}`.
    Echo(PortName),
}

/// Impairments, for testing the tester; each applies to both directions.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Impairments {
    /// Drop one packet in N (every Nth), N at least 1. Absent: off.
    #[serde(default)]
    pub drop_one_in: Option<u32>,
    /// Send one packet in N twice, N at least 1. Absent: off.
    #[serde(default)]
    pub duplicate_one_in: Option<u32>,
    /// Swap one packet in N with the one after it, N at least 2. Absent: off.
    #[serde(default)]
    pub reorder_one_in: Option<u32>,
    /// Hold every packet this long before sending it (`100us`), at most `1s`. Absent: off.
    #[serde(default, with = "serde_text::opt_duration")]
    pub delay: Option<Duration>,
    /// Forward at most this many packets per second, per direction (`1Mpps`), for the whole
    /// reflector: each of its W workers (over every pair) polices 1/W of it, so the cap is met
    /// whole when the traffic spreads evenly over the workers (two pairs of one worker each,
    /// `20kpps`: 10 kpps a pair); the excess is dropped
    /// (a token bucket of 50 ms of the rate, at least 32 packets; when a phase of traffic starts,
    /// at a flow's first packet (a tag's sequence number 0) after others, it holds at most 32, so
    /// that each trial of a search starts from the same bucket however short the pause before
    /// it). Absent: off.
    #[serde(default, with = "serde_text::opt_pps")]
    pub rate_cap: Option<f64>,
    /// Faults of the PFCP server on N4: loss, delay, reordering, silence, a restart.
    #[serde(default)]
    pub n4: N4Impairments,
    /// A modification that moves a downlink tunnel (a handover's Update FAR) is break-before-make:
    /// the old path stops at once (before the answer), the new one starts this much later (`50ms`,
    /// at most `10s`), timed by the workers, as a UPF slow to program its datapath; packets in
    /// between are dropped and counted `far_update_held`. A tester measures this as each UE's
    /// interruption. Absent: off.
    #[serde(default, with = "serde_text::opt_duration")]
    pub far_update_delay: Option<Duration>,
    /// The QER policers misbehave on purpose: `{policing: off}` passes every packet whatever its
    /// MBR, `{over: 10%}` polices at 1.1 × MBR; a QoS conformance report is then checked against
    /// a known wrong answer. Absent: each QER policed at its MBR.
    #[serde(default)]
    pub qer: QerImpairment,
}

impl Check for Impairments {
    fn check(&self, issues: &mut Issues) {
        for (field, n, min) in [
            ("impairments.drop_one_in", self.drop_one_in, 1),
            ("impairments.duplicate_one_in", self.duplicate_one_in, 1),
            ("impairments.reorder_one_in", self.reorder_one_in, 2),
        ] {
            match n {
                Some(0) => issues.add(
                    field,
                    "0 is not one in N: leave the field out to turn it off",
                ),
                Some(n) if n < min => {
                    issues.add(
                        field,
                        format!("{n}: at least {min} (a packet needs a next one)"),
                    );
                }
                _ => {}
            }
        }
        if let Some(delay) = self.delay {
            if delay.is_zero() {
                issues.add(
                    "impairments.delay",
                    "0 adds nothing: leave the field out to turn it off",
                );
            } else if delay > Duration::from_secs(1) {
                issues.add(
                    "impairments.delay",
                    "at most 1s (packets are held in memory)",
                );
            }
        }
        if let Some(delay) = self.far_update_delay {
            if delay.is_zero() {
                issues.add(
                    "impairments.far_update_delay",
                    "0 adds nothing: leave the field out to turn it off",
                );
            } else if delay > Duration::from_secs(10) {
                issues.add("impairments.far_update_delay", "at most 10s");
            }
        }
        self.qer.check(issues);
        if let Some(pps) = self.rate_cap {
            check_rate(Rate::Pps(pps), "impairments.rate_cap", issues);
        }
        self.n4.check(issues);
    }
}

impl Check for Reflector {
    fn resolve(&mut self) {
        self.form = normalise(&mut self.pairs, &mut self.n3, &mut self.n6, &mut self.cores);
    }

    fn check(&self, issues: &mut Issues) {
        check_kind(self.kind, FileKind::Reflector, issues);
        check_form(self.form, issues);
        check_eal(&self.eal, &eal_devices(&self.pairs, self.form), issues);
        check_cores(&self.cores, self.form.listed, issues);
        check_pairs(&self.pairs, self.form, self.cores.main, issues);
        for (k, pair) in self.pairs.iter().enumerate() {
            let at = self.pair_place(k);
            check_pair_ports(pair, &at, |p| p.peer, issues);
            check_generator_only(pair, &at, issues);
        }
        check_arp(&self.arp, issues);
        match self.mode {
            ReflectMode::Upf => self.check_upf_mode(issues),
            ReflectMode::Echo(port) => self.check_echo_mode(port, issues),
        }
        if let Some(pfcp) = &self.pfcp {
            pfcp.check(issues);
        }
        self.impairments.check(issues);
        check_qer_burst(self.qer_burst, issues);
    }
}

impl Reflector {
    /// The port pairs, the short form's as one (`p0`).
    pub fn pairs(&self) -> &[ReflectorPair] {
        &self.pairs
    }

    /// Pair `k` (a loaded file has at least one).
    pub fn pair(&self, k: usize) -> &ReflectorPair {
        &self.pairs[k]
    }

    /// Where pair `k`'s fields are in the file.
    fn pair_place(&self, k: usize) -> PairPlace {
        self.form.place(k, &self.pairs[k].name)
    }

    /// The cores, the pairs and the top-level ports as read, for the host's resolutions.
    pub(crate) fn host_parts(&mut self) -> HostParts<'_, Option<IpAddr>> {
        (
            &mut self.cores,
            &mut self.pairs,
            [("n3", self.n3.as_mut()), ("n6", self.n6.as_mut())],
        )
    }

    /// Whether the file gave `port` (`n3`, `n6`): in a pair, or at the top (a short form that
    /// lacks the other port, and so made no pair).
    fn has(&self, port: PortName) -> bool {
        !self.pairs.is_empty()
            || match port {
                PortName::N3 => self.n3.is_some(),
                PortName::N6 => self.n6.is_some(),
            }
    }

    /// The upf mode needs both ports, the N6 peer (uplink goes to it) and the PFCP server.
    fn check_upf_mode(&self, issues: &mut Issues) {
        if self.pairs.is_empty() && !self.form.listed && self.n3.is_none() && self.n6.is_none() {
            issues.add(
                "pairs",
                "at least one pair: give `pairs`, or the one pair's ports as top-level `n3` and \
                 `n6`",
            );
        } else {
            for port in [PortName::N3, PortName::N6] {
                if !self.has(port) {
                    issues.add(
                        port.to_string(),
                        format!("the upf mode needs the {port} port"),
                    );
                }
            }
        }
        for (k, pair) in self.pairs.iter().enumerate() {
            if pair.n6.peer.is_none() {
                issues.add(
                    self.pair_place(k).field("n6.peer"),
                    "the upf mode sends uplink to the N6 peer: give its address \
                     (192.168.16.152 in the design's plan)",
                );
            }
        }
        if self.pfcp.is_none() {
            issues.add("pfcp", "the upf mode needs the PFCP server for its rules");
        }
    }

    /// The echo on `port` needs that port, and the other one too (it answers ARP and ICMP).
    fn check_echo_mode(&self, port: PortName, issues: &mut Issues) {
        let other = match port {
            PortName::N3 => PortName::N6,
            PortName::N6 => PortName::N3,
        };
        if !self.has(port) {
            issues.add(
                "mode.echo",
                format!("echo on {port}, which is not configured"),
            );
        }
        if !self.has(other) {
            issues.add(
                other.to_string(),
                format!(
                    "echo on {port} still opens the {other} port (it answers ARP and ICMP \
                     there): give it"
                ),
            );
        }
    }
}

impl Check for ReflectorPfcp {
    fn check(&self, issues: &mut Issues) {
        check_n4_address(self.local, "pfcp.local", issues);
        if self.peer.is_unspecified() {
            issues.add("pfcp.peer", "name the one CP address allowed to associate");
        }
        if self.peer == self.local.ip() {
            issues.add("pfcp.peer", "the CP's address is the reflector's own");
        }
        if self.first_teid == Teid::ZERO {
            issues.add(
                "pfcp.first_teid",
                "TEID 0 is reserved for GTP-U signalling (TS 29.281 §5.1)",
            );
        }
        if self.first_seid == Seid(0) {
            issues.add("pfcp.first_seid", "SEID 0 addresses no session: start at 1");
        }
        if self.max_sessions == Some(0) {
            issues.add(
                "pfcp.max_sessions",
                "0 refuses every session; write `max_sessions: ~` for no limit",
            );
        }
        if self.heartbeat == Some(Duration::ZERO) {
            issues.add(
                "pfcp.heartbeat",
                "must be longer than 0; write `heartbeat: ~` to send none",
            );
        }
        for (i, name) in self.network_instances.iter().enumerate() {
            check_dns_name(name, &join_index("pfcp.network_instances", i), issues);
        }
    }
}
