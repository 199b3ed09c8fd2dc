#!/usr/bin/env python3
"""What one `upfbench search` report says about the tester's ceiling, case by case.

Usage: ceiling.py PATH_LABEL REPORT.json [REPORT.json ...]

For each case (payload, directions) of each report: its trials and wall time, the goals'
results, and the three figures that bound the tester on that path:
- "no loss up to": the highest offered load of a trial that lost nothing and that the search
  did not mark tester-limited (the tester, the path and the UPF side all kept up);
- "tester-limited": the offered loads of the trials marked tester-limited (the tester could
  not send what was asked), lowest and highest;
- "first loss": the lowest offered load of a trial, not tester-limited, that lost anything.
A report of `upfbench search` against upfbench's own reflector (deploy/upflab-ceiling.sh) thus
gives the ceiling of the tester on that path: a UPF's result above it is the tester's.
One line per case is also printed in a tab-separated form (prefix "TSV") for the results page.
"""

import json
import sys


def pps(x):
    return "-" if x is None else f"{x / 1000:.1f} kpps"


def case_summary(case):
    trials = case.get("trials", [])
    clean = [t for t in trials if not t.get("tester_limited")]
    limited = [t for t in trials if t.get("tester_limited")]
    no_loss = [t["offered_load_pps"] for t in clean if t["sent"] and t["received"] >= t["sent"]]
    lossy = [t["offered_load_pps"] for t in clean if t["received"] < t["sent"]]
    limited_loads = [t["offered_load_pps"] for t in limited]
    return {
        "label": case["label"],
        "trials": len(trials),
        "wall_s": sum(t.get("duration_s", 0.0) for t in trials),
        "no_loss_up_to": max(no_loss) if no_loss else None,
        "first_loss": min(lossy) if lossy else None,
        "limited_n": len(limited),
        "limited_min": min(limited_loads) if limited_loads else None,
        "limited_max": max(limited_loads) if limited_loads else None,
        "results": case.get("results", []),
    }


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path = argv[1]
    for report in argv[2:]:
        with open(report) as f:
            r = json.load(f)
        print(f"{path}: {report} (started {r.get('started', '?')}, {r.get('duration_s', 0):.0f} s)")
        for case in r.get("search", {}).get("cases", []):
            s = case_summary(case)
            print(f"  {s['label']}: {s['trials']} trials, {s['wall_s']:.0f} s of trials")
            for g in s["results"]:
                extra = ""
                if g.get("tester_limited_at_pps") is not None:
                    extra = f", tester-limited at {pps(g['tester_limited_at_pps'])}"
                print(f"    {g['goal']}: {g['status']}, lower {pps(g.get('lower_bound_pps'))},"
                      f" upper {pps(g.get('upper_bound_pps'))}{extra}")
            print(f"    no loss up to {pps(s['no_loss_up_to'])} (trials not tester-limited)")
            print(f"    first loss at {pps(s['first_loss'])} (trials not tester-limited)")
            print(f"    tester-limited trials: {s['limited_n']}, offered"
                  f" {pps(s['limited_min'])} to {pps(s['limited_max'])}")
            ndr = next((g for g in s["results"] if g["goal"] == "NDR"), None)
            print("TSV\t" + "\t".join([
                path, s["label"], str(s["trials"]),
                "-" if ndr is None else ndr["status"],
                pps(None if ndr is None else ndr.get("lower_bound_pps")),
                pps(s["no_loss_up_to"]), pps(s["first_loss"]), str(s["limited_n"]),
                pps(s["limited_min"]), pps(s["limited_max"]),
            ]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
