//! Responses to the peer's requests, kept to answer its retransmissions without applying a
//! request twice (what makes "established exactly once" hold on a lossy path).
//!
//! Keyed by the peer's address and the request's sequence number. A request with a known key
//! but other content is a new request (e.g. a restarted peer reusing numbers), not a duplicate:
//! the cache compares a digest of the request bytes. Entries expire in insertion order, so a
//! FIFO of deadlines purges them without a timer.

use core::hash::{BuildHasher, Hasher};
use core::net::{IpAddr, SocketAddr};
use core::time::Duration;
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use crate::types::SequenceNumber;

type Key = (SocketAddr, u32);

#[derive(Debug)]
struct Entry {
    digest: u64,
    response: Vec<u8>,
    expires: Instant,
}

/// The response cache.
#[derive(Debug)]
pub(crate) struct ResponseCache {
    ttl: Duration,
    hasher: RandomState,
    entries: HashMap<Key, Entry>,
    expiry: VecDeque<(Instant, Key)>,
}

impl ResponseCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        ResponseCache {
            ttl,
            hasher: RandomState::new(),
            entries: HashMap::new(),
            expiry: VecDeque::new(),
        }
    }

    fn digest(&self, request: &[u8]) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(request);
        h.finish()
    }

    /// Forgets every response held, as a node that restarted has.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.expiry.clear();
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn purge(&mut self, now: Instant) {
        while let Some(&(at, key)) = self.expiry.front() {
            if at > now {
                break;
            }
            self.expiry.pop_front();
            if self.entries.get(&key).is_some_and(|e| e.expires == at) {
                self.entries.remove(&key);
            }
        }
    }

    /// The response already sent for this very request, if any.
    pub(crate) fn lookup(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        seq: SequenceNumber,
        request: &[u8],
    ) -> Option<Vec<u8>> {
        self.purge(now);
        let e = self.entries.get(&(peer, seq.get()))?;
        (e.digest == self.digest(request)).then(|| e.response.clone())
    }

    /// Forgets a peer's requests: after it restarted or released the association, its sequence
    /// numbers start again and an equal request is a new one.
    pub(crate) fn forget(&mut self, peer: IpAddr) {
        self.entries.retain(|k, _| k.0.ip() != peer);
    }

    /// Remembers the response to a request.
    pub(crate) fn insert(
        &mut self,
        now: Instant,
        peer: SocketAddr,
        seq: SequenceNumber,
        request: &[u8],
        response: Vec<u8>,
    ) {
        let expires = now + self.ttl;
        let key = (peer, seq.get());
        let digest = self.digest(request);
        self.entries.insert(
            key,
            Entry {
                digest,
                response,
                expires,
            },
        );
        self.expiry.push_back((expires, key));
    }
}
