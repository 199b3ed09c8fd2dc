#!/usr/bin/env python3
"""Reconciles an upfbench report with the counters of the kernel lab, step by step.

Usage: reconcile.py REPORT_DIR COUNTERS_DIR

REPORT_DIR holds upfbench's report.json; COUNTERS_DIR the snapshots deploy/upflab/counters.sh
took before and after the run (run-before, run-after) and at the edges of each step
(step<N>-start, step<N>-end, upfbench's --step-hook). For each step and direction it follows
the direction's packets (measured and warm-up) from upfbench's sending port to its receiving
port through the veths and the UPF, each count net of the frames on that link that are not the
direction's traffic (upfbench's own service frames: ARP; and what it received there that was not
this direction's: the UPF's kernel's ARP and ICMP), and names the counter that explains each
difference between two points. Exit status 3 when a difference is left unexplained.
"""

import json
import os
import re
import sys
from pathlib import Path


def load_snapshot(path):
    """The counters of one snapshot directory."""
    snap = {"links": {}}
    for ns in ("tg", "dut"):
        links = json.loads((path / f"{ns}-links.json").read_text())
        snap["links"][ns] = {
            l["ifname"]: {
                "rx": l["stats64"]["rx"]["packets"],
                "rx_dropped": l["stats64"]["rx"]["dropped"],
                "tx": l["stats64"]["tx"]["packets"],
                "tx_dropped": l["stats64"]["tx"]["dropped"],
            }
            for l in links
        }
    snap["snmp"] = parse_snmp((path / "dut-snmp.txt").read_text())
    snap["udp_drops"] = parse_socket_drops(path / "dut-udp-sockets.txt")
    snap["arp_unresolved_discards"] = parse_arp_discards(path / "arp-cache-stat.txt")
    snap["ndisc_unresolved_discards"] = parse_arp_discards(path / "ndisc-cache-stat.txt")
    # What dut itself sent on ogstun (router solicitations, MLD): Ip6OutRequests, the locally
    # made; Ip6OutTransmits also counts the IPv6 UEs' downlink that dut forwards to Open5GS.
    snap["ogstun_own"] = parse_snmp6(path / "dut-ogstun-snmp6.txt").get("Ip6OutRequests", 0)
    snap["loadavg"] = (path / "loadavg").read_text().split()[:3]
    snap["cpu"] = parse_cpu((path / "cpu-stat.txt").read_text())
    ticks = path / "upf-cpu-ticks"
    snap["upf_ticks"] = int(ticks.read_text()) if ticks.exists() and ticks.read_text().strip() else None
    snap["time"] = float((path / "time").read_text())
    eupf = path / "eupf-xdp-stats.json"
    if eupf.exists():
        snap["eupf"] = {
            "xdp": json.loads(eupf.read_text()),
            "packets": json.loads((path / "eupf-packet-stats.json").read_text()),
            "ext": sum_cpus(path / "eupf-upf_ext_stat.json"),
            "route": sum_cpus(path / "eupf-upf_route_stat.json"),
        }
    vpp = path / "vpp-interfaces.txt"
    if vpp.exists() and vpp.read_text().strip():
        snap["vpp"] = {
            "interfaces": parse_vpp_interfaces(vpp.read_text()),
            "errors": parse_vpp_errors(path / "vpp-errors.txt"),
        }
    return snap


VPP_HEADER = re.compile(r"^(\S+)\s+(\d+)\s+(up|down)\s+(\d+/\d+/\d+/\d+)\s*(.*)$")
VPP_COUNTER = re.compile(r"^(\S.*?)\s+(\d+)\s*$")


def parse_vpp_interfaces(text):
    """VPP's `show interface`: {interface: {counter: value}} ("rx packets", "tx packets",
    "drops", "rx-miss", "tx-error", ...); an interface with no traffic has no counters."""
    out = {}
    name = None
    for line in text.splitlines():
        m = VPP_HEADER.match(line)
        if m:
            name = m.group(1)
            out[name] = {}
            rest = m.group(5).strip()
        elif name is not None and line[:1].isspace():
            rest = line.strip()
        else:
            continue
        c = VPP_COUNTER.match(rest)
        if c:
            out[name][c.group(1)] = int(c.group(2))
    return out


VPP_ERROR = re.compile(r"^\s*(\d+)\s+(\S+)\s+(.+?)\s+(error|warn|info|unknown)\s*$")


