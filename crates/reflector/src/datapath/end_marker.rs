//! End Markers (GTP-U message type 254, TS 29.281 §7.3.2) the reflector owes after a path
//! switch with SNDEM: the control thread posts them once the new rules are in effect in every
//! worker (a grace period after their publication: no worker forwards on the old tunnel any
//! more), and the first worker sends them on its N3 queue, behind every G-PDU it forwarded
//! there before.
//!
//! A worker looks for orders with one load of a counter per loop, like the rules table
//! ([`super::rules::TableReader`]); the channel is read only when the counter moved.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

use upfbench_net::Teid;

/// One End Marker to send: on the tunnel a UE's downlink left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndMarkerOrder {
    /// The old tunnel's TEID (the old gNB's downlink TEID).
    pub teid: Teid,
    /// The old gNB.
    pub gnb: Ipv4Addr,
}

/// The control thread's end: posts orders.
#[derive(Debug)]
pub struct EndMarkerPoster {
    orders: Sender<EndMarkerOrder>,
    posted: Arc<AtomicU64>,
}

/// The sending worker's end.
#[derive(Debug)]
pub struct EndMarkerInbox {
    orders: Receiver<EndMarkerOrder>,
    posted: Arc<AtomicU64>,
    seen: u64,
}

/// A poster and its inbox.
pub fn end_marker_channel() -> (EndMarkerPoster, EndMarkerInbox) {
    let (tx, rx) = channel();
    let posted = Arc::new(AtomicU64::new(0));
    (
        EndMarkerPoster {
            orders: tx,
            posted: Arc::clone(&posted),
        },
        EndMarkerInbox {
            orders: rx,
            posted,
            seen: 0,
        },
    )
}

impl EndMarkerPoster {
    /// Posts `orders`; false if the worker is gone.
    pub(crate) fn post(&self, orders: impl IntoIterator<Item = EndMarkerOrder>) -> bool {
        let mut ok = true;
        for o in orders {
            ok &= self.orders.send(o).is_ok();
        }
        // After the sends: an inbox that sees the new count finds the orders in its channel.
        self.posted.fetch_add(1, Ordering::Release);
        ok
    }
}

impl EndMarkerInbox {
    /// Whether orders may be waiting: one load.
    #[inline(always)]
    pub fn pending(&self) -> bool {
        self.posted.load(Ordering::Acquire) != self.seen
    }

    /// Takes every order waiting into `f`.
    pub fn take(&mut self, mut f: impl FnMut(EndMarkerOrder)) {
        self.seen = self.posted.load(Ordering::Acquire);
        while let Ok(o) = self.orders.try_recv() {
            f(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_arrive_once_in_order_and_only_when_posted() {
        let (poster, mut inbox) = end_marker_channel();
        assert!(!inbox.pending());
        let a = EndMarkerOrder {
            teid: Teid(2),
            gnb: Ipv4Addr::new(192, 168, 13, 131),
        };
        let b = EndMarkerOrder { teid: Teid(4), ..a };
        assert!(poster.post([a, b]));
        assert!(inbox.pending());
        let mut got = Vec::new();
        inbox.take(|o| got.push(o));
        assert_eq!(got, [a, b]);
        assert!(!inbox.pending());
        drop(inbox);
        assert!(!poster.post([a]), "the worker is gone");
    }
}
