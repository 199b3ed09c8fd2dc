//! The reflector with two N3/N6 pairs over memif (the shipped memif-pairs-reflector.yaml),
//! driven by two single-pair generators at once, one on each pair. The reflector's PFCP server
//! serves one CP function (`pfcp.peer`), so the test is the SMF of both: it establishes each
//! generator's sessions (as that generator's run would plan them: its UEs, TEIDs and gNB
//! address) over one association, and the generators run with `--no-pfcp`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;
use upfbench_config as config;
use upfbench_n4::client_side::{ClientSide, ClientThread};
use upfbench_pfcp::Seid;
use upfbench_pfcp::plan::UeSessionPlan;

use crate::harness::{
    Figures, Process, Scratch, UPFBENCH, n4_pair, num, patch, read_report, reflector_drops,
    reflector_totals, repo, runtime_dir, serial, total, try_figures, unique,
};

/// Packets per second per direction per generator: low, as four busy-polling workers share the
/// machine's two CPUs.
const RATE: u64 = 10_000;
/// Seconds of each generator's measured phase.
const SECONDS: u64 = 2;

/// One pair's subnets: N3 `192.168.{n3}.0/24`, N6 `192.168.{n6}.0/24`.
#[derive(Clone, Copy)]
struct Subnets {
    name: &'static str,
    n3: u8,
    n6: u8,
}

const A: Subnets = Subnets {
    name: "a",
    n3: 13,
    n6: 16,
};
const B: Subnets = Subnets {
    name: "b",
    n3: 23,
    n6: 26,
};

/// A generator's profile: `ues` UEs from `first_ue`, TEIDs from `teid` (uplink odd, downlink
/// even), both directions at [`RATE`].
fn profile(ues: u32, first_ue: &str, teid: u32) -> String {
    format!(
        "name: pairs\n\
         sessions: {{count: {ues}, first_ue: {first_ue}, uplink_teid: {{first: {teid}, step: 2}}, \
         downlink_teid: {{first: {}, step: 2}}}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: {RATE}pps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: {RATE}pps, payload: 100}}\n\
         duration: {SECONDS}s\n\
         warmup: 500ms\n\
         drain: 300ms\n",
        teid + 1
    )
}

/// One single-pair generator of the case: its files and DPDK file prefix.
struct Generator {
    pair: Subnets,
    system: PathBuf,
    profile: PathBuf,
    prefix: String,
    reports: PathBuf,
}

/// The case's files: the reflector's, and a generator on each pair (from the shipped
/// memif.yaml: its sockets the reflector's pair's, its addresses on the pair's subnets).
struct Bed {
    scratch: Scratch,
    reflector: PathBuf,
    refl_prefix: String,
    /// The SMF's N4 address (the test's) and the reflector's.
    smf: Ipv4Addr,
    upf: Ipv4Addr,
    generators: Vec<Generator>,
}

