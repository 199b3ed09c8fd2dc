//! Segments: a run's UEs cut into contiguous blocks, one per port pair of a tester or one per
//! tester under a coordinator (docs/scale.md, §2 and §3), and each stream's packets over them.
//! The functions live in the configuration crate, whose checks cut the sessions over a system
//! file's pairs (`upfbench_config::segment`), so that the checks and the plans cut alike.

pub use upfbench_config::segment::{SplitError, packets_of_block, split};
