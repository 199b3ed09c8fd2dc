//! The metrics endpoint's options as every command that serves metrics takes them.

use std::time::Duration;

use clap::Parser;
use upfbench_cli::{Cli, Command};

#[test]
fn the_command_line_takes_an_address_and_a_linger() {
    let cli = Cli::try_parse_from([
        "upfbench",
        "run",
        "s.yaml",
        "p.yaml",
        "--metrics",
        "127.0.0.1:9464",
        "--metrics-linger",
        "2s",
    ])
    .expect("parses");
    let Command::Run(args) = cli.command else {
        panic!("run expected");
    };
    assert_eq!(
        args.metrics.metrics,
        Some("127.0.0.1:9464".parse().unwrap())
    );
    assert_eq!(args.metrics.metrics_linger, Duration::from_secs(2));
    let cli = Cli::try_parse_from(["upfbench", "reflect", "r.yaml"]).expect("parses");
    let Command::Reflect(args) = cli.command else {
        panic!("reflect expected");
    };
    assert_eq!(args.metrics.metrics, None);
    assert_eq!(args.metrics.metrics_linger, Duration::from_secs(15));
    assert!(Cli::try_parse_from(["upfbench", "sweep", "s", "p", "--metrics", "nowhere"]).is_err());
}
