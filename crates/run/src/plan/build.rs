//! From a validated system file and profile to the plan of one measured step.
//!
//! Everything here is arithmetic on the configuration; the only outside facts are the ports'
//! line rates (for rates given as a percentage, when the system file does not state them).

use std::time::Duration;

use std::net::IpAddr;

use upfbench_net::{IpFamily, Qfi};
use upfbench_stats::{Direction, LatencyConfig, PortName};

use super::placement::{PairLcores, Share, WorkerPlan, place_pairs};
use super::stream::{Schedule, Spread, StreamPlan, StreamQer};
use super::ue::{TeidSequence, UeTable, UeV6, UplinkTeids};
use upfbench_config::{self as config, Profile, System, TeidAllocation, TxMode, frame};

/// One measured step: a payload size of a sweep, or the profile as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The UEs.
    pub ues: UeTable,
    /// The QFI the run sets (PDU Session Containers, QER, uplink PDR), if any: with several QoS
    /// flows, the first's; each stream carries its own ([`StreamPlan::qfi`]).
    pub qfi: Option<Qfi>,
    /// The streams, directions resolved, by id.
    pub streams: Vec<StreamPlan>,
    /// Flows in all (the stats' stream ids `0..flows`).
    pub flows: u32,
    /// What each worker sends.
    pub workers: Vec<WorkerPlan>,
    /// Warm-up traffic, sent before the measured phase.
    pub warmup: Duration,
    /// How long the measured phase should take at the planned rates.
    pub expected: Duration,
    /// After the last packet, how long to keep receiving.
    pub drain: Duration,
    /// Most packets a worker puts back to back on one transmit queue (split over its shares
    /// there: [`Share::allowance`]).
    pub max_burst: u32,
    /// How much faster than its rate a late share may send to get back on schedule (a
    /// fraction: 0.1 is 10%).
    pub catch_up: f64,
    /// Reorder window per flow.
    pub reorder_window: u32,
    /// Latency histograms.
    pub latency: LatencyConfig,
    /// The payload size every stream has in this step, when a sweep set it.
    pub payload: Option<u16>,
    /// The step's handovers, when the profile has a `mobility` section.
    pub handovers: Option<std::sync::Arc<super::HandoverPlan>>,
    /// The step's session churn, when the profile has a `churn` section.
    pub churn: Option<super::ChurnStep>,
    /// The QoS flow whose gates close in the measured phase, when the profile has a `qos_gate`.
    pub qos_gate: Option<GatePlan>,
}

/// A QoS flow's gates, closed in every session during the measured phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatePlan {
    /// The flow.
    pub qfi: Qfi,
    /// The QER that polices it ([`StreamQer::key`]): what closes, for every flow it polices.
    pub qer: Qfi,
    /// The flows that QER polices: those whose packets must stop.
    pub qfis: Vec<Qfi>,
    /// When the modifications go, from the measured phase's start.
    pub close_at: Duration,
}

impl Plan {
    /// The stream `id`.
    pub fn stream(&self, id: u16) -> &StreamPlan {
        &self.streams[usize::from(id)]
    }

    /// The warm-up schedule of `share`: its rate for the warm-up's length.
    pub fn warmup_schedule(&self, share: &Share) -> Schedule {
        Schedule::Continuous {
            packets: (share.rate_pps * self.warmup.as_secs_f64()).round() as u64,
        }
    }

    /// The UEs whose sessions the step establishes: the traffic's, and its churn's after them.
    pub fn session_ues(&self) -> UeTable {
        let mut ues = self.ues;
        ues.count += self.churn.as_ref().map_or(0, |c| c.plan.count);
        ues
    }

    /// Packets the step sends in all.
    pub fn packets(&self) -> u64 {
        self.streams.iter().map(|s| s.schedule.total()).sum()
    }
}

