//! A search over fake agents (`fake/`, behind `crates/remote`'s real server on loopback), each
//! with a UPF behind it that forwards a known rate: the search of the profile finds the total
//! that the agents' shares carry, as `upfbench search` would on one box, and its report has a
//! merged step per trial, each agent's section, and both cases.

mod fake;

use upfbench_config::{cluster_from_str, profile_and_json};
use upfbench_coordinate::run::RunInputs;
use upfbench_coordinate::search::{ClusterSearch, search_over_agents};
use upfbench_report::{GoalStatus, Report};
use upfbench_stats::LatencyConfig;

use fake::{Fake, serve};

/// 10 UEs, one uplink stream of 1 kpps (100 pps a UE at load 1), two payloads, trials of
/// 100 ms summed to 200 ms, bounds 1 % apart; then latency at half the NDR for 100 ms.
const PROFILE: &str = "
name: p
sessions: {count: 10}
streams: [{name: ul, direction: uplink, rate: 1kpps, payload: 100}]
warmup: 0s
drain: 10ms
sweep: {payloads: [64, 1400]}
search:
  min_load: 500pps
  max_load: 10kpps
  latency_loads: [50%]
  latency_duration: 100ms
  goals:
    - {name: NDR, loss_ratio: 0%, width: 1%, initial_trial_duration: 100ms, final_trial_duration: 100ms, duration_sum: 200ms}
";

fn cluster(urls: &[String]) -> upfbench_config::Cluster {
    let text = format!(
        "kind: cluster\nagents:\n  - {{name: gnb-a, url: \"{}\"}}\n  - {{name: gnb-b, url: \
         \"{}\"}}\npfcp: {{mode: agents}}\nstart_lead: 20ms\n",
        urls[0], urls[1]
    );
    cluster_from_str(&text, "cluster.yaml").unwrap()
}

/// The search of [`PROFILE`] over two agents whose UPFs forward `caps` pps; its report and
/// the lines it said.
async fn search(caps: [f64; 2]) -> (Report, Vec<String>) {
    // The profile's histograms (its default `latency`): the agents record with them.
    let latency = LatencyConfig {
        max_ns: 2_000_000_000,
        significant_digits: 3,
    };
    let a = serve(Fake::new("gnb-a", 100).capped(caps[0]).recording(latency)).await;
    let b = serve(Fake::new("gnb-b", 100).capped(caps[1]).recording(latency)).await;
    let cluster = cluster(&[a.url.clone(), b.url.clone()]);
    let (profile, json) = profile_and_json(PROFILE, "p.yaml").unwrap();
    let lines = std::sync::Mutex::new(Vec::new());
    let outcome = search_over_agents(
        ClusterSearch {
            inputs: RunInputs {
                name: "s1",
                cluster: &cluster,
                profile: &profile,
                profile_json: &json,
                tool_version: "test",
                started_unix_ms: 0,
            },
            payloads: vec![Some(64), Some(1400)],
        },
        |l| lines.lock().unwrap().push(l.to_owned()),
    )
    .await
    .expect("a search");
    assert_eq!(outcome.exit_status, 0);
    assert!(outcome.n4_end.is_none());
    (outcome.report, lines.into_inner().unwrap())
}

fn ndr(report: &Report, case: usize) -> f64 {
    let r = &report.search.as_ref().unwrap().cases[case].results[0];
    assert_eq!(r.status, GoalStatus::Regular, "{r:?}");
    r.conditional_throughput_pps.unwrap()
}

#[tokio::test]
async fn the_search_over_two_agents_finds_the_total_their_shares_carry() {
    let (report, lines) = search([2_500.0, 2_500.0]).await;
    let search = report.search.as_ref().unwrap();
    assert!(search.complete);
    assert_eq!(search.cases.len(), 2);
    assert_eq!(search.cases[1].label, "1400 B both");
    for case in 0..2 {
        // Each agent carries 2,500 pps of its half: 5,000 in all, within 1 %.
        let ct = ndr(&report, case);
        assert!((4_950.0..=5_000.0).contains(&ct), "case {case}: {ct}");
    }
    // A merged step per trial, where its record says, labelled as on one box; each agent's
    // section holds every step, half the packets each.
    let trials: Vec<_> = search.cases.iter().flat_map(|c| &c.trials).collect();
    let latency: Vec<_> = search
        .cases
        .iter()
        .flat_map(|c| &c.latency_under_load)
        .collect();
    assert_eq!(latency.len(), 2);
    assert_eq!(report.steps.len(), trials.len() + latency.len());
    for l in &latency {
        assert!((l.trial.intended_load_pps - 0.5 * ndr(&report, 0)).abs() < 1e-6);
        assert!(
            report.steps[l.trial.step]
                .label
                .contains(": latency at 50% of NDR")
        );
        assert_eq!(l.trial.loss_ratio, 0.0);
    }
    for t in &trials {
        let step = &report.steps[t.step];
        assert!(step.label.contains(": trial "), "{}", step.label);
        assert_eq!(step.directions[0].loss.sent, t.sent);
        assert_eq!(t.received, step.directions[0].loss.unique);
        let parts: u64 = report
            .agents
            .iter()
            .map(|a| {
                let s = &a.steps[t.step];
                assert_eq!(s.step as usize, t.step + 1);
                s.figures[0].sent
            })
            .sum();
        assert_eq!(parts, t.sent);
        assert!(t.tester_limited.is_none());
    }
    assert_eq!(report.agents.len(), 2);
    assert_eq!(
        lines.iter().filter(|l| l.contains(" trial ")).count(),
        trials.len()
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("search 1400 B both NDR: "))
    );
    // The frames the trials measured (100 bytes a packet, the fakes' count) weigh the mix.
    assert_eq!(search.cases[0].frame_bytes_l2, 100.0);
}

#[tokio::test]
async fn the_agent_that_carries_least_of_its_share_bounds_the_total() {
    // b's UPF forwards 1,000 pps of its half: the total is 2,000.
    let (report, _) = search([2_500.0, 1_000.0]).await;
    for case in 0..2 {
        let ct = ndr(&report, case);
        // A trial's packets are whole: b's 1,000 pps of 100 ms are 100 packets up to a load
        // of 2,010 pps (its half rounded to 100).
        assert!((1_980.0..=2_010.0).contains(&ct), "case {case}: {ct}");
    }
}
