"""A fake `upfbench agent` on loopback (`http.server` in a thread): the routes of `/v1/runs`,
`/health`, `/v1` and `/v1/clock` as docs/scale.md §4 gives them, a bearer token, problem
documents, and runs whose phases follow a script, one `GET /v1/runs/{id}` per phase. Every
request is recorded for the tests to look at."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The phases a run goes through unless a test gives others.
DEFAULT_SCRIPT = ["starting", "running", "running", "finished"]

LIVE = {
    "elapsed_ns": 1_500_000_000,
    "interval_ns": 1_000_000_000,
    "total": [
        {
            "direction": "uplink",
            "tx_packets": 10_000,
            "rx_packets": 9_998,
            "tx_gbps_l1": 0.0264,
            "tx_kpps": 10.0,
            "rx_gbps_l1": 0.02639,
            "rx_kpps": 9.998,
            "lost": 2,
            "lost_total": 2,
            "lat_p50_ns": 6_000,
            "lat_p99_ns": 35_000,
            "lat_max_ns": 90_000,
        },
        {
            "direction": "downlink",
            "tx_packets": 10_000,
            "rx_packets": 10_000,
            "tx_gbps_l1": 0.0264,
            "tx_kpps": 10.0,
            "rx_gbps_l1": 0.0264,
            "rx_kpps": 10.0,
            "lost": 0,
            "lost_total": 0,
            "lat_p50_ns": None,
            "lat_p99_ns": None,
            "lat_max_ns": None,
        },
    ],
    "pairs": [],
}

AGENT_INFO = {
    "name": "fake",
    "version": "0.1.0",
    "api_version": 1,
    "tsc_hz": 2.4e9,
    "pairs": [
        {
            "name": "p0",
            "weight": 1,
            "workers": [1],
            "n3": {"device": "net_memif0", "address": "192.168.13.131/24", "peer": "192.168.13.151"},
            "n6": {"device": "net_memif1", "address": "192.168.16.152/24", "peer": "192.168.16.151"},
        }
    ],
}

#: A profile line the fake refuses, as the agent refuses a rate it cannot read.
BAD_RATE = "rate: fast"


@dataclass
class Recorded:
    """One request as the fake received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class FakeRun:
    """A run of the fake: its request, and the phases still to show."""

    id: str
    request: dict[str, Any]
    script: list[str]
    phase: str = "starting"
    error: str | None = None
    polls: int = 0