def parse_vpp_errors(path):
    """VPP's `show errors`: {"node: reason": count} (summed over threads), with the severity."""
    if not path.exists():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        m = VPP_ERROR.match(line)
        if m:
            key = f"{m.group(2)}: {m.group(3)} ({m.group(4)})"
            out[key] = out.get(key, 0) + int(m.group(1))
    return out


def vpp_links(interfaces, env=None):
    """VPP's N3 and N6 interfaces: af_packet host-n3/host-n6 or memif1/0, memif2/0; on VLANs
    the sub-interfaces run-upg-vpp.sh made, from the same environment (UPG_VPP_N3_VLAN,
    UPG_VPP_N6_VLAN, UPG_VPP_N3_QINQ, UPG_VPP_ONE_PORT)."""
    env = os.environ if env is None else env
    if "host-n3" not in interfaces:
        return "memif1/0", "memif2/0"
    n3, n6 = "host-n3", "host-n6"
    if env.get("UPG_VPP_N3_QINQ"):
        n3 = f"host-n3.{int(env['UPG_VPP_N3_QINQ']) * 10000 + int(env['UPG_VPP_N3_VLAN'])}"
    elif env.get("UPG_VPP_N3_VLAN"):
        n3 = f"host-n3.{env['UPG_VPP_N3_VLAN']}"
    if env.get("UPG_VPP_N6_VLAN"):
        parent = "host-n3" if env.get("UPG_VPP_ONE_PORT") == "1" else "host-n6"
        n6 = f"{parent}.{env['UPG_VPP_N6_VLAN']}"
    return n3, n6


def vpp_device(name):
    """The interface a VPP sub-interface is on (host-n3.13: host-n3): where its ring's counters
    (rx-miss, tx-error) are."""
    return name.split(".")[0]


def vpp_delta(a, b):
    """b - a of VPP's counters; a counter VPP did not show at `a` (no traffic yet) was 0."""
    return {
        "interfaces": {i: {k: v - a["interfaces"].get(i, {}).get(k, 0) for k, v in c.items()}
                       for i, c in b["interfaces"].items()},
        "errors": {k: v - a["errors"].get(k, 0) for k, v in b["errors"].items()
                   if v != a["errors"].get(k, 0)},
    }


def parse_snmp(text):
    lines = [l.split() for l in text.splitlines() if l]
    out = {}
    for head, values in zip(lines[::2], lines[1::2]):
        for k, v in zip(head[1:], values[1:]):
            out[head[0].rstrip(":") + "." + k] = int(v)
    return out


def parse_socket_drops(path):
    """Drops per local UDP address ("192.168.13.151:2152" -> d of skmem)."""
    if not path.exists():
        return {}
    drops = {}
    local = None
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] in ("UNCONN", "ESTAB"):
            local = fields[3]
        m = re.search(r"skmem:\(.*\bd(\d+)\)", line)
        if m and local:
            drops[local] = int(m.group(1))
    return drops


def parse_snmp6(path):
    if not path.exists():
        return {}
    return {k: int(v) for k, v in (l.split() for l in path.read_text().splitlines() if l.strip())}


def parse_arp_discards(path):
    """unresolved_discards of /proc/net/stat/arp_cache (or ndisc_cache, IPv6's), summed over
    the CPUs (hex columns)."""
    if not path.exists():
        return 0
    lines = path.read_text().split("\n")
    col = lines[0].split().index("unresolved_discards")
    return sum(int(l.split()[col], 16) for l in lines[1:] if l.strip())


def parse_cpu(text):
    """Busy and total jiffies of the whole machine."""
    f = [int(x) for x in text.splitlines()[0].split()[1:]]
    idle = f[3] + f[4]
    return {"busy": sum(f) - idle, "total": sum(f)}


def flatten(value, prefix=""):
    out = {}
    for k, v in value.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                out[f"{prefix}{k}[{i}]"] = x
        else:
            out[f"{prefix}{k}"] = v
    return out


def sum_cpus(path):
    """A per-CPU eBPF map's fields summed over the CPUs."""
    if not path.exists() or not path.read_text().strip():
        return {}
    total = {}
    for entry in json.loads(path.read_text()):
        for k, v in flatten(entry["value"]).items():
            total[k] = total.get(k, 0) + v
    return total


def delta(a, b):
    """b - a, recursively over the numbers."""
    if isinstance(a, dict):
        return {k: delta(a[k], b[k]) for k in b if k in a}
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return b - a
    return b


XDP_ACTIONS = ["aborted", "drop", "pass", "tx", "redirect"]


