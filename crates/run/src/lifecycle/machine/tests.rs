use super::*;

pub(super) const MS: Duration = Duration::from_millis(1);

pub(super) fn timing() -> Timing {
    Timing {
        warmup: 100 * MS,
        settle: 50 * MS,
        measure_limit: 1000 * MS,
        drain: 200 * MS,
        quiet_limit: None,
    }
}

/// Drives a machine, recording every action, answering the untimed ones with `answer`.
pub(super) struct Driver {
    pub(super) m: Lifecycle,
    pub(super) now: Instant,
    log: Vec<Action>,
    steps: usize,
}

impl Driver {
    pub(super) fn new(timing: Timing, steps: usize, pfcp: bool) -> Driver {
        let now = Instant::now();
        let mut m = Lifecycle::new(timing, pfcp);
        m.start(now);
        let mut d = Driver {
            m,
            now,
            log: Vec::new(),
            steps,
        };
        d.drain_actions();
        d
    }

    pub(super) fn drain_actions(&mut self) {
        while let Some(a) = self.m.poll_action() {
            self.log.push(a);
        }
    }

    pub(super) fn event(&mut self, e: Event) {
        self.m.handle(self.now, e);
        self.drain_actions();
    }

    /// Moves time to the next deadline and fires it.
    pub(super) fn tick(&mut self) -> Duration {
        let d = self.m.poll_timeout().expect("a deadline");
        let waited = d - self.now;
        self.now = d;
        self.m.handle_timeout(d);
        self.drain_actions();
        waited
    }

    /// The step's results, with another step to follow while the run has more.
    pub(super) fn collected(&mut self) {
        let more = self.m.collected() + 1 < self.steps;
        self.event(Event::Collected { more });
    }

    pub(super) fn take(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.log)
    }
}

pub(super) fn set(p: Phase) -> Action {
    Action::SetPhase(p)
}

#[test]
fn a_whole_run_goes_through_every_phase_in_order() {
    let mut d = Driver::new(timing(), 1, true);
    assert_eq!(d.take(), [Action::Associate]);
    d.event(Event::Associated);
    assert_eq!(d.take(), [Action::Establish]);
    d.event(Event::Established);
    assert_eq!(d.take(), [Action::Resolve]);
    d.event(Event::Resolved);
    assert_eq!(d.take(), [Action::Prepare { step: 0 }]);
    d.event(Event::Prepared);
    assert_eq!(d.take(), [set(Phase::Warmup)]);
    assert_eq!(d.tick(), 100 * MS);
    assert_eq!(d.take(), [set(Phase::Settle)]);
    assert_eq!(d.tick(), 50 * MS);
    assert_eq!(d.take(), [set(Phase::Measure)]);
    d.now += 300 * MS;
    d.event(Event::AllSent);
    assert_eq!(d.take(), [set(Phase::Drain)]);
    assert_eq!(d.tick(), 200 * MS);
    assert_eq!(d.take(), [Action::Collect { step: 0 }]);
    d.collected();
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    assert_eq!(d.take(), [Action::Delete]);
    d.event(Event::Deleted);
    assert_eq!(d.take(), [Action::Release]);
    d.event(Event::Released);
    assert!(d.m.is_done());
    assert!(!d.m.stopped_early());
    assert_eq!(d.m.collected(), 1);
}

#[test]
fn a_sweep_prepares_and_measures_each_step_then_reports_once() {
    let t = Timing {
        warmup: Duration::ZERO,
        settle: Duration::ZERO,
        ..timing()
    };
    let mut d = Driver::new(t, 3, false);
    assert_eq!(d.take(), [Action::Resolve]);
    d.event(Event::Resolved);
    for step in 0..3 {
        assert_eq!(d.take(), [Action::Prepare { step }]);
        d.event(Event::Prepared);
        // No warm-up: straight to the measured phase.
        assert_eq!(d.take(), [set(Phase::Measure)]);
        d.event(Event::AllSent);
        d.tick();
        assert_eq!(d.take(), [set(Phase::Drain), Action::Collect { step }]);
        d.collected();
    }
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    // No PFCP: nothing to delete or release.
    assert!(d.m.is_done());
    assert_eq!(d.m.collected(), 3);
}

