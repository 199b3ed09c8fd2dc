//! Setting up the two ports: queues for every worker, receive pools, link, and the first MAC
//! resolution before the workers start.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use upfbench_dpdk::{
    DEFAULT_DATA_ROOM, Eal, Link, MbufBurst, Mempool, Offloads, Port, PortConfig, Queues, Socket,
    tsc,
};
use upfbench_net::MacAddr;

use super::next_hops::{Arp, NextHops};
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

/// Why a wait on the ports ended without what it waited for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WaitError {
    /// The link stayed down this long.
    #[error("link still down after {0:?}")]
    LinkDown(Duration),
    /// No server (memif, vhost-user) made its socket file in this long.
    #[error("no server socket {} after {waited:?}", socket.display())]
    NoServer {
        /// The socket file.
        socket: PathBuf,
        /// How long it was waited for.
        waited: Duration,
    },
    /// A neighbour did not answer ARP.
    #[error(transparent)]
    Unresolved(#[from] Unresolved),
    /// `stop` said so (the user interrupted).
    #[error("interrupted")]
    Interrupted,
}

/// How often a wait looks at the link and at `stop`.
const LINK_POLL: Duration = Duration::from_millis(20);

/// Waits until the port's link is up (a memif or af_packet link comes up when its peer does),
/// at most `timeout`, and no longer than `stop` returns false (looked at every 20 ms).
pub fn wait_link(
    port: &Port<'_>,
    timeout: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<Link, WaitError> {
    let start = Instant::now();
    loop {
        if let Ok(link) = port.link()
            && link.up
        {
            return Ok(link);
        }
        if stop() {
            return Err(WaitError::Interrupted);
        }
        if start.elapsed() >= timeout {
            return Err(WaitError::LinkDown(timeout));
        }
        std::thread::sleep(LINK_POLL);
    }
}

/// Waits until `socket` exists (a memif or vhost-user server made it), at most `timeout`, and no longer than
/// `stop` returns false (looked at every 20 ms).
pub fn wait_socket(
    socket: &Path,
    timeout: Duration,
    stop: &dyn Fn() -> bool,
) -> Result<(), WaitError> {
    let start = Instant::now();
    loop {
        if socket.exists() {
            return Ok(());
        }
        if stop() {
            return Err(WaitError::Interrupted);
        }
        if start.elapsed() >= timeout {
            return Err(WaitError::NoServer {
                socket: socket.to_owned(),
                waited: timeout,
            });
        }
        std::thread::sleep(LINK_POLL);
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

/// One-port mode (N3 and N6 on one device, told apart by VLAN): the device's `2 × workers`
/// queues split by role, worker `i` getting queue `i` for N3 and queue `workers + i` for N6.
/// Without RSS (memif, af_packet) a peer that does the same receives each role's frames on that
/// role's queue; with RSS a frame may come on either, and the receive path sorts it by its tags.
pub fn split_one_port(mut queues: Queues<'_>, workers: usize) -> Vec<[PortQueues<'_>; 2]> {
    let n6 = Queues {
        rx: queues.rx.split_off(workers.min(queues.rx.len())),
        tx: queues.tx.split_off(workers.min(queues.tx.len())),
    };
    split_queues(queues, n6)
}

/// A neighbour that did not answer ARP (or, over IPv6, Neighbor Solicitation).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{side}: no {} from {address} after {requests} requests {interval:?} apart; check the \
     link and the peer's address, or give its MAC (peer_mac) in the system file",
    answer_name(.address)
)]
pub struct Unresolved {
    /// The port.
    pub side: Side,
    /// The address asked for.
    pub address: IpAddr,
    /// Requests sent.
    pub requests: u32,
    /// The wait for a reply after each (the system file's `arp.timeout`).
    pub interval: Duration,
}

/// What a neighbour of `address`'s family answers with.
fn answer_name(address: &IpAddr) -> &'static str {
    match address {
        IpAddr::V4(_) => "ARP reply",
        IpAddr::V6(_) => "Neighbor Advertisement",
    }
}

