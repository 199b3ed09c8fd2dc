//! Two N3/N6 port pairs on both sides over memif (docs/scale.md §2): the generator with the
//! shipped deploy/systems/memif-pairs.yaml against the reflector with memif-pairs-reflector.yaml
//! (four memif links, the sockets in the case's scratch directory), 4 UEs at a low rate each
//! way, one PFCP association for both pairs. Every packet comes back, none is lost; each pair's
//! section of the report holds its UEs' share of each stream (UEs 0 and 1 on pair a, 2 and 3 on
//! b: the weights are 1 and 1), and the step's totals are the sum of the pairs'.

use std::time::Duration;

use serde_json::Value;
use upfbench_config::segment::packets_of_block;

use crate::harness::{assert_sessions, besides_tx_slips, num, serial, warnings};
use crate::memif::{Memif, finish};

/// UEs, and each stream's rate (packets/s) and duration: two busy-polling workers on each CPU
/// of a 2-vCPU machine.
const UES: u32 = 4;
const RATE: u64 = 10_000;
const SECONDS: u64 = 2;

fn profile() -> String {
    format!(
        "name: e2e-pairs\n\
         sessions: {{count: {UES}}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: {RATE}pps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: {RATE}pps, payload: 100}}\n\
         duration: {SECONDS}s\n\
         warmup: 200ms\n\
         drain: 300ms\n"
    )
}

/// The counts of one direction (`d`) of a step's or a pair's figures.
fn counts(figures: &Value, d: &str) -> [u64; 4] {
    let dir = figures["directions"]
        .as_array()
        .expect("directions")
        .iter()
        .find(|x| x["direction"] == d)
        .unwrap_or_else(|| panic!("no {d} in {figures}"));
    [
        num(dir, &["loss", "sent"]),
        num(dir, &["rx", "packets"]),
        num(dir, &["loss", "unique"]),
        num(dir, &["loss", "lost"]),
    ]
}

#[test]
fn two_pairs_each_carry_their_ues_share_and_add_up_to_the_totals() {
    let _serial = serial();
    let bed = Memif::shipped(
        "pairs",
        ["memif-pairs.yaml", "memif-pairs-reflector.yaml"],
        ["upfbench-gen-pairs", "upfbench-reflect-pairs"],
        &profile(),
        |system, reflector| (system, reflector),
    );
    let mut reflector = bed.reflector();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(60));
    let out = finish(&bed, &mut reflector, &generator, status);
    assert!(
        out.status.success(),
        "generator: {}\n{}",
        out.status,
        generator.logs()
    );
    assert_sessions(&out.stdout, &out.reflector_log, UES);
    assert_eq!(
        besides_tx_slips(warnings(&out.report)),
        Vec::<String>::new()
    );
    let step = &out.report["steps"][0];
    let pairs = step["pairs"].as_array().expect("the step's pairs");
    let names: Vec<&str> = pairs.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b"]);
    let total = RATE * SECONDS;
    let blocks = [0..2, 2..4];
    for d in ["uplink", "downlink"] {
        let [sent, received, unique, lost] = counts(step, d);
        println!("{d}: totals sent {sent}, received {received}, lost {lost}");
        assert_eq!(
            (sent, received, unique, lost),
            (total, total, total, 0),
            "{d}"
        );
        let mut sum = [0; 4];
        for (p, block) in pairs.iter().zip(&blocks) {
            let c = counts(&p["figures"], d);
            println!(
                "{d}: pair {}: sent {}, received {}, lost {}",
                p["name"], c[0], c[1], c[3]
            );
            let share = packets_of_block(total, UES, block.clone());
            assert_eq!(c, [share, share, share, 0], "{d} on pair {}", p["name"]);
            for (s, x) in sum.iter_mut().zip(c) {
                *s += x;
            }
        }
        assert_eq!(
            sum,
            [sent, received, unique, lost],
            "{d}: the sum of the pairs"
        );
    }
    // Each pair's ports counted its own frames: N3 and N6 of each took its share and more
    // (warm-up, ARP), never another pair's.
    for p in pairs {
        let ports = p["figures"]["ports"].as_array().expect("the pair's ports");
        assert_eq!(ports.len(), 2);
        for port in ports {
            assert!(num(port, &["opackets"]) >= total / 2, "{port}");
            assert!(num(port, &["ipackets"]) >= total / 2, "{port}");
        }
    }
    // The text report: the totals' tables, then a section per pair.
    let text =
        std::fs::read_to_string(crate::harness::report_folder(&bed.reports()).join("report.txt"))
            .expect("report.txt");
    let a = text.find("Pair a: ").expect("pair a's tables");
    let b = text.find("Pair b: ").expect("pair b's tables");
    assert!(text.find("Uplink: GTP-U").expect("the totals") < a && a < b);
}
