//! The reflector's added delay, seen by the generator: every latency sample is at least the
//! delay, the report's exact minimum and every interval of the interval log, not only the
//! median; also while the workers lose their cores to busy loops between polls, when a receive
//! time read before the poll would date packets earlier than they arrived.

use std::time::Duration;

use upfbench_config as config;

use crate::harness::{Figures, Process, serial, total};
use crate::memif::{Memif, Outcome, finish, hlog_histograms, profile, run};

/// Asserts that no latency sample of `o` is below `delay_ns`: the report's exact minimum of
/// each direction, and the lowest bucket of each interval of the interval log (the top of a
/// bucket is the largest value its smallest sample can have had).
fn assert_no_sample_below(o: &Outcome, delay_ns: u64) {
    for (name, f) in o.both() {
        assert!(f.samples > 0, "{name}: no latency sample");
        assert!(
            f.min_ns >= delay_ns,
            "{name}: a latency of {} ns under the added delay of {delay_ns} ns",
            f.min_ns
        );
    }
    let hlog = o.hlog.as_deref().expect("latency.hlog");
    let intervals = hlog_histograms(hlog);
    assert!(!intervals.is_empty(), "an empty interval log");
    let mut below = Vec::new();
    for (i, (tag, h)) in intervals.iter().enumerate() {
        if h.is_empty() {
            continue;
        }
        let top = h.highest_equivalent(h.min());
        if top < delay_ns {
            let under: u64 = h
                .iter_recorded()
                .take_while(|v| h.highest_equivalent(v.value_iterated_to()) < delay_ns)
                .map(|v| v.count_at_value())
                .sum();
            below.push(format!(
                "interval {i} ({tag}): {under} of {} samples under {delay_ns} ns, lowest {}",
                h.len(),
                h.min()
            ));
        }
    }
    assert!(below.is_empty(), "samples under the delay: {below:#?}");
}

fn print_extremes(case: &str, o: &Outcome) {
    for (name, f) in o.both() {
        println!(
            "{case}: {name} min {:.3} us p50 {:.3} us max {:.3} us",
            f.min_ns as f64 / 1e3,
            f.p50_ns as f64 / 1e3,
            f.max_ns as f64 / 1e3
        );
    }
}

#[test]
fn memif_added_delay_of_100us_moves_the_median_by_100us() {
    let _serial = serial();
    let p = profile(1, 2, "0s");
    let base = run("nodelay", "{}", &p);
    base.print("nodelay");
    base.assert_clean_end(1);
    let delayed = run("delay", "{delay: 100us}", &p);
    delayed.print("delay");
    print_extremes("delay", &delayed);
    delayed.assert_clean_end(1);
    for ((name, b), (_, d)) in base.both().into_iter().zip(delayed.both()) {
        assert_eq!((b.lost, d.lost), (0, 0), "{name}");
        let moved = d.p50_ns as f64 - b.p50_ns as f64;
        println!(
            "delay: {name} p50 {:.2} us -> {:.2} us: moved by {:.2} us",
            b.p50_ns as f64 / 1e3,
            d.p50_ns as f64 / 1e3,
            moved / 1e3
        );
        assert!(
            (90_000.0..=110_000.0).contains(&moved),
            "{name}: p50 moved by {moved} ns, not 100 us within 10%"
        );
    }
    assert_no_sample_below(&delayed, 100_000);
    // The delay is an impairment like the others: every packet the reflector forwarded was
    // held, and its totals and its last per-second line say so; without it, none was.
    let forwarded = total(&delayed.reflector, "uplink forwarded")
        + total(&delayed.reflector, "downlink forwarded");
    let held = total(&delayed.reflector, "impaired: delayed");
    println!("delay: reflector forwarded {forwarded}, delayed {held}");
    assert_eq!(forwarded, delayed.uplink.sent + delayed.downlink.sent);
    assert_eq!(held, forwarded, "{:?}", delayed.reflector);
    assert_eq!(total(&base.reflector, "impaired: delayed"), 0);
    for (o, impaired) in [
        (&delayed, format!("  impaired: delayed {held}  ")),
        (&base, "  impaired: none  ".to_owned()),
    ] {
        let last = o
            .reflector_out
            .lines()
            .rfind(|l| l.contains(" err-ind "))
            .expect("a per-second line");
        assert!(last.contains(&impaired), "{impaired:?} not in {last:?}");
    }
}

/// A busy loop pinned to each worker's core, the generator's and the reflector's: the scheduler
/// shares the core between the loop and the worker, taking it from the worker for milliseconds
/// at a time, at any point of its loop. Packets that arrive meanwhile are received when the
/// worker runs again; a receive time read before the poll (as upfbench did) dates them to
/// before they arrived: in the generator a latency under the delay, in the reflector a delay
/// that starts too early. 20 kpps each way for 4 s with a delay of 1 ms.
#[test]
fn memif_delay_holds_while_busy_loops_take_the_workers_cores() {
    let _serial = serial();
    const DELAY_NS: u64 = 1_000_000;
    let profile = "name: e2e\n\
         sessions: {count: 1}\n\
         streams:\n  \
           - {name: ul, direction: uplink, rate: 20000pps, payload: 100}\n  \
           - {name: dl, direction: downlink, rate: 20000pps, payload: 100}\n\
         duration: 4s\n\
         warmup: 0s\n\
         drain: 300ms\n";
    let bed = Memif::new("stalled", "{delay: 1ms}", profile);
    let (system, _) = config::load_run(&bed.system, &bed.profile).expect("system");
    let reflector_cfg = config::load_reflector(&bed.reflector).expect("reflector");
    let mut reflector = bed.reflector();
    let cores: Vec<u32> = system
        .cores
        .workers
        .iter()
        .chain(&reflector_cfg.cores.workers)
        .copied()
        .collect();
    let _busy: Vec<Process> = cores
        .iter()
        .map(|cpu| {
            Process::spawn(
                &format!("busy-{cpu}"),
                &bed.scratch,
                None,
                &[
                    "taskset",
                    "-c",
                    &cpu.to_string(),
                    "sh",
                    "-c",
                    "while :; do :; done",
                ],
                None,
            )
        })
        .collect();
    let mut generator = bed.generator();
    let status = generator.wait(Duration::from_secs(90));
    let o = finish(&bed, &mut reflector, &generator, status);
    o.print("stalled");
    print_extremes("stalled", &o);
    assert!(o.status.success(), "{}", o.stdout);
    for (name, f) in o.both() {
        assert!(f.received * 10 >= f.sent * 9, "{name}: {f:?}");
        assert_eq!(f.samples, f.received, "{name}: a sample per packet");
    }
    // The loops did take the cores: some packets waited a millisecond more than the delay.
    let stalled: Vec<&Figures> = o
        .both()
        .into_iter()
        .map(|(_, f)| f)
        .filter(|f| f.max_ns > 2 * DELAY_NS)
        .collect();
    assert!(!stalled.is_empty(), "no stall seen: {:?}", o.both());
    assert_no_sample_below(&o, DELAY_NS);
}
