"""The client against the fake agent on loopback: the token, the run's routes and their
answers (201, 409, 422, 404), follow/wait, and problem documents as `UpfbenchError`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import TOKEN
from fake_agent import BAD_RATE, FakeAgent
from upfbench_client import Agent, MalformedAnswer, UpfbenchError

PROFILE = "name: t\nstreams:\n  - {name: ul, direction: uplink, rate: 10kpps, payload: 300}\n"


def test_the_bearer_token_goes_on_every_route_but_health(guarded: FakeAgent) -> None:
    agent = Agent(guarded.url, token=TOKEN)
    assert agent.health().state == "idle"
    info = agent.info()
    assert (info.name, info.api_version, info.pairs[0].n3.device) == ("fake", 1, "net_memif0")
    assert agent.clock().unix_ns > 0
    run = agent.run(profile_yaml=PROFILE)
    run.state()
    auth = [(r.method, r.path, r.headers.get("authorization")) for r in guarded.requests]
    print(auth)
    assert auth == [
        ("GET", "/health", None),
        ("GET", "/v1", f"Bearer {TOKEN}"),
        ("GET", "/v1/clock", f"Bearer {TOKEN}"),
        ("POST", "/v1/runs", f"Bearer {TOKEN}"),
        ("GET", f"/v1/runs/{run.id}", f"Bearer {TOKEN}"),
    ]


@pytest.mark.parametrize("token", [None, "not-the-token"])
def test_a_missing_or_wrong_token_is_a_401(guarded: FakeAgent, token: str | None) -> None:
    with pytest.raises(UpfbenchError) as e:
        Agent(guarded.url, token=token).info()
    assert (e.value.status, e.value.type) == (401, "urn:upfbench:unauthorized")
    print(e.value)
    assert "401 Unauthorized" in str(e.value)


def test_a_run_posts_the_profiles_text_and_options_and_gets_its_id(
    fake: FakeAgent, tmp_path: Path
) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text(PROFILE)
    run = Agent(fake.url).run(profile, duration_s=2.5, multiplier=0.5, payloads=[64, 1400])
    assert run.id == "r1-1764400000"
    post = fake.requests[-1]
    assert (post.method, post.path, post.headers["content-type"]) == (
        "POST",
        "/v1/runs",
        "application/json",
    )
    assert post.json() == {
        "mode": "run",
        "profile_yaml": PROFILE,
        "options": {"duration_ms": 2500, "multiplier": 0.5, "payloads": [64, 1400]},
    }


@pytest.mark.parametrize("mode", ["sweep", "search", "capacity"])
def test_each_mode_names_its_command_and_leaves_out_options_not_given(
    fake: FakeAgent, mode: str
) -> None:
    agent = Agent(fake.url)
    getattr(agent, mode)(profile_yaml=PROFILE)
    assert fake.requests[-1].json() == {"mode": mode, "profile_yaml": PROFILE, "options": {}}


def test_a_run_needs_a_profile_file_or_text_but_not_both(fake: FakeAgent) -> None:
    agent = Agent(fake.url)
    with pytest.raises(ValueError):
        agent.run()
    with pytest.raises(ValueError):
        agent.run("p.yaml", profile_yaml=PROFILE)
    assert fake.requests == []


def test_a_second_run_while_one_runs_is_a_409(fake: FakeAgent) -> None:
    agent = Agent(fake.url)
    agent.run(profile_yaml=PROFILE)
    assert agent.health().state == "running"
    with pytest.raises(UpfbenchError) as e:
        agent.run(profile_yaml=PROFILE)
    assert (e.value.status, e.value.title, e.value.detail) == (
        409,
        "Conflict",
        "a run is in progress",
    )


def test_a_refused_profiles_located_issues_reach_the_exception(fake: FakeAgent) -> None:
    bad = PROFILE.replace("rate: 10kpps", BAD_RATE)
    with pytest.raises(UpfbenchError) as e:
        Agent(fake.url).run(profile_yaml=bad)
    err = e.value
    print(err)
    assert (err.status, err.type) == (422, "urn:upfbench:invalid-content")
    assert [(i.field, i.message) for i in err.issues] == [
        ("streams[0].rate", "line 3, column 41: expected a rate such as 100kpps or 1Gbps")
    ]
    assert "streams[0].rate: line 3, column 41" in str(err)
    assert fake.runs == {}


def test_an_unknown_run_is_a_404(fake: FakeAgent) -> None:
    run = Agent(fake.url).attach("r9-1")
    for call in (run.state, run.report, run.stop):
        with pytest.raises(UpfbenchError) as e:
            call()
        assert (e.value.status, e.value.type) == (404, "urn:upfbench:not-found")


def test_follow_yields_each_state_until_finished(fake: FakeAgent) -> None:
    run = Agent(fake.url).run(profile_yaml=PROFILE)
    states = list(run.follow(every_s=0))
    assert [s.phase for s in states] == ["starting", "running", "running", "finished"]
    live = states[1].live
    assert live is not None and live.uplink is not None and live.downlink is not None
    assert (live.uplink.rx_kpps, live.uplink.lost, live.uplink.lat_p99_ns) == (9.998, 2, 35_000)
    assert live.downlink.lat_p99_ns is None
    assert (states[1].step, states[1].steps, states[-1].live) == (1, 1, None)


def test_follow_ends_on_failed_with_the_reason(run_report: dict[str, object]) -> None:
    from fake_agent import serve

    agent = FakeAgent(script=["starting", "failed", "finished"])
    server = serve(agent)
    try:
        states = list(Agent(agent.url).run(profile_yaml=PROFILE).follow(every_s=0))
    finally:
        server.shutdown()
        server.server_close()
    assert [s.phase for s in states] == ["starting", "failed"]
    assert states[-1].ended and states[-1].error == "the UPF refused the association"


def test_a_search_shows_its_progress(fake: FakeAgent) -> None:
    run = Agent(fake.url).search(profile_yaml=PROFILE)
    running = [s for s in run.follow(every_s=0) if s.phase == "running"]
    assert [(s.search.goal, s.search.trials, s.search.lower_pps) for s in running if s.search] == [
        ("NDR", 2, 20_019.0),
        ("NDR", 3, 20_019.0),
    ]


def test_wait_gives_the_end_or_times_out(fake: FakeAgent) -> None:
    fake.script = ["running"] * 1000
    run = Agent(fake.url).run(profile_yaml=PROFILE)
    with pytest.raises(TimeoutError, match="still running"):
        run.wait(timeout_s=0.05, every_s=0.01)
    fake.script = ["finished"]
    fake.runs[run.id].script = ["finished"]
    assert run.wait(timeout_s=5, every_s=0.01).phase == "finished"


def test_stop_then_the_report_page_and_events(fake: FakeAgent) -> None:
    run = Agent(fake.url).run(profile_yaml=PROFILE)
    with pytest.raises(UpfbenchError) as e:
        run.report()
    assert e.value.status == 409
    run.stop()
    assert fake.requests[-1].path == f"/v1/runs/{run.id}/stop"
    assert [s.phase for s in run.follow(every_s=0)] == ["stopping", "finished"]
    assert run.report_json() == fake.report
    assert run.report().steps[0].label == fake.report["steps"][0]["label"]
    assert run.report_html().startswith("<!DOCTYPE html>")
    assert [e["event"] for e in run.events()] == ["run_started", "run_finished"]


def test_an_answer_against_the_schema_is_a_malformed_answer(fake: FakeAgent) -> None:
    run = Agent(fake.url).run(profile_yaml=PROFILE)
    path = f"/v1/runs/{run.id}"
    fake.overrides[("GET", path)] = (200, "application/json", b'{"id": "x", "phase": "paused"}')
    with pytest.raises(MalformedAnswer) as e:
        run.state()
    assert e.value.path == "phase"
    fake.overrides[("GET", path)] = (200, "application/json", b'{"id": "x", "phase": "running", '
                                     b'"live": {"elapsed_ns": 1, "interval_ns": "1s", '
                                     b'"total": [], "pairs": []}}')
    with pytest.raises(MalformedAnswer, match="live.interval_ns: expected an integer"):
        run.state()


def test_an_error_that_is_no_problem_document_keeps_its_status(fake: FakeAgent) -> None:
    fake.overrides[("GET", "/v1")] = (502, "text/html", b"<html>Bad Gateway</html>")
    with pytest.raises(UpfbenchError) as e:
        Agent(fake.url).info()
    assert (e.value.status, e.value.title, e.value.issues) == (502, "Bad Gateway", [])
