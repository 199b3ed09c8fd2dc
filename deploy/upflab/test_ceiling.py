"""ceiling.py on a made-up search report of one case: a loss-free trial, a trial that lost, and
two the tester could not send in full (one of them at a lower load than the loss-free one).
Run: python3 -m unittest discover -s deploy/upflab"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def trial(offered, sent, received, limited=None):
    t = {"intended_load_pps": offered, "offered_load_pps": offered, "sent": sent,
         "received": received, "duration_s": 1.25}
    if limited:
        t["tester_limited"] = limited
    return t


REPORT = {
    "started": "2026-11-29T05:13:57Z",
    "duration_s": 6.0,
    "search": {"cases": [{
        "label": "300 B both",
        "results": [{"goal": "NDR", "status": "tester_limited", "lower_bound_pps": 200000.0,
                     "upper_bound_pps": None, "tester_limited_at_pps": 201000.0}],
        "trials": [
            trial(200000.0, 200000, 200000),
            trial(210000.0, 210000, 209000),
            trial(180000.0, 178000, 178000, "sent at 178000 pps, 1.1 % under"),
            trial(250000.0, 240000, 240000, "sent at 240000 pps, 4.0 % under"),
        ],
    }]},
}


class Ceiling(unittest.TestCase):
    def test_a_case_gives_its_loss_free_load_first_loss_and_tester_limited_range(self):
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.json"
            report.write_text(json.dumps(REPORT))
            p = subprocess.run([sys.executable, str(HERE / "ceiling.py"), "af_xdp", str(report)],
                               capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("300 B both: 4 trials, 5 s of trials", out)
        self.assertIn("NDR: tester_limited, lower 200.0 kpps, upper -, tester-limited at "
                      "201.0 kpps", out)
        # The tester-limited trials count for neither the loss-free load nor the first loss.
        self.assertIn("no loss up to 200.0 kpps", out)
        self.assertIn("first loss at 210.0 kpps", out)
        self.assertIn("tester-limited trials: 2, offered 180.0 kpps to 250.0 kpps", out)
        self.assertIn("TSV\taf_xdp\t300 B both\t4\ttester_limited\t200.0 kpps\t200.0 kpps\t"
                      "210.0 kpps\t2\t180.0 kpps\t250.0 kpps", out)

    def test_no_arguments_is_a_usage_error(self):
        p = subprocess.run([sys.executable, str(HERE / "ceiling.py")], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("Usage: ceiling.py", p.stderr)


if __name__ == "__main__":
    unittest.main()
