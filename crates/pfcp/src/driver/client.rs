//! The client driver: a task owns a [`Client`] node, its socket and its clock; [`PfcpClient`]
//! talks to it through commands and one-shot replies.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::time::Instant;

use tokio::sync::{mpsc, oneshot};

use super::io::{Io, sleep_until};
use crate::ie::{NtpTimestamp, UpFunctionFeatures};
use crate::message::SessionModificationRequest;
use crate::node::{Client, ClientConfig, Error, Event, Procedure, Session, SessionState, Stats};
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

type Reply<T> = oneshot::Sender<Result<T, Error>>;

enum Command {
    Associate(Reply<Association>),
    EstablishAll(Vec<UeSessionPlan>, Reply<Vec<Session>>),
    Modify(Seid, Box<SessionModificationRequest>, Reply<Session>),
    DeleteAll(Reply<usize>),
    Release(Reply<()>),
    Sessions(oneshot::Sender<Vec<Session>>),
    Stats(oneshot::Sender<Stats>),
}

const STOPPED: &str = "the PFCP driver stopped";

/// The CP side over UDP. Cloning gives another handle to the same task; the task ends when
/// every handle is dropped.
#[derive(Debug, Clone)]
pub struct PfcpClient {
    commands: mpsc::UnboundedSender<Command>,
    local: SocketAddr,
}

impl PfcpClient {
    /// Binds `local` (the N4 address on port 8805: Open5GS sends its replies and requests to
    /// 8805 whatever our source port) and starts the task on the current tokio runtime.
    ///
    /// The receiver carries what happens unasked: [`Event::PeerRestarted`],
    /// [`Event::HeartbeatLost`], [`Event::PeerReleased`], [`Event::SessionReport`],
    /// [`Event::Associated`] for a UPF-initiated association, and [`Event::Failed`] for a
    /// heartbeat the UPF answered with Version Not Supported.
    pub async fn start(
        local: SocketAddr,
        config: ClientConfig,
    ) -> io::Result<(PfcpClient, mpsc::UnboundedReceiver<Event>)> {
        let io = Io::bind(local).await?;
        let local = io.socket.local_addr()?;
        let (commands, rx) = mpsc::unbounded_channel();
        let (events, events_rx) = mpsc::unbounded_channel();
        let task = Task {
            node: Client::new(config),
            io,
            events,
            waiters: Waiters::default(),
            backlog: VecDeque::new(),
        };
        tokio::spawn(task.run(rx));
        Ok((PfcpClient { commands, local }, events_rx))
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    async fn call<T>(
        &self,
        procedure: Procedure,
        command: impl FnOnce(Reply<T>) -> Command,
    ) -> Result<T, Error> {
        let (tx, rx) = oneshot::channel();
        let aborted = Error::Aborted {
            procedure,
            reason: STOPPED,
        };
        self.commands
            .send(command(tx))
            .map_err(|_| aborted.clone())?;
        rx.await.unwrap_or(Err(aborted))
    }

    /// Sets up the association (Association Setup Request) and waits for the answer.
    pub async fn associate(&self) -> Result<Association, Error> {
        self.call(Procedure::AssociationSetup, Command::Associate)
            .await
    }

    /// Establishes one session per plan, at most the window in flight at a time; returns the
    /// sessions in the order of the plans. If any fails, the first failure is returned; the
    /// sessions that were established stay in the table ([`Self::delete_all`] removes them).
    pub async fn establish_all(&self, plans: Vec<UeSessionPlan>) -> Result<Vec<Session>, Error> {
        let procedure =
            Procedure::SessionEstablishment(plans.first().map(|p| p.cp_seid).unwrap_or_default());
        self.call(procedure, |tx| Command::EstablishAll(plans, tx))
            .await
    }

    /// Modifies an established session (e.g. [`UeSessionPlan::path_switch_request`]).
    pub async fn modify(
        &self,
        cp_seid: Seid,
        request: SessionModificationRequest,
    ) -> Result<Session, Error> {
        self.call(Procedure::SessionModification(cp_seid), |tx| {
            Command::Modify(cp_seid, Box::new(request), tx)
        })
        .await
    }

    /// Deletes every established session, windowed like establishment; returns how many were
    /// deleted, or the first failure.
    pub async fn delete_all(&self) -> Result<usize, Error> {
        self.call(Procedure::SessionDeletion(Seid(0)), Command::DeleteAll)
            .await
    }

    /// Releases the association (Association Release Request).
    pub async fn release(&self) -> Result<(), Error> {
        self.call(Procedure::AssociationRelease, Command::Release)
            .await
    }

    /// The session table.
    pub async fn sessions(&self) -> Result<Vec<Session>, Error> {
        let (tx, rx) = oneshot::channel();
        let aborted = || Error::Aborted {
            procedure: Procedure::SessionEstablishment(Seid(0)),
            reason: STOPPED,
        };
        self.commands
            .send(Command::Sessions(tx))
            .map_err(|_| aborted())?;
        rx.await.map_err(|_| aborted())
    }

    /// The node's counters.
    pub async fn stats(&self) -> Result<Stats, Error> {
        let (tx, rx) = oneshot::channel();
        let aborted = || Error::Aborted {
            procedure: Procedure::Heartbeat,
            reason: STOPPED,
        };
        self.commands
            .send(Command::Stats(tx))
            .map_err(|_| aborted())?;
        rx.await.map_err(|_| aborted())
    }
}

/// Several sessions' procedures awaited as one.
struct Batch {
    results: Vec<Option<Session>>,
    remaining: usize,
    first_error: Option<Error>,
    reply: BatchReply,
}

enum BatchReply {
    Establish(Reply<Vec<Session>>),
    Delete(Reply<usize>),
}

enum Waiter {
    Batch { id: u64, index: usize },
    Modify(Reply<Session>),
}

#[derive(Default)]
struct Waiters {
    associate: Option<Reply<Association>>,
    release: Option<Reply<()>>,
    sessions: HashMap<Seid, Waiter>,
    batches: HashMap<u64, Batch>,
    next_batch: u64,
}

impl Waiters {
    fn start_batch(&mut self, size: usize, reply: BatchReply) -> u64 {
        let id = self.next_batch;
        self.next_batch += 1;
        self.batches.insert(
            id,
            Batch {
                results: vec![None; size],
                remaining: size,
                first_error: None,
                reply,
            },
        );
        id
    }

