//! The devices N3 and N6 are on: two, or one for both in one-port mode (`n6: {port: n3}`), the
//! two told apart by their VLAN tags. One device has twice the queues: worker `i` sends and
//! receives N3's frames on queue `i` and N6's on queue `workers + i`
//! ([`split_one_port`]); whatever queue a frame comes on, the receive path sorts it by its tags
//! ([`PortVlans::side_of`](super::vlan::PortVlans::side_of)).

use upfbench_config::{Pair, Port as PortSettings};
use upfbench_dpdk::{Eal, Mempool, Port, PortConfig, StartedPort};

use super::port_setup::{port_config, rx_pool, split_one_port, split_queues};
use super::queues::{PortQueues, Side};

/// Why a device could not be brought up.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// EAL has no port of that name.
    #[error("{side} port {name}: {source}")]
    Open {
        /// The port.
        side: Side,
        /// Its name in EAL.
        name: String,
        /// What DPDK said.
        source: upfbench_dpdk::Error,
    },
    /// The port could not be configured or started.
    #[error("starting {side}: {source}")]
    Start {
        /// The port.
        side: Side,
        /// What DPDK said.
        source: upfbench_dpdk::Error,
    },
    /// Another DPDK call failed (a pool, the device's information, its queues).
    #[error(transparent)]
    Dpdk(#[from] upfbench_dpdk::Error),
}

/// How one device is set up: its queues (as many receive as transmit) and descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceSettings {
    /// Receive and transmit queues.
    pub queues: u16,
    /// Receive descriptors per queue.
    pub rx_descriptors: u16,
    /// Transmit descriptors per queue.
    pub tx_descriptors: u16,
}

/// The devices' settings of `pair`: N3's then N6's (each a queue per worker of the pair or as
/// the file says), or in one-port mode N3's device alone with twice N3's queues.
pub fn device_settings<P>(pair: &Pair<P>) -> Vec<DeviceSettings> {
    let (n3, n6) = (&pair.n3, &pair.n6);
    let workers = pair.workers.len() as u16;
    let of = |p: &PortSettings<P>, factor: u16| DeviceSettings {
        queues: factor * p.queues.unwrap_or(workers),
        rx_descriptors: p.rx_descriptors,
        tx_descriptors: p.tx_descriptors,
    };
    if n6.shares_device() {
        vec![of(n3, 2)]
    } else {
        vec![of(n3, 1), of(n6, 1)]
    }
}

/// The last of `items`: N6's device (N3's in one-port mode, where there is one).
pub fn n6_of<T>(items: &[T]) -> &T {
    items.last().expect("one device at least")
}

/// The devices named `names` (N3's, N6's) by EAL: both, or N3's alone in one-port mode.
pub fn open<'e>(
    eal: &'e Eal,
    names: &[String; 2],
    one_port: bool,
) -> Result<Vec<Port<'e>>, DeviceError> {
    let sides = if one_port { 1 } else { 2 };
    Side::BOTH[..sides]
        .iter()
        .map(|&side| {
            let name = &names[side.index()];
            Port::from_name(eal, name).map_err(|source| DeviceError::Open {
                side,
                name: name.clone(),
                source,
            })
        })
        .collect()
}

/// Each device's receive pool, named `rx-n3` and `rx-n6`.
pub fn pools<'e>(
    eal: &'e Eal,
    settings: &[DeviceSettings],
) -> Result<Vec<Mempool<'e>>, DeviceError> {
    pair_pools(eal, settings, 0)
}

/// Each device's receive pool of pair `pair` (its place in the file's `pairs`): `rx-n3` and
/// `rx-n6` for the first, `rx-n3-1`, `rx-n6-1` for the second, and so on (DPDK's names are
/// process-wide).
pub fn pair_pools<'e>(
    eal: &'e Eal,
    settings: &[DeviceSettings],
    pair: usize,
) -> Result<Vec<Mempool<'e>>, DeviceError> {
    let names = ["rx-n3", "rx-n6"].map(|n| match pair {
        0 => n.to_owned(),
        k => format!("{n}-{k}"),
    });
    settings
        .iter()
        .zip(names)
        .map(|(s, name)| Ok(rx_pool(eal, &name, s.queues, s.rx_descriptors)?))
        .collect()
}

