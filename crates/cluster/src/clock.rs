//! Each agent's wall-clock offset, by Cristian's method (docs/scale.md §3 "Steps and trials at
//! a common time"): [`SAMPLES`] calls to `GET /v1/clock`, the one of least round trip kept,
//! offset = the agent's time − the call's midpoint on the coordinator's clock. A step starts at
//! T = now + max(`start_lead`, 4 × the largest round trip), each agent given T in its own clock
//! ([`Estimate::on_agent`]), so that boxes need no NTP: the start is common to within half the
//! least round trip.

use std::time::Duration;

/// Calls to `GET /v1/clock` per agent.
pub const SAMPLES: usize = 8;

/// One call to `GET /v1/clock`: when it left and came back on the coordinator's clock, and
/// what the agent said (all Unix ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The request left.
    pub sent_ns: u64,
    /// The answer came back.
    pub received_ns: u64,
    /// The agent's `unix_ns`.
    pub agent_ns: u64,
}

impl Sample {
    /// Its round trip (ns).
    pub fn rtt_ns(&self) -> u64 {
        self.received_ns.saturating_sub(self.sent_ns)
    }
}

/// An agent's clock against the coordinator's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// The agent's clock − the coordinator's (ns).
    pub offset_ns: i64,
    /// The least round trip (ns): the offset is right to within half of it.
    pub rtt_ns: u64,
}

impl Estimate {
    /// Cristian's estimate from `samples`: the sample of least round trip (the first of equal
    /// ones), offset = its agent time − its midpoint. `None` without a sample.
    pub fn of(samples: &[Sample]) -> Option<Estimate> {
        let best = samples.iter().min_by_key(|s| s.rtt_ns())?;
        let rtt = best.rtt_ns();
        let midpoint = i128::from(best.sent_ns) + i128::from(rtt / 2);
        let offset = i128::from(best.agent_ns) - midpoint;
        Some(Estimate {
            offset_ns: offset.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            rtt_ns: rtt,
        })
    }

    /// `t_ns` on the coordinator's clock as the agent's clock reads it.
    pub fn on_agent(&self, t_ns: u64) -> u64 {
        t_ns.saturating_add_signed(self.offset_ns)
    }
}

/// The common start: `now_ns` + max(`start_lead`, 4 × the largest of the agents' round trips).
pub fn start_time(now_ns: u64, start_lead: Duration, estimates: &[Estimate]) -> u64 {
    let rtt = estimates.iter().map(|e| e.rtt_ns).max().unwrap_or(0);
    let lead = u64::try_from(start_lead.as_nanos()).unwrap_or(u64::MAX);
    now_ns.saturating_add(lead.max(rtt.saturating_mul(4)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;
    const T0: u64 = 1_764_417_600 * S;

    /// A call sent at `sent` that took `out` ns to reach an agent `offset` ns ahead and `back`
    /// ns to return.
    fn call(sent: u64, out: u64, back: u64, offset: i64) -> Sample {
        Sample {
            sent_ns: sent,
            received_ns: sent + out + back,
            agent_ns: (sent + out).saturating_add_signed(offset),
        }
    }

    #[test]
    fn the_call_of_least_round_trip_gives_the_offset() {
        // An agent 3 s ahead; calls of 900 us to 2 ms, the quickest symmetric (40 + 40 us).
        let offset = 3 * S as i64;
        let samples: Vec<Sample> = [(900_000, 100), (400, 1_600_000), (40_000, 40_000)]
            .iter()
            .enumerate()
            .map(|(i, &(out, back))| call(T0 + i as u64 * S, out, back, offset))
            .collect();
        let e = Estimate::of(&samples).unwrap();
        assert_eq!(
            e,
            Estimate {
                offset_ns: offset,
                rtt_ns: 80_000
            }
        );
        // The coordinator's T is 3 s later on the agent's clock.
        assert_eq!(e.on_agent(T0), T0 + 3 * S);
        // An asymmetric quickest call errs by half the asymmetry, within half the round trip.
        let e = Estimate::of(&[call(T0, 10_000, 70_000, offset)]).unwrap();
        assert_eq!(e.offset_ns, offset - 30_000);
        assert!(e.offset_ns.abs_diff(offset) <= e.rtt_ns / 2);
        assert_eq!(Estimate::of(&[]), None);
    }

    #[test]
    fn an_agent_behind_gets_an_earlier_time() {
        let e = Estimate::of(&[call(T0, 50, 50, -2 * S as i64)]).unwrap();
        assert_eq!(e.offset_ns, -2 * S as i64);
        assert_eq!(e.on_agent(T0 + 10 * S), T0 + 8 * S);
    }

    #[test]
    fn the_start_waits_the_lead_or_four_round_trips() {
        let quick = Estimate {
            offset_ns: 0,
            rtt_ns: 1_000_000,
        };
        let slow = Estimate {
            offset_ns: 5,
            rtt_ns: 80_000_000,
        };
        let lead = Duration::from_millis(200);
        assert_eq!(start_time(T0, lead, &[quick]), T0 + 200_000_000);
        assert_eq!(start_time(T0, lead, &[quick, slow]), T0 + 320_000_000);
        assert_eq!(start_time(T0, lead, &[]), T0 + 200_000_000);
    }
}
