use crate::{ConfigError, reflector_from_str, run_from_str, system_from_str};

/// Pair `i`'s ports on memif links of their own, addresses on subnets 13+10i and 16+10i.
fn ports(i: u32, role: &str) -> String {
    format!(
        "n3: {{device: net_memif{a}, devargs: 'role={role},socket=/tmp/p{i}-n3.sock', \
         address: 192.168.{n3}.131/24, peer: 192.168.{n3}.151}}, \
         n6: {{device: net_memif{b}, devargs: 'role={role},socket=/tmp/p{i}-n6.sock', \
         address: 192.168.{n6}.152/24, peer: 192.168.{n6}.151}}",
        a = 2 * i,
        b = 2 * i + 1,
        n3 = 13 + 10 * i,
        n6 = 16 + 10 * i,
    )
}

const SHORT: &str = "cores: {main: 0, workers: [2, 3]}\n\
    n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
    n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n";

fn two_pairs(extra_a: &str, extra_b: &str) -> String {
    format!(
        "cores: {{main: 0}}\npairs:\n  - {{name: a, workers: [1, 2]{extra_a}, {}}}\n  \
         - {{workers: [3]{extra_b}, {}}}\n",
        ports(0, "client"),
        ports(1, "client"),
    )
}

/// The diagnostics of a refused file as `field: message` lines.
fn refused(e: ConfigError) -> Vec<String> {
    match e {
        ConfigError::Invalid { diagnostics, .. } => diagnostics
            .into_iter()
            .map(|d| format!("{}: {}", d.field, d.message))
            .collect(),
        other => panic!("not a located refusal: {other}"),
    }
}

#[test]
fn the_short_form_is_one_pair_named_p0_with_the_cores_workers() {
    let s = system_from_str(SHORT, "s.yaml").expect("valid");
    assert_eq!(s.pairs().len(), 1);
    let p0 = s.pair(0);
    assert_eq!(p0.name, "p0");
    assert_eq!(p0.workers, [2, 3]);
    assert_eq!(p0.weight(), 1);
    assert_eq!(p0.n3.device.name(), "net_null0");
    assert_eq!(p0.n6.device.name(), "net_null1");
    assert_eq!(p0.queue_count(), 2);
    assert_eq!(s.cores.workers, [2, 3]);
    let blocks = s.ue_blocks(10).expect("one pair");
    assert_eq!((blocks.len(), blocks[0].start, blocks[0].end), (1, 0, 10));
    // Without `cores.workers`: worker 1, as before pairs.
    let s = system_from_str(
        &SHORT.replace("cores: {main: 0, workers: [2, 3]}\n", ""),
        "s",
    )
    .expect("valid");
    assert_eq!(
        (s.pair(0).workers.as_slice(), s.cores.workers.as_slice()),
        (&[1][..], &[1][..])
    );
}

#[test]
fn pairs_are_named_by_place_weighted_and_their_workers_are_the_cores() {
    let s = system_from_str(&two_pairs("", ", weight: 3"), "s.yaml").expect("valid");
    let names: Vec<&str> = s.pairs().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a", "p1"]);
    assert_eq!(s.cores.workers, [1, 2, 3], "every pair's workers in order");
    assert_eq!((s.pair(0).weight(), s.pair(1).weight()), (1, 3));
    assert_eq!((s.pair(0).queue_count(), s.pair(1).queue_count()), (2, 1));
    assert_eq!(s.ue_blocks(8), Some(vec![0..2, 2..8]), "1:3 of 8 UEs");
    assert_eq!(s.ue_blocks(1), None, "one UE for two pairs");
    assert_eq!(s.pair(1).n3.address.to_string(), "192.168.23.131/24");
}

#[test]
fn each_pair_has_its_one_port_mode_and_its_fields_are_located_in_it() {
    let text = "pairs:\n  - {workers: [1], n3: {device: net_null0, address: 192.168.13.131/24, \
                peer: 192.168.13.151, vlan: {id: 13}}, n6: {port: n3, \
                address: 192.168.16.152/24, peer: 192.168.16.151, vlan: {id: 16}}}\n  \
                - {workers: [2], n3: {device: net_null1, address: 192.168.23.131/24, \
                peer: 192.168.23.151, queues: 4}, n6: {device: net_null2, \
                address: 192.168.26.152/24, peer: 192.168.26.151, vlan: {id: 4095}}}\n";
    let e = system_from_str(text, "s.yaml").expect_err("refused");
    let lines = refused(e);
    assert_eq!(
        lines,
        [
            "pairs[1].n3.queues: 4 queues for 1 worker: each worker owns one receive and one \
             transmit queue of each port, so give 1 (pairs[1].workers), or leave the field out",
            "pairs[1].n6.vlan.id: VLAN id 4095 is reserved (IEEE 802.1Q Table 9-2: 0 marks a \
             priority tag, 4095 is never sent): use 1 to 4094",
        ],
    );
    let fixed = text.replace(", queues: 4", "").replace("4095", "26");
    let s = system_from_str(&fixed, "s.yaml").expect("valid");
    assert!(s.pair(0).one_port());
    assert!(!s.pair(1).one_port());
    assert_eq!(
        s.pair(0).n6.device.name(),
        "net_null0",
        "N3's device copied in"
    );
}

