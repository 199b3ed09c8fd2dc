//! Two and three `upfbench agent`s under one coordinator (`upfbench run --cluster`), over memif
//! against one reflector serving as many pairs (docs/scale.md §3): the coordinator holds N4 as
//! one SMF (one association, each UE's session with its agent's N3 address as its gNB), the
//! agents start each step at a common time and hand back their raw counters and histograms, and
//! the merged report is the single box's. Every packet comes back; the merged counts equal the
//! sum of the agents' sections exactly, each agent's its UEs' share. An agent killed mid-step
//! is reported by name, the others' results are kept, the run is incomplete (exit status 3).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use upfbench_config::segment::packets_of_block;

use crate::agent::free_port;
use crate::harness::{Process, Scratch, UPFBENCH, n4_pair, num, read_report, serial, unique};

/// UEs, each stream's rate (packets/s) and its measured seconds: low, for a 2-vCPU machine
/// that runs the reflector's and every agent's busy-polling workers.
const UES: u32 = 6;
const RATE: u64 = 6_000;
const SECONDS: u64 = 2;

fn profile(seconds: u64) -> String {
    format!(
        "name: e2e-agents\n\
         sessions: {{count: {UES}}}\n\
         streams:\n  \
           - {{name: ul, direction: uplink, rate: {RATE}pps, payload: 100}}\n  \
           - {{name: dl, direction: downlink, rate: {RATE}pps, payload: 100}}\n\
         duration: {seconds}s\n\
         warmup: 200ms\n\
         drain: 1s\n"
    )
}

/// Pair `i`'s subnets' third octets (N3, N6): 13/16, 23/26, 33/36.
fn octets(i: usize) -> (usize, usize) {
    (13 + 10 * i, 16 + 10 * i)
}

/// The reflector of `pairs` pairs, its sockets in `dir`, its N4 at `upf`, the SMF at `smf`,
/// with `impairments` (a YAML flow mapping).
fn reflector_yaml(
    pairs: usize,
    dir: &str,
    prefix: &str,
    (smf, upf): (String, String),
    impairments: &str,
) -> String {
    // Pair i's worker is lcore 2i, all of them on CPU 0 (the agents' on CPU 1).
    let cpus: Vec<String> = (1..pairs).map(|i| format!("{}: 0", 2 * i)).collect();
    let mut y = format!(
        "kind: reflector\neal:\n  args: [--no-huge, -m, \"512\", --no-pci, --no-telemetry]\n  \
         file_prefix: {prefix}\ncores:\n  main: 1\n  cpus: {{{}}}\npairs:\n",
        cpus.join(", ")
    );
    for i in 0..pairs {
        let (n3, n6) = octets(i);
        let name = (b'a' + i as u8) as char;
        let (m3, m6) = (2 * i, 2 * i + 1);
        y += &format!(
            "  - name: {name}\n    workers: [{w}]\n    n3:\n      device: net_memif{m3}\n      \
             devargs: role=server,id=0,socket={dir}/{name}-n3.sock,socket-abstract=no\n      \
             address: 192.168.{n3}.151/24\n    n6:\n      device: net_memif{m6}\n      \
             devargs: role=server,id=0,socket={dir}/{name}-n6.sock,socket-abstract=no\n      \
             address: 192.168.{n6}.151/24\n      peer: 192.168.{n6}.152\n",
            w = 2 * i,
        );
    }
    y + &format!(
        "pfcp:\n  local: {upf}:8805\n  peer: {smf}\nmode: upf\nimpairments: {impairments}\n"
    )
}

/// Agent `i`'s system: pair `i` of the reflector, the client end of its links.
fn agent_yaml(i: usize, dir: &str, prefix: &str) -> String {
    format!(
        "kind: system\neal:\n  args: [--no-huge, -m, \"512\", --no-pci, --no-telemetry]\n  \
         file_prefix: {prefix}\ncores: {{main: 0, workers: [1], cpus: {{1: 1}}}}\n{}",
        pair_links(i, dir, 0, "")
    )
}