#[test]
fn a_sender_that_cannot_keep_up_is_cut_short_at_the_limit() {
    let mut d = Driver::new(timing(), 1, false);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    d.tick();
    d.tick();
    d.take();
    assert_eq!(d.tick(), 1000 * MS);
    assert_eq!(d.take(), [set(Phase::Drain)]);
    d.event(Event::AllSent); // late: ignored
    assert!(d.take().is_empty());
    assert_eq!(d.m.state(), State::Drain);
}

#[test]
fn an_interruption_while_measuring_drains_reports_and_tears_down() {
    let mut d = Driver::new(timing(), 3, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    d.tick();
    d.tick();
    d.take();
    d.event(Event::Interrupt);
    assert_eq!(d.take(), [set(Phase::Drain)]);
    d.tick();
    assert_eq!(d.take(), [Action::Collect { step: 0 }]);
    d.collected();
    // The other steps are skipped.
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    assert_eq!(d.take(), [Action::Delete]);
    d.event(Event::Deleted);
    d.event(Event::Released);
    assert!(d.m.is_done() && d.m.stopped_early());
}

#[test]
fn an_interruption_during_warmup_measures_nothing_but_still_reports() {
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    d.take();
    d.event(Event::Interrupt);
    assert_eq!(d.take(), [set(Phase::Drain)]);
    d.tick();
    d.collected();
    d.event(Event::Reported);
    assert_eq!(
        d.take(),
        [Action::Collect { step: 0 }, Action::Report, Action::Delete]
    );
}

#[test]
fn an_interruption_during_establishment_cancels_reports_and_deletes_what_was_established() {
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.take();
    d.event(Event::Interrupt);
    assert_eq!(d.take(), [Action::CancelEstablishment]);
    d.event(Event::Established);
    // A report of what there is (the control plane's figures, no traffic) comes first.
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    assert_eq!(d.take(), [Action::Delete]);
    d.event(Event::Deleted);
    assert_eq!(d.take(), [Action::Release]);
    d.event(Event::Released);
    assert!(d.m.is_done());
    assert_eq!(d.m.collected(), 0);
}

#[test]
fn an_interruption_before_the_start_still_reports_and_owes_nothing_else() {
    let now = Instant::now();
    let mut m = Lifecycle::new(timing(), true);
    m.handle(now, Event::Interrupt);
    m.start(now);
    assert_eq!(m.poll_action(), Some(Action::Report));
    assert_eq!(m.poll_action(), None);
    m.handle(now, Event::Reported);
    // Not associated: nothing to delete or release.
    assert!(m.is_done() && m.stopped_early());
    assert_eq!(m.poll_action(), None);
}

#[test]
fn an_interruption_during_resolution_reports_deletes_and_releases() {
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    assert_eq!(
        d.take(),
        [Action::Associate, Action::Establish, Action::Resolve]
    );
    d.event(Event::Interrupt);
    d.event(Event::Reported);
    d.event(Event::Deleted);
    d.event(Event::Released);
    assert_eq!(d.take(), [Action::Report, Action::Delete, Action::Release]);
    assert!(d.m.is_done() && d.m.stopped_early());
    assert_eq!(d.m.failure(), None);
}

#[test]
fn a_second_interruption_skips_the_rest_of_the_teardown() {
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Interrupt);
    assert_eq!(d.m.state(), State::Reporting);
    d.event(Event::Interrupt);
    // The report being written is finished; the deletion and release are skipped.
    d.event(Event::Reported);
    assert!(d.m.is_done());
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Interrupt);
    d.event(Event::Reported);
    assert_eq!(d.m.state(), State::Deleting);
    d.event(Event::Interrupt);
    assert!(d.m.is_done());
}

