//! One run on a testbed that is up ([`Bed`]): the plans, rules and sessions made, the control
//! thread started; then the run's phases (the [`Interpreter`] in the workers' scope); then the
//! control plane's figures and the report's final files. `upfbench run` is one session on a
//! testbed brought up for it; an agent runs one after another on the same testbed.

use std::cell::OnceCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use upfbench_dpdk::tsc;
use upfbench_net::Teid;

use super::bed::{Bed, Began, WorkerQueues};
use super::interpreter::{Interpreter, Record, TestPair, Testbed};
use super::n4::N4Work;
use super::program::{FixedSteps, Program, step_timing};
use super::{Setup, end_early};
use crate::commands::capacity::CapacityProgram;
use crate::commands::peers::EarlyStop;
use crate::commands::search::program::SearchProgram;
use crate::datapath::classify::RxRules;
use crate::metrics::PfcpMetrics;
use crate::report::{self, ControlTimes, RunEvent, Timeline};
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config::Profile;
use upfbench_config::overrides::Multiplied;
use upfbench_datapath::calibration::TscCalibration;
use upfbench_datapath::vlan::PortVlans;
use upfbench_n4::client_side::{ClientSide, ClientThread};
use upfbench_pfcp::plan::UeSessionPlan;
use upfbench_profile_search::case::Case;
use upfbench_run::lifecycle::{Lifecycle, Timing};
use upfbench_run::phase::{Phase, PhaseBoard};
use upfbench_run::plan::{self, Plan, UplinkTeids};

/// Sets the workers' phase to [`Phase::Stop`] when dropped.
struct StopOnDrop<'a>(&'a PhaseBoard);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.set(Phase::Stop, 0);
    }
}

/// The record of a run that began at `began`: its report and timeline, nothing measured yet.
pub(super) fn new_record(setup: &Setup<'_>, began: Began) -> Record {
    Record {
        timeline: Timeline::new(began.at, began.unix_ms),
        report: report::new_report(setup.identity(), began.unix_ms),
        steps: Vec::new(),
        folder: None,
        run_started: began.at,
        calibration: TscCalibration::new(setup.first_anchor),
    }
}

/// How a session ended: where its report is (none when it failed before writing one), and
/// its failure or interruption as the command says it.
pub(crate) struct Ended {
    pub(crate) folder: Option<PathBuf>,
    pub(crate) outcome: Result<()>,
}

/// One run on the testbed `bed`, begun at `began` (see the module's documentation): its
/// plans, sessions and control thread, its phases, then the control plane's figures and the
/// report's files. The workers' queues go back to the testbed when it ends.
pub(super) fn run(
    bed: &Bed<'_, '_>,
    began: Began,
    setup: &Setup<'_>,
    interrupts: &Interrupts,
) -> Ended {
    let mut record = new_record(setup, began);
    bed.notes.apply(&mut record.report);
    let outcome = run_recorded(bed, setup, interrupts, &mut record);
    Ended {
        folder: record.folder,
        outcome,
    }
}

/// One run of `program`'s steps on the testbed `bed`, begun at `began`, without PFCP (a
/// coordinator holds N4: an agent's segment, docs/scale.md §3): the program plans each step
/// and gives its receive rules; `uplink_teids` are UE i's at index i; the workers' phases are
/// set on `control`. Then the report's files, as [`run`] writes them.
pub(super) fn run_program<'b: 's, 'e: 's, 's>(
    bed: &Bed<'b, 'e>,
    began: Began,
    setup: &Setup<'_>,
    interrupts: &Interrupts,
    (control, program): (&'s PhaseBoard, &mut dyn Program<'s>),
    uplink_teids: Vec<Teid>,
) -> Ended {
    let mut record = new_record(setup, began);
    bed.notes.apply(&mut record.report);
    let outcome = (|| {
        let idle_queues = bed.worker_queues()?;
        let client = start_client(setup)?;
        let mut machine = Lifecycle::new(program.first_timing(), false);
        let n4 = N4Work::new(&client, &[], upf_n3(bed), give_up(setup));
        let testbed = Testbed {
            setup,
            eal: bed.eal,
            pairs: test_pairs(bed, setup),
            service_pool: bed.service_pool,
            control,
            interrupts,
            clock_start: tsc(),
            dpdk_hz: bed.eal.tsc_hz(),
        };
        let outcome = interpret(
            &testbed,
            &mut machine,
            &mut record,
            program,
            n4,
            idle_queues,
            (uplink_teids, false),
        );
        drop(client);
        outcome?;
        write_files(&record)?;
        ending(&machine)
    })();
    Ended {
        folder: record.folder,
        outcome,
    }
}