/// A plan that cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// A rate given as a percentage of a line rate nobody knows.
    #[error(
        "stream {stream}: {rate} needs the {port} port's line rate: give `speed` in the system \
         file (the port reports none)"
    )]
    NoLineRate {
        /// The stream.
        stream: String,
        /// The rate as written.
        rate: String,
        /// The port the stream is sent on.
        port: PortName,
    },
    /// More streams (directions counted apart) than the tag's 16-bit stream id holds.
    #[error("{0} streams: the measurement tag holds at most 65536")]
    TooManyStreams(usize),
    /// A block of UEs that cannot be cut over the system's pairs.
    #[error("the UEs cannot be cut over the pairs: {0}")]
    Block(String),
    /// More flows than 32-bit flow ids hold.
    #[error("{0} flows (streams × UEs): at most 2^32")]
    TooManyFlows(u64),
    /// A stream whose rate comes out differently on two pairs (a percentage of ports of other
    /// line rates, or bits on frames of other sizes): its rate is shared by UE count.
    #[error(
        "stream {stream}: {rate} is {first_pps:.1} pps on pair {first} and {other_pps:.1} pps \
         on pair {other}: pairs of different line rates or frame sizes need the rate in pps"
    )]
    PairRates {
        /// The stream.
        stream: String,
        /// The rate as written.
        rate: String,
        /// The first pair's name and rate.
        first: String,
        /// Its rate (packets/s).
        first_pps: f64,
        /// The pair that differs, and its rate.
        other: String,
        /// Its rate (packets/s).
        other_pps: f64,
    },
}

/// The frame length a rate is counted on (layer 2 with FCS, padded to the minimum frame), for
/// a stream of `direction` with `payload` bytes on the wire of its sending port.
pub fn rate_frame_len(direction: Direction, payload: u16, container: bool) -> usize {
    match direction {
        Direction::Uplink => frame::n3_frame_len(usize::from(payload), container),
        Direction::Downlink => frame::n6_frame_len(usize::from(payload)),
    }
}

/// The plan of `profile` on `system`, with every stream's payload set to `payload` when a sweep
/// asks; `line_rate_bps` is each port's line rate (N3, N6) as read from the ports (every pair's
/// alike), used when the system file gives none.
pub fn build(
    system: &System,
    profile: &Profile,
    payload: Option<u16>,
    line_rate_bps: [Option<f64>; 2],
) -> Result<Plan, PlanError> {
    let links = vec![line_rate_bps; system.pairs().len()];
    build_pairs(system, profile, payload, &links)
}

/// [`build`] with each pair's ports' line rates as read from them (`line_rate_bps[k]`: pair
/// `k`'s N3 and N6; a pair without an entry has none). Each stream's rate is worked out on every
/// pair's ports, with the pair's frame shape (tags, N3 family) and line rates; they must agree,
/// as the rate is shared over the pairs by UE count ([`PlanError::PairRates`]).
pub fn build_pairs(
    system: &System,
    profile: &Profile,
    payload: Option<u16>,
    line_rate_bps: &[[Option<f64>; 2]],
) -> Result<Plan, PlanError> {
    let pairs = pair_lcores(system, profile.sessions.count);
    build_over(system, profile, payload, line_rate_bps, pairs)
}

/// [`build_pairs`] for the UEs `block` of the profile's sessions only (an agent's segment,
/// docs/scale.md §3 "Segments"), cut over the system's pairs by their weights: every UE keeps
/// its global index (its addresses, TEIDs and flows are those it has on one box), each stream
/// sends what falls on the block's UEs (`packets_of_block`), at the rate of its share. Refused
/// when the block has fewer UEs than the system has pairs ([`PlanError::Block`]).
pub fn build_block(
    system: &System,
    profile: &Profile,
    payload: Option<u16>,
    line_rate_bps: &[[Option<f64>; 2]],
    block: std::ops::Range<u32>,
) -> Result<Plan, PlanError> {
    let weights: Vec<u32> = system.pairs().iter().map(|p| p.weight()).collect();
    let blocks =
        super::segment::split(block, &weights).map_err(|e| PlanError::Block(e.to_string()))?;
    let pairs = system
        .pairs()
        .iter()
        .zip(blocks)
        .map(|(pair, ues)| PairLcores {
            lcores: &pair.workers,
            ues,
        })
        .collect();
    build_over(system, profile, payload, line_rate_bps, pairs)
}

