//! The command line: one subcommand per job.

use clap::{Args, Parser, Subcommand};

/// DPDK traffic generator and reflector for benchmarking 5G User Plane Functions.
#[derive(Debug, Parser)]
#[command(name = "upfbench", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the DPDK ports that the given EAL arguments produce: id, name, driver, MAC, the VLAN
    /// offloads they offer (insert, strip), link, speed.
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
    /// Stand in for a UPF: a PFCP server on N4 and GTP-U decapsulation (N3 → N6) and
    /// encapsulation (N6 → N3) by the sessions' rules, or an echo on one port; with optional
    /// impairments (drop, duplicate, reorder, delay, rate cap) to test the tester.
    ///
    /// Runs until Ctrl-C or SIGTERM (or `--duration`), printing its counters each second and
    /// at exit.
    ///
    /// Example: upfbench reflect deploy/systems/memif-reflector.yaml
    Reflect(ReflectArgs),
    /// Own this box's ports for programs that drive upfbench over HTTP: start EAL and bring the
    /// ports up once, then run what the API asks for (`POST /v1/runs`: a profile, as a run,
    /// sweep, search or climb; or a coordinator's segment, `PUT /v1/segment`, and its steps,
    /// each started at a common time), one at a time, each with its report as the command line
    /// writes it. The API is described in docs/api.md; it listens on loopback unless told
    /// otherwise, and off loopback only with a bearer token.
    ///
    /// Runs until Ctrl-C or SIGTERM, which stop a run in progress as they stop `run`.
    ///
    /// Example: upfbench agent deploy/systems/memif.yaml --listen 127.0.0.1:9800
    #[command(visible_alias = "serve")]
    Agent(AgentArgs),
    /// Program the UPF's sessions over PFCP, send GTP-U uplink on N3 and plain downlink on N6
    /// at the profile's rates, measure loss, reordering, duplicates and latency of every packet,
    /// and write the report (table, JSON, CSV).
    ///
    /// Ctrl-C or SIGTERM at any time: sending stops, what is in flight drains, the report of
    /// what was measured is written, the sessions are deleted.
    ///
    /// Example: upfbench run deploy/systems/memif.yaml profiles/quickstart.yaml
    Run(RunArgs),
    /// Run the profile once per payload size (its `sweep`, by default 10, 300 and 1400 bytes)
    /// on the same sessions, and end with one table shaped like the published UPF comparisons.
    ///
    /// Example: upfbench sweep deploy/systems/memif.yaml profiles/published.yaml
    Sweep(SweepArgs),
    /// Search the highest load the UPF forwards within each goal (RFC 9971, MLRsearch: NDR and
    /// PDR by default), per payload of the profile's sweep and direction set of its `search`
    /// section, on the same sessions; then measure latency at 10, 50 and 90 % of the PDR.
    ///
    /// Example: upfbench search deploy/systems/memif.yaml profiles/search.yaml
    Search(SweepArgs),
    /// Measure how many sessions the UPF holds: establish them in batches (the profile's
    /// `capacity` section) until the UPF refuses one (its Cause and Offending IE named) or
    /// `sessions.count` is reached, and after each batch run the profile's streams over every
    /// session established so far, to check that the old ones keep forwarding as the table
    /// grows. Reports the count at the first refusal, the establishment rate along the climb,
    /// loss and latency per batch, and the tester's memory.
    ///
    /// Example: upfbench capacity deploy/systems/memif.yaml profiles/capacity.yaml
    Capacity(RunArgs),
    /// Compare reports side by side, as the published UPF comparisons do: a row per payload
    /// size, a column group per report (runs, sweeps and searches in any mix), each named by
    /// its label (`--label`, or the system file's `label`) or else by the part of its folder's
    /// path that differs from the others' (`open5gs-1/sweep` and `eupf-1/sweep`: `open5gs-1`
    /// and `eupf-1`).
    ///
    /// Runs and sweeps give Tx/Rx Gbps, Rx Kpps, loss and p50/p99 latency per direction;
    /// searches their goals' (NDR, PDR) conditional throughput in Mpps and Gbps L1. Prints
    /// Markdown (or CSV); `--out` also writes the tables, the plots and a page.
    ///
    /// Example: upfbench compare reports/*-open5gs-sweep reports/*-eupf-sweep --out compare
    Compare(CompareArgs),
    /// Check what a run needs of this machine, a line per need, each `ok`, `warn` or
    /// `missing` with its fix: hugepages per NUMA node and hugetlbfs, IOMMU and vfio-pci,
    /// each port's device, driver, NUMA node and MTU, isolated cores, the CPU governor, DPDK
    /// and the PMDs the ports need (with rdma-core for Mellanox NICs).
    ///
    /// Without SYSTEM, the machine in general. Exits nonzero if something needed is missing.
    ///
    /// Example: upfbench doctor deploy/systems/connectx5.yaml profiles/published.yaml
    Doctor(DoctorArgs),
    /// List the NICs (PCI network controllers): vendor and device, driver, kernel interface,
    /// NUMA node, and whether DPDK can take each and how.
    Nics(NicsArgs),
    /// Bind a NIC to vfio-pci for DPDK (virtio, Intel), or give it back to its kernel driver
    /// with `--kernel`, as dpdk-devbind does. Mellanox NICs stay on mlx5_core (DPDK drives them
    /// beside it) and are refused; so is a NIC whose interface is up with routes, unless
    /// `--force`.
    ///
    /// Example: upfbench bind 0000:00:04.0
    Bind(BindArgs),
}

