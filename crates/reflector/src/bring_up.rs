//! The reflector's pairs brought up: each pair's devices opened and configured (its own receive
//! pools), and each worker seated on its pair's queues. A worker serves one pair: queue `i` of
//! its pair's N3 and N6 (or of the one device in one-port mode), as the generator's do.

use anyhow::{Context, Result};
use upfbench_config::{Pair, ReflectorPair};
use upfbench_datapath::devices::{self, DeviceSettings, n6_of};
use upfbench_datapath::port_setup::rx_pool;
use upfbench_datapath::service::{Interface, Interface6, port_interfaces};
use upfbench_datapath::vlan_offload::VlanPlan;
use upfbench_dpdk::{Eal, Mempool, Port, PortConfig};

use crate::lines::PairSpan;

/// One pair's devices as configured, but not started (its ports are apart: started ports
/// borrow them for as long as they run).
pub(crate) struct PairSetup<'e> {
    /// The pair's name (`p0` for the short form's).
    pub name: String,
    /// Its ports' names in EAL, N3's and N6's.
    pub names: [String; 2],
    /// Its devices' queues and descriptors.
    pub settings: Vec<DeviceSettings>,
    /// Our IPv4 interfaces on N3 and N6 (without an address on an IPv6 port).
    pub interfaces: [Interface; 2],
    /// Our IPv6 interfaces on N3 and N6, on IPv6 ports.
    pub interfaces6: [Option<Interface6>; 2],
    /// Each device's receive pool.
    pub pools: Vec<Mempool<'e>>,
    /// How its tags are put on and taken off.
    pub vlan_plan: VlanPlan,
    /// Each device's configuration.
    pub configs: Vec<PortConfig>,
}

/// Opens every pair of `pairs`, their ports named `names` (per pair, N3's and N6's): each
/// pair's ports, and the rest of its setup.
pub(crate) fn open_pairs<'e>(
    eal: &'e Eal,
    pairs: &[ReflectorPair],
    names: Vec<[String; 2]>,
) -> Result<(Vec<Vec<Port<'e>>>, Vec<PairSetup<'e>>)> {
    let mut ports = Vec::with_capacity(pairs.len());
    let mut setups = Vec::with_capacity(pairs.len());
    for (k, (pair, names)) in pairs.iter().zip(names).enumerate() {
        let (p, setup) =
            open_pair(eal, k, pair, names).with_context(|| format!("pair {}", pair.name))?;
        ports.push(p);
        setups.push(setup);
    }
    Ok((ports, setups))
}

/// Opens pair `k` (`pair`, its ports named `names` in EAL): its devices, their pools (named
/// apart per pair), their configurations.
fn open_pair<'e>(
    eal: &'e Eal,
    k: usize,
    pair: &ReflectorPair,
    names: [String; 2],
) -> Result<(Vec<Port<'e>>, PairSetup<'e>)> {
    let settings = devices::device_settings(pair);
    let ports = devices::open(eal, &names, pair.n6.shares_device())?;
    let of = |port: &Port<'_>, p: &upfbench_config::ReflectorPort| -> Result<_> {
        Ok(port_interfaces(port.mac()?, p.address.addr, p.address.len))
    };
    let (n3_v4, n3_v6) = of(&ports[0], &pair.n3)?;
    let (n6_v4, n6_v6) = of(n6_of(&ports), &pair.n6)?;
    let pools = settings
        .iter()
        .zip(pool_names(k))
        .map(|(s, name)| rx_pool(eal, &name, s.queues, s.rx_descriptors))
        .collect::<Result<Vec<_>, _>>()
        .context("the receive pools")?;
    let vlan_plan = devices::vlan_plan(&ports, &pair.n3, &pair.n6)?;
    let configs = devices::configs(&ports, &settings, &vlan_plan.device_offloads)?;
    Ok((
        ports,
        PairSetup {
            name: pair.name.clone(),
            names,
            settings,
            interfaces: [n3_v4, n6_v4],
            interfaces6: [n3_v6, n6_v6],
            pools,
            vlan_plan,
            configs,
        },
    ))
}

/// The receive pools' names of pair `k`, N3's and N6's: `rx-n3` and `rx-n6` for the first
/// (as the generator's), then `rx-n3-1`... (a pool's name is unique in the process, and a
/// number keeps it within DPDK's 26 characters whatever the pair's name).
fn pool_names(k: usize) -> [String; 2] {
    ["rx-n3", "rx-n6"].map(|n| {
        if k == 0 {
            n.to_owned()
        } else {
            format!("{n}-{k}")
        }
    })
}

/// Where a worker sits: its lcore, the pair it serves, its queue on that pair's ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seat {
    /// Its lcore.
    pub lcore: u32,
    /// The index of its pair.
    pub pair: usize,
    /// Its queue on the pair's N3 and N6 (worker `queue` of the pair).
    pub queue: usize,
}

/// Every worker's seat, pair by pair in the file's order (the order of `cores.workers`, which
/// lists every pair's workers so).
pub(crate) fn seats<P>(pairs: &[Pair<P>]) -> Vec<Seat> {
    pairs
        .iter()
        .enumerate()
        .flat_map(|(pair, p)| {
            p.workers
                .iter()
                .enumerate()
                .map(move |(queue, &lcore)| Seat { lcore, pair, queue })
        })
        .collect()
}

/// Each pair's name and workers, as a range of indices into [`seats`] (and into the counter
/// cells, one per worker in that order).
pub(crate) fn spans<P>(pairs: &[Pair<P>]) -> Vec<PairSpan> {
    let mut first = 0;
    pairs
        .iter()
        .map(|p| {
            let workers = first..first + p.workers.len();
            first = workers.end;
            PairSpan {
                name: p.name.clone(),
                workers,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
