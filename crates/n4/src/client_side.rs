//! The generator's control thread: a tokio runtime owning the PFCP client driver. The run talks
//! to it with requests that answer later ([`Pending`]), so that the
//! main lcore keeps printing progress and noticing interruptions while the UPF works.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};
use upfbench_pfcp::Seid;
use upfbench_pfcp::driver::{
    self, Association, Batch, DeleteAllError, EstablishAllError, PfcpClient, Release,
};
use upfbench_pfcp::ie::NtpTimestamp;
use upfbench_pfcp::message::SessionModificationRequest;
use upfbench_pfcp::node::{ClientConfig, Event, Figures, Session, Stats};
use upfbench_pfcp::plan::UeSessionPlan;

/// Why the control thread did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// Its tokio runtime could not be built.
    #[error("starting the control runtime")]
    Runtime(#[source] std::io::Error),
    /// The thread could not be spawned.
    #[error("starting the control thread")]
    Thread(#[source] std::io::Error),
    /// The thread ended before it said it was ready.
    #[error("the control thread ended before it was ready")]
    Ended,
    /// The system file's N4 address is IPv6.
    #[error("an IPv6 N4 address is not supported yet")]
    Ipv6N4,
    /// The PFCP client's socket could not be bound.
    #[error("binding the PFCP client to {local} (is another one running?)")]
    Bind {
        /// Our N4 address.
        local: SocketAddr,
        /// The socket's error.
        #[source]
        source: std::io::Error,
    },
}

/// The client's settings from the system file.
#[derive(Debug, Clone)]
pub struct ClientSide {
    /// Our N4 address (port 8805).
    pub local: SocketAddr,
    /// The UPF's.
    pub peer: SocketAddr,
    /// T1.
    pub t1: Duration,
    /// N1.
    pub n1: u32,
    /// Our heartbeat interval.
    pub heartbeat: Option<Duration>,
    /// The request window at the start.
    pub initial_window: usize,
    /// The largest request window.
    pub window: usize,
    /// How long the Association Release Request's answer is awaited.
    pub release_wait: Duration,
}

impl ClientSide {
    /// The PFCP client's configuration: our Node ID is the local IPv4 address, `recovery` the
    /// run's Recovery Time Stamp. `None` for an IPv6 local address (not supported yet).
    pub fn client_config(&self, recovery: NtpTimestamp) -> Option<ClientConfig> {
        let SocketAddr::V4(local) = self.local else {
            return None;
        };
        let mut config = ClientConfig::new(*local.ip(), recovery, self.peer);
        config.node.t1 = self.t1;
        config.node.n1 = self.n1;
        config.node.heartbeat_interval = self.heartbeat;
        config.initial_window = self.initial_window;
        config.window = self.window;
        config.release_wait = self.release_wait;
        Some(config)
    }
}

/// An answer that will come from the control thread.
#[derive(Debug)]
pub struct Pending<T>(oneshot::Receiver<T>);

impl<T> Pending<T> {
    /// The answer if it has come; `Err` if the control thread is gone.
    pub fn try_take(&mut self) -> Result<Option<T>, Gone> {
        match self.0.try_recv() {
            Ok(v) => Ok(Some(v)),
            Err(oneshot::error::TryRecvError::Empty) => Ok(None),
            Err(oneshot::error::TryRecvError::Closed) => Err(Gone),
        }
    }

    /// Waits for the answer (not from inside the control thread's runtime).
    pub fn wait(self) -> Result<T, Gone> {
        self.0.blocking_recv().map_err(|_| Gone)
    }
}

/// Establishing every session: progress, cancellation and the result.
pub type Establishment = Batch<Vec<Session>, EstablishAllError>;
/// Deleting every session.
pub type Deletion = Batch<usize, DeleteAllError>;

/// The control thread ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the control thread ended")]
pub struct Gone;

/// One handover as the control thread sends it: a Session Modification Request at a time.
#[derive(Debug, Clone)]
pub struct HandoverOrder {
    /// The moving UE (index), echoed in the outcome.
    pub ue: u32,
    /// When, from the start the handovers are given.
    pub at: Duration,
    /// The session.
    pub cp_seid: Seid,
    /// The modification (a path switch).
    pub request: SessionModificationRequest,
}

/// What came of one handover's modification.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoverOutcome {
    /// The moving UE.
    pub ue: u32,
    /// When the request went to the driver, from the start.
    pub sent_at: Duration,
    /// From the request to its answer: the modification's latency.
    pub latency: Duration,
    /// The UPF refused it, or it timed out: why.
    pub error: Option<String>,
}

