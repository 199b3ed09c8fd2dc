//! The reflector's control thread: the PFCP UPF side on N4, and the rules it installs mirrored
//! into the workers' forwarding table.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::oneshot;
use upfbench_dpdk::{grace_period, tsc};
use upfbench_pfcp::driver;
use upfbench_pfcp::ie::DnsName;
use upfbench_pfcp::node::{FaultCounters, N4Faults, RuleChange, Stats, UpfConfig, UpfEvent};
use upfbench_pfcp::{Seid, Teid};

use crate::datapath::end_marker::{EndMarkerOrder, EndMarkerPoster};
use crate::datapath::qer::{QerBook, QerPolicy};
use crate::datapath::rules::{DownlinkEntry, RulesMirror, TablePublisher};

/// What the UPF side needs.
#[derive(Debug, Clone)]
pub struct UpfSide {
    /// Where it listens (port 8805).
    pub local: SocketAddr,
    /// The one CP function allowed to associate.
    pub peer: std::net::IpAddr,
    /// Our N3 address, of either family (CH=1 F-TEIDs, and the family of every tunnel).
    pub n3: std::net::IpAddr,
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
    /// The impairment `far_update_delay`: a modification that moves a downlink tunnel stops
    /// the old path at once and starts the new one this much later (break-before-make).
    pub far_update_delay: Option<Duration>,
    /// The TSC's frequency: a held-back rule's release tick is `far_update_delay` after its
    /// hold on the workers' clock.
    pub tsc_hz: u64,
    /// How the QERs are enforced (`qer_burst`, the impairment `qer`; its `tsc_hz` is the
    /// workers' clock).
    pub qer: QerPolicy,
    /// Where the QERs' cells are kept, for the metrics and the totals to read.
    pub qers: QerBook,
}

/// The running control thread.
pub struct UpfThread {
    thread: Option<JoinHandle<Result<()>>>,
    stop: Option<oneshot::Sender<()>>,
}

impl UpfThread {
    /// Starts the thread: the PFCP UPF side when `pfcp` is given, whose rule changes go to
    /// `publisher`. Returns once the N4 socket is bound (or failed to bind).
    pub fn start(
        pfcp: Option<UpfSide>,
        publisher: TablePublisher,
        end_markers: EndMarkerPoster,
    ) -> Result<UpfThread> {
        let (stop_tx, stop_rx) = oneshot::channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<()>>();
        let thread = std::thread::Builder::new()
            .name("upfbench-n4".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("starting the control thread's runtime")?;
                rt.block_on(serve(pfcp, publisher, end_markers, stop_rx, ready_tx))
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
    publisher: TablePublisher,
    end_markers: EndMarkerPoster,
    stop: oneshot::Receiver<()>,
    ready: std::sync::mpsc::Sender<Result<()>>,
) -> Result<()> {
    let Some(side) = pfcp else {
        let _ = ready.send(Ok(()));
        let _ = stop.await;
        return Ok(());
    };
    let (local, peer, faults) = (side.local, side.peer, side.faults);
    let Some(config) = upf_config(&side) else {
        let _ = ready.send(Err(anyhow::anyhow!(
            "an IPv6 N4 address is not supported yet"
        )));
        return Ok(());
    };
    let (apply, sessions) = rule_applier(&side, publisher, end_markers);
    let (server, channels) = match driver::serve_faulty(local, config, Some(apply), faults).await {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e).with_context(|| {
                format!("binding the PFCP server to {local} (is another one running?)")
            }));
            return Ok(());
        }
    };
    // SIGUSR1 restarts the UPF side, as a UPF that crashed and came back.
    let usr1 = match signal(SignalKind::user_defined1()) {
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
        peer,
        unix_ms(),
        if faults.is_active() {
            format!(", N4 faults {faults:?}")
        } else {
            String::new()
        }
    );
    serve_until_stopped(&server, channels, usr1, stop, &sessions).await;
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

/// The UPF's PFCP configuration from `side`, or None for an IPv6 N4 address.
fn upf_config(side: &UpfSide) -> Option<UpfConfig> {
    let n4 = match side.local {
        SocketAddr::V4(a) => *a.ip(),
        SocketAddr::V6(_) => return None,
    };
    let mut config = UpfConfig::new(n4, side.n3, driver::recovery_time_stamp_now(), side.peer);
    config.first_teid = side.first_teid;
    config.first_seid = side.first_seid;
    config.node.heartbeat_interval = side.heartbeat;
    config.network_instances = side.network_instances.clone();
    config.max_sessions = side.max_sessions;
    Some(config)
}

/// What the PFCP server calls with each burst of rule changes: they go into the mirror and on
/// to the workers through `publisher` (a held-back downlink path made later by a [`Maker`],
/// with `far_update_delay`), and a path switch orders its End Marker from `end_markers`. Also
/// returns the count of sessions the mirror holds.
fn rule_applier(
    side: &UpfSide,
    publisher: TablePublisher,
    end_markers: EndMarkerPoster,
) -> (driver::ApplyRules, Arc<AtomicUsize>) {
    // A rule is in effect in every worker before its request is answered: the changes a burst
    // of requests made become one table, which every worker has taken (a grace period: each
    // passed a quiescent point after it was published, and takes a new table right there)
    // before the answers go out. Publishing on a timer instead left up to 5 ms between
    // "Request accepted" and the rule, and a peer's first packets met an unknown TEID.
    let sessions = Arc::new(AtomicUsize::new(0));
    let rules = Arc::new(MirrorAndPublisher {
        both: Mutex::new((RulesMirror::new(side.qer, side.qers.clone()), publisher)),
        sessions: Arc::clone(&sessions),
    });
    let far_update_delay = side.far_update_delay;
    let maker = far_update_delay.map(|d| Maker::start(Arc::clone(&rules), d));
    let delay_ticks =
        far_update_delay.map(|d| (d.as_nanos() * u128::from(side.tsc_hz) / 1_000_000_000) as u64);
    let apply: driver::ApplyRules = Box::new(move |changes| {
        let (switched, broke_at) = switch_paths(&rules, changes, delay_ticks, &end_markers);
        if let Some(m) = &maker
            && !switched.is_empty()
        {
            m.make(broke_at, switched);
        }
    });
    (apply, sessions)
}

