//! TX burst shape through a real transmit queue: the TX worker's shares
//! (datapath::generator::tx::TxShare) polled with synthetic ticks on a ring-pair port, everything a poll
//! hands to the queue read back from the peer before the next poll. A stall makes at most the
//! profile's `max_burst` go out at once (100 here, above the 64 of one DPDK burst), the schedule
//! slips by exactly the time it was late beyond that, a full queue holds it at the allowance,
//! shares on one queue split `max_burst` between them, and in the end every packet was sent once,
//! each flow's sequence numbers in order, and each flow's `sent` is exact.
//!
//! EAL initialises once per process: this is a `harness = false` test binary, its EAL
//! (`--no-huge`) and its runner upfbench-testkit's, which print the outcome the way libtest does.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::process::ExitCode;

use upfbench_config as config;
use upfbench_datapath::service::Interface;
use upfbench_datapath::vlan::PortTags;
use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, MbufBurst, Mempool, Port, PortConfig, RxQueue, Socket, TemplatePool,
    TxQueue,
};
use upfbench_generator::datapath::frames::{Endpoints, Endpoints6, stream_template};
use upfbench_generator::datapath::tx::{ShareSpec, TxShare, share_ues};
use upfbench_net::tag::{TAG_LEN, Tag};
use upfbench_net::{MacAddr, Teid};
use upfbench_run::plan::{self, Plan, ScheduleSlip, UplinkTeids};
use upfbench_stats::{StreamSpec, TxStats};
use upfbench_testkit::eal::{self, EalSetup};
use upfbench_testkit::runner::Runner;

const SYSTEM: &str = include_str!("../../../deploy/systems/memif.yaml");
/// One uplink stream at 1 Mpps to 4 UEs for 10 ms: 10,000 packets, one worker, one share.
const ONE_STREAM: &str = "name: shape\nmax_burst: 100\nsessions: {count: 4}\nstreams:\n  - {name: ul, direction: uplink, rate: 1Mpps, payload: 20}\nduration: 10ms\n";
/// Three uplink streams at 7, 4 and 1 Mpps (an IMIX's proportions) for 2 ms, on one queue.
const THREE_STREAMS: &str = "name: imix\nmax_burst: 32\nsessions: {count: 6}\nstreams:\n  - {name: a, direction: uplink, rate: 7Mpps, payload: 20, ues: {first: 0, count: 2}}\n  - {name: b, direction: uplink, rate: 4Mpps, payload: 300, ues: {first: 2, count: 2}}\n  - {name: c, direction: uplink, rate: 1Mpps, payload: 1000, ues: {first: 4, count: 2}}\nduration: 2ms\n";
/// A clock on which 1 Mpps is one packet per 1024 ticks.
const HZ: u64 = 1_024_000_000;
const TICKS_PER_US: u64 = 1024;

type Outcome = Result<(), String>;
/// A case: runs on the process's EAL with a pool for the ports.
type Case = fn(&Eal, &Mempool<'_>) -> Outcome;

fn plan(profile: &str) -> Plan {
    let (s, p) = config::run_from_str(SYSTEM, "memif.yaml", profile, "p.yaml").expect("valid");
    plan::build(&s, &p, None, [Some(1e11), Some(1e11)]).expect("plan")
}

fn endpoints(us: MacAddr) -> Endpoints {
    let interface = |address| Interface {
        mac: us,
        address,
        prefix_len: 24,
        secondary: None,
    };
    Endpoints {
        local: [
            interface(Ipv4Addr::new(192, 168, 13, 131)),
            interface(Ipv4Addr::new(192, 168, 16, 152)),
        ],
        upf_n3: Ipv4Addr::new(192, 168, 13, 151),
        next_hop_mac: [MacAddr([2, 0, 0, 0, 0, 0x51]); 2],
        v6: Endpoints6::NONE,
        tags: [PortTags::UNTAGGED; 2],
    }
}

/// The shares of worker 0, as the run builds them, each with its template's payload and UE
/// offsets.
fn shares<'e>(
    eal: &'e Eal,
    plan: &Plan,
    e: &Endpoints,
    name: &str,
) -> Vec<(TxShare<'e>, usize, usize)> {
    let teid = |ue: u32| match plan.ues.uplink_teid {
        UplinkTeids::Sequence(s) => s.get(ue),
        UplinkTeids::ChosenByUpf => Teid::ZERO,
    };
    plan.workers[0]
        .shares
        .iter()
        .map(|share| {
            let stream = plan.stream(share.stream);
            let first = stream.ues.start + share.first;
            let template =
                stream_template(stream, plan.ues.address_v4(first), teid(first), None, e)
                    .expect("template");
            let pool = TemplatePool::new(
                eal,
                &format!("{name}{}", share.stream),
                4095,
                0,
                template.bytes(),
                template.patch_range(TAG_LEN).expect("patchable"),
                Socket::Any,
            )
            .expect("pool");
            let ues = share_ues(stream, share, &plan.ues, &template, &teid);
            let offsets = (template.payload_offset(), template.ue_offset());
            let s = TxShare::new(ShareSpec::new(stream, share, 0.0), pool, template, ues);
            (s, offsets.0, offsets.1)
        })
        .collect()
}

