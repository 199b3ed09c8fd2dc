"""The client against a real `upfbench agent` (UPFBENCH_URL): the answers the fake gives in
tests/ are the agent's too. One run at a time: each test waits for its run's end."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from upfbench_client import Agent, RunState, UpfbenchError

#: The examples' short profiles (a 2 s run at 10 kpps a direction; an NDR search).
PROFILES = Path(__file__).resolve().parent.parent / "examples/profiles"
TIMEOUT_S = 300.0


def test_health_and_info(agent: Agent) -> None:
    health = agent.health()
    info = agent.info()
    print(health, info)
    assert health.state == "idle"
    assert info.api_version == 1 and info.pairs and info.tsc_hz > 0
    assert agent.clock().unix_ns > 0


def test_a_token_is_needed_when_the_agent_has_one(agent: Agent, token: str | None) -> None:
    if token is None:
        pytest.skip("the agent has no token (UPFBENCH_TOKEN unset)")
    with pytest.raises(UpfbenchError) as e:
        Agent(agent.url).info()
    assert e.value.status == 401
    with pytest.raises(UpfbenchError) as e:
        Agent(agent.url, token=token + "x").info()
    assert e.value.status == 401
    assert Agent(agent.url).health().state == "idle"


def test_a_bad_profile_is_a_422_located_in_its_lines(agent: Agent) -> None:
    text = (PROFILES / "run.yaml").read_text().replace("rate: 10kpps", "rate: fast", 1)
    with pytest.raises(UpfbenchError) as e:
        agent.run(profile_yaml=text)
    print(e.value)
    assert e.value.status == 422
    assert any(i.message.startswith("line ") for i in e.value.issues), e.value.issues


def test_an_unknown_run_is_a_404(agent: Agent) -> None:
    with pytest.raises(UpfbenchError) as e:
        agent.attach("r0-0").state()
    assert e.value.status == 404


def test_a_run_followed_to_its_report(agent: Agent) -> None:
    run = agent.run(PROFILES / "run.yaml", duration_s=2)
    states: list[RunState] = []
    for state in run.follow(every_s=0.5):
        states.append(state)
        assert len(states) < TIMEOUT_S * 2, f"run {run.id} still {state.phase}"
    print([(s.phase, s.step, s.live is not None) for s in states])
    assert states[-1].phase == "finished", states[-1].error
    live = [s.live for s in states if s.live is not None]
    assert live and any(f.uplink is not None and f.uplink.tx_packets > 0 for f in live)
    report = run.report()
    assert len(report.steps) == 1
    for d in report.steps[0].directions:
        print(d.direction, d.sent, d.lost, d.latency and d.latency.p99_ns)
        assert d.sent == 20_000 and d.lost == 0
    assert report.steps[0].duration_s == pytest.approx(2, rel=0.05)
    assert run.report_json()["steps"][0]["label"] == report.steps[0].label
    assert run.report_html().startswith("<!DOCTYPE html>")
    assert run.events()


def test_a_second_run_is_a_409_and_a_stopped_run_still_reports(agent: Agent) -> None:
    run = agent.run(PROFILES / "run.yaml", duration_s=30)
    try:
        with pytest.raises(UpfbenchError) as e:
            agent.sweep(PROFILES / "run.yaml")
        assert e.value.status == 409
        assert agent.health().state != "idle"
        # Stopped once its step sends: stopped while it sets up, it would measure nothing.
        deadline = time.monotonic() + TIMEOUT_S
        while run.state().step is None and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        run.stop()
    state = run.wait(timeout_s=TIMEOUT_S, every_s=0.5)
    print(state)
    assert state.phase == "finished", state.error
    assert run.report().steps


def test_a_search_finds_the_ndr(agent: Agent) -> None:
    run = agent.search(PROFILES / "search.yaml")
    progress = [s.search for s in run.follow(every_s=0.5) if s.search is not None]
    state = run.state()
    assert state.phase == "finished", state.error
    assert progress and progress[-1].goal == "NDR"
    search = run.report().search
    assert search is not None and search.complete
    ndr = search.result("NDR")
    print(ndr)
    assert ndr.conditional_throughput_pps is not None and ndr.conditional_throughput_pps > 0
