//! The traffic generator's datapath: a worker lcore per queue pair, put together for each step
//! (`assembly`), that sends its shares of the
//! streams ([`tx`]) from the frames built once per stream ([`frames`]) stamped with the
//! measurement [`tag`](upfbench_net::tag), and measures what comes back ([`classify`]) on the run [`clock`], in the
//! phase the control thread sets (the run crate's `phase`).

pub(crate) mod assembly;
pub(crate) mod churn_rx;
pub mod classify;
pub mod clock;
pub mod frames;
pub(crate) mod handover;
pub(crate) mod outer_switch;
pub(crate) mod probes;
pub mod qos_rx;
pub mod tx;
pub mod worker;
