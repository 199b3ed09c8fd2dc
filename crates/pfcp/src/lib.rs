//! PFCP (3GPP TS 29.244), the N4 protocol between the control plane and a UPF.
//!
//! This crate will hold the message and IE codec, a sans-IO node state machine (sequence numbers,
//! retransmission, heartbeats, the session table) and a thin tokio driver around it. It is empty
//! until issue 3 fills it.
#![forbid(unsafe_code)]
