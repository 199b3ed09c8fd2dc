#!/usr/bin/env python3
"""CSIT's MLRsearch 1.2.1 (PyPI) driving `upfbench run`, one process per trial.

What a CSIT user would do today with upfbench as the traffic generator, and the reference of
benches/search_time.sh: MLRsearch chooses each trial's load and duration, and the measurer here
writes a profile at that load, runs

    upfbench run SYSTEM PROFILE --reports DIR

and answers with the report's sent and lost packets (both directions together) and the trial's
wall time, process start to exit, as its duration with overheads (which is what MLRsearch adds
to its duration sums, as upfbench search adds its trials' wall times).

    mlrsearch_run.py --upfbench BIN --system SYSTEM --profile BASE --work DIR \\
        --min-load 10000 --max-load 800000 > summary.json

BASE is a profile whose streams say how a load is shared among them (`rate: 100kpps` each
way: half of the load each way), as `upfbench search` reads its profile: a trial at load L
(pps, both directions together, as upfbench search counts a load) gives each stream
L x its rate / the streams' total, for the trial's duration, its drain as BASE has it, and
BASE's warm-up before the first trial alone (as upfbench search warms up a case's first trial
only). MLRsearch's own warm-up trial is off, so that its trials are the same traffic as
upfbench search's. Min Load and Max Load are in the same pps. MLRsearch is not given an
intended count: it would count unsent packets as lost, and the streams' rounding (a packet or
two) would fail a no-loss trial; the trial log has what was sent, to check against the load.

The goals are CSIT's NDR and PDR at MLRsearch's defaults (loss ratio 0 and 0.5 %, exceed ratio
50 %, width 0.5 %, 1 s trials, 21 s duration sum; --duration-sum S sets another). Printed: JSON with the search's wall time,
its trials ([intended load, intended duration, sent, lost, wall time]) and per goal its
relevant bounds and conditional throughput (pps, null where there is none).

Exit status 3 with a message on standard error when MLRsearch 1.2.1 cannot be imported.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import time

REQUIRED_VERSION = "1.2.1"

# `rate: 100kpps` in a stream's flow mapping; the unit's prefix as upfbench reads it.
RATE = re.compile(r"\brate:\s*([0-9.]+)\s*([kKmMgG]?)pps\b")
PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}
WARMUP = re.compile(r"^warmup:\s*(\S+)\s*$", re.MULTILINE)
# Lines the measurer writes itself.
OWN_KEYS = re.compile(r"^(duration|warmup|tx_mode):.*\n?", re.MULTILINE)


def load_mlrsearch():
    """Return the MLRsearch module, or exit 3 when 1.2.1 is not importable."""
    try:
        import importlib.metadata

        import MLRsearch

        version = importlib.metadata.version("MLRsearch")
    except Exception as err:  # pylint: disable=broad-except
        sys.stderr.write(f"MLRsearch {REQUIRED_VERSION} is not importable: {err!r}\n")
        sys.exit(3)
    if version != REQUIRED_VERSION:
        sys.stderr.write(f"MLRsearch {version} is installed, the bench needs {REQUIRED_VERSION}\n")
        sys.exit(3)
    return MLRsearch


class TrialProfile:
    """BASE's text, able to give a trial's profile at a load."""

    def __init__(self, base):
        rates = [float(m[1]) * PREFIX[m[2].lower()] for m in RATE.finditer(base)]
        if not rates or sum(rates) <= 0.0:
            raise ValueError("the base profile has no stream with a rate in pps")
        warmup = WARMUP.search(base)
        self.first_warmup = warmup[1] if warmup else "0s"
        self.total = sum(rates)
        self.body = OWN_KEYS.sub("", base).rstrip("\n") + "\n"

    def text(self, load, duration, first):
        """The profile of a trial at `load` pps for `duration` s, warmed up if `first`."""
        def scaled(match):
            share = float(match[1]) * PREFIX[match[2].lower()] / self.total
            return f"rate: {load * share:.6f}pps"

        body = RATE.sub(scaled, self.body)
        warmup = self.first_warmup if first else "0s"
        millis = round(duration * 1000.0)
        return f"{body}duration: {millis}ms\nwarmup: {warmup}\ntx_mode: continuous\n"


def step_counts(report_dir):
    """Sent and lost packets of the run under `report_dir`, both directions, and its sending
    time (s)."""
    reports = sorted(pathlib.Path(report_dir).rglob("report.json"))
    if len(reports) != 1:
        raise RuntimeError(f"{report_dir}: {len(reports)} report.json files, not one")
    report = json.loads(reports[0].read_text(encoding="utf-8"))
    (step,) = report["steps"]
    sent = sum(d["loss"]["sent"] for d in step["directions"])
    lost = sum(d["loss"]["lost"] for d in step["directions"])
    return sent, lost, step["duration_s"]


def make_measurer(mlr, args, profile):
    """MLRsearch's measurer: a `upfbench run` process per trial."""

    class RunMeasurer(mlr.AbstractMeasurer):
        """One `upfbench run` per trial, its report read back."""

        def __init__(self):
            self.log = []

        def measure(self, intended_duration, intended_load):
            index = len(self.log) + 1
            trial = pathlib.Path(args.work) / f"trial-{index:03}"
            trial.mkdir(parents=True)
            profile_file = trial / "profile.yaml"
            profile_file.write_text(
                profile.text(intended_load, intended_duration, index == 1), encoding="utf-8"
            )
            command = [args.upfbench, "run", args.system, str(profile_file)]
            command += ["--reports", str(trial / "reports")]
            start = time.monotonic()
            with open(trial / "run.log", "w", encoding="utf-8") as log:
                done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False)
            wall = time.monotonic() - start
            if done.returncode != 0:
                tail = (trial / "run.log").read_text(encoding="utf-8")[-2000:]
                raise RuntimeError(f"trial {index}: upfbench run exited {done.returncode}:\n{tail}")
            sent, lost, sending = step_counts(trial / "reports")
            self.log.append([intended_load, intended_duration, sent, lost, wall])
            return mlr.MeasurementResult(
                intended_duration=intended_duration,
                intended_load=intended_load,
                offered_count=sent,
                loss_count=lost,
                offered_duration=sending,
                duration_with_overheads=wall,
            )

    return RunMeasurer()


