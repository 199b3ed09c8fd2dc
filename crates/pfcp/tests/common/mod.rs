//! Helpers shared by the integration tests.
#![allow(dead_code, unused_imports, unreachable_pub, missing_docs)]

pub mod message_strategies;
pub mod net;
pub mod pcap;
pub mod plans;
pub mod strategies;
pub mod tshark_expect;
pub mod upf;
pub mod vectors;
