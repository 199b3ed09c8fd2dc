#!/usr/bin/env python3
"""The table of a pinning campaign (deploy/upflab-pinning.sh): every step of every measurement,
then per variant and step the spread over the rounds. Before each measurement
deploy/upflab-pinning.sh noted the machine's CPU use over 5 s ("busy before") and how long it
waited for it to fall below its --quiet.

Per step: the machine's CPU use and the UPF process's over the step (counters at its edges),
uplink and downlink loss, how often upfbench's senders fell behind their schedule (TX slips; "warned"
when they cost more than 0.5 % of the rate, the report's warning), and whether reconcile.py
explained every count ("ok"), left one unexplained ("UNEXPLAINED") or did not run ("-").

Usage: pinning_table.py CAMPAIGN_DIR
"""

import csv
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reconcile import parse_cpu, table  # noqa: E402


def snapshot(counters, name):
    """Time, CPU jiffies and the UPF's ticks of one counters snapshot, or None."""
    d = counters / name
    if not (d / "time").exists():
        return None
    ticks = d / "upf-cpu-ticks"
    t = ticks.read_text().strip() if ticks.exists() else ""
    return {"time": float((d / "time").read_text()),
            "cpu": parse_cpu((d / "cpu-stat.txt").read_text()),
            "upf_ticks": int(t) if t else None}


def step_load(counters, i):
    """(machine busy %, UPF % of a CPU) over step i, each None when unknown."""
    a, b = snapshot(counters, f"step{i}-start"), snapshot(counters, f"step{i}-end")
    if not a or not b:
        return None, None
    total = b["cpu"]["total"] - a["cpu"]["total"]
    busy = 100 * (b["cpu"]["busy"] - a["cpu"]["busy"]) / total if total > 0 else None
    upf = None
    if a["upf_ticks"] is not None and b["upf_ticks"] is not None and b["time"] > a["time"]:
        # /proc/PID/stat counts in ticks of 1/100 s.
        upf = (b["upf_ticks"] - a["upf_ticks"]) / (b["time"] - a["time"])
    return busy, upf


def slip(direction):
    s = direction.get("tx_slip")
    return (s["count"], s["max_late_us"]) if s else (0, 0.0)


def mode_results(run_dir, mode_dir):
    """The rows of one mode's directory of one measurement: a dict per step."""
    d = run_dir / mode_dir
    reports = sorted(d.glob("**/report.json"))
    if not reports:
        return [{"step": "-", "error": "no report"}]
    report = json.loads(reports[0].read_text())
    rec = d / "reconcile.txt"
    reconciled = "-"
    if rec.exists():
        reconciled = "UNEXPLAINED" if "UNEXPLAINED" in rec.read_text() else "ok"
    rows = []
    for i, step in enumerate(report["steps"], 1):
        dirs = {x["direction"]: x for x in step["directions"]}
        busy, upf = step_load(d / "counters", i)
        warned = [w for w in step.get("warnings", []) if "fell behind its schedule" in w]
        row = {"step": step["label"], "busy": busy, "upf": upf, "reconciled": reconciled,
               "warned": ", ".join(sorted({w.split(" TX ", 1)[0] for w in warned}))}
        for name in ("uplink", "downlink"):
            x = dirs.get(name)
            row[name] = x["loss"]["loss_pct"] if x else None
            row[name + "_slip"] = slip(x) if x else (0, 0.0)
        rows.append(row)
    if not rows:
        warnings = "; ".join(report.get("warnings", []))[:120]
        rows.append({"step": "-", "error": f"no step measured: {warnings}"})
    return rows


def pct(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def main():
    camp = Path(sys.argv[1])
    runs = list(csv.DictReader((camp / "runs.tsv").open(), delimiter="\t"))
    head = ["round", "variant", "mode", "step", "busy %", "UPF % of a CPU", "UL loss %",
            "DL loss %", "UL TX slips (max late us)", "DL TX slips (max late us)",
            "slip warning", "counts", "busy before %", "waited s"]
    rows = []
    spread = {}
    for r in runs:
        run_dir = camp / r["dir"]
        mode_dirs = sorted(p.name for p in run_dir.iterdir()
                           if p.is_dir() and p.name.split("-")[0] in ("run", "sweep"))
        if not mode_dirs:
            rows.append([r["round"], r["variant"], "-", "-", "-", "-", "-", "-", "-", "-", "-",
                         f"no output (exit {r['exit']})", r["busy_before_pct"], r["waited_s"]])
        for m in mode_dirs:
            for s in mode_results(run_dir, m):
                if "error" in s:
                    rows.append([r["round"], r["variant"], m, "-", "-", "-", "-", "-", "-", "-",
                                 "-", s["error"], r["busy_before_pct"], r["waited_s"]])
                    continue
                ul, dl = s["uplink_slip"], s["downlink_slip"]
                rows.append([r["round"], r["variant"], m, s["step"], pct(s["busy"], 0),
                             pct(s["upf"], 0), pct(s["uplink"]), pct(s["downlink"]),
                             f"{ul[0]} ({ul[1]:.0f})", f"{dl[0]} ({dl[1]:.0f})",
                             s["warned"] or "-", s["reconciled"], r["busy_before_pct"],
                             r["waited_s"]])
                key = (r["variant"], m.split("-")[0], s["step"])
                spread.setdefault(key, []).append(s)
    print(f"Every step ({camp.name})\n")
    print(table(head, rows, left=4))
    print("\nPer variant and step over the rounds: loss median (min to max), runs where the "
          "senders fell behind / were warned, machine busy median\n")
    srows = []
    # Variants apart, steps in the order the sweep ran them.
    for (variant, mode, step), ss in sorted(spread.items(), key=lambda kv: kv[0][:2]):
        def med(k):
            v = [s[k] for s in ss if s[k] is not None]
            if not v:
                return "-"
            return f"{statistics.median(v):.3f} ({min(v):.3f} to {max(v):.3f})"
        behind = sum(1 for s in ss if s["uplink_slip"][0] or s["downlink_slip"][0])
        warned = sum(1 for s in ss if s["warned"])
        busy = [s["busy"] for s in ss if s["busy"] is not None]
        srows.append([variant, mode, step, len(ss), med("uplink"), med("downlink"),
                      f"{behind} / {warned}",
                      f"{statistics.median(busy):.0f}" if busy else "-"])
    print(table(["variant", "mode", "step", "runs", "UL loss %", "DL loss %",
                 "behind / warned", "busy %"], srows, left=3))


if __name__ == "__main__":
    main()
