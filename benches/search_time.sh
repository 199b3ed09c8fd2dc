#!/usr/bin/env bash
# Time to a result against the reflector (issues 17 and 28): `upfbench search` at its defaults
# (RFC 9971, CSIT's NDR and PDR: 1 s trials, 21 s sums, exceed ratio 50 %, width 0.5 %); CSIT's
# own MLRsearch 1.2.1 with the same goals and loads driving `upfbench run`, one process per
# trial (benches/support/mlrsearch_run.py: what a CSIT user would do today, and the issue's
# reference); and an RFC 2544 binary search (search.strategy: rfc2544, one goal of zero loss,
# 60 s trials, the same width). All three against `upfbench reflect` over memif with a rate cap
# of CAP per direction, with the same Min Load (10 kpps) and Max Load (4 x CAP), in one script.
#
#   benches/search_time.sh                          # CAP=200kpps, payload 300 B, both directions
#   CAP=100kpps benches/search_time.sh
#   METHODS="upfbench mlrsearch-run" benches/search_time.sh     # some of the three
#   KEEP=1 benches/search_time.sh                   # keep the logs and reports, say where
#   SUM=5 benches/search_time.sh                    # NDR and PDR with 5 s duration sums
#
# Printed: each method's wall time, its trials and their time, its NDR (and PDR) bounds and
# conditional throughput; then a table of the three, the ratios upfbench / MLRsearch (the
# issue's target: <= 0.5) and RFC 2544 / upfbench, and whether the conditional throughputs
# agree within the width. MLRsearch runs from target/mlrsearch (deploy/mlrsearch-venv.sh;
# MLRSEARCH_PYTHON names another interpreter); without it its column is skipped. Needs root
# and the release binary (make build); binds 127.0.0.1:8805 and 127.0.0.2:8805: not beside
# the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${UPFBENCH:-./target/release/upfbench}
cap=${CAP:-200kpps}
methods=${METHODS:-upfbench mlrsearch-run rfc2544}
# The goals' duration sum (s) for upfbench search and MLRsearch: CSIT's 21 unless given.
sum=${SUM:-21}
mlr_python=${MLRSEARCH_PYTHON:-target/mlrsearch/bin/python3}
report=benches/support/search_time_report.py
min_load=10000
work=$(mktemp -d /tmp/upfbench-search-time.XXXXXX)
mkdir -p /tmp/upfbench
refl_pid=
cleanup() {
  if [[ -n $refl_pid ]]; then kill -TERM "$refl_pid" 2>/dev/null || true; wait "$refl_pid" 2>/dev/null || true; fi
  if [[ -n ${KEEP:-} ]]; then echo "kept: $work (logs, reports, each MLRsearch trial's profile)"; else rm -rf "$work"; fi
}
trap cleanup EXIT

sed "s/impairments: {}/impairments: {rate_cap: $cap}/" deploy/systems/memif-reflector.yaml >"$work/reflector.yaml"
cap_pps=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)\s*([kM]?)pps','$cap'); print(float(m[1])*{'':1,'k':1e3,'M':1e6}[m[2]])")
max_pps=$(python3 -c "print(f'{4*$cap_pps:.0f}')")
# The traffic of every method: a load is shared half each way.
common="sessions: {count: 1}
streams:
  - {name: ul, direction: uplink, rate: 100kpps, payload: 300}
  - {name: dl, direction: downlink, rate: 100kpps, payload: 300}
warmup: 1s
drain: 200ms"
cat >"$work/upfbench.yaml" <<YAML
name: bench-upfbench-search
$common
sweep: {payloads: [300]}
search:
  min_load: ${min_load}pps
  max_load: ${max_pps}pps
  latency_loads: []
  goals:
    - {name: NDR, loss_ratio: 0%, duration_sum: ${sum}s}
    - {name: PDR, loss_ratio: 0.5%, duration_sum: ${sum}s}
YAML
cat >"$work/rfc2544.yaml" <<YAML
name: bench-rfc2544
$common
sweep: {payloads: [300]}
search:
  min_load: ${min_load}pps
  max_load: ${max_pps}pps
  latency_loads: []
  strategy: rfc2544
  goals:
    - {name: RFC2544, loss_ratio: 0%, exceed_ratio: 0%, initial_trial_duration: 60s, final_trial_duration: 60s, duration_sum: 60s}
YAML
# mlrsearch_run.py writes each trial's rates, duration and warm-up (the first trial's alone).
cat >"$work/mlrsearch-run.yaml" <<YAML
name: bench-mlrsearch-run
$common
YAML

# Sets `took` to the seconds since $1 (date +%s.%N).
since() { took=$(python3 -c "print(f'{$(date +%s.%N) - $1:.1f}')"); }

# `upfbench search` of the profile $1 (upfbench or rfc2544), summarized as method $1.
search_with() {
  local p=$1 start
  start=$(date +%s.%N)
  "$bin" search deploy/systems/memif.yaml "$work/$p.yaml" --reports "$work/reports-$p" >"$work/$p.log" 2>&1 || {
    echo "$p: upfbench search failed:" >&2
    tail -20 "$work/$p.log" >&2
    return 1
  }
  since "$start"
  python3 "$report" method "$p" "$took" "$(find "$work/reports-$p" -name report.json | head -1)" "$work/$p.summary.json"
}

bench_upfbench() { search_with upfbench; }

bench_rfc2544() { search_with rfc2544; }

bench_mlrsearch_run() {
  if ! "$mlr_python" -c 'import importlib.metadata as m, sys, MLRsearch
sys.exit(m.version("MLRsearch") != "1.2.1")' 2>/dev/null; then
    echo "MLRsearch + upfbench run: skipped: no MLRsearch 1.2.1 in $mlr_python;" \
      "deploy/mlrsearch-venv.sh installs it into target/mlrsearch (or set MLRSEARCH_PYTHON)"
    return
  fi
  local start
  mkdir -p "$work/mlrsearch-run"
  start=$(date +%s.%N)
  "$mlr_python" benches/support/mlrsearch_run.py --upfbench "$bin" --system deploy/systems/memif.yaml \
    --profile "$work/mlrsearch-run.yaml" --work "$work/mlrsearch-run" \
    --min-load "$min_load" --max-load "$max_pps" --duration-sum "$sum" >"$work/mlrsearch-run.json" 2>"$work/mlrsearch-run.log" || {
    echo "MLRsearch + upfbench run failed:" >&2
    tail -20 "$work/mlrsearch-run.log" >&2
    return 1
  }
  since "$start"
  python3 "$report" method mlrsearch-run "$took" "$work/mlrsearch-run.json" "$work/mlrsearch-run.summary.json"
}

"$bin" reflect "$work/reflector.yaml" >"$work/reflector.log" 2>&1 &
refl_pid=$!
sleep 2
for m in $methods; do
  "bench_${m//-/_}"
done
summaries=()
for m in $methods; do
  if [[ -f $work/$m.summary.json ]]; then summaries+=("$work/$m.summary.json"); fi
done
if ((${#summaries[@]})); then SUM=$sum python3 "$report" compare "$cap_pps" "${summaries[@]}"; fi