/// Resolves the MAC of each `(side, address)` by ARP (IPv6: Neighbor Solicitation) before the workers start, from the main
/// lcore: a request every `interval` on every worker's queue, at most `requests` per
/// address ([`NextHops`] paces them), polling every receive queue meanwhile (answering whatever
/// else asks us, too, on the queue it came in on), until `stop` returns true. Addresses
/// already known (configured) are not asked for; a MAC learned from the peer's own request
/// resolves it too. At most [`MAX_NEXT_HOPS`](super::next_hops::MAX_NEXT_HOPS) addresses.
pub fn resolve<'p>(
    queues: &mut [[PortQueues<'p>; 2]],
    service: &mut ServicePlane<'p>,
    targets: &[(Side, IpAddr)],
    interval: Duration,
    requests: u32,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<MacAddr>, WaitError> {
    let unresolved = |(side, address): (Side, IpAddr)| Unresolved {
        side,
        address,
        requests,
        interval,
    };
    let mut hops = NextHops::new(service.ticks(interval), requests);
    for &(side, ip) in targets {
        hops.want_addr(side, ip);
    }
    let mut burst = MbufBurst::<RX_BURST>::new();
    loop {
        hops.poll(tsc(), &mut AnyMac(service));
        if let Some(hop) = hops.first_given_up() {
            return Err(WaitError::Unresolved(unresolved(hop)));
        }
        if hops.asking() == 0 {
            // Answers to the peer's own requests, queued by the last poll, go out too.
            flush_everywhere(queues, service);
            break;
        }
        if stop() {
            return Err(WaitError::Interrupted);
        }
        flush_everywhere(queues, service);
        for q in queues.iter_mut() {
            for side in Side::BOTH {
                let PortQueues { rx, tx } = &mut q[side.index()];
                if rx.rx_burst(&mut burst) > 0 {
                    for m in burst.iter() {
                        service.handle_received(side, m.stripped_tags(), m.data());
                    }
                    burst.clear();
                    // The answers go back on the queue the requests came in on: a peer with a
                    // worker per queue (the reflector over memif or vhost) hears them there.
                    service.flush(side, tx);
                }
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    targets
        .iter()
        .map(|&(side, ip)| {
            // Resolved above, unless the neighbour table has since made room for newer ones.
            service
                .neighbor_ip(side, ip)
                .ok_or_else(|| WaitError::Unresolved(unresolved((side, ip))))
        })
        .collect()
}

/// Sends what the service plane queued (our requests) on every worker's transmit queues, a
/// copy on each but the first: a peer with a worker per queue (the reflector over memif or
/// vhost, each worker with a neighbour table of its own) learns our MACs on every queue from
/// our requests, before traffic comes.
fn flush_everywhere<'p>(queues: &mut [[PortQueues<'p>; 2]], service: &mut ServicePlane<'p>) {
    if let Some((first, others)) = queues.split_first_mut() {
        for side in Side::BOTH {
            for q in others.iter_mut() {
                service.copy_pending(side, &mut q[side.index()].tx);
            }
            service.flush(side, &mut first[side.index()].tx);
        }
    }
}

/// The service plane as the resolution before traffic sees it: a peer is resolved once its MAC
/// is known, from a reply to our request or from its own request; requests go out as the
/// service plane's own (see its [`Arp`] implementation).
struct AnyMac<'s, 'p>(&'s mut ServicePlane<'p>);

impl Arp for AnyMac<'_, '_> {
    fn resolved(&self, side: Side, ip: IpAddr) -> bool {
        self.0.neighbor_ip(side, ip).is_some()
    }

    fn request(&mut self, side: Side, ip: IpAddr, now: u64) {
        self.0.request(side, ip, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_wait_ends_at_the_socket_the_timeout_or_the_stop() {
        let dir = std::env::temp_dir().join(format!("upfbench-socket-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let socket = dir.join("n3.sock");
        let _ = std::fs::remove_file(&socket);
        let never = || false;
        assert_eq!(
            wait_socket(&socket, Duration::from_millis(50), &never),
            Err(WaitError::NoServer {
                socket: socket.clone(),
                waited: Duration::from_millis(50)
            })
        );
        let always = || true;
        let e = Unresolved {
            side: Side::N3,
            address: "2001:db8::1".parse().unwrap(),
            requests: 2,
            interval: Duration::from_secs(1),
        };
        assert!(
            e.to_string()
                .starts_with("N3: no Neighbor Advertisement from 2001:db8::1 after 2"),
            "{e}"
        );
        assert_eq!(
            wait_socket(&socket, Duration::from_secs(10), &always),
            Err(WaitError::Interrupted)
        );
        std::fs::write(&socket, b"").unwrap();
        assert_eq!(wait_socket(&socket, Duration::ZERO, &always), Ok(()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
