//! The profile: what to send, to how many UEs, for how long.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use serde::Deserialize;
use serde::de::Deserializer;
use upfbench_net::{Qfi, Teid};

use super::identifiers;
use super::kind::FileKind;
use super::serde_forms::keyword_or_map;
use super::units::{IpPrefix, Rate, serde_text};

mod capacity;
mod checks;
mod churn;
mod gate;
mod mobility;
mod qos;
mod search;
mod teid;

pub(crate) use checks::{check_dns_name, check_rate};

pub use capacity::CapacitySection;
pub use churn::{Churn, MAX_CHURN_RATE, MIN_PROBE_INTERVAL};
pub use gate::QosGate;
pub use mobility::{Arrivals, Handovers, MAX_HANDOVER_RATE, Mobility, MovingUes, TargetGnb};
pub use qos::{Family, FlowRates, QosFlow};
pub use search::{
    DirectionSet, GoalSection, LatencyBoundSection, PercentText, SearchSection, StrategyName,
};
pub use teid::{TeidAllocation, TeidRange};

/// Highest packet rate accepted: 10⁹ packets per second.
pub const MAX_PPS: f64 = 1e9;
/// Highest QoS bit rate a QER carries: 2⁴⁰ − 1 kbit/s (TS 29.244 §8.2.8).
pub const MAX_QOS_BPS: u64 = ((1 << 40) - 1) * 1000;

