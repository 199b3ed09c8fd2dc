//! The profile: what to send, to how many UEs, for how long.

use std::collections::HashSet;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use upfbench_net::{Qfi, Teid};

use super::FileKind;
use super::frame::{MAX_PAYLOAD, TAG};
use super::identifiers;
use super::source::{join_index, join_key};
use super::system::check_kind;
use super::units::{IpPrefix, Rate, serde_text};
use super::validate::{Check, Issues, nonzero};

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
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// `kind: profile`, optional.
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
    /// The traffic, one or more streams.
    pub streams: Vec<Stream>,
    /// How long a continuous run sends, warm-up excluded (default `10s`).
    #[serde(default = "default_duration", with = "serde_text::duration")]
    pub duration: Duration,
    /// Sent before the measurement starts and not counted (default `0s`).
    #[serde(default, with = "serde_text::duration")]
    pub warmup: Duration,
    /// After the last packet is sent, wait this long for the stragglers (default `500ms`).
    #[serde(default = "default_drain", with = "serde_text::duration")]
    pub drain: Duration,
    /// How the packets are spread in time (default `continuous`).
    #[serde(default)]
    pub tx_mode: TxMode,
    /// The longest train a worker puts back to back on one transmit queue, 1 to 1024 (default
    /// 32): split over the worker's streams there; a worker later than that slips its schedule
    /// instead of catching up (see [`crate::plan::Pacer`]).
    #[serde(default = "default_max_burst")]
    pub max_burst: u32,
    /// How much faster than its rate a sender that fell behind may send until it is back on
    /// its schedule, in percent, 0 to 100 (default `10%`): the UPF never sees more than the
    /// rate plus this, and a sender that lost its core for a moment keeps its average rate.
    /// `0%`: the schedule slips for good (the step lasts longer, its rate is lower).
    #[serde(default = "default_catch_up", with = "serde_text::percent")]
    pub catch_up: f64,
    /// Sequence positions tracked behind the newest per flow (stream × UE): a power of two
    /// from 64 to 65536 (default 64). A packet displaced further counts as late. Memory per
    /// flow and worker, measured by `examples/flow_memory.rs`: 144 bytes at 64, 272 at 1024
    /// (about 136 + window / 8), plus 24 bytes of TX state; 2,000,000 flows (a million UEs both
    /// ways) take about 340 MB with one worker.
    #[serde(default = "default_reorder_window")]
    pub reorder_window: u32,
    /// The latency histograms.
    #[serde(default)]
    pub latency: Latency,
    /// `upfbench sweep`: the payload sizes it runs the profile at.
    #[serde(default)]
    pub sweep: Sweep,
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sessions {
    /// Number of UEs, each with its session (default 1).
    #[serde(default = "one_u32")]
    pub count: u32,
    /// The UE address pool, a network (default `10.45.0.0/16`).
    #[serde(default = "default_ue_pool")]
    pub ue_pool: IpPrefix,
    /// The first UE's address; UE i has `first_ue + i` (default: the pool's .2, `10.45.0.2`).
    /// See [`Sessions::first_ue_address`].
    #[serde(default)]
    pub first_ue: Option<IpAddr>,
    /// Uplink TEIDs (the UPF's F-TEIDs on N3): `{first, step}` chosen by us, or `upf`: chosen
    /// by the UPF (CH=1) and read back (default `{first: 1, step: 2}`).
    #[serde(default = "default_uplink_teid")]
    pub uplink_teid: TeidAllocation,
    /// Downlink TEIDs (ours, at the gNB side), `{first, step}` (default `{first: 2, step: 2}`).
    #[serde(default = "default_downlink_teid")]
    pub downlink_teid: TeidRange,
    /// The QoS flow: 0 to 63 (default 1; `~`: none, which needs `pdu_session_container`,
    /// `uplink_pdr_qfi` and the QER's QFI off).
    #[serde(
        default = "default_qfi",
        deserialize_with = "identifiers::opt_qfi::deserialize"
    )]
    pub qfi: Option<Qfi>,
    /// Uplink G-PDUs carry a PDU Session Container with the QFI (default true).
    #[serde(default = "yes")]
    pub pdu_session_container: bool,
    /// The uplink PDR matches the QFI (default true, as the reference client). Open5GS then
    /// drops uplink G-PDUs without a PDU Session Container.
    #[serde(default = "yes")]
    pub uplink_pdr_qfi: bool,
    /// The uplink PDR's SDF filter, e.g. `permit out ip from any to assigned` (default none).
    #[serde(default)]
    pub uplink_sdf_filter: Option<String>,
    /// The QER (default on, with the QFI, no bit rates).
    #[serde(default)]
    pub qer: Qer,
    /// The DNN (APN) sent with each session (default `internet`; `~`: not sent).
    #[serde(default = "default_dnn")]
    pub dnn: Option<String>,
    /// The Network Instance of both PDRs (default `internet`), sent as DNS labels.
    #[serde(default = "internet")]
    pub network_instance: String,
    /// The PDN type (default `ipv4`; `ipv6` and `ipv4v6` are not supported yet).
    #[serde(default)]
    pub pdn_type: PdnType,
    /// Send the 3GPP Interface Types (N3, N6) in the PDRs (default true).
    #[serde(default = "yes")]
    pub interface_types: bool,
    /// A usage reporting rule (default none).
    #[serde(default)]
    pub urr: Option<Urr>,
}

