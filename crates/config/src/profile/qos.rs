//! Several QoS flows per session (`sessions.qos_flows`) and what a stream says of its flow and
//! family: each flow its PDRs (its SDF filter), FARs and QER (MBR and GBR per direction), a
//! stream the QFI it belongs to and the family it sends.

use std::collections::HashMap;
use std::str::FromStr;

use serde::Deserialize;
use upfbench_net::{IpFamily, Qfi};
use upfbench_pfcp::ie::FlowDescription;

use super::{MAX_QOS_BPS, PdnType, Profile, Sessions, Stream};
use crate::field::{join_index, join_key};
use crate::identifiers;
use crate::issues::Issues;
use crate::units::{Rate, serde_text};

/// A bit rate per direction: `{uplink: 10Mbps, downlink: 20Mbps}`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(deny_unknown_fields)]
pub struct FlowRates {
    /// Uplink, at most 2^40−1 kbit/s. Absent: none.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub uplink: Option<u64>,
    /// Downlink, at most 2^40−1 kbit/s. Absent: none.
    #[serde(default, with = "serde_text::opt_bit_rate")]
    pub downlink: Option<u64>,
}

impl FlowRates {
    /// The rate of one direction.
    pub fn get(&self, uplink: bool) -> Option<u64> {
        if uplink { self.uplink } else { self.downlink }
    }
}

/// One QoS flow of every session: `{qfi: 1, sdf: "permit out 17 from any 5001 to assigned",
/// mbr: {uplink: 10Mbps, downlink: 20Mbps}, gbr: {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct QosFlow {
    /// Its QoS Flow Identifier, 0 to 63, one flow's only: the uplink PDR matches it, the uplink's
    /// PDU Session Container carries it, its QER marks it.
    #[serde(with = "identifiers::qfi")]
    pub qfi: Qfi,
    /// Its SDF filter, an IPFilterRule as TS 29.212 §5.4.2 writes it, in both of its PDRs
    /// (`permit out 17 from any 5001 to assigned`: UDP to and from port 5001 of the far end).
    /// Absent: the flow's PDRs match every packet of the session (give it to one flow at most,
    /// the catch-all, which the others precede).
    #[serde(default)]
    pub sdf: Option<String>,
    /// Its maximum bit rates, counted on the UE's IP packets. Absent: none.
    #[serde(default)]
    pub mbr: Option<FlowRates>,
    /// Its guaranteed bit rates, each at most the MBR of its direction: a GBR flow. Absent: a
    /// non-GBR flow.
    #[serde(default)]
    pub gbr: Option<FlowRates>,
    /// A name for a QER that several flows share: they are policed together, by one QER with
    /// their common MBR and GBR (each flow naming it gives the same), which carries no QFI when
    /// the flows' differ. Absent: a QER of its own.
    #[serde(default)]
    pub qer: Option<String>,
}

impl QosFlow {
    /// Its MBR in a direction.
    pub fn mbr(&self, uplink: bool) -> Option<u64> {
        self.mbr.and_then(|m| m.get(uplink))
    }

    /// Its parsed SDF filter (a checked profile's parses).
    pub fn flow_description(&self) -> Option<FlowDescription> {
        self.sdf.as_deref().and_then(|s| s.parse().ok())
    }
}

/// The family of the packets a stream sends.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// IPv4 UE packets.
    Ipv4,
    /// IPv6 UE packets.
    Ipv6,
}

impl From<Family> for IpFamily {
    fn from(f: Family) -> IpFamily {
        match f {
            Family::Ipv4 => IpFamily::Ipv4,
            Family::Ipv6 => IpFamily::Ipv6,
        }
    }
}

impl Sessions {
    /// Whether the UEs have IPv4 addresses.
    pub fn has_ipv4(&self) -> bool {
        self.pdn_type != PdnType::Ipv6
    }

    /// Whether the UEs have IPv6 prefixes.
    pub fn has_ipv6(&self) -> bool {
        self.pdn_type != PdnType::Ipv4
    }

