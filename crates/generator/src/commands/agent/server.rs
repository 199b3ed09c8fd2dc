//! The API's server on a thread of its own (a tokio runtime), so that the main lcore is free
//! to run what it is asked for: bound before the agent says it is ready (an address in use
//! stops the agent at once), stopped when dropped.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{Context, Result, anyhow};
use tokio::sync::oneshot;
use upfbench_remote::{Agent, Server, ServerConfig};

/// The running server.
pub(crate) struct ApiServer {
    address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ApiServer {
    /// Binds `config.listen` (its guard's rule checked) and serves `agent` there.
    pub(crate) fn start(config: ServerConfig, agent: Arc<dyn Agent>) -> Result<ApiServer> {
        let (ready_tx, ready) = std::sync::mpsc::channel::<Result<SocketAddr>>();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("upfbench-api".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e).context("starting the API's runtime"));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let server = match Server::bind(config).await {
                        Ok(s) => s,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.into()));
                            return;
                        }
                    };
                    let _ = ready_tx.send(server.local_addr().context("the API's address"));
                    server
                        .serve(agent, async {
                            let _ = stopped.await;
                        })
                        .await;
                });
            })
            .context("starting the API's thread")?;
        match ready.recv() {
            Ok(Ok(address)) => Ok(ApiServer {
                address,
                stop: Some(stop),
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err(anyhow!("the API's thread ended before it was ready"))
            }
        }
    }

    /// Where it listens (its port when the address said 0).
    pub(crate) fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
