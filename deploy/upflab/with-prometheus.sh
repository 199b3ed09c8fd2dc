#!/usr/bin/env bash
# Stands in for the upfbench binary in the lab (UPFBENCH=deploy/upflab/with-prometheus.sh
# deploy/upflab-compare.sh ...) to try --metrics against real UPFs: for run, sweep and search it
# starts a real Prometheus (Debian's) in the same network namespace, scraping upfbench's
# --metrics every 500 ms, runs upfbench with --metrics, and then saves what Prometheus holds of
# the counters (max over the run: after the run the series go stale) as JSON into
# $PROM_OUT/<time>-<mode>/, to be set beside the report's figures. Other subcommands go straight
# to upfbench.
set -uo pipefail
real=${UPFBENCH_REAL:-$(dirname "$(realpath "$0")")/../../target/release/upfbench}
case "${1:-}" in run | sweep | search) ;; *) exec "$real" "$@" ;; esac
out=${PROM_OUT:-/tmp/upfbench-prometheus}/$(date +%s)-$1
mkdir -p "$out"
cat >"$out/prometheus.yml" <<YML
global: {scrape_interval: 500ms, scrape_timeout: 400ms}
scrape_configs: [{job_name: upfbench, static_configs: [{targets: ['127.0.0.1:9464']}]}]
YML
ip link set lo up 2>/dev/null
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/tsdb" \
  --web.listen-address=127.0.0.1:9091 >"$out/prometheus.log" 2>&1 &
prom=$!
sleep 2
"$real" "$@" --metrics 127.0.0.1:9464
rc=$?
for m in upfbench_sent_packets_total upfbench_received_packets_total upfbench_lost_packets_total \
  upfbench_latency_seconds_count upfbench_pfcp_requests_total upfbench_pfcp_sessions_established_total; do
  curl -s http://127.0.0.1:9091/api/v1/query --data-urlencode "query=max_over_time(${m}[1h])" >"$out/$m.json"
done
kill "$prom"
wait "$prom" 2>/dev/null
rm -rf "$out/tsdb"
exit $rc