/// The directory sysfs and procfs are read under (for tests on made-up trees).
#[derive(Debug, Args)]
pub struct RootArg {
    /// Read (and, for bind, write) /sys and /proc under this directory instead of `/`: for
    /// tests on made-up trees.
    #[arg(long, value_name = "DIR", default_value = "/", hide = true)]
    pub root: std::path::PathBuf,
}

/// Arguments of `upfbench doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A system file (or a reflector file): check what it needs. Without it: the machine in
    /// general.
    #[arg(value_name = "SYSTEM")]
    pub system: Option<std::path::PathBuf>,
    /// A profile to run on SYSTEM: its largest packets are checked against the ports' kernel
    /// MTUs.
    #[arg(value_name = "PROFILE", requires = "system")]
    pub profile: Option<std::path::PathBuf>,
    /// The root.
    #[command(flatten)]
    pub root: RootArg,
}

/// Arguments of `upfbench nics`.
#[derive(Debug, Args)]
pub struct NicsArgs {
    /// The root.
    #[command(flatten)]
    pub root: RootArg,
}

/// Arguments of `upfbench bind`.
#[derive(Debug, Args)]
pub struct BindArgs {
    /// The NIC's PCI address (`0000:00:04.0`; the domain may be left out).
    #[arg(value_name = "ADDR")]
    pub address: String,
    /// The driver to bind it to: vfio-pci, uio_pci_generic or igb_uio.
    #[arg(long, value_name = "DRIVER", default_value = "vfio-pci")]
    pub driver: String,
    /// Give it back to its kernel driver instead.
    #[arg(long, conflicts_with = "driver")]
    pub kernel: bool,
    /// Bind even a NIC whose interface is up with routes, or of a vendor upfbench does not
    /// know.
    #[arg(long)]
    pub force: bool,
    /// Print the writes without making them.
    #[arg(long)]
    pub dry_run: bool,
    /// The root.
    #[command(flatten)]
    pub root: RootArg,
}

/// Arguments of `upfbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Reports: their report.json, or the folders holding one, in the order of the column
    /// groups.
    #[arg(value_name = "REPORT", required = true)]
    pub reports: Vec<std::path::PathBuf>,
    /// Print CSV (one wide table, plain numbers) instead of Markdown.
    #[arg(long)]
    pub csv: bool,
    /// Also write compare.md, compare.csv, the plots (SVG) and report.html (all of it in one
    /// page) into this directory, made if missing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
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

