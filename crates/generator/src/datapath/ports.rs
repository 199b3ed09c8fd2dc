//! Setting up the two ports: queues for every worker, receive pools, link, and the first MAC
//! resolution before the workers start.

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, Link, MbufBurst, Mempool, Offloads, Port, PortConfig, Queues, Socket,
    tsc,
};
use upfbench_gtpu::MacAddr;

use super::queues::{PortQueues, RX_BURST, Side};
use super::service::ServicePlane;

/// Per-lcore cache of the receive pools.
const RX_POOL_CACHE: u32 = 256;

/// How `port` is started with `queues` receive and transmit queues, one of each per worker
/// (validation made the file's count the workers'): RSS across the receive queues when there
/// are several and the port hashes on IP/UDP. Without RSS (memif, af_packet) a port's queue
/// `i` is its peer's queue `i`: each worker's flows come back to it.
pub fn port_config(
    port: &Port<'_>,
    queues: u16,
    rx_desc: u16,
    tx_desc: u16,
) -> upfbench_dpdk::Result<PortConfig> {
    let info = port.info()?;
    Ok(PortConfig {
        rx_queues: queues,
        tx_queues: queues,
        rx_desc,
        tx_desc,
        rss: queues > 1 && info.capabilities.rss,
        offloads: Offloads::NONE,
    })
}

/// A receive pool big enough for every descriptor of `queues` queues (one per worker), the
/// bursts in flight and the per-lcore caches: a power of two minus one (what DPDK's rings use
/// best).
pub fn rx_pool<'e>(
    eal: &'e Eal,
    name: &str,
    queues: u16,
    rx_desc: u16,
) -> upfbench_dpdk::Result<Mempool<'e>> {
    let w = u32::from(queues);
    let need = w * u32::from(rx_desc) + (w + 1) * (RX_POOL_CACHE + 2 * RX_BURST as u32) + 1024;
    let n = (need + 1).next_power_of_two() - 1;
    Mempool::new(eal, name, n, RX_POOL_CACHE, DEFAULT_DATA_ROOM, Socket::Any)
}

/// Waits until the port's link is up (a memif or af_packet link comes up when its peer does).
pub fn wait_link(port: &Port<'_>, timeout: Duration) -> Result<Link, Duration> {
    let start = Instant::now();
    loop {
        if let Ok(link) = port.link()
            && link.up
        {
            return Ok(link);
        }
        if start.elapsed() >= timeout {
            return Err(timeout);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Pairs the queues of N3 and N6 by worker: worker `i` gets queue `i` of both ports.
pub fn split_queues<'p>(n3: Queues<'p>, n6: Queues<'p>) -> Vec<[PortQueues<'p>; 2]> {
    n3.rx
        .into_iter()
        .zip(n3.tx)
        .zip(n6.rx.into_iter().zip(n6.tx))
        .map(|((rx3, tx3), (rx6, tx6))| {
            [
                PortQueues { rx: rx3, tx: tx3 },
                PortQueues { rx: rx6, tx: tx6 },
            ]
        })
        .collect()
}

/// A neighbour that did not answer ARP.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{side}: no ARP reply from {address} after {requests} requests over {waited:?}; check the link \
     and the peer's address, or give its MAC (peer_mac) in the system file"
)]
pub struct Unresolved {
    /// "N3" or "N6".
    pub side: &'static str,
    /// The address asked for.
    pub address: Ipv4Addr,
    /// Requests sent.
    pub requests: u32,
    /// Time waited.
    pub waited: Duration,
}

/// Resolves the MAC of each `(side, address)` by ARP before the workers start, from the main
/// lcore: a request every `interval`, at most `requests` per address, polling every receive
/// queue meanwhile (answering whatever else asks us, too). Addresses already known (configured)
/// are not asked for.
pub fn resolve<'p>(
    queues: &mut [[PortQueues<'p>; 2]],
    service: &mut ServicePlane<'p>,
    targets: &[(Side, Ipv4Addr)],
    interval: Duration,
    requests: u32,
) -> Result<Vec<MacAddr>, Unresolved> {
    let start = Instant::now();
    let mut sent = vec![0u32; targets.len()];
    let mut last: Vec<Option<Instant>> = vec![None; targets.len()];
    let mut burst = MbufBurst::<RX_BURST>::new();
    loop {
        let mut missing = false;
        for (i, &(side, ip)) in targets.iter().enumerate() {
            if service.neighbor(side, u32::from(ip)).is_some() {
                continue;
            }
            missing = true;
            if last[i].is_none_or(|t| t.elapsed() >= interval) {
                if sent[i] == requests {
                    return Err(Unresolved {
                        side: side.name(),
                        address: ip,
                        requests,
                        waited: start.elapsed(),
                    });
                }
                service.forget_request(side, u32::from(ip));
                service.resolve(side, u32::from(ip), tsc());
                sent[i] += 1;
                last[i] = Some(Instant::now());
            }
        }
        if !missing {
            // Answers to the peer's own requests, queued by the last poll, go out too.
            if let Some(first) = queues.first_mut() {
                for side in Side::BOTH {
                    service.flush(side, &mut first[side.index()].tx);
                }
            }
            break;
        }
        if let Some(first) = queues.first_mut() {
            for side in Side::BOTH {
                service.flush(side, &mut first[side.index()].tx);
            }
        }
        for q in queues.iter_mut() {
            for side in Side::BOTH {
                if q[side.index()].rx.rx_burst(&mut burst) > 0 {
                    for m in burst.iter() {
                        service.handle_any(side, m.data());
                    }
                    burst.clear();
                }
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    Ok(targets
        .iter()
        .map(|&(side, ip)| {
            service
                .neighbor(side, u32::from(ip))
                .expect("resolved above")
        })
        .collect())
}
