//! The socket side shared by both drivers: send what a node produced, drain what arrived.

use std::io;
use std::net::SocketAddr;
use std::time::Instant;

use tokio::net::UdpSocket;

use super::sans_io::SansIo;

/// Largest datagram read.
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams read per wake-up before the loop gives timers and commands a turn.
const RECV_BUDGET: usize = 1024;
/// Socket buffer size asked for (the kernel caps it at net.core.rmem_max / wmem_max). A window
/// of requests arrives as one burst: with Linux's default 208 KiB, about 150 PFCP datagrams
/// fit, and every one more is lost and waits T1 (3 s) for its retransmission.
pub(crate) const SOCKET_BUFFER: usize = 4 << 20;

/// A node's socket and receive buffer.
pub(crate) struct Io {
    pub(crate) socket: UdpSocket,
    buf: Vec<u8>,
}

impl Io {
    pub(crate) async fn bind(local: SocketAddr) -> io::Result<Self> {
        use socket2::{Domain, Protocol, Socket, Type};
        let s = Socket::new(Domain::for_address(local), Type::DGRAM, Some(Protocol::UDP))?;
        s.set_nonblocking(true)?;
        // Best effort: a smaller buffer only costs retransmissions under bursts.
        let _ = s.set_recv_buffer_size(SOCKET_BUFFER);
        let _ = s.set_send_buffer_size(SOCKET_BUFFER);
        s.bind(&local.into())?;
        tracing::debug!(
            %local,
            recv_buffer = s.recv_buffer_size().unwrap_or(0),
            send_buffer = s.send_buffer_size().unwrap_or(0),
            "PFCP socket bound"
        );
        Ok(Io {
            socket: UdpSocket::from_std(s.into())?,
            buf: vec![0; MAX_DATAGRAM],
        })
    }

    /// Runs the node's timers when due.
    pub(crate) fn timers(node: &mut impl SansIo) {
        let now = Instant::now();
        if node.poll_timeout().is_some_and(|t| t <= now) {
            node.handle_timeout(now);
        }
    }

    /// Sends everything the node has queued. A full socket buffer waits; other send errors
    /// (an unreachable peer) lose the datagram, as the network would: T1/N1 deals with it.
    pub(crate) async fn flush(&self, node: &mut impl SansIo) {
        while let Some(t) = node.poll_transmit() {
            match self.socket.try_send_to(&t.contents, t.destination) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if let Err(e) = self.socket.send_to(&t.contents, t.destination).await {
                        tracing::warn!(destination = %t.destination, error = %e, "PFCP send failed");
                    }
                }
                Err(e) => {
                    tracing::warn!(destination = %t.destination, error = %e, "PFCP send failed")
                }
            }
        }
    }

    /// Feeds the node every datagram already queued on the socket (up to a budget).
    pub(crate) fn drain(&mut self, node: &mut impl SansIo) {
        let now = Instant::now();
        for _ in 0..RECV_BUDGET {
            match self.socket.try_recv_from(&mut self.buf) {
                Ok((n, from)) => node.handle_datagram(now, from, &self.buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                // ICMP errors surface here on some systems; they concern no datagram of ours.
                Err(e) => tracing::debug!(error = %e, "PFCP receive error"),
            }
        }
    }
}