    /// The flow of `qfi` among `qos_flows`.
    pub fn qos_flow(&self, qfi: Qfi) -> Option<&QosFlow> {
        self.qos_flows.iter().find(|f| f.qfi == qfi)
    }

    /// The QFI a stream's packets carry: its own, the only flow's, or the session's `qfi`.
    pub fn stream_qfi(&self, stream: &Stream) -> Option<Qfi> {
        match (stream.qfi, self.qos_flows.as_slice()) {
            (Some(q), _) => Some(q),
            (None, [only]) => Some(only.qfi),
            (None, []) => self.qfi,
            (None, _) => None,
        }
    }

    /// The QER that polices a stream in a direction, when it has an MBR there: which one (the
    /// QFI of the first flow naming it, or the session's QFI for the session QER), and its MBR
    /// and GBR in that direction, per session (bit/s).
    pub fn stream_qer(&self, stream: &Stream, uplink: bool) -> Option<(Qfi, u64, Option<u64>)> {
        if self.qos_flows.is_empty() {
            let q = &self.qer;
            if !q.enabled {
                return None;
            }
            let (mbr, gbr) = if uplink {
                (q.mbr_uplink, q.gbr_uplink)
            } else {
                (q.mbr_downlink, q.gbr_downlink)
            };
            return Some((self.qfi?, mbr?, gbr));
        }
        let flow = self.qos_flow(self.stream_qfi(stream)?)?;
        let mbr = flow.mbr(uplink)?;
        Some((
            self.qer_key(flow),
            mbr,
            flow.gbr.and_then(|g| g.get(uplink)),
        ))
    }

    /// Which QER polices `qfi`'s flow: the QFI of the first flow that names it (a shared QER
    /// polices several), or the session's QFI without `qos_flows`; `None` for no QER.
    pub fn qer_of(&self, qfi: Qfi) -> Option<Qfi> {
        if self.qos_flows.is_empty() {
            return (self.qer.enabled && self.qfi == Some(qfi)).then_some(qfi);
        }
        self.qos_flow(qfi).map(|f| self.qer_key(f))
    }

    fn qer_key(&self, flow: &QosFlow) -> Qfi {
        flow.qer
            .as_deref()
            .and_then(|name| {
                self.qos_flows
                    .iter()
                    .find(|f| f.qer.as_deref() == Some(name))
            })
            .map_or(flow.qfi, |first| first.qfi)
    }

    /// The MBR a stream's `%mbr` rate is a share of, in a direction: its flow's (or, with no
    /// `qos_flows`, the session QER's).
    pub fn stream_mbr(&self, stream: &Stream, uplink: bool) -> Option<u64> {
        if self.qos_flows.is_empty() {
            let q = &self.qer;
            return if uplink { q.mbr_uplink } else { q.mbr_downlink };
        }
        self.qos_flow(self.stream_qfi(stream)?)?.mbr(uplink)
    }
}

impl Profile {
    /// A stream's packets per second one way (`uplink` or not), for frames of `frame_len` bytes
    /// (layer 2, FCS included) carrying inner IP packets of `ip_len` on a port of line rate
    /// `line`: `None` for a percentage of an unknown line rate (or of an MBR the flow lacks,
    /// which a checked profile does not have).
    pub fn stream_pps(
        &self,
        stream: &Stream,
        uplink: bool,
        frame_len: usize,
        ip_len: usize,
        line: Option<f64>,
    ) -> Option<f64> {
        match stream.rate {
            Rate::MbrPercent(_) => stream
                .rate
                .mbr_pps(self.sessions.stream_mbr(stream, uplink)?, ip_len),
            rate => rate.pps(frame_len, line),
        }
    }

    /// The family of a stream's packets: its own, or the sessions' only one.
    pub fn stream_family(&self, stream: &Stream) -> IpFamily {
        match (stream.family, self.sessions.pdn_type) {
            (Some(f), _) => f.into(),
            (None, PdnType::Ipv6) => IpFamily::Ipv6,
            (None, _) => IpFamily::Ipv4,
        }
    }
}