impl Bed {
    fn new(case: &str, pairs: &[(Subnets, &str)]) -> Bed {
        let scratch = Scratch::new(case);
        let sockets = format!("{}/", scratch.path().display());
        let (smf, upf) = n4_pair();
        let shipped = |f: &str| {
            std::fs::read_to_string(repo().join("deploy/systems").join(f)).expect("shipped file")
        };
        let refl_prefix = unique(&format!("{case}-refl"));
        let reflector = shipped("memif-pairs-reflector.yaml");
        let reflector = patch(&reflector, "/tmp/upfbench/", &sockets);
        let reflector = patch(
            &reflector,
            "file_prefix: upfbench-reflect-pairs",
            &format!("file_prefix: {refl_prefix}"),
        );
        let reflector = patch(
            &reflector,
            "local: 127.0.0.2:8805",
            &format!("local: {upf}:8805"),
        );
        let reflector = patch(&reflector, "peer: 127.0.0.1", &format!("peer: {smf}"));
        let reflector = scratch.write("reflector.yaml", &reflector);
        config::load_reflector(&reflector).unwrap_or_else(|e| panic!("{e}"));
        let generators = pairs
            .iter()
            .enumerate()
            .map(|(i, &(pair, profile_text))| {
                let prefix = unique(&format!("{case}-gen-{}", pair.name));
                let text = shipped("memif.yaml");
                let text = patch(
                    &text,
                    "/tmp/upfbench/n3.sock",
                    &format!("{sockets}{}-n3.sock", pair.name),
                );
                let text = patch(
                    &text,
                    "/tmp/upfbench/n6.sock",
                    &format!("{sockets}{}-n6.sock", pair.name),
                );
                let text = patch(
                    &text,
                    "file_prefix: upfbench-gen",
                    &format!("file_prefix: {prefix}"),
                );
                let text = text
                    .replace("192.168.13.", &format!("192.168.{}.", pair.n3))
                    .replace("192.168.16.", &format!("192.168.{}.", pair.n6));
                // N4 is the test's (the generators run with --no-pfcp): the sessions' CP
                // F-SEID carries the SMF's address.
                let text = patch(&text, "127.0.0.1:8805", &format!("{smf}:8805"));
                let text = patch(&text, "127.0.0.2:8805", &format!("{upf}:8805"));
                let system = scratch.write(&format!("system-{}.yaml", pair.name), &text);
                let profile = scratch.write(&format!("profile-{}.yaml", pair.name), profile_text);
                config::load_run(&system, &profile).unwrap_or_else(|e| panic!("{e}"));
                Generator {
                    pair,
                    system,
                    profile,
                    prefix,
                    reports: scratch.path().join(format!("reports-{i}")),
                }
            })
            .collect();
        Bed {
            scratch,
            reflector,
            refl_prefix,
            smf,
            upf,
            generators,
        }
    }

    /// The reflector, running and serving N4 (the memif server: it starts first).
    fn reflector(&self) -> Process {
        let mut p = Process::spawn(
            "reflector",
            &self.scratch,
            None,
            &[UPFBENCH, "reflect", self.reflector.to_str().expect("utf-8")],
            Some(&self.refl_prefix),
        );
        p.wait_until(Duration::from_secs(20), |out, _| {
            out.contains("reflect: upf mode")
        });
        p
    }

    /// Generator `g` started, without PFCP (the test holds N4).
    fn generator(&self, g: &Generator) -> Process {
        Process::spawn(
            &format!("generator-{}", g.pair.name),
            &self.scratch,
            None,
            &[
                UPFBENCH,
                "run",
                g.system.to_str().expect("utf-8"),
                g.profile.to_str().expect("utf-8"),
                "--no-pfcp",
                "--reports",
                g.reports.to_str().expect("utf-8"),
            ],
            Some(&g.prefix),
        )
    }

    /// The SMF: associated with the reflector's PFCP server.
    fn smf(&self) -> ClientThread {
        let client = ClientThread::start(Some(ClientSide {
            local: SocketAddr::new(IpAddr::V4(self.smf), 0),
            peer: SocketAddr::new(IpAddr::V4(self.upf), 8805),
            t1: Duration::from_secs(1),
            n1: 3,
            heartbeat: None,
            initial_window: 16,
            window: 64,
            release_wait: Duration::ZERO,
        }))
        .expect("the SMF's PFCP side");
        client
            .associate()
            .wait()
            .expect("the control thread")
            .expect("associated");
        client
    }
}

/// The session plans of generator `g`'s run, as its `upfbench run` would make them (its UEs,
/// TEIDs, and its N3 address as the gNB's), unless `gnb_subnet` puts its N3 (and so the gNB)
/// on `192.168.{gnb_subnet}.0/24`; their CP SEIDs start at `first_seid` (one association holds
/// every generator's sessions).
fn plans(g: &Generator, gnb_subnet: Option<u8>, first_seid: u64) -> Vec<UeSessionPlan> {
    let text = std::fs::read_to_string(&g.system).expect("system file");
    let text = match gnb_subnet {
        Some(n3) => text.replace(
            &format!("192.168.{}.", g.pair.n3),
            &format!("192.168.{n3}."),
        ),
        None => text,
    };
    let system = config::system_from_str(&text, "system.yaml").unwrap_or_else(|e| panic!("{e}"));
    let profile = config::load_profile(&g.profile).unwrap_or_else(|e| panic!("{e}"));
    let plan = upfbench_run::plan::build(&system, &profile, None, [None, None]).expect("plan");
    let mut plans = upfbench_run::plan::sessions::session_plans(&system, &profile, &plan.ues)
        .expect("session plans");
    for (i, p) in plans.iter_mut().enumerate() {
        p.ue.cp_seid = Seid(first_seid + i as u64);
    }
    plans
}