def search_config(mlr, args):
    """CSIT's NDR and PDR at MLRsearch's defaults (but the duration sum) between Min Load and
    Max Load."""
    goals = [
        mlr.SearchGoal(loss_ratio=0.0, duration_sum=args.duration_sum),
        mlr.SearchGoal(loss_ratio=0.005, duration_sum=args.duration_sum),
    ]
    config = mlr.Config()
    # Each setter checks the other limit's current value: move the one that keeps them apart.
    if args.min_load < config.max_load:
        config.min_load = args.min_load
        config.max_load = args.max_load
    else:
        config.max_load = args.max_load
        config.min_load = args.min_load
    config.goals = goals
    # MLRsearch's default (1200 s of wall time) would end a slow search as a failure; the
    # bench wants its time whatever it is.
    config.search_duration_max = 1e9
    config.warmup_duration = None
    return config, goals


def main():
    """Run the search and print its outcome."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    for flag in ("--upfbench", "--system", "--profile", "--work"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--min-load", type=float, required=True)
    parser.add_argument("--max-load", type=float, required=True)
    parser.add_argument(
        "--duration-sum", type=float, default=21.0, help="each goal's duration sum, s (21)"
    )
    args = parser.parse_args()
    mlr = load_mlrsearch()
    profile = TrialProfile(pathlib.Path(args.profile).read_text(encoding="utf-8"))
    config, goals = search_config(mlr, args)
    measurer = make_measurer(mlr, args, profile)
    debug_log = open(pathlib.Path(args.work) / "mlrsearch-debug.log", "w", encoding="utf-8")
    start = time.monotonic()
    with debug_log:
        results = mlr.MultipleLossRatioSearch(config=config).search(
            measurer=measurer, debug=lambda text: print(text, file=debug_log, flush=True)
        )
    wall = time.monotonic() - start

    def number(value):
        return None if value is None else float(value)

    out = {
        "mlrsearch_version": REQUIRED_VERSION,
        "search_wall_s": wall,
        "trials": len(measurer.log),
        "trial_log": measurer.log,
        "goals": [
            {
                "goal": name,
                "lower_bound": number(results[g].relevant_lower_bound),
                "upper_bound": number(results[g].relevant_upper_bound),
                "conditional_throughput": number(results[g].conditional_throughput),
            }
            for name, g in zip(("NDR", "PDR"), goals)
        ],
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
