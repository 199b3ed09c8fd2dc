use std::time::Duration;

use proptest::prelude::*;

use upfbench_api::v1::{Segment, StepRequest};
use upfbench_stats::{Direction, LatencyConfig};

use super::sim::{MS, S, Scripted, Sim, T0};
use super::*;
use crate::segments::{RunSegments, TeidSource, cut};

/// 300 UEs over agents of `weights`, each named as `agents`.
fn settings_and_segments(agents: &[Scripted], weights: &[u32]) -> (Settings, Vec<Segment>) {
    let settings = Settings {
        agents: agents
            .iter()
            .zip(weights)
            .map(|(a, &weight)| AgentSpec {
                name: a.name.clone(),
                weight,
            })
            .collect(),
        start_lead: Duration::from_millis(200),
        agent_timeout: Duration::from_secs(3),
        step_overrun: Duration::from_secs(1),
        poll_interval: Duration::from_secs(1),
        ending_poll: Duration::from_millis(50),
        latency: LatencyConfig::default(),
    };
    let profile = serde_json::json!({"name": "t", "sessions": {"count": 300}});
    let run = RunSegments {
        run: "r1",
        profile: &profile,
        teids: TeidSource::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    };
    let shares = cut(300, weights, &[]).unwrap();
    let segments = shares
        .iter()
        .enumerate()
        .map(|(i, s)| run.segment(i, agents.len(), &agents[i].name, s).unwrap())
        .collect();
    (settings, segments)
}

fn step(n: u32, load: f64) -> Event {
    Event::Step(StepRequest {
        step: n,
        payload: Some(64),
        load,
        duration_ms: 5_000,
        warmup_ms: 1_000,
    })
}

fn sim(agents: Vec<Scripted>, weights: &[u32], program: Vec<Event>) -> Sim {
    let (settings, segments) = settings_and_segments(&agents, weights);
    let mut sim = Sim::new(settings, segments, agents);
    sim.program = program.into();
    sim
}

fn done(sim: &Sim) -> Vec<&StepOutcome> {
    sim.outcomes()
        .into_iter()
        .filter_map(|a| match a {
            Action::StepDone(o) => Some(&**o),
            _ => None,
        })
        .collect()
}

