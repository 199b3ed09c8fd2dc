//! Problem documents (RFC 9457, `application/problem+json`): every error the API answers, with
//! the located issues a configuration file's errors give (a field's path and what is wrong).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The media type of a problem document (RFC 9457 §3).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// What went wrong, as the problem's `type` URI and its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemKind {
    /// No route has this path (404).
    NotFound,
    /// The path is a route's, the method is not (405, with `Allow`).
    MethodNotAllowed,
    /// A body that is not JSON, or JSON of the wrong shape (400).
    MalformedBody,
    /// A body on a route that takes none, or none where one is needed (400).
    UnexpectedBody,
    /// A body of another media type than JSON (415).
    UnsupportedMediaType,
    /// A body over the route's limit (413).
    BodyTooLarge,
    /// A body that did not arrive in time (408).
    BodyTimeout,
    /// Well-formed, but its content cannot be run (422): the issues say where.
    InvalidContent,
    /// Not in a state for it, e.g. a step is running (409).
    Conflict,
    /// Neither a bearer token nor the right one (401).
    Unauthorized,
    /// EAL or the ports are not up (503).
    Unavailable,
}

impl ProblemKind {
    /// Every kind, in the order of the table in docs/scale.md §4 (and 408, which the server
    /// answers when a body stalls).
    pub const ALL: [ProblemKind; 11] = [
        ProblemKind::NotFound,
        ProblemKind::MethodNotAllowed,
        ProblemKind::MalformedBody,
        ProblemKind::UnexpectedBody,
        ProblemKind::UnsupportedMediaType,
        ProblemKind::BodyTooLarge,
        ProblemKind::BodyTimeout,
        ProblemKind::InvalidContent,
        ProblemKind::Conflict,
        ProblemKind::Unauthorized,
        ProblemKind::Unavailable,
    ];

    /// The HTTP status answered.
    pub fn status(self) -> u16 {
        match self {
            ProblemKind::NotFound => 404,
            ProblemKind::MethodNotAllowed => 405,
            ProblemKind::MalformedBody | ProblemKind::UnexpectedBody => 400,
            ProblemKind::UnsupportedMediaType => 415,
            ProblemKind::BodyTooLarge => 413,
            ProblemKind::BodyTimeout => 408,
            ProblemKind::InvalidContent => 422,
            ProblemKind::Conflict => 409,
            ProblemKind::Unauthorized => 401,
            ProblemKind::Unavailable => 503,
        }
    }

    /// The problem's `type`: a URN that names it for good (RFC 9457 §3.1.1).
    pub fn type_uri(self) -> &'static str {
        match self {
            ProblemKind::NotFound => "urn:upfbench:not-found",
            ProblemKind::MethodNotAllowed => "urn:upfbench:method-not-allowed",
            ProblemKind::MalformedBody => "urn:upfbench:malformed-body",
            ProblemKind::UnexpectedBody => "urn:upfbench:unexpected-body",
            ProblemKind::UnsupportedMediaType => "urn:upfbench:unsupported-media-type",
            ProblemKind::BodyTooLarge => "urn:upfbench:body-too-large",
            ProblemKind::BodyTimeout => "urn:upfbench:body-timeout",
            ProblemKind::InvalidContent => "urn:upfbench:invalid-content",
            ProblemKind::Conflict => "urn:upfbench:conflict",
            ProblemKind::Unauthorized => "urn:upfbench:unauthorized",
            ProblemKind::Unavailable => "urn:upfbench:unavailable",
        }
    }

    /// The problem's `title`: the same for every occurrence of the kind (RFC 9457 §3.1.3).
    pub fn title(self) -> &'static str {
        match self {
            ProblemKind::NotFound => "no such route",
            ProblemKind::MethodNotAllowed => "method not allowed on this route",
            ProblemKind::MalformedBody => "the body is not the JSON this route takes",
            ProblemKind::UnexpectedBody => "a body where none is taken, or none where one is",
            ProblemKind::UnsupportedMediaType => "bodies are application/json",
            ProblemKind::BodyTooLarge => "the body is over this route's limit",
            ProblemKind::BodyTimeout => "the body did not arrive in time",
            ProblemKind::InvalidContent => "the request cannot be run",
            ProblemKind::Conflict => "not now",
            ProblemKind::Unauthorized => "a bearer token is needed",
            ProblemKind::Unavailable => "the agent's ports are not up",
        }
    }
}

/// One located issue: a field's path (`streams[0].rate`, or `line 3, column 7` in a body that
/// does not parse) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Issue {
    /// Where.
    pub field: String,
    /// What.
    pub message: String,
}

/// A problem document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Its kind, which gives `type`, `title` and `status`.
    #[serde(skip)]
    pub kind: ProblemKind,
    /// `type`.
    #[serde(rename = "type")]
    pub type_uri: &'static str,
    /// `title`.
    pub title: &'static str,
    /// `status`.
    pub status: u16,
    /// This occurrence, in words.
    pub detail: String,
    /// The located issues, if any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Issue>,
    /// For 405: the methods the route takes (the `Allow` header's value).
    #[serde(skip)]
    pub allow: Vec<&'static str>,
}

impl Problem {
    /// A problem of `kind`, `detail` saying what happened.
    pub fn new(kind: ProblemKind, detail: impl Into<String>) -> Problem {
        Problem {
            kind,
            type_uri: kind.type_uri(),
            title: kind.title(),
            status: kind.status(),
            detail: detail.into(),
            issues: Vec::new(),
            allow: Vec::new(),
        }
    }

    /// With a located issue.
    pub fn with_issue(mut self, field: impl Into<String>, message: impl Into<String>) -> Problem {
        self.issues.push(Issue {
            field: field.into(),
            message: message.into(),
        });
        self
    }

    /// The document's JSON.
    pub fn to_json(&self) -> String {
        // A struct of strings, numbers and a list of them always serializes.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A problem document as a client reads it: [`Problem`]'s JSON, its text owned; and its
/// schema in the OpenAPI document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProblemDocument {
    /// A URN that names the kind of problem (`urn:upfbench:invalid-content`).
    #[serde(rename = "type")]
    pub type_uri: String,
    /// The kind's title, the same for every occurrence.
    pub title: String,
    /// The HTTP status.
    pub status: u16,
    /// This occurrence, in words.
    pub detail: String,
    /// The located issues, if any: a field's path and what is wrong with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub issues: Vec<Issue>,
}

impl std::fmt::Display for ProblemDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status, self.title, self.detail)?;
        for i in &self.issues {
            write!(f, "; {}: {}", i.field, i.message)?;
        }
        Ok(())
    }
}