/// A shared QER's flows and what they must agree on.
struct Shared<'a> {
    first: usize,
    mbr: Option<FlowRates>,
    gbr: Option<FlowRates>,
    name: &'a str,
}

/// `sessions.qos_flows`: QFIs of one flow each, SDF filters that parse (the error placed inside
/// the text), bit rates a QER carries with each GBR at most its MBR, shared QERs that agree.
pub(super) fn check_qos_flows(s: &Sessions, issues: &mut Issues) {
    let mut seen: HashMap<u8, usize> = HashMap::new();
    let mut shared: HashMap<&str, Shared<'_>> = HashMap::new();
    let mut catch_alls = 0;
    for (i, f) in s.qos_flows.iter().enumerate() {
        let at = |k: &str| join_key(&join_index("sessions.qos_flows", i), k);
        if let Some(&j) = seen.get(&f.qfi.get()) {
            issues.add(
                at("qfi"),
                format!(
                    "QFI {} is also flow {j}'s (sessions.qos_flows[{j}]): a QFI names one flow",
                    f.qfi.get()
                ),
            );
        } else {
            seen.insert(f.qfi.get(), i);
        }
        match &f.sdf {
            None => catch_alls += 1,
            Some(text) => {
                if let Err(e) = FlowDescription::from_str(text) {
                    issues.add_within(
                        at("sdf"),
                        e.offset,
                        format!(
                            "the SDF filter does not parse at byte {}: {}",
                            e.offset, e.kind
                        ),
                    );
                }
            }
        }
        check_rates(f, &at, issues);
        if let Some(name) = f.qer.as_deref() {
            if name.trim().is_empty() {
                issues.add(at("qer"), "give the shared QER a name, or leave `qer` out");
                continue;
            }
            match shared.get(name) {
                None => {
                    shared.insert(
                        name,
                        Shared {
                            first: i,
                            mbr: f.mbr,
                            gbr: f.gbr,
                            name,
                        },
                    );
                }
                Some(q) if q.mbr != f.mbr || q.gbr != f.gbr => issues.add(
                    at("qer"),
                    format!(
                        "the flows sharing QER {:?} are policed by one QER: give this flow the \
                         mbr and gbr of sessions.qos_flows[{}]",
                        q.name, q.first
                    ),
                ),
                Some(_) => {}
            }
        }
    }
    if catch_alls > 1 {
        issues.add(
            "sessions.qos_flows",
            format!(
                "{catch_alls} flows have no `sdf`, and each would match every packet: give all \
                 but one an SDF filter"
            ),
        );
    }
    check_session_fields(s, issues);
}

/// With `qos_flows`, the session's one-flow fields stay as they default: the flows replace them.
fn check_session_fields(s: &Sessions, issues: &mut Issues) {
    if !s.qos_flows.is_empty() && !s.qer.enabled {
        issues.add(
            "sessions.qer.enabled",
            "each of the qos_flows has its QER (its QFI, gate and bit rates): leave the QER on",
        );
    }
    if !s.qos_flows.is_empty() && s.uplink_sdf_filter.is_some() {
        issues.add(
            "sessions.uplink_sdf_filter",
            "with qos_flows each flow gives its own `sdf`: leave this out",
        );
    }
    let q = &s.qer;
    if !s.qos_flows.is_empty()
        && [q.mbr_uplink, q.mbr_downlink, q.gbr_uplink, q.gbr_downlink]
            .iter()
            .any(Option::is_some)
    {
        issues.add(
            "sessions.qer",
            "with qos_flows each flow gives its own `mbr` and `gbr`: leave the session QER's \
             bit rates out",
        );
    }
}

