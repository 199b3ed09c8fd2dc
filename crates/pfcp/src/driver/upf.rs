//! The UPF-side driver, for the reflector: serves PFCP on N4 and exposes the rules table and
//! its change events.

use std::io;
use std::net::SocketAddr;

use tokio::sync::{mpsc, oneshot};

use super::io::{Io, sleep_until};
use crate::node::{RuleChange, RulesTable, Stats, Upf, UpfConfig, UpfEvent};

enum Command {
    Rules(oneshot::Sender<RulesTable>),
    Stats(oneshot::Sender<Stats>),
}

/// A handle to the UPF-side task; the task ends when every handle is dropped.
#[derive(Debug, Clone)]
pub struct UpfServer {
    commands: mpsc::UnboundedSender<Command>,
    local: SocketAddr,
}

/// What the UPF side reports.
#[derive(Debug)]
pub struct UpfChannels {
    /// Association, release, restart and heartbeat events.
    pub events: mpsc::UnboundedReceiver<UpfEvent>,
    /// One change per applied establishment, modification, deletion, in order: a datapath
    /// mirrors the table from a [`UpfServer::rules`] snapshot taken before it starts reading.
    pub changes: mpsc::UnboundedReceiver<RuleChange>,
}

/// Binds `local` and serves PFCP as a UPF on the current tokio runtime.
pub async fn serve(local: SocketAddr, config: UpfConfig) -> io::Result<(UpfServer, UpfChannels)> {
    let io = Io::bind(local).await?;
    let local = io.socket.local_addr()?;
    let (commands, rx) = mpsc::unbounded_channel();
    let (events, events_rx) = mpsc::unbounded_channel();
    let (changes, changes_rx) = mpsc::unbounded_channel();
    let task = Task {
        node: Upf::new(config),
        io,
        events,
        changes,
    };
    tokio::spawn(task.run(rx));
    Ok((
        UpfServer { commands, local },
        UpfChannels {
            events: events_rx,
            changes: changes_rx,
        },
    ))
}

/// The driver stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the PFCP UPF-side driver stopped")]
pub struct Stopped;

impl UpfServer {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// A copy of the rules table.
    pub async fn rules(&self) -> Result<RulesTable, Stopped> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Rules(tx))
            .map_err(|_| Stopped)?;
        rx.await.map_err(|_| Stopped)
    }

    /// The node's counters.
    pub async fn stats(&self) -> Result<Stats, Stopped> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send(Command::Stats(tx))
            .map_err(|_| Stopped)?;
        rx.await.map_err(|_| Stopped)
    }
}

struct Task {
    node: Upf,
    io: Io,
    events: mpsc::UnboundedSender<UpfEvent>,
    changes: mpsc::UnboundedSender<RuleChange>,
}

impl Task {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) {
        loop {
            Io::timers(&mut self.node);
            while let Some(e) = self.node.poll_event() {
                // A receiver that was dropped wants nothing more: not an error.
                let _ = match e {
                    UpfEvent::Rules(c) => self.changes.send(c).map_err(|_| ()),
                    e => self.events.send(e).map_err(|_| ()),
                };
            }
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
                    Some(Command::Rules(tx)) => {
                        let _ = tx.send(self.node.rules().clone());
                    }
                    Some(Command::Stats(tx)) => {
                        let _ = tx.send(self.node.stats());
                    }
                    None => break,
                },
                () = sleep_until(deadline) => {}
            }
        }
    }
}
