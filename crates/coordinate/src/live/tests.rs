use upfbench_api::v1::{AgentState, LiveDirection, LiveFigures, Status};
use upfbench_stats::Direction;

use super::LiveSum;

fn direction(direction: Direction, kpps: f64, lost_total: u64, p99_us: u64) -> LiveDirection {
    LiveDirection {
        direction,
        tx_packets: (kpps * 1e3) as u64,
        rx_packets: (kpps * 1e3) as u64,
        tx_gbps_l1: kpps * 1e3 * 148.0 * 8.0 / 1e9,
        tx_kpps: kpps,
        rx_gbps_l1: kpps * 1e3 * 148.0 * 8.0 / 1e9,
        rx_kpps: kpps,
        lost: 0,
        lost_total,
        lat_p50_ns: Some(p99_us * 500),
        lat_p99_ns: Some(p99_us * 1_000),
        lat_max_ns: Some(p99_us * 2_000),
    }
}

fn status(elapsed_s: u64, dirs: Vec<LiveDirection>) -> Status {
    Status {
        state: AgentState::Running,
        step: Some(1),
        phase: None,
        live: Some(LiveFigures {
            elapsed_ns: elapsed_s * 1_000_000_000,
            interval_ns: 1_000_000_000,
            total: dirs,
            pairs: vec![],
        }),
    }
}

#[test]
fn a_line_comes_once_every_counted_agent_gave_its_second_and_sums_them() {
    let mut live = LiveSum::new(3);
    let a = status(
        2,
        vec![
            direction(Direction::Uplink, 3.0, 1, 20),
            direction(Direction::Downlink, 3.0, 0, 10),
        ],
    );
    let b = status(
        3,
        vec![
            direction(Direction::Uplink, 6.0, 2, 35),
            direction(Direction::Downlink, 6.0, 0, 12),
        ],
    );
    assert_eq!(live.status(0, &a), None);
    assert_eq!(live.status(1, &b), None);
    // The same second read again brings nothing new.
    assert_eq!(live.status(1, &b), None);
    // An agent without live figures (armed, collected) holds nothing up, nor adds.
    let idle = Status {
        live: None,
        ..status(0, vec![])
    };
    assert_eq!(live.status(2, &idle), None);
    live.lose(2);
    let a = status(
        3,
        vec![
            direction(Direction::Uplink, 3.0, 1, 20),
            direction(Direction::Downlink, 3.0, 0, 10),
        ],
    );
    let line = live.status(0, &a).expect("a line");
    assert_eq!(
        line,
        "    3.0s 2 agents: UL tx 0.011 Gbps 9.0 kpps rx 0.011 Gbps 9.0 kpps lost 3 lat worst \
         agent's p99/max 35.0/70.0 us | DL tx 0.011 Gbps 9.0 kpps rx 0.011 Gbps 9.0 kpps lost 0 \
         lat worst agent's p99/max 12.0/24.0 us"
    );
    // The next line waits for both again, each with a new second.
    let (a, b) = (
        status(4, a.live.clone().unwrap().total),
        status(4, b.live.clone().unwrap().total),
    );
    assert_eq!(live.status(0, &a), None);
    assert!(live.status(1, &b).is_some());
}
