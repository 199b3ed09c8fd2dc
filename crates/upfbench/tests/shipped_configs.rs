//! Every file users start from loads and validates: the profiles in `profiles/`, the system and
//! reflector files in `deploy/systems/`, and each profile on the embedded default's system.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use upfbench_config::devargs::{SocketRole, socket_file, virtio_queue_pairs};
use upfbench_config::{
    self as config, Direction, FileKind, ReflectMode, Reflector, System, TeidAllocation, TeidRange,
    frame,
};
use upfbench_net::{Qfi, Teid};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yaml_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .expect("directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
}

fn profile(name: &str) -> config::Profile {
    config::load_profile(repo().join("profiles").join(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn system(name: &str) -> System {
    config::load_system(repo().join("deploy/systems").join(name)).unwrap_or_else(|e| panic!("{e}"))
}

fn reflector(name: &str) -> Reflector {
    config::load_reflector(repo().join("deploy/systems").join(name))
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_profile_loads_and_runs_on_the_embedded_default() {
    // The Python client's example runs its own (clients/python/examples/test_upf.py).
    let mut profiles = yaml_files("profiles");
    profiles.extend(yaml_files("clients/python/examples/profiles"));
    let names: Vec<String> = profiles
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for wanted in [
        "quickstart.yaml",
        "published.yaml",
        "ues-10k.yaml",
        "uplink-only.yaml",
        "downlink-only.yaml",
        "imix.yaml",
        "upflab-1000.yaml",
        "search.yaml",
        "upflab-search.yaml",
        "handover.yaml",
    ] {
        assert!(names.iter().any(|n| n == wanted), "{wanted} missing");
    }
    let memif = repo().join("deploy/systems/memif.yaml");
    for p in &profiles {
        let text = std::fs::read_to_string(p).expect("read");
        assert_eq!(
            config::detect_kind(&text),
            Some(FileKind::Profile),
            "{}",
            p.display()
        );
        config::load_run(&memif, p).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_quickstart_is_one_ue_both_ways_for_five_seconds_per_payload() {
    let p = profile("quickstart.yaml");
    assert_eq!(p.sessions.count, 1);
    assert_eq!(p.sessions.first_ue_address(), Ipv4Addr::new(10, 45, 0, 2));
    assert_eq!(
        p.sessions.uplink_teid,
        TeidAllocation::Range(TeidRange {
            first: Teid(1),
            step: 2
        })
    );
    assert_eq!(p.sessions.downlink_teid.teid(0), Teid(2));
    let dirs: Vec<Direction> = p.streams.iter().map(|s| s.direction).collect();
    assert_eq!(dirs, [Direction::Uplink, Direction::Downlink]);
    assert_eq!(p.duration.as_secs(), 5);
    assert_eq!(p.sweep.payloads, [10, 300, 1400]);
}

#[test]
fn the_published_shape_sweeps_10_300_and_1400_bytes() {
    let p = profile("published.yaml");
    assert_eq!(p.sweep.payloads, [10, 300, 1400]);
    assert_eq!(p.sessions.count, 1);
    assert_eq!(p.sessions.qfi.map(Qfi::get), Some(1));
    assert!(p.sessions.pdu_session_container && p.sessions.uplink_pdr_qfi);
    assert_eq!(p.sessions.dnn.as_deref(), Some("internet"));
    assert!(p.streams.iter().any(|s| s.direction.uplink()));
    assert!(p.streams.iter().any(|s| s.direction.downlink()));
}

#[test]
fn ten_thousand_ues_fit_the_pool_with_disjoint_teids() {
    let p = profile("ues-10k.yaml");
    assert_eq!(p.sessions.count, 10_000);
    assert_eq!(p.sessions.ue_address(9_999), Ipv4Addr::new(10, 45, 39, 17));
    let TeidAllocation::Range(ul) = p.sessions.uplink_teid else {
        panic!("uplink TEIDs are ours");
    };
    assert_eq!(
        (ul.teid(9_999), p.sessions.downlink_teid.teid(9_999)),
        (Teid(19_999), Teid(20_000))
    );
}

#[test]
fn one_way_profiles_go_one_way() {
    let up = profile("uplink-only.yaml");
    assert!(up.streams.iter().all(|s| s.direction == Direction::Uplink));
    let down = profile("downlink-only.yaml");
    assert!(
        down.streams
            .iter()
            .all(|s| s.direction == Direction::Downlink)
    );
}

#[test]
fn imix_is_seven_four_one_of_64_594_1518_byte_frames() {
    let p = profile("imix.yaml");
    let frames: Vec<usize> = p
        .streams
        .iter()
        .map(|s| frame::n6_frame_len(usize::from(s.payload)))
        .collect();
    assert_eq!(frames, [64, 594, 1518]);
    let pps: Vec<f64> = p
        .streams
        .iter()
        .map(|s| s.rate.pps(64, None).expect("a packet rate"))
        .collect();
    assert_eq!([pps[0] / pps[2], pps[1] / pps[2]], [7.0, 4.0]);
    assert!(p.streams.iter().all(|s| s.direction == Direction::Both));
    // Its largest packets do not fit the kernel lab's 1500-byte veths once tunnelled.
    let err = config::load_run(
        repo().join("deploy/systems/lab.yaml"),
        repo().join("profiles/imix.yaml"),
    )
    .expect_err("1544-byte N3 packets on a 1500-byte MTU");
    let d = &err.diagnostics()[0];
    assert_eq!(d.field, "streams[2].payload");
    assert!(d.message.contains("1544-byte uplink packets on n3"), "{d}");
}

#[test]
fn every_system_file_loads_as_its_kind() {
    let files = yaml_files("deploy/systems");
    assert!(files.len() >= 6, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let kind = config::detect_kind(&text).unwrap_or_else(|| panic!("{}", f.display()));
        let loaded = config::load_any(f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loaded.kind(), kind, "{}", f.display());
        assert_ne!(kind, FileKind::Profile, "{}", f.display());
    }
}

/// The generator's and the reflector's files of one testbed agree with each other.
fn assert_pair(gen_file: &str, refl_file: &str) {
    let g = system(gen_file);
    let r = reflector(refl_file);
    let (rn3, rn6) = (&r.pair(0).n3, &r.pair(0).n6);
    assert_eq!(r.mode, ReflectMode::Upf);
    assert_eq!(g.pair(0).n3.peer, rn3.address.addr);
    assert_eq!(g.pair(0).n6.peer, rn6.address.addr);
    assert_eq!(rn6.peer, Some(g.pair(0).n6.address.addr));
    assert_eq!(g.pair(0).n3.address.network(), rn3.address.network());
    assert_eq!(g.pair(0).n6.address.network(), rn6.address.network());
    let (gp, rp) = (
        g.pfcp.as_ref().expect("pfcp"),
        r.pfcp.as_ref().expect("pfcp"),
    );
    assert_eq!(gp.peer, rp.local);
    assert_eq!(rp.peer, gp.local.ip());
    assert_ne!(g.eal.file_prefix, r.eal.file_prefix);
    assert!(g.eal.file_prefix.is_some() && r.eal.file_prefix.is_some());
    // The two processes' busy workers sit on different lcores.
    assert!(g.cores.workers.iter().all(|w| !r.cores.workers.contains(w)));
}

/// Issue 29's memif pairs: N3 and N6 over IPv6, and one-port mode with VLANs; each pair agrees.
#[test]
fn the_ipv6_and_vlan_memif_pairs_agree() {
    use upfbench_net::{IpFamily, VlanTags};
    assert_pair("memif-v6.yaml", "memif-v6-reflector.yaml");
    let g = system("memif-v6.yaml");
    assert_eq!(
        (g.pair(0).n3.family(), g.pair(0).n6.family()),
        (IpFamily::Ipv6, IpFamily::Ipv6)
    );
    assert_pair("memif-vlan.yaml", "memif-vlan-reflector.yaml");
    let g = system("memif-vlan.yaml");
    let r = reflector("memif-vlan-reflector.yaml");
    assert!(g.pair(0).one_port());
    let (rn3, rn6) = (&r.pair(0).n3, &r.pair(0).n6);
    assert_eq!(g.pair(0).n6.device, g.pair(0).n3.device);
    assert_eq!(rn6.device, rn3.device);
    assert_eq!(g.pair(0).n3.vlan_tags(), rn3.vlan_tags());
    assert_eq!(g.pair(0).n6.vlan_tags(), rn6.vlan_tags());
    assert!(matches!(g.pair(0).n3.vlan_tags(), VlanTags::Single(t) if t.vid == 13 && t.pcp == 5));
}

#[test]
fn the_embedded_default_joins_generator_and_reflector_by_memif() {
    assert_pair("memif.yaml", "memif-reflector.yaml");
    let g = system("memif.yaml");
    let r = reflector("memif-reflector.yaml");
    let gp = g.pfcp.as_ref().expect("pfcp");
    assert_eq!(gp.local, "127.0.0.1:8805".parse().unwrap());
    assert_eq!(gp.peer, "127.0.0.2:8805".parse().unwrap());
    for (gen_port, refl_port, sock) in [
        (&g.pair(0).n3, &r.pair(0).n3, "/tmp/upfbench/n3.sock"),
        (&g.pair(0).n6, &r.pair(0).n6, "/tmp/upfbench/n6.sock"),
    ] {
        assert_eq!(gen_port.device, refl_port.device);
        let (ga, ra) = (
            gen_port.devargs.as_deref().unwrap(),
            refl_port.devargs.as_deref().unwrap(),
        );
        assert!(
            ga.contains("role=client") && ra.contains("role=server"),
            "{ga} / {ra}"
        );
        assert!(ga.contains(&format!("socket={sock}")) && ra.contains(&format!("socket={sock}")));
    }
}

/// virtio-user ports against vhost-user ports: each generator port is the client of the socket
/// its reflector port serves, with a queue pair per worker on both ends.
#[test]
fn the_virtio_pair_joins_virtio_user_to_vhost_by_socket() {
    assert_pair("virtio-user.yaml", "vhost-reflector.yaml");
    let g = system("virtio-user.yaml");
    let r = reflector("vhost-reflector.yaml");
    for (gen_port, refl_port, sock) in [
        (&g.pair(0).n3, &r.pair(0).n3, "/tmp/upfbench/vhost-n3.sock"),
        (&g.pair(0).n6, &r.pair(0).n6, "/tmp/upfbench/vhost-n6.sock"),
    ] {
        let (ga, ra) = (gen_port.devargs.as_deref(), refl_port.devargs.as_deref());
        let gs = socket_file(gen_port.device.name(), ga).expect("a socket file");
        let rs = socket_file(refl_port.device.name(), ra).expect("a socket file");
        assert!(gen_port.device.name().starts_with("net_virtio_user"));
        assert!(refl_port.device.name().starts_with("net_vhost"));
        assert_eq!(
            (gs.path.to_str(), gs.role),
            (Some(sock), SocketRole::Client)
        );
        assert_eq!(
            (rs.path.to_str(), rs.role),
            (Some(sock), SocketRole::Server)
        );
        assert_eq!(
            virtio_queue_pairs(gen_port.device.name(), ga),
            Some(Ok(g.cores.workers.len() as u16))
        );
        assert_eq!(
            virtio_queue_pairs(refl_port.device.name(), ra),
            Some(Ok(r.cores.workers.len() as u16))
        );
    }
}

#[test]
fn the_kernel_lab_pair_uses_the_design_address_plan() {
    assert_pair("lab.yaml", "lab-reflector.yaml");
    let g = system("lab.yaml");
    assert_eq!(g.pair(0).n3.address.to_string(), "192.168.13.131/24");
    assert_eq!(g.pair(0).n6.address.to_string(), "192.168.16.152/24");
    let gp = g.pfcp.clone().expect("pfcp");
    assert_eq!(gp.local.ip(), IpAddr::V4(Ipv4Addr::new(192, 168, 14, 111)));
    assert_eq!(gp.peer.ip(), IpAddr::V4(Ipv4Addr::new(192, 168, 14, 151)));
    assert!(
        g.pair(0).n3.peer_mac.is_none() && g.pair(0).n6.peer_mac.is_none(),
        "ARP resolves them"
    );
    let r = reflector("lab-reflector.yaml");
    let ports = [&r.pair(0).n3, &r.pair(0).n6];
    assert!(
        ports.iter().all(|p| p.peer_mac.is_none()),
        "the reflector learns or resolves them"
    );
}

/// The kernel lab with two agents as two gNBs (`deploy/lab.sh up --agents 2`): each agent's
/// file its own veths, gNB and data network addresses and the lab's UPF as peers; the reflector
/// one pair per agent with the UPF's addresses on both and each agent's N6 address as that
/// pair's peer; the cluster file those agents and the lab's N4; and lab.sh's links the same.
#[test]
fn the_lab_agents_are_two_gnbs_of_one_upf() {
    let a = system("lab-agent-a.yaml");
    let b = system("lab-agent-b.yaml");
    let r = reflector("lab-agents-reflector.yaml");
    let lab = std::fs::read_to_string(repo().join("deploy/lab.sh")).expect("lab.sh");
    assert_eq!(r.mode, ReflectMode::Upf);
    assert_eq!(r.pairs().len(), 2);
    for (k, (g, links)) in [(&a, ("n3a", "n6a")), (&b, ("n3b", "n6b"))]
        .into_iter()
        .enumerate()
    {
        let (gp, rp) = (g.pair(0), r.pair(k));
        assert!(g.pfcp.is_none(), "the coordinator holds N4");
        for (port, rport, ifc) in [(&gp.n3, &rp.n3, links.0), (&gp.n6, &rp.n6, links.1)] {
            let devargs = port.devargs.as_deref().expect("devargs");
            assert!(devargs.starts_with(&format!("iface={ifc},")), "{devargs}");
            let rdevargs = rport.devargs.as_deref().expect("devargs");
            assert!(rdevargs.starts_with(&format!("iface={ifc},")), "{rdevargs}");
            assert_eq!(port.peer, rport.address.addr, "{ifc}");
            assert_eq!(port.address.network(), rport.address.network(), "{ifc}");
            // lab.sh's link: the agent's address and the UPF's on that veth.
            let link = format!("{ifc}:{}:{}", port.address.addr, port.peer);
            assert!(lab.contains(&link), "lab.sh has no {link}");
        }
        assert_eq!(rp.n6.peer, Some(gp.n6.address.addr));
        assert_ne!(g.eal.file_prefix, r.eal.file_prefix);
        // The agents' busy workers on CPU 1, the reflector's on CPU 0.
        let cpu = |c: &config::Cores, lcore: &u32| *c.cpus.get(lcore).unwrap_or(lcore);
        assert!(g.cores.workers.iter().all(|w| cpu(&g.cores, w) == 1));
        assert!(r.cores.workers.iter().all(|w| cpu(&r.cores, w) == 0));
    }
    assert_ne!(
        a.pair(0).n3.address.addr,
        b.pair(0).n3.address.addr,
        "two gNBs"
    );
    assert_ne!(a.pair(0).n6.address.addr, b.pair(0).n6.address.addr);
    assert_ne!(a.eal.file_prefix, b.eal.file_prefix);
    let lab_system = system("lab.yaml");
    let lab_pfcp = lab_system.pfcp.as_ref().expect("pfcp");
    let c = config::load_cluster(repo().join("deploy/systems/lab-cluster.yaml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = c.agents.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["gnb-a", "gnb-b"]);
    assert_eq!(c.pfcp.mode, config::PfcpMode::Coordinator);
    assert_eq!(c.pfcp.local.map(|l| l.ip()), Some(lab_pfcp.local.ip()));
    assert_eq!(c.pfcp.peer.map(|p| p.ip()), Some(lab_pfcp.peer.ip()));
    let rpfcp = r.pfcp.as_ref().expect("pfcp");
    assert_eq!(c.pfcp.peer.map(|p| p.ip()), Some(rpfcp.local.ip()));
    assert_eq!(c.pfcp.local.map(|l| l.ip()), Some(rpfcp.peer));
}

/// The kernel lab on net_af_xdp: the af_packet pair's addresses, peers and lcores, AF_XDP ports on
/// the same veths, in copy mode without busy polling, and hugepages (under `--no-huge` DPDK
/// 22.11's UMEM does not cover the receive pool: docs/upfs.md).
#[test]
fn the_af_xdp_lab_pair_is_the_af_packet_pair_on_af_xdp_ports() {
    assert_pair("lab-af-xdp.yaml", "lab-reflector-af-xdp.yaml");
    let (g, ga) = (system("lab-af-xdp.yaml"), system("lab.yaml"));
    let (r, ra) = (
        reflector("lab-reflector-af-xdp.yaml"),
        reflector("lab-reflector.yaml"),
    );
    assert_eq!((&g.pfcp, &g.cores, &g.arp), (&ga.pfcp, &ga.cores, &ga.arp));
    assert_eq!((&r.pfcp, &r.cores), (&ra.pfcp, &ra.cores));
    let pairs = [
        (&g.pair(0).n3, &ga.pair(0).n3, "n3", "net_af_xdp0"),
        (&g.pair(0).n6, &ga.pair(0).n6, "n6", "net_af_xdp1"),
    ];
    for (port, af_packet, iface, device) in pairs {
        assert_eq!(
            (port.address, port.peer, port.mtu),
            (af_packet.address, af_packet.peer, af_packet.mtu)
        );
        assert_eq!(port.device.name(), device);
        assert_eq!(
            port.devargs.as_deref(),
            Some(
                format!("iface={iface},start_queue=0,queue_count=1,force_copy=1,busy_budget=0")
                    .as_str()
            )
        );
    }
    let ports = [
        (&r.pair(0).n3, &ra.pair(0).n3),
        (&r.pair(0).n6, &ra.pair(0).n6),
    ];
    for (port, af_packet) in ports {
        assert_eq!(
            (port.address, port.peer),
            (af_packet.address, af_packet.peer)
        );
        assert!(port.device.name().starts_with("net_af_xdp"));
    }
    for args in [&g.eal.args, &r.eal.args] {
        assert!(args.iter().any(|a| a == "--in-memory"), "{args:?}");
        assert!(!args.iter().any(|a| a == "--no-huge"), "{args:?}");
    }
}

#[test]
fn bare_metal_and_vm_examples_use_pci_devices() {
    for f in ["connectx5.yaml", "virtio-vm.yaml"] {
        let s = system(f);
        for port in [&s.pair(0).n3, &s.pair(0).n6] {
            assert!(matches!(port.device, config::Device::Pci(_)), "{f}");
        }
    }
    let cx5 = system("connectx5.yaml");
    assert_eq!(cx5.pair(0).n3.speed, Some(100_000_000_000));
    // A queue per worker on each port.
    for port in [&cx5.pair(0).n3, &cx5.pair(0).n6] {
        assert_eq!(
            usize::from(cx5.pair(0).queue_count()),
            cx5.cores.workers.len()
        );
        assert_eq!(port.queues, Some(8));
    }
}

#[test]
fn the_connectx5_example_validates_and_plans_without_a_nic() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_upfbench"))
        .current_dir(repo())
        .args([
            "validate",
            "deploy/systems/connectx5.yaml",
            "profiles/ues-10k.yaml",
            "profiles/published.yaml",
        ])
        .output()
        .expect("run upfbench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().next(),
        Some(
            "ok: deploy/systems/connectx5.yaml (system: n3 0000:3b:00.0 192.168.13.131/24, n6 \
             0000:3b:00.1 192.168.16.152/24, PFCP 192.168.14.111:8805 -> 192.168.14.151:8805)"
        )
    );

    // 10,000 UEs dealt over the eight workers, each sending 1/8 of each stream on its queue.
    let cx5 = repo().join("deploy/systems/connectx5.yaml");
    let (s, p) = config::load_run(&cx5, repo().join("profiles/ues-10k.yaml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let plan = upfbench_run::plan::build(&s, &p, None, [None, None]).expect("plan");
    let lcores: Vec<u32> = plan.workers.iter().map(|w| w.lcore).collect();
    assert_eq!(lcores, [2, 3, 4, 5, 6, 7, 8, 9]);
    for w in &plan.workers {
        assert_eq!(w.shares.len(), 2, "worker {}", w.lcore);
        for share in &w.shares {
            assert_eq!(share.count, 1250);
            assert!(
                (share.rate_pps - 125_000.0).abs() < 1e-6,
                "{}",
                share.rate_pps
            );
        }
    }
    assert_eq!(plan.packets(), 2 * 30_000_000);

    // A rate in percent of the line: the file's 100 Gbps stands for what the NIC would report.
    let pct = config::profile_from_str(
        "name: pct\nsessions: {count: 8}\n\
         streams: [{name: a, direction: both, rate: 10%, payload: 1400}]\n",
        "pct.yaml",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let plan = upfbench_run::plan::build(&s, &pct, None, [None, None])
        .expect("the line rate comes from the file");
    let container = pct.sessions.pdu_session_container;
    for (stream, frame) in plan.streams.iter().zip([
        frame::n3_frame_len(1400, container),
        frame::n6_frame_len(1400),
    ]) {
        let want = 10e9 / ((frame + frame::L1_OVERHEAD) * 8) as f64;
        assert!(
            (stream.rate_pps - want).abs() < 1e-3,
            "{}: {} pps, want {want}",
            stream.name,
            stream.rate_pps
        );
    }
    assert_eq!(plan.workers.len(), 8);
}

/// The reflector of two pairs: pairs `a` and `b`, each worker on its own lcore, and its links
/// as its comments list them for a two-pair generator to mirror (device, socket, id, the
/// reflector's address and the generator's address and peer on each).
#[test]
fn the_pairs_reflector_serves_two_pairs_as_its_comments_say() {
    let file = "memif-pairs-reflector.yaml";
    let r = reflector(file);
    assert_eq!(r.mode, ReflectMode::Upf);
    let names: Vec<&str> = r.pairs().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(r.cores.workers, [0, 2]);
    let text = std::fs::read_to_string(repo().join("deploy/systems").join(file)).expect("read");
    // "#   a     n3    net_memif0  /tmp/upfbench/a-n3.sock   0   192.168.13.151/24     192.168.13.131/24, peer 192.168.13.151"
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter_map(|l| l.strip_prefix("#   "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() == 9 && matches!(f[0], "a" | "b"))
        .collect();
    assert_eq!(rows.len(), 4, "a row per link in the comments");
    for row in rows {
        let pair = r.pairs().iter().find(|p| p.name == row[0]).expect("pair");
        let port = match row[1] {
            "n3" => &pair.n3,
            "n6" => &pair.n6,
            other => panic!("port {other}"),
        };
        let devargs = port.devargs.as_deref().expect("devargs");
        assert_eq!(port.device.name(), row[2], "{row:?}");
        assert!(
            devargs.contains(&format!("socket={},", row[3])),
            "{devargs}"
        );
        assert!(devargs.contains(&format!("id={},", row[4])), "{devargs}");
        assert!(devargs.contains("role=server"), "{devargs}");
        assert_eq!(port.address.to_string(), row[5], "{row:?}");
        // The generator's side: its address on the subnet, the reflector's as its peer.
        let generator: config::IpPrefix = row[6].trim_end_matches(',').parse().expect("prefix");
        assert_eq!(generator.network(), port.address.network(), "{row:?}");
        assert_eq!(row[8], port.address.addr.to_string(), "{row:?}");
        if row[1] == "n6" {
            assert_eq!(port.peer, Some(generator.addr), "{row:?}");
        }
    }
}
