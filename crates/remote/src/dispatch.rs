//! A command to the handler, and its answer to a response.

use std::sync::Arc;

use http::StatusCode;
use serde::Serialize;
use upfbench_api::v1::Command;

use crate::agent::{Agent, Answer};
use crate::respond::{Reply, empty, internal, json, problem, text};

/// Runs `command` on `agent`: `/health` and `/v1/clock` on the connection's task (the clock
/// is read as late as possible), every other command on the blocking pool.
pub(crate) async fn run(agent: Arc<dyn Agent>, command: Command) -> Reply {
    match command {
        Command::Health => json(StatusCode::OK, &agent.health()),
        Command::Clock => answer(StatusCode::OK, agent.clock()),
        command => tokio::task::spawn_blocking(move || blocking(&*agent, command))
            .await
            .unwrap_or_else(|_| internal("the agent's handler failed")),
    }
}

fn answer<T: Serialize>(status: StatusCode, a: Answer<T>) -> Reply {
    match a {
        Ok(v) => json(status, &v),
        Err(p) => problem(&p),
    }
}

fn nothing(status: StatusCode, a: Answer<()>) -> Reply {
    match a {
        Ok(()) => empty(status),
        Err(p) => problem(&p),
    }
}

fn texts(media: &str, a: Answer<String>) -> Reply {
    match a {
        Ok(body) => text(StatusCode::OK, media, body),
        Err(p) => problem(&p),
    }
}

fn blocking(agent: &dyn Agent, command: Command) -> Reply {
    match command {
        Command::Health => json(StatusCode::OK, &agent.health()),
        Command::Clock => answer(StatusCode::OK, agent.clock()),
        Command::Metrics => texts("text/plain; version=0.0.4; charset=utf-8", agent.metrics()),
        Command::Agent => answer(StatusCode::OK, agent.info()),
        Command::LoadSegment(s) => answer(StatusCode::OK, agent.load_segment(*s)),
        Command::UnloadSegment => nothing(StatusCode::NO_CONTENT, agent.unload_segment()),
        Command::ArmStep(s) => answer(StatusCode::OK, agent.arm_step(s)),
        Command::StartStep { step, at } => {
            nothing(StatusCode::ACCEPTED, agent.start_step(step, at))
        }
        Command::StopStep { step, at } => nothing(StatusCode::ACCEPTED, agent.stop_step(step, at)),
        Command::Status => answer(StatusCode::OK, agent.status()),
        Command::StepResult { step } => answer(StatusCode::OK, agent.step_result(step)),
        Command::StartRun(r) => answer(StatusCode::CREATED, agent.start_run(r)),
        Command::RunState { id } => answer(StatusCode::OK, agent.run_state(&id)),
        Command::StopRun { id } => nothing(StatusCode::ACCEPTED, agent.stop_run(&id)),
        Command::RunReport { id, html: false } => texts("application/json", agent.run_report(&id)),
        Command::RunReport { id, html: true } => {
            texts("text/html; charset=utf-8", agent.run_report_html(&id))
        }
        Command::RunEvents { id } => texts("application/jsonl", agent.run_events(&id)),
    }
}
