"""The example a UPF's CI uses (examples/test_upf.py) and the client's end-to-end tests (e2e/),
each run by pytest in a process of its own against the fake agent, as they run against a real
one: they pass on the real reports it serves, fail when a bound is not met, and skip without
UPFBENCH_URL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import TOKEN, load
from fake_agent import FakeAgent, serve

CLIENT = Path(__file__).resolve().parent.parent


@pytest.fixture
def lab() -> Iterator[FakeAgent]:
    """A fake agent with a token, serving the real run and search reports by mode."""
    agent = FakeAgent(
        token=TOKEN,
        report=load("run-report.json"),
        reports={"search": load("search-report.json")},
        script=["starting", "running", "finished"],
    )
    server = serve(agent)
    yield agent
    server.shutdown()
    server.server_close()


def pytest_in(target: str, **env: str) -> tuple[int, str]:
    """pytest on `target` (relative to clients/python) with `env`, UPFBENCH_* only from it."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("UPFBENCH_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
        cwd=CLIENT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    tail = done.stdout.strip().splitlines()[-1]
    print(target, env, "->", tail)
    return done.returncode, done.stdout


def test_the_example_passes_on_a_clean_run_and_a_search(lab: FakeAgent) -> None:
    code, out = pytest_in("examples/test_upf.py", UPFBENCH_URL=lab.url, UPFBENCH_TOKEN=TOKEN)
    assert code == 0 and "2 passed" in out, out
    modes = [r.json()["mode"] for r in lab.requests if r.path == "/v1/runs"]
    assert modes == ["run", "search"]


def test_the_example_fails_a_bound_not_met(lab: FakeAgent, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    code, out = pytest_in(
        "examples/test_upf.py",
        UPFBENCH_URL=lab.url,
        UPFBENCH_TOKEN_FILE=str(token_file),
        UPFBENCH_P99_MAX_US="1",
        UPFBENCH_NDR_MIN_PPS="1e9",
    )
    assert code == 1 and "2 failed" in out, out
    assert "run uplink: p99" in out and "ns > 1000.0 ns" in out
    assert "300 B both: NDR" in out and "pps < 1000000000 pps" in out


def test_the_example_and_the_e2e_tests_skip_without_an_agent() -> None:
    code, out = pytest_in("examples/test_upf.py")
    assert code == 0 and "2 skipped" in out, out
    code, out = pytest_in("e2e")
    assert code == 0 and "7 skipped" in out, out


def test_the_e2e_tests_pass_on_the_fake(lab: FakeAgent) -> None:
    code, out = pytest_in("e2e", UPFBENCH_URL=lab.url, UPFBENCH_TOKEN=TOKEN)
    assert code == 0 and "7 passed" in out, out