    fn settle(&mut self, id: u64, index: usize, result: Result<Session, Error>) {
        let Some(b) = self.batches.get_mut(&id) else {
            return;
        };
        match result {
            Ok(s) => b.results[index] = Some(s),
            Err(e) => {
                b.first_error.get_or_insert(e);
            }
        }
        b.remaining -= 1;
        self.finish_if_done(id);
    }

    fn finish_if_done(&mut self, id: u64) {
        if self.batches.get(&id).is_none_or(|b| b.remaining > 0) {
            return;
        }
        let Some(b) = self.batches.remove(&id) else {
            return;
        };
        // A caller that stopped waiting is not an error.
        match (b.reply, b.first_error) {
            (BatchReply::Establish(tx), Some(e)) => {
                let _ = tx.send(Err(e));
            }
            (BatchReply::Establish(tx), None) => {
                let _ = tx.send(Ok(b.results.into_iter().flatten().collect()));
            }
            (BatchReply::Delete(tx), Some(e)) => {
                let _ = tx.send(Err(e));
            }
            (BatchReply::Delete(tx), None) => {
                let _ = tx.send(Ok(b.results.len()));
            }
        }
    }

    fn session_done(&mut self, cp_seid: Seid, result: Result<Session, Error>) {
        match self.sessions.remove(&cp_seid) {
            Some(Waiter::Batch { id, index }) => self.settle(id, index, result),
            Some(Waiter::Modify(tx)) => {
                let _ = tx.send(result);
            }
            None => {}
        }
    }
}

/// A batch's requests not yet handed to the node. The node gets no more than its window can
/// take, so that requests are encoded while earlier ones are on the wire, not all up front.
enum Backlog {
    Establish {
        id: u64,
        next: usize,
        plans: std::vec::IntoIter<UeSessionPlan>,
    },
    Delete {
        id: u64,
        next: usize,
        seids: std::vec::IntoIter<Seid>,
    },
}

struct Task {
    node: Client,
    io: Io,
    events: mpsc::UnboundedSender<Event>,
    waiters: Waiters,
    backlog: VecDeque<Backlog>,
}

impl Task {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            Io::timers(&mut self.node);
            self.route_events();
            self.feed();
            self.io.flush(&mut self.node).await;
            let deadline = self.node.poll_timeout();
            tokio::select! {
                biased;
                r = self.io.socket.readable() => match r {
                    Ok(()) => self.io.drain(&mut self.node),
                    Err(e) => {
                        tracing::error!(error = %e, "PFCP socket failed");
                        break;
                    }
                },
                c = commands.recv() => match c {
                    Some(c) => {
                        self.command(c);
                        while let Ok(c) = commands.try_recv() {
                            self.command(c);
                        }
                    }
                    None => break,
                },
                () = sleep_until(deadline) => {}
            }
        }
    }

    fn command(&mut self, c: Command) {
        let now = Instant::now();
        match c {
            Command::Associate(tx) => match self.node.associate(now) {
                Ok(()) => self.waiters.associate = Some(tx),
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::EstablishAll(plans, tx) => {
                let id = self
                    .waiters
                    .start_batch(plans.len(), BatchReply::Establish(tx));
                self.backlog.push_back(Backlog::Establish {
                    id,
                    next: 0,
                    plans: plans.into_iter(),
                });
                self.waiters.finish_if_done(id);
            }
            Command::Modify(cp, req, tx) => match self.node.modify(now, cp, *req) {
                Ok(()) => {
                    self.waiters.sessions.insert(cp, Waiter::Modify(tx));
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::DeleteAll(tx) => {
                let targets: Vec<Seid> = self
                    .node
                    .sessions()
                    .filter(|s| s.state == SessionState::Established)
                    .map(|s| s.cp_seid)
                    .collect();
                let id = self
                    .waiters
                    .start_batch(targets.len(), BatchReply::Delete(tx));
                self.backlog.push_back(Backlog::Delete {
                    id,
                    next: 0,
                    seids: targets.into_iter(),
                });
                self.waiters.finish_if_done(id);
            }
            Command::Release(tx) => match self.node.release(now) {
                Ok(()) => self.waiters.release = Some(tx),
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::Sessions(tx) => {
                let _ = tx.send(self.node.sessions().copied().collect());
            }
            Command::Stats(tx) => {
                let _ = tx.send(self.node.stats());
            }
        }
    }

    /// Hands the node as much of the backlog as its window takes.
    fn feed(&mut self) {
        let now = Instant::now();
        let window = self.node.config().window.max(1);
        while self.node.in_flight() + self.node.queued() < window {
            let Some(front) = self.backlog.front_mut() else {
                break;
            };
            let (id, index, r) = match front {
                Backlog::Establish { id, next, plans } => match plans.next() {
                    Some(plan) => {
                        *next += 1;
                        (*id, *next - 1, self.node.establish(now, &plan))
                    }
                    None => {
                        self.backlog.pop_front();
                        continue;
                    }
                },
                Backlog::Delete { id, next, seids } => match seids.next() {
                    Some(cp) => {
                        *next += 1;
                        (*id, *next - 1, self.node.delete(now, cp).map(|()| cp))
                    }
                    None => {
                        self.backlog.pop_front();
                        continue;
                    }
                },
            };
            match r {
                Ok(cp) => {
                    self.waiters
                        .sessions
                        .insert(cp, Waiter::Batch { id, index });
                }
                Err(e) => self.waiters.settle(id, index, Err(e)),
            }
        }
    }

    fn route_events(&mut self) {
        while let Some(e) = self.node.poll_event() {
            match e {
                Event::Associated {
                    peer,
                    recovery_time_stamp,
                    up_function_features,
                } => match self.waiters.associate.take() {
                    Some(tx) => {
                        let _ = tx.send(Ok(Association {
                            peer,
                            recovery_time_stamp,
                            up_function_features,
                        }));
                    }
                    None => {
                        let _ = self.events.send(Event::Associated {
                            peer,
                            recovery_time_stamp,
                            up_function_features,
                        });
                    }
                },
                Event::Established(s) | Event::Modified(s) | Event::Deleted(s) => {
                    self.waiters.session_done(s.cp_seid, Ok(s))
                }
                Event::Released => {
                    if let Some(tx) = self.waiters.release.take() {
                        let _ = tx.send(Ok(()));
                    }
                }
                Event::Failed(e) => match e.procedure() {
                    Procedure::AssociationSetup => {
                        if let Some(tx) = self.waiters.associate.take() {
                            let _ = tx.send(Err(e));
                        }
                    }
                    Procedure::AssociationRelease => {
                        if let Some(tx) = self.waiters.release.take() {
                            let _ = tx.send(Err(e));
                        }
                    }
                    // No caller waits for a heartbeat: its failure is news.
                    Procedure::Heartbeat => {
                        let _ = self.events.send(Event::Failed(e));
                    }
                    p => {
                        if let Some(cp) = p.cp_seid() {
                            self.waiters.session_done(cp, Err(e));
                        }
                    }
                },
                other => {
                    let _ = self.events.send(other);
                }
            }
        }
    }
}
