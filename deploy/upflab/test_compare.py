"""upflab-compare.sh's plan, from --dry-run (nothing is started or installed): each mode's
directory, a mode given twice kept apart, and the lab packages each UPF needs.
Run: python3 -m unittest discover -s deploy/upflab"""

import subprocess
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "upflab-compare.sh"


def plan(*args):
    """upflab-compare.sh --dry-run ARGS: its lines, keyed by what precedes the first ': '."""
    p = subprocess.run(["bash", str(SCRIPT), "--dry-run", *args], capture_output=True,
                       text=True, check=True)
    return [tuple(l.split(": ", 1)) for l in p.stdout.splitlines()]


class Compare(unittest.TestCase):
    def test_a_mode_given_twice_gets_a_directory_of_its_own(self):
        with tempfile.TemporaryDirectory() as out:
            lines = plan("--upf", "open5gs", "--out", out, "run", "run", "sweep", "run")
            modes = [l for l in lines if l[0] in ("run", "sweep")]
            self.assertEqual(modes, [("run", f"{out}/run"), ("run", f"{out}/run-2"),
                                     ("sweep", f"{out}/sweep"), ("run", f"{out}/run-3")])
            # A dry run makes nothing.
            self.assertEqual(list(Path(out).iterdir()), [])

    def test_one_directory_per_mode_as_before(self):
        lines = dict(plan("--out", "/nonexistent/x", "run", "sweep"))
        self.assertEqual(lines["run"], "/nonexistent/x/run")
        self.assertEqual(lines["sweep"], "/nonexistent/x/sweep")
        self.assertFalse(Path("/nonexistent/x").exists())

    def test_eupf_needs_bpftool_open5gs_does_not(self):
        for upf in ("eupf", "eupf-maps32768"):
            lines = dict(plan("--upf", upf, "--out", "/nonexistent/x", "sweep"))
            self.assertEqual(lines["lab packages needed"].split(), ["bpftool", "curl", "jq"])
        lines = dict(plan("--upf", "open5gs", "--out", "/nonexistent/x", "sweep"))
        self.assertEqual(lines["lab packages needed"], "")
        lines = dict(plan("--upf", "open5gs", "--capture", "40", "--out", "/nonexistent/x",
                          "sweep"))
        self.assertEqual(lines["lab packages needed"], "tshark")

    def test_every_upf_runs_from_the_repository_alone(self):
        repo = SCRIPT.parent.parent
        for upf, runner in (("open5gs", "run-open5gs.sh"), ("eupf", "run-eupf.sh"),
                            ("eupf-maps32768", "run-eupf.sh"), ("upg-vpp", "run-upg-vpp.sh"),
                            ("reflect", "reflector.sh")):
            lines = dict(plan("--upf", upf, "--out", "/nonexistent/x", "run"))
            path = Path(lines["upf runner"])
            self.assertEqual(path, repo / "deploy" / "upflab" / runner, upf)
            self.assertTrue(path.is_file() and path.stat().st_mode & 0o111, path)
        self.assertEqual(dict(plan("--out", "/nonexistent/x", "run"))["upf runner"],
                         "none (attached)")

    def test_upg_vpp_memif_takes_its_system_file_unless_given_one(self):
        repo = SCRIPT.parent.parent
        lines = dict(plan("--upf", "upg-vpp-memif", "--out", "/nonexistent/x", "run"))
        self.assertEqual(lines["system"], str(repo / "deploy/systems/upg-vpp-memif.yaml"))
        self.assertEqual(Path(lines["upf runner"]).name, "run-upg-vpp.sh")
        lines = dict(plan("--upf", "upg-vpp-memif", "--system", "/x.yaml", "--out", "/n/x", "run"))
        self.assertEqual(lines["system"], "/x.yaml")
        lines = dict(plan("--upf", "upg-vpp", "--out", "/nonexistent/x", "run"))
        self.assertEqual(lines["system"], str(repo / "deploy/systems/lab.yaml"))

    def test_payloads_and_the_reflectors_file_are_in_the_plan(self):
        repo = SCRIPT.parent.parent
        lines = dict(plan("--upf", "reflect", "--out", "/nonexistent/x", "search"))
        self.assertEqual(lines["payloads"], "as the profile says (sweep, search)")
        self.assertEqual(lines["reflector"], str(repo / "deploy/systems/lab-reflector.yaml"))
        lines = dict(plan("--upf", "eupf", "--system", "deploy/systems/lab-af-xdp.yaml",
                          "--payloads", "300", "--out", "/nonexistent/x", "search"))
        self.assertEqual(lines["payloads"], "300 (sweep, search)")
        self.assertEqual(lines["system"], "deploy/systems/lab-af-xdp.yaml")
        self.assertNotIn("reflector", lines)

    def test_upg_vpp_needs_no_lab_package(self):
        lines = dict(plan("--upf", "upg-vpp", "--out", "/nonexistent/x", "run", "sweep"))
        self.assertEqual(lines["lab packages needed"], "")
        self.assertEqual(lines["sweep"], "/nonexistent/x/sweep")

    def test_an_unknown_upf_is_refused(self):
        p = subprocess.run(["bash", str(SCRIPT), "--dry-run", "--upf", "free5gc", "run"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
