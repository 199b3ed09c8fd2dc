"""What a real Prometheus scraped of upfbench's --metrics beside the report's own figures.

Usage: python3 deploy/upflab/prometheus_vs_report.py PROM_DIR REPORT_PARENT
PROM_DIR is what deploy/upflab/with-prometheus.sh saved; REPORT_PARENT the folder holding the
run's report folder (the <mode>/ directory of deploy/upflab-compare.sh). Prints a Markdown table
per step and direction (report / Prometheus) and exits 1 if any count differs.
"""
import json,sys,glob,os
prom, rep = sys.argv[1], sys.argv[2]
def load(m):
    j=json.load(open(f'{prom}/{m}.json'))
    return {(r['metric'].get('step'),r['metric'].get('direction')): int(float(r['value'][1])) for r in j['data']['result']}
sent, rx, lost, lat = (load(m) for m in ['upfbench_sent_packets_total','upfbench_received_packets_total','upfbench_lost_packets_total','upfbench_latency_seconds_count'])
req = load('upfbench_pfcp_requests_total')
est = load('upfbench_pfcp_sessions_established_total')
r=json.load(open(glob.glob(rep+'/*/report.json')[0]))
print('| Step | Dir | sent (report / Prometheus) | received | lost | latency samples |')
print('|:--|:--|--:|--:|--:|--:|')
ok=True
for i,s in enumerate(r['steps'],1):
    for d in s['directions']:
        k=(str(i), d['direction'])
        a=(d['tx']['packets'], d['rx']['packets'], d['loss']['lost'], (d.get('latency') or {}).get('count', d['rx']['packets']))
        b=(sent.get(k), rx.get(k), lost.get(k), lat.get(k))
        ok &= a == b
        print(f"| {s['label']} | {d['direction']} | " + " | ".join(f"{x:,} / {y:,}" for x,y in zip(a,b)) + " |")
c=r['control']
print(f"\nPFCP requests: report {c['requests_sent']}, Prometheus {list(req.values())}; sessions established: report {c['established']}, Prometheus {list(est.values())}")
print('all equal' if ok else 'DIFFERENT')
sys.exit(0 if ok else 1)