/// Arguments of `upfbench run` and `upfbench sweep`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The system file: EAL, cores, the N3 and N6 ports, the N4 peer. With `--cluster`: the
    /// profile (the agents' own system files give their ports).
    #[arg(value_name = "SYSTEM")]
    pub system: std::path::PathBuf,
    /// The profile: sessions, streams, rates, duration.
    #[arg(value_name = "PROFILE", required_unless_present = "cluster")]
    pub profile: Option<std::path::PathBuf>,
    /// Run over agents (`upfbench agent` on each tester box): the cluster file that lists them
    /// and who holds N4 (docs/scale.md); then give the profile alone, no system file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["no_pfcp", "step_hook"])]
    pub cluster: Option<std::path::PathBuf>,
    /// With `--cluster`: these agents in place of the file's, `NAME=URL,...` (weight 1 each,
    /// no token).
    #[arg(long, value_name = "NAME=URL,...", requires = "cluster")]
    pub agents: Option<String>,
    /// Do not program sessions over PFCP (the UPF is configured by other means).
    #[arg(long)]
    pub no_pfcp: bool,
    /// Write the reports under this directory instead of the system file's.
    #[arg(long, value_name = "DIR")]
    pub reports: Option<std::path::PathBuf>,
    /// Run this shell command (`sh -c`) before each step's first packet and after its drain,
    /// and wait for it (at most 30 s): to read counters outside the tester per step. It finds
    /// UPFBENCH_STEP_EDGE (start or end), UPFBENCH_STEP (1-based), UPFBENCH_STEPS and
    /// UPFBENCH_STEP_LABEL in its environment. A failure is a warning in the report.
    #[arg(long, value_name = "CMD")]
    pub step_hook: Option<String>,
    /// Scale the profile's rates (run, sweep, capacity; not search, which chooses its loads).
    /// A factor of every stream's rate: `50%`, `2x`, `0.5` (a bare number). Or a total: `3Mpps`,
    /// `500kpps`, `10Gbps` (layer 1, as the report counts; `10Gbps L2` for layer 2), the
    /// streams scaled by one factor so that all of them, both directions, add up to it at every
    /// step (each payload of a sweep, each batch of a climb), their proportions kept. Unlike
    /// TRex, `%` is of the profile's rates, not of the line rate. The report records it and the
    /// rates each step came to.
    #[arg(
        short = 'm',
        long,
        value_name = "MULT",
        allow_hyphen_values = true,
        value_parser = parse_multiplier
    )]
    pub multiplier: Option<upfbench_config::Multiplier>,
    /// Send for this long instead of the profile's `duration` (`30s`, `500ms`, `2min`): each
    /// step's measured phase, or for `capacity` the traffic after each batch (`capacity.step`).
    /// Not for search, whose trials have their own durations.
    #[arg(
        short = 'd',
        long,
        value_name = "DURATION",
        allow_hyphen_values = true,
        value_parser = parse_run_duration
    )]
    pub duration: Option<std::time::Duration>,
    /// Name the run in its report, report.html and `upfbench compare` (instead of the system
    /// file's `label`): the UPF and its set-up, `eupf-maps32768`.
    #[arg(long, value_name = "NAME", value_parser = parse_label)]
    pub label: Option<String>,
    /// Prometheus metrics and the run's phase over HTTP.
    #[command(flatten)]
    pub metrics: MetricsArgs,
}

/// Arguments of `upfbench sweep`: those of `run`, and the payloads.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// As for `run`.
    #[command(flatten)]
    pub run: RunArgs,
    /// These payload sizes instead of the profile's `sweep.payloads` (`10,300,1400`), checked
    /// as the profile's are (the tag must fit, and the packets the ports' MTUs).
    #[arg(long, value_name = "BYTES", value_delimiter = ',')]
    pub payloads: Option<Vec<u16>>,
}

