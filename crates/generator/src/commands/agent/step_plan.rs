//! A step of a segment planned as `POST /v1/steps` asks for it: the segment's profile with
//! every stream at the step's payload (if it gives one; else each its own), its warm-up and
//! measured phase, its rates at the step's
//! load (a multiplier of the profile's), checked as the command line's `-d` and `-m` are (422
//! with the request's field), then planned for the segment's block of UEs
//! (`run::plan::build_block`: each UE with its global index).

use std::time::Duration;

use upfbench_api::v1::StepRequest;
use upfbench_api::{Problem, ProblemKind};
use upfbench_config::overrides::{multiplied, with_duration};
use upfbench_config::{ConfigError, Multiplier};
use upfbench_run::plan::{self, Plan};

use super::segment::Loaded;

/// Step `s` of the segment `loaded` on ports of line rates `links` (each pair's; empty when
/// unknown).
pub(crate) fn plan_step(
    loaded: &Loaded,
    links: &[[Option<f64>; 2]],
    s: &StepRequest,
) -> Result<Plan, Problem> {
    let invalid = |field: &str, message: String| {
        Problem::new(ProblemKind::InvalidContent, "the step cannot be planned")
            .with_issue(field, message)
    };
    let mut profile = loaded.profile.clone();
    profile.warmup = Duration::from_millis(s.warmup_ms);
    if let Some(payload) = s.payload {
        for st in &mut profile.streams {
            st.payload = payload;
        }
    }
    let profile = with_duration(&profile, Duration::from_millis(s.duration_ms))
        .map_err(|e| invalid(field_of(&e, "duration_ms"), e.to_string()))?;
    let m: Multiplier = format!("{}x", s.load)
        .parse()
        .map_err(|e: String| invalid("load", e))?;
    let first = links.first().copied().unwrap_or_default();
    let scaled = multiplied(&loaded.system, &profile, &m, s.payload, first)
        .map_err(|e| invalid("load", e.to_string()))?;
    let links = if links.len() == loaded.system.pairs().len() {
        links
    } else {
        &[]
    };
    let ues = loaded.segment.ues;
    plan::build_block(
        &loaded.system,
        &scaled.profile,
        s.payload,
        links,
        ues.first..ues.first + ues.count,
    )
    .map_err(|e| invalid("load", e.to_string()))
}

/// The request's field a profile's problem comes from: a stream's payload's (the checks name
/// the profile's field in their message), or `otherwise`.
fn field_of(e: &ConfigError, otherwise: &'static str) -> &'static str {
    match e {
        ConfigError::Invalid { diagnostics }
            if diagnostics.iter().any(|d| d.message.contains(".payload:")) =>
        {
            "payload"
        }
        _ => otherwise,
    }
}