fn one_u32() -> u32 {
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
    /// One UE at 10.45.0.2, TEIDs 1 (uplink) and 2 (downlink), QFI 1, network instance and
    /// DNN `internet`: the address plan of docs/measurement.md.
    fn default() -> Self {
        Sessions {
            count: 1,
            ue_pool: default_ue_pool(),
            first_ue: None,
            uplink_teid: default_uplink_teid(),
            downlink_teid: default_downlink_teid(),
            qfi: default_qfi(),
            pdu_session_container: true,
            uplink_pdr_qfi: true,
            uplink_sdf_filter: None,
            qer: Qer::default(),
            dnn: default_dnn(),
            network_instance: internet(),
            pdn_type: PdnType::Ipv4,
            interface_types: true,
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
}

/// `addr + n`, within its family (wrapping).
pub(crate) fn address_plus(addr: IpAddr, n: u32) -> IpAddr {
    match addr {
        IpAddr::V4(a) => IpAddr::V4(Ipv4Addr::from(u32::from(a).wrapping_add(n))),
        IpAddr::V6(a) => IpAddr::V6(Ipv6Addr::from(u128::from(a).wrapping_add(u128::from(n)))),
    }
}

/// TEIDs `first, first + step, first + 2 × step, ...`, one per UE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeidRange {
    /// UE 0's TEID (not 0).
    #[serde(with = "identifiers::teid")]
    pub first: Teid,
    /// Added per UE (at least 1 with more than one UE).
    #[serde(default = "one_u32")]
    pub step: u32,
}

impl TeidRange {
    /// UE `i`'s TEID.
    pub fn teid(&self, i: u32) -> Teid {
        Teid(self.first.get().wrapping_add(self.step.wrapping_mul(i)))
    }

    /// The last TEID for `count` UEs, if it fits 32 bits.
    pub fn last(&self, count: u32) -> Option<Teid> {
        let last = u64::from(self.first.get()) + u64::from(self.step) * u64::from(count.max(1) - 1);
        u32::try_from(last).ok().map(Teid)
    }
}

/// Who picks the uplink TEIDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeidAllocation {
    /// We do, from a range: `uplink_teid: {first: 1, step: 2}`.
    Range(TeidRange),
    /// The UPF does (CH=1 in the F-TEID, read back from the Created PDR): `uplink_teid: upf`.
    ChosenByUpf,
}

