#!/usr/bin/env python3
"""CSIT's MLRsearch 1.2.1 (PyPI) against a simulated UPF, for the differential test.

Reads a JSON spec (the file named as the only argument, or standard input):

    {"min_load": 10000, "max_load": 10000000,
     "goals": [{"loss_ratio": 0.0, "exceed_ratio": 0.5, "relative_width": 0.005,
                "initial_trial_duration": 1.0, "final_trial_duration": 1.0,
                "duration_sum": 21.0}, ...],
     "upf": {"kind": "sharp", "capacity": 3456789}
          | {"kind": "soft", "knee": 2000000, "steepness": 2}
          | {"kind": "noisy", "knee": 2000000, "steepness": 2, "spread": 0.2, "seed": 7}
          | {"kind": "constant_loss", "ratio": 0.001}
          | {"kind": "latency_limited", "capacity": 5000000, "latency_knee": 3000000}}

and prints JSON: the package version, the number of trials and their simulated duration, every
trial ([intended load, intended duration, packets sent, packets lost, 99th percentile of
latency in ns], in order), and per goal
(in the spec's order) the relevant lower bound, the relevant upper bound and the conditional
throughput (pps, null where there is none).

The simulated UPF is a deterministic function of the intended load and duration, in integer
packet counts (MLRsearch computes a trial's loss ratio from counts);
crates/search/tests/mlrsearch_differential.rs computes the same function in Rust:

    sent = floor(load * duration + 0.5)
    sharp:          lost = max(0, sent - floor(capacity * duration))
    soft:           x = load / knee - 1; ratio = min(1, steepness * x * x) if x > 0 else 0;
                    lost = ceil(sent * ratio)
    noisy:          as soft, the ratio times (1 + spread * (u - 0.5)), u in [0, 1) drawn
                    for each trial in turn from xorshift64* seeded with seed | 1
    constant_loss:  lost = floor(sent * ratio + 0.5)
    latency_limited: lost as sharp; p99 latency 2 ms above latency_knee (pps), else 20 us.
                    MLRsearch knows no latency: it is told that a trial above the knee lost
                    every packet, which is how a goal with a latency bound between the two
                    sees it (the Rust side gives its goals such a bound).

Time: MLRsearch 1.2.1 limits a search by wall-clock time (time.monotonic() against
Config.search_duration_max, checked before each trial) and never sleeps itself; a trial's
duration counts only through the result's duration fields. The measurer here answers at once
and reports the intended duration as the trial's duration, so a search of hundreds of
simulated seconds takes milliseconds; search_duration_max is set high all the same so that a
slow machine cannot end it. The warmup trial (CSIT's default 1 s at max load, whose result
MLRsearch discards) is turned off so that the trial counts compare with ours.

Exit status 3 with a message on standard error when MLRsearch 1.2.1 cannot be imported.
"""

import json
import math
import sys

REQUIRED_VERSION = "1.2.1"


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
        sys.stderr.write(
            f"MLRsearch {version} is installed, the test needs {REQUIRED_VERSION}\n"
        )
        sys.exit(3)
    return MLRsearch


MASK = (1 << 64) - 1


class Noise:
    """xorshift64*: the same sequence of units in [0, 1) as the Rust side's."""

    def __init__(self, seed):
        self.state = (seed | 1) & MASK

    def unit(self):
        """The next unit."""
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        self.state = x
        return (((x * 0x2545F4914F6CDD1D) & MASK) >> 11) / (1 << 53)


LATENCY_LOW_NS = 20_000
LATENCY_HIGH_NS = 2_000_000


def p99_latency_ns(upf, load):
    """The trial's 99th percentile of latency (ns)."""
    if upf["kind"] == "latency_limited" and load > upf["latency_knee"]:
        return LATENCY_HIGH_NS
    return LATENCY_LOW_NS


def lost_packets(upf, load, duration, sent, noise):
    """Packets the simulated UPF loses of `sent` offered at `load` for `duration`."""
    kind = upf["kind"]
    if kind in ("sharp", "latency_limited"):
        return max(0, sent - math.floor(upf["capacity"] * duration))
    if kind in ("soft", "noisy"):
        excess = load / upf["knee"] - 1.0
        factor = 1.0
        if kind == "noisy":
            factor = 1.0 + upf["spread"] * (noise.unit() - 0.5)
        ratio = 0.0
        if excess > 0.0:
            ratio = min(1.0, upf["steepness"] * excess * excess * factor)
        return math.ceil(sent * ratio)
    if kind == "constant_loss":
        return math.floor(sent * upf["ratio"] + 0.5)
    raise ValueError(f"unknown UPF kind {kind!r}")


def main():
    """Run the search of the spec and print its outcome."""
    mlr = load_mlrsearch()
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as file:
            spec = json.load(file)
    else:
        spec = json.load(sys.stdin)
    upf = spec["upf"]

    class Measurer(mlr.AbstractMeasurer):
        """The simulated UPF, answering at once."""

        def __init__(self):
            self.log = []
            self.noise = Noise(upf.get("seed", 1))

        def measure(self, intended_duration, intended_load):
            sent = math.floor(intended_load * intended_duration + 0.5)
            lost = lost_packets(upf, intended_load, intended_duration, sent, self.noise)
            p99 = p99_latency_ns(upf, intended_load)
            self.log.append([intended_load, intended_duration, sent, lost, p99])
            return mlr.MeasurementResult(
                intended_duration=intended_duration,
                intended_load=intended_load,
                offered_count=sent,
                loss_count=sent if p99 > LATENCY_LOW_NS else lost,
                offered_duration=intended_duration,
                duration_with_overheads=intended_duration,
            )

    goals = [
        mlr.SearchGoal(
            loss_ratio=g["loss_ratio"],
            exceed_ratio=g["exceed_ratio"],
            relative_width=g["relative_width"],
            initial_trial_duration=g["initial_trial_duration"],
            final_trial_duration=g["final_trial_duration"],
            duration_sum=g["duration_sum"],
            # Min Load as an upper bound is an outcome to compare, not an error.
            fail_fast=False,
        )
        for g in spec["goals"]
    ]
    config = mlr.Config()
    # Each setter checks the other limit's current value: move the one that keeps them apart.
    if spec["min_load"] < config.max_load:
        config.min_load = spec["min_load"]
        config.max_load = spec["max_load"]
    else:
        config.max_load = spec["max_load"]
        config.min_load = spec["min_load"]
    config.goals = goals
    config.search_duration_max = 1e9
    config.warmup_duration = None
    measurer = Measurer()
    results = mlr.MultipleLossRatioSearch(config=config).search(
        measurer=measurer, debug=lambda _text: None
    )

    def number(value):
        return None if value is None else float(value)

    out = {
        "mlrsearch_version": REQUIRED_VERSION,
        "trials": len(measurer.log),
        "trial_seconds": sum(t[1] for t in measurer.log),
        "trial_log": measurer.log,
        "goals": [
            {
                "lower_bound": number(results[g].relevant_lower_bound),
                "upper_bound": number(results[g].relevant_upper_bound),
                "conditional_throughput": number(results[g].conditional_throughput),
            }
            for g in goals
        ],
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
