"""The typed report against real report.json files (tests/fixtures/make.sh made them with
upfbench over memif): every typed figure is the JSON's, and every field name the client
reads is one the reports write."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any

import pytest

from conftest import REPO
from upfbench_client import MalformedAnswer, Report
from upfbench_client import report as model


def test_a_real_runs_steps_and_directions(run_report: dict[str, Any]) -> None:
    report = Report.parse(run_report)
    assert (report.schema_version, report.tool.name) == (2, "upfbench")
    assert len(report.steps) == len(run_report["steps"]) >= 1
    for step, raw in zip(report.steps, run_report["steps"]):
        assert [d.direction for d in step.directions] == ["uplink", "downlink"]
        for d, rd in zip(step.directions, raw["directions"]):
            print(step.label, d.direction, d.sent, d.received, d.lost, d.loss_ratio,
                  d.latency and d.latency.p99_ns)
            assert (d.sent, d.received, d.lost) == (
                rd["loss"]["sent"], rd["rx"]["packets"], rd["loss"]["lost"]
            )
            assert d.sent > 0
            assert d.loss_ratio == rd["loss"]["lost"] / rd["loss"]["sent"]
            assert d.loss_ratio * 100 == pytest.approx(rd["loss"]["loss_pct"])
            assert d.latency is not None
            lat = rd["latency"]
            assert (d.latency.p50_ns, d.latency.p99_ns, d.latency.p99_99_ns, d.latency.max_ns) == (
                lat["p50_ns"], lat["p99_ns"], lat["p99_99_ns"], lat["max_ns"]
            )
            assert d.latency.min_ns <= d.latency.p50_ns <= d.latency.p99_ns <= d.latency.max_ns
            assert d.tx.kpps == rd["tx"]["kpps"] and d.rx.gbps_l1 == rd["rx"]["gbps_l1"]
        assert step.uplink is step.directions[0] and step.downlink is step.directions[1]
    assert report.search is None


def test_a_real_searchs_goals_bounds_and_conditional_throughput(
    search_report: dict[str, Any],
) -> None:
    report = Report.parse(search_report)
    search = report.search
    assert search is not None and search.complete
    raw = search_report["search"]
    assert [g.name for g in search.goals] == [g["name"] for g in raw["goals"]] == ["NDR"]
    assert search.goals[0].loss_ratio == raw["goals"][0]["loss_ratio"]
    ndr = search.result("NDR")
    assert search.result("NDR", case=search.cases[0].label) is ndr
    rr = raw["cases"][0]["results"][0]
    print(ndr)
    assert (ndr.status, ndr.lower_bound_pps, ndr.upper_bound_pps) == (
        rr["status"], rr["lower_bound_pps"], rr["upper_bound_pps"]
    )
    assert ndr.conditional_throughput_pps == rr["conditional_throughput_pps"]
    # The capped reflector (10 kpps a direction) gave both bounds, 20 kpps apart at most.
    assert ndr.status == "regular"
    assert ndr.lower_bound_pps is not None and ndr.upper_bound_pps is not None
    assert ndr.lower_bound_pps < ndr.upper_bound_pps
    case = search.cases[0]
    assert case.directions == "both" and case.payload_bytes == 300
    # Each trial's figures are the report's step it names.
    for t in case.trials:
        step = report.steps[t.step]
        assert t.sent == sum(d.sent for d in step.directions)
        assert t.loss_ratio == pytest.approx((t.sent - t.received) / t.sent)
    passing = [t.intended_load_pps for t in case.trials if t.loss_ratio == 0]
    assert max(passing) == ndr.lower_bound_pps
    with pytest.raises(KeyError):
        search.result("PDR")


def _fields(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _nested(hint: Any) -> type | None:
    """The report dataclass inside a hint (`X`, `X | None`, `list[X]`), if any."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) in (list, typing.Union):
        return next((n for a in args if (n := _nested(a)) is not None), None)
    return hint if dataclasses.is_dataclass(hint) and isinstance(hint, type) else None


def _seen(cls: type, values: list[dict[str, Any]], seen: dict[str, set[str]]) -> None:
    """Adds the keys of `values` (objects of `cls`) to `seen[cls]`, and their nested ones."""
    names = seen.setdefault(cls.__name__, set())
    for v in values:
        names.update(v)
    for name, hint in _fields(cls).items():
        inner = _nested(hint)
        if inner is None:
            continue
        children: list[dict[str, Any]] = []
        for v in values:
            x = v.get(name)
            children += x if isinstance(x, list) else [x] if isinstance(x, dict) else []
        _seen(inner, children, seen)


def test_every_field_the_client_reads_is_one_a_real_report_writes(
    run_report: dict[str, Any], search_report: dict[str, Any]
) -> None:
    # The two fixtures, and a search of the lab (docs/results) whose tester was the limit: its
    # directions carry tester_lost (kernel interfaces), its NDR tester_limited_at_pps.
    lab = REPO / "docs/results/2026-11-29-search-lab/ceiling/af_xdp-1400/report.json"
    reports = [run_report, search_report, json.loads(lab.read_text())]
    seen: dict[str, set[str]] = {}
    _seen(Report, reports, seen)
    missing = {
        cls: sorted(set(_fields(getattr(model, cls))) - names) for cls, names in seen.items()
    }
    print(sorted(seen))
    assert {cls: m for cls, m in missing.items() if m} == {}
    assert len(seen) == 13  # every report dataclass was reached


def test_another_schema_version_or_a_missing_figure_is_refused(
    run_report: dict[str, Any],
) -> None:
    with pytest.raises(MalformedAnswer, match="schema version 1: this client reads 3"):
        Report.parse({**run_report, "schema_version": 1})
    del run_report["steps"][0]["directions"][1]["loss"]["lost"]
    with pytest.raises(MalformedAnswer) as e:
        Report.parse(run_report)
    assert e.value.path == "steps[0].directions[1].loss.lost"
