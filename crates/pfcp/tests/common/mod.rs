//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub, missing_docs)]

pub mod net;
pub mod pcap;
pub mod strategies;