#[test]
fn the_forms_are_not_mixed() {
    let both = format!(
        "{}n3: {{device: net_null9, address: 192.168.99.131/24, peer: 192.168.99.151}}\n",
        two_pairs("", "")
    )
    .replace("cores: {main: 0}", "cores: {main: 0, workers: [5]}");
    let lines = refused(system_from_str(&both, "s.yaml").expect_err("refused"));
    assert!(
        lines.contains(
            &"pairs: give the ports under `pairs` or as top-level `n3`/`n6`, not both".to_owned()
        ),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"cores.workers: with `pairs`, each pair names its `workers`".to_owned()),
        "{lines:?}"
    );
    let lines = refused(system_from_str("pfcp: {}\n", "s.yaml").expect_err("refused"));
    assert_eq!(
        lines,
        [
            "pairs: at least one pair: give `pairs`, or the one pair's ports as top-level `n3` and \
          `n6`"
        ]
    );
    let lines = refused(
        system_from_str(
            "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n",
            "s.yaml",
        )
        .expect_err("refused"),
    );
    assert_eq!(lines, ["n6: missing field `n6`"]);
}

#[test]
fn pairs_share_no_name_worker_device_n3_address_nor_memif_link() {
    let text = format!(
        "cores: {{main: 0}}\npairs:\n  - {{name: a, workers: [1, 2], {}}}\n  \
         - {{name: a, workers: [2, 0, 3, 3], weight: 0, {}}}\n",
        ports(0, "client"),
        ports(1, "client")
            .replace("net_memif2", "net_memif0")
            .replace("192.168.23.131", "192.168.13.131")
            .replace("192.168.23.151", "192.168.13.151")
            .replace("/tmp/p1-n6.sock", "/tmp/p0-n6.sock"),
    );
    let lines = refused(system_from_str(&text, "s.yaml").expect_err("refused"));
    assert_eq!(
        lines,
        [
            "pairs[1].name: pair `a` is named twice",
            "pairs[1].workers[0]: lcore 2 is a worker of pair a already",
            "pairs[1].workers[1]: lcore 0 is the main lcore; workers need lcores of their own",
            "pairs[1].workers[3]: lcore 3 is listed twice",
            "pairs[1].weight: 0: a pair needs a weight of 1 or more",
            "pairs[1].n3.device: net_memif0 is pair a's n3 already",
            "pairs[1].n3.address: 192.168.13.131 is pair a's n3 address already",
            "pairs[1].n6.devargs: socket=/tmp/p0-n6.sock with id=0 is pair a's n6 link already \
             (a memif link is its socket and its id: give another socket or id)",
        ],
    );
    // Another id on the same socket is another link.
    let ok = format!(
        "cores: {{main: 0}}\npairs:\n  - {{name: a, workers: [1, 2], {}}}\n  \
         - {{name: b, workers: [3], {}}}\n",
        ports(0, "client"),
        ports(1, "client").replace("/tmp/p1-n6.sock'", "/tmp/p0-n6.sock,id=1'"),
    );
    let s = system_from_str(&ok, "s.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.pairs().len(), 2);
}

#[test]
fn a_pair_name_is_a_short_label() {
    let lines =
        refused(system_from_str(&two_pairs("", ", name: 'b c'"), "s.yaml").expect_err("refused"));
    assert_eq!(
        lines,
        [
            "pairs[1].name: \"b c\": use letters, digits, '-' and '_' (it labels the report's tables)"
        ]
    );
}

#[test]
fn the_reflector_takes_pairs_without_weights_and_each_needs_its_n6_peer() {
    let text = format!(
        "kind: reflector\ncores: {{main: 0}}\npairs:\n  - {{workers: [1], {}}}\n  \
         - {{workers: [2], weight: 2, {}}}\npfcp: {{}}\n",
        ports(0, "server"),
        ports(1, "server").replace(", peer: 192.168.26.151", ""),
    );
    let lines = refused(reflector_from_str(&text, "r.yaml").expect_err("refused"));
    assert_eq!(
        lines,
        [
            "pairs[1].weight: the reflector does not use a pair's weight (the generator does): \
             leave it out",
            "pairs[1].n6.peer: the upf mode sends uplink to the N6 peer: give its address \
             (192.168.16.152 in the design's plan)",
        ]
    );
    let ok = text.replace(", weight: 2", "").replace(
        "address: 192.168.26.152/24}",
        "address: 192.168.26.152/24, peer: 192.168.26.151}",
    );
    let r = reflector_from_str(&ok, "r.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.pairs().len(), 2);
    assert_eq!(r.cores.workers, [1, 2]);
    assert_eq!(r.pair(1).name, "p1");
    // The short form is pair p0.
    let r = reflector_from_str(
        "n3: {device: net_null0, address: 192.168.13.151/24}\n\
         n6: {device: net_null1, address: 192.168.16.151/24, peer: 192.168.16.152}\npfcp: {}\n",
        "r.yaml",
    )
    .expect("valid");
    assert_eq!((r.pairs().len(), r.pair(0).name.as_str()), (1, "p0"));
    assert_eq!(r.pair(0).workers, [1]);
}

/// One UPF reached over two links (the kernel lab's two gNBs, deploy/systems/
/// lab-agents-reflector.yaml): the reflector's pairs hold the same N3 and N6 addresses, each on
/// its own link, which a generator's pairs may not (each N3 address is a gNB).
#[test]
fn the_reflector_s_pairs_may_share_the_upf_s_addresses() {
    let text = format!(
        "kind: reflector\ncores: {{main: 0}}\npairs:\n  - {{workers: [1], {}}}\n  \
         - {{workers: [2], {}}}\npfcp: {{}}\n",
        ports(0, "server"),
        ports(1, "server")
            .replace("192.168.23.", "192.168.13.")
            .replace("192.168.26.", "192.168.16."),
    );
    let r = reflector_from_str(&text, "r.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.pair(0).n3.address, r.pair(1).n3.address);
    assert_eq!(r.pair(0).n6.address, r.pair(1).n6.address);
}

const PROFILE: &str = "name: x\nsessions: {count: 4}\n\
    streams: [{name: s, direction: uplink, rate: 6Gbps L1, payload: 1400}]\n";

#[test]
fn each_pair_needs_a_ue_and_carries_its_share_of_the_rate() {
    let system = two_pairs("", "")
        .replace(
            "peer: 192.168.13.151}",
            "peer: 192.168.13.151, speed: 10Gbps}",
        )
        .replace(
            "peer: 192.168.23.151}",
            "peer: 192.168.23.151, speed: 10Gbps}",
        );
    // 6 Gbps over two pairs of 10G: 3 each.
    run_from_str(&system, "s.yaml", PROFILE, "p.yaml").unwrap_or_else(|e| panic!("{e}"));
    // One session for two pairs.
    let one = PROFILE.replace("count: 4", "count: 1");
    let lines = refused(run_from_str(&system, "s.yaml", &one, "p.yaml").expect_err("refused"));
    assert_eq!(
        lines,
        ["sessions.count: 1 session for 2 pairs of s.yaml: each pair needs a UE"]
    );
    // 3 of the 4 UEs on pair p1 (weight 3): 4.5 Gbps of 6, within its 10G; at 14 Gbps, 10.5.
    let weighted = system.replace("workers: [3]", "workers: [3], weight: 3");
    run_from_str(&weighted, "s.yaml", PROFILE, "p.yaml").unwrap_or_else(|e| panic!("{e}"));
    let fast = PROFILE.replace("6Gbps", "14Gbps");
    run_from_str(&system, "s.yaml", &fast, "p.yaml").expect("7 Gbps a pair fits");
    let lines = refused(run_from_str(&weighted, "s.yaml", &fast, "p.yaml").expect_err("refused"));
    assert_eq!(
        lines,
        [
            "streams[0].rate: the streams sent on pairs[1].n3 add up to 10.500 Gbps at L1, above \
          its line rate of 10.000 Gbps (pairs[1].n3.speed in s.yaml)"
        ]
    );
}

#[test]
fn a_pairs_device_from_the_environment_and_no_auto_cores_with_pairs() {
    use crate::system::host::fake::FakeHost;
    use crate::system_from_str_on;
    let text = two_pairs("", "").replace("device: net_memif2", "device: {env: PAIR_B_N3}");
    let host = FakeHost::cpus(&[0, 1, 2, 3]).var("PAIR_B_N3", "0000:af:02.0");
    let s = system_from_str_on(&text, "s.yaml", &host).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.pair(1).n3.device.name(), "0000:af:02.0");
    let lines =
        refused(system_from_str_on(&text, "s.yaml", &FakeHost::cpus(&[0, 1])).expect_err("unset"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("pairs[1].n3.device: the environment variable PAIR_B_N3 is not set"),
        "{lines:?}"
    );
    let auto = text.replace("cores: {main: 0}", "cores: auto");
    let lines = refused(system_from_str_on(&auto, "s.yaml", &host).expect_err("auto"));
    assert_eq!(
        lines,
        [
            "cores: auto: the CPUs of this process make the workers of one pair (the top-level n3 \
          and n6); with `pairs`, give `cores: {main: ...}` and each pair's `workers`"
        ]
    );
}
