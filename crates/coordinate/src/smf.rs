//! PFCP as one SMF (docs/scale.md §3, `pfcp.mode: coordinator`): the coordinator holds the one
//! association and every session, through `crates/n4`'s control thread: associate, establish
//! the plans of [`gnbs`](crate::gnbs), and after the run delete them all (a lost agent's too:
//! it holds them) and release.

use std::net::SocketAddr;

use thiserror::Error;
use upfbench_config::{Cluster, PfcpMode};
use upfbench_n4::client_side::{ClientSide, ClientThread, Gone, Pending, StartError};
use upfbench_pfcp::driver::{DeleteAllError, EstablishAllError, Release};
use upfbench_pfcp::node::{
    DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_INITIAL_WINDOW, DEFAULT_N1, DEFAULT_RELEASE_WAIT,
    DEFAULT_T1, DEFAULT_WINDOW, NodeError, Session,
};
use upfbench_pfcp::plan::UeSessionPlan;

/// What went wrong on N4.
#[derive(Debug, Error)]
pub enum SmfError {
    /// The control thread did not start (the local address cannot be bound).
    #[error("PFCP: {0}")]
    Start(#[from] StartError),
    /// The control thread ended.
    #[error("PFCP: the control thread ended")]
    Gone,
    /// The association failed.
    #[error("PFCP association: {0}")]
    Associate(NodeError),
    /// An establishment failed.
    #[error("PFCP establishment: {0}")]
    Establish(EstablishAllError),
    /// A deletion failed.
    #[error("PFCP deletion: {0}")]
    Delete(DeleteAllError),
    /// The release failed.
    #[error("PFCP release: {0}")]
    Release(NodeError),
}

impl From<Gone> for SmfError {
    fn from(_: Gone) -> SmfError {
        SmfError::Gone
    }
}

/// The N4 client's settings for `pfcp.mode: coordinator` (`local`, `peer`, the PFCP defaults);
/// `None` for `pfcp.mode: agents` (each agent associates on its own).
pub fn client_side(cluster: &Cluster) -> Option<ClientSide> {
    let p = &cluster.pfcp;
    let (PfcpMode::Coordinator, Some(local), Some(peer)) = (p.mode, p.local, p.peer) else {
        return None;
    };
    Some(ClientSide {
        local,
        peer,
        t1: DEFAULT_T1,
        n1: DEFAULT_N1,
        heartbeat: Some(DEFAULT_HEARTBEAT_INTERVAL),
        initial_window: DEFAULT_INITIAL_WINDOW,
        window: DEFAULT_WINDOW,
        release_wait: DEFAULT_RELEASE_WAIT,
    })
}

/// The one SMF: the control thread, associated.
pub struct Smf {
    thread: ClientThread,
    /// The UPF's N4 address.
    pub peer: SocketAddr,
}

impl std::fmt::Debug for Smf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Smf").field("peer", &self.peer).finish()
    }
}

/// Waits for the control thread's answer without holding up the caller's runtime.
async fn answer<T: Send + 'static>(pending: Pending<T>) -> Result<T, SmfError> {
    tokio::task::spawn_blocking(move || pending.wait())
        .await
        .map_err(|_| SmfError::Gone)?
        .map_err(SmfError::from)
}

impl Smf {
    /// Starts the control thread and associates with the UPF.
    pub async fn associate(side: ClientSide) -> Result<Smf, SmfError> {
        let peer = side.peer;
        let thread = tokio::task::spawn_blocking(move || ClientThread::start(Some(side)))
            .await
            .map_err(|_| SmfError::Gone)??;
        answer(thread.associate())
            .await?
            .map_err(SmfError::Associate)?;
        Ok(Smf { thread, peer })
    }

    /// Establishes one session per plan; the sessions as the UPF answered them (its uplink
    /// TEIDs when it chose them).
    pub async fn establish(&self, plans: Vec<UeSessionPlan>) -> Result<Vec<Session>, SmfError> {
        let batch = self.thread.establish(plans).ok_or(SmfError::Gone)?;
        batch.finish().await.map_err(SmfError::Establish)
    }

    /// Deletes every session established and releases the association: the number deleted and
    /// how the release ended.
    pub async fn end(self) -> Result<(usize, Release), SmfError> {
        let batch = self.thread.delete().ok_or(SmfError::Gone)?;
        let deleted = batch.finish().await.map_err(SmfError::Delete)?;
        let release = answer(self.thread.release())
            .await?
            .map_err(SmfError::Release)?;
        let thread = self.thread;
        // Joining the control thread blocks: not on the caller's runtime.
        let _ = tokio::task::spawn_blocking(move || drop(thread)).await;
        Ok((deleted, release))
    }
}
