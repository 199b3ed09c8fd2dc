"""reconcile_agents.py on made-up counters of a run over two agents against Open5GS: the merged
report the sum of the agents', counts equal link by link, a loss a counter explains, a loss
nothing explains, a session with the other agent's gNB. Run: python3 -m unittest discover -s
deploy/upflab"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from test_reconcile import snapshot

HERE = Path(__file__).resolve().parent
MACS = {"n3a": "02:00:00:00:03:0a", "n3b": "02:00:00:00:03:0b", "n6a": "02:00:00:00:06:0a",
        "n6b": "02:00:00:00:06:0b"}
ZERO = {i: (0, 0, 0) for i in ("n3a", "n3b", "n4", "n6a", "n6b")}


def frames(name, sent, received):
    """A port's frames: `sent` measured + 20 warm-up out, `received` measured + 20 back."""
    return {"name": name, "tx_measured": sent, "tx_warmup": 20, "tx_service": 0,
            "rx_measured": received, "rx_unmeasured": 20, "rx_service": 0, "rx_rejected": 0}


def ports(fr):
    return [{"name": f["name"], "ipackets": f["rx_measured"] + 20, "opackets": f["tx_measured"]
             + 20, "oerrors": 0} for f in fr]


def agent_result(name, ul_rx, dl_rx):
    fr = [frames("N3", 100, dl_rx), frames("N6", 100, ul_rx)]
    return {"step": 1, "agent": name, "pairs": [{"pair": "p0", "frames": fr, "ports": ports(fr)}]}


class ReconcileAgents(unittest.TestCase):
    def run_case(self, gtpu_drops=0, link_loss_b=0, gnb_b="192.168.13.132"):
        """Each agent sends 100 measured + 20 warm-up each way; of gnb-b's uplink
        `gtpu_drops` are dropped at Open5GS's GTP-U socket and `link_loss_b` between dut's n6b
        and tg's with no counter. Each tg link also carries one ARP frame each way (captured)."""
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            lost_b = gtpu_drops + link_loss_b
            ul_rx_b = 100 - lost_b
            up_out = 240 - gtpu_drops  # what Open5GS wrote to ogstun
            tg = {"n3a": (121, 121, 0), "n3b": (121, 121, 0), "n4": (0, 0, 0),
                  "n6a": (121, 121, 0), "n6b": (121 - lost_b, 121, 0)}
            dut = {"n3a": (121, 121, 0), "n3b": (121, 121, 0), "n4": (0, 0, 0),
                   "n6a": (121, 121, 0), "n6b": (121, 121 - gtpu_drops, 0),
                   "n3": (240, 240, 0), "n6": (240, up_out, 0), "ogstun": (up_out, 240, 0)}
            counters = root / "counters"
            before = dict(ZERO, n3=(0, 0, 0), n6=(0, 0, 0), ogstun=(0, 0, 0))
            snapshot(counters, "run-before", ZERO, before, t=0.0)
            snapshot(counters, "run-after", tg, dut, gtpu_drops=gtpu_drops, t=9.0)
            links = json.loads((counters / "run-after" / "tg-links.json").read_text())
            for link in links:
                link["address"] = MACS.get(link["ifname"], "")
            (counters / "run-after" / "tg-links.json").write_text(json.dumps(links))
            run = root / "run"
            (run / "agents").mkdir(parents=True)
            (run / "captures").mkdir()
            (root / "counters").rename(run / "counters")
            for name, ul in (("gnb-a", 100), ("gnb-b", ul_rx_b)):
                (run / "agents" / f"{name}-step1.json").write_text(
                    json.dumps(agent_result(name, ul, 100)))
            for ifc, mac in MACS.items():
                (run / "captures" / f"dut-{ifc}-other.txt").write_text(
                    f"1.0\t{mac}\tARP\tWho has\n")
                (run / "captures" / f"tg-{ifc}-other.txt").write_text(
                    "2.0\t02:00:00:00:00:99\tARP\tis at\n")
            (run / "captures" / "tg-n4-establishments.txt").write_text(
                "10.45.0.2\t192.168.13.131\n" f"10.45.0.3\t{gnb_b}\n")
            (run / "captures" / "tg-n3a-gtpu.txt").write_text("    120 192.168.13.131 0x2\n")
            (run / "captures" / "tg-n3b-gtpu.txt").write_text("    120 192.168.13.132 0x4\n")
            fr = [frames("N3", 200, 200), frames("N6", 200, 200 - lost_b)]
            for f in fr:
                f["tx_warmup"] = f["rx_unmeasured"] = 40
            prt = [{"name": f["name"], "ipackets": f["rx_measured"] + 40,
                    "opackets": f["tx_measured"] + 40, "oerrors": 0} for f in fr]
            direction = lambda d, rx: {"direction": d, "loss": {"sent": 200, "unique": rx,
                                                                "lost": 200 - rx}}
            section = lambda name, ul: {"name": name, "steps": [{"step": 1, "figures": [
                {"direction": "uplink", "sent": 100, "received": ul, "lost": 100 - ul},
                {"direction": "downlink", "sent": 100, "received": 100, "lost": 0}]}]}
            report = {"steps": [{"label": "300 B", "frames": fr, "ports": prt, "directions": [
                direction("uplink", 200 - lost_b), direction("downlink", 200)]}],
                "agents": [section("gnb-a", 100), section("gnb-b", ul_rx_b)]}
            (root / "report.json").write_text(json.dumps(report))
            p = subprocess.run([sys.executable, str(HERE / "reconcile_agents.py"), "--upf",
                                "open5gs", str(root), str(run)], capture_output=True, text=True)
            return p.returncode, p.stdout + p.stderr

    def test_equal_counts_for_each_agent_and_in_all(self):
        code, out = self.run_case()
        self.assertEqual(code, 0, out)
        self.assertRegex(out, r"\| 300 B \| uplink +\| +100 / 100 / 0 \| +100 / 100 / 0 \| "
                              r"200 / 200 / 0 \| = a \+ b \|")
        self.assertIn("PFCP establishments with gNB 192.168.13.132 in the downlink FAR: 1 "
                      "sessions, UEs 10.45.0.3 to 10.45.0.3", out)
        self.assertRegex(out, r"\| uplink \| tg link tx +\| +120 \| +120 \| +240 \|")
        self.assertIn("every count equal from end to end, for each agent", out)

    def test_gtpu_socket_drops_explain_the_upf_s_loss_in_all(self):
        code, out = self.run_case(gtpu_drops=3)
        self.assertEqual(code, 0, out)
        self.assertIn("merged report, both links uplink: dut link rx -> UPF out: 3 fewer "
                      "(Open5GS's GTP-U socket drops (receive buffer full) 3)", out)
        self.assertIn("gnb-b uplink: dut link rx -> dut link tx: 3 fewer (through the UPF: "
                      "its counters are both agents'", out)
        self.assertNotIn("UNEXPLAINED", out)

    def test_a_loss_on_one_agent_s_link_with_no_counter_fails(self):
        code, out = self.run_case(link_loss_b=2)
        self.assertEqual(code, 3, out)
        self.assertIn("gnb-b uplink: dut link tx -> tg link rx: 2 fewer (no counter); "
                      "UNEXPLAINED 2", out)

    def test_no_session_with_an_agent_s_gnb_fails(self):
        code, out = self.run_case(gnb_b="192.168.13.131")
        self.assertEqual(code, 3, out)
        self.assertIn("no session has gnb-b's gNB address 192.168.13.132", out)


if __name__ == "__main__":
    unittest.main()
