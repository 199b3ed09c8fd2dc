//! A profile's own checks: everything that can be known from the profile alone.

use std::collections::HashSet;
use std::net::IpAddr;
use std::time::Duration;

use super::teid::{check_teid_range, ranges_share_a_teid};
use super::{
    Direction, DirectionSet, MAX_LATENCY, MAX_PPS, MAX_QOS_BPS, Profile, Sessions, Spread,
    TeidAllocation, TxMode, UeSelection,
};
use crate::field::{join_index, join_key};
use crate::frame::{FrameShape, MAX_PAYLOAD, TAG};
use crate::issues::{Check, Issues, nonzero};
use crate::kind::FileKind;
use crate::system::check_kind;
use crate::units::Rate;
use upfbench_net::IpFamily;

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
        Rate::MbrPercent(p) if p > 1000.0 => {
            issues.add(
                field,
                format!("{rate} is above 10 times the MBR: at most 1000%mbr"),
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
    /// The IPv6 pool: IPv6, a network, prefixes of a length the pool holds, room for every UE.
    fn check_ue_pool_v6(&self, issues: &mut Issues) {
        let pool = self.ue_pool_v6;
        if pool.addr.is_ipv4() {
            issues.add(
                "sessions.ue_pool_v6",
                format!("{pool} is IPv4: the IPv6 pool is an IPv6 network like 2001:db8:45::/48"),
            );
            return;
        }
        if !pool.is_network() {
            issues.add(
                "sessions.ue_pool_v6",
                format!(
                    "{pool} has host bits set: write the network, {}/{}",
                    pool.network(),
                    pool.len
                ),
            );
        }
        let len = self.ue_prefix_len;
        if !(len <= 64 || len == 128) {
            issues.add(
                "sessions.ue_prefix_len",
                format!(
                    "/{len}: a UE gets a /64 (TS 23.501 §5.8.2.2.2), a shorter delegated \
                     prefix, or a /128 address"
                ),
            );
            return;
        }
        if len < pool.len {
            issues.add(
                "sessions.ue_prefix_len",
                format!("/{len} is shorter than the pool {pool}: a UE's prefix is in the pool"),
            );
            return;
        }
        // /128: the pool's addresses from ::2; else whole prefixes.
        let bits = u32::from(len - pool.len);
        let reserved = if len == 128 { 2 } else { 0 };
        let room = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits).saturating_sub(reserved)
        };
        if u64::from(self.count) > room {
            issues.add(
                "sessions.count",
                format!(
                    "{} UEs do not fit the IPv6 pool {pool}: it has {room} /{len} {} (write a \
                     shorter pool)",
                    self.count,
                    if len == 128 { "addresses" } else { "prefixes" }
                ),
            );
        }
    }

    /// The UE pool and the first UE: IPv4, the first UE in the pool, and room for every UE.
    fn check_ue_pool(&self, issues: &mut Issues) {
        let Some(pool) = self.ue_pool.v4() else {
            issues.add(
                "sessions.ue_pool",
                format!(
                    "{}: `ue_pool` is the IPv4 pool: IPv6 UEs take their prefixes from \
                     `ue_pool_v6` (pdn_type ipv6 or ipv4v6)",
                    self.ue_pool
                ),
            );
            return;
        };
        if !self.has_ipv4() {
            return;
        }
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

impl Sessions {
    /// The uplink and downlink TEID ranges: each fits its sessions, and they share no TEID.
    fn check_teids(&self, issues: &mut Issues) {
        let n = self.count;
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
    }

    /// The QFI and what needs it: the PDU Session Container and the uplink PDR's match.
    fn check_qfi(&self, issues: &mut Issues) {
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
    }

    /// The QER's bit rates: given only when it is on, within what PFCP carries, and each GBR
    /// at most its MBR.
    fn check_qer(&self, issues: &mut Issues) {
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
    }

    /// The URR, if any: something to report on, in whole seconds.
    fn check_urr(&self, issues: &mut Issues) {
        let Some(urr) = &self.urr else {
            return;
        };
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

impl Check for Sessions {
    fn check(&self, issues: &mut Issues) {
        if self.count == 0 {
            issues.add("sessions.count", "at least one session is needed");
        }
        self.check_ue_pool(issues);
        if self.has_ipv6() {
            self.check_ue_pool_v6(issues);
        }
        super::qos::check_qos_flows(self, issues);
        self.check_teids(issues);
        self.check_qfi(issues);
        if let Some(filter) = &self.uplink_sdf_filter
            && !filter.starts_with("permit ")
        {
            issues.add(
                "sessions.uplink_sdf_filter",
                "an SDF filter is an IPFilterRule: `permit out ip from any to assigned`",
            );
        }
        self.check_qer(issues);
        if let Some(dnn) = &self.dnn {
            check_dns_name(dnn, "sessions.dnn", issues);
        }
        check_dns_name(&self.network_instance, "sessions.network_instance", issues);
        self.check_urr(issues);
    }
}

impl Profile {
    /// The streams: at least one, each with a name of its own, a rate, a payload, ports and
    /// UEs that exist.
    fn check_streams(&self, issues: &mut Issues) {
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
            let v6_max = FrameShape {
                inner: IpFamily::Ipv6,
                ..FrameShape::default()
            }
            .max_payload();
            if self.stream_family(s) == IpFamily::Ipv6 && usize::from(s.payload) > v6_max {
                issues.add(
                    at("payload"),
                    format!(
                        "{} bytes make an inner IPv6 packet over the 1500-byte MTU: use at most \
                         {v6_max}",
                        s.payload
                    ),
                );
            }
            super::qos::check_stream_flow(&self.sessions, s, &at, issues);
            for (f, port) in [("src_port", s.src_port), ("dst_port", s.dst_port)] {
                if port == 0 {
                    issues.add(at(f), "UDP port 0 is reserved");
                }
            }
            if let UeSelection::Range { first, count } = s.ues {
                self.check_stream_ues(first, count, &at, issues);
            }
            if s.spread == Spread::Consecutive(0) {
                issues.add(at("spread.consecutive"), "at least 1 packet per UE");
            }
        }
    }

    /// A stream's range of `count` UEs from `first` (`at` names its fields): at least one, all
    /// among the sessions.
    fn check_stream_ues(
        &self,
        first: u32,
        count: u32,
        at: &dyn Fn(&str) -> String,
        issues: &mut Issues,
    ) {
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

    /// The transmit mode: a duration, or bursts with packets (and gaps between them).
    fn check_tx_mode(&self, issues: &mut Issues) {
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
    }

    /// The sending's and the measurement's knobs: drain, burst size, catch-up, reorder window,
    /// the latency histogram's digits and range.
    fn check_knobs(&self, issues: &mut Issues) {
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
        } else if self.latency.max > MAX_LATENCY {
            issues.add(
                "latency.max",
                format!(
                    "{:?} is beyond what the measurement tag tells: its 32-bit transmit time in \
                     ns measures up to {MAX_LATENCY:?}",
                    self.latency.max
                ),
            );
        }
    }

    /// The sweep's payloads: at least one, each valid and listed once.
    fn check_sweep(&self, issues: &mut Issues) {
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

    /// Each direction set the search measures has a stream that sends it.
    fn check_search_directions(&self, issues: &mut Issues) {
        for (i, d) in self.search.directions.iter().enumerate() {
            let has = |want: Direction| {
                self.streams
                    .iter()
                    .any(|s| s.direction == want || s.direction == Direction::Both)
            };
            let missing = match d {
                DirectionSet::Uplink => !has(Direction::Uplink),
                DirectionSet::Downlink => !has(Direction::Downlink),
                DirectionSet::Both => false,
            };
            if missing {
                issues.add(
                    join_index("search.directions", i),
                    format!("no stream sends {}", d.name()),
                );
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
        self.check_streams(issues);
        self.check_tx_mode(issues);
        self.check_knobs(issues);
        self.check_sweep(issues);
        if let Some(m) = &self.mobility {
            super::mobility::check(self, m, issues);
        }
        if let Some(c) = &self.churn {
            super::churn::check(self, c, issues);
            if self.mobility.is_some() {
                issues.add(
                    "churn",
                    "churn and mobility in one profile are not supported yet: measure them apart",
                );
            }
        }
        if let Some(g) = &self.qos_gate {
            super::gate::check(self, g, issues);
        }
        self.search.check(issues);
        self.capacity.check(self.sessions.count, issues);
        self.check_search_directions(issues);
    }
}
