"""The Python client of upfbench's HTTP API (docs/api.md, docs/scale.md §5): standard library
only.

    from upfbench_client import Agent

    agent = Agent("http://127.0.0.1:9800", token=None)
    run = agent.run(profile="profiles/quickstart.yaml", duration_s=5)
    for state in run.follow():
        if state.live and state.live.uplink:
            print(state.live.uplink.rx_kpps, state.live.uplink.lost)
    report = run.report()
    print(report.steps[0].directions[0].lost)
"""

from .agent import Agent, Run
from .errors import Issue, MalformedAnswer, Problem, UpfbenchError
from .models import (
    AgentInfo,
    AgentState,
    Clock,
    Direction,
    Health,
    LiveDirection,
    LiveFigures,
    LivePair,
    PairInfo,
    PortInfo,
    RunMode,
    RunPhase,
    RunState,
    SearchProgress,
)
from .report import (
    DirectionReport,
    GoalResult,
    GoalSpec,
    LatencyBoundSpec,
    LatencyReport,
    LossReport,
    Report,
    SearchCase,
    SearchReport,
    StepReport,
    ThroughputReport,
    ToolInfo,
    TrialRecord,
)

__all__ = [
    "Agent",
    "AgentInfo",
    "AgentState",
    "Clock",
    "Direction",
    "DirectionReport",
    "GoalResult",
    "GoalSpec",
    "Health",
    "Issue",
    "LatencyBoundSpec",
    "LatencyReport",
    "LiveDirection",
    "LiveFigures",
    "LivePair",
    "LossReport",
    "MalformedAnswer",
    "PairInfo",
    "PortInfo",
    "Problem",
    "Report",
    "Run",
    "RunMode",
    "RunPhase",
    "RunState",
    "SearchCase",
    "SearchProgress",
    "SearchReport",
    "StepReport",
    "ThroughputReport",
    "ToolInfo",
    "TrialRecord",
    "UpfbenchError",
]
