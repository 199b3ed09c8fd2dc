//! How far the transmitters fell behind their schedule.
//!
//! A sender that is late by more than its part of the profile's `max_burst` does not catch up
//! at line rate (that would be a microburst): its schedule slips, its packets go later (none is
//! dropped), and it makes up the lateness at no more than the profile's `catch_up` above its
//! rate; what it does not make up, it sends for longer. The rates are over the actual sending
//! time, so lateness left at the end lowers them; these figures say by how much and how often.

use serde::{Deserialize, Serialize};

/// The slips of one direction or one stream in one step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TxSlip {
    /// Times a sender fell behind, its senders (workers) together; a sender that stays behind
    /// for many loops counts once, until it catches up.
    pub count: u64,
    /// How much later the last packet was due than planned (us): what catching up did not
    /// make up; the largest of the senders', which send side by side.
    pub slipped_us: f64,
    /// The most a sender was ever late (us).
    #[serde(default)]
    pub max_late_us: f64,
}

impl TxSlip {
    /// The slips of senders that send side by side: counts add up, the time is the longest.
    pub fn merge(a: Option<TxSlip>, b: TxSlip) -> TxSlip {
        match a {
            None => b,
            Some(a) => TxSlip {
                count: a.count + b.count,
                slipped_us: a.slipped_us.max(b.slipped_us),
                max_late_us: a.max_late_us.max(b.max_late_us),
            },
        }
    }
}

impl std::fmt::Display for TxSlip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let times = if self.count == 1 { "time" } else { "times" };
        write!(
            f,
            "fell behind its schedule {} {times} (at most {:.1} us late), {:.1} us late at the end",
            self.count, self.max_late_us, self.slipped_us
        )
    }
}
