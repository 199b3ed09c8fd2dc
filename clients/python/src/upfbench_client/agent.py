"""`Agent`, the client of one `upfbench agent` (or `upfbench serve`), and `Run`, a whole run
on its box (`POST /v1/runs`, docs/scale.md §4-5)."""

from __future__ import annotations

import json
import os
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from . import _read as r
from ._http import Transport
from .errors import MalformedAnswer
from .models import AgentInfo, Clock, Health, RunMode, RunState
from .report import Report


class Agent:
    """An agent at `url` (`http://127.0.0.1:9800`), with its bearer `token` if it has one
    (`--token-file`); `timeout` is each request's, in seconds."""

    def __init__(self, url: str, token: str | None = None, timeout: float = 30.0) -> None:
        self._http = Transport(url, token, timeout)

    @property
    def url(self) -> str:
        """The agent's base URL."""
        return self._http.url

    def health(self) -> Health:
        """`GET /health` (sent without the token)."""
        answer = self._http.request("GET", "/health", authorize=False)
        return Health.parse(r.obj(answer.json(), ""))

    def info(self) -> AgentInfo:
        """`GET /v1`: name, version, API version, pairs."""
        return AgentInfo.parse(r.obj(self._http.request("GET", "/v1").json(), ""))

    def clock(self) -> Clock:
        """`GET /v1/clock`."""
        return Clock.parse(r.obj(self._http.request("GET", "/v1/clock").json(), ""))

    def run(
        self,
        profile: str | os.PathLike[str] | None = None,
        *,
        profile_yaml: str | None = None,
        mode: RunMode = "run",
        duration_s: float | None = None,
        multiplier: float | None = None,
        payloads: Sequence[int] | None = None,
    ) -> Run:
        """Starts a whole run on the agent's box (`POST /v1/runs`): the profile file at
        `profile` (its text is sent, the agent parses it) or the text `profile_yaml`; `mode`
        is the command (`run`, `sweep`, `search`, `capacity`); `duration_s` (each step's),
        `multiplier` and `payloads` are the command line's `-d`, `-m` and `--payloads`.
        Raises `UpfbenchError`: 409 when a run is in progress, 422 with located `issues` for
        a profile the agent refuses."""
        if (profile is None) == (profile_yaml is None):
            raise ValueError("give either profile (a file's path) or profile_yaml (its text)")
        text = profile_yaml if profile_yaml is not None else Path(str(profile)).read_text()
        options: dict[str, Any] = {}
        if duration_s is not None:
            options["duration_ms"] = round(duration_s * 1000)
        if multiplier is not None:
            options["multiplier"] = float(multiplier)
        if payloads is not None:
            options["payloads"] = [int(p) for p in payloads]
        body = {"mode": mode, "profile_yaml": text, "options": options}
        answer = self._http.request("POST", "/v1/runs", body)
        if answer.status != 201:
            raise MalformedAnswer("", f"POST /v1/runs answered {answer.status}, not 201")
        return Run(self._http, r.str_(r.obj(answer.json(), ""), "id", ""))

    def sweep(self, profile: str | os.PathLike[str] | None = None, **kw: Any) -> Run:
        """`run(..., mode="sweep")`: the profile's steps (payload sizes, rates)."""
        return self.run(profile, mode="sweep", **kw)

    def search(self, profile: str | os.PathLike[str] | None = None, **kw: Any) -> Run:
        """`run(..., mode="search")`: the throughput search (RFC 9971)."""
        return self.run(profile, mode="search", **kw)

    def capacity(self, profile: str | os.PathLike[str] | None = None, **kw: Any) -> Run:
        """`run(..., mode="capacity")`: the climb to the UPF's session limit."""
        return self.run(profile, mode="capacity", **kw)

    def attach(self, run_id: str) -> Run:
        """The run `run_id` (one started earlier, by this client or another)."""
        return Run(self._http, run_id)


class Run:
    """A run on an agent, by its id (`r1-1764400000`)."""

    def __init__(self, http: Transport, run_id: str) -> None:
        self._http = http
        self.id = run_id
        self._path = "/v1/runs/" + urllib.parse.quote(run_id, safe="")

    def __repr__(self) -> str:
        return f"Run({self.id!r} on {self._http.url})"

    def state(self) -> RunState:
        """`GET /v1/runs/{id}`: its phase, step, live figures, a search's progress."""
        return RunState.parse(r.obj(self._http.request("GET", self._path).json(), ""))

    def follow(self, every_s: float = 1.0) -> Iterator[RunState]:
        """Its state every `every_s` seconds, until (and including) the one where it ended
        (`finished` or `failed`)."""
        while True:
            state = self.state()
            yield state
            if state.ended:
                return
            time.sleep(every_s)

    def wait(self, timeout_s: float | None = None, every_s: float = 1.0) -> RunState:
        """Its state once it ended; `TimeoutError` if it has not after `timeout_s` seconds."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            state = self.state()
            if state.ended:
                return state
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"run {self.id} still {state.phase} after {timeout_s} s"
                    )
                time.sleep(min(every_s, left))
            else:
                time.sleep(every_s)

    def stop(self) -> None:
        """`POST /v1/runs/{id}/stop`: stops it as Ctrl-C does (its report is still written)."""
        self._http.request("POST", self._path + "/stop")

    def report(self) -> Report:
        """Its report, typed (a finished run's)."""
        return Report.parse(self.report_json())

    def report_json(self) -> dict[str, Any]:
        """Its report.json as a dict: every field, the typed report's and the others."""
        return r.obj(self._http.request("GET", self._path + "/report").json(), "")

    def report_html(self) -> str:
        """Its report page (report.html)."""
        return self._http.request("GET", self._path + "/report.html", accept="text/html").text()

    def events(self) -> list[dict[str, Any]]:
        """Its events so far (events.jsonl, docs/events.md), one dict each."""
        text = self._http.request(
            "GET", self._path + "/events", accept="application/jsonl"
        ).text()
        events = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    events.append(r.obj(json.loads(line), f"line {n}"))
                except ValueError as e:
                    raise MalformedAnswer(f"line {n}", f"not JSON: {e}") from None
        return events
