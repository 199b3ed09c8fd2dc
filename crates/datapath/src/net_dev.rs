//! The kernel's own counters of the interface under a port, read from the text of
//! `/proc/net/dev` (sans IO: the caller reads the file).
//!
//! `net_af_packet` and `net_af_xdp` ports ride on a kernel interface (`iface=n3`). The PMD
//! counts a frame sent when the kernel's ring takes it; the kernel can still refuse it after
//! that (a qdisc shaper on the tester's veth with `qdisc_bypass=0`), and then only the
//! interface's own counters show that it never left. `/proc/self/net/dev` is the file of the
//! reading process's network namespace, the one the PMD opened its socket in (also under `ip
//! netns exec`, which `/sys/class/net` is only if sysfs was remounted).

use thiserror::Error;

/// What the kernel counted on one interface since it was created.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetDevCounters {
    /// Frames received.
    pub rx_packets: u64,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Frames the kernel dropped on receiving.
    pub rx_dropped: u64,
    /// Frames sent.
    pub tx_packets: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
    /// Frames the driver dropped on sending.
    pub tx_dropped: u64,
}

impl NetDevCounters {
    /// What was counted from `before` to `self` (0 where a counter went back: the interface
    /// was recreated).
    pub fn since(&self, before: &NetDevCounters) -> NetDevCounters {
        NetDevCounters {
            rx_packets: self.rx_packets.saturating_sub(before.rx_packets),
            rx_bytes: self.rx_bytes.saturating_sub(before.rx_bytes),
            rx_dropped: self.rx_dropped.saturating_sub(before.rx_dropped),
            tx_packets: self.tx_packets.saturating_sub(before.tx_packets),
            tx_bytes: self.tx_bytes.saturating_sub(before.tx_bytes),
            tx_dropped: self.tx_dropped.saturating_sub(before.tx_dropped),
        }
    }
}

/// Text that is not `/proc/net/dev` as this parser knows it, or lacks the interface.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NetDevError {
    /// The two header lines are missing or name other columns.
    #[error("/proc/net/dev line {line}: {reason}")]
    Header {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// An interface's line cannot be read.
    #[error("/proc/net/dev line {line}: {reason}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The interface is not in the file: not in this network namespace.
    #[error("interface {0} is not in this network namespace's /proc/net/dev")]
    NoInterface(String),
}

/// The columns of one direction ("Receive", "Transmit") in the second header line.
const RX_COLUMNS: [&str; 8] = [
    "bytes",
    "packets",
    "errs",
    "drop",
    "fifo",
    "frame",
    "compressed",
    "multicast",
];
const TX_COLUMNS: [&str; 8] = [
    "bytes",
    "packets",
    "errs",
    "drop",
    "fifo",
    "colls",
    "carrier",
    "compressed",
];

/// Checks the second header line: `face |bytes packets ... multicast|bytes packets ...`.
fn check_header(line: usize, text: Option<&str>) -> Result<(), NetDevError> {
    let header = |reason: String| NetDevError::Header { line, reason };
    let text = text.ok_or_else(|| header("missing: the file ends before its header".into()))?;
    let groups: Vec<&str> = text.split('|').collect();
    let [_, rx, tx] = groups.as_slice() else {
        return Err(header(format!(
            "{} groups of columns separated by '|', 3 expected: {text:?}",
            groups.len()
        )));
    };
    for (what, found, expected) in [("receive", rx, RX_COLUMNS), ("transmit", tx, TX_COLUMNS)] {
        let names: Vec<&str> = found.split_whitespace().collect();
        if names != expected {
            return Err(header(format!(
                "{what} columns {names:?}, expected {expected:?}"
            )));
        }
    }
    Ok(())
}