#[test]
fn failures_end_the_run_the_short_way_and_are_kept() {
    // The association fails: a report, nothing to delete or release.
    let mut d = Driver::new(timing(), 1, true);
    d.take();
    d.event(Event::Failed("no answer from 127.0.0.2:8805".into()));
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    assert!(d.m.is_done());
    assert_eq!(d.m.failure(), Some("no answer from 127.0.0.2:8805"));

    // An establishment fails: report, then what was established is deleted.
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.take();
    d.event(Event::Failed("session 7: Cause 73".into()));
    d.event(Event::Reported);
    assert_eq!(d.take(), [Action::Report, Action::Delete]);
    // A deletion fails: release anyway.
    d.event(Event::Failed("deleted 3 of 4".into()));
    assert_eq!(d.take(), [Action::Release]);
    assert_eq!(d.m.failure(), Some("session 7: Cause 73"));

    // MAC resolution fails: report, delete, release.
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.take();
    d.event(Event::Failed("no ARP reply".into()));
    d.event(Event::Reported);
    assert_eq!(d.take(), [Action::Report, Action::Delete]);

    // The step cannot be prepared (its frames, its workers): report, delete, release; no
    // Prepared follows, so waiting for one would never end.
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Resolved);
    assert_eq!(d.m.state(), State::Preparing);
    d.take();
    d.event(Event::Failed("step 1: no template".into()));
    d.event(Event::Reported);
    d.event(Event::Deleted);
    d.event(Event::Released);
    assert_eq!(d.take(), [Action::Report, Action::Delete, Action::Release]);
    assert!(d.m.is_done());
    assert_eq!(d.m.failure(), Some("step 1: no template"));
}

#[test]
fn trials_settle_wait_for_quiet_and_go_on_while_the_application_says_more() {
    let t = Timing {
        warmup: Duration::ZERO,
        settle: 500 * MS,
        quiet_limit: Some(5000 * MS),
        ..timing()
    };
    let mut d = Driver::new(t, 1, false);
    assert_eq!(d.take(), [Action::Resolve]);
    d.event(Event::Resolved);
    assert_eq!(d.take(), [Action::Prepare { step: 0 }]);
    d.event(Event::Prepared);
    // No warm-up, but a settle time: silence first.
    assert_eq!(d.take(), [set(Phase::Settle)]);
    assert_eq!(d.tick(), 500 * MS);
    assert_eq!(d.take(), [set(Phase::Measure)]);
    d.event(Event::AllSent);
    assert_eq!(d.tick(), 200 * MS);
    // After the drain: collected only once the application saw nothing more arrive.
    assert_eq!(d.take(), [set(Phase::Drain), Action::AwaitQuiet]);
    d.now += 120 * MS;
    d.event(Event::Quiet);
    assert_eq!(d.take(), [Action::Collect { step: 0 }]);
    // The application chooses another trial, and a new timing for it.
    d.m.set_timing(Timing {
        settle: 100 * MS,
        ..t
    });
    d.event(Event::Collected { more: true });
    assert_eq!(d.take(), [Action::Prepare { step: 1 }]);
    d.event(Event::Prepared);
    assert_eq!(d.tick(), 100 * MS);
    d.event(Event::AllSent);
    d.tick();
    assert_eq!(
        d.take(),
        [
            set(Phase::Settle),
            set(Phase::Measure),
            set(Phase::Drain),
            Action::AwaitQuiet
        ]
    );
    // Still arriving at the limit: collected anyway.
    assert_eq!(d.tick(), 5000 * MS);
    assert_eq!(d.take(), [Action::Collect { step: 1 }]);
    d.event(Event::Collected { more: false });
    assert_eq!(d.take(), [Action::Report]);
    assert_eq!(d.m.collected(), 2);
}