/// Each device's configuration (see [`port_config`]), with the offloads `offloads` gives it
/// (the VLAN offloads of [`super::vlan_offload::plan`]; none for a device it leaves out).
pub fn configs(
    ports: &[Port<'_>],
    settings: &[DeviceSettings],
    offloads: &[upfbench_dpdk::Offloads],
) -> Result<Vec<PortConfig>, DeviceError> {
    ports
        .iter()
        .zip(settings)
        .enumerate()
        .map(|(i, (port, s))| {
            let mut c = port_config(port, s.queues, s.rx_descriptors, s.tx_descriptors)?;
            c.offloads = offloads.get(i).copied().unwrap_or_default();
            Ok(c)
        })
        .collect()
}

/// The VLAN plan of ports `n3` and `n6` on the opened `ports` (see
/// [`super::vlan_offload::plan`]).
pub fn vlan_plan<P>(
    ports: &[Port<'_>],
    n3: &PortSettings<P>,
    n6: &PortSettings<P>,
) -> Result<super::vlan_offload::VlanPlan, DeviceError> {
    let infos = ports
        .iter()
        .map(|p| p.info())
        .collect::<Result<Vec<_>, _>>()?;
    Ok(super::vlan_offload::plan(n3, n6, &infos))
}

/// The devices started with `configs`, their received frames in `pools`.
pub fn start<'p, 'e>(
    ports: &'p mut [Port<'e>],
    configs: &[PortConfig],
    pools: &[Mempool<'e>],
) -> Result<Vec<StartedPort<'p, 'e>>, DeviceError> {
    ports
        .iter_mut()
        .zip(configs)
        .zip(pools)
        .zip(Side::BOTH)
        .map(|(((port, c), pool), side)| {
            port.start(c, pool)
                .map_err(|source| DeviceError::Start { side, source })
        })
        .collect()
}

/// Each worker's queues on N3 and N6: queue `i` of each device, or on one device queue `i`
/// for N3 and `workers + i` for N6 (`settings` gives its queues, twice the workers').
pub fn worker_queues<'p>(
    started: &'p [StartedPort<'_, '_>],
    settings: &[DeviceSettings],
) -> Result<Vec<[PortQueues<'p>; 2]>, DeviceError> {
    Ok(match started {
        [n3, n6] => split_queues(n3.queues()?, n6.queues()?),
        _ => {
            let half = settings.first().map_or(0, |s| usize::from(s.queues / 2));
            split_one_port(started[0].queues()?, half)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_port_mode_is_one_device_with_both_ports_queues() {
        let trunk = upfbench_config::system_from_str(
            "n3: {device: net_memif0, address: 192.168.13.131/24, peer: 192.168.13.151, \
             rx_descriptors: 512, vlan: {id: 13}}\n\
             n6: {port: n3, address: 192.168.16.152/24, peer: 192.168.16.151, vlan: {id: 16}}\n\
             cores: {main: 0, workers: [1, 2]}\n",
            "s.yaml",
        )
        .expect("valid");
        let one = device_settings(trunk.pair(0));
        assert_eq!(
            one,
            [DeviceSettings {
                queues: 4,
                rx_descriptors: 512,
                tx_descriptors: 1024
            }]
        );
        let two = upfbench_config::system_from_str(
            "n3: {device: net_memif0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
             n6: {device: net_memif1, address: 192.168.16.152/24, peer: 192.168.16.151}\n\
             cores: {main: 0, workers: [1, 2]}\n",
            "s.yaml",
        )
        .expect("valid");
        let both = device_settings(two.pair(0));
        assert_eq!(both.iter().map(|s| s.queues).collect::<Vec<_>>(), [2, 2]);
        assert_eq!(*n6_of(&both), both[1]);
        assert_eq!(*n6_of(&one), one[0]);
    }
}