/// The plan with the streams' UEs placed on `pairs`' workers (each pair its block of UEs).
fn build_over(
    system: &System,
    profile: &Profile,
    payload: Option<u16>,
    line_rate_bps: &[[Option<f64>; 2]],
    pairs: Vec<PairLcores<'_>>,
) -> Result<Plan, PlanError> {
    let s = &profile.sessions;
    let line: Vec<[Option<f64>; 2]> = system
        .pairs()
        .iter()
        .enumerate()
        .map(|(k, pair)| {
            let read = line_rate_bps.get(k).copied().unwrap_or_default();
            [
                pair.n3.speed.map(|b| b as f64).or(read[0]),
                pair.n6.speed.map(|b| b as f64).or(read[1]),
            ]
        })
        .collect();
    let Streams {
        streams,
        flows,
        longest,
    } = stream_plans(system, profile, payload, &line)?;
    let workers = place_pairs(&streams, &pairs, profile.max_burst);
    let churn = churn_step(system, profile, &streams, flows)?;
    Ok(Plan {
        ues: ue_table(s),
        qfi: s.qos_flows.first().map(|f| f.qfi).or(s.qfi),
        streams,
        flows: flows as u32,
        workers,
        warmup: profile.warmup,
        expected: longest,
        drain: profile.drain,
        max_burst: profile.max_burst,
        catch_up: profile.catch_up / 100.0,
        reorder_window: profile.reorder_window,
        latency: LatencyConfig {
            max_ns: profile.latency.max.as_nanos() as u64,
            significant_digits: profile.latency.digits,
        },
        payload,
        handovers: profile
            .mobility
            .as_ref()
            .map(|m| std::sync::Arc::new(super::HandoverPlan::new(m, s.count))),
        churn,
        qos_gate: profile.qos_gate.and_then(|g| {
            let qer = s.qer_of(g.qfi)?;
            Some(GatePlan {
                qfi: g.qfi,
                qer,
                qfis: s.flows_of_qer(qer),
                close_at: g.close_at,
            })
        }),
    })
}

/// Each pair's workers and its block of the `ues` UEs (cut by weight); one pair holding them all
/// when they cannot be cut (fewer UEs than pairs: refused when the files are checked).
fn pair_lcores(system: &System, ues: u32) -> Vec<PairLcores<'_>> {
    match system.ue_blocks(ues) {
        Some(blocks) => system
            .pairs()
            .iter()
            .zip(blocks)
            .map(|(pair, ues)| PairLcores {
                lcores: &pair.workers,
                ues,
            })
            .collect(),
        None => vec![PairLcores::all(&system.pair(0).workers)],
    }
}

/// The sessions' UEs, their addresses (IPv4, IPv6 prefixes, or both) and their TEIDs: what a
/// plan's `ues` is, and a coordinator's UEs over its agents.
pub fn ue_table(s: &config::Sessions) -> UeTable {
    let v6 = UeV6::new(s.ue_prefix_v6(0), s.ue_prefix_len);
    let first = if s.has_ipv4() {
        s.first_ue_address()
    } else {
        IpAddr::V6(v6.address(0))
    };
    let table = UeTable::new(
        s.count,
        first,
        match s.uplink_teid {
            TeidAllocation::Range(r) => UplinkTeids::Sequence(TeidSequence {
                first: r.first,
                step: r.step,
            }),
            TeidAllocation::ChosenByUpf => UplinkTeids::ChosenByUpf,
        },
        TeidSequence {
            first: s.downlink_teid.first,
            step: s.downlink_teid.step,
        },
    );
    if s.has_ipv6() {
        table.with_v6(v6)
    } else {
        table
    }
}

