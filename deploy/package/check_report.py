"""Checks a sweep's report.json from the package tests: every step named on the command line ran,
and each direction of each step sent and received measured packets. Loss is printed, not judged:
the e2e tests judge it; here the question is whether the installed files and binary work."""

import json
import sys


def main() -> None:
    path, payloads = sys.argv[1], [int(p) for p in sys.argv[2].split(",")]
    with open(path, encoding="utf-8") as f:
        steps = json.load(f)["steps"]
    got = [s["payload_bytes"] for s in steps]
    if got != payloads:
        sys.exit(f"{path}: steps at payloads {got}, expected {payloads}")
    summary = []
    for step in steps:
        for d in step["directions"]:
            sent, received = d["tx"]["packets"], d["rx"]["packets"]
            if sent == 0 or received == 0:
                sys.exit(f"{path}: {step['label']} {d['direction']}: sent {sent}, received {received}")
            summary.append(f"{step['label']} {d['direction']} {received}/{sent} lost {d['loss']['lost']}")
    print("; ".join(summary))


if __name__ == "__main__":
    main()
