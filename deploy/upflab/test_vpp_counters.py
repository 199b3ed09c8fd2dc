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
        self.assertEqual(reconcile.vpp_links(ifs), ("memif1/0", "memif2/0"))
        self.assertEqual(reconcile.vpp_links({"host-n3": {}, "host-n6": {}}),
                         ("host-n3", "host-n6"))

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
