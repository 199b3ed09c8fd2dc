//! `upfbench capacity SYSTEM PROFILE`: how many sessions the UPF holds. The run's life cycle
//! with a program of its own (`CapacityProgram`): a batch of sessions before each step,
//! until the UPF refuses one or the profile's `sessions.count` is reached; after each batch the
//! streams run over every session established so far.

pub(crate) mod program;

pub(crate) use program::CapacityProgram;