/// The counters of interface `name` in `text`, the contents of `/proc/net/dev`. Every line up
/// to `name`'s is checked; lines after it are not read.
pub fn counters(text: &str, name: &str) -> Result<NetDevCounters, NetDevError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    if lines.next().is_none() {
        return Err(NetDevError::Header {
            line: 1,
            reason: "missing: the file is empty".into(),
        });
    }
    check_header(2, lines.next().map(|(_, l)| l))?;
    for (line, l) in lines {
        let bad = |reason: String| NetDevError::Line { line, reason };
        let (iface, numbers) = l
            .split_once(':')
            .ok_or_else(|| bad(format!("no ':' after an interface name: {l:?}")))?;
        let iface = iface.trim();
        if iface.is_empty() {
            return Err(bad(format!("no interface name before ':': {l:?}")));
        }
        if iface != name {
            continue;
        }
        let values = numbers
            .split_whitespace()
            .enumerate()
            .map(|(k, v)| {
                v.parse::<u64>().map_err(|_| {
                    bad(format!(
                        "{iface}: counter {} ({}) is not a count: {v:?}",
                        k + 1,
                        column(k)
                    ))
                })
            })
            .collect::<Result<Vec<u64>, _>>()?;
        let expected = RX_COLUMNS.len() + TX_COLUMNS.len();
        if values.len() != expected {
            return Err(bad(format!(
                "{iface}: {} counters, {expected} expected",
                values.len()
            )));
        }
        let rx = RX_COLUMNS.len();
        return Ok(NetDevCounters {
            rx_bytes: values[0],
            rx_packets: values[1],
            rx_dropped: values[3],
            tx_bytes: values[rx],
            tx_packets: values[rx + 1],
            tx_dropped: values[rx + 3],
        });
    }
    Err(NetDevError::NoInterface(name.to_owned()))
}

/// The name of counter `k` (0-based) of an interface's line, for error messages.
fn column(k: usize) -> String {
    match (
        RX_COLUMNS.get(k),
        TX_COLUMNS.get(k.wrapping_sub(RX_COLUMNS.len())),
    ) {
        (Some(c), _) => format!("receive {c}"),
        (None, Some(c)) => format!("transmit {c}"),
        _ => "one too many".to_owned(),
    }
}

