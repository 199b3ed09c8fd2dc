//! What the driver loop needs of a node, and the nodes that have it.

use std::net::SocketAddr;
use std::time::Instant;

use crate::node::{Client, Event, FaultyUpf, Transmit, Upf, UpfEvent};

/// What the driver loop needs of a node (both roles have these as inherent methods).
pub(crate) trait SansIo {
    type Event;
    fn handle_datagram(&mut self, now: Instant, remote: SocketAddr, bytes: &[u8]);
    fn handle_timeout(&mut self, now: Instant);
    fn poll_transmit(&mut self) -> Option<Transmit>;
    fn poll_timeout(&mut self) -> Option<Instant>;
    fn poll_event(&mut self) -> Option<Self::Event>;
}

macro_rules! sans_io {
    ($t:ty, $event:ty) => {
        impl SansIo for $t {
            type Event = $event;
            fn handle_datagram(&mut self, now: Instant, remote: SocketAddr, bytes: &[u8]) {
                <$t>::handle_datagram(self, now, remote, bytes)
            }
            fn handle_timeout(&mut self, now: Instant) {
                <$t>::handle_timeout(self, now)
            }
            fn poll_transmit(&mut self) -> Option<Transmit> {
                <$t>::poll_transmit(self)
            }
            fn poll_timeout(&mut self) -> Option<Instant> {
                <$t>::poll_timeout(self)
            }
            fn poll_event(&mut self) -> Option<$event> {
                <$t>::poll_event(self)
            }
        }
    };
}
sans_io!(Client, Event);
sans_io!(Upf, UpfEvent);
sans_io!(FaultyUpf, UpfEvent);
