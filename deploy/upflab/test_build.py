"""build-upfs.sh's pins, from --dry-run (nothing is fetched or built): every source pinned by
commit, the public GitHub repositories by default, a local mirror by variable.
Run: python3 -m unittest discover -s deploy/upflab"""

import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "build-upfs.sh"


def pins(env=None, what="all"):
    """{name: (source, ref, commit, variable)} from build-upfs.sh --dry-run."""
    e = {k: v for k, v in os.environ.items() if not k.endswith("_GIT")}
    e.update(env or {})
    p = subprocess.run(["bash", str(SCRIPT), "--dry-run", what], capture_output=True, text=True,
                       check=True, env=e)
    out = {}
    for line in p.stdout.splitlines()[1:]:
        m = re.fullmatch(r"(\S+): (\S+) (.+) ([0-9a-f]{40}) \((\w+)\)", line)
        assert m, line
        out[m.group(1)] = (m.group(2), m.group(3), m.group(4), m.group(5))
    return out


class Build(unittest.TestCase):
    def test_every_source_is_pinned_by_commit_on_github_by_default(self):
        p = pins()
        self.assertEqual(sorted(p), ["eupf", "fpp-vpp", "freediameter", "open5gs",
                                     "prometheus-c", "upg-vpp", "vpp"])
        for name, (src, ref, commit, var) in p.items():
            self.assertTrue(src.startswith("https://github.com/") and src.endswith(".git"), name)
            self.assertRegex(commit, "^[0-9a-f]{40}$")
        self.assertEqual(p["open5gs"][1:3], ("v2.7.7", "318eeb49a7dcdff733dec60e02d9c60aefca2fb9"))
        self.assertEqual(p["eupf"][1:3], ("v0.7.1", "faf939678d0c043dc9cb036bca8fa8b8e28cc7c3"))
        self.assertEqual(p["upg-vpp"][1:3], ("v2.0.0", "76f574e6c4345d24845016372188c765c84ef320"))
        self.assertEqual(p["vpp"][1:3], ("stable/2402", "80e9503819a64f8360bb9b055660089ba67957f6"))

    def test_a_local_mirror_replaces_the_url(self):
        p = pins({"VPP_GIT": "/srv/git/vpp.git", "OPEN5GS_GIT": "/srv/git/open5gs.git"})
        self.assertEqual(p["vpp"][0], "/srv/git/vpp.git")
        self.assertEqual(p["vpp"][3], "VPP_GIT")
        self.assertEqual(p["open5gs"][0], "/srv/git/open5gs.git")
        self.assertTrue(p["eupf"][0].startswith("https://github.com/"))

    def test_a_tag_that_names_another_commit_stops_the_build(self):
        # A repository whose v0.7.1 is not eUPF's pinned commit: nothing is fetched or built.
        with tempfile.TemporaryDirectory() as d:
            repo, lab = Path(d) / "eupf", Path(d) / "lab"
            git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
            subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "x"], check=True)
            subprocess.run(git + ["tag", "v0.7.1"], check=True)
            for src in (str(repo / ".git"), f"file://{repo}"):
                env = dict(os.environ, EUPF_GIT=src, LAB_DIR=str(lab), SKIP_APT="1",
                           PATH=os.environ["PATH"])
                p = subprocess.run(["bash", str(SCRIPT), "eupf"], capture_output=True,
                                   text=True, env=env)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn("not the pinned faf939678d0c043dc9cb036bca8fa8b8e28cc7c3", p.stderr)
                self.assertFalse((lab / "src" / "eupf-v0.7.1" / ".upflab-commit").exists())

    def test_an_unknown_target_is_refused(self):
        p = subprocess.run(["bash", str(SCRIPT), "free5gc"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
