#!/usr/bin/env bash
# Back to back through the reflector over memif (issue 10's benchmark): `upfbench run` (generator)
# and `upfbench reflect` (the UPF stand-in) as two processes joined by two memif links, one
# direction at a time at a rate neither reaches (the generator sends as fast as it can), frames of
# 64 bytes on the plain side (payload 22 B; the G-PDUs on N3 are 36 bytes longer, 44 with the PDU
# Session Container). Side by side, in the same run, two `dpdk-testpmd` processes, txonly to rxonly
# over one memif link with 64-byte frames: the forwarding floor of memif on this machine.
#
#   benches/reflector_memif.sh                 # 3 rounds of 5 s
#   ROUNDS=5 WINDOW=10 MODE=hugepages benches/reflector_memif.sh
#
# Reported per direction: the generator's received rate (what came back through the reflector),
# the testpmd pair's (rxonly's Rx-pps), their ratio (target >= 0.8 on a machine of 4 or more
# cores, where the generator's worker does not both send and receive), and the reflector's own
# forwarding rate on its one worker core (the median of its per-second counts while it forwarded).
# The target on any machine (issue 15): through the reflector at least 0.8 x the testpmd loop
# below, in both directions, each round against the loop run right after it on the same cores:
# the median of the rounds' ratios is printed. BURST (64) is the profile's max_burst and
# testpmd's --burst; CATCH_UP (10%) the profile's catch_up.
# And a second floor: two testpmd processes in the generator's and the reflector's places, joined
# by the same two memif links and forwarding frames round between them (run_testpmd_loop): on two
# cores, each core then does per packet what the generator's and the reflector's do (receive on
# one memif link, send on the other) and nothing else, so its rate bounds any generator and
# reflector pair on this machine; the ratio to it is how much of that bound upfbench reaches.
# All rates are medians of per-second readings, without the first and the last (partial) second.
# Lcores: generator main 0, worker 1; reflector main 1, worker 0; testpmd txonly main 0, fwd 1;
# rxonly main 1, fwd 0. Two CPUs carry two busy-polling lcores either way.
#
# Needs root, dpdk-testpmd, jq; binds 127.0.0.1:8805 and 127.0.0.2:8805 (PFCP): do not run it
# beside the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-5}
MODE=${MODE:-nohuge}
TESTPMD=${TESTPMD:-dpdk-testpmd}
BIN=${BIN:-target/release/upfbench}
PAYLOAD=${PAYLOAD:-22}
CATCH_UP=${CATCH_UP:-10%} # how far above 40 Mpps a late generator may send (docs/reference/profile.md)
# The generator's max_burst and testpmd's --burst (upfbench receives up to 64 a poll).
BURST=${BURST:-64}
PARTS=${PARTS:-"upfbench pair loop"} # what to measure (the others print nan)

command -v "$TESTPMD" >/dev/null || { echo "needs $TESTPMD (apt-get install dpdk)" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "needs root (EAL)" >&2; exit 1; }
[[ -x $BIN ]] || cargo build --release --locked -q -p upfbench --features static

work=$(mktemp -d)
sock=$work/sock
mkdir -p "$sock"
hugepages_before=$(cat /proc/sys/vm/nr_hugepages)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  echo "$hugepages_before" >/proc/sys/vm/nr_hugepages
  if [[ -n ${KEEP:-} ]]; then echo "kept $work" >&2; else rm -rf "$work"; fi
  rm -rf /var/run/dpdk/upfb-rb-{gen,refl,tx,rx,la,lb}-$$
}
trap cleanup EXIT
case $MODE in
  nohuge) mem='--no-huge, -m, "1024"' tp_mem="--no-huge -m 1024" ;;
  hugepages)
    (($(cat /proc/sys/vm/nr_hugepages) >= 2048)) || echo 2048 >/proc/sys/vm/nr_hugepages
    mem='--in-memory, -m, "1024"' tp_mem="--in-memory -m 1024" ;;
  *) echo "MODE=nohuge|hugepages" >&2; exit 1 ;;
esac

sed -e "s|socket=/tmp/upfbench/|socket=$sock/|" -e "s|args: \[--no-huge, -m, \"512\"|args: [$mem|" \
  -e "s|file_prefix: .*|file_prefix: upfb-rb-gen-$$|" -e "s|^reports: .*|reports: $work/reports|" \
  deploy/systems/memif.yaml >"$work/gen.yaml"