/// Pair `i`'s links from the client end, its ports `net_memif{2 first}` and the next, each
/// line after `indent`.
fn pair_links(i: usize, dir: &str, first: usize, indent: &str) -> String {
    let (n3, n6) = octets(i);
    let name = (b'a' + i as u8) as char;
    let (m3, m6) = (2 * first, 2 * first + 1);
    format!(
        "{indent}n3:\n{indent}  device: net_memif{m3}\n{indent}  \
         devargs: role=client,id=0,socket={dir}/{name}-n3.sock,socket-abstract=no\n{indent}  \
         address: 192.168.{n3}.131/24\n{indent}  peer: 192.168.{n3}.151\n\
         {indent}n6:\n{indent}  device: net_memif{m6}\n{indent}  \
         devargs: role=client,id=0,socket={dir}/{name}-n6.sock,socket-abstract=no\n{indent}  \
         address: 192.168.{n6}.152/24\n{indent}  peer: 192.168.{n6}.151\n"
    )
}

/// One box on every pair of the reflector (pair `i`'s worker lcore 2i + 1, all on CPU 1), its
/// N4 at `smf` towards `upf`: what agents on as many boxes would drive together.
pub(crate) fn one_box_yaml(
    pairs: usize,
    dir: &str,
    prefix: &str,
    (smf, upf): (String, String),
) -> String {
    let cpus: Vec<String> = (0..pairs).map(|i| format!("{}: 1", 2 * i + 1)).collect();
    let mut y = format!(
        "kind: system\neal:\n  args: [--no-huge, -m, \"512\", --no-pci, --no-telemetry]\n  \
         file_prefix: {prefix}\ncores:\n  main: 0\n  cpus: {{{}}}\npairs:\n",
        cpus.join(", ")
    );
    for i in 0..pairs {
        let name = (b'a' + i as u8) as char;
        y += &format!("  - name: {name}\n    workers: [{}]\n", 2 * i + 1);
        y += &pair_links(i, dir, i, "    ");
    }
    y + &format!("pfcp:\n  local: {smf}:8805\n  peer: {upf}:8805\n")
}

/// The reflector, `n` agents and the cluster file that lists them.
pub(crate) struct Bed {
    pub(crate) scratch: Scratch,
    reflector: Process,
    agents: Vec<Process>,
    cluster: PathBuf,
    names: Vec<String>,
    /// The SMF's and the UPF's N4 addresses.
    pub(crate) n4: (String, String),
    case: String,
}

impl Bed {
    fn up(case: &str, n: usize) -> Bed {
        let mut bed = Bed::reflector(case, n, "{}");
        bed.add_agents(n);
        bed
    }

    /// The reflector of `n` pairs with `impairments` alone: no agent yet.
    pub(crate) fn reflector(case: &str, n: usize, impairments: &str) -> Bed {
        let scratch = Scratch::new(case);
        let dir = scratch.path().to_str().expect("utf-8").to_owned();
        let (smf, upf) = n4_pair();
        let n4 = (smf.to_string(), upf.to_string());
        let refl_prefix = unique(&format!("{case}-refl"));
        let reflector_file = scratch.write(
            "reflector.yaml",
            &reflector_yaml(n, &dir, &refl_prefix, n4.clone(), impairments),
        );
        let mut reflector = Process::spawn(
            "reflector",
            &scratch,
            None,
            &[UPFBENCH, "reflect", reflector_file.to_str().expect("utf-8")],
            Some(&refl_prefix),
        );
        reflector.wait_until(Duration::from_secs(20), |out, _| {
            out.contains("reflect: upf mode")
        });
        let cluster = scratch.path().join("cluster.yaml");
        Bed {
            scratch,
            reflector,
            agents: Vec::new(),
            cluster,
            names: Vec::new(),
            n4,
            case: case.to_owned(),
        }
    }

