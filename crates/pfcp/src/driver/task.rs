//! The loop both drivers run: a node, its socket, its timers, and the commands of its handles.

use std::time::Instant;

use tokio::sync::mpsc;

use super::io::Io;
use super::sans_io::SansIo;

/// A driver's task: its node, and what it makes of the node's events and of its handles'
/// commands.
pub(crate) trait Task {
    type Node: SansIo;
    type Command;
    fn node(&mut self) -> &mut Self::Node;
    fn on_event(&mut self, event: <Self::Node as SansIo>::Event);
    fn on_command(&mut self, command: Self::Command);
    /// Hands the node more work before each flush (the client's batch backlog).
    fn feed(&mut self) {}
    /// Does, after the node's events and before its datagrams go out, what must be done before
    /// its answers are sent (the UPF side's rule changes put in effect).
    fn settle(&mut self) {}
}

/// Runs a task until its socket fails or every handle is dropped: due timers, events, new
/// work, everything queued sent; then waits for a datagram, a command or the next deadline.
pub(crate) async fn run<T: Task>(
    mut task: T,
    mut io: Io,
    mut commands: mpsc::UnboundedReceiver<T::Command>,
) {
    loop {
        Io::timers(task.node());
        while let Some(e) = task.node().poll_event() {
            task.on_event(e);
        }
        task.feed();
        task.settle();
        io.flush(task.node()).await;
        let deadline = task.node().poll_timeout();
        tokio::select! {
            biased;
            r = io.socket.readable() => match r {
                Ok(()) => io.drain(task.node()),
                Err(e) => {
                    tracing::error!(error = %e, "PFCP socket failed");
                    break;
                }
            },
            c = commands.recv() => match c {
                Some(c) => {
                    task.on_command(c);
                    while let Ok(c) = commands.try_recv() {
                        task.on_command(c);
                    }
                }
                None => break,
            },
            () = sleep_until(deadline) => {}
        }
    }
}

/// Sleeps until `deadline`, or forever.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(tokio::time::Instant::from_std(d)).await,
        None => core::future::pending().await,
    }
}