fn run_recorded(
    bed: &Bed<'_, '_>,
    setup: &Setup<'_>,
    interrupts: &Interrupts,
    record: &mut Record,
) -> Result<()> {
    let StepPlans {
        search_cases,
        multiplied,
        plans,
    } = step_plans(setup, &bed.links(), record)?;
    let vlans: Vec<PortVlans> = bed.pairs.iter().map(|p| p.vlans).collect();
    let rules = rx_rules(&plans, &vlans);
    let (sessions, churn_sessions) = session_plans(setup, &plans)?;
    let idle_queues = bed.worker_queues()?;
    let client = start_client(setup)?;
    if interrupts.any() {
        let doing = "while being set up".to_owned();
        return end_early(setup, record, EarlyStop::Interrupted(doing));
    }
    let control = PhaseBoard::new();
    // A climb's steps each have receive rules of their own (fewer or more UEs), made as each
    // step is prepared; their cells live as long as the workers that read them.
    let climb_rules = climb_rules(setup);
    let steps = Steps {
        plans: &plans,
        rules: &rules,
        climb_rules: &climb_rules,
        profile: multiplied.first().map_or(setup.profile, |m| &m.profile),
        links: bed.links(),
        vlans,
    };
    let mut program = program(setup, search_cases, &steps)?;
    let mut machine = Lifecycle::new(program.first_timing(), setup.pfcp);
    let teids = uplink_teids(&plans[0]);
    let n4 =
        N4Work::new(&client, &sessions, upf_n3(bed), give_up(setup)).with_churn(&churn_sessions);
    let testbed = Testbed {
        setup,
        eal: bed.eal,
        pairs: test_pairs(bed, setup),
        service_pool: bed.service_pool,
        control: &control,
        interrupts,
        // Ticks become nanoseconds from here; each step gets the frequency measured when it
        // starts.
        clock_start: tsc(),
        dpdk_hz: bed.eal.tsc_hz(),
    };
    let outcome = interpret(
        &testbed,
        &mut machine,
        record,
        &mut *program,
        n4,
        idle_queues,
        teids,
    );
    if setup.pfcp
        && let Ok(times) = &outcome
    {
        control_report(setup, &client, times, sessions.len(), record);
    }
    drop(client);
    outcome?;
    write_files(record)?;
    drop(program);
    ending(&machine)
}

/// The UPF's N3 address that the uplink F-TEIDs it chooses must carry: every pair's N3 peer,
/// when they have one (with different ones it is not checked).
fn upf_n3(bed: &Bed<'_, '_>) -> Option<std::net::IpAddr> {
    let first = bed.pairs[0].peers[0];
    bed.pairs
        .iter()
        .all(|p| p.peers[0] == first)
        .then_some(first)
}

/// Each pair of the testbed as the steps use it: the handovers' target gNB is ours too on each
/// pair's N3 (the UPF finds it by ARP).
fn test_pairs<'a>(bed: &'a Bed<'_, '_>, setup: &'a Setup<'_>) -> Vec<TestPair<'a>> {
    bed.pairs
        .iter()
        .zip(setup.system.pairs())
        .map(|(p, config)| {
            let mut interfaces = p.interfaces;
            interfaces[0].secondary = setup.profile.mobility.as_ref().map(|m| m.target.address);
            TestPair {
                name: &p.name,
                config,
                ports: p.ports(),
                rx_spread: p.rx_spread.clone(),
                interfaces,
                vlans: p.vlans,
                peers: p.peers,
            }
        })
        .collect()
}

/// The run's phases: the interpreter in the workers' scope, with the first step's uplink
/// TEIDs (or none, and true: the UPF chooses them).
fn interpret<'a, 'p>(
    bed: &'a Testbed<'a, 'p>,
    machine: &'a mut Lifecycle,
    record: &'a mut Record,
    program: &'a mut dyn Program<'p>,
    n4: N4Work<'a>,
    idle_queues: WorkerQueues<'p>,
    (uplink_teids, upf_chooses_teids): (Vec<Teid>, bool),
) -> Result<ControlTimes> {
    bed.eal.scope(|scope| -> Result<ControlTimes> {
        // However this closure ends (a panic included), the workers leave their loop: the
        // scope waits for them.
        let _stop_workers = StopOnDrop(bed.control);
        Interpreter::new(
            bed,
            scope,
            machine,
            record,
            program,
            n4,
            idle_queues,
            uplink_teids,
            upf_chooses_teids,
        )
        .run()
    })
}

/// How the run ended, for the command: its failure, or an interruption (the report holds
/// what was measured).
fn ending(machine: &Lifecycle) -> Result<()> {
    match machine.failure() {
        Some(f) => bail!("{f}"),
        None if machine.stopped_early() => {
            out::line("interrupted: the report holds what was measured");
            Ok(())
        }
        None => Ok(()),
    }
}

