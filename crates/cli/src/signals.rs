//! Ctrl-C and SIGTERM: counted, not acted upon here. The run reads the count between its steps
//! and in every wait; the first interruption takes the run down the short way (stop sending,
//! drain, report, delete the sessions), a second one skips the rest of the teardown.
//!
//! The handlers are installed before anything else (before EAL): a signal's default action
//! would end the process where it stands, leaving EAL's runtime files, the UPF's sessions and
//! no report behind.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::signal::unix::{SignalKind, signal};

/// How many interruptions arrived; cheap to clone and read from any thread.
#[derive(Debug, Clone, Default)]
pub struct Interrupts(Arc<AtomicU32>);

impl Interrupts {
    /// No interruption yet, and no handler: [`raise`](Self::raise) is the only source (tests).
    pub fn new() -> Interrupts {
        Interrupts::default()
    }

    /// Installs the SIGINT and SIGTERM handlers on a thread of their own, for the rest of the
    /// process: from the return on, each signal counts one interruption instead of ending the
    /// process.
    pub fn install() -> std::io::Result<Interrupts> {
        let me = Interrupts::new();
        let counter = me.clone();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<std::io::Result<()>>();
        std::thread::Builder::new()
            .name("upfbench-signals".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                rt.block_on(async move {
                    let (mut int, mut term) = match (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                    ) {
                        (Ok(i), Ok(t)) => (i, t),
                        (Err(e), _) | (_, Err(e)) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = ready_tx.send(Ok(()));
                    loop {
                        tokio::select! {
                            s = int.recv() => if s.is_none() { return },
                            s = term.recv() => if s.is_none() { return },
                        }
                        counter.raise();
                    }
                });
            })?;
        match ready_rx.recv() {
            Ok(r) => r.map(|()| me),
            Err(_) => Err(std::io::Error::other(
                "the signal thread ended before its handlers were installed",
            )),
        }
    }

    /// Interruptions so far.
    pub fn count(&self) -> u32 {
        self.0.load(Ordering::Acquire)
    }

    /// Whether there was at least one.
    pub fn any(&self) -> bool {
        self.count() > 0
    }

    /// Counts one (what a signal does; tests call it directly).
    pub fn raise(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_counts_one_interruption_instead_of_ending_the_process() {
        let i = Interrupts::install().unwrap();
        // SIGTERM to ourselves: without the handler the test process would end here. The shell's
        // own `kill`, not procps' (a minimal Debian has none).
        let kill = format!("kill -TERM {}", std::process::id());
        let status = std::process::Command::new("sh")
            .args(["-c", &kill])
            .status()
            .unwrap();
        assert!(status.success());
        for _ in 0..200 {
            if i.count() == 1 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(i.count(), 1);
        assert!(i.any());
    }
}
