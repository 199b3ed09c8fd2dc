//! A whole run over fake agents (`fake/`, behind `crates/remote`'s real server on loopback),
//! with and without the coordinator holding N4 (the pfcp crate's UPF on an ephemeral port):
//! the report a single box would write, each step the sum of the agents' results, each agent's
//! section, and the sessions established and ended over one association.

mod fake;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use upfbench_api::v1::{Segment, UplinkTeids};
use upfbench_cluster::segments::teids_of;
use upfbench_config::{cluster_from_str, profile_from_str};
use upfbench_coordinate::run::{ClusterRun, RunInputs, run_over_agents, steps_of};
use upfbench_pfcp::driver::{self, Release};
use upfbench_pfcp::node::UpfConfig;
use upfbench_pfcp::types::Teid;
use upfbench_report::AgentEnd;
use upfbench_run::plan::ue_table;
use upfbench_stats::{Direction, LatencyConfig};

use fake::{Fake, serve};

const PROFILE: &str = "name: p\nsessions: {count: 300}\nstreams: [{name: ul, direction: uplink, \
                       rate: 1kpps, payload: 100}]\nduration: 300ms\nwarmup: 100ms\n";

/// The histograms of [`PROFILE`] (its default `latency`): the agents record with them.
const PROFILE_LATENCY: LatencyConfig = LatencyConfig {
    max_ns: 2_000_000_000,
    significant_digits: 3,
};

fn cluster(urls: &[String], pfcp: &str) -> upfbench_config::Cluster {
    let text = format!(
        "kind: cluster\nagents:\n  - {{name: gnb-a, url: \"{}\"}}\n  - {{name: gnb-b, url: \
         \"{}\", weight: 2}}\npfcp: {pfcp}\n",
        urls[0], urls[1]
    );
    cluster_from_str(&text, "cluster.yaml").unwrap()
}

async fn two_agents() -> (Vec<fake::Served>, Vec<String>) {
    two_agents_with(Arc::default(), &Logs::default()).await
}

/// Each agent's segments as it was given them.
type Logs = [Arc<Mutex<Vec<Segment>>>; 2];

/// Two fake agents (gnb-a with 100 packets a UE, gnb-b with 70), their segments' unloads
/// counted in `unloads` and the segments they are given kept in `logs`.
async fn two_agents_with(
    unloads: Arc<AtomicUsize>,
    logs: &Logs,
) -> (Vec<fake::Served>, Vec<String>) {
    let mut served = Vec::new();
    for ((name, per_ue), log) in [("gnb-a", 100), ("gnb-b", 70)].into_iter().zip(logs) {
        let fake = Fake::new(name, per_ue)
            .recording(PROFILE_LATENCY)
            .counting_unloads(unloads.clone())
            .logging(log.clone());
        served.push(serve(fake).await);
    }
    let urls = served.iter().map(|s| s.url.clone()).collect();
    (served, urls)
}

/// The pfcp crate's UPF on a loopback ephemeral port.
async fn loopback_upf() -> (driver::UpfServer, driver::UpfChannels) {
    let lo = std::net::Ipv4Addr::LOCALHOST;
    let config = UpfConfig::new(lo, lo, driver::recovery_time_stamp_now(), lo.into());
    driver::serve("127.0.0.1:0".parse().unwrap(), config)
        .await
        .expect("binds a loopback port")
}

/// The two agents `urls` with the coordinator on N4 as one SMF towards `upf`, from an
/// ephemeral port of this test's own (a cluster file must name one).
fn on_n4(urls: &[String], upf: &driver::UpfServer) -> upfbench_config::Cluster {
    let peer = upf.local_addr();
    let mut cluster = cluster(
        urls,
        &format!("{{mode: coordinator, local: \"127.0.0.1:8805\", peer: \"{peer}\"}}"),
    );
    cluster.pfcp.local = Some("127.0.0.1:0".parse().unwrap());
    cluster
}

/// Run r1 of `profile` (as JSON `json`) over `cluster`: its `steps`.
fn run_of<'a>(
    cluster: &'a upfbench_config::Cluster,
    profile: &'a upfbench_config::Profile,
    json: &'a serde_json::Value,
    steps: Vec<(String, upfbench_api::v1::StepRequest)>,
) -> ClusterRun<'a> {
    ClusterRun {
        inputs: RunInputs {
            name: "r1",
            cluster,
            profile,
            profile_json: json,
            tool_version: "test",
            started_unix_ms: 0,
        },
        steps,
    }
}

