#!/usr/bin/env python3
"""Reconciles a run over two agents in the kernel lab (deploy/upflab-agents.sh), hop by hop.

Usage: reconcile_agents.py [--upf KIND] REPORT_DIR RUN_DIR

REPORT_DIR holds the coordinator's report.json (the merged steps and each agent's section);
RUN_DIR what deploy/upflab-agents.sh kept of the run: counters/run-before and run-after
(deploy/upflab/counters.sh), agents/<agent>-report.json (each agent's own report of the run: its
ports and frames by kind in each step) or agents/<agent>-step<N>.json (its result of step N
from its API), and captures/ (what is not traffic on both ends of the four
links, the downlink G-PDUs on n3a and n3b by destination, the sessions' gNB addresses on n4).

It checks, in this order:
1. the merged report is the sum of the agents' sections, step by step and direction by
   direction (sent, received, lost), and of their own results (frames by kind, ports);
2. each UE's session carries its own agent's N3 address as gNB (the PFCP establishments'
   Outer Header Creation) and the UPF sent each agent's downlink to that agent's gNB only (the
   G-PDUs on n3a went to 192.168.13.131, on n3b to .132);
3. each agent's packets of each direction (measured + warm-up, every step together: the counters
   are read at the run's edges, --step-hook being refused with --cluster) from its sending port
   through its links to its receiving port, each count net of the frames that are not traffic
   (the captures: ARP, ICMP, ...), with the UPF's own counters for both agents together.
Exit status 3 when a difference is left unexplained.
"""

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reconcile import XDP_ACTIONS, delta, fmt, load_snapshot, table, upf_points  # noqa: E402

AGENTS = {"gnb-a": {"n3": "n3a", "n6": "n6a", "gnb": "192.168.13.131", "dn": "192.168.16.152"},
          "gnb-b": {"n3": "n3b", "n6": "n6b", "gnb": "192.168.13.132", "dn": "192.168.16.153"}}
DIRS = ("uplink", "downlink")


def take_agent_reports(run_dir, reports_dir, window):
    """Copies each agent's own report of this run (the one that started within `window`, under
    REPORTS_DIR/<agent>-reports/) into RUN_DIR/agents/<agent>-report.json. An agent writes it
    when its segment is replaced or it stops, not when the coordinator ends."""
    for name in AGENTS:
        for p in sorted((reports_dir / f"{name}-reports").glob("*/report.json")):
            started = json.loads(p.read_text()).get("started_unix_ms", 0) / 1e3
            if window[0] <= started <= window[1]:
                (run_dir / "agents").mkdir(exist_ok=True)
                shutil.copy(p, run_dir / "agents" / f"{name}-report.json")


def agent_results(run_dir, name):
    """The agent's own figures, step by step, as results of one pair each: from its own
    report of the run (agents/<name>-report.json, which `upfbench agent --reports` writes per
    segment: every step), else from GET /v1/steps/N/result (agents/<name>-step<N>.json: the
    agent keeps its last step's only)."""
    own = run_dir / "agents" / f"{name}-report.json"
    if own.exists():
        steps = json.loads(own.read_text())["steps"]
        return {i: {"step": i, "pairs": [{"frames": st.get("frames", []),
                                          "ports": st.get("ports", [])}]}
                for i, st in enumerate(steps, 1)}
    out = {}
    for p in sorted((run_dir / "agents").glob(f"{name}-step*.json")):
        r = json.loads(p.read_text())
        out[r["step"]] = r
    return out


def pair_sum(result, key):
    """{port name: {counter: value}} of `key` ("ports" or "frames") summed over the pairs."""
    out = {}
    for pair in result["pairs"]:
        for item in pair.get(key, []):
            acc = out.setdefault(item["name"], {})
            for k, v in item.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    acc[k] = acc.get(k, 0) + v
    return out


