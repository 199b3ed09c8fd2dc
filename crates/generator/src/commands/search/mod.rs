//! `upfbench search SYSTEM PROFILE`: the throughput search of RFC 9971 over real trials. The
//! controller ([`upfbench_search`]) chooses each trial; this module makes trials of its requests
//! (`cases`: a profile per payload and direction set, its load shared as the profile shares
//! it), reads their step reports back (`trial`), says what it finds as it goes (`progress`),
//! and runs as the generator's program of steps (`program`) on the run's lifecycle: sessions
//! established once, trials separated by a settle time and begun only once nothing of the
//! previous one still arrives.

pub(crate) mod cases;
pub(crate) mod program;
pub(crate) mod progress;
pub(crate) mod trial;
