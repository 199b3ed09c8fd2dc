#!/usr/bin/env bash
# The container image and the reflector's systemd unit, with podman (deploy/package/test.sh runs
# this with the .deb and the Debian 12 base it installed it on; no registry is needed: that base
# is imported as the image's BASE). Checks:
#   - the image validates the installed examples;
#   - the quickstart's two roles in two containers: the reflector in a network namespace of its
#     own, the generator in the reflector's (PFCP over its loopback), the memif sockets in a
#     shared volume; the sweep measures, the reflector stops on SIGTERM with exit 0;
#   - upfbench-reflector@quickstart.service under systemd in a container: systemd-analyze verify,
#     started, serving the generator, sandboxed as the unit says, stopped with Result=success.
# Where podman cannot run a container (no overlay, cgroups or namespaces it can use), this part
# says so and why, and is skipped; the chroot's checks have run by then.
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=$1
base=$2
skip() { echo "container test: SKIPPED: $*"; exit 0; }
command -v podman > /dev/null || skip "podman is not installed (deploy/setup.sh --test installs it)"

id=upfbench-test-$$
base_image=localhost/$id-base:bookworm
image=localhost/$id:latest
unit_image=localhost/$id-systemd:latest
scratch=$(mktemp -d "$(dirname "$(realpath "$base")")/container.XXXXXX")
cleanup() {
  podman rm -f -t 0 "$id-reflector" "$id-systemd" > /dev/null 2>&1 || true
  podman volume rm -f "$id-memif" > /dev/null 2>&1 || true
  podman rmi -f "$unit_image" "$image" "$base_image" > /dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

# podman's default limits for root (1048576 open files) need CAP_SYS_RESOURCE, which the root of
# some sandboxed VMs lacks; upfbench needs few. crun refuses cgroups v1 with controllers on the
# v2 hierarchy too (a hybrid host); runc takes them.
opts=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
podman import -q "$base" "$base_image" > /dev/null
# --network none wherever no network is needed: a CNI bridge needs iptables, which podman's
# package does not bring.
if ! error=$(podman run --rm --network none "${opts[@]}" "$base_image" true 2>&1); then
  command -v runc > /dev/null || skip "podman cannot run a container here: $error (and runc is not installed)"
  runc_error=$(podman run --rm --network none --runtime runc "${opts[@]}" "$base_image" true 2>&1) \
    || skip "podman cannot run a container here: $error; with runc: $runc_error"
  echo "container test: podman's default runtime cannot run here ($error); runc can"
  opts+=(--runtime runc)
fi

# The build's apt-get reaches Debian's mirror through the host's network (no CNI needed).
context=$scratch/context
mkdir -p "$context" "$scratch/reports" "$scratch/unit-reports"
cp "$deb" "$context/"
podman build "${opts[@]}" --network host --build-arg "BASE=$base_image" \
  -f deploy/container/Containerfile -t "$image" "$context" > "$scratch/build.log" 2>&1 \
  || { tail -20 "$scratch/build.log" >&2; exit 1; }
share=/usr/share/upfbench
podman run --rm --network none "${opts[@]}" "$image" validate "$share/systems/memif.yaml" \
  "$share/systems/memif-reflector.yaml" "$share/profiles/quickstart.yaml" > /dev/null
echo "container test: image built from $(basename "$deb"); upfbench validate ok in it"

# Waits until the reflector in container $1 has made both memif sockets.
wait_sockets() {
  for _ in $(seq 100); do
    podman exec "$1" test -S /tmp/upfbench/n3.sock -a -S /tmp/upfbench/n6.sock && return 0
    sleep 0.1
  done
  echo "container test: no memif sockets in $1" >&2
  podman logs "$1" >&2
  return 1
}

podman run -d --name "$id-reflector" "${opts[@]}" --network none -v "$id-memif:/tmp/upfbench" \
  "$image" reflect "$share/systems/memif-reflector.yaml" > /dev/null
wait_sockets "$id-reflector"
podman run --rm "${opts[@]}" --network "container:$id-reflector" -v "$id-memif:/tmp/upfbench" \
  -v "$scratch/reports:/var/lib/upfbench/reports" "$image" \
  sweep "$share/systems/memif.yaml" "$share/profiles/quickstart.yaml" --payloads 1400 \
  > "$scratch/generator.log" 2>&1 || { cat "$scratch/generator.log" >&2; exit 1; }
podman stop -t 30 "$id-reflector" > /dev/null
status=$(podman inspect -f '{{.State.ExitCode}}' "$id-reflector")
podman logs "$id-reflector" > "$scratch/reflector.log" 2>&1
[[ $status == 0 ]] && grep -q '^reflect: totals' "$scratch/reflector.log" \
  || { cat "$scratch/reflector.log" >&2; echo "container test: reflector exit $status" >&2; exit 1; }
echo "container test: two containers measured: $(python3 deploy/package/check_report.py \
  "$(ls "$scratch"/reports/*-sweep/report.json)" 1400); reflector exit 0 on SIGTERM"

bash deploy/package/unit-test.sh "$image" "$unit_image" "$id-systemd" "$scratch/unit-reports" "${opts[@]}"