sed -e "s|socket=/tmp/upfbench/|socket=$sock/|" -e "s|args: \[--no-huge, -m, \"512\"|args: [$mem|" \
  -e "s|file_prefix: .*|file_prefix: upfb-rb-refl-$$|" \
  deploy/systems/memif-reflector.yaml >"$work/refl.yaml"

profile() { # direction
  cat >"$work/profile.yaml" <<YAML
name: reflector-bench
sessions: {count: 64}
streams:
  - {name: s, direction: $1, rate: 40Mpps, payload: $PAYLOAD, spread: round_robin}
duration: ${WINDOW}s
catch_up: $CATCH_UP
max_burst: $BURST
warmup: 1s
drain: 200ms
YAML
}

# Prints "rx_mpps tx_mpps reflector_mpps" for one direction.
run_upfbench() { # direction
  profile "$1"
  rm -rf "$work/reports" "$sock"/*.sock
  "$BIN" reflect "$work/refl.yaml" >"$work/refl.out" 2>"$work/refl.err" &
  local refl=$!
  pids+=("$refl")
  for _ in $(seq 100); do [[ -S $sock/n3.sock && -S $sock/n6.sock ]] && break; sleep 0.1; done
  "$BIN" run "$work/gen.yaml" "$work/profile.yaml" --reports "$work/reports" >"$work/gen.out" 2>&1 ||
    { cat "$work/gen.out" >&2; }
  kill -TERM "$refl"; wait "$refl" || true
  local col=3
  [[ $1 == downlink ]] && col=6
  local fwd
  awk -v c="$col" '$2 == "UL" && $c > 0 { print $c }' "$work/refl.out" >"$work/refl.pps"
  fwd=$(steady_median "$work/refl.pps")
  jq -r --arg f "$fwd" '.steps[0].directions[0] | "\(.rx.kpps / 1000) \(.tx.kpps / 1000) \($f)"' \
    "$work"/reports/*/report.json 2>/dev/null || echo "nan nan $fwd"
}

# The median of a file's per-second readings (one number per line) without the first and the
# last (partial seconds: the run starting and stopping), in Mpps.
steady_median() {
  awk '{ v[NR] = $1 } END { for (i = 2; i < NR; i++) print v[i] }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.3f\n", v[int((NR + 1) / 2)] / 1e6; else print "nan" }'
}

run_testpmd_pair() {
  local s=$sock/tp.sock out=$work/tp-rx.out
  rm -f "$s"
  # shellcheck disable=SC2086
  timeout -s INT $((WINDOW + 6)) "$TESTPMD" -l 0,1 --main-lcore 1 $tp_mem --no-pci --no-telemetry \
    --log-level lib.eal:warning --file-prefix "upfb-rb-rx-$$" \
    --vdev "net_memif0,role=server,id=0,socket=$s,socket-abstract=no" -- \
    --forward-mode=rxonly --nb-cores=1 --rxq=1 --txq=1 --burst=32 --stats-period=1 \
    >"$out" 2>&1 &
  local rx=$!
  # txonly connects once the server's socket exists (on a loaded machine 1.5 s was not enough).
  for _ in $(seq 100); do [[ -S $s ]] && break; sleep 0.1; done
  sleep 0.5
  # shellcheck disable=SC2086
  timeout -s INT $((WINDOW + 3)) "$TESTPMD" -l 0,1 $tp_mem --no-pci --no-telemetry \
    --log-level lib.eal:warning --file-prefix "upfb-rb-tx-$$" \
    --vdev "net_memif0,role=client,id=0,socket=$s,socket-abstract=no" -- \
    --forward-mode=txonly --txpkts=64 --nb-cores=1 --rxq=1 --txq=1 --burst=32 --stats-period=1 \
    >"$work/tp-tx.out" 2>&1 || true
  wait "$rx" || true
  # rxonly's readings while txonly sent.
  awk '/Rx-pps:/ && $2 > 0 { print $2 }' "$out" >"$work/tp-rx.pps"
  steady_median "$work/tp-rx.pps"
}