/// The profile's streams as planned.
struct Streams {
    /// By id, a stream of both directions as two.
    streams: Vec<StreamPlan>,
    /// Their flows in all (the next flow id).
    flows: u64,
    /// How long the longest sends.
    longest: Duration,
}

/// The profile's streams, each direction of a stream of both apart, with their rates on the
/// `line` rates (N3, N6) and their flow ids one after the other.
fn stream_plans(
    system: &System,
    profile: &Profile,
    payload: Option<u16>,
    line: &[[Option<f64>; 2]],
) -> Result<Streams, PlanError> {
    let mut out = Streams {
        streams: Vec::new(),
        flows: 0,
        longest: Duration::ZERO,
    };
    for st in &profile.streams {
        let directions: &[Direction] = match st.direction {
            config::Direction::Uplink => &[Direction::Uplink],
            config::Direction::Downlink => &[Direction::Downlink],
            config::Direction::Both => &[Direction::Uplink, Direction::Downlink],
        };
        for &direction in directions {
            let id = u16::try_from(out.streams.len())
                .map_err(|_| PlanError::TooManyStreams(out.streams.len() + 1))?;
            let at = StreamAt {
                direction,
                id,
                flow_base: out.flows,
            };
            let (plan, length) = stream_plan(system, profile, st, at, payload, line)?;
            out.longest = out.longest.max(length);
            out.flows += u64::from(plan.ues.end - plan.ues.start);
            out.streams.push(plan);
            if out.flows > u64::from(u32::MAX) {
                return Err(PlanError::TooManyFlows(out.flows));
            }
        }
    }
    Ok(out)
}

/// Where one direction of a stream goes in the plan: its direction, its id, its first flow.
struct StreamAt {
    direction: Direction,
    id: u16,
    flow_base: u64,
}

/// One direction of stream `st` as stream `at.id`, its flows from `at.flow_base`; and how long
/// it sends.
fn stream_plan(
    system: &System,
    profile: &Profile,
    st: &config::Stream,
    at: StreamAt,
    payload: Option<u16>,
    line: &[[Option<f64>; 2]],
) -> Result<(StreamPlan, Duration), PlanError> {
    let StreamAt {
        direction,
        id,
        flow_base,
    } = at;
    let s = &profile.sessions;
    let payload_len = payload.unwrap_or(st.payload);
    let container = direction == Direction::Uplink && s.pdu_session_container;
    let (shape, rate_pps) = pairs_rate(
        system,
        profile,
        st,
        (direction, container, payload_len),
        line,
    )?;
    let (first, count) = st.ues.bounds(s.count);
    // A QER is per session: a `%mbr` rate is each UE's share of its own flow's MBR, so the
    // stream, spread over `count` UEs, sends `count` times it.
    let rate_pps = match st.rate {
        config::Rate::MbrPercent(_) => rate_pps * f64::from(count),
        _ => rate_pps,
    };
    let (schedule, length) = schedule(profile, rate_pps);
    let name = match st.direction {
        config::Direction::Both => format!("{}/{}", st.name, direction.name()),
        _ => st.name.clone(),
    };
    let plan = StreamPlan {
        id,
        name,
        direction,
        payload_len,
        pdu_session_container: container,
        source_port: st.src_port,
        destination_port: st.dst_port,
        ues: first..first + count,
        flow_base: flow_base as u32,
        rate_pps,
        schedule,
        spread: match st.spread {
            config::Spread::RoundRobin => Spread::RoundRobin,
            config::Spread::Consecutive(n) => Spread::PerUe(n),
        },
        shape,
        qfi: s.stream_qfi(st),
        qer: s
            .stream_qer(st, direction == Direction::Uplink)
            .map(|(key, mbr_bps, gbr_bps)| StreamQer {
                key,
                mbr_bps,
                gbr_bps,
            }),
    };
    Ok((plan, length))
}

