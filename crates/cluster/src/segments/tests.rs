use proptest::prelude::*;
use upfbench_api::v1::UplinkTeids;

use super::*;

#[test]
fn agents_of_weight_1_and_2_take_a_third_and_two_thirds() {
    let streams = [
        StreamSpan {
            ues: 0..1000,
            rate: 3000.0,
            packets: 30_001,
        },
        // A stream of the last 10 UEs only: all on the second agent.
        StreamSpan {
            ues: 990..1000,
            rate: 50.0,
            packets: 7,
        },
    ];
    let shares = cut(1000, &[1, 2], &streams).unwrap();
    assert_eq!(shares[0].ues, 0..333);
    assert_eq!(shares[1].ues, 333..1000);
    assert_eq!(shares[0].streams[0].rate, 999.0);
    assert_eq!(shares[1].streams[0].rate, 2001.0);
    // 30,001 over 1000 UEs: 30 each, UE 0 one more.
    assert_eq!(shares[0].streams[0].packets, 333 * 30 + 1);
    assert_eq!(shares[1].streams[0].packets, 667 * 30);
    assert_eq!(shares[0].streams[1].ues, 990..990, "none on the first");
    assert_eq!(
        (shares[0].streams[1].rate, shares[0].streams[1].packets),
        (0.0, 0)
    );
    assert_eq!(shares[1].streams[1].ues, 990..1000);
    assert_eq!(
        (shares[1].streams[1].rate, shares[1].streams[1].packets),
        (50.0, 7)
    );
    assert_eq!(shares[1].fraction(1000), 0.667);
}

#[test]
fn fewer_ues_than_agents_is_refused() {
    assert_eq!(
        cut(1, &[1, 1], &[]),
        Err(SplitError::TooFewUes { ues: 1, blocks: 2 })
    );
}

#[test]
fn teids_are_the_run_s_sequence_or_the_block_s_chosen_ones() {
    let seq = TeidSource::Sequence {
        first: 4096,
        step: 2,
    };
    let t = uplink_teids(seq, &(10..13)).unwrap();
    assert_eq!(
        t,
        UplinkTeids::Sequence {
            first: 4096,
            step: 2
        }
    );
    assert_eq!(teids_of(&t, 10, 3).unwrap(), [4116, 4118, 4120]);
    let chosen: Vec<u32> = (0..8).map(|i| 0x1000_0000 + i * 7).collect();
    let t = uplink_teids(TeidSource::Chosen(&chosen), &(5..8)).unwrap();
    // Three big-endian u32s: 0x10000023, 0x1000002a, 0x10000031.
    assert_eq!(t, UplinkTeids::Chosen("EAAAIxAAACoQAAAx".to_owned()));
    assert_eq!(teids_of(&t, 5, 3).unwrap(), &chosen[5..8]);
    assert!(matches!(teids_of(&t, 5, 2), Err(TeidError::Encoding(_))));
    assert_eq!(
        uplink_teids(TeidSource::Chosen(&chosen), &(6..9))
            .unwrap_err()
            .to_string(),
        "the UPF chose 8 TEIDs, UEs 6 to 8 need 9"
    );
}

#[test]
fn each_agent_s_segment_names_its_block() {
    let profile = serde_json::json!({"name": "quickstart", "sessions": {"count": 1000}});
    let run = RunSegments {
        run: "2026-11-29T12-00-00Z-7f3a",
        profile: &profile,
        teids: TeidSource::Sequence {
            first: 4096,
            step: 1,
        },
        upf_n3: None,
    };
    let shares = cut(1000, &[1, 2], &[]).unwrap();
    let s = run.segment(1, 2, "gnb-b", &shares[1]).unwrap();
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        serde_json::json!({
            "run": "2026-11-29T12-00-00Z-7f3a", "agent": "gnb-b", "index": 1, "agents": 2,
            "profile": {"name": "quickstart", "sessions": {"count": 1000}},
            "ues": {"first": 333, "count": 667},
            "uplink_teids": {"sequence": {"first": 4096, "step": 1}},
            "upf_n3": null
        })
    );
}

fn stream() -> impl Strategy<Value = StreamSpan> {
    (0u32..2_000, 1u32..2_000, 0.0f64..1e11, 0u64..10_000_000_000).prop_map(
        |(first, n, rate, packets)| StreamSpan {
            ues: first..first + n,
            rate,
            packets,
        },
    )
}

proptest! {
    #[test]
    fn the_agents_parts_add_up_to_every_stream(
        sessions in 1u32..5_000,
        weights in prop::collection::vec(1u32..100, 1..6),
        streams in prop::collection::vec(stream(), 1..4),
    ) {
        prop_assume!(sessions as usize >= weights.len());
        // The streams' UEs within the sessions, as the profile's checks require.
        let streams: Vec<StreamSpan> = streams
            .into_iter()
            .map(|mut s| {
                s.ues.start = s.ues.start.min(sessions - 1);
                s.ues.end = s.ues.end.min(sessions).max(s.ues.start + 1);
                s
            })
            .collect();
        let shares = cut(sessions, &weights, &streams).unwrap();
        prop_assert_eq!(shares.len(), weights.len());
        prop_assert_eq!(shares[0].ues.start, 0);
        prop_assert_eq!(shares.last().unwrap().ues.end, sessions);
        let fractions: f64 = shares.iter().map(|s| s.fraction(sessions)).sum();
        prop_assert!((fractions - 1.0).abs() < 1e-12);
        for (i, s) in streams.iter().enumerate() {
            let packets: u64 = shares.iter().map(|a| a.streams[i].packets).sum();
            prop_assert_eq!(packets, s.packets, "packets exactly");
            let ues: u32 = shares.iter().map(|a| a.streams[i].ues.len() as u32).sum();
            prop_assert_eq!(ues, s.ues.len() as u32, "every UE of the stream once");
            let rate: f64 = shares.iter().map(|a| a.streams[i].rate).sum();
            // rate × block / n summed in f64: exact but for the last bits of rounding.
            prop_assert!((rate - s.rate).abs() <= s.rate * 1e-12, "{} vs {}", rate, s.rate);
            for a in &shares {
                let p = &a.streams[i];
                prop_assert!(p.ues.is_empty() || (a.ues.start <= p.ues.start && p.ues.end <= a.ues.end));
            }
        }
    }
}
