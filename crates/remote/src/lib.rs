//! The HTTP shells of upfbench's API (docs/scale.md §4, docs/api.md): the server an agent runs
//! ([`Server`], hyper 1, HTTP/1.1) in front of a handler ([`Agent`]) that does the work, and the
//! typed [`Client`] a coordinator uses.
//!
//! The server only carries bytes and guards the door: it asks `upfbench_api::v1` for the route
//! and the [`Command`](upfbench_api::v1::Command) (everything that can be wrong with a request
//! is found there, sans-IO), checks the bearer token, bounds what a peer can make it hold
//! ([`Limits`]), and turns the handler's typed answer or [`Problem`](upfbench_api::Problem)
//! into the response.
#![forbid(unsafe_code)]

mod agent;
mod client;
mod dispatch;
mod guard;
mod respond;
mod server;

pub use agent::{Agent, Answer};
pub use client::{Client, ClientError};
pub use guard::{ServeError, TOKEN_MIN_BYTES, Token, check_listen};
pub use server::{DEFAULT_LISTEN, Limits, Server, ServerConfig};
