//! `upfbench search SYSTEM PROFILE`: the throughput search of RFC 9971 over real trials. The
//! search of the profile (`upfbench_profile_search`: its cases, the controller's choices, the
//! lines and the report section) chooses each trial; this module measures them as the
//! generator's program of steps (`program`) on the run's lifecycle: sessions established once,
//! each trial ended as soon as its packets are accounted for (or nothing arrives any more), the
//! next begun at once (after `search.settle`, for a UPF that needs it).

pub(crate) mod program;