/// Reads either a keyword or a mapping into `T`, with the mapping's own errors in place.
fn keyword_or_map<'de, D, T, R>(
    deserializer: D,
    what: &'static str,
    keyword: &'static str,
    from_keyword: fn() -> R,
    from_map: fn(T) -> R,
) -> Result<R, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct KeywordOrMap<T, R> {
        what: &'static str,
        keyword: &'static str,
        from_keyword: fn() -> R,
        from_map: fn(T) -> R,
    }
    impl<'de, T: Deserialize<'de>, R> Visitor<'de> for KeywordOrMap<T, R> {
        type Value = R;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "`{}` or {}", self.keyword, self.what)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<R, E> {
            if v == self.keyword {
                Ok((self.from_keyword)())
            } else {
                Err(E::custom(format!(
                    "{v:?}: write `{}` or {}",
                    self.keyword, self.what
                )))
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map)).map(self.from_map)
        }
    }
    deserializer.deserialize_any(KeywordOrMap {
        what,
        keyword,
        from_keyword,
        from_map,
    })
}

impl<'de> Deserialize<'de> for TeidAllocation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        keyword_or_map(
            deserializer,
            "a range {first: 1, step: 2}",
            "upf",
            || TeidAllocation::ChosenByUpf,
            TeidAllocation::Range,
        )
    }
}

/// The QoS Enforcement Rule, which carries the QFI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qer {
    /// Send a QER (default true: eUPF takes the downlink QFI from it).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Maximum bit rate uplink, bit/s (`1Gbps`; default none).
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub mbr_uplink: Option<u64>,
    /// Maximum bit rate downlink, bit/s.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub mbr_downlink: Option<u64>,
    /// Guaranteed bit rate uplink, bit/s.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub gbr_uplink: Option<u64>,
    /// Guaranteed bit rate downlink, bit/s.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub gbr_downlink: Option<u64>,
}

impl Default for Qer {
    fn default() -> Self {
        Qer {
            enabled: true,
            mbr_uplink: None,
            mbr_downlink: None,
            gbr_uplink: None,
            gbr_downlink: None,
        }
    }
}

/// PDN Type (TS 29.244 §8.2.79).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PdnType {
    /// IPv4 UEs.
    #[default]
    Ipv4,
    /// IPv6 UEs (not supported yet).
    Ipv6,
    /// Dual-stack UEs (not supported yet).
    Ipv4v6,
}

/// A Usage Reporting Rule: volume and duration measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// Inner UDP payload, bytes: 10 (the measurement tag) to 1472 (a 1500-byte inner packet).
    pub payload: u16,
    /// Inner UDP source port (default 10000).
    #[serde(default = "default_src_port")]
    pub src_port: u16,
    /// Inner UDP destination port (default 20000).
    #[serde(default = "default_dst_port")]
    pub dst_port: u16,
    /// Which UEs send or receive: `all` (default) or `{first, count}` (UE indices).
    #[serde(default)]
    pub ues: UeSelection,
    /// How the packets go round the UEs: `round_robin` (default: UE 0, 1, 2, ..., 0, ...) or
    /// `{consecutive: N}` (N packets to a UE, then the next).
    #[serde(default)]
    pub spread: Spread,
}

fn default_src_port() -> u16 {
    10000
}

fn default_dst_port() -> u16 {
    20000
}

/// Which way a stream goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UeRange {
    #[serde(default)]
    first: u32,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConsecutiveSpread {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Highest latency tracked (default `10s`); slower packets are clamped and counted.
    #[serde(default = "default_latency_max", with = "serde_text::duration")]
    pub max: Duration,
    /// Significant decimal digits, 3 to 5 (default 3: within 0.1%).
    #[serde(default = "default_digits")]
    pub digits: u8,
}

fn default_latency_max() -> Duration {
    Duration::from_secs(10)
}

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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// Payload sizes, bytes, each replacing every stream's `payload` in turn (default
    /// `[10, 300, 1400]`, the published measurements' sizes).
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

/// A payload size: the tag must fit, and the inner packet must fit 1500 bytes.
fn check_payload(payload: u16, field: &str, issues: &mut Issues) {
    let p = usize::from(payload);
    if p < TAG {
        issues.add(
            field,
            format!("{p} bytes cannot hold the {TAG}-byte measurement tag: use at least {TAG}"),
        );
    } else if p > MAX_PAYLOAD {
        issues.add(
            field,
            format!(
                "{p} bytes make an inner packet over the 1500-byte MTU: use at most {MAX_PAYLOAD}"
            ),
        );
    }
}