/// Arguments of `upfbench reflect`.
#[derive(Debug, Args)]
pub struct ReflectArgs {
    /// The reflector file.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
    /// Echo on this port (n3 or n6) instead of the file's mode: swap L2/L3/L4 addresses and
    /// send every packet back.
    #[arg(long, value_name = "PORT", value_parser = parse_port_name)]
    pub echo: Option<upfbench_config::PortName>,
    /// Stop after this long (`30s`, `2m`); default: run until interrupted.
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Prometheus metrics and the reflector's phase over HTTP.
    #[command(flatten)]
    pub metrics: MetricsArgs,
}

/// Arguments of `upfbench agent`.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The system file: EAL, cores, the N3 and N6 ports, the N4 peer.
    #[arg(value_name = "SYSTEM")]
    pub system: std::path::PathBuf,
    /// Serve the API on this address and port.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:9800")]
    pub listen: std::net::SocketAddr,
    /// The bearer token every request but /health must carry, read from this file (at least 32
    /// bytes; `head -c 32 /dev/urandom | base64 > token`). Needed to listen off loopback.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<std::path::PathBuf>,
    /// Listen off loopback without a token: anyone who reaches the address can run traffic.
    #[arg(long)]
    pub insecure_no_token: bool,
    /// What the agent calls itself in `GET /v1` (default: the host's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Write the runs' reports under this directory instead of the system file's.
    #[arg(long, value_name = "DIR")]
    pub reports: Option<std::path::PathBuf>,
}

fn parse_port_name(s: &str) -> Result<upfbench_config::PortName, String> {
    match s {
        "n3" | "N3" => Ok(upfbench_config::PortName::N3),
        "n6" | "N6" => Ok(upfbench_config::PortName::N6),
        _ => Err(format!("{s:?}: n3 or n6")),
    }
}

/// A duration as the files write it (`500ms`, `10s`, `2m`).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    upfbench_config::parse_duration(s)
}

/// A rate multiplier (`-m`): `50%`, `2x`, `3Mpps`, `10Gbps`.
pub(crate) fn parse_multiplier(s: &str) -> Result<upfbench_config::Multiplier, String> {
    s.parse()
}

/// A run's duration (`-d`): as the files write it, and longer than 0.
pub(crate) fn parse_run_duration(s: &str) -> Result<std::time::Duration, String> {
    match upfbench_config::parse_duration(s)? {
        d if d.is_zero() => Err(format!("{s:?} sends nothing: give a duration above 0")),
        d => Ok(d),
    }
}

