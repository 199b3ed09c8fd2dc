"""pinning_table.py on a made-up campaign of one round: a pinned sweep whose uplink lost and
whose senders fell behind, an unpinned one that did neither, and a measurement with no output.
Run: python3 -m unittest discover -s deploy/upflab"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def counters(root, name, t, busy, idle, upf_ticks):
    d = root / name
    d.mkdir(parents=True)
    (d / "time").write_text(str(t))
    (d / "cpu-stat.txt").write_text(f"cpu {busy} 0 0 {idle} 0 0 0 0 0 0\n")
    (d / "upf-cpu-ticks").write_text(f"{upf_ticks}\n")


def step(payload, ul_loss, slip=None, warned=False):
    def direction(name, loss):
        d = {"direction": name, "loss": {"sent": 100000, "lost": int(loss * 1000),
                                         "loss_pct": loss}}
        if slip and name == "uplink":
            d["tx_slip"] = {"count": slip, "slipped_us": 40000.0, "max_late_us": 2500.0}
        return d

    warnings = ["uplink TX fell behind its schedule 3 times (...): it could not keep to the "
                "requested rate"] if warned else []
    return {"label": f"{payload} B", "payload_bytes": payload, "warnings": warnings,
            "directions": [direction("uplink", ul_loss), direction("downlink", 0.0)]}


def measurement(camp, name, steps, unexplained=False):
    d = camp / name / "sweep"
    (d / "upfbench-report").mkdir(parents=True)
    (d / "upfbench-report" / "report.json").write_text(json.dumps({"steps": steps,
                                                                   "warnings": []}))
    (d / "reconcile.txt").write_text("UNEXPLAINED 2" if unexplained else "all equal")
    for i in range(1, len(steps) + 1):
        # 8 s per step; 80 % busy (400 of 500 jiffies); the UPF 60 ticks/s = 60 % of a CPU.
        counters(d / "counters", f"step{i}-start", 10.0 * i, 1000 * i, 1000 * i, 100 * i)
        counters(d / "counters", f"step{i}-end", 10.0 * i + 8, 1000 * i + 400,
                 1000 * i + 100, 100 * i + 480)


class PinningTable(unittest.TestCase):
    def test_every_step_and_the_spread(self):
        with tempfile.TemporaryDirectory() as tmp:
            camp = Path(tmp)
            measurement(camp, "pinned-1", [step(10, 0.345, slip=3, warned=True),
                                           step(1400, 10.92, slip=1)], unexplained=True)
            measurement(camp, "unpinned-1", [step(10, 0.0), step(1400, 0.22)])
            (camp / "pinned-2").mkdir()
            (camp / "runs.tsv").write_text(
                "round\tvariant\tdir\tstarted\tbusy_before_pct\twaited_s\texit\n"
                "1\tpinned\tpinned-1\tT\t12\t0\t3\n"
                "1\tunpinned\tunpinned-1\tT\t14\t30\t0\n"
                "2\tpinned\tpinned-2\tT\t90\t1800\t1\n")
            p = subprocess.run([sys.executable, str(HERE / "pinning_table.py"), str(camp)],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            rows = [[c.strip() for c in l.strip("|").split("|")] for l in p.stdout.splitlines()
                    if l.startswith("| ")]
            self.assertIn(["1", "pinned", "sweep", "10 B", "80", "60", "0.345", "0.000",
                           "3 (2500)", "0 (0)", "uplink", "UNEXPLAINED", "12", "0"], rows)
            self.assertIn(["1", "pinned", "sweep", "1400 B", "80", "60", "10.920", "0.000",
                           "1 (2500)", "0 (0)", "-", "UNEXPLAINED", "12", "0"], rows)
            self.assertIn(["1", "unpinned", "sweep", "1400 B", "80", "60", "0.220", "0.000",
                           "0 (0)", "0 (0)", "-", "ok", "14", "30"], rows)
            self.assertIn(["2", "pinned", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                           "no output (exit 1)", "90", "1800"], rows)
            # The spread: one run each; the pinned 10 B step fell behind and was warned.
            self.assertIn(["pinned", "sweep", "10 B", "1", "0.345 (0.345 to 0.345)",
                           "0.000 (0.000 to 0.000)", "1 / 1", "80"], rows)
            self.assertIn(["unpinned", "sweep", "1400 B", "1", "0.220 (0.220 to 0.220)",
                           "0.000 (0.000 to 0.000)", "0 / 0", "80"], rows)
            # Steps in the order they ran (10 B before 1400 B), not sorted as text.
            spread = [r[:3] for r in rows if len(r) == 8]
            self.assertEqual(spread[1:], [["pinned", "sweep", "10 B"], ["pinned", "sweep", "1400 B"],
                                          ["unpinned", "sweep", "10 B"],
                                          ["unpinned", "sweep", "1400 B"]])


if __name__ == "__main__":
    unittest.main()