/// A flow's bit rates: within a QER's range, GBR only with an MBR and at most it.
fn check_rates(f: &QosFlow, at: &dyn Fn(&str) -> String, issues: &mut Issues) {
    for (name, rates) in [("mbr", f.mbr), ("gbr", f.gbr)] {
        let Some(r) = rates else { continue };
        for (dir, v) in [("uplink", r.uplink), ("downlink", r.downlink)] {
            if v.is_some_and(|b| b > MAX_QOS_BPS) {
                issues.add(
                    join_key(&at(name), dir),
                    "above the 2^40-1 kbit/s a QER can carry",
                );
            }
        }
    }
    let Some(gbr) = f.gbr else { return };
    for (dir, uplink) in [("uplink", true), ("downlink", false)] {
        let Some(g) = gbr.get(uplink) else { continue };
        match f.mbr(uplink) {
            None => issues.add(
                join_key(&at("gbr"), dir),
                format!("a GBR flow has an MBR too: give mbr.{dir}"),
            ),
            Some(m) if g > m => issues.add(
                join_key(&at("gbr"), dir),
                format!(
                    "the guaranteed bit rate {g} bit/s is above the maximum, mbr.{dir} {m} bit/s"
                ),
            ),
            Some(_) => {}
        }
    }
}

/// A stream's `family` and `qfi` against the sessions, and a `%mbr` rate against its flow.
pub(super) fn check_stream_flow(
    s: &Sessions,
    st: &Stream,
    at: &dyn Fn(&str) -> String,
    issues: &mut Issues,
) {
    match (st.family, s.pdn_type) {
        (None, PdnType::Ipv4v6) => issues.add(
            at("family"),
            "missing: with pdn_type ipv4v6 a stream says which family it sends (ipv4 or ipv6)",
        ),
        (Some(Family::Ipv6), PdnType::Ipv4) => issues.add(
            at("family"),
            "the sessions are IPv4 (pdn_type ipv4): set pdn_type to ipv6 or ipv4v6",
        ),
        (Some(Family::Ipv4), PdnType::Ipv6) => issues.add(
            at("family"),
            "the sessions are IPv6 (pdn_type ipv6): set pdn_type to ipv4 or ipv4v6",
        ),
        _ => {}
    }
    if let Some(q) = st.qfi {
        let known = if s.qos_flows.is_empty() {
            s.qfi == Some(q)
        } else {
            s.qos_flow(q).is_some()
        };
        if !known {
            issues.add(
                at("qfi"),
                format!(
                    "QFI {} is not among the sessions' flows ({})",
                    q.get(),
                    flow_list(s)
                ),
            );
            return;
        }
    } else if s.qos_flows.len() > 1 {
        issues.add(
            at("qfi"),
            format!(
                "missing: the sessions have several QoS flows ({}): name the stream's",
                flow_list(s)
            ),
        );
        return;
    }
    if let Rate::MbrPercent(_) = st.rate {
        for (uplink, dir) in [(true, "uplink"), (false, "downlink")] {
            let sends = if uplink {
                st.direction.uplink()
            } else {
                st.direction.downlink()
            };
            if sends && s.stream_mbr(st, uplink).is_none() {
                let whose = match s.stream_qfi(st) {
                    Some(q) if !s.qos_flows.is_empty() => format!("flow QFI {}", q.get()),
                    _ => "the session's QER (sessions.qer)".to_owned(),
                };
                issues.add(
                    at("rate"),
                    format!(
                        "{} is a share of an MBR, and {whose} has no {dir} MBR",
                        st.rate
                    ),
                );
            }
        }
    }
}

/// `QFI 1, 5, 9`, or `QFI 1` for the session's one.
fn flow_list(s: &Sessions) -> String {
    if s.qos_flows.is_empty() {
        return match s.qfi {
            Some(q) => format!("QFI {}", q.get()),
            None => "none".to_owned(),
        };
    }
    let qfis: Vec<String> = s
        .qos_flows
        .iter()
        .map(|f| f.qfi.get().to_string())
        .collect();
    format!("QFI {}", qfis.join(", "))
}

#[cfg(test)]
mod tests {
    use std::net::Ipv6Addr;

    use super::*;
    use crate::frame::FrameShape;

