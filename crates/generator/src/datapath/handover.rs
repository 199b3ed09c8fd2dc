//! What a worker sees of the handovers (the receive side): for each downlink flow of a moving
//! UE, the last packet that came through the old tunnel and the first through the new one, and
//! for each moving UE, the End Marker on the old tunnel. Per worker, merged after the step.
//!
//! A flow's slot is `ue_slot × downlink_streams + the stream's downlink ordinal`; the UE's slot
//! is its index in the plan's handovers ([`upfbench_run::plan::HandoverPlan`]).

use upfbench_stats::Arrival;

/// Which tunnel a measured downlink packet came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leg {
    /// A UE that does not move (or no handover in the step).
    Fixed,
    /// The source gNB's tunnel, of the flow slot.
    Old(u32),
    /// The target gNB's tunnel, of the flow slot.
    New(u32),
}

/// One moving flow across its switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowSwitch {
    /// Packets through the old tunnel.
    pub(crate) old_count: u64,
    /// Arrival of the last of them (run clock, ns).
    pub(crate) old_last_ns: u64,
    /// The highest sequence number among them.
    pub(crate) old_max_seq: u32,
    /// Packets through the new tunnel.
    pub(crate) new_count: u64,
    /// Arrival of the first of them (`u64::MAX`: none).
    pub(crate) new_first_ns: u64,
    /// The lowest sequence number among them (`u32::MAX`: none).
    pub(crate) new_min_seq: u32,
    /// Old-tunnel packets that came after the first new-tunnel one (on this worker).
    pub(crate) old_after_new: u64,
    /// Packets of the flow the sequence tracker found duplicated.
    pub duplicates: u64,
    /// Packets of the flow that came behind a later one (reordered or late).
    pub reordered: u64,
}

impl Default for FlowSwitch {
    fn default() -> Self {
        FlowSwitch {
            old_count: 0,
            old_last_ns: 0,
            old_max_seq: 0,
            new_count: 0,
            new_first_ns: u64::MAX,
            new_min_seq: u32::MAX,
            old_after_new: 0,
            duplicates: 0,
            reordered: 0,
        }
    }
}

impl FlowSwitch {
    /// Adds another worker's view of the same flow.
    pub fn merge(&mut self, o: &FlowSwitch) {
        self.old_count += o.old_count;
        self.old_last_ns = self.old_last_ns.max(o.old_last_ns);
        self.old_max_seq = self.old_max_seq.max(o.old_max_seq);
        self.new_count += o.new_count;
        self.new_first_ns = self.new_first_ns.min(o.new_first_ns);
        self.new_min_seq = self.new_min_seq.min(o.new_min_seq);
        self.old_after_new += o.old_after_new;
        self.duplicates += o.duplicates;
        self.reordered += o.reordered;
    }

    /// Sequence positions between the last old-tunnel packet and the first new-tunnel one that
    /// never came (0 when the two paths overlap or one of them carried nothing).
    pub fn gap(&self) -> u64 {
        if self.old_count == 0 || self.new_count == 0 {
            return 0;
        }
        u64::from(self.new_min_seq).saturating_sub(u64::from(self.old_max_seq) + 1)
    }
}

/// End Markers seen for one moving UE (on its old tunnel).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndMarkerSeen {
    /// How many.
    pub count: u64,
    /// Arrival of the first (`u64::MAX`: none).
    pub(crate) first_ns: u64,
}

impl Default for EndMarkerSeen {
    fn default() -> Self {
        EndMarkerSeen {
            count: 0,
            first_ns: u64::MAX,
        }
    }
}

/// A worker's record of the step's handovers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandoverRx {
    /// By flow slot.
    pub flows: Box<[FlowSwitch]>,
    /// By UE slot.
    pub end_markers: Box<[EndMarkerSeen]>,
}

impl HandoverRx {
    /// A record for `ues` moving UEs of `downlink_streams` downlink streams each.
    pub fn new(ues: usize, downlink_streams: usize) -> HandoverRx {
        HandoverRx {
            flows: vec![FlowSwitch::default(); ues * downlink_streams].into_boxed_slice(),
            end_markers: vec![EndMarkerSeen::default(); ues].into_boxed_slice(),
        }
    }