@dataclass
class FakeAgent:
    """The fake's state: its token, its runs, the report a finished run serves (`reports`'
    for its mode, else `report`), what it was asked, and answers a test forces for one route
    (`overrides[(method, path)]`)."""

    token: str | None = None
    report: dict[str, Any] = field(default_factory=dict)
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    script: list[str] = field(default_factory=lambda: list(DEFAULT_SCRIPT))
    runs: dict[str, FakeRun] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    overrides: dict[tuple[str, str], tuple[int, str, bytes]] = field(default_factory=dict)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def busy(self) -> bool:
        return any(r.phase not in ("finished", "failed") for r in self.runs.values())

    def handle(self, rec: Recorded) -> tuple[int, str, bytes, dict[str, str]]:
        with self._lock:
            self.requests.append(rec)
            forced = self.overrides.get((rec.method, rec.path))
            if forced is not None:
                return forced[0], forced[1], forced[2], {}
            return self._route(rec)

    def _route(self, rec: Recorded) -> tuple[int, str, bytes, dict[str, str]]:
        m, p = rec.method, rec.path
        if (m, p) == ("GET", "/health"):
            return ok({"state": "running" if self.busy() else "idle"})
        if self.token is not None and rec.headers.get("authorization") != f"Bearer {self.token}":
            wrong = "authorization" in rec.headers
            return problem(
                401,
                "unauthorized",
                "Unauthorized",
                "a wrong bearer token" if wrong else "a bearer token is needed",
                headers={"WWW-Authenticate": 'Bearer realm="upfbench"'},
            )
        if (m, p) == ("GET", "/v1"):
            return ok(AGENT_INFO)
        if (m, p) == ("GET", "/v1/clock"):
            return ok({"unix_ns": time.time_ns()})
        if (m, p) == ("POST", "/v1/runs"):
            return self._start(rec)
        found = re.fullmatch(r"/v1/runs/([A-Za-z0-9._:-]{1,64})(/[a-z.]+)?", p)
        if found is None or found.group(1) not in self.runs:
            return problem(404, "not-found", "Not Found", f"no route or run at {p}")
        run = self.runs[found.group(1)]
        tail = found.group(2) or ""
        if (m, tail) == ("GET", ""):
            return ok(self._poll(run))
        if (m, tail) == ("POST", "/stop"):
            if run.phase in ("finished", "failed"):
                return problem(409, "conflict", "Conflict", f"run {run.id} has ended")
            run.script = ["stopping", "finished"]
            return 202, "application/json", b"", {}
        if m == "GET" and tail in ("/report", "/report.html", "/events"):
            if run.phase != "finished":
                return problem(409, "conflict", "Conflict", f"run {run.id} is {run.phase}")
            if tail == "/report":
                return ok(self.reports.get(run.request.get("mode", ""), self.report))
            if tail == "/report.html":
                return 200, "text/html", b"<!DOCTYPE html>\n<html><title>report</title>", {}
            events = [{"event": "run_started", "id": run.id}, {"event": "run_finished"}]
            body = "".join(json.dumps(e) + "\n" for e in events).encode()
            return 200, "application/jsonl", body, {}
        return problem(405, "method-not-allowed", "Method Not Allowed", f"{m} {p}")

    def _start(self, rec: Recorded) -> tuple[int, str, bytes, dict[str, str]]:
        if rec.headers.get("content-type") != "application/json":
            return problem(415, "unsupported-media-type", "Unsupported Media Type", "")
        try:
            body = rec.json()
        except ValueError as e:
            return problem(400, "malformed-body", "Bad Request", str(e))
        if self.busy():
            return problem(409, "conflict", "Conflict", "a run is in progress")
        text = body.get("profile_yaml", "")
        for n, line in enumerate(text.splitlines(), 1):
            col = line.find(BAD_RATE)
            if col >= 0:
                return problem(
                    422,
                    "invalid-content",
                    "Unprocessable Content",
                    "the profile is not valid",
                    issues=[
                        {
                            "field": "streams[0].rate",
                            "message": f"line {n}, column {col + 7}: expected a rate "
                            "such as 100kpps or 1Gbps",
                        }
                    ],
                )
        run_id = f"r{len(self.runs) + 1}-1764400000"
        self.runs[run_id] = FakeRun(run_id, body, list(self.script))
        return 201, "application/json", json.dumps({"id": run_id}).encode(), {}

    def _poll(self, run: FakeRun) -> dict[str, Any]:
        if run.script:
            run.phase = run.script.pop(0)
        run.polls += 1
        state: dict[str, Any] = {"id": run.id, "phase": run.phase}
        if run.phase == "running":
            state.update(step=1, steps=1, live=LIVE)
            if run.request.get("mode") == "search":
                state["search"] = {"goal": "NDR", "trials": run.polls, "lower_pps": 20_019.0}
        if run.phase == "failed":
            state["error"] = "the UPF refused the association"
        return state


def ok(value: Any) -> tuple[int, str, bytes, dict[str, str]]:
    return 200, "application/json", json.dumps(value).encode(), {}


def problem(
    status: int,
    kind: str,
    title: str,
    detail: str,
    issues: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str, bytes, dict[str, str]]:
    doc: dict[str, Any] = {
        "type": f"urn:upfbench:{kind}",
        "title": title,
        "status": status,
        "detail": detail,
    }
    if issues is not None:
        doc["issues"] = issues
    return status, "application/problem+json", json.dumps(doc).encode(), headers or {}


def serve(agent: FakeAgent) -> ThreadingHTTPServer:
    """Serves `agent` on 127.0.0.1 (any free port) in a daemon thread; sets `agent.url`."""

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            rec = Recorded(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length),
            )
            status, ctype, body, headers = agent.handle(rec)
            self.send_response(status)
            if body or status != 202:
                self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    agent.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    return server