/// The kernel interface a port's PMD rides on, if upfbench can read its counters: the `iface`
/// argument of a `net_af_packet` or `net_af_xdp` vdev (`iface=n3,qpairs=1`).
pub fn kernel_interface(device: &str, devargs: Option<&str>) -> Option<String> {
    if !(device.starts_with("net_af_packet") || device.starts_with("net_af_xdp")) {
        return None;
    }
    devargs?
        .split(',')
        .find_map(|kv| kv.trim().strip_prefix("iface="))
        .filter(|i| !i.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc/net/dev` of the lab's tester namespace (Linux 6.1), with the n3 line's receive
    /// bytes running into the colon as the kernel prints counters of 8 digits and more.
    const REFERENCE: &str = "\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
    n3:12345678901  100007    0    2    0     0          0         5 34177200   99684    0    7    0     0       0          0
    n4:    9876      61    0    0    0     0          0         0     8765      60    0    0    0     0       0          0
";

    #[test]
    fn reads_an_interfaces_counters_from_the_reference_text() {
        assert_eq!(
            counters(REFERENCE, "n3"),
            Ok(NetDevCounters {
                rx_packets: 100_007,
                rx_bytes: 12_345_678_901,
                rx_dropped: 2,
                tx_packets: 99_684,
                tx_bytes: 34_177_200,
                tx_dropped: 7,
            })
        );
        assert_eq!(counters(REFERENCE, "lo"), Ok(NetDevCounters::default()));
        assert_eq!(counters(REFERENCE, "n4").map(|c| c.tx_packets), Ok(60));
        assert_eq!(
            counters(REFERENCE, "n6"),
            Err(NetDevError::NoInterface("n6".into()))
        );
        assert_eq!(
            NetDevError::NoInterface("n6".into()).to_string(),
            "interface n6 is not in this network namespace's /proc/net/dev"
        );
    }

    #[test]
    fn a_difference_is_per_counter_and_never_negative() {
        let before = NetDevCounters {
            rx_packets: 10,
            tx_packets: 20,
            ..NetDevCounters::default()
        };
        let after = NetDevCounters {
            rx_packets: 15,
            tx_packets: 19,
            tx_bytes: 100,
            ..NetDevCounters::default()
        };
        let d = after.since(&before);
        assert_eq!((d.rx_packets, d.tx_packets, d.tx_bytes), (5, 0, 100));
    }

    #[test]
    fn errors_name_the_line_and_what_is_wrong() {
        let header = REFERENCE.lines().take(2).collect::<Vec<_>>().join("\n");
        let with = |line: &str| format!("{header}\n{line}\n");
        let err = |text: &str| counters(text, "n3").unwrap_err().to_string();
        assert_eq!(err(""), "/proc/net/dev line 1: missing: the file is empty");
        assert_eq!(
            err("Inter-|"),
            "/proc/net/dev line 2: missing: the file ends before its header"
        );
        assert_eq!(
            err("Inter-|\n face |bytes packets"),
            "/proc/net/dev line 2: 2 groups of columns separated by '|', 3 expected: \
             \" face |bytes packets\""
        );
        assert!(
            err(&REFERENCE.replace("colls", "collisions"))
                .starts_with("/proc/net/dev line 2: transmit columns ["),
            "{}",
            err(&REFERENCE.replace("colls", "collisions"))
        );
        assert_eq!(
            err(&with("    n3 1 2 3")),
            "/proc/net/dev line 3: no ':' after an interface name: \"    n3 1 2 3\""
        );
        assert_eq!(
            err(&with("   : 1 2")),
            "/proc/net/dev line 3: no interface name before ':': \"   : 1 2\""
        );
        assert_eq!(
            err(&with("n3: 1 2 3")),
            "/proc/net/dev line 3: n3: 3 counters, 16 expected"
        );
        assert_eq!(
            err(&with("n3: 1 2 3 4 5 6 7 8 9 -10 11 12 13 14 15 16")),
            "/proc/net/dev line 3: n3: counter 10 (transmit packets) is not a count: \"-10\""
        );
        assert_eq!(
            err(&with("n3: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 x")),
            "/proc/net/dev line 3: n3: counter 17 (one too many) is not a count: \"x\""
        );
        // A bad line of another interface before n3's is an error too: the file is not what
        // this parser knows, and n3's line may not be either.
        assert!(err(&with("eth0 1")).starts_with("/proc/net/dev line 3: no ':'"));
    }

    #[test]
    fn malformed_text_never_panics() {
        let samples = [
            "",
            "\n",
            "|\n|\n|",
            ":::",
            "Inter-|\n face |||\n",
            "a\nb|c|d\nn3:",
            "\u{0}\u{fffd}:\n\n",
            "x\n face |bytes packets errs drop fifo frame compressed multicast|bytes packets errs \
             drop fifo colls carrier compressed\nn3: 18446744073709551616",
        ];
        for s in samples {
            assert!(counters(s, "n3").is_err(), "{s:?}");
        }
        // Every prefix of the reference, cut anywhere (on a char boundary): an answer or an
        // error, never a panic.
        for end in (0..=REFERENCE.len()).filter(|&e| REFERENCE.is_char_boundary(e)) {
            let _ = counters(&REFERENCE[..end], "n4");
        }
    }

    #[test]
    fn only_af_packet_and_af_xdp_ports_have_a_kernel_interface() {
        assert_eq!(
            kernel_interface("net_af_packet0", Some("iface=n3,qpairs=1")),
            Some("n3".into())
        );
        assert_eq!(
            kernel_interface("net_af_xdp1", Some("start_queue=0,iface=ens1f0")),
            Some("ens1f0".into())
        );
        assert_eq!(
            kernel_interface("net_af_packet0", Some("qpairs=1, iface=n6")),
            Some("n6".into())
        );
        assert_eq!(kernel_interface("net_af_packet0", None), None);
        assert_eq!(kernel_interface("net_af_packet0", Some("iface=")), None);
        assert_eq!(
            kernel_interface("net_memif0", Some("role=client,socket=/tmp/n3.sock")),
            None
        );
        assert_eq!(kernel_interface("0000:3b:00.0", Some("iface=n3")), None);
    }
}
