//! The generated bindings (build.rs): a narrow allowlist of DPDK plus the C shim (`upfb_*`).
#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    dead_code,
    missing_docs,
    unreachable_pub,
    unused_qualifications,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
