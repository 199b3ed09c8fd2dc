//! The client a coordinator uses: one typed call per route, each on a fresh HTTP/1.1
//! connection, the whole call (connect, request, answer) bounded by the client's timeout.

use std::time::Duration;

use bytes::Bytes;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde::de::DeserializeOwned;
use thiserror::Error;
use tokio::net::TcpStream;
use upfbench_api::ProblemDocument;
use upfbench_api::v1::{
    AgentInfo, Armed, At, Clock, Health, RunId, RunRequest, RunState, Segment, SegmentSummary,
    Status, StepRequest, StepResult,
};

use crate::guard::Token;

/// The largest answer read (a step's result with its seconds' histograms is the largest).
const ANSWER_LIMIT: usize = 256 << 20;

/// A call that did not give its answer.
#[derive(Debug, Error)]
pub enum ClientError {
    /// The agent's URL is not `http://HOST:PORT`.
    #[error("{0:?} is not an agent's URL (http://HOST:PORT)")]
    Url(String),
    /// No connection.
    #[error("{url}: {source}")]
    Connect {
        /// The agent.
        url: String,
        /// Why.
        source: std::io::Error,
    },
    /// No answer in time.
    #[error("{url}: no answer within {} ms to {what}", after.as_millis())]
    Timeout {
        /// The agent.
        url: String,
        /// The call.
        what: String,
        /// The timeout.
        after: Duration,
    },
    /// The HTTP exchange failed.
    #[error("{url}: {what}: {reason}")]
    Http {
        /// The agent.
        url: String,
        /// The call.
        what: String,
        /// Why.
        reason: String,
    },
    /// The agent answered with a problem document.
    #[error("{url}: {what}: {problem}")]
    Problem {
        /// The agent.
        url: String,
        /// The call.
        what: String,
        /// Its answer.
        problem: Box<ProblemDocument>,
    },
    /// The agent answered with a status the call does not expect, without a problem document.
    #[error("{url}: {what}: {status}: {body}")]
    Status {
        /// The agent.
        url: String,
        /// The call.
        what: String,
        /// The status.
        status: u16,
        /// The answer's start.
        body: String,
    },
    /// The answer is not the JSON of its type.
    #[error("{url}: {what}: the answer is not the API's: {source}")]
    Decode {
        /// The agent.
        url: String,
        /// The call.
        what: String,
        /// Why.
        source: serde_json::Error,
    },
}

/// A client of one agent.
#[derive(Debug, Clone)]
pub struct Client {
    url: String,
    host: String,
    port: u16,
    token: Option<Token>,
    timeout: Duration,
}

impl Client {
    /// A client of the agent at `url` (`http://HOST:PORT`, a trailing `/` taken), sending
    /// `token` if any, each call given `timeout` in all.
    pub fn new(url: &str, token: Option<Token>, timeout: Duration) -> Result<Client, ClientError> {
        let bad = || ClientError::Url(url.to_owned());
        let authority = url.strip_prefix("http://").ok_or_else(bad)?;
        let authority = authority.strip_suffix('/').unwrap_or(authority);
        if authority.contains('/') || authority.contains('@') {
            return Err(bad());
        }
        let (host, port) = authority.rsplit_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().map_err(|_| bad())?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if host.is_empty() {
            return Err(bad());
        }
        Ok(Client {
            url: format!("http://{authority}"),
            host: host.to_owned(),
            port,
            token,
            timeout,
        })
    }

    /// The agent's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `GET /health`.
    pub async fn health(&self) -> Result<Health, ClientError> {
        self.json(Method::GET, "/health", None::<&()>, StatusCode::OK)
            .await
    }

    /// `GET /metrics`.
    pub async fn metrics(&self) -> Result<String, ClientError> {
        self.text(Method::GET, "/metrics").await
    }

    /// `GET /v1`.
    pub async fn info(&self) -> Result<AgentInfo, ClientError> {
        self.json(Method::GET, "/v1", None::<&()>, StatusCode::OK)
            .await
    }

    /// `GET /v1/clock`.
    pub async fn clock(&self) -> Result<Clock, ClientError> {
        self.json(Method::GET, "/v1/clock", None::<&()>, StatusCode::OK)
            .await
    }

    /// `PUT /v1/segment`.
    pub async fn load_segment(&self, segment: &Segment) -> Result<SegmentSummary, ClientError> {
        self.json(Method::PUT, "/v1/segment", Some(segment), StatusCode::OK)
            .await
    }

    /// `DELETE /v1/segment`.
    pub async fn unload_segment(&self) -> Result<(), ClientError> {
        self.none(
            Method::DELETE,
            "/v1/segment",
            None::<&()>,
            StatusCode::NO_CONTENT,
        )
        .await
    }

    /// `POST /v1/steps`.
    pub async fn arm_step(&self, step: &StepRequest) -> Result<Armed, ClientError> {
        self.json(Method::POST, "/v1/steps", Some(step), StatusCode::OK)
            .await
    }

    /// `POST /v1/steps/{n}/start`.
    pub async fn start_step(&self, step: u32, at: At) -> Result<(), ClientError> {
        let path = format!("/v1/steps/{step}/start");
        self.none(Method::POST, &path, Some(&at), StatusCode::ACCEPTED)
            .await
    }

    /// `POST /v1/steps/{n}/stop`.
    pub async fn stop_step(&self, step: u32, at: At) -> Result<(), ClientError> {
        let path = format!("/v1/steps/{step}/stop");
        self.none(Method::POST, &path, Some(&at), StatusCode::ACCEPTED)
            .await
    }

    /// `GET /v1/status`.
    pub async fn status(&self) -> Result<Status, ClientError> {
        self.json(Method::GET, "/v1/status", None::<&()>, StatusCode::OK)
            .await
    }

