//! The CPUs: which are online, their NUMA nodes, which the kernel keeps to themselves
//! (isolated, tickless) and their frequency governors.

use std::collections::{BTreeMap, BTreeSet};

use super::Root;
use super::cmdline::Cmdline;

const CPU: &str = "/sys/devices/system/cpu";
const NODE: &str = "/sys/devices/system/node";

/// What the kernel says of the CPUs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cpus {
    /// The online CPUs (`/sys/devices/system/cpu/online`).
    pub online: BTreeSet<u32>,
    /// Each CPU's NUMA node (`cpuN/nodeM`), for the CPUs that have one.
    pub(crate) node_of: BTreeMap<u32, u32>,
    /// The CPUs of each NUMA node, as the kernel lists them (`nodeM/cpulist`: `0-7,16-23`).
    pub(crate) node_cpulist: BTreeMap<u32, String>,
    /// CPUs taken out of the scheduler's balancing (`isolcpus=`; `/sys/devices/system/cpu/isolated`).
    pub isolated: BTreeSet<u32>,
    /// Tickless CPUs (`/sys/devices/system/cpu/nohz_full`, else `nohz_full=` on the command line).
    pub nohz_full: BTreeSet<u32>,
    /// Each CPU's cpufreq governor, for the CPUs that have cpufreq.
    pub governor: BTreeMap<u32, String>,
}

impl Cpus {
    /// Reads them under `root`; `cmdline` gives `nohz_full=` when sysfs does not.
    pub fn read(root: &Root, cmdline: &Cmdline) -> Cpus {
        let online = root
            .read(&format!("{CPU}/online"))
            .map(|s| parse_cpulist(&s))
            .unwrap_or_default();
        let mut node_of = BTreeMap::new();
        let mut governor = BTreeMap::new();
        for cpu in &online {
            let dir = format!("{CPU}/cpu{cpu}");
            if let Some(node) = root
                .list(&dir)
                .iter()
                .find_map(|n| n.strip_prefix("node")?.parse().ok())
            {
                node_of.insert(*cpu, node);
            }
            if let Some(g) = root.read(&format!("{dir}/cpufreq/scaling_governor")) {
                governor.insert(*cpu, g);
            }
        }
        let node_cpulist = root
            .list(NODE)
            .iter()
            .filter_map(|n| {
                let node: u32 = n.strip_prefix("node")?.parse().ok()?;
                Some((node, root.read(&format!("{NODE}/{n}/cpulist"))?))
            })
            .collect();
        let isolated = root
            .read(&format!("{CPU}/isolated"))
            .map(|s| parse_cpulist(&s))
            .unwrap_or_default();
        let nohz_full = match root.read(&format!("{CPU}/nohz_full")) {
            Some(s) => parse_cpulist(&s),
            None => cmdline
                .value("nohz_full")
                .map(parse_cpulist)
                .unwrap_or_default(),
        };
        Cpus {
            online,
            node_of,
            node_cpulist,
            isolated,
            nohz_full,
            governor,
        }
    }
}

/// A kernel CPU list (`0-3,8,10-11`) as a set; what does not read (`(null)`, flags such as
/// `domain,` of `isolcpus=`) is left out.
pub fn parse_cpulist(text: &str) -> BTreeSet<u32> {
    let mut cpus = BTreeSet::new();
    for part in text.trim().split(',') {
        let range = part.split_once('-');
        match range {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>())
                    && a <= b
                    && b - a < 65536
                {
                    cpus.extend(a..=b);
                }
            }
            None => {
                if let Ok(c) = part.trim().parse() {
                    cpus.insert(c);
                }
            }
        }
    }
    cpus
}

/// A set of CPUs as a kernel CPU list, ranges joined: `2-5,8`; `none` if empty.
pub fn format_cpulist<'a>(cpus: impl IntoIterator<Item = &'a u32>) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    let sorted: BTreeSet<u32> = cpus.into_iter().copied().collect();
    for c in sorted {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == c => *end = c,
            _ => ranges.push((c, c)),
        }
    }
    if ranges.is_empty() {
        return "none".to_owned();
    }
    ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpulists_read_and_write_back() {
        let set = parse_cpulist("0-3,8,10-11\n");
        assert_eq!(
            set.iter().copied().collect::<Vec<_>>(),
            [0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(format_cpulist(&set), "0-3,8,10-11");
        assert!(parse_cpulist("").is_empty());
        assert!(parse_cpulist("(null)").is_empty());
        assert_eq!(
            format_cpulist(&parse_cpulist("domain,managed_irq,2-3")),
            "2-3"
        );
        assert_eq!(format_cpulist(&BTreeSet::new()), "none");
        assert!(parse_cpulist("5-2").is_empty());
    }
}
