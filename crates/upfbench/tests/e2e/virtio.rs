//! The generator on DPDK's virtio driver against the reflector on vhost-user: virtio-user ports
//! (net_virtio_user, the driver of a VM's virtio-net NICs in its user-space mode) joined to
//! vhost ports (net_vhost) by a socket per link, two processes on this machine with no VM. The
//! shipped pair (deploy/systems/virtio-user.yaml and vhost-reflector.yaml) with the sockets in
//! the case's scratch directory, DPDK file prefixes and N4 addresses of their own; `--no-huge`
//! memory on both sides (a memfd, which vhost maps). One worker on each side; then two, each
//! with a queue pair of its own on every port (four busy workers and two main lcores on the
//! machine's two CPUs: `cores.cpus` puts lcore 2 on the CPU of the other worker).

use std::time::Duration;

use crate::exits::{ONE_SECOND, interrupt_while_waiting_for_the_peer};
use crate::harness::{num, patch, serial, total, warnings};
use crate::memif::{Memif, Outcome, RATE, assert_frames_add_up, finish, profile};

/// The case's files: the shipped virtio pair with `workers` workers on each side (1 or 2), as a
/// bed of two processes like the memif cases'.
pub(crate) fn bed(case: &str, workers: u16, profile: &str) -> Memif {
    let files = ["virtio-user.yaml", "vhost-reflector.yaml"];
    let prefixes = ["upfbench-virtio", "upfbench-vhost"];
    Memif::shipped(case, files, prefixes, profile, |system, reflector| {
        match workers {
            1 => (system, reflector),
            // The generator's workers on CPU 1, the reflector's on CPU 0 (as with one worker),
            // each with queue pair i of both ports: the generator's queue i is the reflector's
            // queue i.
            2 => (
                patch(
                    &patch(
                        &system,
                        "  workers: [1]\n",
                        "  workers: [1, 2]\n  cpus: {2: 1}\n",
                    ),
                    "queues=1,",
                    "queues=2,",
                ),
                patch(
                    &patch(
                        &reflector,
                        "  workers: [0]\n",
                        "  workers: [0, 2]\n  cpus: {2: 0}\n",
                    ),
                    "queues=1",
                    "queues=2",
                ),
            ),
            n => panic!("{n} workers: 1 or 2"),
        }
    })
}

/// The generator's run to its end against the reflector. Either starts first: the reflector
/// (its vhost ports make the sockets), or, with `generator_first`, the generator, which waits
/// for the sockets.
fn run(case: &str, workers: u16, profile: &str, generator_first: bool) -> Outcome {
    let bed = bed(case, workers, profile);
    let (mut reflector, mut generator) = if generator_first {
        let mut generator = bed.generator();
        generator.wait_until(Duration::from_secs(30), |out, _| {
            out.contains("waiting for the vhost-user server's socket")
        });
        (bed.reflector(), generator)
    } else {
        let reflector = bed.reflector();
        (reflector, bed.generator())
    };
    let status = generator.wait(Duration::from_secs(90));
    finish(&bed, &mut reflector, &generator, status)
}

/// Zero loss and a latency sample for every packet: per direction the report's sent, received
/// and latency samples are one number. (What was sent is the profile's unless the machine's
/// other work held the generator's worker back: its TX then slips, which the report says and
/// the memif and tx_slip cases check.)
fn assert_every_packet(o: &Outcome, seconds: u64) {
    for (name, f) in o.both() {
        assert!(
            f.sent > 0 && f.sent <= RATE * seconds,
            "{name}: sent {}",
            f.sent
        );
        assert_eq!((f.received, f.lost), (f.sent, 0), "{name}: zero loss");
        assert_eq!(f.samples, f.received, "{name}: a latency sample per packet");
        assert_eq!((f.duplicates, f.reordered), (0, 0), "{name}");
    }
}

/// The reflector's counter `name` at exit, per worker (the `(a + b)` after the total when it
/// has several).
fn per_worker(reflector_out: &str, name: &str) -> Vec<u64> {
    let (_, tail) = reflector_out
        .split_once("reflect: totals")
        .expect("the reflector's totals");
    let line = tail
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no {name:?} in:\n{tail}"));
    let (_, cores) = line
        .split_once('(')
        .unwrap_or_else(|| panic!("no per-worker counts: {line:?}"));
    cores
        .trim_end_matches(')')
        .split(" + ")
        .map(|n| n.trim().parse().expect("a count"))
        .collect()
}

