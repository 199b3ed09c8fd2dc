use std::time::{Duration, Instant};

use upfbench_config::profile_from_str;
use upfbench_report::{GoalStatus, TrialRecord};
use upfbench_search::TrialResult;

use super::*;
use crate::case::{Mix, cases};

/// Two payloads, both directions together, 1 s trials summed to 3 s, latency at 50 and 90 %
/// of the PDR.
const PROFILE: &str = "
name: s
sessions: {count: 4}
streams:
  - {name: ul, direction: uplink, rate: 30kpps, payload: 300}
  - {name: dl, direction: downlink, rate: 10kpps, payload: 300}
sweep: {payloads: [64, 1400]}
search:
  min_load: 2kpps
  max_load: 100kpps
  latency_loads: [50%, 90%]
  goals:
    - {name: NDR, loss_ratio: 0%, duration_sum: 3s}
    - {name: PDR, loss_ratio: 0.5%, duration_sum: 3s}
";

fn search(profile: &str) -> ProfileSearch {
    let p = profile_from_str(profile, "p.yaml").expect("valid");
    let payloads: Vec<Option<u16>> = p.sweep.payloads.iter().copied().map(Some).collect();
    let mixed = cases(&p, &payloads)
        .into_iter()
        .map(|c| {
            let mix = Mix::of_rates(&c).expect("pps");
            (c, mix)
        })
        .collect();
    ProfileSearch::new(&p.search, mixed, Duration::from_millis(500)).expect("a search")
}

/// A UPF that forwards `cap` pps and drops the rest, measured by a trial of `t`.
fn measure(cap: f64, t: &NextTrial) -> (TrialResult, TrialRecord) {
    let load = t.request.load;
    let loss = ((load - cap) / load).max(0.0);
    let sent = (load * t.request.duration_s).round() as u64;
    let received = sent - (sent as f64 * loss).round() as u64;
    let result = TrialResult {
        intended_load: load,
        offered_load: load,
        intended_duration_s: t.request.duration_s,
        duration_s: t.request.duration_s,
        loss_ratio: loss,
        latency: None,
        tester_limited: false,
    };
    let record = TrialRecord {
        step: 0,
        intended_load_pps: load,
        offered_load_pps: load,
        forwarding_rate_pps: load.min(cap),
        sent,
        received,
        loss_ratio: loss,
        intended_duration_s: t.request.duration_s,
        duration_s: t.request.duration_s,
        latency: vec![],
        tester_limited: None,
        wall: None,
    };
    (result, record)
}

/// Runs `s` against a cap of `cap` pps on a clock that moves by each trial's duration; the
/// trials, and the lines said.
fn run(s: &mut ProfileSearch, cap: f64) -> (Vec<NextTrial>, Vec<String>) {
    let mut now = Instant::now();
    let mut trials = Vec::new();
    let mut lines = Vec::new();
    while let Some(t) = s.next_trial(now) {
        let (result, record) = measure(cap, &t);
        now += Duration::from_secs_f64(t.request.duration_s);
        s.handle_trial(now, &t, result, record);
        trials.push(t);
        while let Some(l) = s.poll_line() {
            lines.push(l);
        }
        assert!(trials.len() < 500, "the search does not end");
    }
    while let Some(l) = s.poll_line() {
        lines.push(l);
    }
    (trials, lines)
}