/// Two ports joined back to back (`name` and its peer), started: `f` gets EAL (for the
/// shares, which must not outlive the queues), the endpoints of the first (its MAC), its TX
/// queue, and the peer's side.
fn ring_pair(
    eal: &Eal,
    pool: &Mempool<'_>,
    name: &str,
    f: impl for<'p> FnOnce(&'p Eal, Endpoints, TxQueue<'p>, Peer<'p>) -> Outcome,
) -> Outcome {
    let [a, b] = eal
        .create_ring_pair([name, &format!("{name}peer")], 1)
        .map_err(|e| e.to_string())?;
    let (mut pa, mut pb) = (
        Port::by_id(eal, a).map_err(|e| e.to_string())?,
        Port::by_id(eal, b).map_err(|e| e.to_string())?,
    );
    let e = endpoints(MacAddr(pa.mac().map_err(|e| e.to_string())?.0));
    let cfg = PortConfig::default();
    let sa = pa.start(&cfg, pool).map_err(|e| e.to_string())?;
    let sb = pb.start(&cfg, pool).map_err(|e| e.to_string())?;
    let mut qa = sa.queues().map_err(|e| e.to_string())?;
    let mut qb = sb.queues().map_err(|e| e.to_string())?;
    let peer = Peer {
        rx: qb.rx.remove(0),
        frames: Vec::new(),
    };
    f(eal, e, qa.tx.remove(0), peer)
}

/// The peer's side of the queue: what it received, in order.
struct Peer<'p> {
    rx: RxQueue<'p>,
    frames: Vec<Vec<u8>>,
}

impl<'p> Peer<'p> {
    /// Polls `share` at `t` on `tx`, checks it handed over at most `max_burst`, and (with
    /// `drain`) that the peer got just that; returns the count.
    fn poll(
        &mut self,
        share: &mut TxShare<'p>,
        tx: &mut TxQueue<'p>,
        t: u64,
        drain: bool,
    ) -> Result<u64, String> {
        let sent = share.poll(t, t, tx);
        check(sent <= 100, || {
            format!("{sent} handed over in one poll at {t}")
        })?;
        if drain {
            let got = self.drain();
            check(got == sent, || {
                format!("poll said {sent}, the peer got {got}")
            })?;
        }
        Ok(sent)
    }

