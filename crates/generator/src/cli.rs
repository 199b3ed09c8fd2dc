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
    /// Check system files, profiles and reflector files without touching a port or a UPF.
    ///
    /// The kind of each file is told by its content. Each profile is also checked against each
    /// system file given with it (UE pool against the ports' subnets, payloads against MTUs,
    /// rates against line rates). Prints `ok: FILE (...)` or the problems found, one per line
    /// as `file:line:column: field: message`; exits nonzero if any.
    ///
    /// Example: upfbench validate deploy/systems/memif.yaml profiles/quickstart.yaml
    Validate(ValidateArgs),
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

/// Arguments of `upfbench validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The files to check.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<std::path::PathBuf>,
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
        let Command::Ports(args) = cli.command else {
            panic!("ports expected");
        };
        assert_eq!(args.eal, ["--no-huge", "-m", "512", "--vdev", "net_null0"]);
    }

    #[test]
    fn ports_takes_eal_arguments_without_double_dash() {
        let cli = Cli::try_parse_from(["upfbench", "ports", "--vdev", "net_ring0", "--no-pci"])
            .expect("parses");
        let Command::Ports(args) = cli.command else {
            panic!("ports expected");
        };
        assert_eq!(args.eal, ["--vdev", "net_ring0", "--no-pci"]);
    }

    #[test]
    fn validate_takes_one_or_more_files() {
        let cli =
            Cli::try_parse_from(["upfbench", "validate", "a.yaml", "b.yaml"]).expect("parses");
        let Command::Validate(args) = cli.command else {
            panic!("validate expected");
        };
        assert_eq!(
            args.files,
            [std::path::Path::new("a.yaml"), "b.yaml".as_ref()]
        );
        assert!(Cli::try_parse_from(["upfbench", "validate"]).is_err());
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
