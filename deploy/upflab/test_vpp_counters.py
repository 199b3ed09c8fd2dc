"""reconcile.py's reading of UPG-VPP's counters (`show interface`, `show errors` of VPP 24.02, as
counters.sh saves them; the texts below are cut from a memif run of 2026-11-26).
Run: python3 -m unittest discover -s deploy/upflab"""

import sys
import tempfile
import unittest
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


if __name__ == "__main__":
    unittest.main()