class Point:
    """One count along a direction's path, net of the frames there that are not its traffic."""

    def __init__(self, name, count, note=""):
        self.name, self.count, self.note = name, count, note


def direction_path(d, step, ports, frames, upf, veths=True):
    """The points of direction `d` ("uplink" or "downlink") in one step's counter deltas `d`;
    without `veths` (memif ports: the veths carry none of the traffic) no veth point."""
    tx_port, rx_port = ("N3", "N6") if d == "uplink" else ("N6", "N3")
    tx_if, rx_if = tx_port.lower(), rx_port.lower()
    ftx, frx = frames[tx_port], frames[rx_port]
    ptx, prx = ports[tx_port], ports[rx_port]
    tg, dut = step["links"]["tg"], step["links"]["dut"]
    # What upfbench put on the sending link besides the direction's packets, and what arrived
    # on the receiving link that was not the direction's.
    tx_other = ftx["tx_service"]
    rx_other = frx["rx_service"] + frx["rx_rejected"]
    # A churn's probes (downlink, one flow per churn session) travel with the direction.
    probes_tx, probes_rx = ftx.get("tx_probes", 0), frx.get("rx_probes", 0)
    pts = [
        Point("upfbench sent", ftx["tx_measured"] + ftx["tx_warmup"] + probes_tx,
              f"{ftx['tx_measured']} measured + {ftx['tx_warmup']} warm-up"
              + (f" + {probes_tx} churn probes" if probes_tx else "")),
        Point("port tx", ptx["opackets"] + ptx["oerrors"] - tx_other,
              f"DPDK {tx_port} opackets {ptx['opackets']} - {tx_other} service"),
    ]
    if veths:
        pts += [
            Point("veth tg tx", tg[tx_if]["tx"] - tx_other,
                  f"tg {tx_if} tx {tg[tx_if]['tx']} - {tx_other} service"),
            Point("veth dut rx", dut[tx_if]["rx"] - tx_other,
                  f"dut {tx_if} rx {dut[tx_if]['rx']} - {tx_other} service"),
        ]
    pts += upf_points(d, step, upf, frames)
    if veths:
        pts += [
            Point("veth dut tx", dut[rx_if]["tx"] - rx_other,
                  f"dut {rx_if} tx {dut[rx_if]['tx']} - {rx_other} not {d} (ARP, ICMP, ...)"),
            Point("veth tg rx", tg[rx_if]["rx"] - rx_other,
                  f"tg {rx_if} rx {tg[rx_if]['rx']} - {rx_other} not {d}"),
        ]
    pts += [
        Point("port rx", prx["ipackets"] - rx_other,
              f"DPDK {rx_port} ipackets {prx['ipackets']} - {rx_other} not {d}"),
        Point("upfbench received", frx["rx_measured"] + frx["rx_unmeasured"] + probes_rx,
              f"{frx['rx_measured']} measured + {frx['rx_unmeasured']} unmeasured"
              + (f" + {probes_rx} churn probes" if probes_rx else "")),
    ]
    return pts


def one_port_path(step, ports, frames, upf):
    """One-port mode (N3 and N6 on one device, over tg's n3): the points that both directions
    cross together, each the two directions' sum: upfbench's, the device's and n3's both ways
    (n6 stays idle), the UPF's in and out (its N3 and N6 figures added)."""
    tg, dut = step["links"]["tg"], step["links"]["dut"]
    port = ports["N3"]  # the one device's counters, on both rows of the report
    f3, f6 = frames["N3"], frames["N6"]
    tx_other = f3["tx_service"] + f6["tx_service"]
    rx_other = f3["rx_service"] + f3["rx_rejected"] + f6["rx_service"] + f6["rx_rejected"]
    sent = sum(f["tx_measured"] + f["tx_warmup"] + f.get("tx_probes", 0) for f in (f3, f6))
    got = sum(f["rx_measured"] + f["rx_unmeasured"] + f.get("rx_probes", 0) for f in (f3, f6))
    upf_in, upf_out = Point("UPF in", 0, ""), Point("UPF out", 0, "")
    for d in ("uplink", "downlink"):
        for p in upf_points(d, step, upf, frames):
            q = upf_in if p.name == "UPF in" else upf_out
            q.count += p.count
            q.note = f"{q.note} + {p.note}" if q.note else p.note
    return [
        Point("upfbench sent", sent, "both directions' measured + warm-up"),
        Point("port tx", port["opackets"] + port["oerrors"] - tx_other,
              f"DPDK N3 and N6 opackets {port['opackets']} - {tx_other} service"),
        Point("veth tg tx", tg["n3"]["tx"] - tx_other, f"tg n3 tx {tg['n3']['tx']} - {tx_other}"),
        Point("veth dut rx", dut["n3"]["rx"] - tx_other,
              f"dut n3 rx {dut['n3']['rx']} - {tx_other}"),
    ] + [p for p in (upf_in, upf_out) if p.note] + [
        Point("veth dut tx", dut["n3"]["tx"] - rx_other,
              f"dut n3 tx {dut['n3']['tx']} - {rx_other}"),
        Point("veth tg rx", tg["n3"]["rx"] - rx_other, f"tg n3 rx {tg['n3']['rx']} - {rx_other}"),
        Point("port rx", port["ipackets"] - rx_other,
              f"DPDK N3 and N6 ipackets {port['ipackets']} - {rx_other} not traffic"),
        Point("upfbench received", got, "both directions' measured + unmeasured"),
    ]


