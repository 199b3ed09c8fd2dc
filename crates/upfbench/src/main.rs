//! `upfbench`: a DPDK poll-mode traffic generator and reflector for benchmarking 5G UPFs.
#![forbid(unsafe_code)]

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use upfbench_cli::{Cli, Command};
use upfbench_generator::commands::{generate, generate::Mode, validate};

mod cluster;
mod compare;

use cluster::ClusterMode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Colour only on a terminal: in a file, a pipe or a CI log the escape codes are noise.
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    // A run over agents (`--cluster`) is the coordinator's: no EAL, no ports of this box.
    let over_agents = match &cli.command {
        Command::Run(args) if args.cluster.is_some() => Some(cluster::run(args, ClusterMode::Run)),
        Command::Sweep(args) if args.run.cluster.is_some() => Some(cluster::run(
            &args.run,
            ClusterMode::Sweep(args.payloads.as_deref()),
        )),
        Command::Search(args) if args.run.cluster.is_some() => Some(cluster::run(
            &args.run,
            ClusterMode::Search(args.payloads.as_deref()),
        )),
        Command::Capacity(args) if args.cluster.is_some() => Some(Err(anyhow::anyhow!(
            "capacity --cluster is not built yet (docs/scale.md §8 step 10)"
        ))),
        _ => None,
    };
    if let Some(result) = over_agents {
        return result.unwrap_or_else(|e| {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        });
    }
    let result = match &cli.command {
        Command::Ports(args) => upfbench_ops::ports::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Reflect(args) => upfbench_reflector::run(args),
        Command::Agent(args) => upfbench_generator::commands::agent::run(args),
        Command::Run(args) => generate::run(args, Mode::Run),
        Command::Sweep(args) => generate::run(&args.run, Mode::Sweep(args.payloads.as_deref())),
        Command::Search(args) => generate::run(&args.run, Mode::Search(args.payloads.as_deref())),
        Command::Capacity(args) => generate::run(args, Mode::Capacity),
        Command::Compare(args) => compare::run(args),
        Command::Doctor(args) => upfbench_ops::doctor::run(args),
        Command::Nics(args) => upfbench_ops::nics::run(args),
        Command::Bind(args) => upfbench_ops::nics::bind::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}
