//! What the client task owes its callers: one-shot replies for association procedures and
//! modifications, and batches (establish all, delete all) awaited as one, fed to the node as
//! its window takes them.
//!
//! An establishment batch stops feeding at its first refusal (a rejection Cause): a UPF whose
//! rule tables are full, or that does not serve the network instance, refuses every later
//! session too, and 100,000 requests to learn that would hold the run for nothing. A deletion
//! batch runs to its end: every session that can be deleted should be.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::time::Instant;

use tokio::sync::{oneshot, watch};

use crate::ie::{NtpTimestamp, UpFunctionFeatures};
use crate::node::{Client, NodeError, Session};
use crate::plan::UeSessionPlan;
use crate::types::Seid;

/// The association the UPF accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Association {
    /// The UPF.
    pub peer: SocketAddr,
    /// Its Recovery Time Stamp.
    pub recovery_time_stamp: NtpTimestamp,
    /// Its UP Function Features, when sent.
    pub up_function_features: Option<UpFunctionFeatures>,
}

/// Why [`PfcpClient::establish_all`] did not establish every plan: the first failure to
/// arrive, the plan it concerns, and how far the batch got. The sessions that were established
/// stay in the table ([`PfcpClient::delete_all`] removes them).
///
/// [`PfcpClient::establish_all`]: super::PfcpClient::establish_all
/// [`PfcpClient::delete_all`]: super::PfcpClient::delete_all
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "established {established} of {total} sessions; {}{error}",
    plan.map(|i| format!("plan {i}: ")).unwrap_or_default()
)]
pub struct EstablishAllError {
    /// Sessions established (confirmed by the UPF) when the batch ended; 0 when the driver
    /// stopped before answering.
    pub established: usize,
    /// Plans in the batch.
    pub total: usize,
    /// The index, among the plans given, of the plan whose failure [`Self::error`] is; `None`
    /// when the driver stopped before answering.
    pub plan: Option<usize>,
    /// The first failure.
    pub error: NodeError,
}

impl EstablishAllError {
    /// Plans that were not established (failed, or never tried because the driver stopped).
    pub fn failed(&self) -> usize {
        self.total - self.established
    }
}

/// Why [`PfcpClient::delete_all`] did not delete every established session: the first failure
/// to arrive, the session it concerns, and how far the batch got. A session the UPF no longer
/// knows (Cause 65, Session context not found) leaves the table; one whose deletion timed out
/// or was rejected for another cause stays established, for another
/// [`PfcpClient::delete_all`] to retry.
///
/// [`PfcpClient::delete_all`]: super::PfcpClient::delete_all
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "deleted {deleted} of {total} sessions; {}{error}",
    cp_seid.map(|s| format!("session {:#x}: ", s.0)).unwrap_or_default()
)]
pub struct DeleteAllError {
    /// Sessions deleted (confirmed by the UPF) when the batch ended; 0 when the driver stopped
    /// before answering.
    pub deleted: usize,
    /// Sessions in the batch (those established when it started); 0 when the driver stopped
    /// before answering.
    pub total: usize,
    /// The CP SEID of the session whose failure [`Self::error`] is; `None` when the driver
    /// stopped before answering.
    pub cp_seid: Option<Seid>,
    /// The first failure.
    pub error: NodeError,
}

impl DeleteAllError {
    /// Sessions of the batch that were not deleted.
    pub fn failed(&self) -> usize {
        self.total - self.deleted
    }
}

pub(crate) type Reply<T> = oneshot::Sender<Result<T, NodeError>>;

/// Where a batch's answer goes.
pub(crate) enum BatchReply {
    Establish(oneshot::Sender<Result<Vec<Session>, EstablishAllError>>),
    Delete(oneshot::Sender<Result<usize, DeleteAllError>>),
}

/// A batch's first failure: which item, which session, and why.
struct Failure {
    index: usize,
    cp_seid: Seid,
    error: NodeError,
}

/// How far a batch got: the caller reads it while the batch runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchProgress {
    /// Items in the batch.
    pub total: usize,
    /// Items whose procedure succeeded.
    pub done: usize,
    /// Items whose procedure failed.
    pub failed: usize,
    /// Items never started because the batch was cancelled.
    pub cancelled: usize,
}

impl BatchProgress {
    /// Whether every item has ended (succeeded, failed or been cancelled).
    pub fn finished(&self) -> bool {
        self.done + self.failed + self.cancelled == self.total
    }
}

/// Several sessions' procedures awaited as one.
struct Batch {
    results: Vec<Option<Session>>,
    remaining: usize,
    /// The first failure to arrive.
    first_error: Option<Failure>,
    /// Whether a refusal cancels the items not yet fed (establishment).
    stop_at_refusal: bool,
    progress: watch::Sender<BatchProgress>,
    reply: BatchReply,
}