/// The steps' plans, and what they were made from.
struct StepPlans {
    /// A search's cases (a payload and direction set each), the trials' loads aside.
    search_cases: Option<Vec<Case>>,
    /// `-m`: each step's profile with its streams' rates scaled (none without `-m`).
    multiplied: Vec<Multiplied>,
    /// A search's cases', or each payload's with its profile; a step with churn preceded by
    /// the same without it, when the profile asks.
    plans: Vec<Plan>,
}

/// The steps' plans on ports of line rates `links` (each pair's); the multiplier's record in the
/// report.
fn step_plans(
    setup: &Setup<'_>,
    links: &[[Option<f64>; 2]],
    record: &mut Record,
) -> Result<StepPlans> {
    let system = setup.system;
    let search_cases = setup
        .search
        .then(|| upfbench_profile_search::case::cases(setup.profile, &setup.payloads));
    // A multiplier in % is of the first pair's line rate.
    let first_links = links.first().copied().unwrap_or_default();
    let (multiplied, multiplier) = super::multiply::steps(setup, first_links)?;
    record.report.multiplier = multiplier;
    let profile_at = |i: usize| multiplied.get(i).map_or(setup.profile, |m| &m.profile);
    let plans = match &search_cases {
        None => setup
            .payloads
            .iter()
            .enumerate()
            .map(|(i, &p)| plan::build_pairs(system, profile_at(i), p, links))
            .collect::<Result<Vec<Plan>, _>>()?,
        Some(cases) => cases
            .iter()
            .map(|c| plan::build_pairs(system, &c.profile, c.payload, links))
            .collect::<Result<Vec<Plan>, _>>()?,
    };
    // A step with churn runs first without it, for its loss, when the profile asks.
    let plans = if setup.profile.churn.is_some_and(|c| c.baseline) {
        plans
            .into_iter()
            .flat_map(|p| {
                let mut off = p.clone();
                if let Some(c) = &mut off.churn {
                    c.on = false;
                }
                [off, p]
            })
            .collect()
    } else {
        plans
    };
    Ok(StepPlans {
        search_cases,
        multiplied,
        plans,
    })
}

/// Each step's receive rules, one per port pair, on ports tagged with its `vlans`.
fn rx_rules(plans: &[Plan], vlans: &[PortVlans]) -> Vec<Vec<RxRules>> {
    plans
        .iter()
        .map(|p| {
            let rules = RxRules::new(p.ues, p.qfi, &p.streams)
                .with_handovers(p.handovers.clone())
                .with_churn(p.churn.as_ref());
            vlans.iter().map(|&v| rules.clone().with_vlans(v)).collect()
        })
        .collect()
}

/// The sessions' PFCP plans, for the most UEs any step has: the traffic's, then the churn
/// sessions' (UEs after the traffic's: one table of plans, split). None without PFCP.
fn session_plans(
    setup: &Setup<'_>,
    plans: &[Plan],
) -> Result<(Vec<UeSessionPlan>, Vec<UeSessionPlan>)> {
    if !setup.pfcp {
        return Ok((Vec::new(), Vec::new()));
    }
    let first = &plans[0];
    let ues = plans
        .iter()
        .map(Plan::session_ues)
        .max_by_key(|u| u.count)
        .unwrap_or(first.ues);
    let mut all = plan::sessions::session_plans(setup.system, setup.profile, &ues)?;
    let churn = all.split_off(first.ues.count as usize);
    Ok((all, churn))
}

/// The control thread, with the PFCP client side when the run uses PFCP.
fn start_client(setup: &Setup<'_>) -> Result<ClientThread> {
    ClientThread::start(setup.pfcp.then(|| {
        let p = setup.system.pfcp.as_ref().expect("checked");
        ClientSide {
            local: p.local,
            peer: p.peer,
            t1: p.t1,
            n1: p.n1,
            heartbeat: p.heartbeat,
            initial_window: p.window.initial as usize,
            window: p.window.max as usize,
            release_wait: p.release_wait,
        }
    }))
    .map_err(anyhow::Error::from)
}

/// A climb's steps' receive rules (each pair's), each made when its step is prepared (none but
/// for a climb).
fn climb_rules(setup: &Setup<'_>) -> Vec<OnceCell<Vec<RxRules>>> {
    if setup.capacity {
        (0..CapacityProgram::steps_at_most(setup.profile))
            .map(|_| OnceCell::new())
            .collect()
    } else {
        Vec::new()
    }
}

