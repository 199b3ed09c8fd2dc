//! Hugepages: how many of each size each NUMA node has reserved and free, and where hugetlbfs
//! is mounted.

use super::Root;

const NODE: &str = "/sys/devices/system/node";
/// Where a kernel without NUMA lists its pools (all on node 0).
const GLOBAL: &str = "/sys/kernel/mm/hugepages";

/// The pages of one size on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagePool {
    /// The page size, kB (2048, 1048576).
    pub size_kb: u64,
    /// Reserved (`nr_hugepages`).
    pub total: u64,
    /// Not in use (`free_hugepages`).
    pub free: u64,
}

impl PagePool {
    /// Free bytes.
    pub(crate) fn free_bytes(&self) -> u64 {
        self.free * self.size_kb * 1024
    }
}

/// One NUMA node's pools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodePages {
    /// The node.
    pub node: u32,
    /// Its pools, smallest pages first.
    pub pools: Vec<PagePool>,
}

impl NodePages {
    /// Free bytes in all its pools.
    pub(crate) fn free_bytes(&self) -> u64 {
        self.pools.iter().map(PagePool::free_bytes).sum()
    }
}

/// A hugetlbfs mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HugeMount {
    /// Where (`/dev/hugepages`).
    pub path: String,
    /// Its `pagesize=` option, kB; `None`: the default size.
    pub size_kb: Option<u64>,
}

/// The hugepages of the machine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hugepages {
    /// Per NUMA node (node 0 alone when the kernel has no NUMA).
    pub nodes: Vec<NodePages>,
    /// hugetlbfs mounts (`/proc/mounts`).
    pub mounts: Vec<HugeMount>,
    /// The default page size, kB (`Hugepagesize` of `/proc/meminfo`).
    pub(crate) default_kb: Option<u64>,
}

impl Hugepages {
    /// Reads them under `root`.
    pub fn read(root: &Root) -> Hugepages {
        let mut nodes: Vec<NodePages> = root
            .list(NODE)
            .iter()
            .filter_map(|n| {
                let node = n.strip_prefix("node")?.parse().ok()?;
                Some(NodePages {
                    node,
                    pools: pools(root, &format!("{NODE}/{n}/hugepages")),
                })
            })
            .collect();
        if nodes.is_empty() {
            let pools = pools(root, GLOBAL);
            if !pools.is_empty() {
                nodes.push(NodePages { node: 0, pools });
            }
        }
        nodes.sort_by_key(|n| n.node);
        let mounts = root
            .read("/proc/mounts")
            .map(|m| parse_mounts(&m))
            .unwrap_or_default();
        let default_kb = root.read("/proc/meminfo").and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("Hugepagesize:"))?
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()
        });
        Hugepages {
            nodes,
            mounts,
            default_kb,
        }
    }

    /// The node `node`'s pools, if the machine has that node.
    pub fn node(&self, node: u32) -> Option<&NodePages> {
        self.nodes.iter().find(|n| n.node == node)
    }
}

/// The pools in `dir` (`hugepages-2048kB/{nr,free}_hugepages`), smallest first.
fn pools(root: &Root, dir: &str) -> Vec<PagePool> {
    let mut pools: Vec<PagePool> = root
        .list(dir)
        .iter()
        .filter_map(|d| {
            let size_kb = d
                .strip_prefix("hugepages-")?
                .strip_suffix("kB")?
                .parse()
                .ok()?;
            Some(PagePool {
                size_kb,
                total: root.read_number(&format!("{dir}/{d}/nr_hugepages"))?,
                free: root.read_number(&format!("{dir}/{d}/free_hugepages"))?,
            })
        })
        .collect();
    pools.sort_by_key(|p| p.size_kb);
    pools
}

/// The hugetlbfs lines of `/proc/mounts`.
fn parse_mounts(text: &str) -> Vec<HugeMount> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [_, path, fstype, options, ..] = f.as_slice() else {
                return None;
            };
            (*fstype == "hugetlbfs").then(|| HugeMount {
                path: (*path).to_owned(),
                size_kb: options
                    .split(',')
                    .find_map(|o| o.strip_prefix("pagesize="))
                    .and_then(parse_size_kb),
            })
        })
        .collect()
}

/// `2M`, `1024M`, `1G`, `2048k` as kB.
fn parse_size_kb(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = digits.parse().ok()?;
    match unit.to_ascii_uppercase().as_str() {
        "K" | "KB" => Some(n),
        "M" | "MB" => Some(n * 1024),
        "G" | "GB" => Some(n * 1024 * 1024),
        _ => None,
    }
}

/// A page size for people: `2 MB`, `1 GB`.
pub fn size_name(kb: u64) -> String {
    if kb >= 1024 * 1024 && kb.is_multiple_of(1024 * 1024) {
        format!("{} GB", kb / (1024 * 1024))
    } else if kb >= 1024 && kb.is_multiple_of(1024) {
        format!("{} MB", kb / 1024)
    } else {
        format!("{kb} kB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hugetlbfs_mounts_and_their_page_sizes() {
        let m = parse_mounts(
            "proc /proc proc rw 0 0\n\
             hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n\
             nodev /mnt/huge1g hugetlbfs rw,pagesize=1024M 0 0\n\
             none /mnt/h hugetlbfs rw 0 0\n",
        );
        assert_eq!(
            m,
            [
                HugeMount {
                    path: "/dev/hugepages".into(),
                    size_kb: Some(2048)
                },
                HugeMount {
                    path: "/mnt/huge1g".into(),
                    size_kb: Some(1048576)
                },
                HugeMount {
                    path: "/mnt/h".into(),
                    size_kb: None
                },
            ]
        );
        assert_eq!(parse_size_kb("1G"), Some(1048576));
        assert_eq!(size_name(2048), "2 MB");
        assert_eq!(size_name(1048576), "1 GB");
    }
}