def upf_points(d, step, upf, frames=None):
    """The UPF's own counts of direction `d`: what it took in and what it put out."""
    if upf == "eupf":
        ext = step["eupf"]["ext"]
        c = "upf_n3_n6_counter."
        if c + "rx_n3" not in ext:
            # Without bpftool only the REST API's totals were read: no per-direction figure.
            return []
        if d == "uplink":
            return [Point("UPF in", ext[c + "rx_n3"], "eUPF rx_n3 (GTP-U to its N3 address)"),
                    Point("UPF out", ext[c + "tx_n6"], "eUPF tx_n6 (decapsulated, routed)")]
        return [Point("UPF in", ext[c + "rx_n6"], "eUPF rx_n6 (IPv4 not GTP-U)"),
                Point("UPF out", ext[c + "tx_n3"], "eUPF tx_n3 (encapsulated, routed)")]
    if upf == "upg-vpp":
        ifs = step["vpp"]["interfaces"]
        n3, n6 = vpp_links(ifs)
        rx_if, tx_if = (n3, n6) if d == "uplink" else (n6, n3)
        rx_port, tx_port = ("N3", "N6") if d == "uplink" else ("N6", "N3")
        # What VPP took in on the receiving interface, net of upfbench's own frames there
        # (ARP); what it put out, net of what upfbench got there that was not this direction's
        # (VPP's ARP).
        other_in = frames[rx_port]["tx_service"]
        other_out = frames[tx_port]["rx_service"] + frames[tx_port]["rx_rejected"]
        rx = ifs.get(rx_if, {}).get("rx packets", 0)
        tx = ifs.get(tx_if, {}).get("tx packets", 0)
        return [Point("UPF in", rx - other_in, f"VPP {rx_if} rx packets {rx} - {other_in} service"),
                Point("UPF out", tx - other_out,
                      f"VPP {tx_if} tx packets {tx} - {other_out} not {d} (its ARP)")]
    tun = step["links"]["dut"].get("ogstun")
    if upf == "open5gs" and tun:
        if d == "uplink":
            return [Point("UPF out", tun["rx"], "ogstun rx: decapsulated packets Open5GS wrote")]
        own = step["ogstun_own"]
        return [Point("UPF in", tun["tx"] + tun["tx_dropped"] - own,
                      f"ogstun tx {tun['tx']} + tx_dropped {tun['tx_dropped']} - {own} of dut's "
                      "own IPv6 (router solicitations, MLD)")]
    return []


