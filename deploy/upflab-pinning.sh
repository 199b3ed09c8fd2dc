#!/usr/bin/env bash
# Does pinning the UPF help? Repeated runs of deploy/upflab-compare.sh against a freshly started
# UPF (Open5GS unless --upf), half of them pinned (--upf-cpus 0 --nice -10, docs/performance.md's advice
# until now) and half as the scheduler places them at niceness 0, alternated round by round
# (ABBA: round 1 pinned then unpinned, round 2 unpinned then pinned, ...) so that a machine
# growing busier or quieter over the campaign weighs on both alike. Then one table of every
# step: uplink and downlink loss per payload, whether upfbench's senders fell behind their
# schedule (TX slips, and the warning when they cost more than 0.5 % of the rate), the
# machine's CPU use and the UPF's over the step, and whether reconcile.py explained every count
# (deploy/upflab/pinning_table.py; also OUT/table.md).
#
# Each measurement takes the machine's lock (LOCK) by itself, and inside it waits until the
# whole machine's CPU use over 5 s is below --quiet percent (at most --quiet-wait seconds; then
# it runs anyway and the table says so), so that others can use the machine between two runs.
# Do not wrap this script in `flock` yourself: it would wait for its own lock.
#
#   deploy/upflab-pinning.sh -n 5                  # 10 sweeps against Open5GS: 5 pinned, 5 not
#   deploy/upflab-pinning.sh -n 1 --quiet 100      # a trial: 2 sweeps, no waiting
#   deploy/upflab/pinning_table.py OUT             # the table again, from what OUT holds
#
# Options: -n N (5 rounds), --out DIR (reports/upflab-pinning-<time>), --upf KIND (open5gs),
#          --mode run|sweep (sweep; repeatable, e.g. --mode run --mode sweep: each measurement
#          runs them in turn against one UPF process, upflab-compare.sh's gap apart),
#          --pinned "ARGS" (the pinned variant's options: "--upf-cpus 0 --nice -10"),
#          --quiet PCT (30; 100 never waits), --quiet-wait SECONDS (1800), --pause SECONDS
#          (10, after each measurement, outside the lock)
# Env: LOCK (/tmp/upfbench-busy.lock); upflab-compare.sh's (TG_NS, DUT_NS, UPFBENCH, LAB,
#      LAB_DIR). The exit status is 0 when every measurement made a report, else 1.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
LOCK=${LOCK:-/tmp/upfbench-busy.lock}

rounds=5
out=
upf=open5gs
modes=()
pinned="--upf-cpus 0 --nice -10"
quiet=30
quiet_wait=1800
pause=10
usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -n) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --upf) upf=$2; shift 2 ;;
    --mode) modes+=("$2"); shift 2 ;;
    --pinned) pinned=$2; shift 2 ;;
    --quiet) quiet=$2; shift 2 ;;
    --quiet-wait) quiet_wait=$2; shift 2 ;;
    --pause) pause=$2; shift 2 ;;
    *) usage ;;
    esac
done
[ ${#modes[@]} -gt 0 ] || modes=(sweep)
out=${out:-$repo/reports/upflab-pinning-$(date -u +%Y-%m-%dT%H-%M-%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

log() { printf '[upflab-pinning] %s\n' "$*" >&2; }

# The whole machine's CPU use in percent over the next 5 s (as reconcile.py counts it).
busy_pct() {
    local a b
    a=$(head -1 /proc/stat)
    sleep 5
    b=$(head -1 /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN {
        n = split(a, x); split(b, y); t = 0
        for (i = 2; i <= n; i++) t += y[i] - x[i]
        idle = (y[5] - x[5]) + (y[6] - x[6])
        # Parenthesised: a bare ">" after the arguments of printf redirects to a file.
        printf "%.0f\n", (t > 0 ? 100 * (t - idle) / t : 0) }'
}

# measure ROUND VARIANT: one upflab-compare.sh under the lock, into OUT/VARIANT-ROUND.
measure() {
    local round=$1 variant=$2 dir=$out/$2-$1 args=() waited=0 busy rc start
    if [ "$variant" = pinned ]; then read -r -a args <<<"$pinned"; fi
    exec 9>>"$LOCK"
    log "round $round, $variant: waiting for the lock $LOCK"
    flock 9
    busy=$(busy_pct)
    while ((busy >= quiet && waited < quiet_wait)); do
        log "round $round, $variant: machine ${busy}% busy (want < ${quiet}%), waiting"
        sleep 25
        waited=$((waited + 30))
        busy=$(busy_pct)
    done
    start=$(date -u +%FT%TZ)
    log "round $round, $variant: machine ${busy}% busy; upflab-compare.sh --upf $upf" \
        "${args[@]}" "${modes[@]}"
    set +e
    "$repo/deploy/upflab-compare.sh" --upf "$upf" "${args[@]}" --out "$dir" "${modes[@]}" 9>&-
    rc=$?
    set -e
    flock -u 9
    exec 9>&-
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$variant" "$(basename "$dir")" "$start" \
        "$busy" "$waited" "$rc" >>"$out/runs.tsv"
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || failed=1
    sleep "$pause"
}

{
    echo "campaign: $rounds round(s), --upf $upf, modes ${modes[*]}, pinned = '$pinned'," \
        "unpinned = niceness 0, no affinity; quiet below ${quiet}% (wait at most ${quiet_wait} s)"
    echo "started: $(date -u +%FT%TZ); repository at $(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')"
} >"$out/campaign.txt"
[ -e "$out/runs.tsv" ] ||
    printf 'round\tvariant\tdir\tstarted\tbusy_before_pct\twaited_s\texit\n' >"$out/runs.tsv"

failed=0
for round in $(seq 1 "$rounds"); do
    if ((round % 2)); then order=(pinned unpinned); else order=(unpinned pinned); fi
    for variant in "${order[@]}"; do
        measure "$round" "$variant"
    done
done
python3 "$here/upflab/pinning_table.py" "$out" | tee "$out/table.md"
exit "$failed"