/// What to send (`upfbench run SYSTEM PROFILE`).
///
/// ```yaml
/// name: quickstart
/// sessions: {count: 1}
/// streams:
///   - {name: ul, direction: uplink, rate: 10kpps, payload: 300}
///   - {name: dl, direction: downlink, rate: 10kpps, payload: 300}
/// duration: 10s
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// `kind: profile`, optional: says what the file is when its fields alone do not.
    #[serde(default)]
    pub kind: Option<FileKind>,
    /// A short name, used in reports.
    pub name: String,
    /// What the profile is for.
    #[serde(default)]
    pub description: String,
    /// The sessions (one per UE) programmed on the UPF.
    #[serde(default)]
    pub sessions: Sessions,
    /// The traffic: one or more streams.
    pub streams: Vec<Stream>,
    /// How long a continuous run sends, after the warm-up; not 0.
    #[serde(default = "default_duration", with = "serde_text::duration")]
    pub duration: Duration,
    /// Sent first, before `duration`, and not measured.
    #[serde(default, with = "serde_text::duration")]
    pub warmup: Duration,
    /// After the last packet is sent, wait this long for the packets in flight; not 0. A search's
    /// trials do not use it: each ends once its packets are accounted for (`search.quiet`).
    #[serde(default = "default_drain", with = "serde_text::duration")]
    pub drain: Duration,
    /// How the packets are spread in time: `continuous` (at the streams' rates for `duration`),
    /// `{single_burst: {packets: N}}` or `{multi_burst: {packets: N, bursts: M, gap: 10ms}}` (per
    /// stream and direction, at the stream's rate; the gap not 0).
    #[serde(default)]
    pub tx_mode: TxMode,
    /// 1 to 1024: the longest train of packets a worker puts back to back on one transmit queue.
    /// The worker's streams on a queue (uplink on N3, downlink on N6) split it, one each and the
    /// rest in proportion to their rates; each poll hands at most its part to the NIC (in DPDK
    /// bursts of up to 64), what the NIC refused counting against it.
    ///
    /// A worker late by more than its part (a stalled core, a full queue, a rate above what it can
    /// send) does not catch up at line rate: its schedule slips (none is dropped, counts stay exact
    /// per flow), and it then makes the lateness up at no more than `catch_up` above the stream's
    /// rate. The report gives how often it fell behind, the most it was late, and how late it still
    /// was at the end (`tx_slip` per direction and stream, the TX schedule lines, a warning when
    /// what was not made up exceeds 0.5 % of the sending time). In bursts modes the slip moves the
    /// rest of the run, gaps whole.
    ///
    /// How late a worker may be without slipping is its part over its rate: 32 at 20 Mpps is 1.6
    /// µs, which this project's 2-vCPU VM exceeds some 1,400 times a second by ~13-19 µs;
    /// `catch_up` makes that up within the following tens of µs.
    #[serde(default = "default_max_burst")]
    pub max_burst: u32,
    /// 0% to 100%: how much faster than its rate a late worker may send until it is back on its
    /// schedule. The UPF never sees more than the rate plus this (and no train longer than
    /// `max_burst`); a worker that lost its core for a moment keeps its average rate (on this
    /// project's VM at 0.1/1/5/20 Mpps with `max_burst` 32: every rate exact, with 6 to 7,000 slips
    /// in 5 s).
    ///
    /// `0%`: a slip is kept for good, the step lasts longer and its rate is lower (−1.7 % at 5
    /// Mpps, −2.7 % at 20 Mpps on this VM): for a no-drop-rate search that must never exceed the
    /// rate.
    #[serde(default = "default_catch_up", with = "serde_text::percent")]
    pub catch_up: f64,
    /// Sequence positions tracked behind the newest per flow (stream × UE): a power of two from 64
    /// to 65536. A packet displaced further counts as late.
    ///
    /// Memory per flow and worker, measured (`cargo run --release -p upfbench-generator --example
    /// flow_memory`): 144 bytes at 64, 272 at 1024 (about 136 + window / 8), plus 24 bytes of TX
    /// state; a million UEs both ways (2,000,000 flows) take about 340 MB with one worker.
    #[serde(default = "default_reorder_window")]
    pub reorder_window: u32,
    /// The latency histograms.
    #[serde(default)]
    pub latency: Latency,
    /// `upfbench sweep`: the payload sizes it runs the profile at.
    #[serde(default)]
    pub sweep: Sweep,
    /// `upfbench search`: the goals and how the trials run.
    #[serde(default)]
    pub search: SearchSection,
    /// `upfbench capacity`: the batches of the climb and the traffic after each.
    #[serde(default)]
    pub capacity: CapacitySection,
    /// Handovers under traffic: each moving UE's downlink moves to a target gNB once
    /// (docs/measurement.md, docs/pfcp.md). `upfbench run` only (one step), continuous `tx_mode`, a
    /// downlink stream and a `pfcp` section in the system file needed. Absent: none.
    #[serde(default)]
    pub mobility: Option<Box<Mobility>>,
    /// Session churn under traffic: sessions established and deleted, and the traffic's modified,
    /// during the measured phase. `upfbench run` or `sweep`, continuous `tx_mode`, a `pfcp` section
    /// in the system file; not with `mobility`. Absent: none.
    #[serde(default)]
    pub churn: Option<Churn>,
    /// A QoS flow's gates closed by a Session Modification in the measured phase, in every
    /// session: `{qfi: 5, close_at: 2s}`; the report counts the flow's packets the UPF passed
    /// after its answer (docs/traffic-shapes.md). `upfbench run` only (one step), continuous
    /// `tx_mode`, a `pfcp` section in the system file. Absent: none.
    #[serde(default)]
    pub qos_gate: Option<QosGate>,
}

fn default_duration() -> Duration {
    Duration::from_secs(10)
}

fn default_drain() -> Duration {
    Duration::from_millis(500)
}

fn default_max_burst() -> u32 {
    32
}

fn default_catch_up() -> f64 {
    10.0
}

fn default_reorder_window() -> u32 {
    64
}