/// A rate's own bounds.
pub(crate) fn check_rate(rate: Rate, field: &str, issues: &mut Issues) {
    let v = rate.value();
    if !v.is_finite() || v <= 0.0 {
        issues.add(
            field,
            format!("{rate} sends nothing: a rate must be above zero"),
        );
        return;
    }
    match rate {
        Rate::Pps(pps) if pps > MAX_PPS => {
            issues.add(
                field,
                format!("{rate} is above 1Gpps, more than any port carries"),
            );
        }
        Rate::LinePercent(p) if p > 100.0 => {
            issues.add(
                field,
                format!("{rate} is above the line rate: at most 100%"),
            );
        }
        Rate::BitsL1(b) | Rate::BitsL2(b) if b > 1e12 => {
            issues.add(
                field,
                format!("{rate} is above 1Tbps, more than any port carries"),
            );
        }
        _ => {}
    }
}

/// Whether two TEID ranges of `count` TEIDs each share a TEID: `a.first + a.step·i ==
/// b.first + b.step·j` for some `i, j < count`, solved exactly.
pub(crate) fn ranges_share_a_teid(a: TeidRange, b: TeidRange, count: u32) -> Option<Teid> {
    let n = i128::from(count);
    if n == 0 {
        return None;
    }
    let (a0, s, b0, t) = (
        i128::from(a.first.get()),
        i128::from(a.step),
        i128::from(b.first.get()),
        i128::from(b.step),
    );
    let teid_at = |i: i128| u32::try_from(a0 + s * i).ok().map(Teid);
    // s·i − t·j = b0 − a0.
    let d = b0 - a0;
    match (s, t) {
        (0, 0) => return (d == 0).then_some(a.first),
        (0, _) => {
            // a0 == b0 + t·j
            return ((-d) % t == 0 && (0..n).contains(&(-d / t))).then_some(a.first);
        }
        (_, 0) => {
            return (d % s == 0 && (0..n).contains(&(d / s))).then(|| teid_at(d / s))?;
        }
        _ => {}
    }
    let (g, x, _) = ext_gcd(s, t);
    if d % g != 0 {
        return None;
    }
    // A solution: i0 = x·d/g (then j follows); the rest are i0 + k·t/g, j0 + k·s/g.
    let (ts, ss) = (t / g, s / g);
    let i0 = x * (d / g);
    let j0 = (s * i0 - d) / t;
    // 0 <= i0 + k·ts < n and 0 <= j0 + k·ss < n
    let k_range = |v0: i128, step: i128| -> (i128, i128) {
        // step > 0
        (div_ceil(-v0, step), div_floor(n - 1 - v0, step))
    };
    let (lo1, hi1) = k_range(i0, ts);
    let (lo2, hi2) = k_range(j0, ss);
    let (lo, hi) = (lo1.max(lo2), hi1.min(hi2));
    (lo <= hi).then(|| teid_at(i0 + lo * ts))?
}

fn ext_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    if b == 0 {
        (a, 1, 0)
    } else {
        let (g, x, y) = ext_gcd(b, a % b);
        (g, y, x - (a / b) * y)
    }
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -div_floor(-a, b)
}

/// A TEID range for `count` UEs: not 0, distinct per UE, within 32 bits.
fn check_teid_range(r: TeidRange, count: u32, field: &str, issues: &mut Issues) {
    if r.first == Teid::ZERO {
        issues.add(
            join_key(field, "first"),
            "TEID 0 is reserved for GTP-U signalling (TS 29.281 §5.1): start at 1 or above",
        );
    }
    if r.step == 0 && count > 1 {
        issues.add(
            join_key(field, "step"),
            format!("step 0 gives all {count} UEs the same TEID"),
        );
    }
    if r.last(count).is_none() {
        issues.add(
            field,
            format!(
                "{count} TEIDs from {:#x} in steps of {} go past 0xffffffff",
                r.first.get(),
                r.step
            ),
        );
    }
}

