//! One call to an agent (docs/scale.md §3 "Failures"): the coordinator's [`Request`] made with
//! the agent's [`Client`], its answer as an [`Answer`] or its failure as a [`Failure`]: a
//! connection refused or reset is [`Failure::Refused`], an error status is
//! [`Failure::Status`] with the problem document's detail, anything else (no answer within the
//! client's timeout, a broken answer) is [`Failure::Other`].

use std::time::{SystemTime, UNIX_EPOCH};

use upfbench_cluster::coordinator::{Answer, Failure, Request};
use upfbench_remote::{Client, ClientError};

/// The wall clock in Unix ns: the coordinator's clock.
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Makes `request` of `client`. A clock call is timed around on the coordinator's clock
/// (Cristian's method, `cluster::clock`).
pub async fn make(client: &Client, request: Request) -> Result<Answer, Failure> {
    match request {
        Request::Clock => {
            let sent_ns = now_ns();
            let clock = client.clock().await.map_err(failure)?;
            let received_ns = now_ns();
            Ok(Answer::Clock {
                sent_ns,
                received_ns,
                clock,
            })
        }
        Request::LoadSegment(segment) => client
            .load_segment(&segment)
            .await
            .map(Answer::Loaded)
            .map_err(failure),
        Request::Arm(step) => client
            .arm_step(&step)
            .await
            .map(Answer::Armed)
            .map_err(failure),
        Request::Start { step, at } => client
            .start_step(step, at)
            .await
            .map(|()| Answer::Accepted)
            .map_err(failure),
        Request::Stop { step, at } => client
            .stop_step(step, at)
            .await
            .map(|()| Answer::Accepted)
            .map_err(failure),
        Request::Status => client.status().await.map(Answer::Status).map_err(failure),
        Request::Result { step } => client
            .step_result(step)
            .await
            .map(|r| Answer::Result(Box::new(r)))
            .map_err(failure),
    }
}

/// A client's error as the coordinator takes it.
pub fn failure(error: ClientError) -> Failure {
    match error {
        ClientError::Connect { source, .. }
            if matches!(
                source.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::ConnectionReset
            ) =>
        {
            Failure::Refused
        }
        ClientError::Problem { problem, .. } => {
            let problem = *problem;
            let text = if problem.detail.is_empty() {
                problem.title
            } else {
                problem.detail
            };
            Failure::Status(problem.status, text)
        }
        ClientError::Status { status, body, .. } => Failure::Status(status, body),
        other => Failure::Other(other.to_string()),
    }
}
