"""The client against the API's OpenAPI document (schema/api/v1/openapi.json), so that it
cannot drift from the schema unnoticed: every property an answer's dataclass reads exists in
its schema with a compatible type, what the client sends is what the request schemas take,
and every route it calls is in the document with the method and success status it expects."""

from __future__ import annotations

import dataclasses
import json
import re
import types
import typing
from typing import Any

import pytest

import upfbench_client
from conftest import REPO
from fake_agent import FakeAgent
from upfbench_client import Agent

DOCUMENT = REPO / "schema/api/v1/openapi.json"
JSON_TYPES = {int: {"integer"}, float: {"number", "integer"}, str: {"string"}, bool: {"boolean"}}


def _document() -> dict[str, Any]:
    value: dict[str, Any] = json.loads(DOCUMENT.read_text())
    return value


def _schemas() -> dict[str, Any]:
    schemas: dict[str, Any] = _document()["components"]["schemas"]
    return schemas


def _answer_classes() -> list[type]:
    """Every dataclass the package exports that names its schema."""
    return [
        c
        for c in vars(upfbench_client).values()
        if isinstance(c, type) and dataclasses.is_dataclass(c) and hasattr(c, "__schema__")
    ]


def _resolve(prop: dict[str, Any], schemas: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The schema `prop` is, following a `$ref` (and its name), or the non-null branch of an
    `anyOf` with null."""
    if "anyOf" in prop:
        branches = [b for b in prop["anyOf"] if b.get("type") != "null"]
        assert len(branches) == 1, prop
        return _resolve(branches[0], schemas)
    if "$ref" in prop:
        name = prop["$ref"].removeprefix("#/components/schemas/")
        return schemas[name], name
    return prop, None


def _nullable(prop: dict[str, Any]) -> bool:
    types_ = prop.get("type", [])
    return "null" in (types_ if isinstance(types_, list) else [types_]) or any(
        b.get("type") == "null" for b in prop.get("anyOf", [])
    )


def _check(hint: Any, prop: dict[str, Any], schemas: dict[str, Any], where: str) -> list[str]:
    """What makes the Python type `hint` incompatible with the schema `prop` (empty: none)."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        inner = [a for a in args if a is not type(None)]
        assert len(inner) == 1, where
        return _check(inner[0], prop, schemas, where)
    target, name = _resolve(prop, schemas)
    if typing.get_origin(hint) is typing.Literal:
        consts = {b.get("const") for b in target.get("oneOf", [])}
        if set(args) != consts:
            return [f"{where}: the client knows {sorted(args)}, the schema {sorted(consts)}"]
        return []
    if typing.get_origin(hint) is list:
        if "array" not in _types(target):
            return [f"{where}: a list, the schema {target.get('type')}"]
        return _check(args[0], target["items"], schemas, where + "[]")
    if dataclasses.is_dataclass(hint):
        wanted = getattr(hint, "__schema__")
        return [] if name == wanted else [f"{where}: {wanted}, the schema {name}"]
    if hint in JSON_TYPES:
        if not _types(target) & JSON_TYPES[hint]:
            return [f"{where}: {hint.__name__}, the schema {target.get('type')}"]
        return []
    return [f"{where}: no rule for {hint}"]


def _types(schema: dict[str, Any]) -> set[str]:
    t = schema.get("type", [])
    return set(t if isinstance(t, list) else [t])


@pytest.mark.parametrize("cls", _answer_classes(), ids=lambda c: c.__name__)
def test_every_property_an_answer_class_reads_is_in_its_schema(cls: type) -> None:
    schemas = _schemas()
    schema = schemas[getattr(cls, "__schema__")]
    required = set(schema.get("required", []))
    problems = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        where = f"{cls.__name__}.{f.name}"
        prop = schema.get("properties", {}).get(f.name)
        if prop is None:
            problems.append(f"{where}: no such property in {getattr(cls, '__schema__')}")
            continue
        optional = type(None) in typing.get_args(hints[f.name])
        has_default = f.default is not dataclasses.MISSING or (
            f.default_factory is not dataclasses.MISSING
        )
        # A value the schema lets be null or absent must be one the client lets be None or
        # defaults; a required, non-null one may be read as required.
        if (_nullable(prop) and not optional) or (f.name not in required and not has_default):
            problems.append(f"{where}: may be null or absent in the schema, not in the client")
        problems += _check(hints[f.name], prop, schemas, where)
    assert problems == []


def test_the_answer_classes_cover_what_the_client_reads() -> None:
    names = {getattr(c, "__schema__") for c in _answer_classes()}
    print(sorted(names))
    assert names >= {
        "Health", "AgentInfo", "PairInfo", "PortInfo", "Clock", "RunState", "LiveFigures",
        "LiveDirection", "LivePair", "SearchProgress", "ProblemDocument", "Issue",
    }


def test_a_mismatch_is_found() -> None:
    # The check itself: a float read from an integer-only property, an unknown phase.
    schemas = _schemas()
    assert _check(int, {"type": "number"}, schemas, "x") == ["x: int, the schema number"]
    phase = {"$ref": "#/components/schemas/RunPhase"}
    assert _check(typing.Literal["running", "paused"], phase, schemas, "p") != []
    assert _check(typing.Literal["starting", "running", "stopping", "finished", "failed"],
                  phase, schemas, "p") == []


def _json_ok(value: Any, prop: dict[str, Any], schemas: dict[str, Any]) -> bool:
    target, _ = _resolve(prop, schemas)
    if value is None:
        return _nullable(prop)
    if "oneOf" in target:
        return value in {b.get("const") for b in target["oneOf"]}
    kinds = _types(target)
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return bool(kinds & {"integer", "number"})
    if isinstance(value, float):
        return "number" in kinds
    if isinstance(value, str):
        return "string" in kinds
    if isinstance(value, list):
        return "array" in kinds and all(_json_ok(v, target["items"], schemas) for v in value)
    if isinstance(value, dict):
        props = target.get("properties", {})
        return set(target.get("required", [])) <= set(value) and all(
            k in props and _json_ok(v, props[k], schemas) for k, v in value.items()
        )
    return False


def test_the_run_request_the_client_sends_is_one_the_schema_takes(fake: FakeAgent) -> None:
    schemas = _schemas()
    run_request = {"$ref": "#/components/schemas/RunRequest"}
    agent = Agent(fake.url)
    agent.run(profile_yaml="name: x\n", duration_s=1.5, multiplier=2, payloads=[300])
    body = fake.requests[-1].json()
    print(body)
    assert set(body["options"]) == {"duration_ms", "multiplier", "payloads"}
    assert _json_ok(body, run_request, schemas)
    fake.runs.clear()
    agent.capacity(profile_yaml="name: x\n")
    assert _json_ok(fake.requests[-1].json(), run_request, schemas)
    # And the check refuses what the schema does not take.
    assert not _json_ok({**body, "profile": {}}, run_request, schemas)
    assert not _json_ok({**body, "options": {"duration_ms": 1.5}}, run_request, schemas)


def test_every_route_the_client_calls_is_in_the_document(fake: FakeAgent) -> None:
    agent = Agent(fake.url)
    agent.health()
    agent.info()
    agent.clock()
    run = agent.run(profile_yaml="name: x\n")
    run.stop()
    list(run.follow(every_s=0))
    run.report_json()
    run.report_html()
    run.events()
    paths = _document()["paths"]
    templates = {re.sub(r"\{[a-z]+\}", "[^/]+", p): p for p in paths}
    expected = {("POST", "/v1/runs"): "201", ("POST", "/v1/runs/{id}/stop"): "202"}
    called = set()
    for r in fake.requests:
        template = next(t for pat, t in templates.items() if re.fullmatch(pat, r.path))
        operation = paths[template].get(r.method.lower())
        assert operation is not None, f"{r.method} {template} is not in the document"
        status = expected.get((r.method, template), "200")
        assert status in operation["responses"], f"{r.method} {template}: no {status}"
        called.add((r.method, template))
    print(sorted(called))
    assert len(called) == 9