#[test]
fn each_case_is_searched_to_the_cap_then_measured_for_latency() {
    let mut s = search(PROFILE);
    let (trials, lines) = run(&mut s, 40_000.0);
    let report = s.report();
    assert!(report.complete);
    assert_eq!(report.cases.len(), 2);
    assert_eq!(report.cases[0].label, "64 B both");
    assert_eq!(report.cases[1].label, "1400 B both");
    for case in &report.cases {
        for r in &case.results {
            assert_eq!(r.status, GoalStatus::Regular, "{r:?}");
            let ct = r.conditional_throughput_pps.expect("a throughput");
            // Within the goal's width (0.5 %) under the cap.
            assert!(
                (40_000.0 * 0.995..=40_000.0).contains(&ct),
                "{}: {ct}",
                r.goal
            );
        }
        // Latency at 50 % and 90 % of the PDR's, in that order, after the search's trials.
        let pdr = case.results[1].conditional_throughput_pps.unwrap();
        let loads: Vec<f64> = case
            .latency_under_load
            .iter()
            .map(|l| l.trial.intended_load_pps)
            .collect();
        assert_eq!(loads.len(), 2);
        assert!((loads[0] - pdr * 0.5).abs() < 1e-6 && (loads[1] - pdr * 0.9).abs() < 1e-6);
    }
    // The first trial of each case has the profile's warm-up, no other.
    let warmed: Vec<usize> = trials
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.warmup.is_zero())
        .map(|(i, _)| i)
        .collect();
    let second = trials.iter().position(|t| t.case == 1).expect("case 1");
    assert_eq!(warmed, [0, second]);
    assert_eq!(lines[0], "search 64 B both: started");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("search 1400 B both NDR: ") && l.contains("bounds")),
        "{lines:?}"
    );
    let trial_lines = lines.iter().filter(|l| l.contains(" trial ")).count();
    let searched: usize = report.cases.iter().map(|c| c.trials.len()).sum();
    assert_eq!(trial_lines, searched);
    assert_eq!(
        lines.iter().filter(|l| l.contains(" latency at ")).count(),
        4
    );
}

#[test]
fn a_case_past_its_max_duration_is_stopped_and_its_bounds_not_final() {
    let mut s = search(&PROFILE.replace("  min_load:", "  max_duration: 4s\n  min_load:"));
    let (trials, lines) = run(&mut s, 40_000.0);
    // 1 s trials: each case ends after its fifth at the latest.
    assert!(
        trials
            .iter()
            .filter(|t| t.purpose == Purpose::Search)
            .count()
            <= 10
    );
    assert!(
        lines.iter().any(|l| l.contains("stopped after 4s")),
        "{lines:?}"
    );
    let report = s.report();
    assert!(!report.complete);
    assert!(
        report.cases[0]
            .results
            .iter()
            .all(|r| r.status == GoalStatus::Incomplete)
    );
}

#[test]
fn a_mix_of_rates_shares_the_load_by_them_and_refuses_a_rate_not_in_pps() {
    let s = search(PROFILE);
    let mix = &s.case(0).mix;
    assert_eq!(mix.shares, [0.75, 0.25]);
    assert_eq!(mix.line_rate_pps, None);
    // 64 B: 3/4 of N3 frames of 14 + 20 + 8 + 8 + 8 + 20 + 8 + 64 + 4 bytes (GTP-U over
    // IPv4 with the PDU session container, the default; FCS), 1/4 of N6 frames of 14 + 20 + 8
    // + 64 + 4.
    let n3 = 14.0 + 20.0 + 8.0 + 8.0 + 8.0 + 20.0 + 8.0 + 64.0 + 4.0;
    let n6 = 14.0 + 20.0 + 8.0 + 64.0 + 4.0;
    assert!((mix.frame_bytes_l2 - (0.75 * n3 + 0.25 * n6)).abs() < 1e-9);
    let p = profile_from_str(&PROFILE.replace("rate: 10kpps", "rate: 1Gbps L2"), "p.yaml")
        .expect("valid");
    let c = cases(&p, &[Some(64)]);
    let e = Mix::of_rates(&c[0]).unwrap_err();
    assert_eq!((e.index, e.stream.as_str()), (1, "dl"));
    assert!(e.to_string().starts_with("streams[1] (dl).rate: "), "{e}");
}

#[test]
fn a_case_without_max_load_or_line_rate_cannot_begin() {
    let p =
        profile_from_str(&PROFILE.replace("  max_load: 100kpps\n", ""), "p.yaml").expect("valid");
    let c = cases(&p, &[Some(64)]).remove(0);
    let mix = Mix::of_rates(&c).expect("pps");
    let e = ProfileSearch::new(&p.search, vec![(c, mix)], Duration::ZERO)
        .err()
        .expect("refused");
    assert!(
        matches!(&e, SetupError::NoMaxLoad { case } if case == "64 B both"),
        "{e}"
    );
    let e = ProfileSearch::new(&p.search, vec![], Duration::ZERO)
        .err()
        .expect("refused");
    assert!(matches!(e, SetupError::NoCase));
}
