//! `upfbench`: a DPDK poll-mode traffic generator and reflector for benchmarking 5G UPFs.
//!
//! Only the command-line skeleton exists so far: no subcommand generates traffic yet.
#![forbid(unsafe_code)]

use clap::Parser;

/// DPDK traffic generator and reflector for benchmarking 5G User Plane Functions.
#[derive(Debug, Parser)]
#[command(name = "upfbench", version, about)]
struct Cli {}

fn main() -> anyhow::Result<()> {
    let _cli = Cli::parse();
    Ok(())
}
