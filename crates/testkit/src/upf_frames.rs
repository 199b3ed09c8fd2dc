//! Frames as a UPF sends them back (G-PDUs on N3, plain IPv4/UDP on N6), built with the gtpu
//! crate's emitters, for the datapath's unit tests and the RX benchmark: both include this file
//! by its path (`#[cfg(test)]` in the library), so that it is never part of the library that
//! ships. It depends on the net and gtpu crates only.

use std::net::Ipv4Addr;

use upfbench_gtpu::{
    Encapsulator, Ipv4Repr, OuterHeaders, PduSessionContainer, UdpChecksum, UdpRepr, emit_ipv4_udp,
};
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_net::{ipv4, udp};

/// An IPv4/UDP packet.
pub fn inner(src: Ipv4Addr, dst: Ipv4Addr, ports: (u16, u16), payload: &[u8]) -> Vec<u8> {
    let mut buf = vec![0u8; ipv4::MIN_HEADER_LEN + udp::HEADER_LEN + payload.len()];
    let ip = Ipv4Repr::udp(src, dst);
    let udp = UdpRepr {
        source_port: ports.0,
        destination_port: ports.1,
    };
    let n = emit_ipv4_udp(&mut buf, &ip, &udp, payload, UdpChecksum::Compute).unwrap();
    buf.truncate(n);
    buf
}

/// A G-PDU from 192.168.13.151 to 192.168.13.131 around `inner`, with a downlink PDU Session
/// Container when `qfi` is given.
pub fn gpdu(teid: Teid, qfi: Option<Qfi>, inner: &[u8]) -> Vec<u8> {
    let mut outer = OuterHeaders::new(
        MacAddr([2, 0, 0, 0, 0, 1]),
        MacAddr([2, 0, 0, 0, 0, 2]),
        Ipv4Addr::new(192, 168, 13, 151),
        Ipv4Addr::new(192, 168, 13, 131),
        teid,
    );
    outer.pdu_session_container = qfi.map(PduSessionContainer::downlink);
    let e = Encapsulator::new(&outer).unwrap();
    let mut buf = vec![0u8; e.outer_len() + inner.len()];
    let at = e.outer_len();
    buf[at..].copy_from_slice(inner);
    let range = e.encapsulate(&mut buf, at..at + inner.len()).unwrap();
    buf[range].to_vec()
}

/// `inner` in an Ethernet II frame.
pub fn plain(inner: &[u8]) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 4, 0x08, 0x00];
    f.extend_from_slice(inner);
    f
}