    /// Records one measured packet of a moving flow: its tunnel, sequence number, arrival, and
    /// what the sequence tracker made of it.
    #[inline]
    pub fn record(&mut self, leg: Leg, sequence: u32, now_ns: u64, arrival: Option<Arrival>) {
        let (slot, new) = match leg {
            Leg::Fixed => return,
            Leg::Old(s) => (s, false),
            Leg::New(s) => (s, true),
        };
        let Some(f) = self.flows.get_mut(slot as usize) else {
            return;
        };
        if new {
            f.new_count += 1;
            f.new_first_ns = f.new_first_ns.min(now_ns);
            f.new_min_seq = f.new_min_seq.min(sequence);
        } else {
            f.old_count += 1;
            f.old_last_ns = f.old_last_ns.max(now_ns);
            f.old_max_seq = f.old_max_seq.max(sequence);
            f.old_after_new += u64::from(f.new_first_ns <= now_ns);
        }
        match arrival {
            Some(Arrival::Duplicate) => f.duplicates += 1,
            Some(Arrival::Reordered | Arrival::Late) => f.reordered += 1,
            _ => {}
        }
    }

    /// Records an End Marker for UE slot `ue_slot` at `now_ns`.
    pub fn end_marker(&mut self, ue_slot: u32, now_ns: u64) {
        if let Some(e) = self.end_markers.get_mut(ue_slot as usize) {
            e.count += 1;
            e.first_ns = e.first_ns.min(now_ns);
        }
    }

    /// Adds another worker's record (of the same shape; an empty one adds nothing).
    pub fn merge(&mut self, o: &HandoverRx) {
        if self.flows.is_empty() && self.end_markers.is_empty() {
            self.clone_from(o);
            return;
        }
        for (a, b) in self.flows.iter_mut().zip(o.flows.iter()) {
            a.merge(b);
        }
        for (a, b) in self.end_markers.iter_mut().zip(o.end_markers.iter()) {
            a.count += b.count;
            a.first_ns = a.first_ns.min(b.first_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_seen_from_both_legs_and_merged_across_workers() {
        let mut a = HandoverRx::new(2, 1);
        // UE slot 1's flow: old tunnel up to seq 9 at 1000 ns, a gap of 5, new from seq 15.
        for s in 0..10 {
            a.record(
                Leg::Old(1),
                s,
                100 * u64::from(s) + 100,
                Some(Arrival::InOrder),
            );
        }
        let mut b = HandoverRx::new(2, 1);
        b.record(Leg::New(1), 16, 6_000, Some(Arrival::AfterGap));
        a.record(Leg::New(1), 15, 5_000, Some(Arrival::Reordered));
        // A late old-tunnel packet after the switch, and a duplicate.
        a.record(Leg::Old(1), 8, 5_500, Some(Arrival::Duplicate));
        a.record(Leg::Fixed, 3, 7_000, None);
        a.end_marker(1, 1_200);
        a.merge(&b);
        let f = a.flows[1];
        assert_eq!((f.old_count, f.old_last_ns, f.old_max_seq), (11, 5_500, 9));
        assert_eq!((f.new_count, f.new_first_ns, f.new_min_seq), (2, 5_000, 15));
        assert_eq!((f.old_after_new, f.duplicates, f.reordered), (1, 1, 1));
        assert_eq!(f.gap(), 5);
        assert_eq!(a.flows[0], FlowSwitch::default());
        assert_eq!(
            a.end_markers[1],
            EndMarkerSeen {
                count: 1,
                first_ns: 1_200
            }
        );
        let mut empty = HandoverRx::default();
        empty.merge(&a);
        assert_eq!(empty, a);
    }

    #[test]
    fn no_gap_without_both_legs_or_with_overlap() {
        let mut r = HandoverRx::new(1, 1);
        r.record(Leg::Old(0), 5, 10, None);
        assert_eq!(r.flows[0].gap(), 0);
        r.record(Leg::New(0), 4, 20, None);
        assert_eq!(r.flows[0].gap(), 0);
    }
}
