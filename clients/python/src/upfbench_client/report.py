"""A run's report.json (`GET /v1/runs/{id}/report`; docs/reports.md) as typed dataclasses: what
a user reads of it, per step and direction (sent, received, lost, the loss ratio, latency
percentiles) and a search's goals and results (RFC 9971: the relevant bounds and the
conditional throughput). The field names are the report's own (crates/report/src/model.rs,
search.rs, percentiles.rs); everything else is in `Run.report_json()`'s dict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

from . import _read as r
from .errors import MalformedAnswer
from .models import Direction

#: The report schema version this client reads (crates/report's `SCHEMA_VERSION`).
SCHEMA_VERSION = 3
#: The versions it reads: schema 3 added each step's `pairs` (several port pairs), which this
#: client does not read yet; a schema 2 report is of one pair.
SCHEMA_VERSIONS = (2, 3)

GoalStatus = Literal[
    "regular", "max_load_lower_bound", "min_load_upper_bound", "tester_limited", "incomplete"
]
SearchDirections = Literal["uplink", "downlink", "both"]


@dataclass(frozen=True)
class ThroughputReport:
    """What one side sent or received: frames, bytes and rates (L2 counts each frame with its
    FCS, padded to 64 B; L1 adds 20 B per frame)."""

    packets: int
    bytes_l2: int
    bytes_l1: int
    gbps_l2: float
    gbps_l1: float
    kpps: float

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> ThroughputReport:
        return ThroughputReport(
            packets=r.int_(o, "packets", path),
            bytes_l2=r.int_(o, "bytes_l2", path),
            bytes_l1=r.int_(o, "bytes_l1", path),
            gbps_l2=r.float_(o, "gbps_l2", path),
            gbps_l1=r.float_(o, "gbps_l1", path),
            kpps=r.float_(o, "kpps", path),
        )


@dataclass(frozen=True)
class LossReport:
    """Loss from the sequence numbers: `lost = sent - unique`, `loss_pct` in per cent."""

    sent: int
    unique: int
    lost: int
    loss_pct: float
    duplicates: int
    reordered: int
    late: int

    @property
    def ratio(self) -> float:
        """`lost / sent` (0 when nothing was sent)."""
        return self.lost / self.sent if self.sent else 0.0

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> LossReport:
        return LossReport(
            sent=r.int_(o, "sent", path),
            unique=r.int_(o, "unique", path),
            lost=r.int_(o, "lost", path),
            loss_pct=r.float_(o, "loss_pct", path),
            duplicates=r.int_(o, "duplicates", path),
            reordered=r.int_(o, "reordered", path),
            late=r.int_(o, "late", path),
        )


@dataclass(frozen=True)
class LatencyReport:
    """One-way latency (ns): min, avg and max exact, percentiles within the histogram's
    precision, jitter per RFC 3550."""

    samples: int
    min_ns: int
    p50_ns: int
    p90_ns: int
    p99_ns: int
    max_ns: int
    avg_ns: float
    negative: int
    over_range: int
    p99_9_ns: int | None = None
    p99_99_ns: int | None = None
    jitter_ns: float | None = None
    jitter_max_ns: float | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> LatencyReport:
        return LatencyReport(
            samples=r.int_(o, "samples", path),
            min_ns=r.int_(o, "min_ns", path),
            p50_ns=r.int_(o, "p50_ns", path),
            p90_ns=r.int_(o, "p90_ns", path),
            p99_ns=r.int_(o, "p99_ns", path),
            max_ns=r.int_(o, "max_ns", path),
            avg_ns=r.float_(o, "avg_ns", path),
            negative=r.int_(o, "negative", path),
            over_range=r.int_(o, "over_range", path),
            p99_9_ns=r.opt_int(o, "p99_9_ns", path),
            p99_99_ns=r.opt_int(o, "p99_99_ns", path),
            jitter_ns=r.opt_float(o, "jitter_ns", path),
            jitter_max_ns=r.opt_float(o, "jitter_max_ns", path),
        )


@dataclass(frozen=True)
class DirectionReport:
    """One direction of one step."""

    direction: Direction
    streams: int
    tx: ThroughputReport
    rx: ThroughputReport
    loss: LossReport
    latency: LatencyReport | None = None
    tester_lost: int | None = None

    @property
    def sent(self) -> int:
        """Packets sent (sequence positions)."""
        return self.loss.sent

    @property
    def received(self) -> int:
        """Packets received, duplicates and late ones included."""
        return self.rx.packets

    @property
    def lost(self) -> int:
        """Positions never received in time."""
        return self.loss.lost

    @property
    def loss_ratio(self) -> float:
        """`lost / sent`."""
        return self.loss.ratio

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> DirectionReport:
        return DirectionReport(
            direction=cast(Direction, r.choice(o, "direction", path, get_args(Direction))),
            streams=r.int_(o, "streams", path),
            tx=r.obj_(o, "tx", path, ThroughputReport.parse),
            rx=r.obj_(o, "rx", path, ThroughputReport.parse),
            loss=r.obj_(o, "loss", path, LossReport.parse),
            latency=r.opt_obj(o, "latency", path, LatencyReport.parse),
            tester_lost=r.opt_int(o, "tester_lost", path),
        )


@dataclass(frozen=True)
class StepReport:
    """One measured step (a payload size, a rate, a search's trial)."""

    label: str
    payload_bytes: int | None
    duration_s: float
    directions: list[DirectionReport]
    rx_untagged: int
    rx_unknown_stream: int
    warnings: list[str]

    def direction(self, which: Direction) -> DirectionReport | None:
        """The direction `which`, if it carried streams."""
        return next((d for d in self.directions if d.direction == which), None)

    @property
    def uplink(self) -> DirectionReport | None:
        """The uplink, if it carried streams."""
        return self.direction("uplink")

    @property
    def downlink(self) -> DirectionReport | None:
        """The downlink, if it carried streams."""
        return self.direction("downlink")

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> StepReport:
        return StepReport(
            label=r.str_(o, "label", path),
            payload_bytes=r.opt_int(o, "payload_bytes", path),
            duration_s=r.float_(o, "duration_s", path),
            directions=r.list_(o, "directions", path, DirectionReport.parse),
            rx_untagged=r.int_(o, "rx_untagged", path),
            rx_unknown_stream=r.int_(o, "rx_unknown_stream", path),
            warnings=r.strs(o, "warnings", path),
        )


@dataclass(frozen=True)
class LatencyBoundSpec:
    """A latency percentile a goal's low-loss trials must also stay under."""

    percentile: float
    max_ns: int

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> LatencyBoundSpec:
        return LatencyBoundSpec(
            percentile=r.float_(o, "percentile", path), max_ns=r.int_(o, "max_ns", path)
        )


@dataclass(frozen=True)
class GoalSpec:
    """One search goal as configured (RFC 9971 §4.6.2)."""

    name: str
    loss_ratio: float
    exceed_ratio: float
    relative_width: float
    initial_trial_duration_s: float
    final_trial_duration_s: float
    duration_sum_s: float
    latency: LatencyBoundSpec | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> GoalSpec:
        return GoalSpec(
            name=r.str_(o, "name", path),
            loss_ratio=r.float_(o, "loss_ratio", path),
            exceed_ratio=r.float_(o, "exceed_ratio", path),
            relative_width=r.float_(o, "relative_width", path),
            initial_trial_duration_s=r.float_(o, "initial_trial_duration_s", path),
            final_trial_duration_s=r.float_(o, "final_trial_duration_s", path),
            duration_sum_s=r.float_(o, "duration_sum_s", path),
            latency=r.opt_obj(o, "latency", path, LatencyBoundSpec.parse),
        )


@dataclass(frozen=True)
class GoalResult:
    """One goal's result in one case (RFC 9971 §4.8): the relevant bounds and the conditional
    throughput (pps, and in Gbit/s at L1 and L2)."""

    goal: str
    status: GoalStatus
    lower_bound_pps: float | None
    upper_bound_pps: float | None
    conditional_throughput_pps: float | None
    gbps_l1: float | None
    gbps_l2: float | None
    line_rate_pct: float | None
    tester_limited_at_pps: float | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> GoalResult:
        return GoalResult(
            goal=r.str_(o, "goal", path),
            status=cast(GoalStatus, r.choice(o, "status", path, get_args(GoalStatus))),
            lower_bound_pps=r.opt_float(o, "lower_bound_pps", path),
            upper_bound_pps=r.opt_float(o, "upper_bound_pps", path),
            conditional_throughput_pps=r.opt_float(o, "conditional_throughput_pps", path),
            gbps_l1=r.opt_float(o, "gbps_l1", path),
            gbps_l2=r.opt_float(o, "gbps_l2", path),
            line_rate_pct=r.opt_float(o, "line_rate_pct", path),
            tester_limited_at_pps=r.opt_float(o, "tester_limited_at_pps", path),
        )


@dataclass(frozen=True)
class TrialRecord:
    """One trial of a search; its full figures are the report's step `step`."""

    step: int
    intended_load_pps: float
    offered_load_pps: float
    forwarding_rate_pps: float
    sent: int
    received: int
    loss_ratio: float
    intended_duration_s: float
    duration_s: float
    tester_limited: str | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> TrialRecord:
        return TrialRecord(
            step=r.int_(o, "step", path),
            intended_load_pps=r.float_(o, "intended_load_pps", path),
            offered_load_pps=r.float_(o, "offered_load_pps", path),
            forwarding_rate_pps=r.float_(o, "forwarding_rate_pps", path),
            sent=r.int_(o, "sent", path),
            received=r.int_(o, "received", path),
            loss_ratio=r.float_(o, "loss_ratio", path),
            intended_duration_s=r.float_(o, "intended_duration_s", path),
            duration_s=r.float_(o, "duration_s", path),
            tester_limited=r.opt_str(o, "tester_limited", path),
        )


@dataclass(frozen=True)
class SearchCase:
    """The search at one payload size and direction set."""

    label: str
    payload_bytes: int | None
    directions: SearchDirections
    min_load_pps: float
    max_load_pps: float
    frame_bytes_l2: float
    results: list[GoalResult]
    trials: list[TrialRecord]
    line_rate_pps: float | None = None

    def result(self, goal: str) -> GoalResult:
        """The result of the goal named `goal` (`NDR`)."""
        for g in self.results:
            if g.goal == goal:
                return g
        raise KeyError(f"case {self.label!r} has no goal {goal!r}")

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> SearchCase:
        return SearchCase(
            label=r.str_(o, "label", path),
            payload_bytes=r.opt_int(o, "payload_bytes", path),
            directions=cast(
                SearchDirections, r.choice(o, "directions", path, get_args(SearchDirections))
            ),
            min_load_pps=r.float_(o, "min_load_pps", path),
            max_load_pps=r.float_(o, "max_load_pps", path),
            frame_bytes_l2=r.float_(o, "frame_bytes_l2", path),
            results=r.list_(o, "results", path, GoalResult.parse),
            trials=r.list_(o, "trials", path, TrialRecord.parse),
            line_rate_pps=r.opt_float(o, "line_rate_pps", path),
        )


@dataclass(frozen=True)
class SearchReport:
    """A search's findings: its goals, and per case (payload size and direction set) each
    goal's result and every trial. `complete` is false when some bounds are not final."""

    goals: list[GoalSpec]
    cases: list[SearchCase]
    complete: bool

    def result(self, goal: str, case: int | str = 0) -> GoalResult:
        """Goal `goal`'s result in `case` (its index, or its label, `"300 B both"`)."""
        if isinstance(case, int):
            return self.cases[case].result(goal)
        for c in self.cases:
            if c.label == case:
                return c.result(goal)
        raise KeyError(f"the search has no case {case!r}")

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> SearchReport:
        return SearchReport(
            goals=r.list_(o, "goals", path, GoalSpec.parse),
            cases=r.list_(o, "cases", path, SearchCase.parse),
            complete=r.bool_(o, "complete", path),
        )


@dataclass(frozen=True)
class ToolInfo:
    """The tool and version that wrote the report."""

    name: str
    version: str

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> ToolInfo:
        return ToolInfo(name=r.str_(o, "name", path), version=r.str_(o, "version", path))


@dataclass(frozen=True)
class Report:
    """A whole run: its steps in the order they ran, run-wide warnings, and the search's
    findings when it was a search."""

    schema_version: int
    tool: ToolInfo
    started_unix_ms: int
    started: str
    duration_s: float
    config: dict[str, str]
    steps: list[StepReport]
    warnings: list[str]
    search: SearchReport | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str = "") -> Report:
        """Reads a report; one of another schema version is refused by name."""
        version = r.int_(o, "schema_version", path)
        if version not in SCHEMA_VERSIONS:
            raise MalformedAnswer(
                "schema_version",
                f"report schema version {version}: this client reads {SCHEMA_VERSION}",
            )
        return Report(
            schema_version=version,
            tool=r.obj_(o, "tool", path, ToolInfo.parse),
            started_unix_ms=r.int_(o, "started_unix_ms", path),
            started=r.str_(o, "started", path),
            duration_s=r.float_(o, "duration_s", path),
            config=r.str_map(o, "config", path),
            steps=r.list_(o, "steps", path, StepReport.parse),
            warnings=r.strs(o, "warnings", path),
            search=r.opt_obj(o, "search", path, SearchReport.parse),
        )
