use upfbench_config::{DirectionSet, profile_and_json, profile_from_str};

use super::case_json;
use upfbench_profile_search::case::profile_pps;

const PROFILE: &str = "
name: s
sessions: {count: 4}
streams:
  - {name: ul, direction: uplink, rate: 30kpps, payload: 300}
  - {name: dl, direction: downlink, rate: 10kpps, payload: 300}
  - {name: both, direction: both, rate: 5kpps, payload: 64}
search:
  max_load: 100kpps
  directions: [uplink, downlink, both]
";

#[test]
fn a_case_s_json_is_the_profile_of_its_case() {
    let (profile, json) = profile_and_json(PROFILE, "p.yaml").expect("valid");
    let cases = upfbench_profile_search::case::cases(&profile, &[Some(64)]);
    let sets = [
        DirectionSet::Uplink,
        DirectionSet::Downlink,
        DirectionSet::Both,
    ];
    for (case, set) in cases.iter().zip(sets) {
        assert_eq!(case.set, set);
        let text = case_json(&json, set).to_string();
        let back = profile_from_str(&text, "case.json").expect("a profile");
        let mut expected = case.profile.clone();
        expected.search.directions = vec![set];
        assert_eq!(back, expected, "{set:?}");
    }
    assert_eq!(cases[0].profile.streams.len(), 2);
}

#[test]
fn a_load_is_shared_by_the_streams_pps_each_direction_of_a_both_stream_counted() {
    let profile = profile_from_str(PROFILE, "p.yaml").expect("valid");
    assert_eq!(profile_pps(&profile), Some(30e3 + 10e3 + 2.0 * 5e3));
    let mut bits = profile.clone();
    bits.streams[1].rate = upfbench_config::Rate::BitsL2(1e9);
    assert_eq!(profile_pps(&bits), None);
}