def explain(d, a, b, step, upf, counted_then_dropped=0):
    """Counters that account for the difference a.count - b.count between consecutive points.

    counted_then_dropped: the receiving veth's drops that the pair before (veth tx -> veth rx)
    did not need, because the veth counted those frames received before dropping them: a veth
    with an XDP program (net_af_xdp, eUPF) counts a frame in rx_packets and then, when its
    XDP_REDIRECT to an AF_XDP socket finds the socket's ring full, in rx_dropped too. They
    explain the next pair (veth rx -> whoever reads that veth)."""
    lost = a.count - b.count
    tx_if = "n3" if d == "uplink" else "n6"
    rx_if = "n6" if d == "uplink" else "n3"
    tg, dut = step["links"]["tg"], step["links"]["dut"]
    found = []
    if (a.name, b.name) == ("veth tg tx", "veth dut rx"):
        found.append(("veth drops", min(max(lost, 0),
                                        tg[tx_if]["tx_dropped"] + dut[tx_if]["rx_dropped"])))
    if (a.name, b.name) == ("veth dut tx", "veth tg rx"):
        found.append(("veth drops", min(max(lost, 0),
                                        dut[rx_if]["tx_dropped"] + tg[rx_if]["rx_dropped"])))
    if counted_then_dropped:
        found.append(("veth rx_dropped after counting them received (XDP redirect to a full "
                      "AF_XDP ring)", counted_then_dropped))
    if upf == "open5gs" and d == "uplink" and (a.name, b.name) == ("veth dut rx", "UPF out"):
        found.append(("Open5GS's GTP-U socket drops (receive buffer full)",
                      step["udp_drops"].get("192.168.13.151:2152", 0)))
    if upf == "open5gs" and d == "downlink" and (a.name, b.name) == ("UPF in", "veth dut tx"):
        found.append(("ogstun tx_dropped (Open5GS did not read its TUN in time)",
                      dut["ogstun"]["tx_dropped"]))
    # The UPF's kernel forwards (Open5GS always, eUPF for a flow's first packets): what it
    # holds while it resolves the next hop's MAC beyond 3 packets is dropped. The counters are
    # the kernel's, of both directions at once: each direction takes at most what it lost.
    if b.name == "veth dut tx":
        shared = lambda n: min(n, max(lost, 0))
        found.append(("packets dropped waiting for ARP (kernel-wide unresolved_discards)",
                      shared(step["arp_unresolved_discards"])))
        found.append(("IPv6 packets dropped waiting for Neighbor Discovery (kernel-wide "
                      "unresolved_discards)", shared(step.get("ndisc_unresolved_discards", 0))))
    if upf == "eupf" and (a.name, b.name) == ("UPF in", "UPF out"):
        xdp = step["eupf"]["xdp"]
        found.append(("eUPF XDP drop + aborted", xdp["drop"] + xdp["aborted"]))
    if upf == "upg-vpp":
        ifs = step["vpp"]["interfaces"]
        n3, n6 = vpp_links(ifs)
        rx_vpp, tx_vpp = (n3, n6) if d == "uplink" else (n6, n3)
        if (a.name, b.name) in (("veth dut rx", "UPF in"), ("port tx", "UPF in")):
            found.append((f"VPP {vpp_device(rx_vpp)} rx-miss (its receive ring full)",
                          ifs.get(vpp_device(rx_vpp), {}).get("rx-miss", 0)))
        if (a.name, b.name) == ("UPF in", "UPF out"):
            found.append((f"VPP {rx_vpp} drops", ifs.get(rx_vpp, {}).get("drops", 0)))
        if (a.name, b.name) in (("UPF out", "veth dut tx"), ("UPF out", "port rx")):
            found.append((f"VPP {vpp_device(tx_vpp)} tx-error",
                          ifs.get(vpp_device(tx_vpp), {}).get("tx-error", 0)))
            # What its output node could not hand over (memif: "no free tx slots", the
            # receiver's ring full): counted in "tx packets" and dropped.
            errs = step["vpp"]["errors"]
            for key, n in sorted(errs.items()):
                if key.startswith(f"{tx_vpp}-tx: ") and n:
                    found.append((f"VPP {key.rsplit(' (', 1)[0]}", n))
    total = sum(n for _, n in found)
    # A churn session's probes sent before the UPF had its rules are dropped by the UPF, which
    # counts them nowhere (Open5GS, eUPF): the report's probes lost (sent - received) bound
    # what is left open at the UPF's own pair of points; some of them may be among the drops
    # counted above (a full TUN queue drops probes and traffic alike).
    churn = step.get("churn_probes_lost", 0)
    upf_pairs = {("UPF in", "UPF out"), ("veth dut rx", "UPF in"), ("UPF in", "veth dut tx"),
                 ("veth dut rx", "veth dut tx"), ("port tx", "port rx")}
    left = lost - total
    if d == "downlink" and (a.name, b.name) in upf_pairs and 0 < left <= churn:
        found.append((f"churn probes the UPF dropped uncounted (of {fmt(churn)} probes the "
                      "report lost)", left))
        total += left
    return lost, found, total


