"""Fixtures of the client's tests: the fake agent on loopback, the real reports, the repo."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fake_agent import FakeAgent, serve

HERE = Path(__file__).resolve().parent
#: The repository (clients/python/tests → ../../..).
REPO = HERE.parents[2]
FIXTURES = HERE / "fixtures"


def load(name: str) -> dict[str, Any]:
    """A fixture's JSON."""
    value: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return value


@pytest.fixture
def run_report() -> dict[str, Any]:
    """A real run's report.json (tests/fixtures/make.sh)."""
    return load("run-report.json")


@pytest.fixture
def search_report() -> dict[str, Any]:
    """A real search's report.json, its NDR with both bounds."""
    return load("search-report.json")


@pytest.fixture
def fake(run_report: dict[str, Any]) -> Iterator[FakeAgent]:
    """A fake agent without a token, serving the real run report."""
    agent = FakeAgent(report=run_report)
    server = serve(agent)
    yield agent
    server.shutdown()
    server.server_close()


TOKEN = "dGhpcyBpcyBhIHRlc3QgdG9rZW4gb2YgMzIgYnl0ZXM="


@pytest.fixture
def guarded(run_report: dict[str, Any]) -> Iterator[FakeAgent]:
    """A fake agent with the bearer token `TOKEN`."""
    agent = FakeAgent(token=TOKEN, report=run_report)
    server = serve(agent)
    yield agent
    server.shutdown()
    server.server_close()
