//! The process's face, shared by every command: what it is asked (the command line, [`Cli`]),
//! what it prints for the user ([`out`]), what it is told (Ctrl-C and SIGTERM, [`signals`]) and
//! what it costs (its resident memory, [`memory`]). No DPDK: `xtask` writes the man pages and
//! completions from [`Cli`] alone.
#![forbid(unsafe_code)]

mod args;
pub mod memory;
pub mod out;
pub mod signals;

pub use args::*;
