//! Integration tests that need EAL, with no NIC: `net_null` and `net_ring` vdevs and a ring pair,
//! EAL memory from `--no-huge`.
//!
//! EAL initialises once per process (a second `rte_eal_init` fails), and the thread that calls it
//! becomes the main lcore. So this is one test binary with `harness = false`: `main` initialises
//! EAL once, on the main thread (`upfbench_testkit::eal`), and the test kit's runner runs every
//! case in sequence on that thread, each case catching its own panics, with libtest's filters,
//! output and exit code. If EAL cannot initialise, every case fails with EAL's reason: nothing
//! passes silently.

mod fixture;
mod lcores;
mod mbufs;
mod ports;
mod template;
mod traffic;

use std::process::ExitCode;

use upfbench_testkit::eal::{self, EalSetup};
use upfbench_testkit::runner::Runner;

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

fn main() -> ExitCode {
    let setup = EalSetup::new("dpdk")
        .lcores("0,1")
        .memory_mb(512)
        .vdev("net_null0")
        .vdev("net_null1")
        .vdev("net_ring0");
    eal::main(
        Runner::new(CASES.iter().copied()),
        setup,
        |eal, runner| match Fixture::new(eal) {
            Ok(fixture) => runner.run(|case| case(&fixture).into()),
            Err(e) => runner.fail_all(format!("the fixture (pool, ring pair): {e}")),
        },
    )
}
