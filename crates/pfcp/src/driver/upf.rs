//! The UPF-side driver, for the reflector: serves PFCP on N4 and exposes the rules table and
//! its change events.

use std::io;
use std::net::SocketAddr;

use tokio::sync::{mpsc, oneshot};

use super::io::Io;
use super::task::{self, Task};
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
    let task = UpfTask {
        node: Upf::new(config),
        events,
        changes,
    };
    tokio::spawn(task::run(task, io, rx));
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
        self.ask(Command::Rules).await
    }

    /// The node's counters.
    pub async fn stats(&self) -> Result<Stats, Stopped> {
        self.ask(Command::Stats).await
    }

    async fn ask<R>(
        &self,
        command: impl FnOnce(oneshot::Sender<R>) -> Command,
    ) -> Result<R, Stopped> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(command(tx)).map_err(|_| Stopped)?;
        rx.await.map_err(|_| Stopped)
    }
}

struct UpfTask {
    node: Upf,
    events: mpsc::UnboundedSender<UpfEvent>,
    changes: mpsc::UnboundedSender<RuleChange>,
}

impl Task for UpfTask {
    type Node = Upf;
    type Command = Command;

    fn node(&mut self) -> &mut Upf {
        &mut self.node
    }

    fn on_event(&mut self, e: UpfEvent) {
        // A receiver that was dropped wants nothing more: not an error.
        let _ = match e {
            UpfEvent::Rules(c) => self.changes.send(c).map_err(|_| ()),
            e => self.events.send(e).map_err(|_| ()),
        };
    }

    fn on_command(&mut self, c: Command) {
        // A caller that stopped waiting is not an error.
        match c {
            Command::Rules(tx) => {
                let _ = tx.send(self.node.rules().clone());
            }
            Command::Stats(tx) => {
                let _ = tx.send(self.node.stats());
            }
        }
    }
}
