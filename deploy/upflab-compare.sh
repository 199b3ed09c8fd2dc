#!/usr/bin/env bash
# upfbench against a real UPF in the kernel lab, with the evidence to check it: for each MODE
# (run, sweep, search, capacity) it runs `upfbench MODE SYSTEM PROFILE` in namespace tg, reads the veth counters
# of both namespaces, dut's IP/UDP statistics and the UPF's own counters before and after the
# run and at the edges of every step (upfbench's --step-hook), and reconciles them with the
# report, step by step and direction by direction (deploy/upflab/reconcile.py): upfbench sent /
# veth tg tx / veth dut rx / UPF / veth dut tx / veth tg rx / upfbench received, each count
# taken net of the frames that are not the direction's traffic (ARP, the service plane, the
# kernel's ICMP), warm-up included.
#
#   deploy/upflab-compare.sh --upf open5gs run sweep     # lab up, Open5GS in dut, run, 30 s, sweep, down
#   deploy/upflab-compare.sh --upf eupf-maps32768 sweep  # eUPF built with maps of 32,768
#   deploy/upflab-compare.sh --upf upg-vpp run sweep     # UPG-VPP (VPP owns dut's n3/n4/n6)
#   deploy/upflab-compare.sh --upf upg-vpp-memif --profile P run   # N3/N6 over memif to VPP
#   deploy/upflab-compare.sh --upf attached sweep        # a UPF already running in $DUT_NS
#   deploy/upflab-compare.sh --upf eupf --profile profiles/upflab-search.yaml search
#                                                        # NDR and PDR (RFC 9971), each trial
#                                                        # reconciled as a step
#
# --upf open5gs|eupf|eupf-maps<N> makes the namespaces (deploy/lab.sh up --kernel-dut), starts
# the UPF with deploy/upflab/run-open5gs.sh or run-eupf.sh (its run directory under the output
# directory), and stops it and removes the namespaces at the end, also on failure or Ctrl-C.
# The UPFs are built by deploy/upflab/build-upfs.sh into LAB_DIR. --upf upg-vpp does the same
# with deploy/lab.sh up (dut's kernel holds no UPF address) and deploy/upflab/run-upg-vpp.sh:
# VPP takes n3, n4 and n6 through af_packet; its counters are `show interface` and `show errors`.
# --upf upg-vpp-memif: VPP's N3 and N6 are memif servers and upfbench's memif ports their
# clients (system file deploy/systems/upg-vpp-memif.yaml), PFCP still over n4.
# --upf reflect does the same with `upfbench reflect deploy/systems/lab-reflector.yaml` in dut
# (deploy/lab.sh up: DPDK owns dut's n3 and n6), the stand-in to set the real UPFs beside;
# REFLECTOR_SYSTEM=deploy/systems/lab-reflector-af-xdp.yaml puts it on net_af_xdp.
# --system deploy/systems/lab-af-xdp.yaml puts the tester on net_af_xdp (docs/upfs.md).
# Several modes run against the same UPF process, GAP seconds apart (30 for Open5GS: it keeps
# the association after a run and drops it when its heartbeats go unanswered; see
# docs/upfs.md), except UPG-VPP, which is restarted before each mode. --upf attached uses what
# runs in $DUT_NS and leaves it running.
#
# Every run busy-polls a core: on a shared machine run the whole script under the lock, e.g.
#   flock /tmp/upfbench-busy.lock deploy/upflab-compare.sh --upf eupf-maps32768 run sweep
# Output (--out, default reports/upflab-<upf>-<time>): <mode>/ with upfbench's report folder,
# counters/<run-before|step<N>-<start|end>|run-after>/, upfbench.log, reconcile.txt; upf.log.
# A mode given again gets <mode>-2/, <mode>-3/ (`run run`: run/ and run-2/); a directory of that
# name left by an earlier call with the same --out is replaced.
# The exit status is upfbench's, or 3 when a count is left unexplained.
#
# Options: --upf KIND (attached), --system FILE (deploy/systems/lab.yaml), --profile FILE
#          (profiles/upflab-1000.yaml), --out DIR, --gap SECONDS (30 with Open5GS, else 5),
#          --payloads LIST (sweep, search: these payloads instead of the profile's, e.g. 300),
#          --capture N (the first N frames each way on tg's n3 and n6 into <mode>/tg-n3.pcapng
#          and tg-n6.pcapng, with dumpcap, and what deploy/upflab/wire.sh makes of them),
#          --nice N (run upfbench and the UPF at this niceness, e.g. -10 on a machine that
#          others load: a UPF that gets half a CPU drops what the tester measures; whether
#          it helps Open5GS is what deploy/upflab-pinning.sh measures),
#          --upf-cpus LIST (pin every thread of the UPF to these CPUs, e.g. 0: away from the
#          system file's worker lcores, which upfbench busy-polls),
#          --dry-run (print the plan: the lab packages it needs, each mode's directory; no run)
# Env: TG_NS, DUT_NS (tg, dut), UPFBENCH (target/release/upfbench), LAB (deploy/upflab: the
#      run-*.sh scripts), LAB_DIR (/tmp/upflab: where build-upfs.sh built the UPFs),
#      REFLECTOR_SYSTEM (--upf reflect: its reflector file, deploy/systems/lab-reflector.yaml)
# Needs: python3; for eUPF bpftool (its per-interface eBPF counters, the UPF columns), jq and
# curl (its REST API); tshark (--capture). What is missing is installed with
# `deploy/setup.sh --lab` (Debian packages bpftool, jq, curl, tshark) before the lab is made.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
export TG_NS=${TG_NS:-tg} DUT_NS=${DUT_NS:-dut}
UPFBENCH=${UPFBENCH:-$repo/target/release/upfbench}
LAB=${LAB:-$here/upflab}
LAB_DIR=${LAB_DIR:-/tmp/upflab}

