//! The run from EAL on: the ports and pools brought up, the peers waited for, the plans, rules
//! and sessions made, the control thread started; then the run's phases (the [`Interpreter`]
//! in the workers' scope); then the control plane's figures and the report's final files.

use std::cell::OnceCell;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use upfbench_dpdk::{DEFAULT_DATA_ROOM, Eal, Mempool, Port, Socket, tsc};
use upfbench_net::Teid;

use super::interpreter::{Interpreter, Record, Testbed};
use super::n4::N4Work;
use super::program::{FixedSteps, Program};
use super::{Setup, end_early};
use crate::commands::capacity::CapacityProgram;
use crate::commands::peers::{EarlyStop, wait_for_links};
use crate::commands::search::{self, program::SearchProgram};
use crate::datapath::classify::RxRules;
use crate::metrics::PfcpMetrics;
use crate::n4::client_side::{ClientSide, ClientThread};
use crate::report::{self, ControlTimes, RunEvent, Timeline};
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_config as config;
use upfbench_datapath::calibration::TscCalibration;
use upfbench_datapath::port_setup::{port_config, rx_pool, split_queues};
use upfbench_datapath::queues::Side;
use upfbench_datapath::rx_spread::rx_spread;
use upfbench_datapath::service::Interface;
use upfbench_run::lifecycle::{Lifecycle, Timing};
use upfbench_run::phase::{Phase, PhaseBoard};
use upfbench_run::plan::{self, Plan, UplinkTeids};

const SERVICE_POOL: u32 = 2047;

fn interface(port: &Port<'_>, cfg: &config::Port) -> Result<Interface> {
    let address = cfg.address_v4()?;
    Ok(Interface {
        mac: port.mac()?,
        address: address.addr,
        prefix_len: address.len,
        secondary: None,
    })
}

/// Sets the workers' phase to [`Phase::Stop`] when dropped.
struct StopOnDrop<'a>(&'a PhaseBoard);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.set(Phase::Stop, 0);
    }
}

/// The record of a run starting now: its report and timeline, nothing measured yet.
pub(super) fn new_record(setup: &Setup<'_>) -> Record {
    let run_started = Instant::now();
    Record {
        timeline: Timeline::new(run_started, report::now_unix_ms()),
        report: report::new_report(setup.identity()),
        steps: Vec::new(),
        folder: None,
        run_started,
        calibration: TscCalibration::new(setup.first_anchor),
    }
}

