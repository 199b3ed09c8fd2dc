//! Responses: JSON answers, texts, empty ones and problem documents with the headers their
//! status needs (`Allow` on 405, `WWW-Authenticate` on 401).

use bytes::Bytes;
use http::header::{ALLOW, CONNECTION, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderValue, Response, StatusCode};
use http_body_util::Full;
use serde::Serialize;
use upfbench_api::problem::PROBLEM_JSON;
use upfbench_api::{Problem, ProblemKind};

/// What the server answers.
pub(crate) type Reply = Response<Full<Bytes>>;

/// The `WWW-Authenticate` challenge without a token (RFC 6750 §3).
const CHALLENGE: &str = "Bearer realm=\"upfbench\"";
/// ... and with a wrong one.
const CHALLENGE_INVALID: &str = "Bearer realm=\"upfbench\", error=\"invalid_token\"";

fn with_body(status: StatusCode, media: &str, body: impl Into<Bytes>) -> Reply {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    if let Ok(v) = HeaderValue::from_str(media) {
        r.headers_mut().insert(CONTENT_TYPE, v);
    }
    r
}

/// `value` as JSON.
pub(crate) fn json<T: Serialize>(status: StatusCode, value: &T) -> Reply {
    match serde_json::to_vec(value) {
        Ok(body) => with_body(status, "application/json", body),
        Err(e) => with_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            format!("the answer did not serialize: {e}\n"),
        ),
    }
}

/// A text of media type `media`.
pub(crate) fn text(status: StatusCode, media: &str, body: String) -> Reply {
    with_body(status, media, body)
}

/// No body.
pub(crate) fn empty(status: StatusCode) -> Reply {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = status;
    r
}

/// A problem document.
pub(crate) fn problem(p: &Problem) -> Reply {
    let status = StatusCode::from_u16(p.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = with_body(status, PROBLEM_JSON, p.to_json());
    if !p.allow.is_empty()
        && let Ok(v) = HeaderValue::from_str(&p.allow.join(", "))
    {
        r.headers_mut().insert(ALLOW, v);
    }
    if p.kind == ProblemKind::Unauthorized {
        r.headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static(CHALLENGE));
    }
    r
}

/// 401: no token (`given` false) or a wrong one.
pub(crate) fn unauthorized(given: bool) -> Reply {
    let detail = if given {
        "the bearer token is not this agent's"
    } else {
        "send Authorization: Bearer <the agent's --token-file>"
    };
    let mut r = problem(&Problem::new(ProblemKind::Unauthorized, detail));
    if given {
        r.headers_mut().insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static(CHALLENGE_INVALID),
        );
    }
    r
}

/// `r`, after which the connection is closed: the rest of a body that was not read is not
/// waited for.
pub(crate) fn closing(mut r: Reply) -> Reply {
    r.headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    r
}

/// 500, for a handler that panicked.
pub(crate) fn internal(what: &str) -> Reply {
    with_body(
        StatusCode::INTERNAL_SERVER_ERROR,
        "text/plain; charset=utf-8",
        format!("{what}\n"),
    )
}
