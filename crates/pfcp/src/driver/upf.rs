//! The UPF-side driver, for the reflector: serves PFCP on N4 and exposes the rules table and
//! its change events.

use std::io;
use std::net::SocketAddr;

use tokio::sync::{mpsc, oneshot};

use super::io::Io;
use super::task::{self, Task};
use crate::ie::NtpTimestamp;
use crate::node::{
    FaultCounters, FaultyUpf, N4Faults, RuleChange, RulesTable, Stats, Upf, UpfConfig, UpfEvent,
};

enum Command {
    Rules(oneshot::Sender<RulesTable>),
    Stats(oneshot::Sender<Stats>),
    Faults(oneshot::Sender<FaultCounters>),
    Restart(oneshot::Sender<usize>),
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

/// Puts a batch of rule changes (in the order the requests were applied) in effect in a
/// datapath, and returns once they are: the answers to those requests wait for it. It runs on
/// the driver's task, which it blocks meanwhile: a datapath takes microseconds.
pub type ApplyRules = Box<dyn FnMut(&[RuleChange]) + Send>;

/// Binds `local` and serves PFCP as a UPF on the current tokio runtime; the rule changes go to
/// [`UpfChannels::changes`], and the answers go out without waiting for anything to apply them.
pub async fn serve(local: SocketAddr, config: UpfConfig) -> io::Result<(UpfServer, UpfChannels)> {
    start(local, config, None, N4Faults::default()).await
}

/// Binds `local` and serves PFCP as a UPF whose rules take effect before it answers, as an
/// SMF may assume of a real one: the changes that a burst of requests made are handed to
/// `apply` in one batch, after the requests were handled and before any answer is sent, so a
/// peer that sends traffic on an answer finds the rules in place. [`UpfChannels::changes`]
/// stays empty.
pub async fn serve_applying(
    local: SocketAddr,
    config: UpfConfig,
    apply: ApplyRules,
) -> io::Result<(UpfServer, UpfChannels)> {
    start(local, config, Some(apply), N4Faults::default()).await
}

/// Like [`serve_applying`] (or [`serve`] without `apply`), behind N4 faults put in on purpose
/// (see [`N4Faults`]; their times count from now).
pub async fn serve_faulty(
    local: SocketAddr,
    config: UpfConfig,
    apply: Option<ApplyRules>,
    faults: N4Faults,
) -> io::Result<(UpfServer, UpfChannels)> {
    start(local, config, apply, faults).await
}

async fn start(
    local: SocketAddr,
    config: UpfConfig,
    apply: Option<ApplyRules>,
    faults: N4Faults,
) -> io::Result<(UpfServer, UpfChannels)> {
    let io = Io::bind(local).await?;
    let local = io.socket.local_addr()?;
    let (commands, rx) = mpsc::unbounded_channel();
    let (events, events_rx) = mpsc::unbounded_channel();
    let (changes, changes_rx) = mpsc::unbounded_channel();
    let task = UpfTask {
        node: FaultyUpf::new(Upf::new(config), faults, std::time::Instant::now()),
        events,
        changes,
        apply,
        batch: Vec::new(),
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

    /// What the N4 faults did so far.
    pub async fn fault_counters(&self) -> Result<FaultCounters, Stopped> {
        self.ask(Command::Faults).await
    }

    /// Restarts the UPF now, as a real one that crashed and came back: every session and the
    /// association dropped, a new Recovery Time Stamp (`recovery_time_stamp_now`, or one second
    /// after the old one). Returns the sessions dropped.
    pub async fn restart(&self) -> Result<usize, Stopped> {
        self.ask(Command::Restart).await
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
    node: FaultyUpf,
    events: mpsc::UnboundedSender<UpfEvent>,
    changes: mpsc::UnboundedSender<RuleChange>,
    apply: Option<ApplyRules>,
    /// The changes since the last flush, for `apply`.
    batch: Vec<RuleChange>,
}

impl Task for UpfTask {
    type Node = FaultyUpf;
    type Command = Command;

    fn node(&mut self) -> &mut FaultyUpf {
        &mut self.node
    }

    fn on_event(&mut self, e: UpfEvent) {
        // A receiver that was dropped wants nothing more: not an error.
        let _ = match e {
            UpfEvent::Rules(c) if self.apply.is_some() => {
                self.batch.push(c);
                Ok(())
            }
            UpfEvent::Rules(c) => self.changes.send(c).map_err(|_| ()),
            e => self.events.send(e).map_err(|_| ()),
        };
    }

    fn settle(&mut self) {
        if let Some(apply) = &mut self.apply
            && !self.batch.is_empty()
        {
            apply(&self.batch);
            self.batch.clear();
        }
    }

    fn on_command(&mut self, c: Command) {
        // A caller that stopped waiting is not an error.
        match c {
            Command::Rules(tx) => {
                let _ = tx.send(self.node.upf().rules().clone());
            }
            Command::Stats(tx) => {
                let _ = tx.send(self.node.upf().stats());
            }
            Command::Faults(tx) => {
                let _ = tx.send(self.node.counters());
            }
            Command::Restart(tx) => {
                let now: NtpTimestamp = super::recovery_time_stamp_now();
                let _ = tx.send(self.node.restart(now));
            }
        }
    }
}