#[allow(clippy::too_many_lines)]
pub(super) fn execute(eal: &Eal, setup: &Setup<'_>, interrupts: &Interrupts) -> Result<()> {
    let system = setup.system;
    let hz = eal.tsc_hz();
    let mut n3 = Port::from_name(eal, &setup.names[0])
        .with_context(|| format!("N3 port {}", setup.names[0]))?;
    let mut n6 = Port::from_name(eal, &setup.names[1])
        .with_context(|| format!("N6 port {}", setup.names[1]))?;
    let mut interfaces = [interface(&n3, &system.n3)?, interface(&n6, &system.n6)?];
    // The handovers' target gNB is ours too: the UPF finds it by ARP on N3.
    interfaces[0].secondary = setup.profile.mobility.as_ref().map(|m| m.target.address);
    let peers = [system.n3.peer_v4()?, system.n6.peer_v4()?];
    let queues = [
        system.n3.queue_count(&system.cores),
        system.n6.queue_count(&system.cores),
    ];
    let pools = [
        rx_pool(eal, "rx-n3", queues[0], system.n3.rx_descriptors)?,
        rx_pool(eal, "rx-n6", queues[1], system.n6.rx_descriptors)?,
    ];
    let service_pool = Mempool::new(
        eal,
        "service",
        SERVICE_POOL,
        128,
        DEFAULT_DATA_ROOM,
        Socket::Any,
    )?;
    let mut record = new_record(setup);
    let stop = || interrupts.any();
    let configs = [
        port_config(
            &n3,
            queues[0],
            system.n3.rx_descriptors,
            system.n3.tx_descriptors,
        )?,
        port_config(
            &n6,
            queues[1],
            system.n6.rx_descriptors,
            system.n6.tx_descriptors,
        )?,
    ];
    let s3 = n3.start(&configs[0], &pools[0]).context("starting N3")?;
    let s6 = n6.start(&configs[1], &pools[1]).context("starting N6")?;
    // Our downlink TEIDs are given out `step` apart: they differ first in the step's lowest
    // set bit.
    let teid_shift = setup.profile.sessions.downlink_teid.step.trailing_zeros();
    let rx_spread = [(Side::N3, &s3), (Side::N6, &s6)].map(|(side, port)| {
        let c = &configs[side.index()];
        let spread = rx_spread(side, c.rx_queues, c.rss, || {
            port.steer_gtpu_by_teid(teid_shift)
        });
        record.report.config.insert(
            format!("{} rx", side.name().to_lowercase()),
            spread.description.clone(),
        );
        record.report.warnings.extend(spread.warning);
        spread.description
    });
    let links = match wait_for_links([&*s3, &*s6], &setup.names, &stop) {
        Ok(speeds) => speeds,
        Err(e) => return end_early(setup, &mut record, e),
    };
    // A search's plans are its cases' (a payload and direction set each), the trials' loads
    // aside.
    let search_cases = setup
        .search
        .then(|| search::cases::cases(setup.profile, &setup.payloads));
    // `-m`: each step's profile with its streams' rates scaled.
    let (multiplied, multiplier) = super::multiply::steps(setup, links)?;
    record.report.multiplier = multiplier;
    let profile_at = |i: usize| multiplied.get(i).map_or(setup.profile, |m| &m.profile);
    let plans = match &search_cases {
        None => setup
            .payloads
            .iter()
            .enumerate()
            .map(|(i, &p)| plan::build(system, profile_at(i), p, links))
            .collect::<Result<Vec<Plan>, _>>()?,
        Some(cases) => cases
            .iter()
            .map(|c| plan::build(system, &c.profile, c.payload, links))
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
    let first = &plans[0];
    let rules: Vec<RxRules> = plans
        .iter()
        .map(|p| {
            RxRules::new(p.ues, p.qfi, &p.streams)
                .with_handovers(p.handovers.clone())
                .with_churn(p.churn.as_ref())
        })
        .collect();
    // The churn sessions are UEs after the traffic's: one table of plans, split.
    let (sessions, churn_sessions) = if setup.pfcp {
        let ues = plans
            .iter()
            .map(Plan::session_ues)
            .max_by_key(|u| u.count)
            .unwrap_or(first.ues);
        let mut all = plan::sessions::session_plans(system, setup.profile, &ues)?;
        let churn = all.split_off(first.ues.count as usize);
        (all, churn)
    } else {
        (Vec::new(), Vec::new())
    };
    let idle_queues = split_queues(s3.queues()?, s6.queues()?)
        .into_iter()
        .map(Some)
        .collect();

    let client = ClientThread::start(setup.pfcp.then(|| {
        let p = system.pfcp.as_ref().expect("checked");
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
    }))?;
    if interrupts.any() {
        let doing = "while being set up".to_owned();
        return end_early(setup, &mut record, EarlyStop::Interrupted(doing));
    }

    let timing = Timing {
        warmup: first.warmup,
        // The warm-up's packets drain before the measured ones go.
        settle: if first.warmup.is_zero() {
            Duration::ZERO
        } else {
            first.drain.max(Duration::from_millis(100))
        },
        measure_limit: first.expected + first.expected / 2 + Duration::from_secs(2),
        drain: first.drain,
        quiet_limit: None,
    };
    let control = PhaseBoard::new();
    // A climb's steps each have receive rules of their own (fewer or more UEs), made as each
    // step is prepared; their cells live as long as the workers that read them.
    let climb_rules: Vec<OnceCell<RxRules>> = if setup.capacity {
        (0..CapacityProgram::steps_at_most(setup.profile))
            .map(|_| OnceCell::new())
            .collect()
    } else {
        Vec::new()
    };
    let mut program: Box<dyn Program<'_> + '_> = match search_cases {
        None if setup.capacity => {
            let step = setup.profile.capacity.step();
            let timing = Timing {
                measure_limit: step + step / 2 + Duration::from_secs(2),
                ..timing
            };
            Box::new(CapacityProgram::new(
                system,
                profile_at(0),
                links,
                &climb_rules,
                timing,
                first.qfi,
            ))
        }
        None => Box::new(FixedSteps {
            plans: &plans,
            rules: &rules,
            timing,
            baseline: None,
        }),
        Some(cases) => Box::new(SearchProgram::new(
            system,
            &setup.profile.search,
            cases,
            &plans,
            &rules,
            links,
        )?),
    };
    let mut machine = Lifecycle::new(program.first_timing(), setup.pfcp);
    let upf_chooses_teids = matches!(first.ues.uplink_teid, UplinkTeids::ChosenByUpf);
    let uplink_teids: Vec<Teid> = match first.ues.uplink_teid {
        UplinkTeids::Sequence(s) => (0..first.ues.count).map(|i| s.get(i)).collect(),
        UplinkTeids::ChosenByUpf => Vec::new(),
    };
    // A request's whole retransmission time, and one T1 more: a batch with failures and no
    // success for that long talks to a UPF that stopped answering.
    let give_up = system
        .pfcp
        .as_ref()
        .map_or(Duration::from_secs(15), |p| p.t1 * (p.n1 + 2));
    let n4 = N4Work::new(&client, &sessions, peers[0], give_up).with_churn(&churn_sessions);
    let bed = Testbed {
        setup,
        eal,
        ports: [&*s3, &*s6],
        rx_spread,
        interfaces,
        peers,
        service_pool,
        control: &control,
        interrupts,
        // Ticks become nanoseconds from here; each step gets the frequency measured when it
        // starts.
        clock_start: tsc(),
        dpdk_hz: hz,
    };
    let outcome = eal.scope(|scope| -> Result<ControlTimes> {
        // However this closure ends (a panic included), the workers leave their loop: the
        // scope waits for them.
        let _stop_workers = StopOnDrop(&control);
        Interpreter::new(
            &bed,
            scope,
            &mut machine,
            &mut record,
            &mut *program,
            n4,
            idle_queues,
            uplink_teids,
            upf_chooses_teids,
        )
        .run()
    });
    let report = &mut record.report;
    if setup.pfcp
        && let Ok(times) = &outcome
    {
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
        let times = &times;
        if let (Some(f), Some(st)) = (figures, stats) {
            let upf = system
                .pfcp
                .as_ref()
                .map_or(String::new(), |p| p.peer.to_string());
            let control = report::control_report(upf, sessions.len() as u64, times, &f, &st);
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
                report.warnings.push(message);
            }
            report.control = Some(control);
        }
    }
    drop(client);
    outcome?;
    if let Some(folder) = &record.folder {
        let hlogs: Vec<_> = record.steps.iter().map(|s| (&s.report, &s.hlog)).collect();
        report::write_files(report, &hlogs, &record.timeline, folder)?;
        out::text(&report.to_table());
        out::line(&format!("\nreports: {}", folder.display()));
    }
    drop(program);
    drop((s3, s6));
    match machine.failure() {
        Some(f) => bail!("{f}"),
        None if machine.stopped_early() => {
            out::line("interrupted: the report holds what was measured");
            Ok(())
        }
        None => Ok(()),
    }
}
