//! The client driver: a task owns a [`Client`] node, its socket and its clock; [`PfcpClient`]
//! talks to it through commands and one-shot replies.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::{mpsc, oneshot, watch};

use super::batch::{
    Association, BatchProgress, BatchReply, DeleteAllError, EstablishAllError, Reply, Waiters, Work,
};
use super::io::Io;
use super::task::{self, Task};
use crate::message::SessionModificationRequest;
use crate::node::{
    Client, ClientConfig, Event, Figures, NodeError, Procedure, Session, SessionState, Stats,
};
use crate::plan::UeSessionPlan;
use crate::types::Seid;

enum Command {
    Associate(Reply<Association>),
    EstablishAll(
        u64,
        Vec<UeSessionPlan>,
        oneshot::Sender<Result<Vec<Session>, EstablishAllError>>,
        watch::Sender<BatchProgress>,
    ),
    Establish(Box<UeSessionPlan>, Reply<Session>),
    Modify(Seid, Box<SessionModificationRequest>, Reply<Session>),
    Delete(Seid, Reply<Session>),
    DeleteAll(
        u64,
        oneshot::Sender<Result<usize, DeleteAllError>>,
        watch::Sender<BatchProgress>,
    ),
    Cancel(u64),
    Release(Reply<()>),
    Sessions(oneshot::Sender<Vec<Session>>),
    Stats(oneshot::Sender<Stats>),
    Figures(oneshot::Sender<Figures>),
}

const STOPPED: &str = "the PFCP driver stopped";

/// The CP side over UDP. Cloning gives another handle to the same task; the task ends when
/// every handle is dropped.
#[derive(Debug, Clone)]
pub struct PfcpClient {
    commands: mpsc::UnboundedSender<Command>,
    local: SocketAddr,
    next_batch: Arc<AtomicU64>,
}

/// How the Association Release ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// The UPF accepted it.
    Answered,
    /// No answer within the release wait (what Open5GS and eUPF do): over for us all the same.
    Unanswered,
}

/// A batch of session procedures running in the driver: its progress as it goes, a way to stop
/// it, and its result.
#[derive(Debug)]
pub struct Batch<T, E> {
    id: u64,
    commands: mpsc::UnboundedSender<Command>,
    progress: watch::Receiver<BatchProgress>,
    result: oneshot::Receiver<Result<T, E>>,
    procedure: Procedure,
    stopped: fn(NodeError, usize) -> E,
}

impl<T, E> Batch<T, E> {
    /// How far it got.
    pub fn progress(&self) -> BatchProgress {
        *self.progress.borrow()
    }

    /// A receiver that sees every change of the progress.
    pub fn watch(&self) -> watch::Receiver<BatchProgress> {
        self.progress.clone()
    }

    /// Stops feeding the batch: items not started are dropped (counted `cancelled`), those in
    /// flight end as they will; then the batch ends with [`NodeError::Aborted`] ("cancelled")
    /// unless an item failed first.
    pub fn cancel(&self) {
        let _ = self.commands.send(Command::Cancel(self.id));
    }

    /// The result, if the batch has ended.
    pub fn try_result(&mut self) -> Option<Result<T, E>> {
        match self.result.try_recv() {
            Ok(r) => Some(r),
            Err(oneshot::error::TryRecvError::Empty) => None,
            Err(oneshot::error::TryRecvError::Closed) => Some(Err(self.driver_stopped())),
        }
    }

    /// Waits for the result.
    pub async fn finish(self) -> Result<T, E> {
        let total = self.progress.borrow().total;
        let (stopped, procedure) = (self.stopped, self.procedure);
        match self.result.await {
            Ok(r) => r,
            Err(_) => Err(stopped(aborted_stopped(procedure), total)),
        }
    }

    fn driver_stopped(&self) -> E {
        (self.stopped)(
            aborted_stopped(self.procedure),
            self.progress.borrow().total,
        )
    }
}