#[tokio::test]
async fn a_sweep_over_two_agents_reports_each_step_as_the_sum_of_theirs() {
    let unloads = Arc::new(AtomicUsize::new(0));
    let (_served, urls) = two_agents_with(unloads.clone(), &Logs::default()).await;
    let cluster = cluster(&urls, "{mode: agents}");
    let profile = profile_from_str(PROFILE, "p.yaml").unwrap();
    let json = serde_json::json!({"name": "p"});
    let steps = steps_of(&profile, &[Some(64), Some(1400)], 1.0);
    assert_eq!(
        steps
            .iter()
            .map(|(l, s)| (l.as_str(), s.step, s.payload))
            .collect::<Vec<_>>(),
        [("64 B", 1, Some(64)), ("1400 B", 2, Some(1400))]
    );
    assert_eq!((steps[0].1.duration_ms, steps[0].1.warmup_ms), (300, 100));
    let said = Mutex::new(Vec::new());
    let outcome = run_over_agents(run_of(&cluster, &profile, &json, steps), |l| {
        said.lock().unwrap().push(l.to_owned())
    })
    .await
    .unwrap();
    // No agent lost; a line of the two agents' summed seconds while the 300 ms steps ran, or none.
    let said = said.into_inner().unwrap();
    assert!(said.iter().all(|l| l.contains(" 2 agents: ")), "{said:?}");
    assert_eq!(outcome.exit_status, 0);
    let report = &outcome.report;
    // gnb-a holds 100 UEs at 100 packets each, gnb-b 200 at 70: 10,000 + 14,000.
    assert_eq!(report.steps.len(), 2, "{:?}", report.warnings);
    for (step, label) in report.steps.iter().zip(["64 B", "1400 B"]) {
        assert_eq!(step.label, label);
        let ul = &step.directions[0];
        assert_eq!(ul.direction, Direction::Uplink);
        assert_eq!((ul.loss.sent, ul.loss.lost), (24_000, 2));
    }
    assert_eq!(report.agents.len(), 2);
    let parts: Vec<u64> = report
        .agents
        .iter()
        .map(|a| {
            assert_eq!(a.state, AgentEnd::Counted);
            a.steps[0].figures[0].sent
        })
        .collect();
    assert_eq!(parts, [10_000, 14_000]);
    assert!(report.incomplete.is_none());
    assert!(outcome.events.is_empty());
    // After the last step each agent unloaded its segment (and wrote its own report).
    assert_eq!(unloads.load(Ordering::Relaxed), 2);
    // Each step's interval log: the agents' second 0 added, a sample per UE of both.
    assert_eq!(outcome.interval_logs.len(), 2);
    for log in &outcome.interval_logs {
        let intervals = intervals(log.as_deref().expect("a log"));
        assert_eq!(intervals.len(), 1);
        let (tag, h) = &intervals[0];
        assert_eq!((tag.as_str(), h.len()), ("uplink", 300));
    }
}