pub(crate) fn check_dns_name(name: &str, field: &str, issues: &mut Issues) {
    let labels_ok = name.split('.').all(|l| {
        !l.is_empty() && l.len() <= 63 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    if name.is_empty() || name.len() > 253 || !labels_ok {
        issues.add(
            field,
            format!(
                "{name:?} is not a DNS name (labels of letters, digits and '-', 1 to 63 \
                 characters, joined by dots)"
            ),
        );
    }
}

impl Sessions {
    /// The UE pool and the first UE: IPv4 (what this version carries inside the tunnel), the
    /// first UE in the pool, and room for every UE.
    fn check_ue_pool(&self, issues: &mut Issues) {
        let Some(pool) = self.ue_pool.v4() else {
            issues.add(
                "sessions.ue_pool",
                format!(
                    "{}: IPv6 UEs are not supported yet (pdn_type ipv4 only): write an IPv4 \
                     pool like 10.45.0.0/16",
                    self.ue_pool
                ),
            );
            return;
        };
        let first = match self.first_ue_address() {
            IpAddr::V4(first) => first,
            IpAddr::V6(first) => {
                issues.add(
                    "sessions.first_ue",
                    format!(
                        "{first} is IPv6 and the pool {pool} is IPv4: the first UE is one of \
                         the pool's addresses"
                    ),
                );
                return;
            }
        };
        let n = self.count;
        if !pool.is_network() {
            issues.add(
                "sessions.ue_pool",
                format!(
                    "{pool} has host bits set: write the network, {}/{}",
                    pool.network(),
                    pool.len
                ),
            );
        }
        let field = if self.first_ue.is_some() {
            "sessions.first_ue"
        } else {
            "sessions.ue_pool"
        };
        if !pool.contains(first) {
            issues.add(
                field,
                format!("the first UE {first} is not in the pool {pool}"),
            );
        } else {
            let lowest = if pool.len <= 30 { 1 } else { 0 };
            let highest = u32::from(pool.last()) - if pool.len <= 30 { 1 } else { 0 };
            let offset = u32::from(first) - u32::from(pool.network());
            if offset < lowest {
                issues.add(field, format!("{first} is the pool's network address"));
            } else if n > 0 {
                let last = u64::from(u32::from(first)) + u64::from(n) - 1;
                if last > u64::from(highest) {
                    issues.add(
                        "sessions.count",
                        format!(
                            "{n} UEs from {first} do not fit the pool {pool}: it has {} \
                         addresses from there",
                            u64::from(highest) - u64::from(u32::from(first)) + 1
                        ),
                    );
                }
            }
        }
    }
}

impl Check for Sessions {
    fn check(&self, issues: &mut Issues) {
        let n = self.count;
        if n == 0 {
            issues.add("sessions.count", "at least one session is needed");
        }
        self.check_ue_pool(issues);
        if let TeidAllocation::Range(ul) = self.uplink_teid {
            check_teid_range(ul, n, "sessions.uplink_teid", issues);
        }
        check_teid_range(self.downlink_teid, n, "sessions.downlink_teid", issues);
        if let TeidAllocation::Range(ul) = self.uplink_teid
            && let Some(teid) = ranges_share_a_teid(ul, self.downlink_teid, n)
        {
            issues.add(
                "sessions.downlink_teid",
                format!(
                    "TEID {:#x} is both an uplink and a downlink TEID: the ranges must \
                         not overlap (e.g. uplink {{first: 1, step: 2}}, downlink {{first: 2, \
                         step: 2}})",
                    teid.get()
                ),
            );
        }
        // A QFI's 6 bits were checked where it was read.
        if self.qfi.is_none() {
            if self.pdu_session_container {
                issues.add(
                    "sessions.pdu_session_container",
                    "the PDU Session Container carries a QFI: set `qfi` or turn it off",
                );
            }
            if self.uplink_pdr_qfi {
                issues.add(
                    "sessions.uplink_pdr_qfi",
                    "the uplink PDR cannot match a QFI when `qfi` is none",
                );
            }
        }
        if self.uplink_pdr_qfi && !self.pdu_session_container {
            issues.add(
                "sessions.pdu_session_container",
                "off while the uplink PDR matches the QFI: uplink G-PDUs then carry no QFI, and \
                 Open5GS drops them silently. Turn pdu_session_container on, or \
                 uplink_pdr_qfi off",
            );
        }
        if let Some(filter) = &self.uplink_sdf_filter
            && !filter.starts_with("permit ")
        {
            issues.add(
                "sessions.uplink_sdf_filter",
                "an SDF filter is an IPFilterRule: `permit out ip from any to assigned`",
            );
        }
        let q = &self.qer;
        for (field, v) in [
            ("mbr_uplink", q.mbr_uplink),
            ("mbr_downlink", q.mbr_downlink),
            ("gbr_uplink", q.gbr_uplink),
            ("gbr_downlink", q.gbr_downlink),
        ] {
            let field = join_key("sessions.qer", field);
            match v {
                Some(_) if !q.enabled => {
                    issues.add(field, "given while the QER is off (`enabled: false`)");
                }
                Some(bps) if bps > MAX_QOS_BPS => {
                    issues.add(field, "above the 2^40-1 kbit/s a QER can carry");
                }
                _ => {}
            }
        }
        for (gbr, mbr, field) in [
            (q.gbr_uplink, q.mbr_uplink, "sessions.qer.gbr_uplink"),
            (q.gbr_downlink, q.mbr_downlink, "sessions.qer.gbr_downlink"),
        ] {
            if let (Some(g), Some(m)) = (gbr, mbr)
                && g > m
            {
                issues.add(field, "the guaranteed bit rate is above the maximum");
            }
        }
        if let Some(dnn) = &self.dnn {
            check_dns_name(dnn, "sessions.dnn", issues);
        }
        check_dns_name(&self.network_instance, "sessions.network_instance", issues);
        if self.pdn_type != PdnType::Ipv4 {
            issues.add(
                "sessions.pdn_type",
                "IPv6 UEs are not supported yet: use ipv4",
            );
        }
        if let Some(urr) = &self.urr {
            if urr.period.is_none() && urr.volume_threshold.is_none() {
                issues.add(
                    "sessions.urr",
                    "a URR needs a `period` or a `volume_threshold` to report on",
                );
            }
            if let Some(p) = urr.period
                && (p.is_zero() || p.subsec_nanos() != 0 || p.as_secs() > u64::from(u32::MAX))
            {
                issues.add(
                    "sessions.urr.period",
                    "PFCP measures periods in whole seconds: 1s or more",
                );
            }
            if urr.volume_threshold == Some(0) {
                issues.add("sessions.urr.volume_threshold", "must be above 0");
            }
        }
    }
}

impl Check for Profile {
    fn check(&self, issues: &mut Issues) {
        check_kind(self.kind, FileKind::Profile, issues);
        if self.name.trim().is_empty() {
            issues.add("name", "give the profile a name");
        }
        self.sessions.check(issues);
        if self.streams.is_empty() {
            issues.add("streams", "at least one stream is needed");
        }
        let mut names = HashSet::new();
        for (i, s) in self.streams.iter().enumerate() {
            let at = |f: &str| join_key(&join_index("streams", i), f);
            if s.name.trim().is_empty() {
                issues.add(at("name"), "give the stream a name");
            } else if !names.insert(s.name.as_str()) {
                issues.add(
                    at("name"),
                    format!("{:?} names an earlier stream too", s.name),
                );
            }
            check_rate(s.rate, &at("rate"), issues);
            check_payload(s.payload, &at("payload"), issues);
            for (f, port) in [("src_port", s.src_port), ("dst_port", s.dst_port)] {
                if port == 0 {
                    issues.add(at(f), "UDP port 0 is reserved");
                }
            }
            if let UeSelection::Range { first, count } = s.ues {
                if count == 0 {
                    issues.add(at("ues.count"), "a stream needs at least one UE");
                }
                if u64::from(first) + u64::from(count) > u64::from(self.sessions.count) {
                    issues.add(
                        at("ues"),
                        format!(
                            "UEs {first} to {} do not exist: there are {} sessions (0 to {})",
                            u64::from(first) + u64::from(count).max(1) - 1,
                            self.sessions.count,
                            self.sessions.count.saturating_sub(1)
                        ),
                    );
                }
            }
            if s.spread == Spread::Consecutive(0) {
                issues.add(at("spread.consecutive"), "at least 1 packet per UE");
            }
        }
        match self.tx_mode {
            TxMode::Continuous => nonzero(
                self.duration,
                "duration",
                "a continuous run sends for this long",
                issues,
            ),
            TxMode::SingleBurst { packets } => {
                if packets == 0 {
                    issues.add("tx_mode.single_burst.packets", "a burst needs packets");
                }
            }
            TxMode::MultiBurst {
                packets,
                bursts,
                gap,
            } => {
                if packets == 0 {
                    issues.add("tx_mode.multi_burst.packets", "a burst needs packets");
                }
                if bursts == 0 {
                    issues.add("tx_mode.multi_burst.bursts", "at least one burst");
                }
                nonzero(
                    gap,
                    "tx_mode.multi_burst.gap",
                    "bursts with no gap are one burst: use single_burst",
                    issues,
                );
            }
        }
        nonzero(
            self.drain,
            "drain",
            "packets still in flight at the end would count as lost",
            issues,
        );
        if !(1..=1024).contains(&self.max_burst) {
            issues.add(
                "max_burst",
                format!("{}: use 1 to 1024 packets", self.max_burst),
            );
        }
        if !(0.0..=100.0).contains(&self.catch_up) {
            issues.add("catch_up", format!("{}%: use 0% to 100%", self.catch_up));
        }
        let w = self.reorder_window;
        if !w.is_power_of_two() || !(64..=65536).contains(&w) {
            issues.add(
                "reorder_window",
                format!("{w} is not a power of two from 64 to 65536"),
            );
        }
        if !(3..=5).contains(&self.latency.digits) {
            issues.add("latency.digits", "use 3 to 5 significant digits");
        }
        if self.latency.max < Duration::from_micros(1) {
            issues.add("latency.max", "at least 1us");
        }
        if self.sweep.payloads.is_empty() {
            issues.add("sweep.payloads", "give at least one payload size");
        }
        for (i, &p) in self.sweep.payloads.iter().enumerate() {
            let field = join_index("sweep.payloads", i);
            check_payload(p, &field, issues);
            if self.sweep.payloads[..i].contains(&p) {
                issues.add(field, format!("{p} is listed twice"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(a: TeidRange, b: TeidRange, n: u32) -> Option<u32> {
        let set: HashSet<u64> = (0..n)
            .map(|i| u64::from(a.first.get()) + u64::from(a.step) * u64::from(i))
            .collect();
        (0..n)
            .map(|j| u64::from(b.first.get()) + u64::from(b.step) * u64::from(j))
            .filter(|t| set.contains(t))
            .min()
            .map(|t| t as u32)
    }

    #[test]
    fn teid_overlap_is_solved_exactly() {
        let r = |first, step| TeidRange {
            first: Teid(first),
            step,
        };
        // The default: interleaved odd and even TEIDs never meet.
        assert_eq!(ranges_share_a_teid(r(1, 2), r(2, 2), 1_000_000), None);
        assert_eq!(
            ranges_share_a_teid(r(1, 1), r(1000, 1), 1000),
            Some(Teid(1000))
        );
        assert_eq!(ranges_share_a_teid(r(1, 1), r(1001, 1), 1000), None);
        for a0 in 0..12 {
            for s in 0..5 {
                for b0 in 0..12 {
                    for t in 0..5 {
                        for n in [1, 2, 3, 7] {
                            let (a, b) = (r(a0, s), r(b0, t));
                            assert_eq!(
                                ranges_share_a_teid(a, b, n).is_some(),
                                brute(a, b, n).is_some(),
                                "{a:?} {b:?} {n}"
                            );
                        }
                    }
                }
            }
        }
    }
}