def veth_drops_after_count(d, a, b, step, af_packet=None):
    """The receiving veth's drops beyond what the pair a -> b (a veth's tx -> its peer's rx)
    lost: frames the receiving veth counted received and then dropped (its XDP program's
    redirect to a full AF_XDP ring); 0 for any other pair, and where the receiver reads the
    veth through af_packet (`af_packet`: {"tg": bool, "dut": bool}): its packet socket took
    its copy before the kernel dropped the frame for want of a protocol (a tagged frame's
    802.1Q EtherType with no 8021q module: every QinQ frame)."""
    af_packet = af_packet or {}
    tx_if = "n3" if d == "uplink" else "n6"
    rx_if = "n6" if d == "uplink" else "n3"
    tg, dut = step["links"]["tg"], step["links"]["dut"]
    if (a.name, b.name) == ("veth tg tx", "veth dut rx") and not af_packet.get("dut"):
        drops = tg[tx_if]["tx_dropped"] + dut[tx_if]["rx_dropped"]
    elif (a.name, b.name) == ("veth dut tx", "veth tg rx") and not af_packet.get("tg"):
        drops = dut[rx_if]["tx_dropped"] + tg[rx_if]["rx_dropped"]
    else:
        return 0
    return max(0, drops - max(a.count - b.count, 0))


def one_port_rows(step, pts, rows, notes, raw):
    """The one-port row ("UL+DL") of `pts` into `rows`, its differences into `notes` (none
    explained by a counter), its arithmetic into `raw`; returns how many differences."""
    by = {p.name: p for p in pts}
    loss = [x["loss"] for x in step["directions"]]
    rows.append([step["label"], "UL+DL"] + [
        fmt(by[n].count) if n in by else "-" for n in
        ("upfbench sent", "veth tg tx", "veth dut rx", "UPF in", "UPF out", "veth dut tx",
         "veth tg rx", "upfbench received")] +
        [fmt(sum(x["sent"] for x in loss)), fmt(sum(x["lost"] for x in loss))])
    differences = 0
    for a, b in zip(pts, pts[1:]):
        lost = a.count - b.count
        if lost:
            differences += 1
            notes.append(f"{step['label']} one port: {a.name} -> {b.name}: {fmt(lost)} "
                         f"{'fewer' if lost > 0 else 'more'} (no counter); UNEXPLAINED "
                         f"{fmt(lost)}")
    raw.extend(f"{step['label']} one port: {p.name} {fmt(p.count)} = {p.note}" for p in pts)
    return differences


def fmt(n):
    return f"{n:,}"