    /// Takes everything waiting; returns how many.
    fn drain(&mut self) -> u64 {
        let mut n = 0;
        loop {
            let mut burst = MbufBurst::<64>::new();
            let got = self.rx.rx_burst(&mut burst);
            if got == 0 {
                return n;
            }
            n += got as u64;
            self.frames.extend(burst.iter().map(|m| m.data().to_vec()));
        }
    }
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Outcome {
    if ok { Ok(()) } else { Err(what()) }
}

/// Each flow's packets arrived once each, sequence numbers 0, 1, 2, ... in order; returns the
/// packets per UE address.
fn flows_in_order(
    frames: &[Vec<u8>],
    payload_at: usize,
    ue_at: usize,
) -> Result<BTreeMap<[u8; 4], u64>, String> {
    let mut next: BTreeMap<[u8; 4], u64> = BTreeMap::new();
    for f in frames {
        let tag = Tag::parse(&f[payload_at..]).map_err(|e| format!("tag: {e:?}"))?;
        let ue: [u8; 4] = f[ue_at..ue_at + 4].try_into().expect("4 bytes");
        let n = next.entry(ue).or_default();
        check(u64::from(tag.sequence) == *n, || {
            format!("UE {ue:?}: sequence {} after {}", tag.sequence, *n)
        })?;
        *n += 1;
    }
    Ok(next)
}

/// A stall sends `max_burst` = 100 at once (two DPDK bursts), the schedule slips by exactly the
/// rest of the lateness, a full queue holds the share at its allowance, and all 10,000 packets
/// go out once each with exact per-flow counts.
fn one_share_after_a_stall_and_a_full_queue(eal: &Eal, pool: &Mempool<'_>) -> Outcome {
    let plan = plan(ONE_STREAM);
    ring_pair(eal, pool, "one", |eal, e, mut tx, mut peer| {
        let mut shares = shares(eal, &plan, &e, "one");
        check(shares.len() == 1, || format!("{} shares", shares.len()))?;
        let (share, payload_at, ue_at) = &mut shares[0];
        check(plan.workers[0].shares[0].allowance == 100, || {
            "the share's allowance is the profile's max_burst".into()
        })?;
        share.start_measured(HZ, 0);
        let mut t = 0;
        stall_then_slip(&mut peer, share, &mut tx, &mut t)?;
        full_queue_then_second_slip(&mut peer, share, &mut tx, &mut t)?;
        let polls = finish(&mut peer, share, &mut tx, &mut t)?;
        check_every_flow_exact(&plan, share, &peer.frames, *payload_at, *ue_at)?;
        println!(
            "one share: slip {:?}, {} polls to finish",
            share.slip(),
            polls
        );
        Ok(())
    })
}

/// 1 Mpps from the start: packet 0, then 10 per 10 us; after a stall of 5 ms, `max_burst` = 100
/// at once and the schedule slips by the rest of the lateness, then 10 per 10 us again.
fn stall_then_slip<'p>(
    peer: &mut Peer<'p>,
    share: &mut TxShare<'p>,
    tx: &mut TxQueue<'p>,
    t: &mut u64,
) -> Outcome {
    check(peer.poll(share, tx, *t, true)? == 1, || {
        "packet 0 at the start".into()
    })?;
    for _ in 0..50 {
        *t += 10 * TICKS_PER_US;
        let n = peer.poll(share, tx, *t, true)?;
        check(n == 10, || format!("{n} in 10 us at 1 Mpps"))?;
    }
    // 501 sent; a stall of 5 ms.
    *t += 5_000 * TICKS_PER_US;
    let n = peer.poll(share, tx, *t, true)?;
    check(n == 100, || {
        format!("{n} after the stall, max_burst is 100")
    })?;
    // Packets 501 to 600 went; packet 600 (the 100th waiting) is due now instead of at 600 us:
    // that is the slip.
    let want = ScheduleSlip {
        count: 1,
        ticks: *t - 600 * TICKS_PER_US,
        max_ticks: *t - 600 * TICKS_PER_US,
    };
    check(share.slip() == want, || {
        format!("slip {:?}, want {want:?}", share.slip())
    })?;
    // The rest of the schedule moved by as much: 10 per 10 us again, no catching up.
    for _ in 0..20 {
        *t += 10 * TICKS_PER_US;
        let n = peer.poll(share, tx, *t, true)?;
        check(n == 10, || format!("{n} in 10 us after the slip"))?;
    }
    Ok(())
}

/// The peer stops reading: the ring fills; once it reads again, the refused packets and new
/// ones go out, 100 in all, and the share slips a second time.
fn full_queue_then_second_slip<'p>(
    peer: &mut Peer<'p>,
    share: &mut TxShare<'p>,
    tx: &mut TxQueue<'p>,
    t: &mut u64,
) -> Outcome {
    // The peer stops reading: the ring (1,023 packets) fills, the share keeps what the queue
    // refuses and stays at its allowance.
    let mut held = 0;
    for _ in 0..300 {
        *t += 10 * TICKS_PER_US;
        held += peer.poll(share, tx, *t, false)?;
    }
    check(held == 1023, || format!("{held} went into a ring of 1023"))?;
    let got = peer.drain();
    check(got == held, || format!("{got} read of {held}"))?;
    // The next poll sends what the queue refused and new packets, 100 in all, and the share
    // finds itself late: a second slip.
    *t += 10 * TICKS_PER_US;
    let n = peer.poll(share, tx, *t, true)?;
    check(n == 100, || {
        format!("{n} after the queue took packets again")
    })?;
    check(share.slip().count == 2, || {
        format!("a full queue is a second slip: {:?}", share.slip())
    })?;
    Ok(())
}

/// Polls until the share is done, nothing left unsent and 10,000 frames received; returns the
/// polls it took.
fn finish<'p>(
    peer: &mut Peer<'p>,
    share: &mut TxShare<'p>,
    tx: &mut TxQueue<'p>,
    t: &mut u64,
) -> Result<u64, String> {
    let mut polls = 0;
    while !share.done() {
        *t += 10 * TICKS_PER_US;
        peer.poll(share, tx, *t, true)?;
        polls += 1;
        check(polls < 10_000, || "the share never finished".into())?;
    }
    check(share.rewind_unsent() == 0, || "nothing left unsent".into())?;
    check(peer.frames.len() == 10_000, || {
        format!("{} frames of 10,000", peer.frames.len())
    })?;
    Ok(polls)
}

