#!/usr/bin/env bash
# loss-run.sh NAME PROFILE: a run with 30 % of n4 lost each way; eUPF's session count read over its API once established.
set -u
L=/tmp/ws-failure-lab; name=$1; prof=$2
cd /work/ws-failure
deploy/upflab/n4-loss.sh on 30
ip netns exec tg target/release/upfbench run $L/sys-loss.yaml "$prof" --reports $L/$name > $L/$name.log 2>&1 &
pid=$!
for _ in $(seq 600); do
  grep -q "sessions established\|was not established\|stopping the establishment" $L/$name.log && break
  sleep 0.1
done
sleep 1
ip netns exec dut curl -sf --max-time 2 http://127.0.0.1:8080/api/v1/pfcp_sessions > $L/$name.sessions.json || echo "no API" > $L/$name.sessions.json
ip netns exec dut curl -sf --max-time 2 http://127.0.0.1:8080/api/v1/pfcp_associations > $L/$name.associations.json || true
wait $pid; echo rc=$? >> $L/$name.log
deploy/upflab/n4-loss.sh show | grep counter > $L/$name.nft
deploy/upflab/n4-loss.sh off
