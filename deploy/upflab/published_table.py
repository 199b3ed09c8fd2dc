#!/usr/bin/env python3
"""A sweep's report.json as the published UPF comparisons lay it out: per direction, a row per
payload with Tx/Rx Gbps (L1) and Kpps, loss, latency avg/min/max, and p50/p99 beside them.

Usage: published_table.py REPORT.json [TITLE]
"""

import json
import sys

HEAD = ["Payload B", "Tx Gbps", "Rx Gbps", "Tx Kpps", "Rx Kpps", "Loss %", "Avg us", "Min us",
        "Max us", "p50 us", "p99 us"]


def row(step, name):
    d = next(x for x in step["directions"] if x["direction"] == name)
    lat = d["latency"] or {}

    def us(k):
        return f"{lat[k] / 1000:.1f}" if k in lat else "-"

    payload = step["payload_bytes"]
    return [str(payload if payload is not None else step["label"]),
            f"{d['tx']['gbps_l1']:.3f}", f"{d['rx']['gbps_l1']:.3f}", f"{d['tx']['kpps']:.1f}",
            f"{d['rx']['kpps']:.1f}", f"{d['loss']['loss_pct']:.3f}", us("avg_ns"),
            us("min_ns"), us("max_ns"), us("p50_ns"), us("p99_ns")]


def table(rows):
    widths = [max(len(r[i]) for r in [HEAD] + rows) for i in range(len(HEAD))]

    def line(r):
        return "| " + " | ".join(c.rjust(w) for c, w in zip(r, widths)) + " |"

    return "\n".join([line(HEAD), "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"]
                     + [line(r) for r in rows])


def main():
    report = json.load(open(sys.argv[1]))
    title = sys.argv[2] if len(sys.argv) > 2 else report["config"].get("profile", "")
    for name, what in (("uplink", "Uplink (GTP-U on N3 -> plain on N6)"),
                       ("downlink", "Downlink (plain on N6 -> GTP-U on N3)")):
        print(f"{title}: {what}\n")
        print(table([row(s, name) for s in report["steps"]]))
        print()


if __name__ == "__main__":
    main()
