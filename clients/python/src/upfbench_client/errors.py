"""The errors the client raises: `UpfbenchError` for an agent's problem document (RFC 9457,
docs/scale.md §4 "Guarding it"), `MalformedAnswer` for an answer that is not what the API's
schema (schema/api/v1/openapi.json) says."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Issue:
    """One located issue: a field's path (`streams[0].rate`; in a profile's YAML the message
    starts with `line L, column C: `) and what is wrong with it."""

    __schema__: ClassVar[str] = "Issue"

    field: str
    message: str


@dataclass(frozen=True)
class Problem:
    """An RFC 9457 problem document as the agent sends it (`application/problem+json`)."""

    __schema__: ClassVar[str] = "ProblemDocument"

    type: str
    title: str
    status: int
    detail: str
    issues: list[Issue] = field(default_factory=list)

    @staticmethod
    def from_json(value: Any, status: int, reason: str) -> Problem:
        """The problem document `value` of an answer with `status`; an answer that is not one
        (a proxy's page) becomes one of type `about:blank` with the HTTP reason as title."""
        if isinstance(value, dict):
            issues = value.get("issues")
            return Problem(
                type=_text(value.get("type"), "about:blank"),
                title=_text(value.get("title"), reason),
                status=value["status"] if isinstance(value.get("status"), int) else status,
                detail=_text(value.get("detail"), ""),
                issues=[
                    Issue(field=_text(i.get("field"), ""), message=_text(i.get("message"), ""))
                    for i in (issues if isinstance(issues, list) else [])
                    if isinstance(i, dict)
                ],
            )
        return Problem(type="about:blank", title=reason, status=status, detail="", issues=[])


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


class UpfbenchError(Exception):
    """The agent refused a request: its problem document's `status`, `type`, `title`,
    `detail` and located `issues` (a 422's `[Issue(field, message)]`)."""

    def __init__(self, problem: Problem, method: str, url: str) -> None:
        self.problem = problem
        self.status = problem.status
        self.type = problem.type
        self.title = problem.title
        self.detail = problem.detail
        self.issues = problem.issues
        self.method = method
        self.url = url
        lines = [f"{method} {url}: {problem.status} {problem.title}"]
        if problem.detail:
            lines[0] += f": {problem.detail}"
        lines += [f"  {i.field}: {i.message}" for i in problem.issues]
        super().__init__("\n".join(lines))


class MalformedAnswer(ValueError):
    """An answer the client cannot read: a field missing or of the wrong type (`path` names it,
    `steps[0].directions[1].loss.lost`), or a report of a schema version it does not read."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)
