//! The HTTP side: a thread of its own that answers `GET /metrics` and `GET /health`, one
//! connection at a time (scrapes come seconds apart), each closed after its answer. A client
//! that sends nothing or reads nothing is given up after a timeout; the control thread never
//! waits for this one.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

use super::Endpoint;

/// How long a client may take to send its request, or to take the answer.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest request head read (a scrape's is a few hundred bytes).
const MAX_HEAD: usize = 8 * 1024;

/// The server's thread.
#[derive(Debug)]
pub(super) struct Server {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves `shared` on `listener` until dropped.
    pub(super) fn start(listener: TcpListener, shared: Arc<dyn Endpoint>) -> Result<Server> {
        let address = listener.local_addr().context("the metrics address")?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("upfbench-metrics".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        return;
                    }
                    // A connection that failed before it was accepted: the next one.
                    if let Ok(stream) = conn {
                        serve(stream, shared.as_ref());
                    }
                }
            })
            .context("starting the metrics thread")?;
        Ok(Server {
            address,
            stop,
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub(super) fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // The thread waits in accept: a connection of our own wakes it to see the flag.
        let mut wake = self.address;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        if TcpStream::connect_timeout(&wake, Duration::from_secs(1)).is_ok()
            && let Some(t) = self.thread.take()
        {
            let _ = t.join();
        }
        // Not reachable (a firewall?): the thread is left to end with the process.
    }
}

/// An answer.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Response {
    pub(super) status: u16,
    pub(super) content_type: &'static str,
    pub(super) body: String,
    /// The scrape's number, when it is one (counted once written in full).
    pub(super) scrape: Option<u64>,
}

/// The answer to `method` on `target`.
pub(super) fn route(shared: &dyn Endpoint, method: &str, target: &str) -> Response {
    let path = target.split('?').next().unwrap_or(target);
    let text = |status, body: &str| Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.to_owned(),
        scrape: None,
    };
    if method != "GET" {
        return text(405, "only GET\n");
    }
    match path {
        "/metrics" => {
            let (body, number) = shared.scrape();
            Response {
                status: 200,
                content_type: CONTENT_TYPE,
                body,
                scrape: Some(number),
            }
        }
        "/health" => {
            let h = shared.health();
            Response {
                status: h.status(),
                content_type: "application/json",
                body: h.to_json() + "\n",
                scrape: None,
            }
        }
        "/" => text(200, "upfbench: /metrics (Prometheus), /health (JSON)\n"),
        _ => text(404, "not found: /metrics or /health\n"),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Reads one request from `stream` and answers it.
fn serve(mut stream: TcpStream, shared: &dyn Endpoint) {
    let _ = stream.set_read_timeout(Some(CLIENT_TIMEOUT));
    let _ = stream.set_write_timeout(Some(CLIENT_TIMEOUT));
    let Some(head) = read_head(&mut stream) else {
        return;
    };
    let mut words = head.split_whitespace();
    let response = match (words.next(), words.next()) {
        (Some(method), Some(target)) => route(shared, method, target),
        _ => Response {
            status: 400,
            content_type: "text/plain; charset=utf-8",
            body: "bad request\n".into(),
            scrape: None,
        },
    };
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    let written = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(response.body.as_bytes()))
        .and_then(|()| stream.flush());
    if written.is_ok()
        && let Some(n) = response.scrape
    {
        shared.answered(n);
    }
}

/// The request's head (request line and headers), up to the blank line; `None` if the client
/// closed, timed out, or sent more than [`MAX_HEAD`] bytes without one.
fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        if head.len() > MAX_HEAD {
            return None;
        }
        let n = stream.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(head).ok()
}