/// The sessions: one per UE.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sessions {
    /// UEs, one PFCP session each.
    #[serde(default = "one_u32")]
    pub count: u32,
    /// The IPv4 UE address pool (pdn_type ipv4 or ipv4v6), a network (host bits zero); must not
    /// overlap the system's N3 and N6 subnets. IPv6 UEs take `ue_pool_v6`.
    #[serde(default = "default_ue_pool")]
    pub ue_pool: IpPrefix,
    /// The IPv6 UE pool (pdn_type ipv6 or ipv4v6), a network (host bits zero) not overlapping
    /// the system's N3 and N6 prefixes: UE i gets the prefix `pool + i` of `ue_prefix_len` bits,
    /// and its address `::2` in it (a /128 per UE: the pool's address `2 + i`).
    #[serde(default = "default_ue_pool_v6")]
    pub ue_pool_v6: IpPrefix,
    /// The IPv6 prefix each UE gets, bits: 64 (a /64 per UE, TS 23.501 §5.8.2.2.2; down to the
    /// pool's length for a delegated prefix) or 128 (an address per UE). The pool must hold
    /// `count` of them.
    #[serde(default = "default_ue_prefix_len")]
    pub ue_prefix_len: u8,
    /// The first UE's address; UE i has `first_ue + i`, each in the pool, neither its network nor
    /// its broadcast address, of the pool's family. Absent: the pool's network address + 2
    /// (`10.45.0.2` in `10.45.0.0/16`).
    #[serde(default)]
    pub first_ue: Option<IpAddr>,
    /// Uplink TEIDs (the UPF's F-TEIDs on N3): `{first, step}`, UE i's `first + i·step`, chosen by
    /// us; or `upf`: the UPF chooses (CH=1) and they are read back from the Created PDRs, which
    /// needs `pfcp` in the system file.
    #[serde(default = "default_uplink_teid")]
    pub uplink_teid: TeidAllocation,
    /// Downlink TEIDs (ours, at the gNB side), `{first, step}`: they must not share a TEID with the
    /// uplink range nor pass 0xffffffff.
    #[serde(default = "default_downlink_teid")]
    pub downlink_teid: TeidRange,
    /// The QoS flow, 0 to 63; `~`: none, which needs `pdu_session_container` and `uplink_pdr_qfi`
    /// off. With `qos_flows`, the flows' QFIs are used instead.
    #[serde(default = "default_qfi", with = "identifiers::opt_qfi")]
    pub qfi: Option<Qfi>,
    /// Uplink G-PDUs carry a PDU Session Container with the QFI. Open5GS drops uplink G-PDUs
    /// without one when the uplink PDR matches the QFI.
    #[serde(default = "yes")]
    pub pdu_session_container: bool,
    /// The uplink PDR matches the QFI, as the reference client's does. With `pdu_session_container`
    /// off this is an error: Open5GS then drops every uplink G-PDU silently.
    #[serde(default = "yes")]
    pub uplink_pdr_qfi: bool,
    /// The uplink PDR's SDF filter, e.g. `permit out ip from any to assigned`. Absent: none.
    #[serde(default)]
    pub uplink_sdf_filter: Option<String>,
    /// The QoS Enforcement Rule, which carries the QFI (eUPF takes the downlink QFI from it), and
    /// bit rates.
    #[serde(default)]
    pub qer: Qer,
    /// The DNN (APN) sent with each session, as DNS labels; `~`: not sent.
    #[serde(default = "default_dnn")]
    pub dnn: Option<String>,
    /// The Network Instance of both PDRs, sent as DNS labels. UPG-VPP needs one it is configured
    /// for (`upf nwi`).
    #[serde(default = "internet")]
    pub network_instance: String,
    /// The PDN type: `ipv4` (UE addresses from `ue_pool`), `ipv6` (UE prefixes from
    /// `ue_pool_v6`) or `ipv4v6` (both; each stream then says its `family`).
    #[serde(default)]
    pub pdn_type: PdnType,
    /// Several QoS flows per session, each with its PDRs (its SDF filter), FARs and QER (MBR and
    /// GBR per direction, gate open): `[{qfi: 1, sdf: "permit out 17 from any 5001 to assigned",
    /// mbr: {uplink: 10Mbps, downlink: 10Mbps}, gbr: {uplink: 10Mbps, downlink: 10Mbps}}, {qfi:
    /// 9, mbr: {...}}]`. They replace `qfi`, `uplink_sdf_filter` and the session QER's bit rates.
    /// Empty: one flow, `qfi`, as those fields say.
    #[serde(default)]
    pub qos_flows: Vec<QosFlow>,
    /// Send the 3GPP Interface Types (N3, N6) in the PDRs.
    #[serde(default = "yes")]
    pub interface_types: bool,
    /// A Usage Reporting Rule: `{period: 10s}` (whole seconds) and/or `{volume_threshold: OCTETS}`.
    /// Absent: none.
    #[serde(default)]
    pub urr: Option<Urr>,
}