fn finished(sim: &Sim) -> &Finished {
    let ends: Vec<&Finished> = sim
        .outcomes()
        .into_iter()
        .filter_map(|a| match a {
            Action::Finished(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 1, "one end: {ends:?}");
    ends[0]
}

fn sent(o: &StepOutcome) -> u64 {
    let merged = o
        .merged
        .as_ref()
        .expect("results")
        .as_ref()
        .expect("merged");
    merged.direction(Direction::Uplink).unwrap().seq.sent
}

/// The start (or stop) times each agent was given, with the time of the call.
fn times(sim: &Sim, stop: bool) -> Vec<(u64, usize, u64)> {
    sim.calls()
        .into_iter()
        .filter_map(|(t, agent, r)| match (r, stop) {
            (Request::Start { at, .. }, false) | (Request::Stop { at, .. }, true) => {
                Some((t, agent, at.at_unix_ns))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn two_agents_one_3_s_off_start_at_one_time_and_their_results_merge() {
    let a = Scripted::new("gnb-a");
    let mut b = Scripted::new("gnb-b");
    b.offset_ns = 3 * S as i64;
    b.one_way_ns = 2 * MS;
    let mut sim = sim(vec![a, b], &[1, 2], vec![step(1, 1.0), Event::Finish]);
    sim.run(T0 + 60 * S);
    // Clocks: 8 calls each; b 3 s ahead, exactly (its calls are symmetric), round trip 4 ms.
    let clocks = sim.coordinator.clocks();
    assert_eq!(clocks[0].unwrap().offset_ns, 0);
    assert_eq!(clocks[1].unwrap().offset_ns, 3 * S as i64);
    assert_eq!(clocks[1].unwrap().rtt_ns, 4 * MS);
    let clock_calls = sim
        .calls()
        .iter()
        .filter(|c| matches!(c.2, Request::Clock))
        .count();
    assert_eq!(clock_calls, 16);
    // One start time T, after the last agent armed plus the lead (200 ms > 4 x 4 ms), given to
    // b 3 s later on its clock.
    let starts = times(&sim, false);
    assert_eq!(starts.len(), 2);
    let (armed_at, t) = (starts[0].0, starts[0].2);
    assert_eq!(t, armed_at + 200 * MS);
    assert_eq!(starts[1].2, t + 3 * S);
    // Status each second from T + 1 s until each is collected (T + 6 s on its clock).
    let polls: Vec<u64> = sim
        .calls()
        .iter()
        .filter(|c| c.1 == 0 && matches!(c.2, Request::Status))
        .map(|c| c.0)
        .collect();
    assert_eq!(polls, (1..=6).map(|k| t + k * S).collect::<Vec<_>>());
    let steps = done(&sim);
    assert_eq!(steps.len(), 1);
    let o = steps[0];
    assert_eq!((o.start_ns, o.stop_ns, o.counted), (Some(t), None, (2, 2)));
    // 100 packets a UE: 100 x 100 + 100 x 200.
    assert_eq!(sent(o), 30_000);
    let merged = o.merged.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(merged.agents, ["gnb-a", "gnb-b"]);
    assert_eq!(merged.streams[0].flows, 300);
    assert_eq!(merged.directions[0].latency.count(), 300);
    let end = finished(&sim);
    assert!(!end.incomplete());
    assert_eq!(end.steps, 1);
}

#[test]
fn a_step_s_status_is_read_often_from_its_planned_end_until_it_is_collected() {
    // b drains 120 ms after the step's end; a none.
    let a = Scripted::new("gnb-a");
    let mut b = Scripted::new("gnb-b");
    b.drain_ns = 120 * MS;
    let mut sim = sim(vec![a, b], &[1, 1], vec![step(1, 1.0), Event::Finish]);
    sim.run(T0 + 60 * S);
    let t = times(&sim, false)[0].2;
    let polls = |agent: usize| -> Vec<u64> {
        sim.calls()
            .iter()
            .filter(|c| c.1 == agent && matches!(c.2, Request::Status))
            .map(|c| c.0 - t)
            .collect()
    };
    // Each second until the planned end (T + 6 s), then every 50 ms: b is collected by the
    // poll at 6.15 s, 30 ms after its drain, not at 7 s.
    let seconds: Vec<u64> = (1..=6).map(|k| k * S).collect();
    assert_eq!(polls(0), seconds);
    let mut then = seconds;
    then.extend([6_050 * MS, 6_100 * MS, 6_150 * MS]);
    assert_eq!(polls(1), then);
    assert_eq!(done(&sim)[0].counted, (2, 2));
}

#[test]
fn an_agent_that_dies_mid_step_is_lost_and_the_others_stop_at_one_time() {
    let a = Scripted::new("gnb-a");
    let mut b = Scripted::new("gnb-b");
    b.offset_ns = -(3 * S as i64);
    let mut c = Scripted::new("gnb-c");
    // Killed 2.5 s into the run's first step (its start is about 200 ms after T0 + the clock
    // and load calls).
    c.dies_at = Some(T0 + 2_500 * MS);
    let mut sim = sim(
        vec![a, b, c],
        &[1, 1, 1],
        vec![step(1, 1.0), step(2, 1.0), Event::Finish],
    );
    sim.run(T0 + 60 * S);
    let lost: Vec<&Lost> = sim
        .outcomes()
        .into_iter()
        .filter_map(|a| match a {
            Action::Lost(l) => Some(l),
            _ => None,
        })
        .collect();
    assert_eq!(lost.len(), 1);
    assert_eq!((lost[0].agent.as_str(), lost[0].step), ("gnb-c", Some(1)));
    assert_eq!(lost[0].reason, "connection refused");
    // Its first status poll after 2.5 s: T + 3 s is past it, T + 2 s before.
    let t = times(&sim, false)[0].2;
    assert!(lost[0].t_s > 2.5 && lost[0].t_s < 3.5, "{}", lost[0].t_s);
    // The others stop at one time, each in its own clock.
    let stops = times(&sim, true);
    assert_eq!(stops.len(), 2, "{stops:?}");
    let (stop_called, stop) = (stops[0].0, stops[0].2);
    assert_eq!(stop, stop_called + 200 * MS);
    assert_eq!((stops[0].1, stops[1].1), (0, 1));
    assert_eq!(stops[1].2, stop - 3 * S);
    let steps = done(&sim);
    assert_eq!(steps.len(), 1, "the run ends after that step");
    let o = steps[0];
    assert_eq!(o.counted, (2, 3));
    assert_eq!(o.stop_ns, Some(stop));
    assert_eq!(o.lost.len(), 1);
    // a and b sent 100 a UE for the time they ran of the planned 6 s.
    let ran = stop - t;
    let each = 100 * 100 * ran / (6 * S);
    assert_eq!(sent(o), 2 * each);
    assert_eq!(
        o.results
            .iter()
            .map(|r| r.agent.as_str())
            .collect::<Vec<_>>(),
        ["gnb-a", "gnb-b"]
    );
    let end = finished(&sim);
    assert!(end.incomplete());
    assert_eq!((end.steps, end.lost.len()), (1, 1));
    assert!(
        !sim.calls()
            .iter()
            .any(|c| matches!(c.2, Request::Arm(s) if s.step == 2)),
        "no step after the loss"
    );
}

#[test]
fn a_stop_refused_as_out_of_place_is_no_loss() {
    let mut a = Scripted::new("gnb-a");
    a.stop_status = Some(409);
    let mut b = Scripted::new("gnb-b");
    b.dies_at = Some(T0 + 2_500 * MS);
    let mut sim = sim(vec![a, b], &[1, 1], vec![step(1, 1.0), Event::Finish]);
    sim.run(T0 + 60 * S);
    let end = finished(&sim);
    assert_eq!(end.lost.len(), 1);
    assert_eq!(end.lost[0].agent, "gnb-b");
    // a ran its whole step (the stop did not reach it) and is counted.
    let o = done(&sim)[0];
    assert_eq!(o.counted, (1, 2));
    assert_eq!(sent(o), 15_000);
}

#[test]
fn a_slow_agent_is_lost_and_its_late_result_is_kept_apart() {
    let a = Scripted::new("gnb-a");
    let mut b = Scripted::new("gnb-b");
    b.result_delay_ns = 5 * S;
    let mut sim = sim(vec![a, b], &[1, 1], vec![step(1, 1.0), Event::Finish]);
    sim.run(T0 + 60 * S);
    let outcomes = sim.outcomes();
    let lost = outcomes
        .iter()
        .find_map(|a| match a {
            Action::Lost(l) => Some(l),
            _ => None,
        })
        .expect("b lost");
    assert_eq!(
        (lost.agent.as_str(), lost.reason.as_str()),
        ("gnb-b", "no answer for 3 s")
    );
    let steps = done(&sim);
    assert_eq!(steps[0].counted, (1, 2));
    assert_eq!(sent(steps[0]), 15_000, "a's alone");
    // b's result came after all, and after the step's outcome: apart.
    let late: Vec<(usize, usize)> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            Action::LateResult { agent, result } => {
                assert_eq!(result.agent, "gnb-b");
                Some((i, *agent))
            }
            _ => None,
        })
        .collect();
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].1, 1);
    let done_at = outcomes
        .iter()
        .position(|a| matches!(a, Action::StepDone(_)))
        .unwrap();
    assert!(late[0].0 > done_at);
    assert!(finished(&sim).incomplete());
}

#[test]
fn an_agent_silent_while_arming_is_lost_and_the_armed_are_stopped_before_the_start() {
    let a = Scripted::new("gnb-a");
    let mut b = Scripted::new("gnb-b");
    b.silent_when_armed = true;
    let mut sim = sim(vec![a, b], &[1, 1], vec![step(1, 1.0), Event::Finish]);
    sim.run(T0 + 60 * S);
    let steps = done(&sim);
    assert_eq!(steps.len(), 1);
    assert_eq!((steps[0].start_ns, steps[0].counted), (None, (0, 2)));
    assert!(steps[0].merged.is_none());
    assert!(times(&sim, false).is_empty(), "never started");
    let stops = times(&sim, true);
    assert_eq!(stops.iter().map(|s| s.1).collect::<Vec<_>>(), [0]);
    let end = finished(&sim);
    assert_eq!(end.lost[0].reason, "no answer for 3 s");
    assert_eq!(end.lost[0].step, Some(1));
}

#[test]
fn an_error_while_loading_ends_the_run_before_any_step() {
    let a = Scripted::new("gnb-a");
    let mut b = Scripted::new("gnb-b");
    b.load_status = Some(503);
    let mut sim = sim(vec![a, b], &[1, 1], vec![step(1, 1.0), Event::Finish]);
    sim.run(T0 + 60 * S);
    assert!(done(&sim).is_empty());
    let end = finished(&sim);
    assert_eq!((end.steps, end.lost.len()), (0, 1));
    assert_eq!(end.lost[0].reason, "answered 503: EAL is not up");
    assert_eq!(end.lost[0].step, None);
    assert!(!sim.calls().iter().any(|c| matches!(c.2, Request::Arm(_))));
}

#[test]
fn a_search_s_trials_give_each_agent_its_share_of_the_load() {
    let a = Scripted::new("gnb-a");
    let b = Scripted::new("gnb-b");
    let mut sim = sim(
        vec![a, b],
        &[1, 3],
        vec![step(1, 0.5), step(2, 2.0), Event::Finish],
    );
    sim.run(T0 + 120 * S);
    let steps = done(&sim);
    assert_eq!(steps.len(), 2);
    let per_agent = |o: &StepOutcome| -> Vec<u64> {
        o.results
            .iter()
            .map(|r| r.pairs[0].directions[0].seq.sent)
            .collect()
    };
    // 75 and 225 UEs: a quarter and three quarters of every trial's load.
    assert_eq!(per_agent(steps[0]), [3_750, 11_250]);
    assert_eq!(sent(steps[0]), 15_000);
    assert_eq!(per_agent(steps[1]), [15_000, 45_000]);
    assert_eq!(sent(steps[1]), 60_000);
    // Each step started anew at a time of its own.
    let starts = times(&sim, false);
    assert_eq!(starts.len(), 4);
    assert!(starts[2].2 > starts[0].2 + 6 * S);
    assert!(!finished(&sim).incomplete());
}

#[test]
fn a_cluster_file_gives_the_settings() {
    let cluster = upfbench_config::cluster_from_str(
        "agents:\n  - {name: gnb-a, url: \"http://127.0.0.1:9801\"}\n  - {name: gnb-b, url: \
         \"http://127.0.0.1:9802\", weight: 2}\npfcp: {local: 127.0.0.1, peer: 127.0.0.2}\n\
         agent_timeout: 5s\n",
        "c.yaml",
    )
    .unwrap();
    let s = Settings::of(&cluster, LatencyConfig::default(), Duration::from_secs(2));
    assert_eq!(s.weights(), [1, 2]);
    assert_eq!(s.agents[1].name, "gnb-b");
    assert_eq!(
        (
            s.start_lead,
            s.agent_timeout,
            s.poll_interval,
            s.step_overrun
        ),
        (
            Duration::from_millis(200),
            Duration::from_secs(5),
            Duration::from_secs(1),
            Duration::from_secs(2)
        )
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the agents' clocks and delays, each is given T in its own clock: the moment
    /// its clock reads the time it was given is T to within half its round trip (exactly T
    /// when its calls take as long each way), and the step merges every agent.
    #[test]
    fn every_agent_starts_at_t_within_half_its_round_trip(
        agents in prop::collection::vec(
            (-20_000i64..20_000, 10u64..5_000, prop::option::of(10u64..5_000)),
            1..=3,
        ),
    ) {
        let scripted: Vec<Scripted> = agents
            .iter()
            .enumerate()
            .map(|(i, &(offset_ms, out_us, back_us))| {
                let mut a = Scripted::new(&format!("a{i}"));
                a.offset_ns = offset_ms * MS as i64;
                a.one_way_ns = out_us * 1_000;
                a.back_ns = back_us.map(|b| b * 1_000);
                a
            })
            .collect();
        let weights = vec![1; scripted.len()];
        let mut sim = sim(scripted, &weights, vec![step(1, 1.0), Event::Finish]);
        sim.run(T0 + 60 * S);
        let starts = times(&sim, false);
        prop_assert_eq!(starts.len(), agents.len());
        let t = done(&sim)[0].start_ns.unwrap();
        let rtt_max = agents
            .iter()
            .map(|&(_, out, back)| (out + back.unwrap_or(out)) * 1_000)
            .max()
            .unwrap();
        prop_assert!(t >= starts.iter().map(|s| s.0).max().unwrap() + (200 * MS).max(4 * rtt_max));
        for &(_, agent, at) in &starts {
            let (offset_ms, out, back) = agents[agent];
            let rtt = (out + back.unwrap_or(out)) * 1_000;
            // When the agent's clock reads `at`, on the coordinator's clock.
            let real = at.saturating_add_signed(-(offset_ms * MS as i64));
            prop_assert!(real.abs_diff(t) <= rtt / 2, "agent {}: {} vs {}", agent, real, t);
            if back.is_none() {
                prop_assert_eq!(real, t);
            }
        }
        prop_assert_eq!(done(&sim)[0].counted, (agents.len(), agents.len()));
        prop_assert!(!finished(&sim).incomplete());
    }
}
