use proptest::prelude::*;

use super::*;

const JSON: Option<&str> = Some("application/json");

fn kind(r: Result<Command, Problem>) -> ProblemKind {
    r.expect_err("a problem").kind
}

#[test]
fn every_route_without_a_body_parses_to_its_command() {
    assert_eq!(parse("GET", "/health", None, b""), Ok(Command::Health));
    assert_eq!(parse("GET", "/metrics", None, b""), Ok(Command::Metrics));
    assert_eq!(parse("GET", "/v1", None, b""), Ok(Command::Agent));
    assert_eq!(parse("GET", "/v1/clock", None, b""), Ok(Command::Clock));
    assert_eq!(
        parse("DELETE", "/v1/segment", None, b""),
        Ok(Command::UnloadSegment)
    );
    assert_eq!(
        parse("GET", "/v1/status?x=1", None, b""),
        Ok(Command::Status)
    );
    assert_eq!(
        parse("GET", "/v1/steps/12/result", None, b""),
        Ok(Command::StepResult { step: 12 })
    );
    let id = "2026-11-29T12-00-00Z-7f3a".to_owned();
    assert_eq!(
        parse("GET", "/v1/runs/2026-11-29T12-00-00Z-7f3a", None, b""),
        Ok(Command::RunState { id: id.clone() })
    );
    assert_eq!(
        parse("POST", "/v1/runs/2026-11-29T12-00-00Z-7f3a/stop", None, b""),
        Ok(Command::StopRun { id: id.clone() })
    );
    assert_eq!(
        parse(
            "GET",
            "/v1/runs/2026-11-29T12-00-00Z-7f3a/report.html",
            None,
            b""
        ),
        Ok(Command::RunReport { id, html: true })
    );
}

#[test]
fn bodies_parse_to_their_types() {
    let run = br#"{"mode": "search", "profile_yaml": "kind: profile\n", "options": {"duration_ms": 1000, "payloads": [300]}}"#;
    assert_eq!(
        parse(
            "POST",
            "/v1/runs",
            Some("application/json; charset=utf-8"),
            run
        ),
        Ok(Command::StartRun(RunRequest {
            mode: RunMode::Search,
            profile_yaml: "kind: profile\n".to_owned(),
            options: RunOptions {
                duration_ms: Some(1000),
                multiplier: None,
                payloads: Some(vec![300]),
            },
        }))
    );
    assert_eq!(
        parse("POST", "/v1/steps/3/start", JSON, br#"{"at_unix_ns": 5}"#),
        Ok(Command::StartStep {
            step: 3,
            at: At { at_unix_ns: 5 }
        })
    );
    let segment = br#"{"run": "r", "agent": "gnb-b", "index": 1, "agents": 2,
        "profile": {"name": "quickstart"}, "ues": {"first": 334, "count": 666},
        "uplink_teids": {"sequence": {"first": 4096, "step": 1}}}"#;
    let Ok(Command::LoadSegment(s)) = parse("PUT", "/v1/segment", JSON, segment) else {
        panic!("a segment");
    };
    assert_eq!(
        s.ues,
        UeBlock {
            first: 334,
            count: 666
        }
    );
    assert_eq!(
        s.uplink_teids,
        UplinkTeids::Sequence {
            first: 4096,
            step: 1
        }
    );
    assert_eq!(s.upf_n3, None);
}

#[test]
fn a_path_no_route_has_is_404_a_method_another_route_takes_is_405() {
    assert_eq!(kind(parse("GET", "/v2", None, b"")), ProblemKind::NotFound);
    assert_eq!(kind(parse("GET", "/v1/", None, b"")), ProblemKind::NotFound);
    let p = parse("POST", "/v1/segment", JSON, b"{}").unwrap_err();
    assert_eq!(p.kind, ProblemKind::MethodNotAllowed);
    assert_eq!(p.status, 405);
    assert_eq!(p.allow, vec!["PUT", "DELETE"]);
}

#[test]
fn a_malformed_parameter_is_404_and_says_which() {
    for path in [
        "/v1/steps/0/result",
        "/v1/steps/-1/result",
        "/v1/steps/+1/result",
        "/v1/steps/x/result",
        "/v1/steps/4294967296/result",
    ] {
        let p = parse("GET", path, None, b"").unwrap_err();
        assert_eq!(p.kind, ProblemKind::NotFound, "{path}");
        assert!(
            p.detail.contains("is not a step's number"),
            "{path}: {}",
            p.detail
        );
    }
    let long = format!("/v1/runs/{}", "a".repeat(RUN_ID_MAX + 1));
    for path in ["/v1/runs/a%2fb", "/v1/runs/a b", long.as_str()] {
        let p = parse("GET", path, None, b"").unwrap_err();
        assert!(
            p.detail.contains("is not a run's id"),
            "{path}: {}",
            p.detail
        );
    }
}

#[test]
fn bodies_where_none_is_taken_and_none_where_one_is_are_400() {
    assert_eq!(
        kind(parse("GET", "/v1/status", JSON, b"{}")),
        ProblemKind::UnexpectedBody
    );
    assert_eq!(
        kind(parse("POST", "/v1/runs", JSON, b"")),
        ProblemKind::UnexpectedBody
    );
}