pub(super) fn one_u32() -> u32 {
    1
}
fn yes() -> bool {
    true
}
fn default_ue_pool() -> IpPrefix {
    IpPrefix {
        addr: IpAddr::V4(Ipv4Addr::new(10, 45, 0, 0)),
        len: 16,
    }
}
fn default_ue_pool_v6() -> IpPrefix {
    IpPrefix {
        addr: IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0x45, 0, 0, 0, 0, 0)),
        len: 48,
    }
}
fn default_ue_prefix_len() -> u8 {
    64
}
fn default_uplink_teid() -> TeidAllocation {
    TeidAllocation::Range(TeidRange {
        first: Teid(1),
        step: 2,
    })
}
fn default_downlink_teid() -> TeidRange {
    TeidRange {
        first: Teid(2),
        step: 2,
    }
}
fn default_qfi() -> Option<Qfi> {
    Some(Qfi::from_bits(1))
}
fn internet() -> String {
    "internet".to_owned()
}
fn default_dnn() -> Option<String> {
    Some(internet())
}

impl Default for Sessions {
    /// Each field's default (one UE, the address plan of docs/measurement.md), as `sessions: {}`
    /// reads.
    fn default() -> Self {
        Sessions {
            count: one_u32(),
            ue_pool: default_ue_pool(),
            ue_pool_v6: default_ue_pool_v6(),
            ue_prefix_len: default_ue_prefix_len(),
            first_ue: None,
            uplink_teid: default_uplink_teid(),
            downlink_teid: default_downlink_teid(),
            qfi: default_qfi(),
            pdu_session_container: yes(),
            uplink_pdr_qfi: yes(),
            uplink_sdf_filter: None,
            qer: Qer::default(),
            dnn: default_dnn(),
            network_instance: internet(),
            pdn_type: PdnType::default(),
            qos_flows: Vec::new(),
            interface_types: yes(),
            urr: None,
        }
    }
}

impl Sessions {
    /// The first UE's address: `first_ue`, or the pool's network address + 2.
    pub fn first_ue_address(&self) -> IpAddr {
        self.first_ue
            .unwrap_or_else(|| address_plus(self.ue_pool.network(), 2))
    }

    /// UE `i`'s address (`i < count`).
    pub fn ue_address(&self, i: u32) -> IpAddr {
        address_plus(self.first_ue_address(), i)
    }

    /// UE `i`'s IPv6 prefix: the pool's `i`-th of `ue_prefix_len` bits (for /128, the pool's
    /// address `2 + i`).
    pub fn ue_prefix_v6(&self, i: u32) -> Ipv6Addr {
        let net = match self.ue_pool_v6.network() {
            IpAddr::V6(a) => u128::from(a),
            IpAddr::V4(_) => 0,
        };
        let len = u32::from(self.ue_prefix_len.min(128));
        if len == 128 {
            return Ipv6Addr::from(net.wrapping_add(2 + u128::from(i)));
        }
        Ipv6Addr::from(net.wrapping_add(u128::from(i).checked_shl(128 - len).unwrap_or(0)))
    }

    /// UE `i`'s IPv6 address: `::2` in its prefix (the interface id is ours to choose when the
    /// UPF delegates a prefix), or its /128.
    pub fn ue_address_v6(&self, i: u32) -> Ipv6Addr {
        let p = self.ue_prefix_v6(i);
        if self.ue_prefix_len >= 128 {
            p
        } else {
            Ipv6Addr::from(u128::from(p) | 2)
        }
    }
}

/// `addr + n`, within its family (wrapping).
pub(crate) fn address_plus(addr: IpAddr, n: u32) -> IpAddr {
    match addr {
        IpAddr::V4(a) => IpAddr::V4(Ipv4Addr::from(u32::from(a).wrapping_add(n))),
        IpAddr::V6(a) => IpAddr::V6(Ipv6Addr::from(u128::from(a).wrapping_add(u128::from(n)))),
    }
}

/// The QoS Enforcement Rule, which carries the QFI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Qer {
    /// Send a QER (eUPF takes the downlink QFI from it).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Maximum bit rate uplink (`1Gbps`), at most 2^40−1 kbit/s. Absent: none.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub mbr_uplink: Option<u64>,
    /// Maximum bit rate downlink, at most 2^40−1 kbit/s. Absent: none.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub mbr_downlink: Option<u64>,
    /// Guaranteed bit rate uplink, at most the MBR and 2^40−1 kbit/s. Absent: none.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub gbr_uplink: Option<u64>,
    /// Guaranteed bit rate downlink, at most the MBR and 2^40−1 kbit/s. Absent: none.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub gbr_downlink: Option<u64>,
}

