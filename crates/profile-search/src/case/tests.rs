use super::*;
use upfbench_config as config;
use upfbench_run::plan::{build, rate_frame_len};

const SYSTEM: &str = include_str!("../../../../deploy/systems/memif.yaml");

const PROFILE: &str = "
name: mix
streams:
  - {name: ul, direction: uplink, rate: 300kpps, payload: 300}
  - {name: dl, direction: downlink, rate: 100kpps, payload: 300}
  - {name: both, direction: both, rate: 50kpps, payload: 1400}
search:
  directions: [uplink, downlink, both]
";

fn setup() -> (config::System, Profile) {
    config::run_from_str(SYSTEM, "memif.yaml", PROFILE, "p.yaml").expect("valid")
}

#[test]
fn a_case_per_payload_and_direction_set_with_its_streams_alone() {
    let (_, profile) = setup();
    let c = cases(&profile, &[Some(10), Some(1400)]);
    let labels: Vec<_> = c.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "10 B uplink",
            "10 B downlink",
            "10 B both",
            "1400 B uplink",
            "1400 B downlink",
            "1400 B both"
        ]
    );
    let names = |c: &Case| {
        c.profile
            .streams
            .iter()
            .map(|s| (s.name.clone(), s.direction))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&c[0]),
        [
            ("ul".into(), Direction::Uplink),
            ("both".into(), Direction::Uplink)
        ]
    );
    assert_eq!(
        names(&c[1]),
        [
            ("dl".into(), Direction::Downlink),
            ("both".into(), Direction::Downlink)
        ]
    );
    assert_eq!(c[2].profile.streams, profile.streams);
}

#[test]
fn a_trial_shares_its_load_as_the_profile_does_and_the_mix_weighs_the_frames() {
    let (system, profile) = setup();
    let case = &cases(&profile, &[Some(300)])[2];
    let base = build(&system, &case.profile, case.payload, [None, None]).unwrap();
    // 300 + 100 + 50 + 50 kpps: shares 0.6, 0.2, 0.1 (each half of the `both` stream).
    let mix = Mix::of(case, &base, [Some(10e9), Some(10e9)]);
    assert_eq!(mix.shares, [0.6, 0.2, 0.1]);
    let trial = trial_profile(
        case,
        &mix,
        1_000_000.0,
        Duration::from_secs(2),
        Duration::ZERO,
    );
    let plan = build(&system, &trial, case.payload, [None, None]).unwrap();
    let rates: Vec<f64> = plan.streams.iter().map(|s| s.rate_pps).collect();
    assert_eq!(rates, [600_000.0, 200_000.0, 100_000.0, 100_000.0]);
    assert_eq!(plan.packets(), 2_000_000);
    // Every packet of the sweep's 300 B on the wire: N3 (GTP-U, container) 300 + 8 + 20 + 36
    // + 8 + 20 + 14 + 4, N6 300 + 8 + 20 + 14 + 4.
    let n3 = rate_frame_len(StatsDirection::Uplink, 300, true) as f64;
    let n6 = rate_frame_len(StatsDirection::Downlink, 300, false) as f64;
    assert!((mix.frame_bytes_l2 - (0.7 * n3 + 0.3 * n6)).abs() < 1e-9);
    // N3 carries 70 % of the load in larger frames: it is the limit.
    let expected = 10e9 / (0.7 * (n3 + 20.0) * 8.0);
    assert!((mix.line_rate_pps.unwrap() - expected).abs() < 1e-6);
    assert_eq!(Mix::of(case, &base, [Some(10e9), None]).line_rate_pps, None);
    let (l2, l1) = mix.gbps(1e6);
    assert!((l1 - l2 - 0.16).abs() < 1e-9);
    // On tagged ports (N3 in QinQ, N6 on one VLAN) every frame weighs its tags too.
    let mut tagged = system.clone();
    tagged.pairs[0].n3.vlan = Some(config::Vlan {
        id: 13,
        pcp: 5,
        offload: None,
    });
    tagged.pairs[0].n3.qinq = Some(config::Vlan {
        id: 100,
        pcp: 0,
        offload: None,
    });
    tagged.pairs[0].n6.vlan = Some(config::Vlan {
        id: 16,
        pcp: 0,
        offload: None,
    });
    let base = build(&tagged, &case.profile, case.payload, [None, None]).unwrap();
    let t = Mix::of(case, &base, [Some(10e9), Some(10e9)]);
    let want = 0.7 * (n3 + 8.0) + 0.3 * (n6 + 4.0);
    assert!(
        (t.frame_bytes_l2 - want).abs() < 1e-9,
        "{}",
        t.frame_bytes_l2
    );
    let expected = 10e9 / (0.7 * (n3 + 8.0 + 20.0) * 8.0);
    assert!((t.line_rate_pps.unwrap() - expected).abs() < 1e-6);
}