/// Serves until `stop` (or the server's end): SIGUSR1 (`usr1`) restarts the UPF side, and its
/// events are logged with the `sessions` held.
async fn serve_until_stopped(
    server: &driver::UpfServer,
    mut channels: driver::UpfChannels,
    mut usr1: tokio::signal::unix::Signal,
    mut stop: oneshot::Receiver<()>,
    sessions: &AtomicUsize,
) {
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

/// The control thread's copy of the rules and the workers' tables made from it.
struct MirrorAndPublisher {
    both: Mutex<(RulesMirror, TablePublisher)>,
    sessions: Arc<AtomicUsize>,
}

impl MirrorAndPublisher {
    /// Changes the mirror with `f` and, if that changed anything, publishes the new table and
    /// returns once every worker has taken it (a grace period).
    /// Also returns when the new table was published (the workers take it at their next
    /// loop).
    fn change<T>(&self, f: impl FnOnce(&mut RulesMirror) -> T) -> (T, Instant) {
        let mut both = self.both.lock().unwrap_or_else(|e| e.into_inner());
        let (m, publisher) = &mut *both;
        let out = f(m);
        self.sessions.store(m.sessions(), Ordering::Relaxed);
        let mut published = Instant::now();
        if let Some(t) = m.snapshot() {
            publisher.publish(t);
            published = Instant::now();
            grace_period();
            // Every worker took the new table: what it replaced is freed here.
            publisher.retire();
        }
        (out, published)
    }
}

/// The thread that puts held-back downlink rules in place `far_update_delay` after their old
/// path stopped: its own thread, so that the make is timed to the sleep's precision (tokio's
/// timers tick in milliseconds) and no N4 request waits for it.
struct Maker {
    orders: std::sync::mpsc::Sender<(Instant, Vec<(u32, DownlinkEntry)>)>,
}

impl Maker {
    fn start(rules: Arc<MirrorAndPublisher>, delay: Duration) -> Maker {
        let (tx, rx) = std::sync::mpsc::channel::<(Instant, Vec<(u32, DownlinkEntry)>)>();
        // Ends when the sender goes with the PFCP side.
        let spawned = std::thread::Builder::new()
            .name("upfbench-far-delay".into())
            .spawn(move || {
                // The deadlines come in order: the delay is the same for all.
                while let Ok((broke_at, entries)) = rx.recv() {
                    let due = broke_at + delay;
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                    rules.change(|m| {
                        for (ue, entry) in entries {
                            m.release_downlink(ue, entry);
                        }
                    });
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("far_update_delay: no thread for the delayed updates: {e}");
        }
        Maker { orders: tx }
    }

    /// Puts `entries` in place `delay` after `broke_at`.
    fn make(&self, broke_at: Instant, entries: Vec<(u32, DownlinkEntry)>) {
        let _ = self.orders.send((broke_at, entries));
    }
}

/// Applies a burst of rule changes to the datapath; returns, with a `far_update_delay`, the
/// downlink rules it held back (UE address, the new rule) for the caller to put in place
/// later, and when the table that stopped their old paths was published. End Markers asked for go to the sending worker once the old path is out of every
/// worker's table: after the grace period, no G-PDU follows them on the old tunnel.
fn switch_paths(
    rules: &MirrorAndPublisher,
    changes: &[RuleChange],
    delay_ticks: Option<u64>,
    end_markers: &EndMarkerPoster,
) -> (Vec<(u32, DownlinkEntry)>, Instant) {
    let mut orders = Vec::new();
    let (held, published) = rules.change(|m| {
        let mut held = Vec::new();
        for c in changes {
            m.apply(c);
            match c {
                RuleChange::Modified { previous, current } if let Some(ticks) = delay_ticks => {
                    // The workers start the new path at this tick themselves; the maker's
                    // table later only makes it plain.
                    let release_at = tsc() + ticks;
                    for d in &previous.downlink {
                        let now = current.downlink.iter().find(|n| n.pdr_id == d.pdr_id);
                        let moved = now.is_some_and(|n| n.tunnel != d.tunnel && n.forward);
                        // IPv4 UEs only: an IPv6-only UE's new path starts at once.
                        let Some(ue) = d.ue_address.map(u32::from) else {
                            continue;
                        };
                        if moved && let Some(entry) = m.hold_downlink(ue, release_at) {
                            held.push((ue, entry));
                        }
                    }
                }
                // End Markers go over IPv4 only (not built over an IPv6 N3 yet).
                RuleChange::EndMarker { previous, .. } => {
                    if let std::net::IpAddr::V4(gnb) = previous.address {
                        orders.push(EndMarkerOrder {
                            teid: previous.teid,
                            gnb,
                        });
                    }
                }
                _ => {}
            }
        }
        held
    });
    if !orders.is_empty() {
        end_markers.post(orders);
    }
    (held, published)
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
