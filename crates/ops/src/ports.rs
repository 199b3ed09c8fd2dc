//! `upfbench ports`: initialise EAL with the given arguments and list the ports it probed.
//! EAL's runtime directory goes when the command ends, as with `run` and `reflect`.

use std::io::Write;

use anyhow::{Context, Result, bail};
use upfbench_dpdk::{Eal, Link, Offloads, Port};

use upfbench_cli::PortsArgs;
use upfbench_datapath::eal_args::{RuntimeDirGuard, file_prefix, joins_a_primary};

/// One line of the listing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PortRow {
    id: u16,
    name: String,
    driver: String,
    mac: String,
    /// The VLAN offloads it offers (see [`vlan_text`]).
    vlan: String,
    link: Link,
}

/// Initialises EAL with the given arguments and prints the ports it probed.
pub fn run(args: &PortsArgs) -> Result<()> {
    let eal_args = with_own_prefix(&args.eal, &format!("upfbench-ports-{}", std::process::id()));
    // A secondary process's directory is its primary's: left alone. Declared before the `Eal`
    // so that it is dropped after it.
    let _runtime_dir = match file_prefix(&eal_args) {
        Some(prefix) if !joins_a_primary(&eal_args) => Some(RuntimeDirGuard::new(&prefix)),
        _ => None,
    };
    let eal =
        Eal::init(&eal_args).context("EAL initialisation failed (see EAL's messages above)")?;
    let rows = collect(&eal)?;
    if rows.is_empty() {
        bail!(
            "EAL probed no port: give vdevs (--vdev net_null0) or NICs bound to vfio-pci / \
             uio (-a 0000:01:00.0)"
        );
    }
    let mut out = std::io::stdout().lock();
    out.write_all(render(&rows).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The user's EAL arguments with `--file-prefix prefix` added unless they give one: without
/// it EAL would use (and the guard remove) the default `rte`, which another DPDK application
/// on the machine may be using.
fn with_own_prefix(user: &[String], prefix: &str) -> Vec<String> {
    let mut args = user.to_vec();
    if file_prefix(user).is_none() {
        args.extend(["--file-prefix".to_owned(), prefix.to_owned()]);
    }
    args
}

fn collect(eal: &Eal) -> Result<Vec<PortRow>> {
    eal.port_ids()
        .into_iter()
        .map(|id| {
            let port = Port::by_id(eal, id)?;
            let info = port.info()?;
            Ok(PortRow {
                id,
                name: info.name,
                driver: info.driver,
                mac: port.mac()?.to_string(),
                vlan: vlan_text(&info.capabilities.offloads),
                link: port.link()?,
            })
        })
        .collect::<Result<_, upfbench_dpdk::Error>>()
        .context("reading port information")
}

/// The VLAN offloads a port offers, as one word: `insert,strip` (and `qinq-insert`,
/// `qinq-strip`), `-` for none: where a run's tagged port has both, the NIC inserts and strips
/// its tags (docs/traffic-shapes.md).
fn vlan_text(o: &Offloads) -> String {
    let names = [
        (o.tx_vlan_insert, "insert"),
        (o.rx_vlan_strip, "strip"),
        (o.tx_qinq_insert, "qinq-insert"),
        (o.rx_qinq_strip, "qinq-strip"),
    ];
    let offered: Vec<&str> = names
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
    if offered.is_empty() {
        "-".to_owned()
    } else {
        offered.join(",")
    }
}

/// "10 Gbps", "2.5 Gbps", "100 Mbps", "-" when the port reports no speed.
fn speed_text(mbps: Option<u32>) -> String {
    match mbps {
        None => "-".to_owned(),
        Some(m) if m >= 1000 && m % 1000 == 0 => format!("{} Gbps", m / 1000),
        Some(m) if m >= 1000 => format!("{:.1} Gbps", f64::from(m) / 1000.0),
        Some(m) => format!("{m} Mbps"),
    }
}

/// A plain table, one port per line, columns aligned.
fn render(rows: &[PortRow]) -> String {
    let header = ["port", "name", "driver", "mac", "vlan", "link", "speed"].map(str::to_owned);
    let lines: Vec<[String; 7]> = std::iter::once(header)
        .chain(rows.iter().map(|r| {
            [
                r.id.to_string(),
                r.name.clone(),
                r.driver.clone(),
                r.mac.clone(),
                r.vlan.clone(),
                if r.link.up { "up" } else { "down" }.to_owned(),
                speed_text(r.link.speed_mbps),
            ]
        }))
        .collect();
    let mut widths = [0usize; 7];
    for line in &lines {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(up: bool, speed_mbps: Option<u32>) -> Link {
        Link {
            up,
            speed_mbps,
            full_duplex: true,
            autoneg: false,
        }
    }

    #[test]
    fn a_prefix_of_its_own_unless_the_user_gives_one() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            with_own_prefix(&args(&["--no-huge", "--vdev", "net_null0"]), "ours"),
            args(&["--no-huge", "--vdev", "net_null0", "--file-prefix", "ours"])
        );
        let theirs = args(&["--file-prefix=theirs", "--no-huge"]);
        assert_eq!(with_own_prefix(&theirs, "ours"), theirs);
        let theirs = args(&["--file-prefix", "theirs"]);
        assert_eq!(with_own_prefix(&theirs, "ours"), theirs);
    }

    #[test]
    fn vlan_offloads_read_as_one_word() {
        assert_eq!(vlan_text(&Offloads::NONE), "-");
        let af_packet = Offloads {
            rx_vlan_strip: true,
            tx_vlan_insert: true,
            tx_multi_segs: true,
            ..Offloads::NONE
        };
        assert_eq!(vlan_text(&af_packet), "insert,strip");
        let strip = Offloads {
            rx_vlan_strip: true,
            rx_qinq_strip: true,
            ..Offloads::NONE
        };
        assert_eq!(vlan_text(&strip), "strip,qinq-strip");
    }

    #[test]
    fn speeds_read_as_people_write_them() {
        assert_eq!(speed_text(Some(10_000)), "10 Gbps");
        assert_eq!(speed_text(Some(2_500)), "2.5 Gbps");
        assert_eq!(speed_text(Some(100)), "100 Mbps");
        assert_eq!(speed_text(None), "-");
    }

    #[test]
    fn the_table_aligns_its_columns() {
        let rows = [
            PortRow {
                id: 0,
                name: "net_ring0".into(),
                driver: "net_ring".into(),
                mac: "02:00:00:00:00:00".into(),
                vlan: "-".into(),
                link: link(true, Some(10_000)),
            },
            PortRow {
                id: 1,
                name: "0000:01:00.0".into(),
                driver: "net_ixgbe".into(),
                mac: "3c:fd:fe:00:00:01".into(),
                vlan: "insert,strip,qinq-insert,qinq-strip".into(),
                link: link(false, None),
            },
        ];
        assert_eq!(
            render(&rows),
            "port  name          driver     mac                vlan                                 link  speed\n\
             0     net_ring0     net_ring   02:00:00:00:00:00  -                                    up    10 Gbps\n\
             1     0000:01:00.0  net_ixgbe  3c:fd:fe:00:00:01  insert,strip,qinq-insert,qinq-strip  down  -\n"
        );
    }
}