    /// `GET /v1/steps/{n}/result`.
    pub async fn step_result(&self, step: u32) -> Result<StepResult, ClientError> {
        let path = format!("/v1/steps/{step}/result");
        self.json(Method::GET, &path, None::<&()>, StatusCode::OK)
            .await
    }

    /// `POST /v1/runs`.
    pub async fn start_run(&self, run: &RunRequest) -> Result<RunId, ClientError> {
        self.json(Method::POST, "/v1/runs", Some(run), StatusCode::CREATED)
            .await
    }

    /// `GET /v1/runs/{id}`.
    pub async fn run_state(&self, id: &str) -> Result<RunState, ClientError> {
        let path = format!("/v1/runs/{id}");
        self.json(Method::GET, &path, None::<&()>, StatusCode::OK)
            .await
    }

    /// `POST /v1/runs/{id}/stop`.
    pub async fn stop_run(&self, id: &str) -> Result<(), ClientError> {
        let path = format!("/v1/runs/{id}/stop");
        self.none(Method::POST, &path, None::<&()>, StatusCode::ACCEPTED)
            .await
    }

    /// `GET /v1/runs/{id}/report`: report.json's text.
    pub async fn run_report(&self, id: &str) -> Result<String, ClientError> {
        self.text(Method::GET, &format!("/v1/runs/{id}/report"))
            .await
    }

    /// `GET /v1/runs/{id}/events`: events.jsonl so far.
    pub async fn run_events(&self, id: &str) -> Result<String, ClientError> {
        self.text(Method::GET, &format!("/v1/runs/{id}/events"))
            .await
    }

    async fn json<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        expect: StatusCode,
    ) -> Result<T, ClientError> {
        let what = format!("{method} {path}");
        let bytes = self.call(method, path, body, expect).await?;
        serde_json::from_slice(&bytes).map_err(|source| ClientError::Decode {
            url: self.url.clone(),
            what,
            source,
        })
    }

    async fn none<B: Serialize>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        expect: StatusCode,
    ) -> Result<(), ClientError> {
        self.call(method, path, body, expect).await.map(drop)
    }

    async fn text(&self, method: Method, path: &str) -> Result<String, ClientError> {
        let bytes = self.call(method, path, None::<&()>, StatusCode::OK).await?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// One exchange: the answer's body if its status is `expect`.
    async fn call<B: Serialize>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        expect: StatusCode,
    ) -> Result<Bytes, ClientError> {
        let what = format!("{method} {path}");
        let exchange = self.exchange(method, path, body, &what);
        let (status, bytes) = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| ClientError::Timeout {
                url: self.url.clone(),
                what: what.clone(),
                after: self.timeout,
            })??;
        if status == expect {
            return Ok(bytes);
        }
        match serde_json::from_slice::<ProblemDocument>(&bytes) {
            Ok(problem) => Err(ClientError::Problem {
                url: self.url.clone(),
                what,
                problem: Box::new(problem),
            }),
            Err(_) => Err(ClientError::Status {
                url: self.url.clone(),
                what,
                status: status.as_u16(),
                body: String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned(),
            }),
        }
    }

    async fn exchange<B: Serialize>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        what: &str,
    ) -> Result<(StatusCode, Bytes), ClientError> {
        let http = |reason: String| ClientError::Http {
            url: self.url.clone(),
            what: what.to_owned(),
            reason,
        };
        let stream = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|source| ClientError::Connect {
                url: self.url.clone(),
                source,
            })?;
        let _ = stream.set_nodelay(true);
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| http(e.to_string()))?;
        // The connection's driver: it ends when the exchange is over and `sender` dropped.
        let driver = tokio::spawn(connection);
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, self.url.trim_start_matches("http://"))
            .header(ACCEPT, "application/json");
        if let Some(token) = &self.token {
            let mut value = b"Bearer ".to_vec();
            value.extend_from_slice(token.secret());
            request = request.header(AUTHORIZATION, value);
        }
        let payload = match body {
            Some(b) => {
                request = request.header(CONTENT_TYPE, "application/json");
                Bytes::from(serde_json::to_vec(b).map_err(|e| http(e.to_string()))?)
            }
            None => Bytes::new(),
        };
        let request = request
            .body(Full::new(payload))
            .map_err(|e| http(e.to_string()))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| http(e.to_string()))?;
        let status = response.status();
        let bytes = Limited::new(response.into_body(), ANSWER_LIMIT)
            .collect()
            .await
            .map_err(|e| http(e.to_string()))?
            .to_bytes();
        drop(sender);
        driver.abort();
        Ok((status, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_http_host_port() {
        let t = Duration::from_secs(1);
        let c = Client::new("http://127.0.0.1:9801/", None, t).unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.url()),
            ("127.0.0.1", 9801, "http://127.0.0.1:9801")
        );
        let c = Client::new("http://[::1]:9800", None, t).unwrap();
        assert_eq!((c.host.as_str(), c.port), ("::1", 9800));
        let c = Client::new("http://upfbench-agent-0.upfbench-agents:9800", None, t).unwrap();
        assert_eq!(c.host, "upfbench-agent-0.upfbench-agents");
        for bad in [
            "https://127.0.0.1:9800",
            "127.0.0.1:9800",
            "http://127.0.0.1",
            "http://127.0.0.1:x",
            "http://:9800",
            "http://127.0.0.1:9800/v1",
            "http://u@127.0.0.1:9800",
        ] {
            assert!(
                matches!(Client::new(bad, None, t), Err(ClientError::Url(_))),
                "{bad}"
            );
        }
    }
}