    /// `n` agents, one on each of the reflector's pairs, and the cluster file that lists them
    /// (the coordinator on N4 as one SMF).
    pub(crate) fn add_agents(&mut self, n: usize) {
        let dir = self.scratch.path().to_str().expect("utf-8").to_owned();
        let mut lines = String::new();
        for i in 0..n {
            let name = format!("gnb-{}", (b'a' + i as u8) as char);
            let prefix = unique(&format!("{}-{name}", self.case));
            let system = self
                .scratch
                .write(&format!("{name}.yaml"), &agent_yaml(i, &dir, &prefix));
            let port = free_port();
            let listen = format!("127.0.0.1:{port}");
            // Its own reports in the scratch directory, not the working directory's reports/.
            let reports = self.scratch.path().join(format!("{name}-reports"));
            let mut p = Process::spawn(
                &name,
                &self.scratch,
                None,
                &[
                    UPFBENCH,
                    "agent",
                    system.to_str().expect("utf-8"),
                    "--listen",
                    &listen,
                    "--reports",
                    reports.to_str().expect("utf-8"),
                ],
                Some(&prefix),
            );
            p.wait_until(Duration::from_secs(30), |out, _| {
                out.contains("agent: serving the API")
            });
            lines += &format!("  - {{name: {name}, url: \"http://{listen}\"}}\n");
            self.agents.push(p);
            self.names.push(name);
        }
        let (smf, upf) = &self.n4;
        self.cluster = self.scratch.write(
            "cluster.yaml",
            &format!(
                "kind: cluster\nagents:\n{lines}pfcp:\n  mode: coordinator\n  local: \
                 {smf}:8805\n  peer: {upf}:8805\nagent_timeout: 3s\n"
            ),
        );
    }

    /// `upfbench run --cluster` of `profile`, started.
    fn coordinator(&self, profile: &str) -> Process {
        self.coordinator_of("run", profile, &[])
    }

    /// `upfbench COMMAND --cluster [OPTIONS] PROFILE` of `profile`, started.
    pub(crate) fn coordinator_of(&self, command: &str, profile: &str, options: &[&str]) -> Process {
        let profile = self.scratch.write("profile.yaml", profile);
        let reports = self.reports();
        let mut args = vec![
            UPFBENCH,
            command,
            "--cluster",
            self.cluster.to_str().expect("utf-8"),
            "--reports",
            reports.to_str().expect("utf-8"),
        ];
        args.extend(options);
        args.push(profile.to_str().expect("utf-8"));
        Process::spawn("coordinator", &self.scratch, None, &args, None)
    }

    pub(crate) fn reports(&self) -> PathBuf {
        self.scratch.path().join("reports")
    }

    /// Stops the agents and the reflector; each ends cleanly.
    pub(crate) fn down(mut self) {
        for a in &mut self.agents {
            let status = a.stop(Duration::from_secs(15));
            assert!(status.success(), "agent: {status}\n{}", a.logs());
        }
        let status = self.reflector.stop(Duration::from_secs(15));
        assert!(
            status.success(),
            "reflector: {status}\n{}",
            self.reflector.logs()
        );
    }
}

/// A direction's (sent, received, lost) in the merged step.
fn merged(report: &Value, d: &str) -> (u64, u64, u64) {
    let dir = report["steps"][0]["directions"]
        .as_array()
        .expect("directions")
        .iter()
        .find(|x| x["direction"] == d)
        .unwrap_or_else(|| panic!("no {d}: {report}"));
    (
        num(dir, &["loss", "sent"]),
        num(dir, &["rx", "packets"]),
        num(dir, &["loss", "lost"]),
    )
}

