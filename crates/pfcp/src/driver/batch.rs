//! What the client task owes its callers: one-shot replies for association procedures and
//! modifications, and batches (establish all, delete all) awaited as one, fed to the node as
//! its window takes them.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use tokio::sync::oneshot;

use super::client::{Association, EstablishAllError};
use crate::node::{Client, Error, Session};
use crate::plan::UeSessionPlan;
use crate::types::Seid;

pub(crate) type Reply<T> = oneshot::Sender<Result<T, Error>>;

/// Where a batch's answer goes.
pub(crate) enum BatchReply {
    Establish(oneshot::Sender<Result<Vec<Session>, EstablishAllError>>),
    Delete(Reply<usize>),
}

/// Several sessions' procedures awaited as one.
struct Batch {
    results: Vec<Option<Session>>,
    remaining: usize,
    /// The first failure to arrive, and the index of its item.
    first_error: Option<(usize, Error)>,
    reply: BatchReply,
}

impl Batch {
    /// Answers the caller (one that stopped waiting is not an error).
    fn finish(self) {
        let done = self.results.iter().flatten().count();
        match (self.reply, self.first_error) {
            (BatchReply::Establish(tx), Some((index, error))) => {
                let _ = tx.send(Err(EstablishAllError {
                    established: done,
                    total: self.results.len(),
                    plan: Some(index),
                    error,
                }));
            }
            (BatchReply::Establish(tx), None) => {
                let _ = tx.send(Ok(self.results.into_iter().flatten().collect()));
            }
            (BatchReply::Delete(tx), Some((_, error))) => {
                let _ = tx.send(Err(error));
            }
            (BatchReply::Delete(tx), None) => {
                let _ = tx.send(Ok(done));
            }
        }
    }
}

enum Waiter {
    Batch { id: u64, index: usize },
    Modify(Reply<Session>),
}

/// A batch's items not yet handed to the node. The node gets no more than its window can take,
/// so that requests are encoded while earlier ones are on the wire, not all up front.
pub(crate) enum Work {
    Establish(std::vec::IntoIter<UeSessionPlan>),
    Delete(std::vec::IntoIter<Seid>),
}

struct Backlog {
    id: u64,
    next: usize,
    work: Work,
}

#[derive(Default)]
pub(crate) struct Waiters {
    pub(crate) associate: Option<Reply<Association>>,
    pub(crate) release: Option<Reply<()>>,
    sessions: HashMap<Seid, Waiter>,
    batches: HashMap<u64, Batch>,
    next_batch: u64,
    backlog: VecDeque<Backlog>,
}

impl Waiters {
    /// Starts a batch of `size` items.
    pub(crate) fn start_batch(&mut self, size: usize, work: Work, reply: BatchReply) {
        let id = self.next_batch;
        self.next_batch += 1;
        let batch = Batch {
            results: vec![None; size],
            remaining: size,
            first_error: None,
            reply,
        };
        if size == 0 {
            return batch.finish();
        }
        self.batches.insert(id, batch);
        self.backlog.push_back(Backlog { id, next: 0, work });
    }

    /// Hands the node as much of the backlog as its window takes.
    pub(crate) fn feed(&mut self, node: &mut Client) {
        let now = Instant::now();
        let window = node.config().window.max(1);
        while node.in_flight() + node.queued() < window {
            let Some(b) = self.backlog.front_mut() else {
                break;
            };
            let r = match &mut b.work {
                Work::Establish(plans) => plans.next().map(|p| node.establish(now, &p)),
                Work::Delete(seids) => seids.next().map(|cp| node.delete(now, cp).map(|()| cp)),
            };
            let Some(r) = r else {
                self.backlog.pop_front();
                continue;
            };
            let (id, index) = (b.id, b.next);
            b.next += 1;
            match r {
                Ok(cp) => {
                    self.sessions.insert(cp, Waiter::Batch { id, index });
                }
                Err(e) => self.settle(id, index, Err(e)),
            }
        }
    }

    pub(crate) fn wait_modify(&mut self, cp_seid: Seid, reply: Reply<Session>) {
        self.sessions.insert(cp_seid, Waiter::Modify(reply));
    }

    /// A session's procedure ended.
    pub(crate) fn session_done(&mut self, cp_seid: Seid, result: Result<Session, Error>) {
        match self.sessions.remove(&cp_seid) {
            Some(Waiter::Batch { id, index }) => self.settle(id, index, result),
            Some(Waiter::Modify(tx)) => {
                let _ = tx.send(result);
            }
            None => {}
        }
    }

    fn settle(&mut self, id: u64, index: usize, result: Result<Session, Error>) {
        let Some(b) = self.batches.get_mut(&id) else {
            return;
        };
        match result {
            Ok(s) => b.results[index] = Some(s),
            Err(e) => {
                b.first_error.get_or_insert((index, e));
            }
        }
        b.remaining -= 1;
        if b.remaining == 0
            && let Some(b) = self.batches.remove(&id)
        {
            b.finish();
        }
    }
}