impl Default for Qer {
    fn default() -> Self {
        Qer {
            enabled: yes(),
            mbr_uplink: None,
            mbr_downlink: None,
            gbr_uplink: None,
            gbr_downlink: None,
        }
    }
}

/// PDN Type (TS 29.244 §8.2.79).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum PdnType {
    /// IPv4 UEs.
    #[default]
    Ipv4,
    /// IPv6 UEs.
    Ipv6,
    /// Dual-stack UEs: an IPv4 address and an IPv6 prefix each.
    Ipv4v6,
}

/// A Usage Reporting Rule: volume and duration measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Urr {
    /// Periodic reports this often, whole seconds (`10s`).
    #[serde(default, with = "serde_text::opt_duration")]
    pub period: Option<Duration>,
    /// A report when this many octets have passed.
    #[serde(default)]
    pub volume_threshold: Option<u64>,
}

/// One stream of packets.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stream {
    /// Unique within the profile; reports use it.
    pub name: String,
    /// `uplink` (N3 to N6), `downlink` (N6 to N3), or `both`: one stream each way, each at
    /// `rate`.
    pub direction: Direction,
    /// Packets per second, or bit/s at L1 or L2, or a percentage of the sending port's line
    /// rate; per direction.
    pub rate: Rate,
    /// Inner UDP payload, bytes: 10 (the measurement tag) to 1472 (a 1500-byte inner packet), and
    /// at most what the system's `mtu` carries tunnelled. A downlink packet on N6 is `payload + 46`
    /// bytes (Ethernet, IPv4, UDP, FCS; at least 64); an uplink packet on N3 is `payload + 90`
    /// (GTP-U 8, the container 8 and the inner IPv4/UDP 28 more), 82 without the container.
    pub payload: u16,
    /// Inner UDP source port.
    #[serde(default = "default_src_port")]
    pub src_port: u16,
    /// Inner UDP destination port.
    #[serde(default = "default_dst_port")]
    pub dst_port: u16,
    /// Which UEs send or receive: `all`, or `{first, count}` (UE indices, within `sessions.count`).
    #[serde(default)]
    pub ues: UeSelection,
    /// How the packets go round the UEs: `round_robin` (UE 0, 1, 2, ..., 0, ...) or `{consecutive:
    /// N}` (N packets to a UE, then the next).
    #[serde(default)]
    pub spread: Spread,
    /// The family of the UE packets it sends, `ipv4` or `ipv6`: one the sessions have (IPv6
    /// packets: 20 bytes more, payload at most 1452). Absent: the sessions' only family; needed
    /// with pdn_type ipv4v6. IPv4 needs an IPv4 N6 (`validate` and a run refuse it over an IPv6
    /// N6: a UPF routes IPv4 UE packets to the data network over IPv4).
    #[serde(default)]
    pub family: Option<Family>,
    /// The QoS flow it belongs to, one of `sessions.qos_flows` (or the session's `qfi`): its
    /// uplink's PDU Session Container carries it, its packets match the flow's SDF filter (the
    /// ports are the stream's to choose), and `%mbr` rates are shares of the flow's MBR. Absent:
    /// the sessions' only flow; needed with several.
    #[serde(default, with = "identifiers::opt_qfi")]
    pub qfi: Option<Qfi>,
}

fn default_src_port() -> u16 {
    10000
}

fn default_dst_port() -> u16 {
    20000
}

/// Which way a stream goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// GTP-U on N3, out of the UPF on N6.
    Uplink,
    /// Plain IP on N6, out of the UPF tunnelled on N3.
    Downlink,
    /// One stream each way.
    Both,
}

impl Direction {
    /// Whether it sends uplink.
    pub fn uplink(self) -> bool {
        matches!(self, Direction::Uplink | Direction::Both)
    }

    /// Whether it sends downlink.
    pub fn downlink(self) -> bool {
        matches!(self, Direction::Downlink | Direction::Both)
    }
}

