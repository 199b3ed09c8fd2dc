//! The reflector's echo mode, checked by an independent party: `upfbench reflect --echo n6` on
//! `net_af_packet` in the lab's UPF namespace (deploy/systems/lab-reflector.yaml, only the DPDK
//! file prefix changed), Scapy (`echo_scapy.py`) on the tester's end of the n6 veth. What Scapy
//! sends: one ARP request for the reflector's N6 address, UDP datagrams of different sizes, one
//! ICMP echo request, TCP segments. What must come back: each UDP datagram once, with the
//! Ethernet and IPv4 addresses and the UDP ports swapped, the payload as sent and both checksums
//! right; one ARP reply and one ICMP echo reply (the service plane); no TCP. The reflector's
//! counters say the same: echoed, service frames, dropped not_user_traffic.

use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

use crate::harness::{
    Process, Scratch, UPFBENCH, patch, reflector_drops, reflector_totals, repo, runtime_dir,
    serial, total, unique,
};
use crate::lab::Lab;

const REFLECTOR_N6: &str = "192.168.16.151";
const TESTER_N6: &str = "192.168.16.152";
const UDP: u64 = 12;
const TCP: u64 = 2;

#[test]
fn echo_mode_swaps_udp_answers_arp_and_icmp_and_counts_the_rest() {
    let _serial = serial();
    let scratch = Scratch::new("echo");
    let lab = Lab::up("echo");
    let (tg_mac, dut_mac) = (Lab::mac(&lab.tg, "n6"), Lab::mac(&lab.dut, "n6"));
    let prefix = unique("echo-refl");
    let mut reflector = start_reflector(&scratch, &lab, &prefix);
    let out = run_scapy(&lab, &tg_mac, &dut_mac);
    let refl_status = reflector.stop(Duration::from_secs(15));
    assert!(
        out.status.success(),
        "scapy: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        refl_status.success(),
        "reflector: {refl_status}\n{}",
        reflector.logs()
    );
    assert!(
        !runtime_dir(&prefix).exists(),
        "the reflector left its runtime files"
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("scapy's JSON");
    println!(
        "echo: scapy got back {} UDP datagrams, {} ARP replies, {} ICMP echo replies, {} other",
        seen["udp"].as_array().map_or(0, Vec::len),
        seen["arp_replies"].as_array().map_or(0, Vec::len),
        seen["icmp_replies"].as_array().map_or(0, Vec::len),
        seen["other"].as_array().map_or(0, Vec::len),
    );
    check_udp_echoes(&seen, &tg_mac, &dut_mac);
    check_service_replies(&seen, &dut_mac);
    check_reflector_counters(&reflector);
}

/// `upfbench reflect --echo n6` in the UPF's namespace, on the shipped lab file with its own
/// DPDK file prefix, until it says it echoes.
fn start_reflector(scratch: &Scratch, lab: &Lab, prefix: &str) -> Process {
    let shipped = std::fs::read_to_string(repo().join("deploy/systems/lab-reflector.yaml"))
        .expect("shipped file");
    let file = scratch.write(
        "reflector.yaml",
        &patch(
            &shipped,
            "file_prefix: upfbench-dut",
            &format!("file_prefix: {prefix}"),
        ),
    );
    let mut reflector = Process::spawn(
        "reflector",
        scratch,
        Some(&lab.dut),
        &[
            UPFBENCH,
            "reflect",
            file.to_str().expect("utf-8"),
            "--echo",
            "n6",
        ],
        Some(prefix),
    );
    reflector.wait_until(Duration::from_secs(20), |out, _| {
        out.contains("reflect: echo on N6 mode")
    });
    reflector
}

/// Scapy's exchange on the tester's end of n6; its output is its JSON of what came back.
fn run_scapy(lab: &Lab, tg_mac: &str, dut_mac: &str) -> Output {
    let script = repo().join("crates/upfbench/tests/e2e/echo_scapy.py");
    let (udp, tcp) = (UDP.to_string(), TCP.to_string());
    // Debian's python3-scapy is for the system's interpreter.
    Command::new("ip")
        .args(["netns", "exec", &lab.tg, "/usr/bin/python3"])
        .arg(&script)
        .args(["n6", tg_mac, TESTER_N6, dut_mac, REFLECTOR_N6, &udp, &tcp])
        .output()
        .expect("python3")
}

/// Every UDP datagram came back once, swapped, with the payload it had and right checksums.
fn check_udp_echoes(seen: &Value, tg_mac: &str, dut_mac: &str) {
    let echoes = seen["udp"].as_array().expect("udp");
    assert_eq!(echoes.len() as u64, UDP, "{seen}");
    for (i, e) in echoes.iter().enumerate() {
        let i = i as u64;
        assert_eq!(e["eth_src"], dut_mac, "{e}");
        assert_eq!(e["eth_dst"], tg_mac, "{e}");
        assert_eq!(
            (e["ip_src"].as_str(), e["ip_dst"].as_str()),
            (Some(REFLECTOR_N6), Some(TESTER_N6)),
            "{e}"
        );
        assert_eq!(e["ip_id"], i, "in the order sent: {e}");
        assert_eq!(
            (e["sport"].as_u64(), e["dport"].as_u64()),
            (Some(7), Some(40000 + i)),
            "{e}"
        );
        let payload: String = (0..20 + 13 * i)
            .map(|k| format!("{:02x}", (i + k) % 256))
            .collect();
        assert_eq!(e["payload"], payload.as_str(), "{e}");
        assert_eq!(e["ip_checksum_ok"], true, "{e}");
        assert_eq!(e["udp_checksum_ok"], true, "{e}");
    }
}

/// ARP and ICMP were answered by the service plane, TCP was not echoed.
fn check_service_replies(seen: &Value, dut_mac: &str) {
    let arp = seen["arp_replies"].as_array().expect("arp");
    assert_eq!(arp.len(), 1, "{seen}");
    assert_eq!(
        (arp[0]["op"].as_u64(), arp[0]["psrc"].as_str()),
        (Some(2), Some(REFLECTOR_N6))
    );
    assert_eq!(arp[0]["hwsrc"], dut_mac);
    let icmp = seen["icmp_replies"].as_array().expect("icmp");
    assert_eq!(icmp.len(), 1, "{seen}");
    assert_eq!(
        (
            icmp[0]["type"].as_u64(),
            icmp[0]["id"].as_u64(),
            icmp[0]["seq"].as_u64()
        ),
        (Some(0), Some(0x1234), Some(1))
    );
    assert_eq!(seen["other"].as_array().map(Vec::len), Some(0), "{seen}");
}

/// The reflector's counters: what it echoed, answered and dropped, adding up to what came in.
fn check_reflector_counters(reflector: &Process) {
    let totals = reflector_totals(&reflector.stdout());
    println!("echo: reflector {totals:?}");
    assert_eq!(total(&totals, "echoed"), UDP);
    assert_eq!(total(&totals, "service frames N6"), 2, "ARP and ICMP");
    assert_eq!(total(&totals, "service replies"), 2);
    assert_eq!(total(&totals, "dropped not_user_traffic"), TCP);
    assert_eq!(
        reflector_drops(&totals).len(),
        1,
        "no other drop: {totals:?}"
    );
    assert_eq!(total(&totals, "received N6"), UDP + 2 + TCP);
    assert_eq!(total(&totals, "received N3"), 0);
    assert_eq!(
        total(&totals, "arp requests"),
        0,
        "echo mode resolves nothing"
    );
}
