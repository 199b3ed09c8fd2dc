#!/usr/bin/env bash
# `upfbench reflect deploy/systems/lab-reflector.yaml` in namespace dut, started and stopped
# like run-open5gs.sh, run-eupf.sh and run-upg-vpp.sh beside it, for
# deploy/upflab-compare.sh --upf reflect.
# Usage: reflector.sh start|stop|status|log
# Env: RUN_DIR (where its PID file and log go), UPFBENCH (the binary), DUT_NS (dut),
#      REFLECTOR_SYSTEM (its reflector file: deploy/systems/lab-reflector.yaml on net_af_packet,
#      or lab-reflector-af-xdp.yaml on net_af_xdp)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
UPFBENCH=${UPFBENCH:-$here/../../target/release/upfbench}
DUT=${DUT_NS:-dut}
RUN_DIR=${RUN_DIR:?where the PID file and the log go}
SYSTEM=${REFLECTOR_SYSTEM:-$here/../systems/lab-reflector.yaml}
PIDFILE=$RUN_DIR/reflector.pid
LOG=$RUN_DIR/reflector.log

running() { [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

start() {
    mkdir -p "$RUN_DIR"
    # `ip netns exec` execs the program: the PID is upfbench's.
    ip netns exec "$DUT" "$UPFBENCH" reflect "$SYSTEM" >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 100); do
        if grep -q 'reflect: upf mode' "$LOG"; then
            echo "upfbench reflect running: PID $(cat "$PIDFILE"), log $LOG"
            return 0
        fi
        running || break
        sleep 0.2
    done
    echo "upfbench reflect did not come up; last lines:" >&2
    tail -20 "$LOG" >&2
    exit 1
}

stop() {
    if running; then
        local pid
        pid=$(cat "$PIDFILE")
        # SIGINT: it stops sending, prints its counters and leaves no DPDK runtime files.
        kill -INT "$pid"
        for _ in $(seq 75); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
        echo "upfbench reflect (PID $pid) stopped"
    fi
    rm -f "$PIDFILE"
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) running && echo "running: PID $(cat "$PIDFILE")" || echo "not running" ;;
log) cat "$LOG" ;;
*)
    echo "usage: $0 start|stop|status|log" >&2
    exit 2
    ;;
esac