def other_frames(tg_path, dut_path, mac, window):
    """Frames of a link that are not traffic: (sent by tg, received by tg), and what they were
    (protocol counts). What tg sent is read from dut's end (upfbench's af_packet frames bypass
    the qdisc and reach no other packet socket of tg), what it received from tg's end (the same
    for the reflector's frames in dut)."""
    if not tg_path.exists() or not dut_path.exists():
        return None
    sent, got, kinds = 0, 0, Counter()
    for path, ours in ((dut_path, True), (tg_path, False)):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            t, src, proto, *_ = line.split("\t") + ["", ""]
            # The capture runs a little longer than the counters' window: only the frames
            # between the two readings.
            if not window[0] <= float(t) <= window[1]:
                continue
            if (src.lower() == mac.lower()) != ours:
                continue
            if ours:
                sent += 1
                kinds[f"tx {proto}"] += 1
            else:
                got += 1
                kinds[f"rx {proto}"] += 1
    return sent, got, kinds


def check_merge(report, results, lines):
    """1: merged = Σ agents' sections = Σ their own results. Returns the differences."""
    bad = 0
    sections = {a["name"]: a for a in report.get("agents", [])}
    rows = []
    for i, step in enumerate(report["steps"], 1):
        for d in DIRS:
            rep = next((x for x in step["directions"] if x["direction"] == d), None)
            if rep is None:
                continue
            merged = (rep["loss"]["sent"], rep["loss"]["unique"], rep["loss"]["lost"])
            parts = []
            for name in AGENTS:
                st = next(s for s in sections[name]["steps"] if s["step"] == i)
                f = next(x for x in st["figures"] if x["direction"] == d)
                parts.append((f["sent"], f["received"], f["lost"]))
            total = tuple(map(sum, zip(*parts)))
            ok = total == merged
            bad += not ok
            rows.append([step["label"], d, *(f"{fmt(p[0])} / {fmt(p[1])} / {fmt(p[2])}"
                                             for p in parts),
                         f"{fmt(merged[0])} / {fmt(merged[1])} / {fmt(merged[2])}",
                         "= a + b" if ok else f"DIFFERS from a + b {total}"])
        # The frames by kind: merged (by port name) against the agents' own results.
        frames = {f["name"]: f for f in step.get("frames", [])}
        own = [pair_sum(results[n][i], "frames") for n in AGENTS if i in results[n]]
        if len(own) == len(AGENTS):
            for port, f in frames.items():
                for k, v in f.items():
                    if isinstance(v, int):
                        s = sum(o.get(port, {}).get(k, 0) for o in own)
                        if s != v:
                            bad += 1
                            lines.append(f"{step['label']}: merged frames {port} {k} {fmt(v)} "
                                         f"!= agents' own {fmt(s)}")
        else:
            lines.append(f"{step['label']}: an agent's own result is missing; frames not checked")
    lines.insert(0, table(["Step", "Dir", "gnb-a sent / received / lost",
                           "gnb-b sent / received / lost", "merged", "check"], rows))
    if not bad:
        lines.append("every merged count is the sum of the two agents' (sections and own "
                     "frames by kind)")
    return bad


