"""The client's end-to-end tests against a real agent at UPFBENCH_URL (with UPFBENCH_TOKEN or
UPFBENCH_TOKEN_FILE when it has a token); skipped when UPFBENCH_URL is unset. The agent's
system must be one the examples' profiles run on (deploy/systems/memif.yaml against
`upfbench reflect`, as deploy/quickstart.sh sets them up)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from upfbench_client import Agent


def _token() -> str | None:
    token = os.environ.get("UPFBENCH_TOKEN")
    token_file = os.environ.get("UPFBENCH_TOKEN_FILE")
    if token is None and token_file:
        token = Path(token_file).read_text().strip()
    return token


@pytest.fixture(scope="session")
def token() -> str | None:
    """The agent's token, if it has one."""
    return _token()


@pytest.fixture(scope="session")
def agent(token: str | None) -> Iterator[Agent]:
    """The agent at UPFBENCH_URL."""
    url = os.environ.get("UPFBENCH_URL")
    if not url:
        pytest.skip("UPFBENCH_URL is not set: no agent")
    yield Agent(url, token=token, timeout=float(os.environ.get("UPFBENCH_HTTP_TIMEOUT_S", "30")))