/// Each agent's (sent, received, lost) in direction `d`, as its section says, for the counted.
fn parts(report: &Value, d: &str) -> Vec<(String, (u64, u64, u64))> {
    report["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .filter(|a| a["state"] == "counted")
        .map(|a| {
            let f = a["steps"][0]["figures"]
                .as_array()
                .expect("figures")
                .iter()
                .find(|f| f["direction"] == d)
                .unwrap_or_else(|| panic!("no {d} in {a}"));
            let n = |k: &str| f[k].as_u64().expect(k);
            (
                a["name"].as_str().expect("name").to_owned(),
                (n("sent"), n("received"), n("lost")),
            )
        })
        .collect()
}

fn every_packet_over(n: usize) {
    let _serial = serial();
    let bed = Bed::up(&format!("agents{n}"), n);
    let mut coordinator = bed.coordinator(&profile(SECONDS));
    let status = coordinator.wait(Duration::from_secs(90));
    assert!(
        status.success(),
        "coordinator: {status}\n{}",
        coordinator.logs()
    );
    // The live line: each second of the step, the agents' figures summed.
    let logs = coordinator.logs();
    let live: Vec<&str> = logs
        .lines()
        .filter(|l| l.contains(&format!("s {n} agents: UL tx ")))
        .collect();
    println!("{}", live.join("\n"));
    assert!(!live.is_empty(), "no live line:\n{logs}");
    let report = read_report(&bed.reports());
    let total = RATE * SECONDS;
    // The agents' blocks: the UEs cut by equal weights.
    let blocks: Vec<std::ops::Range<u32>> = (0..n as u32)
        .map(|i| i * UES / n as u32..(i + 1) * UES / n as u32)
        .collect();
    for d in ["uplink", "downlink"] {
        let m = merged(&report, d);
        println!(
            "{n} agents, {d}: merged sent {}, received {}, lost {}",
            m.0, m.1, m.2
        );
        assert_eq!(m, (total, total, 0), "{d}: every packet back");
        let parts = parts(&report, d);
        let names: Vec<&str> = parts.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(names, bed.names, "every agent counted, in order");
        let mut sum = (0, 0, 0);
        for ((name, p), block) in parts.iter().zip(&blocks) {
            println!(
                "{n} agents, {d}: {name}: sent {}, received {}, lost {}",
                p.0, p.1, p.2
            );
            let share = packets_of_block(total, UES, block.clone());
            assert_eq!(*p, (share, share, 0), "{d}: {name}'s UEs' share");
            sum = (sum.0 + p.0, sum.1 + p.1, sum.2 + p.2);
        }
        assert_eq!(sum, m, "{d}: the merged step is the sum of the agents'");
        // The merged histogram holds a sample of every packet received, every agent's.
        let dir = &report["steps"][0]["directions"]
            .as_array()
            .expect("directions")
            .iter()
            .find(|x| x["direction"] == d)
            .expect("the direction")["latency"];
        assert_eq!(num(dir, &["samples"]), total, "{d}: {dir}");
    }
    assert!(report.get("incomplete").is_none(), "{report}");
    // Each agent unloaded its segment at the end, and so wrote its own report of the run
    // while it still runs (not only when it stops).
    for name in &bed.names {
        let dir = bed.scratch.path().join(format!("{name}-reports"));
        let written = (0..100).any(|_| {
            let found = std::fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.path().join("report.json").is_file());
            if !found {
                std::thread::sleep(Duration::from_millis(100));
            }
            found
        });
        assert!(written, "{name} wrote no report in {}", dir.display());
    }
    bed.down();
}

#[test]
fn two_agents_merge_to_the_sum_of_theirs_every_packet_back() {
    every_packet_over(2);
}

#[test]
fn three_agents_merge_to_the_sum_of_theirs_every_packet_back() {
    every_packet_over(3);
}

