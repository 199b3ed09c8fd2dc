//! The reflector's control thread: the PFCP UPF side on N4, and the rules it installs mirrored
//! into the workers' forwarding table.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::oneshot;
use upfbench_dpdk::grace_period;
use upfbench_pfcp::driver;
use upfbench_pfcp::ie::DnsName;
use upfbench_pfcp::node::{FaultCounters, N4Faults, Stats, UpfConfig, UpfEvent};
use upfbench_pfcp::{Seid, Teid};

use crate::datapath::reflector::rules::{RulesMirror, TablePublisher};

/// What the UPF side needs.
#[derive(Debug, Clone)]
pub struct UpfSide {
    /// Where it listens (port 8805).
    pub local: SocketAddr,
    /// The one CP function allowed to associate.
    pub peer: std::net::IpAddr,
    /// Our N3 address (CH=1 F-TEIDs).
    pub n3: Ipv4Addr,
    /// First TEID allocated for CH=1.
    pub first_teid: Teid,
    /// First UP SEID.
    pub first_seid: Seid,
    /// Our Heartbeat Requests' interval.
    pub heartbeat: Option<Duration>,
    /// The network instances served (any when empty).
    pub network_instances: Vec<DnsName>,
    /// Faults on N4 put in on purpose (none by default).
    pub faults: N4Faults,
    /// The most sessions held at once (`None`: no limit).
    pub max_sessions: Option<usize>,
}

/// The running control thread.
pub struct UpfThread {
    thread: Option<JoinHandle<Result<()>>>,
    stop: Option<oneshot::Sender<()>>,
}

impl UpfThread {
    /// Starts the thread: the PFCP UPF side when `pfcp` is given, whose rule changes go to
    /// `publisher`. Returns once the N4 socket is bound (or failed to bind).
    pub fn start(pfcp: Option<UpfSide>, publisher: TablePublisher) -> Result<UpfThread> {
        let (stop_tx, stop_rx) = oneshot::channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<()>>();
        let thread = std::thread::Builder::new()
            .name("upfbench-n4".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("starting the control thread's runtime")?;
                rt.block_on(serve(pfcp, publisher, stop_rx, ready_tx))
            })
            .context("starting the control thread")?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(UpfThread {
                thread: Some(thread),
                stop: Some(stop_tx),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => match thread.join() {
                Ok(Err(e)) => Err(e),
                _ => anyhow::bail!("the control thread ended before it was ready"),
            },
        }
    }

    /// Stops the thread and returns how it ended.
    pub fn stop(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| anyhow::anyhow!("the control thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for UpfThread {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

async fn serve(
    pfcp: Option<UpfSide>,
    mut publisher: TablePublisher,
    mut stop: oneshot::Receiver<()>,
    ready: std::sync::mpsc::Sender<Result<()>>,
) -> Result<()> {
    let Some(side) = pfcp else {
        let _ = ready.send(Ok(()));
        let _ = stop.await;
        return Ok(());
    };
    let n4 = match side.local {
        SocketAddr::V4(a) => *a.ip(),
        SocketAddr::V6(_) => {
            let _ = ready.send(Err(anyhow::anyhow!(
                "an IPv6 N4 address is not supported yet"
            )));
            return Ok(());
        }
    };
    let mut config = UpfConfig::new(n4, side.n3, driver::recovery_time_stamp_now(), side.peer);
    config.first_teid = side.first_teid;
    config.first_seid = side.first_seid;
    config.node.heartbeat_interval = side.heartbeat;
    config.network_instances = side.network_instances;
    config.max_sessions = side.max_sessions;
    // A rule is in effect in every worker before its request is answered: the changes a burst
    // of requests made become one table, which every worker has taken (a grace period: each
    // passed a quiescent point after it was published, and takes a new table right there)
    // before the answers go out. Publishing on a timer instead left up to 5 ms between
    // "Request accepted" and the rule, and a peer's first packets met an unknown TEID.
    let sessions = Arc::new(AtomicUsize::new(0));
    let mirrored = Arc::clone(&sessions);
    let mut mirror = RulesMirror::default();
    let apply: driver::ApplyRules = Box::new(move |changes| {
        for c in changes {
            mirror.apply(c);
        }
        mirrored.store(mirror.sessions(), Ordering::Relaxed);
        if let Some(t) = mirror.snapshot() {
            publisher.publish(t);
            grace_period();
            publisher.retire();
        }
    });
    let faults = side.faults;
    let (server, mut channels) =
        match driver::serve_faulty(side.local, config, Some(apply), faults).await {
            Ok(s) => s,
            Err(e) => {
                let _ = ready.send(Err(e).with_context(|| {
                    format!(
                        "binding the PFCP server to {} (is another one running?)",
                        side.local
                    )
                }));
                return Ok(());
            }
        };
    // SIGUSR1 restarts the UPF side, as a UPF that crashed and came back.
    let mut usr1 = match signal(SignalKind::user_defined1()) {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e).context("installing the SIGUSR1 handler"));
            return Ok(());
        }
    };
    let _ = ready.send(Ok(()));
    // The faults' times count from here: a test reads this time.
    tracing::info!(
        "PFCP: serving N4 on {} for {} from unix_ms {}{}",
        server.local_addr(),
        side.peer,
        unix_ms(),
        if faults.is_active() {
            format!(", N4 faults {faults:?}")
        } else {
            String::new()
        }
    );
    loop {
        tokio::select! {
            _ = &mut stop => break,
            _ = usr1.recv() => {
                // The Restarted event logs it.
                let _ = server.restart().await;
            }
            event = channels.events.recv() => match event {
                Some(e) => log_event(&e, sessions.load(Ordering::Relaxed)),
                None => break,
            },
        }
    }
    if let Ok(stats) = server.stats().await {
        tracing::info!("{}", totals_line(&stats));
    }
    if faults.is_active()
        && let Ok(f) = server.fault_counters().await
    {
        tracing::info!("{}", faults_line(&f));
    }
    Ok(())
}

