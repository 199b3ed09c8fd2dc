//! The driver against fake agents behind `crates/remote`'s real server on loopback
//! (docs/scale.md §8 step 9): the merged step is the sum of the agents' results, histograms
//! bucket by bucket, and an agent that dies mid-step is lost by name, the others' results kept,
//! the run incomplete (exit status 3).
#![allow(clippy::print_stdout)]

mod fake;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use upfbench_api::v1::{Segment, StepRequest};
use upfbench_cluster::Coordinator;
use upfbench_cluster::coordinator::{AgentSpec, Lost, Settings};
use upfbench_cluster::merge::MergedStep;
use upfbench_cluster::segments::{RunSegments, TeidSource, cut};
use upfbench_coordinate::call::now_ns;
use upfbench_coordinate::sections::{agent_sections, incomplete, lost_event};
use upfbench_coordinate::step_report::step_report;
use upfbench_coordinate::{Driven, EXIT_INCOMPLETE, drive};
use upfbench_remote::Client;
use upfbench_report::events::Event;
use upfbench_report::{AgentEnd, Nanos, Report};
use upfbench_stats::{Direction, LatencyConfig, LatencyRecorder};

use fake::{Fake, Served, sample_ns, serve, wait_ms};

const SESSIONS: u32 = 300;

/// The settings and segments of agents named `names`, of `weights`, over [`SESSIONS`] UEs.
fn plan(names: &[&str], weights: &[u32]) -> (Settings, Vec<Segment>) {
    let settings = Settings {
        agents: names
            .iter()
            .zip(weights)
            .map(|(n, &weight)| AgentSpec {
                name: (*n).to_owned(),
                weight,
            })
            .collect(),
        start_lead: Duration::from_millis(100),
        agent_timeout: Duration::from_millis(1500),
        step_overrun: Duration::from_secs(1),
        poll_interval: Duration::from_millis(100),
        ending_poll: Duration::from_millis(20),
        latency: LatencyConfig::default(),
    };
    let profile = serde_json::json!({"name": "t", "sessions": {"count": SESSIONS}});
    let run = RunSegments {
        run: "r1",
        profile: &profile,
        teids: TeidSource::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    };
    let shares = cut(SESSIONS, weights, &[]).unwrap();
    let segments = shares
        .iter()
        .enumerate()
        .map(|(i, s)| run.segment(i, names.len(), names[i], s).unwrap())
        .collect();
    (settings, segments)
}

fn step(n: u32, duration_ms: u64) -> StepRequest {
    StepRequest {
        step: n,
        payload: Some(64),
        load: 1.0,
        duration_ms,
        warmup_ms: 100,
    }
}

/// Runs `steps` over the served agents; the agents lost as they were told.
async fn run(
    names: &[&str],
    weights: &[u32],
    served: &[Served],
    steps: Vec<StepRequest>,
) -> (Driven, Vec<Lost>) {
    let (settings, segments) = plan(names, weights);
    let clients = served
        .iter()
        .map(|s| Client::new(&s.url, None, settings.agent_timeout).unwrap())
        .collect();
    let coordinator = Coordinator::new(settings, segments, now_ns());
    let told = Arc::new(Mutex::new(Vec::new()));
    let t = told.clone();
    let mut steps = steps.into_iter();
    let driven = drive(
        coordinator,
        clients,
        move |_| steps.next(),
        move |l: &Lost| t.lock().unwrap().push(l.clone()),
    )
    .await;
    let told = told.lock().unwrap().clone();
    (driven, told)
}

