//! The `upfbench` binary exports `munmap` (defined by upfbench-dpdk's C shim) so that the DPDK PMD
//! plugins, which EAL loads with dlopen, bind to it: it waits for the datapath workers' grace
//! period before unmapping (see upfbench-dpdk's `quiescence` module).
fn main() {
    println!("cargo::rustc-link-arg-bins=-Wl,--export-dynamic-symbol=munmap");
}
