//! The run's way when the UPF fails mid-run: a restart (stop, or re-establish and go on) and a
//! UPF that stopped answering.

use super::tests::{Driver, set, timing};
use super::*;

/// A run with PFCP in its measured phase.
fn measuring() -> Driver {
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.event(Event::Established);
    d.event(Event::Resolved);
    d.event(Event::Prepared);
    d.tick();
    d.tick();
    d.take();
    assert_eq!(d.m.state(), State::Measure);
    d
}

fn restarted(reestablish: bool) -> Event {
    Event::UpfRestarted {
        reestablish,
        message: "the UPF restarted: 8 sessions lost".into(),
    }
}

#[test]
fn a_restart_with_stop_reports_and_neither_deletes_nor_releases() {
    let mut d = measuring();
    d.event(restarted(false));
    assert_eq!(d.take(), [set(Phase::Drain)]);
    d.tick();
    assert_eq!(d.take(), [Action::Collect { step: 0 }]);
    d.collected();
    assert_eq!(d.take(), [Action::Report]);
    d.event(Event::Reported);
    // The UPF holds nothing of the run any more: nothing to delete, no association to release.
    assert!(d.take().is_empty());
    assert!(d.m.is_done());
    assert_eq!(
        d.m.failure(),
        Some("the UPF restarted: 8 sessions lost"),
        "the report names it"
    );
}

#[test]
fn a_restart_with_reestablish_asks_once_and_the_step_goes_on() {
    let mut d = measuring();
    d.event(restarted(true));
    assert_eq!(d.take(), [Action::Reestablish]);
    assert_eq!(d.m.state(), State::Measure, "the step goes on");
    assert!(!d.m.stopped_early());
    // Another restart seen while re-establishing asks nothing more.
    d.event(restarted(true));
    assert!(d.take().is_empty());
    d.event(Event::Reestablished);
    d.event(Event::AllSent);
    d.tick();
    d.take();
    d.collected();
    d.event(Event::Reported);
    // The sessions set up again are deleted and the new association released.
    assert_eq!(d.take(), [Action::Report, Action::Delete]);
    d.event(Event::Deleted);
    d.event(Event::Released);
    assert!(d.m.is_done());
    assert_eq!(d.m.failure(), None);
}

#[test]
fn a_step_that_ends_while_reestablishing_waits_for_it_before_deleting() {
    let mut d = measuring();
    d.event(restarted(true));
    d.take();
    d.event(Event::AllSent);
    d.tick();
    d.collected();
    d.event(Event::Reported);
    assert_eq!(
        d.take(),
        [
            set(Phase::Drain),
            Action::Collect { step: 0 },
            Action::Report,
            Action::CancelEstablishment
        ]
    );
    assert_eq!(d.m.state(), State::Establishing);
    d.event(Event::Reestablished);
    assert_eq!(d.take(), [Action::Delete]);
}

#[test]
fn a_failed_reestablishment_stops_the_run_and_deletes_what_it_established() {
    let mut d = measuring();
    d.event(restarted(true));
    d.take();
    d.event(Event::Failed("PFCP association: timed out".into()));
    d.event(Event::Reestablished);
    assert_eq!(d.take(), [set(Phase::Drain)]);
    d.tick();
    d.collected();
    d.event(Event::Reported);
    assert_eq!(
        d.take(),
        [Action::Collect { step: 0 }, Action::Report, Action::Delete]
    );
    assert_eq!(d.m.failure(), Some("PFCP association: timed out"));
}

#[test]
fn a_restart_before_the_steps_stops_the_run_even_with_reestablish() {
    let mut d = Driver::new(timing(), 1, true);
    d.event(Event::Associated);
    d.take();
    d.event(restarted(true));
    assert!(!d.take().contains(&Action::Reestablish));
    assert!(d.m.stopped_early());
    assert!(d.m.failure().is_some());
}

#[test]
fn a_lost_upf_stops_the_run_and_is_asked_nothing_more() {
    let mut d = measuring();
    d.event(Event::UpfLost(
        "the UPF stopped answering: heartbeat lost after 4 tries".into(),
    ));
    assert_eq!(d.take(), [set(Phase::Drain)]);
    d.tick();
    d.collected();
    d.event(Event::Reported);
    assert_eq!(d.take(), [Action::Collect { step: 0 }, Action::Report]);
    assert!(d.m.is_done());
    assert!(d.m.failure().unwrap().contains("heartbeat lost"));
}
