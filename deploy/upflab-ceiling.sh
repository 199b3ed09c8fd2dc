#!/usr/bin/env bash
# The tester's own ceiling in the kernel lab, per path: `upfbench search` (NDR,
# profiles/upflab-ceiling.yaml) against upfbench's own reflector in the UPF's place
# (deploy/upflab-compare.sh --upf reflect), once with both sides on net_af_packet
# (deploy/systems/lab.yaml, lab-reflector.yaml) and once on net_af_xdp (lab-af-xdp.yaml,
# lab-reflector-af-xdp.yaml). What each finds is the highest load that the tester carries
# without loss on that path on this host, or the load it could send no more than: a UPF's lab
# result at or above it is the tester's, not the UPF's (docs/results/2026-11-29-search-lab.md).
# The reflector busy-polls a core as the tester does: on a 2-vCPU host this is the ceiling of a
# tester beside a busy-polling UPF (UPG-VPP); beside a kernel UPF (eUPF) the tester has more
# CPU and its "tester-limited at X" in that UPF's own search is the better figure.
#
#   deploy/upflab-ceiling.sh                                  # both paths, 300 and 1400 B
#   deploy/upflab-ceiling.sh --paths af_xdp --payloads 300    # one path, one payload
#
# Options: --paths LIST (af_packet,af_xdp), --payloads LIST (300,1400), --profile FILE
#          (profiles/upflab-ceiling.yaml), --out DIR (reports/upflab-ceiling-<time>),
#          --nice N (upfbench and the reflector at this niceness, e.g. -10 on a machine that
#          others load: there a stalled sender is taken for the tester's limit)
# Output: DIR/host.txt (date, CPU model, vCPUs, kernel, upfbench), DIR/<path>/ (what
# upflab-compare.sh leaves: search/ with the report, counters and reconcile.txt), and
# DIR/ceiling.txt (deploy/upflab/ceiling.py of each path's report).
# The reflector and the tester each busy-poll a core: run it alone, e.g. under
#   flock /tmp/upfbench-e2e.lock deploy/upflab-ceiling.sh
# Exit status: 0, or the first failing path's upflab-compare.sh status.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
UPFBENCH=${UPFBENCH:-$repo/target/release/upfbench}

paths=af_packet,af_xdp
payloads=300,1400
profile=$repo/profiles/upflab-ceiling.yaml
out=
nice=
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --paths) paths=$2; shift 2 ;;
    --payloads) payloads=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nice) nice=$2; shift 2 ;;
    *) usage ;;
    esac
done
out=${out:-$repo/reports/upflab-ceiling-$(date -u +%Y-%m-%dT%H-%M-%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

{
    echo "date: $(date -u +%FT%TZ)"
    echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
    echo "vcpus: $(nproc)"
    echo "kernel: $(uname -r)"
    echo "hypervisor: $(lscpu | sed -n 's/^Hypervisor vendor: *//p' | head -1)"
    echo "upfbench: $("$UPFBENCH" --version 2>/dev/null || echo "? ($UPFBENCH)"), repository at" \
        "$(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')"
    echo "paths: $paths; payloads: $payloads; profile: ${profile#"$repo"/}"
    echo "niceness of upfbench and the reflector: ${nice:-0 (not changed)}"
    echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/host.txt"
cat "$out/host.txt" >&2

status=0
: >"$out/ceiling.txt"
IFS=, read -r -a path_list <<<"$paths"
for path in "${path_list[@]}"; do
    case $path in
    af_packet)
        system=$here/systems/lab.yaml
        reflector=$here/systems/lab-reflector.yaml
        ;;
    af_xdp)
        system=$here/systems/lab-af-xdp.yaml
        reflector=$here/systems/lab-reflector-af-xdp.yaml
        ;;
    *) echo "unknown path $path (af_packet, af_xdp)" >&2; exit 2 ;;
    esac
    rc=0
    REFLECTOR_SYSTEM=$reflector UPFBENCH=$UPFBENCH "$here/upflab-compare.sh" --upf reflect \
        --system "$system" --profile "$profile" --payloads "$payloads" --out "$out/$path" \
        ${nice:+--nice "$nice"} search || rc=$?
    [ "$rc" = 0 ] || [ "$status" != 0 ] || status=$rc
    report=$(find "$out/$path/search" -name report.json | head -1)
    if [ -n "$report" ]; then
        python3 "$here/upflab/ceiling.py" "$path" "$report" | tee -a "$out/ceiling.txt"
    else
        echo "$path: no report (upflab-compare.sh exit status $rc)" | tee -a "$out/ceiling.txt"
    fi
done
exit "$status"