fn aborted_stopped(procedure: Procedure) -> NodeError {
    NodeError::Aborted {
        procedure,
        reason: STOPPED,
    }
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
        let task = ClientTask {
            node: Client::new(config),
            events,
            waiters: Waiters::default(),
        };
        tokio::spawn(task::run(task, io, rx));
        Ok((
            PfcpClient {
                commands,
                local,
                next_batch: Arc::new(AtomicU64::new(0)),
            },
            events_rx,
        ))
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Sends a command and waits for its reply; a stopped driver aborts `procedure`.
    async fn ask<R>(
        &self,
        procedure: Procedure,
        command: impl FnOnce(oneshot::Sender<R>) -> Command,
    ) -> Result<R, NodeError> {
        let (tx, rx) = oneshot::channel();
        let aborted = || NodeError::Aborted {
            procedure,
            reason: STOPPED,
        };
        self.commands.send(command(tx)).map_err(|_| aborted())?;
        rx.await.map_err(|_| aborted())
    }

    async fn call<T>(
        &self,
        procedure: Procedure,
        command: impl FnOnce(Reply<T>) -> Command,
    ) -> Result<T, NodeError> {
        self.ask(procedure, command).await?
    }

    /// Sets up the association (Association Setup Request) and waits for the answer.
    pub async fn associate(&self) -> Result<Association, NodeError> {
        self.call(Procedure::AssociationSetup, Command::Associate)
            .await
    }

    /// Establishes one session per plan, at most the window in flight at a time; returns the
    /// sessions in the order of the plans. At the first refusal ([`NodeError::is_refusal`]: a
    /// rejection Cause) no further request is sent; those in flight end as they will. A timeout
    /// does not stop the batch. The first failure comes back with the index of its plan and the
    /// number of sessions established, which stay in the table ([`Self::delete_all`] removes
    /// them); the plans never tried are counted `cancelled` in the progress.
    pub async fn establish_all(
        &self,
        plans: Vec<UeSessionPlan>,
    ) -> Result<Vec<Session>, EstablishAllError> {
        self.start_establish(plans).finish().await
    }

    /// Starts establishing one session per plan (see [`Self::establish_all`]) and returns at
    /// once: the [`Batch`] shows the progress, can be cancelled, and gives the result.
    pub fn start_establish(
        &self,
        plans: Vec<UeSessionPlan>,
    ) -> Batch<Vec<Session>, EstablishAllError> {
        let total = plans.len();
        let id = self.next_batch.fetch_add(1, Ordering::Relaxed);
        let (tx, result) = oneshot::channel();
        let (progress_tx, progress) = watch::channel(BatchProgress {
            total,
            ..BatchProgress::default()
        });
        let _ = self
            .commands
            .send(Command::EstablishAll(id, plans, tx, progress_tx));
        Batch {
            id,
            commands: self.commands.clone(),
            progress,
            result,
            procedure: Procedure::SessionEstablishment(Seid(0)),
            stopped: |error, total| EstablishAllError {
                established: 0,
                total,
                plan: None,
                error,
            },
        }
    }

    /// Establishes one session, through the window like a batch's; answers with the session
    /// as established, or why not.
    pub async fn establish(&self, plan: UeSessionPlan) -> Result<Session, NodeError> {
        let cp_seid = plan.cp_seid();
        self.call(Procedure::SessionEstablishment(cp_seid), |tx| {
            Command::Establish(Box::new(plan), tx)
        })
        .await
    }

    /// Deletes one established session; answers with it as it was, or why not.
    pub async fn delete(&self, cp_seid: Seid) -> Result<Session, NodeError> {
        self.call(Procedure::SessionDeletion(cp_seid), |tx| {
            Command::Delete(cp_seid, tx)
        })
        .await
    }

    /// Modifies an established session (e.g. [`UeSessionPlan::path_switch_request`]).
    pub async fn modify(
        &self,
        cp_seid: Seid,
        request: SessionModificationRequest,
    ) -> Result<Session, NodeError> {
        self.call(Procedure::SessionModification(cp_seid), |tx| {
            Command::Modify(cp_seid, Box::new(request), tx)
        })
        .await
    }

    /// Deletes every established session, windowed like establishment; returns how many were
    /// deleted. If any fails, the batch still runs to its end and the first failure comes back
    /// with the CP SEID of its session and the number of sessions deleted.
    pub async fn delete_all(&self) -> Result<usize, DeleteAllError> {
        self.start_delete().finish().await
    }

    /// Starts deleting every established session (see [`Self::delete_all`]) and returns at once.
    pub fn start_delete(&self) -> Batch<usize, DeleteAllError> {
        let id = self.next_batch.fetch_add(1, Ordering::Relaxed);
        let (tx, result) = oneshot::channel();
        let (progress_tx, progress) = watch::channel(BatchProgress::default());
        let _ = self.commands.send(Command::DeleteAll(id, tx, progress_tx));
        Batch {
            id,
            commands: self.commands.clone(),
            progress,
            result,
            procedure: Procedure::SessionDeletion(Seid(0)),
            stopped: |error, total| DeleteAllError {
                deleted: 0,
                total,
                cp_seid: None,
                error,
            },
        }
    }

    /// Releases the association: the request is sent once and its answer awaited for the
    /// release wait at most (real UPFs do not answer); either way the association is over.
    pub async fn release(&self) -> Result<Release, NodeError> {
        match self
            .call(Procedure::AssociationRelease, Command::Release)
            .await
        {
            Ok(()) => Ok(Release::Answered),
            Err(NodeError::Timeout {
                procedure: Procedure::AssociationRelease,
                ..
            }) => Ok(Release::Unanswered),
            Err(e) => Err(e),
        }
    }

    /// The session table.
    pub async fn sessions(&self) -> Result<Vec<Session>, NodeError> {
        self.ask(Procedure::SessionEstablishment(Seid(0)), Command::Sessions)
            .await
    }

    /// The node's counters.
    pub async fn stats(&self) -> Result<Stats, NodeError> {
        self.ask(Procedure::Heartbeat, Command::Stats).await
    }

    /// The control-plane figures: Causes, procedure latencies, sessions lost.
    pub async fn figures(&self) -> Result<Figures, NodeError> {
        self.ask(Procedure::Heartbeat, Command::Figures).await
    }
}

