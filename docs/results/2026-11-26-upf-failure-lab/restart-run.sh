#!/usr/bin/env bash
# restart-run.sh SYSTEM NAME RUNNER: a 20 s run of 1,000 sessions; the UPF killed and started again 9 s in.
set -u
L=/tmp/ws-failure-lab; sys=$1; name=$2; runner=$3
cd /work/ws-failure
ip netns exec tg target/release/upfbench run "$sys" $L/prof-20s.yaml --reports $L/$name > $L/$name.log 2>&1 &
pid=$!
sleep 9
date +%s%3N > $L/$name.killed-at
$runner stop
$runner start | tail -1
date +%s%3N >> $L/$name.killed-at
wait $pid; echo rc=$? >> $L/$name.log