/// The frame shape of stream `st` in `direction` (its G-PDUs with a PDU Session Container or
/// not, of `payload` bytes) on the first pair and its rate (packets/s), worked out on each
/// pair's ports with their frame shapes and `line` rates: the same on every pair, or refused.
fn pairs_rate(
    system: &System,
    profile: &Profile,
    st: &config::Stream,
    (direction, container, payload): (Direction, bool, u16),
    line: &[[Option<f64>; 2]],
) -> Result<(frame::FrameShape, f64), PlanError> {
    let port_name = direction.sent_on();
    let port = port_name.index();
    let p = usize::from(payload);
    let mut rates = Vec::new();
    for (pair, line) in system.pairs().iter().zip(line) {
        let shape = pair.frame_shape(profile.stream_family(st));
        let frame_len = match direction {
            Direction::Uplink => shape.n3_frame_len(p, container),
            Direction::Downlink => shape.n6_frame_len(p),
        };
        let rate = profile
            .stream_pps(
                st,
                direction == Direction::Uplink,
                frame_len,
                shape.inner_ip_len(p),
                line[port],
            )
            .ok_or_else(|| PlanError::NoLineRate {
                stream: st.name.clone(),
                rate: st.rate.to_string(),
                port: port_name,
            })?;
        rates.push((pair.name.as_str(), shape, rate));
    }
    let (first, shape, rate_pps) = rates[0];
    if let Some(&(other, _, other_pps)) = rates.iter().find(|r| r.2 != rate_pps) {
        return Err(PlanError::PairRates {
            stream: st.name.clone(),
            rate: st.rate.to_string(),
            first: first.to_owned(),
            first_pps: rate_pps,
            other: other.to_owned(),
            other_pps,
        });
    }
    Ok((shape, rate_pps))
}

/// What a stream at `rate_pps` sends in the profile's transmit mode, and for how long.
fn schedule(profile: &Profile, rate_pps: f64) -> (Schedule, Duration) {
    match profile.tx_mode {
        TxMode::Continuous => {
            let packets = (rate_pps * profile.duration.as_secs_f64()).round() as u64;
            (Schedule::Continuous { packets }, profile.duration)
        }
        TxMode::SingleBurst { packets } => (
            Schedule::Bursts {
                packets,
                bursts: 1,
                gap_ns: 0,
            },
            Duration::from_secs_f64(packets as f64 / rate_pps),
        ),
        TxMode::MultiBurst {
            packets,
            bursts,
            gap,
        } => (
            Schedule::Bursts {
                packets,
                bursts,
                gap_ns: gap.as_nanos() as u64,
            },
            (Duration::from_secs_f64(packets as f64 / rate_pps) + gap) * bursts,
        ),
    }
}

/// The churn of the profile, if any: its probes a stream after `streams`, its flows from
/// `flow_base`.
fn churn_step(
    system: &System,
    profile: &Profile,
    streams: &[StreamPlan],
    flow_base: u64,
) -> Result<Option<super::ChurnStep>, PlanError> {
    let Some(c) = &profile.churn else {
        return Ok(None);
    };
    let id =
        u16::try_from(streams.len()).map_err(|_| PlanError::TooManyStreams(streams.len() + 1))?;
    let payload = streams.iter().map(|s| s.payload_len).min().unwrap_or(0);
    let mut plan = super::ChurnPlan::new(
        c,
        profile.duration,
        profile.sessions.count,
        id,
        flow_base as u32,
        payload,
    );
    // The probes go to the churn UEs in their first family.
    let family = if profile.sessions.has_ipv4() {
        IpFamily::Ipv4
    } else {
        IpFamily::Ipv6
    };
    plan.probe.shape = system.pair(0).frame_shape(family);
    if flow_base + u64::from(plan.count) > u64::from(u32::MAX) {
        return Err(PlanError::TooManyFlows(flow_base + u64::from(plan.count)));
    }
    Ok(Some(super::ChurnStep {
        plan: std::sync::Arc::new(plan),
        on: true,
    }))
}

#[cfg(test)]
mod tests;
