"""reconcile.py's reading of UPG-VPP's counters (`show interface`, `show errors` of VPP 24.02, as
counters.sh saves them; the texts below are cut from a memif run of 2026-11-26).
Run: python3 -m unittest discover -s deploy/upflab"""

import os
import sys
import tempfile
import unittest
from unittest import mock
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reconcile  # noqa: E402

INTERFACES = """\
              Name               Idx    State  MTU (L3/IP4/IP6/MPLS)     Counter          Count     
host-n4                           1      up          9000/0/0/0     rx packets                  2004
                                                                    rx bytes                  449226
                                                                    tx packets                  2003
local0                            0     down          0/0/0/0       drops                          1
memif1/0                          2      up          9000/0/0/0     rx packets               5999081
                                                                    tx packets               5999083
                                                                    ip4                      5999080
memif2/0                          3      up          9000/0/0/0     
"""

ERRORS = """\
   Count                  Node                              Reason               Severity 
  17886023           upf-gtp-encap4               good packets encapsulated        error  
         3             arp-reply                       ARP replies sent            info   
      4886            memif2/0-tx                      no free tx slots            error  
"""


class VppCounters(unittest.TestCase):
    def test_show_interface_by_interface_and_counter(self):
        ifs = reconcile.parse_vpp_interfaces(INTERFACES)
        self.assertEqual(ifs["host-n4"], {"rx packets": 2004, "rx bytes": 449226,
                                          "tx packets": 2003})
        self.assertEqual(ifs["local0"], {"drops": 1})
        self.assertEqual(ifs["memif1/0"], {"rx packets": 5999081, "tx packets": 5999083,
                                           "ip4": 5999080})
        # An interface that carried nothing has no counter lines.
        self.assertEqual(ifs["memif2/0"], {})
        self.assertEqual(reconcile.vpp_links(ifs, {}), ("memif1/0", "memif2/0"))
        self.assertEqual(reconcile.vpp_links({"host-n3": {}, "host-n6": {}}, {}),
                         ("host-n3", "host-n6"))

    def test_vlan_sub_interfaces_as_run_upg_vpp_names_them(self):
        host = {"host-n3": {}, "host-n6": {}}
        two = {"UPG_VPP_N3_VLAN": "13", "UPG_VPP_N6_VLAN": "16"}
        self.assertEqual(reconcile.vpp_links(host, two), ("host-n3.13", "host-n6.16"))
        one = dict(two, UPG_VPP_ONE_PORT="1")
        self.assertEqual(reconcile.vpp_links(host, one), ("host-n3.13", "host-n3.16"))
        qinq = dict(two, UPG_VPP_N3_QINQ="100")
        self.assertEqual(reconcile.vpp_links(host, qinq), ("host-n3.1000013", "host-n6.16"))
        self.assertEqual(reconcile.vpp_device("host-n3.1000013"), "host-n3")
        self.assertEqual(reconcile.vpp_device("memif1/0"), "memif1/0")
        # A sub-interface's header line parses as any other's.
        text = ("host-n3.13                        4      up          1500/0/0/0     "
                "rx packets                 60001\n"
                "                                                                    "
                "ip4                        60000\n")
        self.assertEqual(reconcile.parse_vpp_interfaces(text),
                         {"host-n3.13": {"rx packets": 60001, "ip4": 60000}})

    def test_show_errors_by_node_and_reason(self):
        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "vpp-errors.txt"
            p.write_text(ERRORS)
            errs = reconcile.parse_vpp_errors(p)
        self.assertEqual(errs, {
            "upf-gtp-encap4: good packets encapsulated (error)": 17886023,
            "arp-reply: ARP replies sent (info)": 3,
            "memif2/0-tx: no free tx slots (error)": 4886,
        })

    def test_a_counter_that_appears_during_a_step_counts_from_zero(self):
        a = {"interfaces": {"memif2/0": {}}, "errors": {}}
        b = {"interfaces": {"memif2/0": {"tx packets": 10, "tx-error": 1}},
             "errors": {"memif2/0-tx: no free tx slots (error)": 4}}
        d = reconcile.vpp_delta(a, b)
        self.assertEqual(d["interfaces"]["memif2/0"], {"tx packets": 10, "tx-error": 1})
        self.assertEqual(d["errors"], {"memif2/0-tx: no free tx slots (error)": 4})


class OnePort(unittest.TestCase):
    def test_one_port_points_add_both_directions_on_n3(self):
        # 120 packets each way over tg's n3 both ways, N3 on VLAN 13 and N6 on VLAN 16 of
        # host-n3; 1 ARP request sent and 1 answered on each port; n6 idle.
        link = lambda rx, tx: {"rx": rx, "tx": tx, "rx_dropped": 0, "tx_dropped": 0}
        step = {"links": {"tg": {"n3": link(242, 242), "n6": link(0, 0)},
                          "dut": {"n3": link(242, 242), "n6": link(0, 0)}},
                "vpp": {"interfaces": {"host-n3": {}, "host-n3.13": {"rx packets": 121,
                                                                     "tx packets": 121},
                                       "host-n3.16": {"rx packets": 121, "tx packets": 121}},
                        "errors": {}}}
        frame = {"tx_measured": 100, "tx_warmup": 20, "tx_service": 1, "rx_measured": 100,
                 "rx_unmeasured": 20, "rx_service": 1, "rx_rejected": 0}
        frames = {"N3": dict(frame, name="N3"), "N6": dict(frame, name="N6")}
        port = {"opackets": 242, "oerrors": 0, "ipackets": 242}
        env = {"UPG_VPP_N3_VLAN": "13", "UPG_VPP_N6_VLAN": "16", "UPG_VPP_ONE_PORT": "1"}
        with mock.patch.dict(os.environ, env):
            pts = reconcile.one_port_path(step, {"N3": port, "N6": port}, frames, "upg-vpp")
        self.assertEqual([(p.name, p.count) for p in pts],
                         [("upfbench sent", 240), ("port tx", 240), ("veth tg tx", 240),
                          ("veth dut rx", 240), ("UPF in", 240), ("UPF out", 240),
                          ("veth dut tx", 240), ("veth tg rx", 240), ("port rx", 240),
                          ("upfbench received", 240)])
        rows, notes, raw = [], [], []
        directions = [{"loss": {"sent": 100, "lost": 0}}] * 2
        self.assertEqual(reconcile.one_port_rows({"label": "s", "directions": directions},
                                                 pts, rows, notes, raw), 0)
        self.assertEqual(rows[0][:3], ["s", "UL+DL", "240"])
        pts[5].count -= 3  # 3 gone inside VPP, no counter says so
        self.assertEqual(reconcile.one_port_rows({"label": "s", "directions": directions},
                                                 pts, rows, notes, raw), 2)
        self.assertIn("s one port: UPF in -> UPF out: 3 fewer (no counter); UNEXPLAINED 3",
                      notes)

if __name__ == "__main__":
    unittest.main()
