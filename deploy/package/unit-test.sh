#!/usr/bin/env bash
# upfbench-reflector@.service under systemd, in a container of the package's image with systemd
# added (deploy/container/test.sh calls this; no systemd runs on a CI machine we could use):
# systemd-analyze verify, start, the generator served through it, the sandbox in place, a
# graceful stop (SIGTERM: exit 0, totals in the journal, Result=success).
# Usage: unit-test.sh IMAGE UNIT_IMAGE CONTAINER REPORTS_DIR [PODMAN_OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/../.."
image=$1 unit_image=$2 name=$3 reports=$4
shift 4
opts=("$@")
share=/usr/share/upfbench
unit=upfbench-reflector@quickstart.service

# man-db: the unit's Documentation=man:upfbench-reflect(1) is what verify checks it against.
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cat > "$context/Containerfile" <<CONTAINERFILE
FROM $image
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    systemd man-db > /dev/null && rm -rf /var/lib/apt/lists/*
ENTRYPOINT ["/lib/systemd/systemd"]
CONTAINERFILE
podman build "${opts[@]}" --network host -t "$unit_image" "$context" \
  > "$reports/build.log" 2>&1 || { tail -20 "$reports/build.log" >&2; exit 1; }

# --privileged: systemd makes the service's mount namespace (ProtectSystem, ProtectHome), which
# needs CAP_SYS_ADMIN in the container, and the service gets the unit's capabilities only if the
# container's bounding set holds them.
podman run -d --name "$name" "${opts[@]}" --privileged --systemd=always --network none \
  -v "$reports:/root/reports" "$unit_image" > /dev/null
in_c() { podman exec "$name" "$@"; }
# systemd is up when its bus answers and its boot has ended (degraded: some unit that has no
# use in a container failed, which does not matter here).
for _ in $(seq 100); do
  case $(in_c systemctl is-system-running 2> /dev/null) in running | degraded) break ;; esac
  sleep 0.1
done
in_c systemd-analyze verify "$unit"
in_c cp "$share/systems/memif-reflector.yaml" /etc/upfbench/quickstart.yaml
in_c systemctl start "$unit"
pid=$(in_c systemctl show -P MainPID "$unit")
for _ in $(seq 100); do
  in_c test -S /tmp/upfbench/n3.sock -a -S /tmp/upfbench/n6.sock && break
  sleep 0.1
done

# The sandbox the unit asks for: its capabilities only, /usr and /etc read-only, no new privileges.
# 0x8000227000: NET_ADMIN (12), NET_RAW (13), IPC_LOCK (14), SYS_RAWIO (17), SYS_ADMIN (21), BPF (39).
caps=$(in_c grep CapBnd "/proc/$pid/status" | awk '{print $2}')
[[ $caps == 0000008000227000 ]] || { echo "unit: bounding set $caps" >&2; exit 1; }
in_c grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$pid/status"
for dir in /usr /etc; do
  in_c awk -v d="$dir" '$5 == d && $6 ~ /^ro/ {found=1} END {exit !found}' "/proc/$pid/mountinfo" \
    || { echo "unit: $dir is not read-only for the service" >&2; exit 1; }
done

in_c sh -c "cd /root && upfbench sweep $share/systems/memif.yaml $share/profiles/quickstart.yaml \
  --payloads 1400 > reports/generator.log 2>&1" || { cat "$reports/generator.log" >&2; exit 1; }

# A crash is restarted (Restart=on-failure, 5 s later), and the restarted reflector is stopped
# gracefully as the first would have been.
in_c sh -c "kill -KILL $pid"
for _ in $(seq 150); do
  [[ $(in_c systemctl show -P NRestarts "$unit") == 1 && $(in_c systemctl is-active "$unit") == active ]] && break
  sleep 0.1
done
restarts=$(in_c systemctl show -P NRestarts "$unit")
[[ $restarts == 1 && $(in_c systemctl show -P MainPID "$unit") != "$pid" ]] \
  || { echo "unit: not restarted after SIGKILL (NRestarts=$restarts)" >&2; exit 1; }
in_c systemctl stop "$unit"
result=$(in_c systemctl show -P Result "$unit")
status=$(in_c systemctl show -P ExecMainStatus "$unit")
in_c journalctl -u "$unit" --no-pager > "$reports/journal.txt"
# The restarted reflector found the killed one's memif sockets and removed them (else it could not
# have bound them: "Address already in use").
grep -q 'removed /tmp/upfbench/n3.sock: a memif socket no server listened on' "$reports/journal.txt" \
  || { cat "$reports/journal.txt" >&2; echo "unit: the stale memif socket was not removed" >&2; exit 1; }
[[ $result == success && $status == 0 ]] && grep -q 'reflect: totals' "$reports/journal.txt" \
  || { cat "$reports/journal.txt" >&2; echo "unit: Result=$result, status $status" >&2; exit 1; }
echo "unit: $unit verified, started, sandboxed (CapBnd $caps, /usr and /etc read-only)," \
  "served: $(python3 deploy/package/check_report.py "$(ls "$reports"/*-sweep/report.json)" 1400);" \
  "restarted after SIGKILL; stopped by SIGTERM: Result=$result, exit $status"