    fn shipped(name: &str) -> Profile {
        let path = format!("{}/../../profiles/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("shipped profile");
        crate::profile_from_str(&text, &path).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_v6_pool_gives_each_ue_a_64_and_its_address_2_in_it() {
        let p = shipped("ipv6");
        let s = &p.sessions;
        assert!(s.has_ipv6() && !s.has_ipv4());
        let v6 = |t: &str| t.parse::<Ipv6Addr>().unwrap();
        assert_eq!(s.ue_prefix_v6(0), v6("2001:db8:45::"));
        assert_eq!(s.ue_address_v6(0), v6("2001:db8:45::2"));
        assert_eq!(s.ue_prefix_v6(3), v6("2001:db8:45:3::"));
        assert_eq!(s.ue_address_v6(3), v6("2001:db8:45:3::2"));
        assert_eq!(p.stream_family(&p.streams[0]), IpFamily::Ipv6);
        // A /128 per UE: the pool's addresses from ::2.
        let mut s = s.clone();
        s.ue_prefix_len = 128;
        assert_eq!(s.ue_address_v6(0), v6("2001:db8:45::2"));
        assert_eq!(s.ue_address_v6(300), v6("2001:db8:45::12e"));
    }

    #[test]
    fn dual_stack_streams_say_their_family() {
        let p = shipped("dual-stack");
        assert!(p.sessions.has_ipv4() && p.sessions.has_ipv6());
        let families: Vec<IpFamily> = p.streams.iter().map(|s| p.stream_family(s)).collect();
        assert_eq!(families, [IpFamily::Ipv4, IpFamily::Ipv6]);
        assert_eq!(p.sessions.ue_address(0).to_string(), "10.45.0.2");
    }

    #[test]
    fn percent_of_mbr_resolves_on_the_flow_of_each_direction() {
        let p = shipped("qos");
        let s = &p.sessions;
        assert_eq!(s.qos_flows.len(), 3);
        let gbr = &p.streams[0];
        assert_eq!(s.stream_qfi(gbr).map(Qfi::get), Some(1));
        assert_eq!(s.stream_mbr(gbr, true), Some(5_000_000));
        assert_eq!(s.stream_mbr(gbr, false), Some(10_000_000));
        // 150% of 5 Mbit/s in 328-byte inner IPv4 packets (300 + 28), for each session.
        let ip = FrameShape::default().inner_ip_len(300);
        let pps = p.stream_pps(gbr, true, 0, ip, None).unwrap();
        assert!((pps - 1.5 * 5e6 / (328.0 * 8.0)).abs() < 1e-9, "{pps}");
        let pps = p.stream_pps(gbr, false, 0, ip, None).unwrap();
        assert!((pps - 1.5 * 10e6 / (328.0 * 8.0)).abs() < 1e-9, "{pps}");
        // The QER that polices it: its own, keyed by its QFI, with its GBR.
        assert_eq!(
            s.stream_qer(gbr, false),
            Some((Qfi::new(1).unwrap(), 10_000_000, Some(10_000_000)))
        );
        let flow = s.qos_flow(Qfi::new(1).unwrap()).unwrap();
        assert_eq!(flow.flow_description().unwrap().protocol, Some(17));
        assert!(s.qos_flow(Qfi::new(9).unwrap()).unwrap().sdf.is_none());
    }

    #[test]
    fn a_single_flow_profile_takes_mbr_from_the_session_qer() {
        let p = crate::profile_from_str(
            "name: x\nsessions: {qer: {mbr_uplink: 1Mbps}}\n\
             streams: [{name: a, direction: uplink, rate: 80%mbr, payload: 100}]\n",
            "p.yaml",
        )
        .expect("valid");
        assert_eq!(p.sessions.stream_qfi(&p.streams[0]).map(Qfi::get), Some(1));
        let pps = p.stream_pps(&p.streams[0], true, 0, 128, None).unwrap();
        assert!((pps - 0.8e6 / 1024.0).abs() < 1e-9);
    }
}
