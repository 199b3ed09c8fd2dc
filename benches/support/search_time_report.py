#!/usr/bin/env python3
"""benches/search_time.sh's figures: each method's outcome in one form, and the comparison.

    search_time_report.py method NAME WALL_S SOURCE OUT
        SOURCE is a search's report.json (upfbench search, either strategy) or the JSON of
        benches/support/mlrsearch_run.py; writes the method's summary to OUT and prints it.
    search_time_report.py compare CAP_PPS SUMMARY...
        The methods side by side: wall time, trials, trial time, each goal's bounds and
        conditional throughput, the ratios of the wall times, and whether the conditional
        throughputs agree within the goals' width. Then, for the RFC 9971 searches, the floor
        under their time: each distinct load among the NDR's and PDR's final bounds is decided
        only by (1 - exceed ratio) x duration sum of trials there (a lower bound needs that much
        of low-loss trials, an upper bound more than exceed ratio x sum of high-loss ones), and
        a trial's wall time counts in the sum; the duration sum is $SUM (s, 21 unless set).

A summary: {"method", "wall_s", "trials", "trial_s" (intended durations summed),
"trial_wall_s" (the trials' wall times summed), "short" (trials that sent more than 1 %
under their load: tester-limited), "goals": [{"goal", "status", "lower",
"upper", "ct"}]}, loads in pps (both directions together), null where there is none.
"""

import json
import os
import sys

# The goals' width (CSIT's and upfbench's default, and the bench's RFC 2544 goal's).
WIDTH = 0.005
# Sending this much under a trial's load makes it tester-limited (search.tx_tolerance).
TX_TOLERANCE = 0.01
# A method's name in the summaries and the shell script, and its label in the table.
LABELS = {
    "upfbench": "upfbench search",
    "mlrsearch-run": "MLRsearch 1.2.1 + upfbench run",
    "rfc2544": "RFC 2544 binary search",
}


def from_report(report):
    """The summary fields of a search's report.json."""
    case = report["search"]["cases"][0]
    goals = [
        {
            "goal": g["goal"],
            "status": g["status"],
            "lower": g["lower_bound_pps"],
            "upper": g["upper_bound_pps"],
            "ct": g["conditional_throughput_pps"],
        }
        for g in case["results"]
    ]
    trials = case["trials"]
    return {
        "trials": len(trials),
        "trial_s": sum(t["intended_duration_s"] for t in trials),
        "trial_wall_s": sum(t["duration_s"] for t in trials),
        "short": sum(1 for t in trials if t.get("tester_limited")),
        # Each trial's wall time beyond its duration (report.json's trial.wall, when the binary
        # records it): the overhead issue 28 bounds at 0.25 s.
        "overhead_s": [
            t["wall"]["total_s"] - t["intended_duration_s"] for t in trials if t.get("wall")
        ],
        "goals": goals,
    }


def from_mlrsearch(out):
    """The summary fields of mlrsearch_run.py's JSON."""
    goals = []
    for g in out["goals"]:
        if g["lower_bound"] is None:
            status = "min_load_upper_bound"
        elif g["upper_bound"] is None:
            status = "max_load_lower_bound"
        else:
            status = "regular"
        goals.append(
            {
                "goal": g["goal"],
                "status": status,
                "lower": g["lower_bound"],
                "upper": g["upper_bound"],
                "ct": g["conditional_throughput"],
            }
        )
    log = out["trial_log"]
    return {
        "trials": len(log),
        "trial_s": sum(t[1] for t in log),
        "trial_wall_s": sum(t[4] for t in log),
        # MLRsearch is not told what was intended (as in the sim, unsent packets would count
        # as lost, and a packet of rounding fails a no-loss trial): count the shortfalls here,
        # with upfbench search's tolerance (search.tx_tolerance, 1 %).
        "short": sum(1 for t in log if t[2] < t[0] * t[1] * (1.0 - TX_TOLERANCE)),
        "goals": goals,
    }


def pps(value):
    """A load for the table."""
    return "-" if value is None else f"{value:,.0f}"


def method(name, wall, source, out):
    """Summarize one method's outcome into `out` and print it."""
    with open(source, encoding="utf-8") as file:
        data = json.load(file)
    summary = from_mlrsearch(data) if "mlrsearch_version" in data else from_report(data)
    summary = {"method": name, "wall_s": float(wall), **summary}
    with open(out, "w", encoding="utf-8") as file:
        json.dump(summary, file)
    print(
        f"{LABELS.get(name, name)}: {summary['wall_s']:.1f} s, {summary['trials']} trials, "
        f"trial time {summary['trial_s']:.0f} s ({summary['trial_wall_s']:.1f} s of wall time), "
        f"{summary['short']} tester-limited"
    )
    overhead = summary.get("overhead_s") or []
    if overhead:
        overhead = sorted(overhead)
        print(
            f"  per trial beyond its duration: mean {sum(overhead) / len(overhead):.3f} s, "
            f"median {overhead[len(overhead) // 2]:.3f} s, max {overhead[-1]:.3f} s"
        )
    for g in summary["goals"]:
        print(
            f"  {g['goal']}: {g['status']}, bounds [{pps(g['lower'])}, {pps(g['upper'])}] pps, "
            f"conditional throughput {pps(g['ct'])} pps"
        )