#[test]
fn virtio_user_to_vhost_every_session_zero_loss_latency_of_every_packet() {
    let _serial = serial();
    let seconds = 3;
    let o = run("virtio", 1, &profile(4, seconds, "500ms"), false);
    o.print("virtio");
    o.assert_clean_end(4);
    assert_every_packet(&o, seconds);
    assert_eq!(o.report["config"]["n3"], "net_virtio_user0");
    assert_eq!(o.report["config"]["n6"], "net_virtio_user1");
    // Every frame on the tester's ports by kind, and the reflector forwarded exactly the
    // measured and warm-up packets of each direction.
    let step = &o.report["steps"][0];
    assert_frames_add_up(step);
    for (side, forwarded) in [(0, "uplink forwarded"), (1, "downlink forwarded")] {
        let fr = &step["frames"][side];
        assert_eq!(
            total(&o.reflector, forwarded),
            num(fr, &["tx_measured"]) + num(fr, &["tx_warmup"]),
            "{forwarded}: {fr}"
        );
    }
}

/// Two workers on each side, a queue pair each on every port: vhost has no RSS, so what the
/// generator's worker i sends on its queue i arrives on the reflector's queue i, which the
/// reflector's worker i forwards on its queue i of the other port, back to the generator's
/// worker i. Every flow is received whole by one worker (the report's warning of flows split
/// over RX workers is absent), both workers on both sides carry traffic, nothing is lost. The
/// generator starts first here and waits for the reflector's sockets.
#[test]
fn virtio_two_queues_keep_every_flow_on_one_worker() {
    let _serial = serial();
    let seconds = 3;
    let o = run("virtio-2q", 2, &profile(8, seconds, "500ms"), true);
    o.print("virtio-2q");
    let all = warnings(&o.report);
    assert!(
        !all.iter()
            .any(|w| w.contains("arrived on more than one RX core")),
        "flows split over workers: {all:?}"
    );
    o.assert_clean_end(8);
    assert_every_packet(&o, seconds);
    for (name, f) in o.both() {
        assert_eq!(f.streams, 8, "{name}: one flow per UE");
    }
    for name in ["uplink forwarded", "downlink forwarded"] {
        let cores = per_worker(&o.reflector_out, name);
        println!("virtio-2q: reflector {name} per worker {cores:?}");
        assert_eq!(cores.len(), 2, "{name}: two workers");
        assert!(
            cores.iter().all(|&n| n > 0),
            "{name}: a worker idle: {cores:?}"
        );
    }
    let step = &o.report["steps"][0];
    assert_frames_add_up(step);
    // vhost has no RSS: each queue gets what its peer's queue sent, and the report says so and
    // shows each worker's share, which adds up to what the workers received on the port.
    for (key, port) in [("n3 rx", 0), ("n6 rx", 1)] {
        assert_eq!(
            o.report["config"][key], "2 queues: queue i is its peer's queue i (no RSS)",
            "{key}"
        );
        let queues = &step["rx_queues"][port];
        let frames: Vec<u64> = queues["frames"]
            .as_array()
            .expect("frames per queue")
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect();
        println!("virtio-2q: {key} frames per queue {frames:?}");
        assert_eq!(frames.len(), 2, "{key}: a count per queue");
        assert!(
            frames.iter().all(|&n| n > 0),
            "{key}: a queue idle: {frames:?}"
        );
        let f = &step["frames"][port];
        let received: u64 = ["rx_measured", "rx_unmeasured", "rx_service", "rx_rejected"]
            .iter()
            .map(|k| f[*k].as_u64().unwrap())
            .sum();
        assert_eq!(
            frames.iter().sum::<u64>(),
            received,
            "{key}: the queues add up"
        );
    }
}

/// No reflector: the generator, a virtio-user client, waits for the vhost-user server's socket
/// before EAL (whose probe of the port connects to it) and ends promptly on SIGINT, with a
/// report that says so.
#[test]
fn virtio_sigint_while_waiting_for_the_vhost_server_ends_promptly_with_a_report() {
    let _serial = serial();
    let bed = bed("vhost-sigint", 1, ONE_SECOND);
    interrupt_while_waiting_for_the_peer(
        "vhost-sigint",
        &bed,
        "N3 (net_virtio_user0): waiting for the vhost-user server's socket ",
        "the run was interrupted waiting for N3's vhost-user server: nothing was measured",
    );
}
