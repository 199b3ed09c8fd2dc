//! The run from EAL on: the testbed brought up ([`bed`](super::bed)), one run on it
//! ([`session`](super::session)), the testbed taken down; or, when the ports never became
//! usable, the report of a run that measured nothing.

use anyhow::Result;
use upfbench_dpdk::Eal;

use super::bed::{self, Up};
use super::session::{self, new_record};
use super::{Setup, end_early};
use upfbench_cli::signals::Interrupts;

/// The run from EAL on (see the module's documentation).
pub(super) fn execute(eal: &Eal, setup: &Setup<'_>, interrupts: &Interrupts) -> Result<()> {
    // Our downlink TEIDs are given out `step` apart: they differ first in the step's lowest
    // set bit.
    let teid_shift = setup.profile.sessions.downlink_teid.step.trailing_zeros();
    let up = bed::up(
        eal,
        setup.system,
        &setup.names,
        teid_shift,
        &|| interrupts.any(),
        |bed| Ok(session::run(bed, bed.began, setup, interrupts)),
    )?;
    match up {
        Up::Ran(ended) => ended.outcome,
        Up::Early(stop, notes, began) => {
            let mut record = new_record(setup, began);
            notes.apply(&mut record.report);
            end_early(setup, &mut record, stop)
        }
    }
}