upf=attached
restart=0
system_given=
system=$repo/deploy/systems/lab.yaml
profile=$repo/profiles/upflab-1000.yaml
out=
gap=
payloads=
capture=0
nice=
upf_cpus=
dry_run=0
modes=()
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --upf) upf=$2; shift 2 ;;
    --system) system=$2; system_given=1; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --gap) gap=$2; shift 2 ;;
    --payloads) payloads=$2; shift 2 ;;
    --capture) capture=$2; shift 2 ;;
    --nice) nice=$2; shift 2 ;;
    --upf-cpus) upf_cpus=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    run | sweep | search | capacity) modes+=("$1"); shift ;;
    *) usage ;;
    esac
done
[ ${#modes[@]} -gt 0 ] || usage
out=${out:-$repo/reports/upflab-$upf-$(date -u +%Y-%m-%dT%H-%M-%SZ)}
out=$(realpath -m "$out")

# Each mode's directory under $out: the mode's name, numbered from its second occurrence on, so
# that `run run` keeps both runs (run/, run-2/).
declare -A seen=()
mode_dirs=()
for mode in "${modes[@]}"; do
    seen[$mode]=$((${seen[$mode]:-0} + 1))
    if ((seen[$mode] == 1)); then mode_dirs+=("$mode"); else mode_dirs+=("$mode-${seen[$mode]}"); fi
done

# What the lab's counters need beyond `make setup`, as command:package.
lab_needs=()
case $upf in
eupf | eupf-maps*) lab_needs+=(bpftool:bpftool jq:jq curl:curl) ;;
esac
if ((capture > 0)); then lab_needs+=(dumpcap:tshark tshark:tshark); fi
missing_packages() {
    local n
    for n in "${lab_needs[@]}"; do
        command -v "${n%%:*}" >/dev/null || echo "${n#*:}"
    done | sort -u
}

# How the UPF is started and stopped (nothing runs yet).
case $upf in
open5gs)
    runner=$LAB/run-open5gs.sh
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/upfd.pid
    gap=${gap:-30}
    ;;
