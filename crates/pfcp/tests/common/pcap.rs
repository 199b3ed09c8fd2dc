//! A tiny pcap writer and a tshark runner: each PFCP message becomes one Ethernet/IPv4/UDP 8805
//! frame, so that Wireshark's dissector can check what the codec emits.

use std::path::{Path, PathBuf};
use std::process::Command;

const N4_CP: [u8; 4] = [192, 168, 14, 111];
const N4_UP: [u8; 4] = [192, 168, 14, 151];

fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = h
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// One frame carrying `payload` in UDP 8805 → 8805.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(42 + payload.len());
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00]);
    let total = (20 + 8 + payload.len()) as u16;
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[8] = 64;
    ip[9] = 17;
    ip[12..16].copy_from_slice(&N4_CP);
    ip[16..20].copy_from_slice(&N4_UP);
    let c = ipv4_checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&8805u16.to_be_bytes());
    f.extend_from_slice(&8805u16.to_be_bytes());
    f.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(payload);
    f
}

/// Writes a pcap (microsecond timestamps, Ethernet link type) with one frame per payload.
pub fn write_pcap(path: &Path, payloads: &[Vec<u8>]) {
    let mut out = Vec::new();
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    out.extend_from_slice(&0i32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for (i, p) in payloads.iter().enumerate() {
        let f = frame(p);
        out.extend_from_slice(&(i as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(&f);
    }
    std::fs::write(path, out).unwrap();
}

/// A pcap file in the target's temp directory.
pub fn temp_pcap(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("upfbench-pfcp-tshark");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}-{}.pcap", std::process::id()))
}

/// Runs tshark; fails the test with a clear message when tshark is not installed.
pub fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "tshark is required by this test (Debian: apt-get install tshark) but could not be \
             run: {e}"
            )
        });
    assert!(
        out.status.success(),
        "tshark {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Asserts that tshark dissects every frame as PFCP without malformed packets or expert
/// warnings/errors; returns the verbose dissection.
pub fn assert_clean_dissection(path: &Path, frames: usize) -> String {
    let p = path.to_str().unwrap();
    let verbose = tshark(&["-r", p, "-V", "-o", "ip.check_checksum:TRUE"]);
    if verbose.contains("Malformed") {
        let bad = tshark(&[
            "-r",
            p,
            "-Y",
            "_ws.malformed",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ]);
        let first = bad.lines().next().unwrap_or("1").to_owned();
        let one = tshark(&["-r", p, "-V", "-Y", &format!("frame.number == {first}")]);
        let start = one.find("Packet Forwarding").unwrap_or(0);
        panic!(
            "tshark reports malformed packets in frames {bad:?}; frame {first}:\n{}",
            &one[start..]
        );
    }
    let count = verbose
        .matches("Packet Forwarding Control Protocol")
        .count();
    assert_eq!(count, frames, "every frame must be dissected as PFCP");
    // Expert infos at warning or error severity, one line per item with its frame number.
    let expert = tshark(&[
        "-r",
        p,
        "-Y",
        "_ws.expert.severity >= 6291456",
        "-T",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "_ws.expert.message",
    ]);
    assert!(
        expert.trim().is_empty(),
        "tshark expert warnings/errors:\n{expert}\n{verbose}"
    );
    let summary = tshark(&["-r", p, "-q", "-z", "expert,warn"]);
    assert!(
        !summary.contains("Warnings (") && !summary.contains("Errors ("),
        "tshark expert summary:\n{summary}"
    );
    verbose
}

/// Per frame, the values of the given fields (all occurrences, comma-separated).
pub fn fields(path: &Path, names: &[&str]) -> Vec<Vec<String>> {
    let mut args = vec![
        "-r",
        path.to_str().unwrap(),
        "-T",
        "fields",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=,",
    ];
    for n in names {
        args.push("-e");
        args.push(n);
    }
    tshark(&args)
        .lines()
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}
