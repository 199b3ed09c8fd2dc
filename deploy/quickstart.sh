#!/usr/bin/env bash
# The embedded default (README: make quickstart): upfbench reflect stands in for a UPF and
# upfbench sweep measures it, two processes on this machine joined by two memif links (N3, N6),
# PFCP over loopback, no NIC and no UPF needed.
#
# Hugepages are used when 2 MB pages can be reserved (EAL --in-memory), else --no-huge.
# The reflector starts first (it is the memif server) and stops last: a memif server that still
# transmits when its client goes away can crash, so the generator stops sending, drains, deletes
# its sessions and releases the association before the reflector is stopped. The reflector runs
# in a session of its own (setsid), out of the terminal's process group: Ctrl-C reaches the
# generator (which takes its own way out) and this script, which waits for the generator to
# finish and only then stops the reflector. A SIGTERM sent to this script is passed on to the
# generator the same way.
#
# Two homes: in the repository (deploy/quickstart.sh) it runs from the repository's root with
# the binary `make build` made; installed by the package (/usr/share/upfbench/quickstart.sh,
# beside systems/ and profiles/) it runs the installed upfbench from the caller's directory,
# which receives reports/ (or REPORTS=DIR). UPFBENCH=PATH runs another binary.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ -f $here/../Cargo.toml ]]; then
  cd "$here/.."
  bin=${UPFBENCH:-./target/release/upfbench}
  systems=deploy/systems
  profiles=profiles
else
  bin=${UPFBENCH:-upfbench}
  systems=$here/systems
  profiles=$here/profiles
fi
system=$systems/memif.yaml
reflector=$systems/memif-reflector.yaml
profile=${PROFILE:-$profiles/quickstart.yaml}
reports=${REPORTS:-reports}
if ! mkdir -p "$reports" 2>/dev/null || [[ ! -w $reports ]]; then
  echo "quickstart: cannot write $reports in $PWD: run it from a directory of yours, or set REPORTS=DIR" >&2
  exit 1
fi
work=$(mktemp -d /tmp/upfbench-quickstart.XXXXXX)
mkdir -p /tmp/upfbench

reflector_pid=
generator_pid=
interrupted=
stop_reflector() {
  if [[ -n $reflector_pid ]] && kill -0 "$reflector_pid" 2>/dev/null; then
    kill -TERM "$reflector_pid" 2>/dev/null || true
    wait "$reflector_pid" 2>/dev/null || true
  fi
  reflector_pid=
}
cleanup() {
  stop_reflector
  rm -rf "$work"
}
# Ctrl-C: the terminal gives SIGINT to the generator too, so it is not passed on (a second one
# would skip the generator's teardown). SIGTERM to this script alone is passed on. Before the
# generator runs there is nothing to wait for: the EXIT trap stops the reflector.
on_signal() {
  interrupted=$1
  if [[ -z $generator_pid ]]; then
    exit 130
  fi
  if [[ $1 == TERM ]]; then
    kill -TERM "$generator_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

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
# setsid in a background job (never a process group leader) execs the reflector itself: $! is
# its pid.
setsid "$bin" reflect "$reflector" > "$reports/quickstart-reflector.log" 2>&1 < /dev/null &
reflector_pid=$!
for _ in $(seq 100); do
  [[ -S /tmp/upfbench/n3.sock && -S /tmp/upfbench/n6.sock ]] && break
  kill -0 "$reflector_pid" 2>/dev/null || { cat "$reports/quickstart-reflector.log" >&2; exit 1; }
  sleep 0.1
done
echo "quickstart: reflector running (pid $reflector_pid, log $reports/quickstart-reflector.log)"

# In the background so that a signal to this script is handled at once (a foreground command
# would hold the trap until it ends); `wait` returns early on a trapped signal, the generator
# goes on with its teardown, and the loop waits again until it has exited. bash starts
# background commands with SIGINT ignored: env gives the generator the default back, so that a
# Ctrl-C before its handler is installed (EAL start-up) still ends it.
env --default-signal=INT "$bin" sweep "$system" "$profile" --reports "$reports" &
generator_pid=$!
while :; do
  wait "$generator_pid" || true
  kill -0 "$generator_pid" 2>/dev/null || break
done
status=0
wait "$generator_pid" || status=$?
if [[ -n $interrupted ]]; then
  echo "quickstart: SIG$interrupted: the generator has exited (status $status); stopping the reflector"
fi

stop_reflector
echo "quickstart: the reflector's counters at exit:"
sed -n '/^reflect: totals/,$p' "$reports/quickstart-reflector.log"
exit "$status"
