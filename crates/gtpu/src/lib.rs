//! GTP-U (3GPP TS 29.281) and the PDU Session Container (3GPP TS 38.415).
//!
//! This crate will hold zero-copy checked views over byte slices, emitters that write into caller
//! buffers, and the encapsulation and decapsulation helpers of the upfbench datapath. It is empty
//! until issue 2 fills it.
#![forbid(unsafe_code)]
