//! The server: accepts up to [`Limits::connections`] connections at once, serves each with
//! hyper's HTTP/1.1 (a head of at most [`Limits::head_bytes`], read within
//! [`Limits::header_read`]), and answers each request by the guard, the route's body limit,
//! `upfbench_api::v1::parse` and the handler.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, Request};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use upfbench_api::v1::{self, BODY_LIMIT, Body};
use upfbench_api::{Problem, ProblemKind};

use crate::agent::Agent;
use crate::dispatch;
use crate::guard::{ServeError, Token, check_listen};
use crate::respond::{Reply, closing, problem, unauthorized};

/// Where the API listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9800";

/// What one peer can make the server hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest request head (request line and headers): above, 431.
    pub head_bytes: usize,
    /// How long a request head may take to arrive, from the connection's start or the end of
    /// the previous answer: then the connection is closed, unanswered.
    pub header_read: Duration,
    /// How long a body may take to arrive: then 408.
    pub body_read: Duration,
    /// Connections served at once; more wait in the listener's backlog.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head_bytes: 16 << 10,
            header_read: Duration::from_secs(5),
            body_read: Duration::from_secs(30),
            connections: 16,
        }
    }
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The address (`--listen`, [`DEFAULT_LISTEN`]).
    pub listen: SocketAddr,
    /// The bearer token every route but `/health` needs (`--token-file`).
    pub token: Option<Token>,
    /// Serve an address off loopback without a token (`--insecure-no-token`).
    pub insecure_no_token: bool,
    /// The limits.
    pub limits: Limits,
}

impl ServerConfig {
    /// Loopback's [`DEFAULT_LISTEN`], no token, the default limits.
    pub fn loopback() -> ServerConfig {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 9800)),
            token: None,
            insecure_no_token: false,
            limits: Limits::default(),
        }
    }
}

/// A bound server, not serving yet.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    token: Option<Token>,
    limits: Limits,
}

struct State {
    agent: Arc<dyn Agent>,
    token: Option<Token>,
    limits: Limits,
}

impl Server {
    /// Binds `config.listen`, after the guard's rule: off loopback only with a token (or the
    /// operator's explicit `insecure_no_token`).
    pub async fn bind(config: ServerConfig) -> Result<Server, ServeError> {
        check_listen(
            config.listen,
            config.token.as_ref(),
            config.insecure_no_token,
        )?;
        let listener =
            TcpListener::bind(config.listen)
                .await
                .map_err(|source| ServeError::Bind {
                    addr: config.listen,
                    source,
                })?;
        Ok(Server {
            listener,
            token: config.token,
            limits: config.limits,
        })
    }

    /// The address bound (its port when `listen` said 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves `agent` until `shutdown` completes (connections being served finish their
    /// requests on their own tasks).
    pub async fn serve(self, agent: Arc<dyn Agent>, shutdown: impl Future<Output = ()>) {
        let limits = self.limits;
        let state = Arc::new(State {
            agent,
            token: self.token,
            limits,
        });
        let permits = Arc::new(Semaphore::new(limits.connections.max(1)));
        tokio::pin!(shutdown);
        loop {
            let permit = tokio::select! {
                () = &mut shutdown => return,
                p = permits.clone().acquire_owned() => match p {
                    Ok(p) => p,
                    Err(_) => return,
                },
            };
            let stream = tokio::select! {
                () = &mut shutdown => return,
                a = self.listener.accept() => match a {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        // Out of descriptors, or a connection reset before it was taken:
                        // try again shortly rather than spin.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                },
            };
            let _ = stream.set_nodelay(true);
            let state = state.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| handle(state.clone(), req));
                let _ = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_read)
                    .max_header_size(limits.head_bytes)
                    .max_buf_size((2 * limits.head_bytes).max(8192))
                    .half_close(true)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                drop(permit);
            });
        }
    }
}

async fn handle(state: Arc<State>, req: Request<Incoming>) -> Result<Reply, Infallible> {
    Ok(answer(&state, req).await)
}

async fn answer(state: &State, req: Request<Incoming>) -> Reply {
    let method = req.method().as_str().to_owned();
    let path = req.uri().path().to_owned();
    let route = v1::route_of(&method, &path);
    if let Some(token) = &state.token
        && !route.as_ref().is_ok_and(|r| r.open)
    {
        let given = req.headers().get(AUTHORIZATION).map(|v| v.as_bytes());
        if !token.authorizes(given) {
            return unauthorized(given.is_some());
        }
    }
    let route = match route {
        Ok(r) => r,
        Err(p) => return problem(&p),
    };
    // A route without a body still has its body read (up to the usual limit), so that parse
    // can say it takes none.
    let limit = match route.body {
        Body::Json(limit) => limit,
        Body::None => BODY_LIMIT,
    };
    let what = format!("{} {}", route.method, route.path);
    if let Some(length) = content_length(req.headers())
        && length > limit as u64
    {
        return closing(problem(&Problem::new(
            ProblemKind::BodyTooLarge,
            format!("{what}: Content-Length {length}, at most {limit}"),
        )));
    }
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = match read_body(req.into_body(), limit, state.limits.body_read).await {
        Ok(body) => body,
        Err(p) => return closing(problem(&p.with_detail_prefix(&what))),
    };
    match v1::parse(&method, &path, content_type.as_deref(), &body) {
        Ok(command) => dispatch::run(state.agent.clone(), command).await,
        Err(p) => problem(&p),
    }
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Why a body was not read.
enum BodyProblem {
    TooLarge(usize),
    Timeout(Duration),
    Broken(String),
}

impl BodyProblem {
    fn with_detail_prefix(self, what: &str) -> Problem {
        match self {
            BodyProblem::TooLarge(limit) => Problem::new(
                ProblemKind::BodyTooLarge,
                format!("{what}: the body is over {limit} bytes"),
            ),
            BodyProblem::Timeout(after) => Problem::new(
                ProblemKind::BodyTimeout,
                format!(
                    "{what}: the body did not arrive within {} ms",
                    after.as_millis()
                ),
            ),
            BodyProblem::Broken(why) => Problem::new(
                ProblemKind::MalformedBody,
                format!("{what}: the body ended before its length ({why})"),
            ),
        }
    }
}

async fn read_body(body: Incoming, limit: usize, within: Duration) -> Result<Bytes, BodyProblem> {
    match tokio::time::timeout(within, Limited::new(body, limit).collect()).await {
        Err(_) => Err(BodyProblem::Timeout(within)),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(BodyProblem::TooLarge(limit))
        }
        Ok(Err(e)) => Err(BodyProblem::Broken(e.to_string())),
    }
}
