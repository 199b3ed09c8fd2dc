//! The generator's control thread: a tokio runtime owning the PFCP client driver and the signal
//! handlers. The run talks to it with requests that answer later ([`Pending`]), so that the
//! main lcore keeps printing progress and noticing interruptions while the UPF works.

use std::net::SocketAddr;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use tokio::sync::{mpsc, oneshot};
use upfbench_pfcp::driver::{
    self, Association, DeleteAllError, EstablishAllError, PfcpClient, Release,
};
use upfbench_pfcp::node::{ClientConfig, Session, Stats};
use upfbench_pfcp::plan::UeSessionPlan;

use super::signals::Interrupts;

/// The client's settings from the system file.
#[derive(Debug, Clone)]
pub struct ClientSide {
    /// Our N4 address (port 8805).
    pub local: SocketAddr,
    /// The UPF's.
    pub peer: SocketAddr,
    /// T1.
    pub t1: std::time::Duration,
    /// N1.
    pub n1: u32,
    /// Our heartbeat interval.
    pub heartbeat: Option<std::time::Duration>,
    /// The largest request window.
    pub window: usize,
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
}

/// The control thread ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the control thread ended")]
pub struct Gone;

enum Command {
    Associate(oneshot::Sender<Result<Association, upfbench_pfcp::node::NodeError>>),
    Establish(
        Vec<UeSessionPlan>,
        oneshot::Sender<Result<Vec<Session>, EstablishAllError>>,
    ),
    Delete(oneshot::Sender<Result<usize, DeleteAllError>>),
    Release(oneshot::Sender<Result<Release, upfbench_pfcp::node::NodeError>>),
    Stats(oneshot::Sender<Option<Stats>>),
}

/// The running control thread.
pub struct ClientThread {
    commands: mpsc::UnboundedSender<Command>,
    thread: Option<JoinHandle<()>>,
}

impl ClientThread {
    /// Starts the thread with the signal handlers and, when `pfcp` is given, the PFCP client
    /// bound to its local address. Returns once both are in place (or failed).
    pub fn start(pfcp: Option<ClientSide>, interrupts: Interrupts) -> Result<ClientThread> {
        let (commands, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<()>>();
        let thread = std::thread::Builder::new()
            .name("upfbench-n4".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e).context("starting the control runtime"));
                        return;
                    }
                };
                rt.block_on(serve(pfcp, interrupts, rx, ready_tx));
            })
            .context("starting the control thread")?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(ClientThread {
                commands,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                anyhow::bail!("the control thread ended before it was ready")
            }
        }
    }

    fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Command) -> Pending<T> {
        let (tx, rx) = oneshot::channel();
        let _ = self.commands.send(make(tx));
        Pending(rx)
    }

    /// Associates (Association Setup) with the UPF.
    pub fn associate(&self) -> Pending<Result<Association, upfbench_pfcp::node::NodeError>> {
        self.ask(Command::Associate)
    }

    /// Establishes one session per plan.
    pub fn establish(
        &self,
        plans: Vec<UeSessionPlan>,
    ) -> Pending<Result<Vec<Session>, EstablishAllError>> {
        self.ask(|tx| Command::Establish(plans, tx))
    }

    /// Deletes every established session.
    pub fn delete(&self) -> Pending<Result<usize, DeleteAllError>> {
        self.ask(Command::Delete)
    }

    /// Releases the association.
    pub fn release(&self) -> Pending<Result<Release, upfbench_pfcp::node::NodeError>> {
        self.ask(Command::Release)
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
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve(
    pfcp: Option<ClientSide>,
    interrupts: Interrupts,
    mut commands: mpsc::UnboundedReceiver<Command>,
    ready: std::sync::mpsc::Sender<Result<()>>,
) {
    if let Err(e) = interrupts.listen() {
        let _ = ready.send(Err(e).context("installing the signal handlers"));
        return;
    }
    let client = match pfcp {
        None => None,
        Some(side) => {
            let SocketAddr::V4(local) = side.local else {
                let _ = ready.send(Err(anyhow::anyhow!(
                    "an IPv6 N4 address is not supported yet"
                )));
                return;
            };
            let mut config =
                ClientConfig::new(*local.ip(), driver::recovery_time_stamp_now(), side.peer);
            config.node.t1 = side.t1;
            config.node.n1 = side.n1;
            config.node.heartbeat_interval = side.heartbeat;
            config.window = side.window;
            match PfcpClient::start(side.local, config).await {
                Ok((client, mut events)) => {
                    tokio::spawn(async move {
                        while let Some(e) = events.recv().await {
                            tracing::warn!("PFCP: {e:?}");
                        }
                    });
                    Some(client)
                }
                Err(e) => {
                    let _ = ready.send(Err(e).with_context(|| {
                        format!(
                            "binding the PFCP client to {} (is another one running?)",
                            side.local
                        )
                    }));
                    return;
                }
            }
        }
    };
    let _ = ready.send(Ok(()));
    while let Some(c) = commands.recv().await {
        let Some(client) = client.clone() else {
            if let Command::Stats(tx) = c {
                let _ = tx.send(None);
            }
            continue;
        };
        // Each request runs as its own task: a long establishment does not hold up the others.
        tokio::spawn(async move {
            match c {
                Command::Associate(tx) => {
                    let _ = tx.send(client.associate().await);
                }
                Command::Establish(plans, tx) => {
                    let _ = tx.send(client.establish_all(plans).await);
                }
                Command::Delete(tx) => {
                    let _ = tx.send(client.delete_all().await);
                }
                Command::Release(tx) => {
                    let _ = tx.send(client.release().await);
                }
                Command::Stats(tx) => {
                    let _ = tx.send(client.stats().await.ok());
                }
            }
        });
    }
}