/// (value, count) of every bucket that holds samples.
fn buckets(r: &LatencyRecorder) -> Vec<(u64, u64)> {
    r.histogram()
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

/// Every UE's sample in `ues`, in one recorder: what one box would have measured.
fn one_box(ues: std::ops::Range<u32>) -> LatencyRecorder {
    let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
    for ue in ues {
        r.record(sample_ns(ue));
    }
    r
}

/// The merged step as one box reports it: the same counts, and every percentile the one
/// recorder of all samples gives; `lost` packets lost, one per agent.
fn check_step_report(step: u32, merged: &MergedStep, sent: u64, lost: u64) {
    let report = step_report(format!("step {step}"), Some(64), merged);
    let d = &report.directions[0];
    assert_eq!(report.directions.len(), 1);
    assert_eq!(d.direction, Direction::Uplink);
    assert_eq!((d.tx.packets, d.loss.sent), (sent, sent));
    assert_eq!(d.rx.packets, sent - lost);
    assert_eq!(d.loss.lost, lost);
    let one = one_box(0..SESSIONS);
    let p = &d.latency.as_ref().unwrap().percentiles;
    let at = |q: f64| Nanos::from_ns(one.quantile_ns(q).unwrap());
    assert_eq!(p.samples, one.count());
    assert_eq!((p.p50, p.p90, p.p99), (at(0.5), at(0.9), at(0.99)));
    assert_eq!((p.p99_9, p.p99_99), (Some(at(0.999)), Some(at(0.9999))));
    assert_eq!(p.min, Nanos::from_ns(one.min_ns().unwrap()));
    assert_eq!(p.max, Nanos::from_ns(one.max_ns().unwrap()));
    assert_eq!(report.duration_s, merged.duration_ns as f64 / 1e9);
    assert_eq!(report.streams.len(), 1);
    assert_eq!(
        (report.streams[0].flows, report.streams[0].sent),
        (SESSIONS, sent)
    );
    // Its one second: every agent's second 0 added.
    let second = &report.seconds[0].directions[0];
    assert_eq!(report.seconds.len(), 1);
    assert_eq!((second.tx_packets, second.rx_packets), (sent, d.rx.packets));
    assert_eq!(second.lost, lost);
    assert_eq!(second.lat_p50_ns, Some(at(0.5)));
    assert_eq!(second.lat_max_ns, Some(p.max));
    // In a report, as report.json and report.txt have it.
    let mut whole = Report::new("test", 0);
    whole.steps.push(report);
    let back = Report::from_json(&whole.to_json()).unwrap();
    assert_eq!(back.steps[0].directions[0].loss.sent, sent);
    assert!(whole.to_table().contains(&format!("step {step}")));
}

async fn merged_over(names: &[&str], weights: &[u32], per_ue: &[u64]) {
    let mut served = Vec::new();
    for (n, &p) in names.iter().zip(per_ue) {
        served.push(serve(Fake::new(n, p)).await);
    }
    let (driven, told) = run(names, weights, &served, vec![step(1, 300), step(2, 200)]).await;
    assert!(told.is_empty(), "{told:?}");
    assert_eq!(driven.exit_status(), 0);
    assert_eq!(driven.finished.steps, 2);
    assert_eq!(driven.steps.len(), 2);
    let (_, segments) = plan(names, weights);
    for outcome in &driven.steps {
        assert_eq!(outcome.counted, (names.len(), names.len()));
        assert_eq!(outcome.results.len(), names.len());
        let merged = outcome.merged.as_ref().unwrap().as_ref().unwrap();
        let ul = merged.direction(Direction::Uplink).unwrap();
        // Each agent sent per_ue packets per UE of its block, one lost.
        let parts: Vec<u64> = segments
            .iter()
            .zip(per_ue)
            .map(|(s, &p)| u64::from(s.ues.count) * p)
            .collect();
        let sent: u64 = parts.iter().sum();
        let from_results: u64 = outcome
            .results
            .iter()
            .map(|r| r.pairs[0].directions[0].tx.packets)
            .sum();
        assert_eq!(from_results, sent);
        assert_eq!(ul.tx.packets, sent);
        assert_eq!(ul.rx.packets, sent - names.len() as u64);
        assert_eq!(ul.seq.lost, names.len() as u64);
        assert_eq!(ul.tx.bytes_l2, sent * 100);
        assert_eq!(merged.sent_and_lost(), (sent, names.len() as u64));
        assert_eq!(buckets(&ul.latency), buckets(&one_box(0..SESSIONS)));
        assert_eq!(merged.streams[0].flows, SESSIONS);
        assert_eq!(
            buckets(&merged.streams[0].latency),
            buckets(&one_box(0..SESSIONS))
        );
        check_step_report(outcome.step, merged, sent, names.len() as u64);
        println!(
            "{} agents, step {}: {:?} = {sent} packets, {} latency samples, {} buckets",
            names.len(),
            outcome.step,
            parts,
            ul.latency.histogram().len(),
            buckets(&ul.latency).len()
        );
    }
    assert!(driven.finished.clocks.iter().all(Option::is_some));
    assert_eq!(incomplete(&driven), None);
    let urls: Vec<(String, String)> = names
        .iter()
        .zip(&served)
        .map(|(n, s)| ((*n).to_owned(), s.url.clone()))
        .collect();
    let sections = agent_sections(&driven, &urls, &LatencyConfig::default());
    for ((section, segment), &p) in sections.iter().zip(&segments).zip(per_ue) {
        assert_eq!(section.state, AgentEnd::Counted);
        // Every figure of its own: its uplink's count and a latency sample per UE of its block.
        for s in &section.steps {
            let m = s.measured.as_ref().expect("its own figures");
            let ul = &m.directions[0];
            assert_eq!(ul.loss.sent, u64::from(segment.ues.count) * p);
            let samples = ul.latency.as_ref().expect("latency").percentiles.samples;
            assert_eq!(samples, u64::from(segment.ues.count));
        }
        assert!(section.clock_offset_us.is_some() && section.rtt_us.is_some());
        let steps: Vec<(u32, bool, u64, u64)> = section
            .steps
            .iter()
            .map(|s| (s.step, s.counted, s.figures[0].sent, s.figures[0].lost))
            .collect();
        let sent = u64::from(segment.ues.count) * p;
        assert_eq!(steps, [(1, true, sent, 1), (2, true, sent, 1)]);
    }
}

#[tokio::test]
async fn two_agents_merge_to_the_sum_of_their_results() {
    merged_over(&["gnb-a", "gnb-b"], &[1, 2], &[100, 70]).await;
}

#[tokio::test]
async fn three_agents_merge_to_the_sum_of_their_results() {
    merged_over(&["gnb-a", "gnb-b", "gnb-c"], &[1, 1, 3], &[100, 70, 30]).await;
}

#[tokio::test]
async fn an_agent_that_dies_mid_step_is_lost_by_name_and_the_others_kept() {
    let names = ["gnb-a", "gnb-b", "gnb-c"];
    let per_ue = [100, 70, 30];
    let mut served = Vec::new();
    for (n, &p) in names.iter().zip(&per_ue) {
        served.push(serve(Fake::new(n, p)).await);
    }
    // gnb-b's server goes away 600 ms into a 2 s step (its start is ~100 ms after arming).
    let kill = served[1].kill.take().unwrap();
    let killer = tokio::spawn(async move {
        wait_ms(800).await;
        let _ = kill.send(());
    });
    let (driven, told) = run(
        &names,
        &[1, 1, 1],
        &served,
        vec![step(1, 2_000), step(2, 300)],
    )
    .await;
    killer.await.unwrap();
    assert_eq!(driven.exit_status(), EXIT_INCOMPLETE);
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0].agent, "gnb-b");
    assert_eq!(told[0].step, Some(1));
    assert_eq!(told[0].reason, "connection refused");
    assert_eq!(driven.finished.lost, told);
    // The run ends after the step: no step 2.
    assert_eq!(driven.steps.len(), 1);
    let outcome = &driven.steps[0];
    assert_eq!(outcome.counted, (2, 3));
    assert!(outcome.stop_ns.is_some());
    let agents: Vec<&str> = outcome.results.iter().map(|r| r.agent.as_str()).collect();
    assert_eq!(agents, ["gnb-a", "gnb-c"]);
    let merged = outcome.merged.as_ref().unwrap().as_ref().unwrap();
    let ul = merged.direction(Direction::Uplink).unwrap();
    let kept: u64 = outcome
        .results
        .iter()
        .map(|r| r.pairs[0].directions[0].tx.packets)
        .sum();
    assert_eq!(ul.tx.packets, kept);
    // Stopped early: under a whole step's 100 × 100 + 30 × 100.
    assert!(kept > 0 && kept < 100 * 100 + 30 * 100, "{kept}");
    assert_eq!(
        buckets(&ul.latency),
        buckets(&{
            let mut r = one_box(0..100);
            r.merge(&one_box(200..300));
            r
        })
    );
    assert_eq!(
        serde_json::to_value(lost_event(&told[0])).unwrap()["data"]["agent"],
        "gnb-b"
    );
    assert!(matches!(
        lost_event(&told[0]),
        Event::AgentLost { step: Some(1), .. }
    ));
    let inc = incomplete(&driven).unwrap();
    assert_eq!(inc.lost[0].agent, "gnb-b");
    assert_eq!(inc.steps[0].agents_counted, "2 of 3");
    sections_keep_the_lost_apart(&driven, &names, &served, kept);
    println!(
        "lost {} at step {:?}, t = {:.2} s: {}; {} of {} counted, {kept} packets kept",
        told[0].agent,
        told[0].step,
        told[0].t_s,
        told[0].reason,
        outcome.counted.0,
        outcome.counted.1
    );
}

/// gnb-b lost with no step of its own; the others' own packets add up to the `kept` total.
fn sections_keep_the_lost_apart(driven: &Driven, names: &[&str], served: &[Served], kept: u64) {
    let urls: Vec<(String, String)> = names
        .iter()
        .zip(served)
        .map(|(n, s)| ((*n).to_owned(), s.url.clone()))
        .collect();
    let sections = agent_sections(driven, &urls, &LatencyConfig::default());
    let states: Vec<(AgentEnd, usize)> =
        sections.iter().map(|s| (s.state, s.steps.len())).collect();
    assert_eq!(
        states,
        [
            (AgentEnd::Counted, 1),
            (AgentEnd::Lost, 0),
            (AgentEnd::Counted, 1)
        ]
    );
    let own: u64 = sections
        .iter()
        .flat_map(|s| &s.steps)
        .map(|s| s.figures[0].sent)
        .sum();
    assert_eq!(own, kept);
}
