//! Our Heartbeat Requests' schedule, and what we know of the peer's Recovery Time Stamp.

use core::time::Duration;
use std::time::Instant;

use crate::ie::NtpTimestamp;

/// When to send the next Heartbeat Request. One is in flight at a time; if it is still
/// unanswered when the next is due, that turn is skipped (its own T1/N1 decides loss).
#[derive(Debug, Clone)]
pub(crate) struct HeartbeatSchedule {
    interval: Option<Duration>,
    next: Option<Instant>,
    outstanding: bool,
}

impl HeartbeatSchedule {
    pub(crate) fn new(interval: Option<Duration>) -> Self {
        HeartbeatSchedule {
            interval,
            next: None,
            outstanding: false,
        }
    }

    /// Starts (or restarts) the schedule: the first request goes one interval from now.
    pub(crate) fn start(&mut self, now: Instant) {
        self.next = self.interval.map(|i| now + i);
    }

    /// Stops sending.
    pub(crate) fn stop(&mut self) {
        self.next = None;
        self.outstanding = false;
    }

    /// The next time the schedule needs attention.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.next
    }

    /// Whether a request is to be sent now (and books it).
    pub(crate) fn due(&mut self, now: Instant) -> bool {
        let (Some(next), Some(interval)) = (self.next, self.interval) else {
            return false;
        };
        if next > now {
            return false;
        }
        self.next = Some(now + interval);
        if self.outstanding {
            return false;
        }
        self.outstanding = true;
        true
    }

    /// A request goes out now, off the schedule.
    pub(crate) fn book(&mut self) {
        self.outstanding = true;
    }

    /// The request in flight was answered or given up.
    pub(crate) fn settled(&mut self) {
        self.outstanding = false;
    }
}

/// What a change of the peer's Recovery Time Stamp means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Restart {
    pub(crate) previous: NtpTimestamp,
    pub(crate) current: NtpTimestamp,
    /// When `previous` was last seen.
    pub(crate) previous_seen: Instant,
}

/// The peer's Recovery Time Stamp as last seen, and when (TS 29.244 §19A: a new value means
/// the peer restarted and lost its state).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PeerRecovery(Option<(NtpTimestamp, Instant)>);

impl PeerRecovery {
    /// Records `ts`, seen at `now`; returns the restart it reveals.
    pub(crate) fn observe(&mut self, now: Instant, ts: NtpTimestamp) -> Option<Restart> {
        let (previous, previous_seen) = self.0.replace((ts, now))?;
        (previous != ts).then_some(Restart {
            previous,
            current: ts,
            previous_seen,
        })
    }

    /// The last value seen.
    pub(crate) fn get(self) -> Option<NtpTimestamp> {
        self.0.map(|(ts, _)| ts)
    }
}