/// One churn session as the control thread runs it: established at its time, deleted at its
/// own if it was.
#[derive(Debug, Clone)]
pub struct ChurnSessionOrder {
    /// Its slot among the step's churn sessions, echoed in the outcomes.
    pub slot: u32,
    /// When its establishment is asked for, from the start the orders are given.
    pub establish_at: Duration,
    /// When its deletion is.
    pub delete_at: Duration,
    /// The session.
    pub plan: UeSessionPlan,
}

/// A step's churn: sessions that come and go, modifications of the traffic's sessions.
#[derive(Debug, Clone, Default)]
pub struct ChurnOrders {
    /// The churn sessions, in time order.
    pub sessions: Vec<ChurnSessionOrder>,
    /// The modifications (an [`HandoverOrder`] each, its `ue` the traffic's UE), in time order.
    pub modifications: Vec<HandoverOrder>,
}

/// Which session procedure a churn outcome is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProcedureKind {
    /// A Session Establishment.
    Establishment,
    /// A Session Modification.
    Modification,
    /// A Session Deletion.
    Deletion,
}

/// What came of one procedure of a step's churn.
#[derive(Debug, Clone, PartialEq)]
pub struct ChurnOutcome {
    /// Which procedure.
    pub kind: ProcedureKind,
    /// The churn session's slot, or the modified traffic UE.
    pub index: u32,
    /// When the request went to the driver, from the start.
    pub sent_at: Duration,
    /// From the request to its answer.
    pub latency: Duration,
    /// The UPF refused it, or it timed out: why.
    pub error: Option<String>,
}

enum Command {
    Associate(oneshot::Sender<Result<Association, upfbench_pfcp::node::NodeError>>),
    Handovers(
        Instant,
        Vec<HandoverOrder>,
        oneshot::Sender<Vec<HandoverOutcome>>,
    ),
    Churn(Instant, ChurnOrders, oneshot::Sender<Vec<ChurnOutcome>>),
    Release(oneshot::Sender<Result<Release, upfbench_pfcp::node::NodeError>>),
    Stats(oneshot::Sender<Option<Stats>>),
    Figures(oneshot::Sender<Option<Figures>>),
}

/// What the PFCP client saw unasked (a UPF restart, a heartbeat lost, the UPF's release), and
/// when the control thread took it.
pub type UpfNews = (Instant, Event);

/// The running control thread.
pub struct ClientThread {
    commands: mpsc::UnboundedSender<Command>,
    /// The client's unasked events, for the run to act upon.
    news: Mutex<std::sync::mpsc::Receiver<UpfNews>>,
    /// The driver's handle: batches are started from the caller's thread (the driver takes
    /// them over a channel) so that their progress can be read without asking.
    pfcp: Option<PfcpClient>,
    thread: Option<JoinHandle<()>>,
}

