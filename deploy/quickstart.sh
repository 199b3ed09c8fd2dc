#!/usr/bin/env bash
# The embedded default (README: make quickstart): upfbench reflect stands in for a UPF and
# upfbench sweep measures it, two processes on this machine joined by two memif links (N3, N6),
# PFCP over loopback, no NIC and no UPF needed.
#
# Hugepages are used when 2 MB pages can be reserved (EAL --in-memory), else --no-huge.
# The reflector starts first (it is the memif server) and stops last: a memif server that still
# transmits when its client goes away can crash, so the generator stops sending before it exits.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/release/upfbench
system=deploy/systems/memif.yaml
reflector=deploy/systems/memif-reflector.yaml
profile=${PROFILE:-profiles/quickstart.yaml}
reports=${REPORTS:-reports}
work=$(mktemp -d /tmp/upfbench-quickstart.XXXXXX)
mkdir -p /tmp/upfbench "$reports"

reflector_pid=
cleanup() {
  if [[ -n $reflector_pid ]] && kill -0 "$reflector_pid" 2>/dev/null; then
    kill -TERM "$reflector_pid" 2>/dev/null || true
    wait "$reflector_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# 2 MB hugepages for both processes if the kernel gives them (512 MB each); else --no-huge.
want=512
if [[ $(id -u) -eq 0 && -w /proc/sys/vm/nr_hugepages ]]; then
  have=$(cat /proc/sys/vm/nr_hugepages)
  (( have < want )) && echo "$want" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
fi
free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if (( ${free:-0} >= want )); then
  memory="hugepages (--in-memory, $free free 2 MB pages)"
  for f in "$system" "$reflector"; do
    sed 's/args: \[--no-huge, -m, "512"/args: [--in-memory, -m, "512"/' "$f" > "$work/$(basename "$f")"
  done
  system=$work/$(basename "$system")
  reflector=$work/$(basename "$reflector")
else
  memory="--no-huge (no 2 MB hugepages could be reserved)"
fi
echo "quickstart: EAL memory: $memory"

rm -f /tmp/upfbench/n3.sock /tmp/upfbench/n6.sock
"$bin" reflect "$reflector" > "$reports/quickstart-reflector.log" 2>&1 &
reflector_pid=$!
for _ in $(seq 100); do
  [[ -S /tmp/upfbench/n3.sock && -S /tmp/upfbench/n6.sock ]] && break
  kill -0 "$reflector_pid" 2>/dev/null || { cat "$reports/quickstart-reflector.log" >&2; exit 1; }
  sleep 0.1
done
echo "quickstart: reflector running (pid $reflector_pid, log $reports/quickstart-reflector.log)"

status=0
"$bin" sweep "$system" "$profile" --reports "$reports" || status=$?

kill -TERM "$reflector_pid"
wait "$reflector_pid" || true
reflector_pid=
echo "quickstart: the reflector's counters at exit:"
sed -n '/^reflect: totals/,$p' "$reports/quickstart-reflector.log"
exit "$status"