eupf | eupf-maps*)
    runner=$LAB/run-eupf.sh
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/eupf.pid EUPF_BIN=$LAB_DIR/eupf/bin/$upf
    gap=${gap:-5}
    ;;
upg-vpp | upg-vpp-memif)
    runner=$LAB/run-upg-vpp.sh
    if [ "$upf" = upg-vpp-memif ]; then
        # N3 and N6 over memif to VPP; PFCP still over the veth n4.
        export UPG_VPP_LINKS=memif
        [ -n "$system_given" ] || system=$repo/deploy/systems/upg-vpp-memif.yaml
    fi
    # A fresh VPP for each mode: VPP does not implement the Association Release, and the
    # sessions of a second association from the same node, 5 s after a run, were accepted and
    # then gone (no tunnel for any G-PDU, Cause 65 at deletion; 2026-11-26).
    restart=1
    # counters.sh reads VPP's counters through its CLI socket.
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/vpp.pid VPP_CLI_SOCK=$out/upf/cli.sock \
        VPPCTL=$LAB_DIR/upg-vpp/bin/vppctl
    gap=${gap:-5}
    ;;
reflect)
    # upfbench's own stand-in, for comparison: it owns n3/n6 in dut through DPDK.
    runner=$here/upflab/reflector.sh
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/reflector.pid UPFBENCH
    gap=${gap:-5}
    ;;
attached)
    runner=
    gap=${gap:-5}
    ;;
*) usage ;;
esac