/// Each flow arrived in order and the share's `sent` is exact: 2,500 per UE.
fn check_every_flow_exact(
    plan: &Plan,
    share: &TxShare<'_>,
    frames: &[Vec<u8>],
    payload_at: usize,
    ue_at: usize,
) -> Outcome {
    let per_ue = flows_in_order(frames, payload_at, ue_at)?;
    let specs = vec![
        StreamSpec {
            direction: upfbench_stats::Direction::Uplink,
            first_seq: 0,
        };
        plan.flows as usize
    ];
    let (mut stats, _) = TxStats::new(0, &specs);
    share.account(&mut stats);
    for ue in 0..plan.flows {
        let address = plan.ues.address_v4(ue).octets();
        let received = per_ue.get(&address).copied().unwrap_or(0);
        check(stats.sent(ue) == received && received == 2_500, || {
            format!("UE {ue}: sent {}, received {received}", stats.sent(ue))
        })?;
    }
    Ok(())
}

/// Three shares on one queue split `max_burst` = 32 by rate (18, 11, 3): after a stall the
/// queue gets exactly 32 per loop over the three, never more, and each stream sends all of its
/// packets.
fn three_shares_on_one_queue(eal: &Eal, pool: &Mempool<'_>) -> Outcome {
    let plan = plan(THREE_STREAMS);
    ring_pair(eal, pool, "three", |eal, e, mut tx, mut peer| {
        let mut shares = shares(eal, &plan, &e, "three");
        for (s, _, _) in &mut shares {
            s.start_measured(HZ, 0);
        }
        let mut t = 0;
        for _ in 0..100 {
            round(&mut shares, &mut tx, &mut peer, t)?;
            t += TICKS_PER_US;
        }
        // A 500 us stall: 3,500, 2,000 and 500 packets late; the queue gets 32.
        t += 500 * TICKS_PER_US;
        let n = round(&mut shares, &mut tx, &mut peer, t)?;
        check(n == 32, || format!("{n} after the stall"))?;
        for (s, _, _) in &shares {
            check(s.slip().count == 1, || {
                format!("stream {}: {:?}", s.stream(), s.slip())
            })?;
        }
        let mut rounds = 0;
        while !shares.iter().all(|(s, _, _)| s.done()) {
            t += TICKS_PER_US;
            round(&mut shares, &mut tx, &mut peer, t)?;
            rounds += 1;
            check(rounds < 100_000, || "the shares never finished".into())?;
        }
        let mut per_stream = [0u64; 3];
        for f in &peer.frames {
            let (_, payload_at, _) = shares
                .iter()
                .find(|(s, _, _)| s.frame_len() as usize == f.len())
                .ok_or("a frame of no share's length")?;
            let tag = Tag::parse(&f[*payload_at..]).map_err(|e| format!("tag: {e:?}"))?;
            per_stream[usize::from(tag.stream)] += 1;
        }
        check(per_stream == [14_000, 8_000, 2_000], || {
            format!("sent per stream {per_stream:?}")
        })?;
        let parts: Vec<u32> = plan.workers[0].shares.iter().map(|s| s.allowance).collect();
        check(parts == [18, 11, 3], || format!("allowances {parts:?}"))?;
        println!(
            "three shares: slips {:?}",
            shares.iter().map(|(s, _, _)| s.slip()).collect::<Vec<_>>()
        );
        Ok(())
    })
}

/// One worker loop: every share polled at `t`, then the peer reads what the queue got, at
/// most `max_burst` = 32; returns that count.
fn round<'p>(
    shares: &mut [(TxShare<'p>, usize, usize)],
    tx: &mut TxQueue<'p>,
    peer: &mut Peer<'p>,
    t: u64,
) -> Result<u64, String> {
    let sent: u64 = shares.iter_mut().map(|(s, _, _)| s.poll(t, t, tx)).sum();
    let got = peer.drain();
    check(got == sent && got <= 32, || {
        format!("one loop handed {sent} to the queue (the peer got {got}), max_burst 32")
    })?;
    Ok(got)
}

fn main() -> ExitCode {
    let cases: [(&str, Case); 2] = [
        (
            "one_share_after_a_stall_and_a_full_queue",
            one_share_after_a_stall_and_a_full_queue,
        ),
        ("three_shares_on_one_queue", three_shares_on_one_queue),
    ];
    let setup = EalSetup::new("tx-shape").memory_mb(512);
    eal::main(Runner::new(cases), setup, |eal, runner| match Mempool::new(
        eal,
        "tx-shape",
        4095,
        0,
        DEFAULT_DATA_ROOM,
        Socket::Any,
    ) {
        Ok(pool) => runner.run(|case| case(eal, &pool).into()),
        Err(e) => runner.fail_all(format!("the ports' pool: {e}")),
    })
}
