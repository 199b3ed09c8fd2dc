#!/usr/bin/env bash
# Two upfbench agents as two gNBs against one UPF in the kernel lab, with the evidence to check
# it (docs/upfs.md "Two agents as two gNBs"): the lab with two N3/N6 pairs in tg (deploy/lab.sh
# up --agents 2, with --kernel-dut for a kernel UPF: dut's bridges n3 and n6 hold the UPF's
# addresses), the UPF in dut, agents gnb-a and gnb-b in tg (deploy/systems/lab-agent-a.yaml,
# -b.yaml), then for each MODE `upfbench MODE --cluster deploy/systems/lab-cluster.yaml PROFILE`
# in tg (the coordinator, holding N4 as one SMF), with before and after it: every counter of
# deploy/upflab/counters.sh, each agent's own report of the run (its ports and frames by kind in
# every step; and GET /v1/steps/N/result, which it keeps for its last step only), captures of
# PFCP on n4 (each session's gNB address), of the downlink G-PDUs on n3a and n3b (the gNB
# address each carries) and of what is not traffic (ARP, ICMP, ...) on both ends of the four
# links; deploy/upflab/reconcile_agents.py then checks the merged report against the agents'
# sections and follows each agent's packets through its links and the UPF's counters.
#
#   deploy/upflab-agents.sh --upf reflect run sweep   # upfbench reflect lab-agents-reflector.yaml
#   deploy/upflab-agents.sh --upf open5gs run sweep   # Open5GS's UPF (build-upfs.sh open5gs)
#   deploy/upflab-agents.sh --upf eupf run sweep      # eUPF (build-upfs.sh eupf)
#
# --step-hook is refused with --cluster (docs/scale.md), so the counters are read at the edges of
# each MODE's run, not of its steps: a sweep is reconciled over its steps together.
# Options: --upf reflect|open5gs|eupf (required), --profile FILE (profiles/lab-agents.yaml),
#          --payloads LIST (run: a run per payload, e.g. 10,300,1400, each its own directory
#          run-<P>B and its counters: the profile with every stream's payload set to P),
#          --out DIR (reports/upflab-agents-<upf>-<time>), --gap SECONDS between runs (30 with
#          Open5GS and eUPF, which keep an association until its heartbeats go unanswered,
#          else 5)
# Env: TG_NS, DUT_NS (tg, dut), UPFBENCH (target/release/upfbench), LAB_DIR (/tmp/upflab),
#      AGENT_A_SYSTEM, AGENT_B_SYSTEM (the agents' system files: lab-agent-a.yaml, -b.yaml)
# Needs: tshark (dumpcap), python3, curl, jq; bpftool for eUPF's counters
# (deploy/setup.sh --lab). The exit status is the first coordinator's that failed, else 3 when
# a count is left unexplained.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
export TG_NS=${TG_NS:-tg} DUT_NS=${DUT_NS:-dut}
UPFBENCH=${UPFBENCH:-$repo/target/release/upfbench}
LAB=$here/upflab
export LAB_DIR=${LAB_DIR:-/tmp/upflab}

upf=
profile=$repo/profiles/lab-agents.yaml
out=
gap=
payloads=
modes=()
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --upf) upf=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --gap) gap=$2; shift 2 ;;
    --payloads) payloads=$2; shift 2 ;;
    run | sweep) modes+=("$1"); shift ;;
    *) usage ;;
    esac
done
if [ ${#modes[@]} -eq 0 ] || [ -z "$upf" ]; then usage; fi
profile=$(realpath "$profile")
out=$(realpath -m "${out:-$repo/reports/upflab-agents-$upf-$(date -u +%Y-%m-%dT%H-%M-%SZ)}")
[ -x "$UPFBENCH" ] || { echo "no $UPFBENCH: cargo build --release -p upfbench" >&2; exit 1; }
for c in dumpcap tshark curl jq python3; do
    command -v "$c" >/dev/null || { echo "no $c: deploy/setup.sh --lab" >&2; exit 1; }
done

lab_args=(--agents 2)
case $upf in
reflect)
    runner=$LAB/reflector.sh
    export REFLECTOR_SYSTEM=$repo/deploy/systems/lab-agents-reflector.yaml
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/reflector.pid UPFBENCH
    gap=${gap:-5}
    ;;
open5gs)
    runner=$LAB/run-open5gs.sh
    lab_args+=(--kernel-dut)
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/upfd.pid
    gap=${gap:-30}
    ;;
eupf | eupf-maps*)
    runner=$LAB/run-eupf.sh
    lab_args+=(--kernel-dut)
    export RUN_DIR=$out/upf UPF_PIDFILE=$out/upf/eupf.pid EUPF_BIN=$LAB_DIR/eupf/bin/$upf
    # eUPF 0.7.1 ignores the Association Release and prunes the association some 17 s after
    # the run, when 3 heartbeats have gone unanswered: a run that starts before then joins the
    # old association ("already exists") and loses it, and its sessions, a second later.
    gap=${gap:-30}
    ;;
