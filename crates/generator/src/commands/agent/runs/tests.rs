use upfbench_api::v1::{LiveDirection, LiveFigures};
use upfbench_stats::Direction;

use super::*;

fn figures(lost_total: u64) -> LiveFigures {
    LiveFigures {
        elapsed_ns: 3_000_000_000,
        interval_ns: 1_000_000_000,
        total: vec![LiveDirection {
            direction: Direction::Uplink,
            tx_packets: 10_000,
            rx_packets: 9_990,
            tx_gbps_l1: 0.03,
            tx_kpps: 10.0,
            rx_gbps_l1: 0.03,
            rx_kpps: 9.99,
            lost: 5,
            lost_total,
            lat_p50_ns: Some(20_000),
            lat_p99_ns: Some(40_000),
            lat_max_ns: Some(90_000),
        }],
        pairs: Vec::new(),
    }
}

#[test]
fn one_run_at_a_time_each_with_its_own_id() {
    let runs = Runs::default();
    let a = runs.begin(7).expect("the first");
    assert_eq!(a.id, "r1-7");
    let busy = runs.begin(7).expect_err("a second while the first runs");
    assert_eq!(busy.status, 409);
    assert!(
        busy.detail.contains("run r1-7 is starting"),
        "{}",
        busy.detail
    );
    runs.running(&a.id);
    assert_eq!(runs.state(&a.id).unwrap().phase, RunPhase::Running);
    runs.ended(&a.id, Some(PathBuf::from("reports/x")), None);
    let b = runs.begin(7).expect("once the first ended");
    assert_eq!(b.id, "r2-7");
}

#[test]
fn stop_raises_the_runs_interruptions_once_and_not_after_the_end() {
    let runs = Runs::default();
    let t = runs.begin(1).unwrap();
    runs.running(&t.id);
    runs.stop(&t.id).expect("202");
    assert_eq!(t.interrupts.count(), 1, "the run's thread sees it");
    assert_eq!(runs.state(&t.id).unwrap().phase, RunPhase::Stopping);
    // The run's thread does not move a stopping run back to running.
    runs.running(&t.id);
    assert_eq!(runs.state(&t.id).unwrap().phase, RunPhase::Stopping);
    runs.ended(&t.id, Some(PathBuf::from("f")), Some("interrupted".into()));
    let again = runs.stop(&t.id).expect_err("ended");
    assert_eq!(again.status, 409);
    assert_eq!(t.interrupts.count(), 1);
    assert_eq!(runs.stop("r9-1").expect_err("unknown").status, 404);
}

#[test]
fn the_report_is_there_once_the_run_wrote_it_and_never_for_a_failure_without_one() {
    let runs = Runs::default();
    let t = runs.begin(1).unwrap();
    let early = runs.report(&t.id, ReportFile::Json).expect_err("not yet");
    assert_eq!(early.status, 409);
    assert!(early.detail.contains("its report comes when it ends"));
    runs.ended(&t.id, Some(PathBuf::from("reports/run-1")), None);
    assert_eq!(
        runs.report(&t.id, ReportFile::Html).unwrap(),
        PathBuf::from("reports/run-1/report.html")
    );
    let state = runs.state(&t.id).unwrap();
    assert_eq!((state.phase, state.error), (RunPhase::Finished, None));

    let f = runs.begin(1).unwrap();
    runs.ended(&f.id, None, Some("N3: no ARP reply".into()));
    let state = runs.state(&f.id).unwrap();
    assert_eq!(state.phase, RunPhase::Failed);
    let no = runs.report(&f.id, ReportFile::Events).expect_err("failed");
    assert_eq!(no.status, 409);
    assert!(no.detail.contains("N3: no ARP reply"), "{}", no.detail);
    assert_eq!(
        runs.report("nope", ReportFile::Json).unwrap_err().status,
        404
    );
}

#[test]
fn the_live_figures_are_the_last_lines_while_it_runs_and_gone_after() {
    let runs = Runs::default();
    let t = runs.begin(1).unwrap();
    assert_eq!(runs.state(&t.id).unwrap().live, None, "no line yet");
    t.live.post_figures(1, figures(0));
    t.live.post_figures(2, figures(5));
    let s = runs.state(&t.id).unwrap();
    assert_eq!(s.step, Some(2));
    assert_eq!(s.live, Some(figures(5)), "the last posted");
    runs.ended(&t.id, Some(PathBuf::from("f")), None);
    assert_eq!(runs.state(&t.id).unwrap().live, None);
}

#[test]
fn the_oldest_ended_runs_are_forgotten_past_keep() {
    let runs = Runs::default();
    let mut ids = Vec::new();
    for _ in 0..KEEP + 2 {
        let t = runs.begin(5).unwrap();
        runs.ended(&t.id, Some(PathBuf::from("f")), None);
        ids.push(t.id);
    }
    assert_eq!(runs.state(&ids[0]).unwrap_err().status, 404);
    assert_eq!(runs.state(&ids[1]).unwrap_err().status, 404);
    assert!(runs.state(&ids[2]).is_ok());
    assert!(runs.state(ids.last().unwrap()).is_ok());
}