/// The UEs a stream uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UeSelection {
    /// Every UE: `ues: all`.
    #[default]
    All,
    /// UEs `first .. first + count`: `ues: {first: 0, count: 100}`.
    Range {
        /// First UE index.
        first: u32,
        /// How many.
        count: u32,
    },
}

impl UeSelection {
    /// The first index and the count, for `sessions` UEs.
    pub fn bounds(&self, sessions: u32) -> (u32, u32) {
        match *self {
            UeSelection::All => (0, sessions),
            UeSelection::Range { first, count } => (first, count),
        }
    }
}

/// A range of UE indices: `{first: 0, count: 100}`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UeRange {
    /// The first UE index.
    #[serde(default)]
    first: u32,
    /// How many UEs from there, within `sessions.count`.
    count: u32,
}

impl<'de> Deserialize<'de> for UeSelection {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        keyword_or_map(
            deserializer,
            "a range {first: 0, count: 100}",
            "all",
            || UeSelection::All,
            |r: UeRange| UeSelection::Range {
                first: r.first,
                count: r.count,
            },
        )
    }
}

/// The order packets go to the UEs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Spread {
    /// One packet per UE in turn: `spread: round_robin`.
    #[default]
    RoundRobin,
    /// N packets to a UE, then the next: `spread: {consecutive: 8}`.
    Consecutive(u32),
}

/// `{consecutive: N}`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConsecutiveSpread {
    /// Packets to a UE before the next UE's.
    consecutive: u32,
}

impl<'de> Deserialize<'de> for Spread {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        keyword_or_map(
            deserializer,
            "{consecutive: N}",
            "round_robin",
            || Spread::RoundRobin,
            |c: ConsecutiveSpread| Spread::Consecutive(c.consecutive),
        )
    }
}

/// How the packets are spread in time.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TxMode {
    /// At the streams' rates for `duration`: `tx_mode: continuous`.
    #[default]
    Continuous,
    /// `packets` per stream and direction at the stream's rate, once:
    /// `tx_mode: {single_burst: {packets: 1000}}`.
    SingleBurst {
        /// Packets per stream and direction.
        packets: u64,
    },
    /// `bursts` bursts of `packets`, each at the stream's rate, `gap` apart:
    /// `tx_mode: {multi_burst: {packets: 100, bursts: 10, gap: 10ms}}`.
    MultiBurst {
        /// Packets per burst, per stream and direction.
        packets: u64,
        /// Number of bursts.
        bursts: u32,
        /// Idle time between two bursts.
        #[serde(with = "serde_text::duration")]
        gap: Duration,
    },
}

/// Latency histogram bounds (HDR histograms, nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Highest latency tracked; slower is clamped and counted. At most 2.147 s (`MAX_LATENCY`): the
    /// tag carries the low 32 bits of the transmit time in ns, so a longer transit cannot be told
    /// from a shorter one.
    #[serde(default = "default_latency_max", with = "serde_text::duration")]
    pub max: Duration,
    /// Significant decimal digits of the histograms, 3 to 5 (3: within 0.1%).
    #[serde(default = "default_digits")]
    pub digits: u8,
}

fn default_latency_max() -> Duration {
    Duration::from_secs(2)
}

/// The longest latency the measurement tag can tell: its transmit time is the low 32 bits of
/// the clock in nanoseconds, read back as a signed difference (`datapath` tag's `transit_ns`), so
/// a transit of 2³¹ ns (2.147 s) or more reads as negative or wraps to a short one.
pub const MAX_LATENCY: Duration = Duration::from_nanos((1 << 31) - 1);

fn default_digits() -> u8 {
    3
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            max: default_latency_max(),
            digits: default_digits(),
        }
    }
}

/// `upfbench sweep`: the same profile at several payload sizes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// The payload sizes `upfbench sweep` runs, bytes, each replacing every stream's `payload` in
    /// turn (the published measurements' sizes); `--payloads` replaces them.
    #[serde(default = "default_sweep_payloads")]
    pub payloads: Vec<u16>,
}

fn default_sweep_payloads() -> Vec<u16> {
    vec![10, 300, 1400]
}

impl Default for Sweep {
    fn default() -> Self {
        Sweep {
            payloads: default_sweep_payloads(),
        }
    }
}
