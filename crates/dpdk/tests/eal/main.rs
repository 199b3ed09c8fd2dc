//! Integration tests that need EAL, with no NIC: `net_null` and `net_ring` vdevs and a ring pair,
//! EAL memory from `--no-huge`.
//!
//! EAL initialises once per process (a second `rte_eal_init` fails), and the thread that calls it
//! becomes the main lcore. So this is one test binary with `harness = false`: `main` initialises
//! EAL once, on the main thread, and runs every case in sequence on that thread, each case
//! catching its own panics. Output and exit code follow libtest (`test name ... ok`,
//! `test result: ...`); a name given on the command line filters the cases, `--list` lists them.
//! If EAL cannot initialise, every case fails with EAL's reason: nothing passes silently.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod fixture;
mod lcores;
mod mbufs;
mod ports;
mod template;
mod traffic;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::Instant;

use upfbench_dpdk::Eal;

use crate::fixture::{Case, Fixture};

/// Every case, run in this order.
const CASES: &[(&str, Case)] = &[
    (
        "lcores::second_init_is_an_error",
        lcores::second_init_is_an_error,
    ),
    ("lcores::lcore_list_and_tsc", lcores::lcore_list_and_tsc),
    (
        "lcores::closure_runs_on_a_worker_lcore_and_returns",
        lcores::closure_runs_on_a_worker_lcore_and_returns,
    ),
    ("lcores::launch_errors", lcores::launch_errors),
    (
        "lcores::worker_panic_is_returned_by_join",
        lcores::worker_panic_is_returned_by_join,
    ),
    (
        "lcores::unjoined_worker_panic_fails_the_scope",
        lcores::unjoined_worker_panic_fails_the_scope,
    ),
    (
        "mbufs::exhausted_mempool_is_an_error",
        mbufs::exhausted_mempool_is_an_error,
    ),
    (
        "mbufs::burst_alloc_is_all_or_nothing",
        mbufs::burst_alloc_is_all_or_nothing,
    ),
    (
        "mbufs::headroom_prepend_append_adj_trim",
        mbufs::headroom_prepend_append_adj_trim,
    ),
    ("mbufs::burst_push_pop_retain", mbufs::burst_push_pop_retain),
    (
        "mbufs::drain_each_hands_over_in_order",
        mbufs::drain_each_hands_over_in_order,
    ),
    (
        "mbufs::retain_mut_keeps_what_the_closure_swaps_in",
        mbufs::retain_mut_keeps_what_the_closure_swaps_in,
    ),
    (
        "mbufs::fill_with_hands_out_reset_mbufs_in_one_pass",
        mbufs::fill_with_hands_out_reset_mbufs_in_one_pass,
    ),
    (
        "mbufs::alloc_with_keeps_swapped_mbufs_even_on_panic",
        mbufs::alloc_with_keeps_swapped_mbufs_even_on_panic,
    ),
    ("ports::lookup_by_name_and_id", ports::lookup_by_name_and_id),
    ("ports::info_mac_link", ports::info_mac_link),
    ("ports::configuration_errors", ports::configuration_errors),
    (
        "ports::rss_across_rx_queues_on_net_null",
        ports::rss_across_rx_queues_on_net_null,
    ),
    (
        "ports::teid_steering_refused_without_rte_flow",
        ports::teid_steering_refused_without_rte_flow,
    ),
    ("ports::promiscuous_mode", ports::promiscuous_mode),
    (
        "traffic::ring_pair_delivers_byte_for_byte",
        traffic::ring_pair_delivers_byte_for_byte,
    ),
    (
        "traffic::tx_burst_leaves_unsent_with_caller",
        traffic::tx_burst_leaves_unsent_with_caller,
    ),
    (
        "traffic::net_ring_vdev_loops_back",
        traffic::net_ring_vdev_loops_back,
    ),
    (
        "traffic::net_null_counts_transmitted",
        traffic::net_null_counts_transmitted,
    ),
    (
        "traffic::workers_transmit_until_stopped",
        traffic::workers_transmit_until_stopped,
    ),
    (
        "template::every_frame_is_the_template_and_its_patch",
        template::every_frame_is_the_template_and_its_patch,
    ),
    (
        "template::writes_to_sent_mbufs_are_undone",
        template::writes_to_sent_mbufs_are_undone,
    ),
    (
        "template::template_pool_errors",
        template::template_pool_errors,
    ),
    (
        "template::overwriting_alloc_keeps_the_previous_packet_in_the_region",
        template::overwriting_alloc_keeps_the_previous_packet_in_the_region,
    ),
];

fn prefix() -> String {
    format!("upfbench-dpdk-test-{}", std::process::id())
}

fn eal_args() -> Vec<String> {
    let prefix = prefix();
    [
        "-l",
        "0,1",
        "--no-huge",
        // No shared files: nothing is left in /var/run/dpdk/<prefix>.
        "--no-shconf",
        "--no-telemetry",
        "-m",
        "512",
        "--no-pci",
        "--file-prefix",
        &prefix,
        "--log-level",
        "lib.eal:warning",
        "--vdev",
        "net_null0",
        "--vdev",
        "net_null1",
        "--vdev",
        "net_ring0",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for (name, _) in CASES {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    let exact = args.iter().any(|a| a == "--exact");
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let selected: Vec<_> = CASES
        .iter()
        .filter(|(name, _)| {
            filters.is_empty()
                || filters.iter().any(|f| {
                    if exact {
                        name == f
                    } else {
                        name.contains(f.as_str())
                    }
                })
        })
        .collect();
    let filtered_out = CASES.len() - selected.len();
    println!("\nrunning {} tests", selected.len());
    if selected.is_empty() {
        println!(
            "\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; {filtered_out} filtered out\n"
        );
        return ExitCode::SUCCESS;
    }

    let started = Instant::now();
    let eal = match Eal::init(eal_args()) {
        Ok(eal) => eal,
        Err(e) => {
            for (name, _) in &selected {
                println!("test {name} ... FAILED");
            }
            eprintln!(
                "\nEAL failed to initialise: {e}\nThese tests need DPDK 22.11 (deploy/setup.sh), \
                 root, and two lcores (-l 0,1)."
            );
            println!(
                "\ntest result: FAILED. 0 passed; {} failed; 0 ignored; 0 measured; {filtered_out} filtered out\n",
                selected.len()
            );
            return ExitCode::FAILURE;
        }
    };
    let fixture = Fixture::new(&eal).expect("test fixture (pools, ring pair)");

    let mut failed = Vec::new();
    for (name, case) in &selected {
        let outcome = catch_unwind(AssertUnwindSafe(|| case(&fixture)));
        match outcome {
            Ok(Ok(())) => println!("test {name} ... ok"),
            Ok(Err(e)) => {
                println!("test {name} ... FAILED");
                failed.push((*name, format!("error: {e}")));
            }
            Err(panic) => {
                println!("test {name} ... FAILED");
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                failed.push((*name, format!("panicked: {msg}")));
            }
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for (name, why) in &failed {
            println!("    {name}: {why}");
        }
    }
    let passed = selected.len() - failed.len();
    println!(
        "\ntest result: {}. {passed} passed; {} failed; 0 ignored; 0 measured; {filtered_out} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    drop(eal);
    // --no-shconf leaves only EAL's empty runtime directory (root's is /var/run/dpdk).
    let _ = std::fs::remove_dir(format!("/var/run/dpdk/{}", prefix()));
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
