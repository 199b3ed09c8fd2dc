"""The API's answers as typed dataclasses (schema/api/v1/openapi.json, docs/scale.md §4): each
class names its schema in `__schema__`, its fields are the schema's properties of the same
names (tests/test_schema.py checks both against the document)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, cast, get_args

from . import _read as r

AgentState = Literal["idle", "loaded", "armed", "running", "collected"]
RunPhase = Literal["starting", "running", "stopping", "finished", "failed"]
RunMode = Literal["run", "sweep", "search", "capacity"]
Direction = Literal["uplink", "downlink"]

#: The phases in which a run has ended: it will not change any more.
ENDED: tuple[RunPhase, ...] = ("finished", "failed")


@dataclass(frozen=True)
class Health:
    """`GET /health`: the agent's state, the one answer given without a token."""

    __schema__: ClassVar[str] = "Health"

    state: AgentState

    @staticmethod
    def parse(o: r.JsonObject, path: str = "") -> Health:
        return Health(state=cast(AgentState, r.choice(o, "state", path, get_args(AgentState))))


@dataclass(frozen=True)
class PortInfo:
    """One of the agent's ports."""

    __schema__: ClassVar[str] = "PortInfo"

    device: str
    address: str
    peer: str

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> PortInfo:
        return PortInfo(
            device=r.str_(o, "device", path),
            address=r.str_(o, "address", path),
            peer=r.str_(o, "peer", path),
        )


@dataclass(frozen=True)
class PairInfo:
    """One of the agent's port pairs (docs/scale.md §2)."""

    __schema__: ClassVar[str] = "PairInfo"

    name: str
    weight: int
    workers: list[int]
    n3: PortInfo
    n6: PortInfo

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> PairInfo:
        return PairInfo(
            name=r.str_(o, "name", path),
            weight=r.int_(o, "weight", path),
            workers=r.ints(o, "workers", path),
            n3=r.obj_(o, "n3", path, PortInfo.parse),
            n6=r.obj_(o, "n6", path, PortInfo.parse),
        )


@dataclass(frozen=True)
class AgentInfo:
    """`GET /v1`: the agent's name, version, API version, TSC frequency and pairs."""

    __schema__: ClassVar[str] = "AgentInfo"

    name: str
    version: str
    api_version: int
    tsc_hz: float
    pairs: list[PairInfo]

    @staticmethod
    def parse(o: r.JsonObject, path: str = "") -> AgentInfo:
        return AgentInfo(
            name=r.str_(o, "name", path),
            version=r.str_(o, "version", path),
            api_version=r.int_(o, "api_version", path),
            tsc_hz=r.float_(o, "tsc_hz", path),
            pairs=r.list_(o, "pairs", path, PairInfo.parse),
        )


@dataclass(frozen=True)
class Clock:
    """`GET /v1/clock`: the agent's wall clock when it answered."""

    __schema__: ClassVar[str] = "Clock"

    unix_ns: int

    @staticmethod
    def parse(o: r.JsonObject, path: str = "") -> Clock:
        return Clock(unix_ns=r.int_(o, "unix_ns", path))


@dataclass(frozen=True)
class LiveDirection:
    """One direction over the last second, as the live line shows it."""

    __schema__: ClassVar[str] = "LiveDirection"

    direction: Direction
    tx_packets: int
    rx_packets: int
    tx_gbps_l1: float
    tx_kpps: float
    rx_gbps_l1: float
    rx_kpps: float
    lost: int
    lost_total: int
    lat_p50_ns: int | None = None
    lat_p99_ns: int | None = None
    lat_max_ns: int | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> LiveDirection:
        return LiveDirection(
            direction=cast(Direction, r.choice(o, "direction", path, get_args(Direction))),
            tx_packets=r.int_(o, "tx_packets", path),
            rx_packets=r.int_(o, "rx_packets", path),
            tx_gbps_l1=r.float_(o, "tx_gbps_l1", path),
            tx_kpps=r.float_(o, "tx_kpps", path),
            rx_gbps_l1=r.float_(o, "rx_gbps_l1", path),
            rx_kpps=r.float_(o, "rx_kpps", path),
            lost=r.int_(o, "lost", path),
            lost_total=r.int_(o, "lost_total", path),
            lat_p50_ns=r.opt_int(o, "lat_p50_ns", path),
            lat_p99_ns=r.opt_int(o, "lat_p99_ns", path),
            lat_max_ns=r.opt_int(o, "lat_max_ns", path),
        )


def _find(directions: list[LiveDirection], which: Direction) -> LiveDirection | None:
    return next((d for d in directions if d.direction == which), None)


@dataclass(frozen=True)
class LivePair:
    """One pair's live figures."""

    __schema__: ClassVar[str] = "LivePair"

    pair: str
    directions: list[LiveDirection]

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> LivePair:
        return LivePair(
            pair=r.str_(o, "pair", path),
            directions=r.list_(o, "directions", path, LiveDirection.parse),
        )


@dataclass(frozen=True)
class LiveFigures:
    """The live line's figures: in total (`uplink`, `downlink`) and per pair."""

    __schema__: ClassVar[str] = "LiveFigures"

    elapsed_ns: int
    interval_ns: int
    total: list[LiveDirection]
    pairs: list[LivePair]

    @property
    def uplink(self) -> LiveDirection | None:
        """The total's uplink, if it carried traffic."""
        return _find(self.total, "uplink")

    @property
    def downlink(self) -> LiveDirection | None:
        """The total's downlink, if it carried traffic."""
        return _find(self.total, "downlink")

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> LiveFigures:
        return LiveFigures(
            elapsed_ns=r.int_(o, "elapsed_ns", path),
            interval_ns=r.int_(o, "interval_ns", path),
            total=r.list_(o, "total", path, LiveDirection.parse),
            pairs=r.list_(o, "pairs", path, LivePair.parse),
        )


@dataclass(frozen=True)
class SearchProgress:
    """A search's progress: the goal searched for and its bounds so far."""

    __schema__: ClassVar[str] = "SearchProgress"

    goal: str
    trials: int
    lower_pps: float | None = None
    upper_pps: float | None = None

    @staticmethod
    def parse(o: r.JsonObject, path: str) -> SearchProgress:
        return SearchProgress(
            goal=r.str_(o, "goal", path),
            trials=r.int_(o, "trials", path),
            lower_pps=r.opt_float(o, "lower_pps", path),
            upper_pps=r.opt_float(o, "upper_pps", path),
        )


@dataclass(frozen=True)
class RunState:
    """`GET /v1/runs/{id}`: where a run is, its step, the last second's figures while a step
    runs, a search's progress, and why it failed."""

    __schema__: ClassVar[str] = "RunState"

    id: str
    phase: RunPhase
    step: int | None = None
    steps: int | None = None
    live: LiveFigures | None = None
    search: SearchProgress | None = None
    error: str | None = None

    @property
    def ended(self) -> bool:
        """True once the run is `finished` (its report is there) or `failed`."""
        return self.phase in ENDED

    @staticmethod
    def parse(o: r.JsonObject, path: str = "") -> RunState:
        return RunState(
            id=r.str_(o, "id", path),
            phase=cast(RunPhase, r.choice(o, "phase", path, get_args(RunPhase))),
            step=r.opt_int(o, "step", path),
            steps=r.opt_int(o, "steps", path),
            live=r.opt_obj(o, "live", path, LiveFigures.parse),
            search=r.opt_obj(o, "search", path, SearchProgress.parse),
            error=r.opt_str(o, "error", path),
        )
