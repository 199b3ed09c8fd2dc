//! The command line: one subcommand per job.

use clap::{Args, Parser, Subcommand};

/// DPDK traffic generator and reflector for benchmarking 5G User Plane Functions.
#[derive(Debug, Parser)]
#[command(name = "upfbench", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the DPDK ports that the given EAL arguments produce: id, name, driver, MAC, link, speed.
    ///
    /// Example: upfbench ports -- --no-huge -m 512 --no-pci --vdev net_ring0 --vdev net_null0
    Ports(PortsArgs),
}

/// Arguments of `upfbench ports`.
#[derive(Debug, Args)]
pub struct PortsArgs {
    /// EAL arguments, as for any DPDK application (`-l`, `-a`, `--vdev`, `--no-huge`,
    /// `--in-memory`, `--file-prefix`, ...). Put them after `--`.
    #[arg(
        value_name = "EAL_ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub eal: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_takes_eal_arguments_after_double_dash() {
        let cli = Cli::try_parse_from([
            "upfbench",
            "ports",
            "--",
            "--no-huge",
            "-m",
            "512",
            "--vdev",
            "net_null0",
        ])
        .expect("parses");
        let Command::Ports(args) = cli.command;
        assert_eq!(args.eal, ["--no-huge", "-m", "512", "--vdev", "net_null0"]);
    }

    #[test]
    fn ports_takes_eal_arguments_without_double_dash() {
        let cli = Cli::try_parse_from(["upfbench", "ports", "--vdev", "net_ring0", "--no-pci"])
            .expect("parses");
        let Command::Ports(args) = cli.command;
        assert_eq!(args.eal, ["--vdev", "net_ring0", "--no-pci"]);
    }

    #[test]
    fn a_subcommand_is_required() {
        assert!(Cli::try_parse_from(["upfbench"]).is_err());
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