# Two testpmd processes joined by two memif links, in the roles of the generator (client on both,
# worker on lcore 1) and the reflector (server on both, worker on lcore 0), both forwarding
# (io: port 0 to port 1 and back); `start tx_first 64` puts 64 bursts of 32 64-byte frames on
# each port, which then go round. Each core receives every packet on one link and sends it on
# the other, as the generator's worker and the reflector's do: the rate one of them forwards is
# what any generator and reflector could reach over two memif links on these two cores if their
# own work cost nothing.
run_testpmd_loop() {
  local a=$sock/loop-a.sock b=$sock/loop-b.sock out=$work/tp-loop.out
  rm -f "$a" "$b"
  {
    sleep 1
    echo start
    for ((i = 0; i < WINDOW + 5; i++)); do sleep 1; echo "show port stats all"; done
    echo stop; sleep 0.5; echo quit
  } | timeout -s INT $((WINDOW + 12)) "$TESTPMD" -l 0,1 --main-lcore 1 $tp_mem --no-pci \
    --no-telemetry --log-level lib.eal:warning --file-prefix "upfb-rb-la-$$" \
    --vdev "net_memif0,role=server,id=0,socket=$a,socket-abstract=no" \
    --vdev "net_memif1,role=server,id=0,socket=$b,socket-abstract=no" -- \
    -i --forward-mode=io --nb-cores=1 --burst=$BURST >"$work/tp-loop-a.out" 2>&1 &
  local server=$!
  sleep 1.5
  {
    sleep 1.5
    echo "start tx_first 64"
    for ((i = 0; i < WINDOW + 2; i++)); do sleep 1; echo "show port stats all"; done
    echo stop; sleep 0.5; echo quit
  } | timeout -s INT $((WINDOW + 9)) "$TESTPMD" -l 0,1 --main-lcore 0 $tp_mem --no-pci \
    --no-telemetry --log-level lib.eal:warning --file-prefix "upfb-rb-lb-$$" \
    --vdev "net_memif0,role=client,id=0,socket=$a,socket-abstract=no" \
    --vdev "net_memif1,role=client,id=0,socket=$b,socket-abstract=no" -- \
    -i --forward-mode=io --nb-cores=1 --burst=$BURST --txpkts=64 >"$out" 2>&1 || true
  wait "$server" || true
  # Each "show port stats all" prints both ports' Rx-pps since the last one: their sum is what
  # the client's core forwarded in that second.
  awk '/Rx-pps:/ { sum += $2; if (++n % 2 == 0) { if (sum > 0) print sum; sum = 0 } }' "$out" >"$work/tp-loop.pps"
  steady_median "$work/tp-loop.pps"
}

# The median of the rounds that measured (a round whose testpmd never connected reads nan).
median() { tr ' ' '\n' | grep -v -e '^$' -e nan | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

echo "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), memory $MODE, $ROUNDS rounds of $WINDOW s"
for dir in uplink downlink; do
  rx="" tx="" fwd="" tp="" loop=""
  for ((r = 0; r < ROUNDS; r++)); do
    a=nan b=nan c=nan
    [[ " $PARTS " != *" upfbench "* ]] || read -r a b c < <(run_upfbench "$dir")
    rx+=" $a" tx+=" $b" fwd+=" $c"
    if [[ " $PARTS " == *" pair "* ]]; then tp+=" $(run_testpmd_pair)"; else tp+=" nan"; fi
    if [[ " $PARTS " == *" loop "* ]]; then loop+=" $(run_testpmd_loop)"; else loop+=" nan"; fi
  done
  echo "  $dir rounds: generator rx$rx | generator tx$tx | reflector$fwd | testpmd pair$tp | testpmd loop$loop" >&2
  # Each round's ratio to the loop measured just after it, on the same cores: the target.
  ratios=$(paste -d' ' <(tr ' ' '\n' <<<"${rx# }") <(tr ' ' '\n' <<<"${loop# }") |
    awk '$1 != "nan" && $2 != "nan" && $2 > 0 { printf " %.3f", $1 / $2 }')
  echo "  $dir rounds: ratio to the loop of the same round${ratios:- nan}" >&2
  awk -v d="$dir" -v rx="$(median <<<"$rx")" -v tx="$(median <<<"$tx")" -v f="$(median <<<"$fwd")" -v tp="$(median <<<"$tp")" -v lp="$(median <<<"$loop")" -v rr="$(median <<<"$ratios")" \
    'BEGIN { printf "%-8s through the reflector %.3f Mpps (generator sent %.3f), reflector worker %.3f Mpps/core; testpmd pair %.3f Mpps: ratio %.2f (target >= 0.8 with 4 or more cores); testpmd loop %.3f Mpps: ratio %.2f, median of the rounds ratios %.2f (target >= 0.8)\n", d, rx, tx, f, tp, rx / tp, lp, rx / lp, rr }'
done