/// A run's name (`--label`), checked as the system file's `label` is.
pub(crate) fn parse_label(s: &str) -> Result<String, String> {
    upfbench_config::overrides::check_command_line_label(s).map(|()| s.to_owned())
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
    fn compare_takes_reports_and_its_options() {
        let cli = Cli::try_parse_from(["upfbench", "compare", "a", "b/report.json", "--csv"])
            .expect("parses");
        let Command::Compare(args) = cli.command else {
            panic!("compare expected");
        };
        assert_eq!(
            args.reports,
            [std::path::Path::new("a"), "b/report.json".as_ref()]
        );
        assert!(args.csv && args.out.is_none());
        let cli =
            Cli::try_parse_from(["upfbench", "compare", "a", "--out", "dir"]).expect("parses");
        let Command::Compare(args) = cli.command else {
            panic!("compare expected");
        };
        assert_eq!(args.out.as_deref(), Some(std::path::Path::new("dir")));
        assert!(Cli::try_parse_from(["upfbench", "compare"]).is_err());
    }

    #[test]
    fn doctor_nics_and_bind_take_their_arguments() {
        let cli = Cli::try_parse_from(["upfbench", "doctor"]).expect("parses");
        let Command::Doctor(args) = cli.command else {
            panic!("doctor expected");
        };
        assert!(args.system.is_none() && args.profile.is_none());
        assert_eq!(args.root.root, std::path::Path::new("/"));
        let cli = Cli::try_parse_from(["upfbench", "doctor", "s.yaml", "p.yaml", "--root", "t"])
            .expect("parses");
        let Command::Doctor(args) = cli.command else {
            panic!("doctor expected");
        };
        assert_eq!(
            args.profile.as_deref(),
            Some(std::path::Path::new("p.yaml"))
        );
        assert_eq!(args.root.root, std::path::Path::new("t"));
        let cli = Cli::try_parse_from(["upfbench", "bind", "00:04.0"]).expect("parses");
        let Command::Bind(args) = cli.command else {
            panic!("bind expected");
        };
        assert_eq!((args.driver.as_str(), args.kernel), ("vfio-pci", false));
        let cli = Cli::try_parse_from(["upfbench", "bind", "00:04.0", "--kernel"]).expect("parses");
        let Command::Bind(args) = cli.command else {
            panic!("bind expected");
        };
        assert!(args.kernel);
        assert!(
            Cli::try_parse_from(["upfbench", "bind", "a", "--kernel", "--driver", "igb_uio"])
                .is_err()
        );
        assert!(Cli::try_parse_from(["upfbench", "nics"]).is_ok());
    }

    fn run_args(args: &[&str]) -> Result<RunArgs, String> {
        let mut all = vec!["upfbench", "run", "s.yaml", "p.yaml"];
        all.extend_from_slice(args);
        match Cli::try_parse_from(all).map_err(|e| e.to_string())?.command {
            Command::Run(args) => Ok(args),
            _ => panic!("run expected"),
        }
    }

    #[test]
    fn run_takes_a_multiplier_a_duration_and_a_label() {
        use upfbench_config::MultiplierKind;
        let args = run_args(&["-m", "50%", "-d", "2s", "--label", "eupf 0.6"]).unwrap();
        let m = args.multiplier.expect("-m");
        assert_eq!((m.given(), m.kind()), ("50%", MultiplierKind::Factor(0.5)));
        assert_eq!(args.duration, Some(std::time::Duration::from_secs(2)));
        assert_eq!(args.label.as_deref(), Some("eupf 0.6"));
        let args = run_args(&["--multiplier", "3Mpps", "--duration", "500ms"]).unwrap();
        assert_eq!(
            args.multiplier.map(|m| m.kind()),
            Some(MultiplierKind::TotalPps(3e6))
        );
        assert_eq!(args.duration, Some(std::time::Duration::from_millis(500)));
        let args = run_args(&[]).unwrap();
        assert!(args.multiplier.is_none() && args.duration.is_none() && args.label.is_none());
        // Sweep and capacity take them too (search refuses -m and -d when it runs).
        for command in ["sweep", "capacity", "search"] {
            let cli = Cli::try_parse_from(["upfbench", command, "s", "p", "-m", "2x", "-d", "1s"]);
            assert!(cli.is_ok(), "{command}");
        }
    }

    #[test]
    fn meaningless_overrides_are_refused_naming_the_option() {
        for (args, says) in [
            (["-m", "0"], "sends nothing"),
            (["-m", "-50%"], "cannot be negative"),
            (["-m", "5 furlongs"], "unknown unit \"furlongs\""),
            (["-d", "0s"], "sends nothing"),
            (["-d", "10"], "has no unit"),
            (["-d", "-1s"], "cannot be negative"),
            (["--label", " "], "give a name"),
        ] {
            let e = run_args(&args).unwrap_err();
            let option = if args[0] == "-m" {
                "'--multiplier <MULT>'"
            } else if args[0] == "-d" {
                "'--duration <DURATION>'"
            } else {
                "'--label <NAME>'"
            };
            assert!(
                e.contains(&format!("invalid value '{}' for {option}", args[1])),
                "{args:?}: {e}"
            );
            assert!(e.contains(says), "{args:?}: {e}");
        }
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

/// The command-line options of the metrics endpoint.
#[derive(Debug, Clone, Args)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9464; port 0: any
    /// free one, printed) and the phase at /health (JSON; 503 once the run failed).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,
    /// At the end, keep serving until a scrape has read the final counts, at most this long
    /// (`0s`: not at all). A Ctrl-C ends the wait.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "15s",
        value_parser = parse_duration
    )]
    pub metrics_linger: std::time::Duration,
}