def check_gnbs(run_dir, report, lines):
    """2: each session's gNB, each link's downlink destination. Returns the differences."""
    bad = 0
    cap = run_dir / "captures"
    est = cap / "tg-n4-establishments.txt"
    ues = report.get("config", {}).get("sessions")
    if est.exists() and est.read_text().strip():
        by_gnb = {}
        for line in est.read_text().splitlines():
            ue, _, ohc = line.partition("\t")
            for u, g in zip(ue.split(","), ohc.split(",")):
                by_gnb.setdefault(g, []).append(u)
        for gnb, us in sorted(by_gnb.items()):
            addrs = sorted(us, key=lambda a: tuple(int(x) for x in a.split(".")))
            lines.append(f"PFCP establishments with gNB {gnb} in the downlink FAR: {len(us)} "
                         f"sessions, UEs {addrs[0]} to {addrs[-1]}")
        for name, a in AGENTS.items():
            if a["gnb"] not in by_gnb:
                bad += 1
                lines.append(f"no session has {name}'s gNB address {a['gnb']}")
        if ues:
            lines.append(f"(the profile's sessions: {ues})")
    else:
        lines.append("no PFCP establishment captured on n4")
    for name, a in AGENTS.items():
        p = cap / f"tg-{a['n3']}-gtpu.txt"
        if not p.exists():
            continue
        dsts = Counter()
        teids = Counter()
        for line in p.read_text().splitlines():
            f = line.split()
            if len(f) >= 2:
                dsts[f[1]] += int(f[0])
                teids[f[1]] += 1
        text = ", ".join(f"{fmt(n)} to {d} ({teids[d]} TEIDs)" for d, n in sorted(dsts.items()))
        wrong = sum(n for d, n in dsts.items() if d != a["gnb"])
        bad += wrong > 0
        lines.append(f"{a['n3']} ({name}'s link): downlink G-PDUs from the UPF "
                     f"{text or 'none'}" + (f"; {fmt(wrong)} NOT TO ITS gNB" if wrong else ""))
    return bad


def counters_of(steps):
    """Frames by kind and port counters summed over `steps` (each a list of per-port dicts
    under "frames" and "ports"): ({"N3.tx_measured": n, ...}, {"N3.opackets": n, ...})."""
    fr, po = Counter(), Counter()
    for frames, ports in steps:
        for port, c in frames.items():
            for k, v in c.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    fr[f"{port}.{k}"] += v
        for port, c in ports.items():
            for k, v in c.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    po[f"{port}.{k}"] += v
    return fr, po


def points(d, fr, po, links, others, ifs):
    """The points of direction `d` for the tester counts `fr`, `po` over the links `ifs`
    ([(n3, n6)], one per agent): [(point, count, note)], and what explains differences."""
    tx_port, rx_port = ("N3", "N6") if d == "uplink" else ("N6", "N3")
    tx_ifs = [n3 if d == "uplink" else n6 for n3, n6 in ifs]
    rx_ifs = [n6 if d == "uplink" else n3 for n3, n6 in ifs]
    tg, dut = links["tg"], links["dut"]
    o_tx = sum(others[i][0] for i in tx_ifs)  # sent by tg on the sending links: ARP, ...
    o_rx = sum(others[i][1] for i in rx_ifs)  # received by tg on the receiving links

    def link(ns, ifcs, k):
        return sum(ns[i][k] for i in ifcs)

    names = "+".join(tx_ifs), "+".join(rx_ifs)
    sent = fr[f"{tx_port}.tx_measured"] + fr[f"{tx_port}.tx_warmup"]
    svc_tx, svc_rx = fr[f"{tx_port}.tx_service"], fr[f"{rx_port}.rx_service"]
    rej = fr[f"{rx_port}.rx_rejected"]
    got = fr[f"{rx_port}.rx_measured"] + fr[f"{rx_port}.rx_unmeasured"]
    pts = [
        ("agent sent", sent, f"{fmt(fr[f'{tx_port}.tx_measured'])} measured + "
                             f"{fmt(fr[f'{tx_port}.tx_warmup'])} warm-up"),
        ("port tx", po[f"{tx_port}.opackets"] + po[f"{tx_port}.oerrors"] - svc_tx,
         f"DPDK {tx_port} opackets {fmt(po[f'{tx_port}.opackets'])} - {svc_tx} service"),
        ("tg link tx", link(tg, tx_ifs, "tx") - o_tx,
         f"tg {names[0]} tx {fmt(link(tg, tx_ifs, 'tx'))} - {o_tx} not traffic"),
        ("dut link rx", link(dut, tx_ifs, "rx") - o_tx,
         f"dut {names[0]} rx {fmt(link(dut, tx_ifs, 'rx'))} - {o_tx} not traffic"),
        ("dut link tx", link(dut, rx_ifs, "tx") - o_rx,
         f"dut {names[1]} tx {fmt(link(dut, rx_ifs, 'tx'))} - {o_rx} not traffic"),
        ("tg link rx", link(tg, rx_ifs, "rx") - o_rx,
         f"tg {names[1]} rx {fmt(link(tg, rx_ifs, 'rx'))} - {o_rx} not traffic"),
        ("port rx", po[f"{rx_port}.ipackets"] - svc_rx,
         f"DPDK {rx_port} ipackets {fmt(po[f'{rx_port}.ipackets'])} - {svc_rx} service"),
        ("agent received", got + rej, f"{fmt(fr[f'{rx_port}.rx_measured'])} measured + "
                                      f"{fmt(fr[f'{rx_port}.rx_unmeasured'])} unmeasured + "
                                      f"{fmt(rej)} rejected"),
    ]
    return pts, {"rejected": rej, "tx_ifs": tx_ifs, "rx_ifs": rx_ifs}