/// What the N4 faults did over the run.
fn faults_line(f: &FaultCounters) -> String {
    format!(
        "PFCP: N4 faults: datagrams dropped in {}, out {}; reordered {}; silenced {}; restarts {}",
        f.dropped_in, f.dropped_out, f.reordered, f.silenced, f.restarts
    )
}

/// Now, in milliseconds since the Unix epoch, for the log lines a test compares with a report.
fn unix_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// What the UPF side did over the run, for the log at exit: a tester (or a test) learns from it
/// how many requests reached the UPF, e.g. that a run stopped at the first rejected session.
fn totals_line(s: &Stats) -> String {
    format!(
        "PFCP: totals: sessions established {}, modified {}, deleted {}; requests rejected {}, \
         answered again from the cache {}, unreadable {}; heartbeats answered {}",
        s.sessions_established,
        s.sessions_modified,
        s.sessions_deleted,
        s.rejected,
        s.answered_from_cache,
        s.invalid,
        s.heartbeats_answered
    )
}

fn log_event(e: &UpfEvent, sessions: usize) {
    match e {
        UpfEvent::Associated { peer, .. } => tracing::info!("PFCP: associated with {peer}"),
        UpfEvent::Released {
            peer,
            sessions_removed,
        } => tracing::info!(
            "PFCP: {peer} released the association ({sessions_removed} sessions removed)"
        ),
        UpfEvent::PeerRestarted {
            peer,
            sessions_removed,
            ..
        } => tracing::warn!(
            "PFCP: {peer} restarted (new Recovery Time Stamp): {sessions_removed} sessions removed"
        ),
        UpfEvent::Restarted {
            recovery_time_stamp,
            sessions_removed,
        } => tracing::warn!(
            "PFCP: restarted at unix_ms {}: {sessions_removed} sessions dropped, new Recovery Time \
             Stamp {}",
            unix_ms(),
            recovery_time_stamp.0
        ),
        other => tracing::info!("PFCP: {other:?} ({sessions} sessions)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_totals_name_each_count() {
        let s = Stats {
            sessions_established: 512,
            sessions_modified: 2,
            sessions_deleted: 510,
            rejected: 17,
            answered_from_cache: 3,
            invalid: 1,
            heartbeats_answered: 9,
            ..Stats::default()
        };
        assert_eq!(
            totals_line(&s),
            "PFCP: totals: sessions established 512, modified 2, deleted 510; requests rejected \
             17, answered again from the cache 3, unreadable 1; heartbeats answered 9"
        );
    }
}