/// The first step's uplink TEIDs, one per UE, unless the UPF chooses them (then true).
fn uplink_teids(first: &Plan) -> (Vec<Teid>, bool) {
    match first.ues.uplink_teid {
        UplinkTeids::Sequence(s) => ((0..first.ues.count).map(|i| s.get(i)).collect(), false),
        UplinkTeids::ChosenByUpf => (Vec::new(), true),
    }
}

/// What the steps' program is made from.
struct Steps<'s> {
    plans: &'s [Plan],
    /// Each step's rules, one per pair.
    rules: &'s [Vec<RxRules>],
    /// A climb's steps' rules, made as each is prepared.
    climb_rules: &'s [OnceCell<Vec<RxRules>>],
    /// The first step's profile.
    profile: &'s Profile,
    /// Each pair's ports' line rates.
    links: Vec<[Option<f64>; 2]>,
    /// Each pair's ports' tags, as their devices handle them.
    vlans: Vec<PortVlans>,
}

/// The program of the run's steps: a climb's, the fixed steps of a run or sweep, or a search
/// over `search_cases`.
fn program<'s>(
    setup: &Setup<'s>,
    search_cases: Option<Vec<Case>>,
    steps: &Steps<'s>,
) -> Result<Box<dyn Program<'s> + 's>> {
    let system = setup.system;
    let first = &steps.plans[0];
    let timing = step_timing(first);
    Ok(match search_cases {
        None if setup.capacity => {
            let step = setup.profile.capacity.step();
            let timing = Timing {
                measure_limit: step + step / 2 + Duration::from_secs(2),
                ..timing
            };
            Box::new(
                CapacityProgram::new(
                    system,
                    steps.profile,
                    steps.links.clone(),
                    steps.climb_rules,
                    timing,
                    first.qfi,
                )
                .with_vlans(steps.vlans.clone()),
            )
        }
        None => Box::new(FixedSteps {
            plans: steps.plans,
            rules: steps.rules,
            timing,
            baseline: None,
        }),
        Some(cases) => Box::new(
            SearchProgram::new(
                system,
                &setup.profile.search,
                cases,
                steps.plans,
                steps.rules,
                steps.links.clone(),
            )?
            .with_board(setup.live),
        ),
    })
}

/// A request's whole retransmission time, and one T1 more: a batch with failures and no
/// success for that long talks to a UPF that stopped answering.
fn give_up(setup: &Setup<'_>) -> Duration {
    setup
        .system
        .pfcp
        .as_ref()
        .map_or(Duration::from_secs(15), |p| p.t1 * (p.n1 + 2))
}

/// The report's control plane section, from the control thread's figures and the run's
/// `times` (`sessions` established), with a warning when the UPF lost sessions; and the
/// metrics endpoint's PFCP figures.
fn control_report(
    setup: &Setup<'_>,
    client: &ClientThread,
    times: &ControlTimes,
    sessions: usize,
    record: &mut Record,
) {
    let figures = client.figures().wait().ok().flatten();
    let stats = client.stats().wait().ok().flatten();
    if let Some(m) = setup.metrics {
        if let Some(s) = stats {
            m.pfcp_stats(s);
        }
        if let Some(f) = &figures {
            m.pfcp_figures(f);
        }
    }
    let mut times = times.clone();
    for s in &record.steps {
        if let Some(c) = &s.report.churn {
            times.churn.0 += c.establishments.succeeded;
            times.churn.1 += c.deletions.succeeded;
        }
    }
    let (Some(f), Some(st)) = (figures, stats) else {
        return;
    };
    let upf = setup
        .system
        .pfcp
        .as_ref()
        .map_or(String::new(), |p| p.peer.to_string());
    let control = report::control_report(upf, sessions as u64, &times, &f, &st);
    if control.lost_sessions > 0 {
        let message = format!(
            "the UPF no longer knew {} sessions when they were deleted (Cause 65): it \
             removed them during the run (Open5GS does so when it takes the run for a CP \
             restart), so their flows' losses may be the UPF's session handling, not its \
             forwarding",
            control.lost_sessions
        );
        record.timeline.record(
            Instant::now(),
            RunEvent::Warning {
                step: None,
                message: message.clone(),
            },
        );
        record.report.warnings.push(message);
    }
    record.report.control = Some(control);
}

/// The report's files in its folder, if it has one, and its table on the terminal.
fn write_files(record: &Record) -> Result<()> {
    let Some(folder) = &record.folder else {
        return Ok(());
    };
    let report = &record.report;
    let hlogs: Vec<_> = record.steps.iter().map(|s| (&s.report, &s.hlog)).collect();
    report::write_files(report, &hlogs, &record.timeline, folder)?;
    out::text(&report.to_table());
    out::line(&format!("\nreports: {}", folder.display()));
    Ok(())
}