impl ClientThread {
    /// Starts the thread and, when `pfcp` is given, the PFCP client bound to its local address.
    /// Returns once the client is in place (or failed).
    pub fn start(pfcp: Option<ClientSide>) -> Result<ClientThread, StartError> {
        let (commands, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) =
            std::sync::mpsc::channel::<Result<Option<PfcpClient>, StartError>>();
        let (news_tx, news) = std::sync::mpsc::channel::<UpfNews>();
        let thread = std::thread::Builder::new()
            .name("upfbench-n4".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(StartError::Runtime(e)));
                        return;
                    }
                };
                rt.block_on(serve(pfcp, rx, ready_tx, news_tx));
            })
            .map_err(StartError::Thread)?;
        match ready_rx.recv() {
            Ok(Ok(pfcp)) => Ok(ClientThread {
                commands,
                news: Mutex::new(news),
                pfcp,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(StartError::Ended)
            }
        }
    }

    fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Command) -> Pending<T> {
        let (tx, rx) = oneshot::channel();
        let _ = self.commands.send(make(tx));
        Pending(rx)
    }

    /// What the client saw unasked since the last call, in order.
    pub fn news(&self) -> Vec<UpfNews> {
        match self.news.lock() {
            Ok(rx) => rx.try_iter().collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Associates (Association Setup) with the UPF.
    pub fn associate(&self) -> Pending<Result<Association, upfbench_pfcp::node::NodeError>> {
        self.ask(Command::Associate)
    }

    /// Starts establishing one session per plan; `None` without a PFCP client.
    pub fn establish(&self, plans: Vec<UeSessionPlan>) -> Option<Establishment> {
        self.pfcp.as_ref().map(|c| c.start_establish(plans))
    }

    /// Starts deleting every established session; `None` without a PFCP client.
    pub fn delete(&self) -> Option<Deletion> {
        self.pfcp.as_ref().map(PfcpClient::start_delete)
    }

    /// Sends each order's modification at `start + order.at` (its own timer; the answers
    /// are awaited concurrently, so that a slow one holds up none of the later ones); answers
    /// with every outcome once all came. Empty without a PFCP client.
    pub fn handovers(
        &self,
        start: Instant,
        orders: Vec<HandoverOrder>,
    ) -> Pending<Vec<HandoverOutcome>> {
        self.ask(|tx| Command::Handovers(start, orders, tx))
    }

    /// Runs a step's churn from `start`: each churn session established at its time and
    /// deleted at its own, each modification sent at its time, every answer awaited in a task
    /// of its own; answers with every outcome once all came. Empty without a PFCP client.
    pub fn churn(&self, start: Instant, orders: ChurnOrders) -> Pending<Vec<ChurnOutcome>> {
        self.ask(|tx| Command::Churn(start, orders, tx))
    }

    /// Releases the association.
    pub fn release(&self) -> Pending<Result<Release, upfbench_pfcp::node::NodeError>> {
        self.ask(Command::Release)
    }

    /// The control-plane figures, if there is a PFCP client.
    pub fn figures(&self) -> Pending<Option<Figures>> {
        self.ask(Command::Figures)
    }

    /// The node's counters, if there is a PFCP client.
    pub fn stats(&self) -> Pending<Option<Stats>> {
        self.ask(Command::Stats)
    }
}

impl Drop for ClientThread {
    fn drop(&mut self) {
        let (closed, _) = mpsc::unbounded_channel();
        self.commands = closed;
        self.pfcp = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve(
    pfcp: Option<ClientSide>,
    mut commands: mpsc::UnboundedReceiver<Command>,
    ready: std::sync::mpsc::Sender<Result<Option<PfcpClient>, StartError>>,
    news: std::sync::mpsc::Sender<UpfNews>,
) {
    let client = match pfcp {
        None => None,
        Some(side) => {
            let Some(config) = side.client_config(driver::recovery_time_stamp_now()) else {
                let _ = ready.send(Err(StartError::Ipv6N4));
                return;
            };
            match PfcpClient::start(side.local, config).await {
                Ok((client, mut events)) => {
                    tokio::spawn(async move {
                        while let Some(e) = events.recv().await {
                            tracing::debug!("PFCP: {e:?}");
                            // A run that stopped listening wants nothing more.
                            let _ = news.send((Instant::now(), e));
                        }
                    });
                    Some(client)
                }
                Err(e) => {
                    let _ = ready.send(Err(StartError::Bind {
                        local: side.local,
                        source: e,
                    }));
                    return;
                }
            }
        }
    };
    let _ = ready.send(Ok(client.clone()));
    while let Some(c) = commands.recv().await {
        let Some(client) = client.clone() else {
            match c {
                Command::Stats(tx) => {
                    let _ = tx.send(None);
                }
                Command::Figures(tx) => {
                    let _ = tx.send(None);
                }
                Command::Handovers(_, _, tx) => {
                    let _ = tx.send(Vec::new());
                }
                Command::Churn(_, _, tx) => {
                    let _ = tx.send(Vec::new());
                }
                _ => {}
            }
            continue;
        };
        // Each request runs as its own task: a long establishment does not hold up the others.
        tokio::spawn(async move {
            match c {
                Command::Associate(tx) => {
                    let _ = tx.send(client.associate().await);
                }
                Command::Release(tx) => {
                    let _ = tx.send(client.release().await);
                }
                Command::Stats(tx) => {
                    let _ = tx.send(client.stats().await.ok());
                }
                Command::Figures(tx) => {
                    let _ = tx.send(client.figures().await.ok());
                }
                Command::Handovers(start, orders, mut tx) => {
                    let outcomes = handovers(&client, start, orders, &mut tx).await;
                    let _ = tx.send(outcomes);
                }
                Command::Churn(start, orders, mut tx) => {
                    let outcomes = churn(&client, start, orders, &mut tx).await;
                    let _ = tx.send(outcomes);
                }
            }
        });
    }
}

/// Sends the orders at their times, each answer awaited in its own task; sends no more once
/// the caller stopped waiting (`answer` closed: the step ended early).
async fn handovers(
    client: &PfcpClient,
    start: Instant,
    mut orders: Vec<HandoverOrder>,
    answer: &mut oneshot::Sender<Vec<HandoverOutcome>>,
) -> Vec<HandoverOutcome> {
    orders.sort_by_key(|o| o.at);
    let mut tasks = Vec::with_capacity(orders.len());
    for o in orders {
        tokio::select! {
            () = tokio::time::sleep_until(tokio::time::Instant::from_std(start + o.at)) => {}
            () = answer.closed() => break,
        }
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let sent = Instant::now();
            let r = client.modify(o.cp_seid, o.request).await;
            HandoverOutcome {
                ue: o.ue,
                sent_at: sent.saturating_duration_since(start),
                latency: sent.elapsed(),
                error: r.err().map(|e| e.to_string()),
            }
        }));
    }
    let mut out = Vec::with_capacity(tasks.len());
    for t in tasks {
        if let Ok(o) = t.await {
            out.push(o);
        }
    }
    out
}