/// A search's trials: no settle, no fixed drain; each waits for quiet as soon as it sent
/// everything, and the next is prepared as soon as it is collected.
#[test]
fn trials_without_drain_wait_for_quiet_as_soon_as_they_sent_everything() {
    let t = Timing {
        warmup: Duration::ZERO,
        settle: Duration::ZERO,
        drain: Duration::ZERO,
        quiet_limit: Some(5000 * MS),
        ..timing()
    };
    let mut d = Driver::new(t, 2, false);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    assert_eq!(
        d.take(),
        [
            Action::Resolve,
            Action::Prepare { step: 0 },
            set(Phase::Measure)
        ]
    );
    d.event(Event::AllSent);
    assert_eq!(d.tick(), Duration::ZERO);
    assert_eq!(d.take(), [set(Phase::Drain), Action::AwaitQuiet]);
    d.now += 3 * MS;
    d.event(Event::Quiet);
    d.collected();
    assert_eq!(
        d.take(),
        [Action::Collect { step: 0 }, Action::Prepare { step: 1 }]
    );
}

#[test]
fn an_interruption_while_waiting_for_quiet_still_collects_the_trial() {
    let t = Timing {
        warmup: Duration::ZERO,
        settle: Duration::ZERO,
        quiet_limit: Some(5000 * MS),
        ..timing()
    };
    let mut d = Driver::new(t, 5, false);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    d.event(Event::AllSent);
    d.tick();
    d.take();
    d.event(Event::Interrupt);
    assert_eq!(d.take(), []);
    d.event(Event::Quiet);
    assert_eq!(d.take(), [Action::Collect { step: 0 }]);
    // More was asked for, but the run stops: report what was measured.
    d.event(Event::Collected { more: true });
    assert_eq!(d.take(), [Action::Report]);
}

/// A capacity climb: each step after the first comes after a batch of sessions; the next hops
/// are resolved once; an interruption during a batch cancels it and takes the teardown.
#[test]
fn a_climb_establishes_a_batch_before_each_later_step_and_resolves_once() {
    let t = Timing {
        warmup: Duration::ZERO,
        settle: Duration::ZERO,
        ..timing()
    };
    let mut d = Driver::new(t, 3, true);
    d.event(Event::Associated);
    assert_eq!(d.take(), [Action::Associate, Action::Establish]);
    d.event(Event::Established);
    assert_eq!(d.take(), [Action::Resolve]);
    d.event(Event::Resolved);
    for step in 0..2 {
        assert_eq!(d.take(), [Action::Prepare { step }]);
        d.event(Event::Prepared);
        d.event(Event::AllSent);
        d.tick();
        assert_eq!(
            d.take(),
            [
                set(Phase::Measure),
                set(Phase::Drain),
                Action::Collect { step }
            ]
        );
        d.m.grow_before_next_step();
        d.collected();
        assert_eq!(
            d.take(),
            [Action::Establish],
            "a batch before step {}",
            step + 1
        );
        assert_eq!(d.m.state(), State::Establishing);
        d.event(Event::Established);
    }
    assert_eq!(
        d.take(),
        [Action::Prepare { step: 2 }],
        "no second resolution"
    );
    d.event(Event::Prepared);
    d.event(Event::AllSent);
    d.tick();
    d.take();
    // The last step: no batch asked for, none started.
    d.collected();
    assert_eq!(d.take(), [Action::Report]);

    let mut d = Driver::new(t, 3, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    d.event(Event::AllSent);
    d.tick();
    d.m.grow_before_next_step();
    d.collected();
    d.take();
    d.event(Event::Interrupt);
    assert_eq!(d.take(), [Action::CancelEstablishment]);
    d.event(Event::Established);
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    assert_eq!(
        d.take(),
        [Action::Delete],
        "the batches' sessions are deleted"
    );
    assert_eq!(d.m.collected(), 1);
}
