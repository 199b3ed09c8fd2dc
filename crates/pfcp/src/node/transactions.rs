//! Our requests in flight: sequence numbers, T1/N1 retransmission, response matching.
//!
//! Each request is encoded once; its sequence number is written in when it is first sent and
//! kept for every retransmission (Open5GS tracks transactions by it). A response removes the
//! request at once, so an answered request is never sent again (eUPF would create a second
//! session). Deadlines live in a binary heap with lazy deletion: answering is O(1), and a stale
//! heap entry is dropped when it reaches the top.

use core::net::{IpAddr, SocketAddr};
use core::time::Duration;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::time::Instant;

use super::Transmit;
use crate::header::Header;
use crate::message::MessageType;
use crate::types::SequenceNumber;

/// A request waiting for its response.
#[derive(Debug)]
pub(crate) struct Pending<P> {
    /// Where it went.
    pub(crate) peer: SocketAddr,
    /// The encoded request, with its sequence number.
    pub(crate) bytes: Vec<u8>,
    /// Transmissions so far.
    pub(crate) transmissions: u32,
    /// When it was first sent.
    pub(crate) first_sent: Instant,
    /// Its T1 and N1 (the node's, or the request's own: a best-effort request is sent once).
    pub(crate) t1: Duration,
    pub(crate) n1: u32,
    /// When T1 expires next.
    pub(crate) deadline: Instant,
    /// The message type that answers it.
    pub(crate) response_type: MessageType,
    /// What the caller attached.
    pub(crate) procedure: P,
}

/// How many of the requests due for retransmission may go at once.
#[derive(Debug)]
pub(crate) struct RetransmitLimit<P> {
    /// Which requests the limit applies to.
    pub(crate) selects: fn(&P) -> bool,
    /// How many more may be retransmitted now.
    pub(crate) count: usize,
    /// How long the others wait.
    pub(crate) defer: Duration,
}

/// The requests in flight and their timers.
#[derive(Debug)]
pub(crate) struct Transactions<P> {
    t1: Duration,
    n1: u32,
    next: SequenceNumber,
    pending: HashMap<u32, Pending<P>>,
    timers: BinaryHeap<Reverse<(Instant, u32)>>,
    pub(crate) retransmissions: u64,
    pub(crate) sent: u64,
}

impl<P> Transactions<P> {
    pub(crate) fn new(t1: Duration, n1: u32, first: SequenceNumber) -> Self {
        Transactions {
            t1,
            n1,
            next: first,
            pending: HashMap::new(),
            timers: BinaryHeap::new(),
            retransmissions: 0,
            sent: 0,
        }
    }

    /// Requests in flight.
    pub(crate) fn len(&self) -> usize {
        self.pending.len()
    }

    /// Forgets every request in flight, as a node that restarted has.
    pub(crate) fn clear(&mut self) {
        self.pending.clear();
        self.timers.clear();
    }

    fn allocate(&mut self) -> SequenceNumber {
        loop {
            let s = self.next;
            self.next = s.next();
            if !self.pending.contains_key(&s.get()) {
                return s;
            }
        }
    }

    /// Numbers and sends `bytes` (an encoded request) to `peer`; T1 starts now.
    pub(crate) fn start(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        bytes: Vec<u8>,
        procedure: P,
        out: &mut VecDeque<Transmit>,
    ) -> SequenceNumber {
        let (t1, n1) = (self.t1, self.n1);
        self.start_with(now, peer, bytes, procedure, out, t1, n1)
    }

    /// Like [`start`](Self::start) with this request's own T1 and N1 (`n1` 0: sent once, given
    /// up after `t1`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn start_with(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        mut bytes: Vec<u8>,
        procedure: P,
        out: &mut VecDeque<Transmit>,
        t1: Duration,
        n1: u32,
    ) -> SequenceNumber {
        let seq = self.allocate();
        let response_type = {
            let mut h = Header::new_unchecked(&mut bytes[..]);
            h.set_sequence(seq);
            h.message_type().response().unwrap_or(MessageType(0))
        };
        out.push_back(Transmit {
            destination: peer,
            contents: bytes.clone(),
        });
        self.sent += 1;
        let deadline = now + t1;
        self.timers.push(Reverse((deadline, seq.get())));
        self.pending.insert(
            seq.get(),
            Pending {
                peer,
                bytes,
                transmissions: 1,
                first_sent: now,
                t1,
                n1,
                deadline,
                response_type,
                procedure,
            },
        );
        seq
    }

    /// Takes the request that a response of `message_type` with `seq` from `from` answers: its
    /// own response type, or a Version Not Supported Response, which answers any request.
    pub(crate) fn answer(
        &mut self,
        seq: SequenceNumber,
        from: IpAddr,
        message_type: MessageType,
    ) -> Option<Pending<P>> {
        let p = self.pending.get(&seq.get())?;
        let answers = p.response_type == message_type
            || message_type == MessageType::VERSION_NOT_SUPPORTED_RESPONSE;
        if p.peer.ip() != from || !answers {
            return None;
        }
        self.pending.remove(&seq.get())
    }

    /// Drops the heap entries of answered requests from the top; returns the next deadline.
    pub(crate) fn poll_timeout(&mut self) -> Option<Instant> {
        while let Some(&Reverse((at, seq))) = self.timers.peek() {
            match self.pending.get(&seq) {
                Some(p) if p.deadline == at => return Some(at),
                _ => {
                    self.timers.pop();
                }
            }
        }
        None
    }

    /// Whether a request that `limited` selects is due at `now` (to be retransmitted or given
    /// up).
    pub(crate) fn due(&self, now: Instant, limited: fn(&P) -> bool) -> bool {
        self.pending
            .values()
            .any(|p| p.deadline <= now && limited(&p.procedure))
    }

    /// Retransmits what is due and moves what has used up N1 into `expired`. Of the requests
    /// `limit` selects, at most `limit.count` are retransmitted now; the others wait
    /// `limit.defer` (a burst of retransmissions must not overflow the peer again).
    pub(crate) fn handle_timeout(
        &mut self,
        now: Instant,
        out: &mut VecDeque<Transmit>,
        expired: &mut Vec<(SequenceNumber, Pending<P>)>,
        mut limit: Option<&mut RetransmitLimit<P>>,
    ) {
        while let Some(&Reverse((at, seq))) = self.timers.peek() {
            if at > now {
                break;
            }
            self.timers.pop();
            let Some(p) = self.pending.get_mut(&seq) else {
                continue;
            };
            if p.deadline != at {
                continue;
            }
            if p.transmissions <= p.n1 {
                if let Some(l) = limit.as_deref_mut()
                    && (l.selects)(&p.procedure)
                {
                    if l.count == 0 {
                        p.deadline = now + l.defer;
                        self.timers.push(Reverse((p.deadline, seq)));
                        continue;
                    }
                    l.count -= 1;
                }
                p.transmissions += 1;
                p.deadline = now + p.t1;
                out.push_back(Transmit {
                    destination: p.peer,
                    contents: p.bytes.clone(),
                });
                self.retransmissions += 1;
                self.timers.push(Reverse((p.deadline, seq)));
            } else if let Some(p) = self.pending.remove(&seq) {
                expired.push((SequenceNumber::from_masked(seq), p));
            }
        }
    }
}