struct ClientTask {
    node: Client,
    events: mpsc::UnboundedSender<Event>,
    waiters: Waiters,
}

impl Task for ClientTask {
    type Node = Client;
    type Command = Command;

    fn node(&mut self) -> &mut Client {
        &mut self.node
    }

    fn on_command(&mut self, c: Command) {
        let now = Instant::now();
        match c {
            Command::Associate(tx) => match self.node.associate(now) {
                Ok(()) => self.waiters.associate = Some(tx),
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::EstablishAll(id, plans, tx, progress) => self.waiters.start_batch(
                id,
                plans.len(),
                Work::Establish(plans.into_iter()),
                BatchReply::Establish(tx),
                progress,
            ),
            Command::Establish(plan, tx) => match self.node.establish(now, &plan) {
                Ok(cp) => self.waiters.wait_session(cp, tx),
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::Modify(cp, req, tx) => match self.node.modify(now, cp, *req) {
                Ok(()) => self.waiters.wait_session(cp, tx),
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::Delete(cp, tx) => match self.node.delete(now, cp) {
                Ok(()) => self.waiters.wait_session(cp, tx),
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            },
            Command::DeleteAll(id, tx, progress) => {
                let targets: Vec<Seid> = self
                    .node
                    .sessions()
                    .filter(|s| s.state == SessionState::Established)
                    .map(|s| s.cp_seid)
                    .collect();
                self.waiters.start_batch(
                    id,
                    targets.len(),
                    Work::Delete(targets.into_iter()),
                    BatchReply::Delete(tx),
                    progress,
                );
            }
            Command::Cancel(id) => self.waiters.cancel(id),
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
            Command::Figures(tx) => {
                let _ = tx.send(self.node.figures().clone());
            }
        }
    }

    fn feed(&mut self) {
        self.waiters.feed(&mut self.node);
    }

    fn on_event(&mut self, e: Event) {
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
