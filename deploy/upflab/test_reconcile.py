"""reconcile.py on made-up counters of an Open5GS run: equal counts, losses a counter explains,
and a loss nothing explains. Run: python3 -m unittest discover -s deploy/upflab"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SNMP_HEAD = ("Ip: Forwarding ForwDatagrams OutDiscards\nIp: 1 {fwd} 0\n"
             "Udp: InDatagrams RcvbufErrors OutDatagrams\nUdp: {udp_in} {rcvbuf} {udp_out}\n")
ARP_STAT = "entries unresolved_discards\n00000004 {:08x}\n"


def links(counts):
    """`ip -s -j link` of links given as {name: (rx, tx, tx_dropped[, rx_dropped])}."""
    return json.dumps([{"ifname": n, "stats64": {
        "rx": {"packets": c[0], "dropped": c[3] if len(c) > 3 else 0},
        "tx": {"packets": c[1], "dropped": c[2]}}} for n, c in counts.items()])


def snapshot(root, name, tg, dut, gtpu_drops=0, arp_discards=0, udp_in=0, t=0.0,
             ndisc_discards=0):
    d = root / name
    d.mkdir(parents=True)
    (d / "tg-links.json").write_text(links(tg))
    (d / "dut-links.json").write_text(links(dut))
    (d / "dut-snmp.txt").write_text(SNMP_HEAD.format(fwd=0, udp_in=udp_in, rcvbuf=gtpu_drops,
                                                     udp_out=0))
    (d / "dut-udp-sockets.txt").write_text(
        "UNCONN 0 0 192.168.13.151:2152 0.0.0.0:*\n\t skmem:(r0,rb212992,t0,tb212992,f0,w0,"
        f"o0,bl0,d{gtpu_drops})\n")
    (d / "arp-cache-stat.txt").write_text(ARP_STAT.format(arp_discards))
    (d / "ndisc-cache-stat.txt").write_text(ARP_STAT.format(ndisc_discards))
    (d / "loadavg").write_text("0.10 0.20 0.30 1/100 1\n")
    (d / "cpu-stat.txt").write_text(f"cpu {int(t * 100)} 0 0 {int(t * 100)} 0 0 0 0 0 0\n")
    (d / "time").write_text(str(t))


ZERO = {"n3": (0, 0, 0), "n4": (0, 0, 0), "n6": (0, 0, 0)}


def report(ul_received, dl_received):
    """One step: 100 measured + 20 warm-up each way, one ARP each way on N3."""
    def frames(name, rx_measured):
        service = 1 if name == "N3" else 0
        return {"name": name, "tx_measured": 100, "tx_warmup": 20, "tx_service": service,
                "rx_measured": rx_measured, "rx_unmeasured": 20, "rx_service": service,
                "rx_rejected": 0}

    def port(f):
        return {"name": f["name"], "ipackets": f["rx_measured"] + 20 + f["rx_service"],
                "opackets": 120 + f["tx_service"], "oerrors": 0}

    fr = [frames("N3", dl_received), frames("N6", ul_received)]
    direction = lambda d, rx: {"direction": d, "loss": {"sent": 100, "lost": 100 - rx}}
    return {"steps": [{"label": "300 B", "ports": [port(f) for f in fr], "frames": fr,
                       "rx_rejected": {},
                       "directions": [direction("uplink", ul_received),
                                      direction("downlink", dl_received)]}]}


class Reconcile(unittest.TestCase):
    def run_case(self, ul_out, dl_in_dropped, gtpu_drops, extra_ul_loss=0, tg_xdp_drops=0,
                 ndisc_discards=0, tester_af_packet=False):
        """An Open5GS step: uplink 121 frames in on n3 (1 ARP), `ul_out` out of ogstun;
        downlink 120 into ogstun of which `dl_in_dropped` dropped. `tg_xdp_drops`: of the
        uplink frames tg's n6 counted received, so many it then dropped (its XDP program's
        redirect to the tester's full AF_XDP ring: rx_dropped, after rx_packets).
        `ndisc_discards`: IPv6 packets the kernel dropped waiting for Neighbor Discovery.
        `tester_af_packet`: the tester reads its veths with af_packet, which took its copy of
        the frames the veth then counted dropped."""
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            counters = root / "counters"
            before = dict(ZERO, ogstun=(0, 0, 0))
            ul_rx = ul_out - extra_ul_loss
            dl_out = 120 - dl_in_dropped
            after_tg = {"n3": (dl_out + 1, 121, 0), "n4": (0, 0, 0),
                        "n6": (ul_rx, 120, 0, tg_xdp_drops)}
            after_dut = {"n3": (121, dl_out + 1, 0), "n4": (0, 0, 0), "n6": (120, ul_rx, 0),
                         "ogstun": (ul_out, dl_out, dl_in_dropped)}
            for name, tg, dut, drops, nd, t in (
                    ("run-before", ZERO, before, 0, 0, 0.0),
                    ("step1-start", ZERO, before, 0, 0, 1.0),
                    ("step1-end", after_tg, after_dut, gtpu_drops, ndisc_discards, 8.0),
                    ("run-after", after_tg, after_dut, gtpu_drops, ndisc_discards, 9.0)):
                snapshot(counters, name, tg, dut, gtpu_drops=drops, t=t, ndisc_discards=nd)
            lost_after = 0 if tester_af_packet else tg_xdp_drops
            r = report(ul_rx - 20 - lost_after, dl_out - 20)
            if tester_af_packet:
                r["config"] = {"n3": "net_af_packet0", "n6": "net_af_packet1"}
            (root / "report.json").write_text(json.dumps(r))
            p = subprocess.run([sys.executable, str(HERE / "reconcile.py"), str(root),
                                str(counters)], capture_output=True, text=True)
            return p.returncode, p.stdout + p.stderr

    def test_equal_counts_end_to_end(self):
        code, out = self.run_case(ul_out=120, dl_in_dropped=0, gtpu_drops=0)
        self.assertEqual(code, 0, out)
        self.assertIn("every count equal from end to end", out)
        self.assertIn("| 300 B | UL  |           120 |        120 |         120 |", out)

    def test_socket_and_tun_drops_explain_the_losses_where_they_happen(self):
        code, out = self.run_case(ul_out=113, dl_in_dropped=4, gtpu_drops=7)
        self.assertEqual(code, 0, out)
        self.assertIn("300 B uplink: veth dut rx -> UPF out: 7 fewer (Open5GS's GTP-U socket "
                      "drops (receive buffer full) 7)", out)
        self.assertIn("300 B downlink: UPF in -> veth dut tx: 4 fewer (ogstun tx_dropped", out)
        self.assertNotIn("UNEXPLAINED", out)

    def test_a_loss_no_counter_explains_is_named_and_fails(self):
        # 2 packets vanish between the UPF's TUN and its N6 link with no counter saying why.
        code, out = self.run_case(ul_out=120, dl_in_dropped=0, gtpu_drops=0, extra_ul_loss=2)
        self.assertEqual(code, 3, out)
        self.assertIn("300 B uplink: UPF out -> veth dut tx: 2 fewer (no counter); "
                      "UNEXPLAINED 2", out)

    def test_a_veth_that_counts_a_frame_and_then_drops_it_explains_the_next_hop(self):
        # af_xdp: tg's n6 counts all 120 uplink frames received, then its XDP redirect drops
        # 5 of them (the tester's AF_XDP ring full): the veth pair lost nothing, the hop from
        # the veth to the tester's port lost 5, and rx_dropped says why.
        code, out = self.run_case(ul_out=120, dl_in_dropped=0, gtpu_drops=0, tg_xdp_drops=5)
        self.assertEqual(code, 0, out)
        self.assertIn("300 B uplink: veth tg rx -> port rx: 5 fewer (veth rx_dropped after "
                      "counting them received (XDP redirect to a full AF_XDP ring) 5)", out)
        self.assertNotIn("veth dut tx -> veth tg rx", out)
        self.assertNotIn("UNEXPLAINED", out)

    def test_ipv6_packets_dropped_waiting_for_neighbor_discovery_explain_the_n6_hop(self):
        # An IPv6 UE's uplink: Open5GS wrote 120 to ogstun, dut's kernel held them for the
        # data network host's neighbour entry and dropped 9 (/proc/net/stat/ndisc_cache).
        code, out = self.run_case(ul_out=120, dl_in_dropped=0, gtpu_drops=0, extra_ul_loss=9,
                                  ndisc_discards=9)
        self.assertEqual(code, 0, out)
        self.assertIn("300 B uplink: UPF out -> veth dut tx: 9 fewer (IPv6 packets dropped "
                      "waiting for Neighbor Discovery (kernel-wide unresolved_discards) 9)", out)
        self.assertNotIn("UNEXPLAINED", out)

    def test_an_af_packet_tester_got_the_frames_its_veth_then_dropped(self):
        # af_packet: tg's n6 counts 120 received and drops 5 after the packet socket took its
        # copy (tagged frames no protocol takes: no 8021q); the tester received all 120.
        code, out = self.run_case(ul_out=120, dl_in_dropped=0, gtpu_drops=0, tg_xdp_drops=5,
                                  tester_af_packet=True)
        self.assertEqual(code, 0, out)
        self.assertIn("every count equal from end to end", out)


if __name__ == "__main__":
    unittest.main()