def table(summaries):
    """The methods side by side, in Markdown."""
    print("| method | wall s | trials | trial s | NDR bounds pps | NDR CT pps | PDR bounds pps | PDR CT pps |")
    print("| --- | ---: | ---: | ---: | --- | ---: | --- | ---: |")
    for s in summaries:
        cells = [LABELS.get(s["method"], s["method"]), f"{s['wall_s']:.1f}", str(s["trials"])]
        cells.append(f"{s['trial_s']:.0f}")
        goals = {ndr_or_pdr(g["goal"]): g for g in s["goals"]}
        for name in ("NDR", "PDR"):
            g = goals.get(name)
            if g is None:
                cells += ["-", "-"]
            else:
                cells += [f"[{pps(g['lower'])}, {pps(g['upper'])}]", pps(g["ct"])]
        print("| " + " | ".join(cells) + " |")


def ndr_or_pdr(goal):
    """The goal a method's goal stands for: the RFC 2544 goal is a no-drop rate."""
    return "NDR" if goal in ("NDR", "RFC2544") else goal


def ratios(by_method):
    """The wall times' ratios the issue asks for."""
    pairs = [
        ("upfbench", "mlrsearch-run", "target <= 0.5"),
        ("rfc2544", "upfbench", None),
    ]
    for top, bottom, note in pairs:
        if top in by_method and bottom in by_method:
            ratio = by_method[top]["wall_s"] / by_method[bottom]["wall_s"]
            tail = f" ({note})" if note else ""
            print(f"wall time {LABELS[top]} / {LABELS[bottom]}: {ratio:.2f}{tail}")


def agreement(summaries):
    """Whether the methods' conditional throughputs of each goal are within the width."""
    for name in ("NDR", "PDR"):
        found = []
        for s in summaries:
            for g in s["goals"]:
                if ndr_or_pdr(g["goal"]) == name and g["ct"] is not None:
                    found.append((LABELS.get(s["method"], s["method"]), g["ct"]))
        if len(found) < 2:
            continue
        values = [ct for _, ct in found]
        spread = (max(values) - min(values)) / max(values)
        verdict = "agree" if spread <= WIDTH else "DO NOT agree"
        listed = ", ".join(f"{label} {ct:,.0f}" for label, ct in found)
        print(
            f"{name} conditional throughputs: {listed}: {spread * 100:.2f} % apart, "
            f"width {WIDTH * 100:.1f} %: {verdict}"
        )


# The NDR's and PDR's exceed ratio (CSIT's and upfbench's default).
EXCEED_RATIO = 0.5


def floors(summaries, duration_sum):
    """The least time the final bounds' loads take, per RFC 9971 search, and what it makes of
    the ratio the issue asks for."""
    per_load = (1.0 - EXCEED_RATIO) * duration_sum
    fewest = None
    for s in summaries:
        if s["method"] == "rfc2544":
            continue
        loads = {
            round(g[side])
            for g in s["goals"]
            if ndr_or_pdr(g["goal"]) in ("NDR", "PDR")
            for side in ("lower", "upper")
            if g[side] is not None
        }
        floor = len(loads) * per_load
        fewest = len(loads) if fewest is None else min(fewest, len(loads))
        print(
            f"{LABELS.get(s['method'], s['method'])}: {len(loads)} loads in the final bounds, "
            f"at least {floor:.1f} s of trials to decide them ({per_load:.1f} s each); "
            f"{s['wall_s'] - floor:.1f} s beyond that"
        )
    mlr = next((s for s in summaries if s["method"] == "mlrsearch-run"), None)
    if mlr is not None and fewest:
        least = fewest * per_load
        print(
            f"no RFC 9971 search with these goals decides {fewest} loads in under {least:.1f} s: "
            f"a ratio to MLRsearch's {mlr['wall_s']:.1f} s of at least {least / mlr['wall_s']:.2f}"
        )


def compare(cap_pps, paths):
    """Print the comparison of the summaries at `paths`."""
    summaries = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            summaries.append(json.load(file))
    print(f"\ncap {2 * cap_pps:,.0f} pps both ways ({cap_pps:,.0f} each way)\n")
    table(summaries)
    print()
    ratios({s["method"]: s for s in summaries})
    agreement(summaries)
    floors(summaries, float(os.environ.get("SUM", "21")))


def main():
    """Dispatch on the first argument."""
    if len(sys.argv) == 6 and sys.argv[1] == "method":
        method(*sys.argv[2:6])
    elif len(sys.argv) >= 3 and sys.argv[1] == "compare":
        compare(float(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