/// (tag, histogram) of each interval of an HdrHistogram interval log.
fn intervals(bytes: &[u8]) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
    use base64::Engine as _;
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
    IntervalLogIterator::new(bytes)
        .filter_map(|e| match e.expect("a valid interval log") {
            LogEntry::Interval(iv) => {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(iv.encoded_histogram())
                    .expect("base64");
                let h = Deserializer::new()
                    .deserialize(&mut raw.as_slice())
                    .expect("a histogram");
                Some((iv.tag().expect("tagged").as_str().to_owned(), h))
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_coordinator_holds_every_session_over_one_association() {
    let (upf, _channels) = loopback_upf().await;
    let (_served, urls) = two_agents().await;
    let cluster = on_n4(&urls, &upf);
    let profile = profile_from_str(PROFILE, "p.yaml").unwrap();
    let json = serde_json::json!({"name": "p"});
    let outcome = run_over_agents(
        run_of(&cluster, &profile, &json, steps_of(&profile, &[None], 1.0)),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(outcome.exit_status, 0);
    assert_eq!(outcome.report.steps[0].label, "p");
    assert_eq!(outcome.report.steps[0].payload_bytes, None);
    assert_eq!(outcome.report.steps[0].directions[0].loss.sent, 24_000);
    // Every session deleted, the association released.
    assert_eq!(outcome.n4_end, Some((300, Release::Answered)));
    assert_eq!(upf.rules().await.unwrap().downlink_count(), 0);
}

#[tokio::test]
async fn the_uplink_teids_the_upf_chose_are_handed_to_each_agent() {
    let (upf, _channels) = loopback_upf().await;
    let logs: Logs = Default::default();
    let (_served, urls) = two_agents_with(Arc::default(), &logs).await;
    let cluster = on_n4(&urls, &upf);
    // CH=1: the UPF chooses every uplink F-TEID.
    let text = PROFILE.replace(
        "sessions: {count: 300}",
        "sessions: {count: 300, uplink_teid: upf}",
    );
    let profile = profile_from_str(&text, "p.yaml").unwrap();
    let run = tokio::spawn(async move {
        let json = serde_json::json!({"name": "p"});
        run_over_agents(
            run_of(&cluster, &profile, &json, steps_of(&profile, &[None], 1.0)),
            |_| {},
        )
        .await
    });
    // While the step runs, every TEID an agent was given is the UPF's uplink PDR of its UE.
    while logs.iter().any(|l| l.lock().unwrap().is_empty()) {
        fake::wait_ms(10).await;
    }
    let rules = upf.rules().await.unwrap();
    let ues = ue_table(&profile_from_str(&text, "p.yaml").unwrap().sessions);
    let mut all = std::collections::BTreeSet::new();
    for (log, (first, count)) in logs.iter().zip([(0, 100), (100, 200)]) {
        let segment = log.lock().unwrap()[0].clone();
        assert_eq!((segment.ues.first, segment.ues.count), (first, count));
        assert!(matches!(segment.uplink_teids, UplinkTeids::Chosen(_)));
        assert_eq!(segment.upf_n3.as_deref(), Some("127.0.0.1"));
        let teids = teids_of(&segment.uplink_teids, first, count).unwrap();
        assert_eq!(teids.len(), count as usize);
        for (ue, teid) in (first..first + count).zip(teids) {
            let rule = rules.uplink(Teid(teid)).expect("the UPF's uplink PDR");
            assert_eq!(
                rule.ue_address.map(std::net::IpAddr::V4),
                Some(ues.address(ue)),
                "UE {ue}"
            );
            assert!(all.insert(teid), "TEID {teid} twice");
        }
    }
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.exit_status, 0);
    assert_eq!(outcome.report.steps[0].directions[0].loss.sent, 24_000);
    assert_eq!(outcome.n4_end, Some((300, Release::Answered)));
}

#[tokio::test]
async fn uplink_teids_the_upf_chooses_need_the_coordinator_on_n4() {
    let (_served, urls) = two_agents().await;
    let cluster = cluster(&urls, "{mode: agents}");
    let text = PROFILE.replace(
        "sessions: {count: 300}",
        "sessions: {count: 300, uplink_teid: upf}",
    );
    let profile = profile_from_str(&text, "p.yaml").unwrap();
    let json = serde_json::json!({"name": "p"});
    let e = run_over_agents(
        run_of(&cluster, &profile, &json, steps_of(&profile, &[None], 1.0)),
        |_| {},
    )
    .await
    .unwrap_err();
    assert!(
        e.to_string().contains("needs `pfcp.mode: coordinator`"),
        "{e}"
    );
}

#[tokio::test]
async fn a_deletion_the_upf_refuses_keeps_the_run_s_figures_and_says_so() {
    let (upf, _channels) = loopback_upf().await;
    let logs: Logs = Default::default();
    let (_served, urls) = two_agents_with(Arc::default(), &logs).await;
    let cluster = on_n4(&urls, &upf);
    let profile = profile_from_str(PROFILE, "p.yaml").unwrap();
    let said = Arc::new(Mutex::new(Vec::<String>::new()));
    let told = said.clone();
    let run = tokio::spawn(async move {
        let json = serde_json::json!({"name": "p"});
        run_over_agents(
            run_of(&cluster, &profile, &json, steps_of(&profile, &[None], 1.0)),
            move |l| told.lock().unwrap().push(l.to_owned()),
        )
        .await
    });
    // While the step runs, the UPF restarts: it forgets the association and every session, so
    // it refuses their deletion (as eUPF did in the lab after pruning an association).
    while logs.iter().any(|l| l.lock().unwrap().is_empty()) {
        fake::wait_ms(10).await;
    }
    assert_eq!(upf.restart().await.unwrap(), 300);
    let outcome = run.await.unwrap().expect("the run's figures");
    assert_eq!(outcome.exit_status, 1);
    assert_eq!(outcome.n4_end, None);
    assert_eq!(outcome.report.steps[0].directions[0].loss.sent, 24_000);
    let warning = outcome
        .report
        .warnings
        .iter()
        .find(|w| w.starts_with("N4 at the end of the run: PFCP deletion"))
        .unwrap_or_else(|| panic!("{:?}", outcome.report.warnings));
    assert!(warning.ends_with("sessions of this run may be left on the UPF"));
    assert!(said.lock().unwrap().contains(warning));
}
