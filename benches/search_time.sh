#!/usr/bin/env bash
# Time to a result against the reflector (issue 17's benchmark): `upfbench search` at its
# defaults (RFC 9971, CSIT's NDR and PDR: 1 s trials, 21 s sums, width 0.5 %) beside an RFC 2544
# binary search (search.strategy: rfc2544, one goal of zero loss, 60 s trials, the same width),
# both against `upfbench reflect` over memif with a rate cap of CAP per direction, in one script.
#
#   benches/search_time.sh                  # CAP=200kpps, payload 300 B, both directions
#   CAP=100kpps benches/search_time.sh
#
# Printed: each search's wall time, its trials, its NDR (and PDR) bounds and conditional
# throughput, the cap (2 x CAP both ways), a trial's mean overhead (its wall time beyond its
# duration), and the ratio of the two times. Needs root and the
# release binary (make build); binds 127.0.0.1:8805 and 127.0.0.2:8805: not beside the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${UPFBENCH:-./target/release/upfbench}
cap=${CAP:-200kpps}
work=$(mktemp -d /tmp/upfbench-search-time.XXXXXX)
mkdir -p /tmp/upfbench
refl_pid=
cleanup() {
  if [[ -n $refl_pid ]]; then kill -TERM "$refl_pid" 2>/dev/null || true; wait "$refl_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

sed "s/impairments: {}/impairments: {rate_cap: $cap}/" deploy/systems/memif-reflector.yaml >"$work/reflector.yaml"
cap_pps=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)\s*([kM]?)pps','$cap'); print(float(m[1])*{'':1,'k':1e3,'M':1e6}[m[2]])")
max=$(python3 -c "print(f'{4*$cap_pps:.0f}pps')")
common="sessions: {count: 1}
streams:
  - {name: ul, direction: uplink, rate: 100kpps, payload: 300}
  - {name: dl, direction: downlink, rate: 100kpps, payload: 300}
warmup: 1s
drain: 200ms
sweep: {payloads: [300]}"
cat >"$work/mlrsearch.yaml" <<YAML
name: bench-mlrsearch
$common
search:
  max_load: $max
  latency_loads: []
YAML
cat >"$work/rfc2544.yaml" <<YAML
name: bench-rfc2544
$common
search:
  max_load: $max
  latency_loads: []
  strategy: rfc2544
  goals:
    - {name: RFC2544, loss_ratio: 0%, exceed_ratio: 0%, initial_trial_duration: 60s, final_trial_duration: 60s, duration_sum: 60s}
YAML

"$bin" reflect "$work/reflector.yaml" >"$work/reflector.log" 2>&1 &
refl_pid=$!
sleep 2
declare -A took
for p in mlrsearch rfc2544; do
  start=$(date +%s.%N)
  "$bin" search deploy/systems/memif.yaml "$work/$p.yaml" --reports "$work/reports-$p" >"$work/$p.log" 2>&1
  took[$p]=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
  report=$(find "$work/reports-$p" -name report.json | head -1)
  python3 - "$report" "$p" "${took[$p]}" "$cap_pps" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
c = r["search"]["cases"][0]
print(f"{sys.argv[2]}: {sys.argv[3]} s, {len(c['trials'])} trials, "
      f"trial time {sum(t['intended_duration_s'] for t in c['trials']):.0f} s (cap {2 * float(sys.argv[4]):.0f} pps both ways)")
for g in c["results"]:
    f = lambda v: "-" if v is None else f"{v:.0f}"
    print(f"  {g['goal']}: {g['status']}, bounds [{f(g['lower_bound_pps'])}, {f(g['upper_bound_pps'])}] pps, "
          f"conditional throughput {f(g['conditional_throughput_pps'])} pps")
walls = [t["wall"]["total_s"] for t in c["trials"] if t.get("wall")]
if len(walls) != len(c["trials"]):
    # A binary that does not record it: collection to collection on the timeline.
    ev = [json.loads(l) for l in open(os.path.join(os.path.dirname(sys.argv[1]), "events.jsonl"))][1:]
    ends = [e["t_s"] for e in ev if e["name"] == "step:collected"]
    start = next(e["t_s"] for e in ev if e["name"] == "run:state" and e["data"]["state"] == "Preparing")
    walls = [b - a for a, b in zip([start] + ends, ends)]
mean = sum(walls) / len(walls)
print(f"  per trial: {mean - sum(t['intended_duration_s'] for t in c['trials']) / len(walls):.3f} s "
      f"beyond its duration (mean wall {mean:.3f} s)")
PY
done
python3 -c "print(f'RFC 2544 binary search / MLRsearch: {${took[rfc2544]} / ${took[mlrsearch]}:.2f} x the time')"