if ((dry_run)); then
    echo "upf: $upf; out: $out"
    echo "upf runner: ${runner:-none (attached)}"
    echo "system: $system"
    echo "payloads: ${payloads:-as the profile says} (sweep, search)"
    if [ "$upf" = reflect ]; then
        echo "reflector: ${REFLECTOR_SYSTEM:-$here/systems/lab-reflector.yaml}"
    fi
    echo "lab packages needed: $(printf '%s\n' "${lab_needs[@]#*:}" | sort -u | xargs)"
    echo "lab packages missing: $(missing_packages | xargs)"
    for i in "${!modes[@]}"; do
        echo "${modes[$i]}: $out/${mode_dirs[$i]}"
    done
    exit 0
fi

[ -x "$UPFBENCH" ] || { echo "no $UPFBENCH: cargo build --release -p upfbench" >&2; exit 1; }
if [ -n "$(missing_packages)" ]; then
    printf '[upflab-compare] missing: %s; installing them with deploy/setup.sh --lab\n' \
        "$(missing_packages | xargs)" >&2
    "$repo/deploy/setup.sh" --lab >&2
    if [ -n "$(missing_packages)" ]; then
        echo "[upflab-compare] still missing after deploy/setup.sh --lab: $(missing_packages | xargs)" >&2
        exit 1
    fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

log() { printf '[upflab-compare] %s\n' "$*" >&2; }

# In a session of its own: a Ctrl-C at the terminal reaches upfbench, which stops, reports and
# deletes its sessions, but not the UPF (eUPF, Open5GS and VPP all exit on SIGINT), which the
# teardown stops afterwards.
start_upf() {
    setsid -w "$runner" start
    upf_pid=$(cat "$UPF_PIDFILE")
    if [ -n "$nice" ]; then
        # Every thread of the UPF (renice takes thread ids too).
        renice -n "$nice" -p $(ls "/proc/$upf_pid/task") >/dev/null
    fi
    if [ -n "$upf_cpus" ]; then
        taskset -a -p -c "$upf_cpus" "$upf_pid" >/dev/null
    fi
}

made_lab=0
capturing=()
teardown() {
    for pid in "${capturing[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    if [ -n "$runner" ]; then
        "$runner" stop || true
        "$runner" log >"$out/upf.log" 2>/dev/null || true
    fi
    if ((made_lab)); then
        "$repo/deploy/lab.sh" down || true
    fi
}
trap teardown EXIT
trap 'exit 130' INT TERM

if [ -n "$runner" ]; then
    if [ "$upf" = reflect ] || [ "${upf#upg-vpp}" != "$upf" ]; then
        "$repo/deploy/lab.sh" up >/dev/null
    else
        "$repo/deploy/lab.sh" up --kernel-dut >/dev/null
    fi
    made_lab=1
    start_upf
fi
{
    echo "upf: $upf"
    echo "system: ${system#"$repo"/}; profile: ${profile#"$repo"/}${payloads:+; payloads $payloads}"
    if [ "$upf" = reflect ]; then
        echo "reflector: ${REFLECTOR_SYSTEM:-deploy/systems/lab-reflector.yaml}"
    fi
    echo "upfbench: $("$UPFBENCH" --version), $UPFBENCH built $(date -u -r "$UPFBENCH" +%FT%TZ);" \
        "repository at $(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')"
    echo "kernel: $(uname -r)"
    echo "niceness of upfbench and the UPF: ${nice:-0 (not changed)}"
    echo "UPF pinned to CPUs: ${upf_cpus:-no, the scheduler places it}"
    echo "cpus: $(nproc) x $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
    for f in "$LAB_DIR"/src/*/.upflab-commit; do
        [ -e "$f" ] && echo "$(basename "$(dirname "$f")"): $(cat "$f")"
    done
} >"$out/environment.txt"

status=0
first=1
for i in "${!modes[@]}"; do
    mode=${modes[$i]}
    if ((!first)) && ((restart)); then
        log "restarting the UPF for ${mode_dirs[$i]}"
        "$runner" stop >&2
        start_upf >&2
    elif ((!first)); then
        log "waiting ${gap}s before the next run against the same UPF"
        sleep "$gap"
    fi
    first=0
    dir=$out/${mode_dirs[$i]}
    rm -rf "$dir"
    mkdir -p "$dir/counters"
    log "${mode_dirs[$i]}: upfbench $mode $(basename "$system") $(basename "$profile")"
    "$here/upflab/counters.sh" "$dir/counters" run-before
    capturing=()
    if ((capture > 0)); then
        for ifc in n3 n6; do
            # No ARP: the resolution's would fill a short capture. `vlan`: QinQ frames, whose
            # inner tag is still in the frame once the kernel took the outer one off.
            ip netns exec "$TG_NS" dumpcap -q -i "$ifc" -c "$capture" -a duration:120 \
                -f 'udp or icmp or vlan' -w "$dir/tg-$ifc.pcapng" 2>/dev/null &
            capturing+=($!)
        done
        sleep 1
    fi
    extra=()
    if [ -n "$payloads" ] && { [ "$mode" = sweep ] || [ "$mode" = search ]; }; then
        extra=(--payloads "$payloads")
    fi
    set +e
    nice -n "${nice:-0}" ip netns exec "$TG_NS" "$UPFBENCH" "$mode" "$system" "$profile" --reports "$dir" \
        "${extra[@]}" --step-hook "$here/upflab/counters.sh $dir/counters" 2>&1 | tee -i "$dir/upfbench.log"
    rc=${PIPESTATUS[0]}
    set -e
    "$here/upflab/counters.sh" "$dir/counters" run-after
    for pid in "${capturing[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if ((capture > 0)); then
        "$here/upflab/wire.sh" "$dir/tg-n3.pcapng" "$dir/tg-n6.pcapng" >"$dir/wire.txt" 2>&1 || true
    fi
    [ "$rc" = 0 ] || status=$rc
    report=$(find "$dir" -name report.json -newer "$dir/counters/run-before/time" | head -1)
    if [ -z "$report" ]; then
        log "${mode_dirs[$i]}: no report (upfbench exit status $rc)"
        continue
    fi
    python3 "$here/upflab/reconcile.py" "$(dirname "$report")" "$dir/counters" |
        tee "$dir/reconcile.txt" || { r=$?; [ "$status" != 0 ] || status=$r; }
    # A Ctrl-C stops upfbench the graceful way (its exit status is 0): no further mode.
    if grep -q '^interrupted' "$dir/upfbench.log"; then
        log "interrupted: the modes after $mode are not run"
        status=130
        break
    fi
done
exit "$status"
