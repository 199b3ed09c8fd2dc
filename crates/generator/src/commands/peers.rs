//! Before a run's phases start: waiting for the ports' peers (a memif or vhost-user server's
//! socket file, then the links), each wait saying so on the way in and ending at once on an
//! interruption.

use std::time::Duration;

use upfbench_dpdk::Port;

use upfbench_cli::out;
use upfbench_config::System;
use upfbench_config::devargs::{SocketRole, socket_file};
use upfbench_datapath::port_setup::{WaitError, wait_link, wait_socket};
use upfbench_datapath::queues::Side;

/// How long a peer may take to come up (a memif or vhost-user peer to connect).
pub(crate) const PEER_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a run stopped before its phases started (a wait for the peers among them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EarlyStop {
    /// Interrupted while doing this ("waiting for N3's link").
    Interrupted(String),
    /// Failed: the message to stop the run with (a peer that did not come).
    Failed(String),
}

fn stopped(side: Side, name: &str, waiting_for: &str, e: WaitError) -> EarlyStop {
    match e {
        WaitError::Interrupted => {
            EarlyStop::Interrupted(format!("waiting for {side}'s {waiting_for}"))
        }
        e => EarlyStop::Failed(format!("{side} ({name}): {e}; is the peer running?")),
    }
}

/// Waits for the socket file of every port that is its link's client (a memif client, a
/// virtio-user port of a vhost-user server): DPDK cannot probe a virtio-user client, nor start
/// a memif client, without it. `names` are each pair's ports' DPDK names.
pub(crate) fn wait_for_socket_servers(
    system: &System,
    names: &[[String; 2]],
    stop: &dyn Fn() -> bool,
) -> Result<(), EarlyStop> {
    for (pair, names) in system.pairs().iter().zip(names) {
        for ((side, port), name) in [(Side::N3, &pair.n3), (Side::N6, &pair.n6)]
            .into_iter()
            .zip(names)
        {
            let Some(socket) = socket_file(port.device.name(), port.devargs.as_deref())
                .filter(|s| s.role == SocketRole::Client)
            else {
                continue;
            };
            let server = format!("{} server", socket.protocol);
            if !socket.path.exists() {
                out::line(&format!(
                    "{side} ({name}): waiting for the {server}'s socket {} (at most \
                     {PEER_TIMEOUT:?})",
                    socket.path.display()
                ));
            }
            wait_socket(&socket.path, PEER_TIMEOUT, stop)
                .map_err(|e| stopped(side, name, &server, e))?;
        }
    }
    Ok(())
}

/// Waits for both ports' links (N3, N6, named `names`); returns their line rates (bit/s) where
/// the ports report them.
pub(crate) fn wait_for_links(
    ports: [&Port<'_>; 2],
    names: &[String; 2],
    stop: &dyn Fn() -> bool,
) -> Result<[Option<f64>; 2], EarlyStop> {
    let mut speeds = [None, None];
    for (i, (port, side)) in ports.into_iter().zip(Side::BOTH).enumerate() {
        if !port.link().is_ok_and(|l| l.up) {
            out::line(&format!(
                "{side} ({}): waiting for the link (at most {PEER_TIMEOUT:?})",
                names[i]
            ));
        }
        let link =
            wait_link(port, PEER_TIMEOUT, stop).map_err(|e| stopped(side, &names[i], "link", e))?;
        speeds[i] = link.speed_mbps.map(|m| f64::from(m) * 1e6);
    }
    Ok(speeds)
}