*) usage ;;
esac

log() { printf '[upflab-agents] %s\n' "$*" >&2; }
mkdir -p "$out"

agent_pids=()
capturing=()
reconciled=()
made_lab=0
# SIGINT: an agent unloads, writes its report, ends EAL and leaves no runtime files.
stop_agents() {
    local pid
    for pid in "${agent_pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
    for pid in "${agent_pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
    done
    agent_pids=()
}
# shellcheck disable=SC2317 # run by the trap
teardown() {
    local pid
    for pid in "${capturing[@]}"; do kill "$pid" 2>/dev/null || true; done
    stop_agents
    "$runner" stop >&2 || true
    "$runner" log >"$out/upf.log" 2>/dev/null || true
    if ((made_lab)); then "$repo/deploy/lab.sh" down >&2 || true; fi
}
trap teardown EXIT
trap 'exit 130' INT TERM

"$repo/deploy/lab.sh" up "${lab_args[@]}" >"$out/lab.txt"
made_lab=1
setsid -w "$runner" start >&2

# The agents, each in tg on its own pair, their API on loopback.
declare -A listen=([gnb-a]=127.0.0.1:9801 [gnb-b]=127.0.0.1:9802)
for name in gnb-a gnb-b; do
    system=$repo/deploy/systems/lab-agent-${name#gnb-}.yaml
    if [ "$name" = gnb-a ]; then system=${AGENT_A_SYSTEM:-$system}; else system=${AGENT_B_SYSTEM:-$system}; fi
    ip netns exec "$TG_NS" "$UPFBENCH" agent "$system" --listen "${listen[$name]}" \
        --reports "$out/$name-reports" >"$out/$name.log" 2>&1 &
    agent_pids+=($!)
    for _ in $(seq 150); do
        grep -qs 'agent: serving the API' "$out/$name.log" && break
        kill -0 "${agent_pids[-1]}" 2>/dev/null || break
        sleep 0.2
    done
    grep -q 'agent: serving the API' "$out/$name.log" ||
        { log "$name did not come up:"; tail -20 "$out/$name.log" >&2; exit 1; }
done

{
    echo "upf: $upf; profile: ${profile#"$repo"/}; lab: deploy/lab.sh up ${lab_args[*]}"
    echo "cluster: deploy/systems/lab-cluster.yaml; agents:" \
        "${AGENT_A_SYSTEM:-deploy/systems/lab-agent-a.yaml}," \
        "${AGENT_B_SYSTEM:-deploy/systems/lab-agent-b.yaml}"
    [ "$upf" = reflect ] && echo "reflector: deploy/systems/lab-agents-reflector.yaml"
    echo "upfbench: $("$UPFBENCH" --version), $UPFBENCH built $(date -u -r "$UPFBENCH" +%FT%TZ);" \
        "repository at $(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')"
    echo "kernel: $(uname -r); date: $(date -u +%FT%TZ)"
    echo "cpus: $(nproc) x $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
    for f in "$LAB_DIR"/src/*/.upflab-commit; do
        [ -e "$f" ] && echo "$(basename "$(dirname "$f")"): $(cat "$f")"
    done
    true
} >"$out/environment.txt"

# capture NS IFC FILTER FILE [SNAPLEN]: dumpcap of FILTER on NS's IFC into FILE, the first
# SNAPLEN bytes of each frame (96: the headers of a G-PDU and of the packet inside).
capture() {
    ip netns exec "$1" dumpcap -q -i "$2" -s "${5:-96}" -f "$3" -w "$4" 2>/dev/null &
    capturing+=($!)
}

# Not traffic: neither a G-PDU nor a packet to or from the UE pool.
other='not (udp port 2152) and not (udp and net 10.45.0.0/16)'
# The runs: each MODE, a run per payload with --payloads.
jobs=()
for mode in "${modes[@]}"; do
    if [ "$mode" = run ] && [ -n "$payloads" ]; then
        for p in ${payloads//,/ }; do jobs+=("run:run-${p}B:$p"); done
    else
        jobs+=("$mode:$mode:")
    fi
done
status=0
first=1
for job in "${jobs[@]}"; do
    IFS=: read -r mode job_name payload <<<"$job"
    dir=$out/$job_name
    n=2
    while [ -e "$dir" ]; do dir=$out/$job_name-$n; n=$((n + 1)); done
    run_profile=$profile
    if [ -n "$payload" ]; then
        mkdir -p "$dir"
        run_profile=$dir/profile.yaml
        sed -E "s/payload: [0-9]+/payload: $payload/" "$profile" >"$run_profile"
    fi
    if ((!first)); then
        log "waiting ${gap}s before the next run against the same UPF"
        sleep "$gap"
    fi
    first=0
    mkdir -p "$dir/counters" "$dir/captures" "$dir/agents"
    capturing=()
    capture "$TG_NS" n4 'udp port 8805' "$dir/captures/tg-n4.pcapng" 65535
    for ifc in n3a n3b; do
        # The downlink G-PDUs the UPF sent on each gNB's link, as tg's end received them (dut's
        # end sees no frame the reflector sends: af_packet's qdisc bypass).
        capture "$TG_NS" "$ifc" 'udp port 2152 and src host 192.168.13.151' \
            "$dir/captures/tg-$ifc-gtpu.pcapng"
    done
    # On both ends of each link: af_packet's frames sent around the qdisc (upfbench's, with
    # qdisc_bypass=1) reach no other packet socket of their own namespace, only the peer's.
    for ifc in n3a n3b n6a n6b; do
        for ns in "$TG_NS" "$DUT_NS"; do
            side=tg
            [ "$ns" = "$DUT_NS" ] && side=dut
            capture "$ns" "$ifc" "$other" "$dir/captures/$side-$ifc-other.pcapng"
        done
    done
    sleep 1
    "$LAB/counters.sh" "$dir/counters" run-before
    log "$job_name: upfbench $mode --cluster lab-cluster.yaml $(basename "$profile") ${payload:+(payload $payload B)}"
    set +e
    ip netns exec "$TG_NS" "$UPFBENCH" "$mode" --cluster "$repo/deploy/systems/lab-cluster.yaml" \
        "$run_profile" --reports "$dir" 2>&1 | tee -i "$dir/upfbench.log"
    rc=${PIPESTATUS[0]}
    set -e
    "$LAB/counters.sh" "$dir/counters" run-after
    sleep 1
    for pid in "${capturing[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    capturing=()
    [ "$rc" = 0 ] || { [ "$status" != 0 ] || status=$rc; }
    # Each agent's result of each step from its API (no histograms, no seconds), which it keeps
    # for its last step only; its own report of the run (every step) comes once it has stopped.
    for name in gnb-a gnb-b; do
        # An agent keeps its last step's result only: a sweep's earlier steps answer 409.
        for step in $(seq 1 10); do
            ip netns exec "$TG_NS" curl -sf --max-time 5 \
                "http://${listen[$name]}/v1/steps/$step/result" \
                >"$dir/agents/$name-step$step.full.json" 2>/dev/null || {
                rm -f "$dir/agents/$name-step$step.full.json"
                continue
            }
            jq 'del(.pairs[].seconds) | walk(if type == "object" and has("hdr") then del(.hdr) else . end)' \
                "$dir/agents/$name-step$step.full.json" >"$dir/agents/$name-step$step.json"
            rm -f "$dir/agents/$name-step$step.full.json"
        done
    done
    # What the captures hold, as text for reconcile_agents.py.
    for ifc in n3a n3b n6a n6b; do
        for side in tg dut; do
            tshark -r "$dir/captures/$side-$ifc-other.pcapng" -T fields -e frame.time_epoch \
                -e eth.src \
                -e _ws.col.Protocol -e _ws.col.Info >"$dir/captures/$side-$ifc-other.txt" \
                2>/dev/null || true
        done
    done
    for ifc in n3a n3b; do
        tshark -r "$dir/captures/tg-$ifc-gtpu.pcapng" -T fields -E occurrence=f -e ip.dst \
            -e gtp.teid 2>/dev/null | sort | uniq -c >"$dir/captures/tg-$ifc-gtpu.txt" || true
    done
    tshark -r "$dir/captures/tg-n4.pcapng" -Y 'pfcp.msg_type == 50' -T fields \
        -e pfcp.ue_ip_addr_ipv4 -e pfcp.outer_hdr_creation.ipv4 \
        >"$dir/captures/tg-n4-establishments.txt" 2>/dev/null || true
    report=$(find "$dir" -name report.json -newer "$dir/counters/run-before/time" | head -1)
    if [ -z "$report" ]; then
        log "$job_name: no report (upfbench exit status $rc)"
        continue
    fi
    python3 "$LAB/reconcile_agents.py" --upf "$upf" "$(dirname "$report")" "$dir" |
        tee "$dir/reconcile.txt" || true
    reconciled+=("$dir")
done
# The agents write their own report of a run when their segment is replaced or they stop: stop
# them, then reconcile each run again with every step of each agent.
stop_agents
for dir in "${reconciled[@]}"; do
    report=$(find "$dir" -name report.json -newer "$dir/counters/run-before/time" | head -1)
    log "$(basename "$dir"): reconciled with the agents' own reports: $dir/reconcile.txt"
    python3 "$LAB/reconcile_agents.py" --upf "$upf" --agent-reports "$out" "$(dirname "$report")" \
        "$dir" >"$dir/reconcile.txt" || { r=$?; [ "$status" != 0 ] || status=$r; }
    grep -E 'UNEXPLAINED|every count equal|NOT TO ITS|no session has' "$dir/reconcile.txt" >&2 || true
done
exit "$status"