#[test]
fn two_agents_send_twice_the_profile_s_rates_for_the_duration_given() {
    let _serial = serial();
    let bed = Bed::up("agents-m-d", 2);
    // -m 2x -d 1s: the profile's 2 s at 6 kpps a direction become 1 s at 12 kpps.
    let mut coordinator = bed.coordinator_of("run", &profile(SECONDS), &["-m", "2x", "-d", "1s"]);
    let status = coordinator.wait(Duration::from_secs(90));
    assert!(
        status.success(),
        "coordinator: {status}\n{}",
        coordinator.logs()
    );
    let report = read_report(&bed.reports());
    for d in ["uplink", "downlink"] {
        let m = merged(&report, d);
        assert_eq!(m, (2 * RATE, 2 * RATE, 0), "{d}");
        let parts: u64 = parts(&report, d).iter().map(|(_, p)| p.0).sum();
        assert_eq!(parts, m.0, "{d}");
    }
    let step = &report["steps"][0];
    assert!(
        (step["duration_s"].as_f64().expect("duration") - 1.0).abs() < 0.05,
        "{step}"
    );
    let m = &report["multiplier"];
    assert_eq!(m["given"], "2x", "{m}");
    assert_eq!(m["steps"][0]["factor"], 2.0, "{m}");
    assert_eq!(m["steps"][0]["pps"], 4.0 * RATE as f64, "{m}");
    bed.down();
}

#[test]
fn two_agents_send_on_the_uplink_teids_the_upf_chose() {
    let _serial = serial();
    let bed = Bed::up("agents-ch", 2);
    // CH=1: the reflector's UPF side chooses every uplink F-TEID; the coordinator hands each
    // agent its UEs' TEIDs, and an uplink packet on any other TEID would be dropped.
    let profile = profile(SECONDS).replace(
        &format!("sessions: {{count: {UES}}}"),
        &format!("sessions: {{count: {UES}, uplink_teid: upf}}"),
    );
    let mut coordinator = bed.coordinator(&profile);
    let status = coordinator.wait(Duration::from_secs(90));
    assert!(
        status.success(),
        "coordinator: {status}\n{}",
        coordinator.logs()
    );
    let report = read_report(&bed.reports());
    for d in ["uplink", "downlink"] {
        let m = merged(&report, d);
        println!(
            "CH=1, {d}: merged sent {}, received {}, lost {}",
            m.0, m.1, m.2
        );
        assert_eq!(
            m,
            (RATE * SECONDS, RATE * SECONDS, 0),
            "{d}: every packet back"
        );
    }
    bed.down();
}

#[test]
fn an_agent_killed_mid_step_is_reported_and_the_others_kept() {
    let _serial = serial();
    let mut bed = Bed::up("agents-killed", 3);
    let mut coordinator = bed.coordinator(&profile(4));
    // Once gnb-b's steps began, well into the step (its ARP and arming before that), it dies.
    bed.agents[1].wait_until(Duration::from_secs(30), |out, _| {
        out.contains("the steps of run")
    });
    std::thread::sleep(Duration::from_millis(2_000));
    bed.agents[1].signal("KILL");
    let status = coordinator.wait(Duration::from_secs(90));
    assert_eq!(
        status.code(),
        Some(3),
        "coordinator: {status}\n{}",
        coordinator.logs()
    );
    let report = read_report(&bed.reports());
    let lost = &report["incomplete"]["lost"];
    assert_eq!(lost[0]["agent"], "gnb-b", "{report}");
    assert_eq!(report["incomplete"]["steps"][0]["agents_counted"], "2 of 3");
    println!("lost: {}", lost[0]);
    // The merged step is the two others', exactly, every packet of theirs back.
    for d in ["uplink", "downlink"] {
        let m = merged(&report, d);
        let parts = parts(&report, d);
        let names: Vec<&str> = parts.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(names, ["gnb-a", "gnb-c"]);
        let sum = parts
            .iter()
            .fold((0, 0, 0), |s, (_, p)| (s.0 + p.0, s.1 + p.1, s.2 + p.2));
        println!("{d}: merged {m:?} = {parts:?}");
        assert_eq!(sum, m, "{d}");
        assert!(m.0 > 0 && m.1 == m.0 && m.2 == 0, "{d}: {m:?}");
    }
    // The others and the reflector end cleanly.
    drop(bed.agents.remove(1));
    bed.down();
}