#[test]
fn only_json_is_taken_and_only_up_to_the_routes_limit() {
    let at = br#"{"at_unix_ns": 5}"#;
    for ct in [None, Some("text/plain"), Some("application/jsonx")] {
        assert_eq!(
            kind(parse("POST", "/v1/steps/1/stop", ct, at)),
            ProblemKind::UnsupportedMediaType,
            "{ct:?}"
        );
    }
    let big = vec![b' '; BODY_LIMIT + 1];
    assert_eq!(
        kind(parse("POST", "/v1/runs", JSON, &big)),
        ProblemKind::BodyTooLarge
    );
    // The segment's own limit is higher: the same body is read (and found not to be JSON).
    assert_eq!(
        kind(parse("PUT", "/v1/segment", JSON, &big)),
        ProblemKind::MalformedBody
    );
}

#[test]
fn malformed_json_says_where_and_unknown_fields_are_refused() {
    let p = parse(
        "POST",
        "/v1/runs",
        JSON,
        b"{\n  \"mode\": \"run\",\n  oops\n}",
    )
    .unwrap_err();
    assert_eq!(p.kind, ProblemKind::MalformedBody);
    assert_eq!(p.issues[0].field, "line 3, column 3");
    let p = parse(
        "POST",
        "/v1/runs",
        JSON,
        br#"{"mode": "run", "profile_yaml": "", "optoins": {}}"#,
    )
    .unwrap_err();
    assert!(p.detail.contains("unknown field `optoins`"), "{}", p.detail);
    let p = parse(
        "POST",
        "/v1/runs",
        JSON,
        br#"{"mode": "walk", "profile_yaml": ""}"#,
    )
    .unwrap_err();
    assert!(p.detail.contains("unknown variant `walk`"), "{}", p.detail);
}

#[test]
fn a_problem_document_is_rfc_9457s() {
    let p = Problem::new(ProblemKind::InvalidContent, "2 issues")
        .with_issue("streams[0].rate", "0 pps: a stream needs a rate");
    let v: serde_json::Value = serde_json::from_str(&p.to_json()).unwrap();
    assert_eq!(v["type"], "urn:upfbench:invalid-content");
    assert_eq!(v["status"], 422);
    assert_eq!(v["title"], "the request cannot be run");
    assert_eq!(v["issues"][0]["field"], "streams[0].rate");
    assert!(v.get("allow").is_none() && v.get("kind").is_none());
    // What a client reads is what the server wrote.
    let read: crate::ProblemDocument = serde_json::from_str(&p.to_json()).unwrap();
    assert_eq!(
        (read.type_uri.as_str(), read.title.as_str(), read.status),
        (p.type_uri, p.title, p.status)
    );
    assert_eq!(
        (read.detail, read.issues),
        (p.detail.clone(), p.issues.clone())
    );
    // Each kind its own type and a client-error or unavailable status.
    let mut types: Vec<_> = ProblemKind::ALL.iter().map(|k| k.type_uri()).collect();
    types.dedup();
    assert_eq!(types.len(), ProblemKind::ALL.len());
    assert!(
        ProblemKind::ALL
            .iter()
            .all(|k| (400..=503).contains(&k.status()))
    );
}

#[test]
fn the_route_table_has_one_route_per_method_and_path_and_only_health_is_open() {
    for (i, a) in ROUTES.iter().enumerate() {
        for b in &ROUTES[i + 1..] {
            assert!(
                (a.method, a.path) != (b.method, b.path),
                "{} {} twice",
                a.method,
                a.path
            );
        }
    }
    let open: Vec<_> = ROUTES.iter().filter(|r| r.open).map(|r| r.path).collect();
    assert_eq!(open, vec!["/health"]);
}

proptest! {
    #[test]
    fn any_request_gives_a_command_or_a_problem_of_the_table(
        method in prop::sample::select(vec!["GET", "POST", "PUT", "DELETE", "PATCH", "get", ""]),
        path in "(/[a-z0-9.{}%?=+-]{0,12}){0,5}",
        ct in prop::option::of("[a-z/;= -]{0,24}"),
        body in prop::collection::vec(any::<u8>(), 0..256),
    ) {
        if let Err(p) = parse(method, &path, ct.as_deref(), &body) {
            prop_assert!(ProblemKind::ALL.contains(&p.kind));
            prop_assert_eq!(p.status, p.kind.status());
            prop_assert_eq!(p.allow.is_empty(), p.kind != ProblemKind::MethodNotAllowed);
        }
    }

    #[test]
    fn every_truncation_of_a_valid_body_is_a_400_never_half_a_command(cut in 0usize..120) {
        let body = br#"{"mode": "capacity", "profile_yaml": "kind: profile", "options": {"multiplier": 1.5}}"#;
        prop_assume!(cut < body.len());
        let r = parse("POST", "/v1/runs", JSON, &body[..cut]);
        let p = r.unwrap_err();
        prop_assert!(p.kind == ProblemKind::MalformedBody || p.kind == ProblemKind::UnexpectedBody);
    }

    #[test]
    fn run_requests_round_trip_through_json(
        mode in prop::sample::select(vec![RunMode::Run, RunMode::Sweep, RunMode::Search, RunMode::Capacity]),
        yaml in ".{0,40}",
        duration_ms in prop::option::of(any::<u64>()),
        multiplier in prop::option::of(0.01f64..1000.0),
        payloads in prop::option::of(prop::collection::vec(any::<u16>(), 0..4)),
    ) {
        let r = RunRequest { mode, profile_yaml: yaml, options: RunOptions { duration_ms, multiplier, payloads } };
        let body = serde_json::to_vec(&r).unwrap();
        prop_assert_eq!(parse("POST", "/v1/runs", JSON, &body), Ok(Command::StartRun(r)));
    }
}
