"""The HTTP exchange with an agent over urllib: the bearer token on every route but /health,
JSON bodies, and RFC 9457 problem documents turned into `UpfbenchError`."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from .errors import MalformedAnswer, Problem, UpfbenchError


@dataclass(frozen=True)
class Answer:
    """A successful answer: its status, content type and body."""

    status: int
    content_type: str
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise MalformedAnswer("", f"the answer is not JSON: {e}") from None

    def text(self) -> str:
        """The body as UTF-8 text."""
        return self.body.decode("utf-8")


class Transport:
    """Requests to one agent at `url` (`http://127.0.0.1:9800`)."""

    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        authorize: bool = True,
        accept: str = "application/json",
    ) -> Answer:
        """`method path` with `body` as JSON (none if None); raises `UpfbenchError` on an
        answer of 400 or more, `OSError` (`urllib.error.URLError`) when the agent cannot be
        reached."""
        url = self.url + path
        headers = {"Accept": f"{accept}, application/problem+json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if authorize and self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return Answer(
                    status=resp.status,
                    content_type=resp.headers.get_content_type(),
                    body=resp.read(),
                )
        except urllib.error.HTTPError as e:
            raise _problem(e, method, url) from None


def _problem(e: urllib.error.HTTPError, method: str, url: str) -> UpfbenchError:
    body = e.read()
    value: Any = None
    if e.headers.get_content_type() in ("application/problem+json", "application/json"):
        try:
            value = json.loads(body)
        except ValueError:
            value = None
    return UpfbenchError(Problem.from_json(value, e.code, str(e.reason)), method, url)
