//! `upfbench search SYSTEM PROFILE`: the throughput search of RFC 9971 over real trials. The
//! controller ([`upfbench_search`]) chooses each trial; this module makes trials of its requests
//! (`cases`: a profile per payload and direction set, its load shared as the profile shares
//! it), reads their step reports back (`trial`), says what it finds as it goes (`progress`),
//! and runs as the generator's program of steps (`program`) on the run's lifecycle: sessions
//! established once, each trial ended as soon as its packets are accounted for (or nothing
//! arrives any more), the next begun at once (after `search.settle`, for a UPF that needs it).

pub(crate) mod cases;
pub(crate) mod program;
pub(crate) mod progress;
pub(crate) mod trial;