def main():
    report_dir, counters_dir = Path(sys.argv[1]), Path(sys.argv[2])
    report = json.loads((report_dir / "report.json").read_text())
    snaps = {p.name: load_snapshot(p) for p in counters_dir.iterdir() if (p / "time").exists()}
    before = snaps.get("run-before", {})
    if "eupf" in before:
        upf = "eupf"
    elif "vpp" in before:
        upf = "upg-vpp"
    elif "ogstun" in before.get("links", {}).get("dut", {}):
        upf = "open5gs"
    else:
        upf = "unknown"
    # memif ports (UPG-VPP's memif): nothing of the steps crosses the veths.
    veths = not any("memif" in str(report.get("config", {}).get(p, "")) for p in ("n3", "n6"))
    out = []
    unexplained = 0
    rows = []
    notes = []
    others = []
    raw = []
    for i, step in enumerate(report["steps"], 1):
        start, end = snaps.get(f"step{i}-start"), snaps.get(f"step{i}-end")
        if not start or not end:
            notes.append(f"{step['label']}: no counters at the step's edges (no --step-hook?)")
            continue
        dlt = {
            "links": delta(start["links"], end["links"]),
            "udp_drops": delta(start["udp_drops"], end["udp_drops"]),
            "snmp": delta(start["snmp"], end["snmp"]),
            "arp_unresolved_discards": end["arp_unresolved_discards"]
            - start["arp_unresolved_discards"],
            "ndisc_unresolved_discards": end["ndisc_unresolved_discards"]
            - start["ndisc_unresolved_discards"],
            "ogstun_own": end["ogstun_own"] - start["ogstun_own"],
        }
        step_upf = upf
        if upf == "upg-vpp":
            if "vpp" in start and "vpp" in end:
                dlt["vpp"] = vpp_delta(start["vpp"], end["vpp"])
            else:
                notes.append(f"{step['label']}: VPP's counters missing at the step's edges")
                step_upf = "unknown"
        if upf == "eupf":
            if "eupf" in start and "eupf" in end:
                dlt["eupf"] = delta(start["eupf"], end["eupf"])
            else:
                # It stopped answering (or died) during the step: no counters of its own.
                notes.append(f"{step['label']}: eUPF's counters missing at the step's edges")
                step_upf = "unknown"
        ports = {p["name"]: p for p in step.get("ports", [])}
        frames = {f["name"]: f for f in step.get("frames", [])}
        if not frames:
            notes.append(f"{step['label']}: the report has no frames by kind (upfbench too old)")
            continue
        for p in ("N3", "N6"):
            f = frames[p]
            kinds = ", ".join(f"{k.split(' ', 1)[1]} {v}" for k, v in step.get("rx_rejected", {}).items()
                              if k.startswith(p + " "))
            others.append([step["label"], p, f["tx_service"], f["rx_service"], f["rx_rejected"],
                           kinds or "-", f["tx_warmup"], f["rx_unmeasured"]])
        act = (step.get("churn") or {}).get("activation") or {}
        dlt["churn_probes_lost"] = act.get("probes_sent", 0) - act.get("probes_received", 0)
        cfg = report.get("config", {})
        one_port = cfg.get("n3") is not None and cfg.get("n3") == cfg.get("n6")
        for d in ("uplink", "downlink"):
            pts = direction_path(d, dlt, ports, frames, step_upf, veths and not one_port)
            if one_port:
                # The device's and n3's counts are both directions': in the row below.
                pts = [p for p in pts if p.name not in ("port tx", "port rx")]
            by = {p.name: p for p in pts}
            rep = next(x for x in step["directions"] if x["direction"] == d)
            rows.append([step["label"], "UL" if d == "uplink" else "DL"] + [
                fmt(by[n].count) if n in by else "-" for n in
                ("upfbench sent", "veth tg tx", "veth dut rx", "UPF in", "UPF out",
                 "veth dut tx", "veth tg rx", "upfbench received")] +
                [fmt(rep["loss"]["sent"]), fmt(rep["loss"]["lost"])])
            carry = 0
            for a, b in zip(pts, pts[1:]):
                lost, found, total = explain(d, a, b, dlt, step_upf, carry)
                receivers = {"dut": step_upf == "upg-vpp",
                             "tg": str(report.get("config", {}).get(
                                 "n6" if d == "uplink" else "n3", "")).startswith(
                                 "net_af_packet")}
                carry = veth_drops_after_count(d, a, b, dlt, receivers)
                if lost == 0 and total == 0:
                    continue
                why = "; ".join(f"{name} {fmt(n)}" for name, n in found if n) or "no counter"
                left = lost - total
                line = (f"{step['label']} {d}: {a.name} -> {b.name}: {fmt(lost)} "
                        f"{'fewer' if lost > 0 else 'more'} ({why})")
                if left:
                    unexplained += 1
                    line += f"; UNEXPLAINED {fmt(left)}"
                notes.append(line)
            for p in pts:
                raw.append(f"{step['label']} {d}: {p.name} {fmt(p.count)} = {p.note}")
        if one_port and veths:
            unexplained += one_port_rows(step, one_port_path(dlt, ports, frames, step_upf),
                                         rows, notes, raw)
        cpu = delta(start["cpu"], end["cpu"])
        upf_cpu = ""
        if start["upf_ticks"] is not None and end["upf_ticks"] is not None:
            secs = end["time"] - start["time"]
            # /proc/PID/stat counts in ticks of 1/100 s.
            upf_cpu = f", UPF process {(end['upf_ticks'] - start['upf_ticks']) / secs:.0f}% of a CPU"
            if upf == "eupf":
                upf_cpu += " (its XDP datapath runs in the kernel, outside this figure)"
        raw.append(f"{step['label']}: machine busy {100 * cpu['busy'] / max(cpu['total'], 1):.0f}% "
                   f"of all CPUs over the step{upf_cpu}; load average at its start "
                   f"{' '.join(start['loadavg'])}")
        if step_upf == "eupf":
            e = dlt["eupf"]
            raw.append(f"{step['label']}: eUPF XDP actions " + ", ".join(
                f"{k} {fmt(e['xdp'][k])}" for k in XDP_ACTIONS) + "; packets " + ", ".join(
                f"{k} {fmt(v)}" for k, v in e["packets"].items() if v) + "; routing " + ", ".join(
                f"{k} {fmt(v)}" for k, v in e["route"].items() if v))
        if step_upf == "upg-vpp":
            v = dlt["vpp"]
            raw.append(f"{step['label']}: VPP interfaces " + "; ".join(
                f"{i} " + ", ".join(f"{k} {fmt(n)}" for k, n in c.items() if n and "bytes" not in k)
                for i, c in sorted(v["interfaces"].items()) if any(c.values())))
            raw.append(f"{step['label']}: VPP errors " + (", ".join(
                f"{k} {fmt(n)}" for k, n in sorted(v["errors"].items())) or "none"))
        if upf == "open5gs":
            s = dlt["snmp"]
            raw.append(f"{step['label']}: dut UDP InDatagrams {fmt(s['Udp.InDatagrams'])}, "
                       f"RcvbufErrors {fmt(s['Udp.RcvbufErrors'])}, OutDatagrams "
                       f"{fmt(s['Udp.OutDatagrams'])}; IP ForwDatagrams {fmt(s['Ip.ForwDatagrams'])}, "
                       f"OutDiscards {fmt(s['Ip.OutDiscards'])}; socket drops {dlt['udp_drops']}")
    out.append(f"UPF: {upf}; upfbench report of {report.get('started', '?')}, profile "
               f"{report.get('config', {}).get('profile', '?')}, {len(report['steps'])} step(s)\n")
    out.append("Packets of each direction (measured + warm-up) at each point, net of other frames\n")
    out.append(table(["Step", "Dir", "upfbench sent", "veth tg tx", "veth dut rx", "UPF in",
                      "UPF out", "veth dut tx", "veth tg rx", "upfbench received",
                      "measured sent", "measured lost"], rows))
    out.append("\nWhere the counts differ\n")
    if not report["steps"]:
        notes.append("no step was measured (see the report's warnings)")
    out.extend(notes or ["every count equal from end to end"])
    out.append("\nFrames that are not a direction's packets (subtracted above), and the warm-up\n")
    out.append(table(["Step", "Port", "upfbench service tx", "service rx", "rejected rx",
                      "rejected kinds", "warm-up tx", "unmeasured rx"], others))
    out.append("\nEach point's arithmetic\n")
    out.extend(raw)
    out.append(outside(report, snaps, upf))
    print("\n".join(out))
    return 3 if unexplained else 0


