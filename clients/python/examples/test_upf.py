"""What a UPF's CI runs against upfbench (docs/scale.md §5): a run at the nominal rate with no
loss and p99 latency under a bound, and a throughput search whose NDR is above a floor.

Run it with pytest against an agent (`upfbench agent SYSTEM --listen ADDR`) that drives the
UPF under test; every setting comes from the environment:

    UPFBENCH_URL             the agent, http://HOST:9800 (unset: every test is skipped)
    UPFBENCH_TOKEN           its bearer token, or UPFBENCH_TOKEN_FILE, the agent's --token-file
    UPFBENCH_RUN_PROFILE     the run's profile (default: profiles/run.yaml beside this file)
    UPFBENCH_SEARCH_PROFILE  the search's profile (default: profiles/search.yaml beside it)
    UPFBENCH_P99_MAX_US      the bound of every direction's p99 latency (default 10000 µs)
    UPFBENCH_NDR_MIN_PPS     the floor of the NDR, each case, pps (default 10000)
    UPFBENCH_GOAL            the search goal the floor is for (default NDR)
    UPFBENCH_TIMEOUT_S       how long a run or search may take (default 600 s)

    UPFBENCH_URL=http://127.0.0.1:9800 pytest -v clients/python/examples/test_upf.py
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from upfbench_client import Agent, Report, RunMode

HERE = Path(__file__).resolve().parent


def _env(name: str, default: str) -> str:
    return os.environ.get(name) or default


@pytest.fixture(scope="session")
def agent() -> Iterator[Agent]:
    """The agent at UPFBENCH_URL, checked to answer."""
    url = os.environ.get("UPFBENCH_URL")
    if not url:
        pytest.skip("UPFBENCH_URL is not set: no agent to test the UPF with")
    token = os.environ.get("UPFBENCH_TOKEN")
    token_file = os.environ.get("UPFBENCH_TOKEN_FILE")
    if token is None and token_file:
        token = Path(token_file).read_text().strip()
    a = Agent(url, token=token)
    print(f"agent {a.url}: {a.health().state}, {a.info().version}")
    yield a


def _finished(agent: Agent, mode: RunMode, profile: str) -> Report:
    """The report of a `mode` run of `profile`, once it finished."""
    run = agent.run(profile, mode=mode)
    state = run.wait(timeout_s=float(_env("UPFBENCH_TIMEOUT_S", "600")))
    assert state.phase == "finished", f"{mode} {run.id} {state.phase}: {state.error}"
    return run.report()


def test_no_loss_at_nominal_rate(agent: Agent) -> None:
    profile = _env("UPFBENCH_RUN_PROFILE", str(HERE / "profiles/run.yaml"))
    bound_ns = float(_env("UPFBENCH_P99_MAX_US", "10000")) * 1e3
    report = _finished(agent, "run", profile)
    assert report.steps, "the run measured no step"
    for step in report.steps:
        for d in step.directions:
            p99 = d.latency.p99_ns if d.latency else None
            print(f"{step.label} {d.direction}: sent {d.sent}, lost {d.lost}, p99 {p99} ns")
            assert d.sent > 0, f"{step.label} {d.direction}: nothing sent"
            assert d.lost == 0, f"{step.label} {d.direction}: {d.lost} of {d.sent} lost"
            assert p99 is not None, f"{step.label} {d.direction}: no latency sample"
            assert p99 <= bound_ns, f"{step.label} {d.direction}: p99 {p99} ns > {bound_ns} ns"


def test_ndr_at_least(agent: Agent) -> None:
    profile = _env("UPFBENCH_SEARCH_PROFILE", str(HERE / "profiles/search.yaml"))
    floor = float(_env("UPFBENCH_NDR_MIN_PPS", "10000"))
    goal = _env("UPFBENCH_GOAL", "NDR")
    report = _finished(agent, "search", profile)
    assert report.search is not None and report.search.cases, "the report has no search"
    for case in report.search.cases:
        result = case.result(goal)
        found = result.conditional_throughput_pps
        print(f"{case.label} {goal}: {found} pps ({result.status}), floor {floor} pps")
        assert found is not None, f"{case.label}: no {goal} found ({result.status})"
        assert found >= floor, f"{case.label}: {goal} {found:.0f} pps < {floor:.0f} pps"
