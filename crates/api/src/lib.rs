//! upfbench's HTTP API without the HTTP: what an agent (`upfbench agent`, or `upfbench serve` on
//! one box) is asked and what it answers, as data (docs/scale.md §4).
//!
//! The server is a thin shell: it hands each request's method, path, content type and body to
//! [`v1::parse`], which gives a [`v1::Command`] or the [`Problem`] to answer (RFC 9457), and it
//! runs the command. Everything that can be wrong with a request is found here, where it is
//! tested and fuzzed without a socket, as the PFCP node is driven without one.

#![forbid(unsafe_code)]

pub mod problem;
pub mod v1;

pub use problem::{Issue, Problem, ProblemDocument, ProblemKind};