def outside(report, snaps, upf):
    """What the links carried outside the steps (association, ARP resolution, teardown)."""
    n = len(report["steps"])
    if "run-before" not in snaps or "run-after" not in snaps:
        return ""
    whole = delta(snaps["run-before"]["links"], snaps["run-after"]["links"])
    inside = {ns: {i: {k: 0 for k in v} for i, v in links.items()} for ns, links in whole.items()}
    for i in range(1, n + 1):
        a, b = snaps.get(f"step{i}-start"), snaps.get(f"step{i}-end")
        if a and b:
            d = delta(a["links"], b["links"])
            for ns in inside:
                for ifc in inside[ns]:
                    for k in inside[ns][ifc]:
                        inside[ns][ifc][k] += d.get(ns, {}).get(ifc, {}).get(k, 0)
    lines = ["\nOutside the steps (before the first, between, after the last: PFCP on n4, "
             "ARP resolution)\n"]
    rows = []
    for ns in ("tg", "dut"):
        for ifc in sorted(whole[ns]):
            if ifc == "lo":
                continue
            w, s = whole[ns][ifc], inside[ns][ifc]
            rows.append([ns, ifc, fmt(w["tx"]), fmt(s["tx"]), fmt(w["tx"] - s["tx"]),
                         fmt(w["rx"]), fmt(s["rx"]), fmt(w["rx"] - s["rx"])])
    lines.append(table(["ns", "link", "tx whole run", "tx in steps", "tx outside",
                        "rx whole run", "rx in steps", "rx outside"], rows))
    c = report.get("control")
    if c:
        lines.append(f"\nPFCP (n4): requests {c['requests_sent']}, retransmissions "
                     f"{c['retransmissions']}, UPF heartbeats answered {c['heartbeats_answered']}, "
                     f"release {c['release']}")
    return "\n".join(lines)


def table(head, rows, left=2):
    """An aligned Markdown table, the first `left` columns to the left."""
    cells = [head] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]

    def line(r):
        return "| " + " | ".join(c.ljust(w) if i < left else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(r, widths))) + " |"

    sep = "|" + "|".join(":" + "-" * (w + 1) if i < left else "-" * (w + 1) + ":"
                         for i, w in enumerate(widths)) + "|"
    return "\n".join([line(head), sep] + [line(r) for r in cells[1:]])


if __name__ == "__main__":
    sys.exit(main())