/// What one procedure of a churn came to, timed from `start`.
async fn timed<T>(
    kind: ProcedureKind,
    index: u32,
    start: Instant,
    procedure: impl Future<Output = Result<T, upfbench_pfcp::node::NodeError>>,
) -> (ChurnOutcome, bool) {
    let sent = Instant::now();
    let r = procedure.await;
    let ok = r.is_ok();
    (
        ChurnOutcome {
            kind,
            index,
            sent_at: sent.saturating_duration_since(start),
            latency: sent.elapsed(),
            error: r.err().map(|e| e.to_string()),
        },
        ok,
    )
}

/// Runs the churn's orders at their times (see [`ClientThread::churn`]); starts no more once
/// the caller stopped waiting (the step ended early: the run's deletion then removes what is
/// left).
async fn churn(
    client: &PfcpClient,
    start: Instant,
    orders: ChurnOrders,
    answer: &mut oneshot::Sender<Vec<ChurnOutcome>>,
) -> Vec<ChurnOutcome> {
    enum Next {
        Session(ChurnSessionOrder),
        Modify(Box<HandoverOrder>),
    }
    let at = |n: &Next| match n {
        Next::Session(s) => s.establish_at,
        Next::Modify(m) => m.at,
    };
    let mut next: Vec<Next> = orders
        .sessions
        .into_iter()
        .map(Next::Session)
        .chain(
            orders
                .modifications
                .into_iter()
                .map(|m| Next::Modify(Box::new(m))),
        )
        .collect();
    next.sort_by_key(at);
    let mut tasks = Vec::with_capacity(next.len());
    for n in next {
        tokio::select! {
            () = tokio::time::sleep_until(tokio::time::Instant::from_std(start + at(&n))) => {}
            () = answer.closed() => break,
        }
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            match n {
                Next::Modify(o) => {
                    let modify = client.modify(o.cp_seid, o.request);
                    vec![
                        timed(ProcedureKind::Modification, o.ue, start, modify)
                            .await
                            .0,
                    ]
                }
                Next::Session(o) => {
                    let cp_seid = o.plan.cp_seid();
                    let establish = client.establish(o.plan);
                    let (est, ok) =
                        timed(ProcedureKind::Establishment, o.slot, start, establish).await;
                    if !ok {
                        return vec![est];
                    }
                    tokio::time::sleep_until(tokio::time::Instant::from_std(start + o.delete_at))
                        .await;
                    let delete = client.delete(cp_seid);
                    let del = timed(ProcedureKind::Deletion, o.slot, start, delete)
                        .await
                        .0;
                    vec![est, del]
                }
            }
        }));
    }
    let mut out = Vec::with_capacity(tasks.len() * 2);
    for t in tasks {
        if let Ok(o) = t.await {
            out.extend(o);
        }
    }
    out
}