/// Establishes `plans` over `smf`'s association.
fn establish(smf: &ClientThread, plans: Vec<UeSessionPlan>) {
    let n = plans.len();
    let mut pending = smf.establish(plans).expect("a PFCP client");
    let until = Instant::now() + Duration::from_secs(10);
    let sessions = loop {
        if let Some(r) = pending.try_result() {
            break r.expect("established");
        }
        assert!(Instant::now() < until, "no answer to the establishments");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(sessions.len(), n);
}

/// What a generator saw.
struct Seen {
    stdout: String,
    report: Value,
    uplink: Figures,
    downlink: Figures,
}

impl Seen {
    /// Frames the generator sent on `side` (0: N3, uplink; 1: N6, downlink): measured and
    /// warm-up, which the reflector forwards alike.
    fn sent_on(&self, side: usize) -> u64 {
        let f = &self.report["steps"][0]["frames"][side];
        num(f, &["tx_measured"]) + num(f, &["tx_warmup"])
    }
}

/// Runs every generator of `bed` at once to its end; then the reflector stops. Returns what
/// each generator saw and the reflector's totals at exit.
fn run_all(bed: &Bed, reflector: &mut Process) -> (Vec<Seen>, String) {
    let mut running: Vec<Process> = bed.generators.iter().map(|g| bed.generator(g)).collect();
    let mut seen = Vec::new();
    for (g, p) in bed.generators.iter().zip(running.iter_mut()) {
        let status = p.wait(Duration::from_secs(60));
        assert!(
            status.success(),
            "generator {}: {status}\n{}",
            g.pair.name,
            p.logs()
        );
        assert!(
            !runtime_dir(&g.prefix).exists(),
            "generator {} left {}",
            g.pair.name,
            runtime_dir(&g.prefix).display()
        );
        let report = read_report(&g.reports);
        seen.push(Seen {
            stdout: p.stdout(),
            uplink: try_figures(&report, "uplink").expect("uplink"),
            downlink: try_figures(&report, "downlink").expect("downlink"),
            report,
        });
    }
    let status = reflector.stop(Duration::from_secs(15));
    assert!(
        status.success(),
        "reflector: {status}\n{}",
        reflector.logs()
    );
    assert!(
        !runtime_dir(&bed.refl_prefix).exists(),
        "the reflector left {}",
        runtime_dir(&bed.refl_prefix).display()
    );
    (seen, reflector.stdout())
}

fn print(case: &str, g: &Generator, s: &Seen) {
    for (name, f) in [("UL", &s.uplink), ("DL", &s.downlink)] {
        println!(
            "{case}: pair {} {name} sent {} received {} lost {} duplicates {} reordered {}",
            g.pair.name, f.sent, f.received, f.lost, f.duplicates, f.reordered
        );
    }
}

/// Two generators, one on each pair, each with 2 UEs of its own (10.45.0.2.. and
/// 10.45.1.2.., TEIDs from 1 and from 1001): every packet comes back on the pair it went out
/// on, none lost, and each pair's counts at the reflector are its generator's.
#[test]
fn memif_reflector_pairs_every_packet_back_on_its_own_pair() {
    let _serial = serial();
    let bed = Bed::new(
        "rpairs",
        &[
            (A, &profile(2, "10.45.0.2", 1)),
            (B, &profile(2, "10.45.1.2", 1001)),
        ],
    );
    let mut reflector = bed.reflector();
    let smf = bed.smf();
    establish(&smf, plans(&bed.generators[0], None, 1));
    establish(&smf, plans(&bed.generators[1], None, 1001));
    let (seen, out) = run_all(&bed, &mut reflector);
    let totals = reflector_totals(&out);
    println!("rpairs: reflector {totals:?}");
    for (g, s) in bed.generators.iter().zip(&seen) {
        print("rpairs", g, s);
        for (name, f) in [("UL", &s.uplink), ("DL", &s.downlink)] {
            assert_eq!(f.sent, RATE * SECONDS, "pair {} {name}: sent", g.pair.name);
            assert_eq!(
                (f.received, f.lost, f.duplicates),
                (f.sent, 0, 0),
                "pair {} {name}: every packet back, none lost\n{}",
                g.pair.name,
                s.stdout
            );
        }
        let pair = |name: &str| total(&totals, &format!("pair {}: {name}", g.pair.name));
        assert_eq!(
            pair("uplink forwarded"),
            s.sent_on(0),
            "pair {}",
            g.pair.name
        );
        assert_eq!(
            pair("downlink forwarded"),
            s.sent_on(1),
            "pair {}",
            g.pair.name
        );
        assert_eq!(pair("dropped no_route"), 0, "pair {}", g.pair.name);
    }
    // The sum is the pairs', and nothing was dropped.
    for (name, side) in [("uplink forwarded", 0), ("downlink forwarded", 1)] {
        let sum: u64 = seen.iter().map(|s| s.sent_on(side)).sum();
        assert_eq!(total(&totals, name), sum, "{name}");
    }
    assert_eq!(reflector_drops(&totals), Default::default());
    // The per-second line gives each pair.
    assert!(
        out.lines()
            .any(|l| l.contains("  {a UL ") && l.contains(" | b UL ")),
        "no per-pair part in the reflector's lines:\n{out}"
    );
    drop(smf);
}

/// A generator on pair b whose sessions name a gNB on pair a's N3 subnet: uplink is forwarded
/// by pair b as ever, but every downlink packet arrives on pair b's N6 and pair b's N3 has no
/// route to that gNB (off its subnet, no N3 peer): each one is counted `no_route` and dropped,
/// none leaves by pair a.
#[test]
fn memif_reflector_pairs_a_gnb_off_the_pair_s_n3_is_no_route() {
    let _serial = serial();
    let bed = Bed::new("rpairs-noroute", &[(B, &profile(2, "10.45.1.2", 1001))]);
    let mut reflector = bed.reflector();
    let smf = bed.smf();
    establish(&smf, plans(&bed.generators[0], Some(A.n3), 1));
    let (seen, out) = run_all(&bed, &mut reflector);
    let totals = reflector_totals(&out);
    let s = &seen[0];
    println!("rpairs-noroute: reflector {totals:?}");
    print("rpairs-noroute", &bed.generators[0], s);
    assert_eq!(s.uplink.sent, RATE * SECONDS);
    assert_eq!((s.uplink.received, s.uplink.lost), (s.uplink.sent, 0));
    assert_eq!(s.downlink.sent, RATE * SECONDS);
    assert_eq!((s.downlink.received, s.downlink.lost), (0, s.downlink.sent));
    let downlink = s.sent_on(1);
    assert_eq!(total(&totals, "dropped no_route"), downlink);
    assert_eq!(total(&totals, "pair b: dropped no_route"), downlink);
    assert_eq!(total(&totals, "pair a: dropped no_route"), 0);
    assert_eq!(total(&totals, "downlink forwarded"), 0);
    assert_eq!(total(&totals, "pair b: uplink forwarded"), s.sent_on(0));
    // Only no_route: no ARP was asked for a gNB no route reaches.
    let drops = reflector_drops(&totals);
    assert_eq!(
        drops.keys().collect::<Vec<_>>(),
        ["dropped no_route"],
        "{drops:?}"
    );
    assert!(
        out.lines()
            .any(|l| l.contains("(no-route ") && !l.contains("(no-route 0)")),
        "no_route on the per-second line:\n{out}"
    );
    drop(smf);
}
