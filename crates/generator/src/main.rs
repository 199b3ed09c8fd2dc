//! `upfbench`: a DPDK poll-mode traffic generator and reflector for benchmarking 5G UPFs.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use upfbench_generator::app;
use upfbench_generator::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let result = match &cli.command {
        Command::Ports(args) => app::ports::run(args),
        Command::Validate(args) => app::validate::run(args),
        Command::Reflect(args) => app::reflect::run(args),
        Command::Run(args) => app::run::run(args, false),
        Command::Sweep(args) => app::run::run(args, true),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}
