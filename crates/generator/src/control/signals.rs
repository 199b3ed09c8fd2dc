//! Ctrl-C and SIGTERM: counted, not acted upon here. The run reads the count between its steps;
//! the first interruption takes the run down the short way (stop sending, drain, report,
//! delete the sessions), a second one skips the rest of the teardown.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::signal::unix::{SignalKind, signal};

/// How many interruptions arrived; cheap to clone and read from any thread.
#[derive(Debug, Clone, Default)]
pub struct Interrupts(Arc<AtomicU32>);

impl Interrupts {
    /// No interruption yet.
    pub fn new() -> Interrupts {
        Interrupts::default()
    }

    /// Interruptions so far.
    pub fn count(&self) -> u32 {
        self.0.load(Ordering::Acquire)
    }

    /// Counts one (what a signal does; tests call it directly).
    pub fn raise(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }

    /// Installs the SIGINT and SIGTERM handlers on the current tokio runtime: from now on
    /// each signal counts one interruption instead of ending the process.
    pub fn listen(&self) -> std::io::Result<()> {
        let mut int = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    s = int.recv() => if s.is_none() { return },
                    s = term.recv() => if s.is_none() { return },
                }
                me.raise();
            }
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_counts_one_interruption() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let i = Interrupts::new();
        rt.block_on(async {
            i.listen().unwrap();
            // SIGTERM to ourselves: the handler counts it instead of ending the process.
            let pid = std::process::id().to_string();
            let status = std::process::Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap();
            assert!(status.success());
            for _ in 0..200 {
                if i.count() == 1 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        });
        assert_eq!(i.count(), 1);
    }
}