impl Batch {
    /// Answers the caller (one that stopped waiting is not an error). A cancelled batch ends
    /// with [`NodeError::Aborted`] unless an item failed first.
    fn finish(self) {
        let done = self.results.iter().flatten().count();
        let total = self.results.len();
        let cancelled = self.progress.borrow().cancelled;
        let procedure = self.procedure();
        let first_error = self.first_error.or_else(|| {
            (cancelled > 0).then_some(Failure {
                index: done,
                cp_seid: Seid(0),
                error: NodeError::Aborted {
                    procedure,
                    reason: "cancelled",
                },
            })
        });
        match (self.reply, first_error) {
            (BatchReply::Establish(tx), Some(f)) => {
                let _ = tx.send(Err(EstablishAllError {
                    established: done,
                    total,
                    plan: Some(f.index),
                    error: f.error,
                }));
            }
            (BatchReply::Establish(tx), None) => {
                let _ = tx.send(Ok(self.results.into_iter().flatten().collect()));
            }
            (BatchReply::Delete(tx), Some(f)) => {
                let _ = tx.send(Err(DeleteAllError {
                    deleted: done,
                    total,
                    cp_seid: Some(f.cp_seid),
                    error: f.error,
                }));
            }
            (BatchReply::Delete(tx), None) => {
                let _ = tx.send(Ok(done));
            }
        }
    }
}

impl Batch {
    fn procedure(&self) -> crate::node::Procedure {
        match self.reply {
            BatchReply::Establish(_) => crate::node::Procedure::SessionEstablishment(Seid(0)),
            BatchReply::Delete(_) => crate::node::Procedure::SessionDeletion(Seid(0)),
        }
    }
}

enum Waiter {
    Batch { id: u64, index: usize },
    Single(Reply<Session>),
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
    backlog: VecDeque<Backlog>,
}

impl Waiters {
    /// Starts batch `id` of `size` items.
    pub(crate) fn start_batch(
        &mut self,
        id: u64,
        size: usize,
        work: Work,
        reply: BatchReply,
        progress: watch::Sender<BatchProgress>,
    ) {
        progress.send_replace(BatchProgress {
            total: size,
            ..BatchProgress::default()
        });
        let stop_at_refusal = matches!(reply, BatchReply::Establish(_));
        let batch = Batch {
            results: vec![None; size],
            remaining: size,
            first_error: None,
            stop_at_refusal,
            progress,
            reply,
        };
        if size == 0 {
            return batch.finish();
        }
        self.batches.insert(id, batch);
        self.backlog.push_back(Backlog { id, next: 0, work });
    }

    /// Cancels batch `id`: items not handed to the node yet are dropped; those in flight end
    /// as they will, and then the batch answers.
    pub(crate) fn cancel(&mut self, id: u64) {
        let Some(pos) = self.backlog.iter().position(|b| b.id == id) else {
            return;
        };
        let Some(b) = self.backlog.remove(pos) else {
            return;
        };
        let Some(batch) = self.batches.get_mut(&id) else {
            return;
        };
        let unfed = batch.results.len() - b.next;
        batch.remaining -= unfed;
        batch.progress.send_modify(|p| p.cancelled += unfed);
        if batch.remaining == 0
            && let Some(batch) = self.batches.remove(&id)
        {
            batch.finish();
        }
    }

    /// Hands the node as much of the backlog as its window takes now: not more, so that a
    /// batch cancelled (or refused) sends nothing the node was given beyond its window.
    pub(crate) fn feed(&mut self, node: &mut Client) {
        let now = Instant::now();
        while node.in_flight() + node.queued() < node.window().max(1) {
            let Some(b) = self.backlog.front_mut() else {
                break;
            };
            let r = match &mut b.work {
                Work::Establish(plans) => plans
                    .next()
                    .map(|p| (p.cp_seid(), node.establish(now, &p).map(drop))),
                Work::Delete(seids) => seids.next().map(|cp| (cp, node.delete(now, cp))),
            };
            let Some((cp, r)) = r else {
                self.backlog.pop_front();
                continue;
            };
            let (id, index) = (b.id, b.next);
            b.next += 1;
            match r {
                Ok(()) => {
                    self.sessions.insert(cp, Waiter::Batch { id, index });
                }
                Err(e) => self.settle(id, index, cp, Err(e)),
            }
        }
    }

    pub(crate) fn wait_session(&mut self, cp_seid: Seid, reply: Reply<Session>) {
        self.sessions.insert(cp_seid, Waiter::Single(reply));
    }

    /// A session's procedure ended.
    pub(crate) fn session_done(&mut self, cp_seid: Seid, result: Result<Session, NodeError>) {
        match self.sessions.remove(&cp_seid) {
            Some(Waiter::Batch { id, index }) => self.settle(id, index, cp_seid, result),
            Some(Waiter::Single(tx)) => {
                let _ = tx.send(result);
            }
            None => {}
        }
    }

    /// Item `index` of batch `id`, the procedure of session `cp_seid`, ended. A refusal in a
    /// batch that stops at one cancels what was not fed yet; what is in flight ends as it will.
    fn settle(&mut self, id: u64, index: usize, cp_seid: Seid, result: Result<Session, NodeError>) {
        let Some(b) = self.batches.get_mut(&id) else {
            return;
        };
        let mut refused = false;
        match result {
            Ok(s) => {
                b.results[index] = Some(s);
                b.progress.send_modify(|p| p.done += 1);
            }
            Err(error) => {
                refused = b.stop_at_refusal && error.is_refusal();
                b.first_error.get_or_insert(Failure {
                    index,
                    cp_seid,
                    error,
                });
                b.progress.send_modify(|p| p.failed += 1);
            }
        }
        b.remaining -= 1;
        if b.remaining == 0
            && let Some(b) = self.batches.remove(&id)
        {
            b.finish();
        } else if refused {
            self.cancel(id);
        }
    }
}