def explain(a, b, lost, links, extra, whole=None, upf=None, d=None):
    """Counters that account for `lost` between consecutive points a -> b: the veths' drops;
    for both agents together (`whole`: the run's counter deltas) the UPF's and dut's kernel's,
    which are not per agent."""
    tg, dut = links["tg"], links["dut"]
    found = []
    if whole is not None:
        if upf == "open5gs" and d == "uplink" and (a, b) == ("dut link rx", "UPF out"):
            found.append(("Open5GS's GTP-U socket drops (receive buffer full)",
                          whole["udp_drops"].get("192.168.13.151:2152", 0)))
        if upf == "open5gs" and d == "downlink" and (a, b) == ("UPF in", "dut link tx"):
            found.append(("ogstun tx_dropped", dut.get("ogstun", {}).get("tx_dropped", 0)))
        if upf == "eupf" and (a, b) == ("UPF in", "UPF out") and "eupf" in whole:
            xdp = whole["eupf"]["xdp"]
            found.append(("eUPF XDP drop + aborted", xdp["drop"] + xdp["aborted"]))
        if b == "dut link tx":
            found.append(("packets dropped waiting for ARP (kernel-wide unresolved_discards)",
                          whole["arp_unresolved_discards"]))
    if (a, b) == ("tg link tx", "dut link rx"):
        found.append(("veth drops", sum(tg[i]["tx_dropped"] + dut[i]["rx_dropped"]
                                        for i in extra["tx_ifs"])))
    if (a, b) == ("dut link tx", "tg link rx"):
        found.append(("veth drops", sum(dut[i]["tx_dropped"] + tg[i]["rx_dropped"]
                                        for i in extra["rx_ifs"])))
    # Each counter explains at most what is left of the difference.
    out, left = [], max(lost, 0)
    for k, n in found:
        if n and left:
            out.append((k, min(n, left)))
            left -= min(n, left)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upf", default="unknown")
    ap.add_argument("--agent-reports", type=Path,
                    help="the directory holding <agent>-reports/: take each agent's own report "
                         "of this run from there")
    ap.add_argument("report_dir", type=Path)
    ap.add_argument("run_dir", type=Path)
    args = ap.parse_args()
    report = json.loads((args.report_dir / "report.json").read_text())
    run = args.run_dir
    upf = "eupf" if args.upf.startswith("eupf") else args.upf
    if args.agent_reports:
        times = [float((run / "counters" / n / "time").read_text())
                 for n in ("run-before", "run-after")]
        take_agent_reports(run, args.agent_reports, times)
    results = {n: agent_results(run, n) for n in AGENTS}
    out = [f"UPF: {args.upf}; coordinator's report of {report.get('started', '?')}, "
           f"{len(report['steps'])} step(s): "
           + ", ".join(s["label"] for s in report["steps"])]
    unexplained = 0

    out.append("\n1. The merged report against the agents' sections\n")
    lines = []
    unexplained += check_merge(report, results, lines)
    out.extend(lines)

    out.append("\n2. Each session's gNB, each link's downlink\n")
    lines = []
    unexplained += check_gnbs(run, report, lines)
    out.extend(lines)

    before = load_snapshot(run / "counters" / "run-before")
    after = load_snapshot(run / "counters" / "run-after")
    links = delta(before["links"], after["links"])
    macs = {}
    for ifc in json.loads((run / "counters" / "run-after" / "tg-links.json").read_text()):
        macs[ifc["ifname"]] = ifc.get("address", "")
    others, kinds = {}, {}
    for a in AGENTS.values():
        for ifc in (a["n3"], a["n6"]):
            o = other_frames(run / "captures" / f"tg-{ifc}-other.txt",
                             run / "captures" / f"dut-{ifc}-other.txt", macs.get(ifc, ""),
                             (before["time"], after["time"]))
            if o is None:
                o = (0, 0, Counter())
                out.append(f"(no capture of tg {ifc}: its frames that are not traffic taken as 0)")
            others[ifc] = o[:2]
            kinds[ifc] = o[2]
    whole = {
        "links": links,
        "udp_drops": delta(before["udp_drops"], after["udp_drops"]),
        "snmp": delta(before["snmp"], after["snmp"]),
        "arp_unresolved_discards": after["arp_unresolved_discards"]
        - before["arp_unresolved_discards"],
        "ogstun_own": after["ogstun_own"] - before["ogstun_own"],
    }
    if "eupf" in before and "eupf" in after:
        whole["eupf"] = delta(before["eupf"], after["eupf"])

    out.append("\n3. Each agent's packets (measured + warm-up, all steps), link by link\n")
    steps = len(report["steps"])
    complete = [n for n in AGENTS if sorted(results[n]) == list(range(1, steps + 1))]
    if len(complete) < len(AGENTS):
        out.append("The agents' own figures of every step are not all there, so only both "
                   "agents together are followed, from the merged report's frames and ports; "
                   "per agent: " + ", ".join(
                       f"{n} steps {sorted(results[n]) or 'none'}" for n in AGENTS) + "\n")
    columns = {}
    for name in complete:
        fr, po = counters_of([(pair_sum(r, "frames"), pair_sum(r, "ports"))
                              for r in results[name].values()])
        columns[name] = (fr, po, [(AGENTS[name]["n3"], AGENTS[name]["n6"])])
    merged = counters_of([({f["name"]: f for f in st.get("frames", [])},
                           {p["name"]: p for p in st.get("ports", [])})
                          for st in report["steps"]])
    columns["merged report, both links"] = (*merged, [(a["n3"], a["n6"]) for a in AGENTS.values()])
    notes, raw = [], []
    for d in DIRS:
        per = {c: points(d, fr, po, links, others, ifs) for c, (fr, po, ifs) in columns.items()}
        cols = list(columns)
        rows = []
        for k, (point, _, _) in enumerate(per[cols[-1]][0]):
            rows.append([d, point] + [fmt(per[c][0][k][1]) for c in cols])
            if point == "dut link rx":
                # The UPF's own counts, both agents together.
                frames = {p: {} for p in ("N3", "N6")}
                for p in upf_points(d, whole, upf if upf in ("eupf", "open5gs") else "-", frames):
                    rows.append([d, p.name] + [""] * (len(cols) - 1) + [fmt(p.count)])
                    raw.append(f"{d}: {p.name} {fmt(p.count)} = {p.note}")
        for c in cols:
            pts, extra = per[c]
            seq = list(pts)
            if c == cols[-1]:
                # The UPF's points sit between dut's two links.
                frames = {p: {} for p in ("N3", "N6")}
                ups = [(p.name, p.count, p.note) for p in
                       upf_points(d, whole, upf if upf in ("eupf", "open5gs") else "-", frames)]
                seq = pts[:4] + ups + pts[4:]
            for (a, ca, _), (b, cb, _) in zip(seq, seq[1:]):
                lost = ca - cb
                if lost == 0:
                    continue
                found = explain(a, b, lost, links, extra,
                                *((whole, upf, d) if c == cols[-1] else ()))
                if c != cols[-1] and (a, b) == ("dut link rx", "dut link tx"):
                    # The UPF's counters are not per agent: the last column accounts for it.
                    notes.append(f"{c} {d}: {a} -> {b}: {fmt(lost)} "
                                 f"{'fewer' if lost > 0 else 'more'} (through the UPF: its "
                                 "counters are both agents', accounted for in the last column)")
                    continue
                total = sum(n for _, n in found)
                why = "; ".join(f"{k} {fmt(n)}" for k, n in found) or "no counter"
                line = (f"{c} {d}: {a} -> {b}: {fmt(lost)} {'fewer' if lost > 0 else 'more'} "
                        f"({why})")
                if lost - total:
                    unexplained += 1
                    line += f"; UNEXPLAINED {fmt(lost - total)}"
                notes.append(line)
            if extra["rejected"]:
                notes.append(f"{c} {d}: {fmt(extra['rejected'])} frames received and rejected "
                             "(not measured traffic; counted in 'agent received')")
            raw.extend(f"{c} {d}: {p} {fmt(n)} = {note}" for p, n, note in pts)
        if len(complete) == len(AGENTS):
            for k, row in enumerate(rows):
                if row[1] in dict.fromkeys(p[0] for p in per[cols[-1]][0]):
                    parts = [per[n][0] for n in complete]
                    i = [p[0] for p in parts[0]].index(row[1])
                    s_ab = sum(p[i][1] for p in parts)
                    if s_ab != per[cols[-1]][0][i][1]:
                        unexplained += 1
                        notes.append(f"{d} {row[1]}: gnb-a + gnb-b {fmt(s_ab)} != merged "
                                     f"{fmt(per[cols[-1]][0][i][1])}")
        out.append(table(["Dir", "Point"] + cols, rows))
        out.append("")
    out.append("Where the counts differ\n")
    out.extend(notes or ["every count equal from end to end, for each agent"])
    out.append("\nFrames that are not traffic on tg's links (captured; subtracted above)\n")
    out.append(table(["link", "sent by tg", "received by tg", "what"],
                     [[i, fmt(others[i][0]), fmt(others[i][1]),
                       ", ".join(f"{k} {v}" for k, v in sorted(kinds[i].items())) or "-"]
                      for i in sorted(others)]))
    out.append("\nThe UPF's side (whole run, both agents)\n")
    dut = links["dut"]
    bridges = [i for i in ("n3", "n6") if i in dut]
    if bridges:
        out.append("dut bridges: " + "; ".join(
            f"{b} rx {fmt(dut[b]['rx'])} tx {fmt(dut[b]['tx'])} rx_dropped "
            f"{fmt(dut[b]['rx_dropped'])} tx_dropped {fmt(dut[b]['tx_dropped'])}" for b in bridges))
    if "eupf" in whole:
        e = whole["eupf"]
        out.append("eUPF XDP actions " + ", ".join(f"{k} {fmt(e['xdp'][k])}" for k in XDP_ACTIONS)
                   + "; packets " + ", ".join(f"{k} {fmt(v)}" for k, v in e["packets"].items() if v)
                   + "; eBPF N3/N6 counters " + ", ".join(
                       f"{k.split('.')[-1]} {fmt(v)}" for k, v in e["ext"].items() if v))
    if upf == "open5gs":
        s = whole["snmp"]
        out.append(f"dut UDP InDatagrams {fmt(s['Udp.InDatagrams'])}, RcvbufErrors "
                   f"{fmt(s['Udp.RcvbufErrors'])}, OutDatagrams {fmt(s['Udp.OutDatagrams'])}; IP "
                   f"ForwDatagrams {fmt(s['Ip.ForwDatagrams'])}, OutDiscards "
                   f"{fmt(s['Ip.OutDiscards'])}; socket drops {whole['udp_drops']}")
    out.append(f"ARP: packets dropped waiting for resolution (kernel-wide) "
               f"{fmt(whole['arp_unresolved_discards'])}")
    out.append("\nEach point's arithmetic\n")
    out.extend(raw)
    print("\n".join(out))
    return 3 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
