# Helpers shared by the run-*.sh scripts of deploy/upflab (sourced, not run): a UPF process in
# namespace $DUT_NS, known by its PID file, started and stopped the same way for every UPF.
# The caller sets NAME (for messages), PIDFILE and LAB_DIR.

DUT=${DUT_NS:-dut}

running() { [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

need_namespace() {
    ip netns list | awk '{print $1}' | grep -qxF "$DUT" ||
        { echo "no namespace $DUT: deploy/lab.sh up${1:+ $1} first" >&2; exit 1; }
}

need_binary() {
    [ -x "$1" ] || { echo "no $1: deploy/upflab/build-upfs.sh $2 (LAB_DIR=$LAB_DIR)" >&2; exit 1; }
}

# wait_until LOG READY [TRIES]: until the command READY succeeds (e.g. pfcp_listening: a kernel
# UPF listens on 192.168.14.151:8805), TRIES x 0.2 s at most, while the process lives; on failure,
# the last lines of LOG.
wait_until() {
    local log=$1 ready=$2 tries=${3:-100}
    for _ in $(seq "$tries"); do
        if $ready; then
            echo "$NAME running: PID $(cat "$PIDFILE"), log $log"
            return 0
        fi
        running || break
        sleep 0.2
    done
    echo "$NAME did not come up; last lines of $log:" >&2
    tail -20 "$log" >&2
    exit 1
}

pfcp_listening() { ip netns exec "$DUT" ss -lun | grep -q '192.168.14.151:8805'; }

# stop_process SIGNAL: SIGNAL, up to 10 s, then SIGKILL.
stop_process() {
    if running; then
        local pid
        pid=$(cat "$PIDFILE")
        kill "-$1" "$pid"
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid"
            echo "$NAME (PID $pid) killed: it did not stop on SIG$1 within 10 s"
        else
            echo "$NAME (PID $pid) stopped"
        fi
    else
        echo "$NAME not running"
    fi
    rm -f "$PIDFILE"
}
