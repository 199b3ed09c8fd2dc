#!/usr/bin/env bash
# Checks Kubernetes manifests offline, with no cluster (docs/kubernetes.md#what-was-tried):
#   - kubernetes-validate --strict against the API schemas of Kubernetes 1.30.0 and 1.37.0 (the
#     oldest and newest this set is for): every field known and of its type; any WARN fails but
#     the NetworkAttachmentDefinitions', whose CRD kubernetes-validate does not bundle;
#   - each NetworkAttachmentDefinition with check-jsonschema against the Multus CRD's schema
#     (schema/network-attachment-definition.json), its spec.config parsed as JSON with a CNI
#     type (manifests.py);
#   - the upfbench files in the ConfigMaps against their JSON Schemas (schema/) and with
#     `upfbench validate` (each alone and the profile planned on each system file), with the
#     SR-IOV device plugin's variables set as in a pod;
#   - every pod that takes hugepages or a device: Guaranteed QoS with whole CPUs (manifests.py);
#   - kustomization.yaml's resources against the directory (with no FILE given).
# Usage: validate.sh [FILE...]   (default: every manifest of deploy/kubernetes)
# Needs target/kubernetes-validate and target/check-jsonschema (deploy/*-venv.sh) and the
# upfbench binary ($UPFBENCH, default target/debug/upfbench).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=deploy/kubernetes
kv=target/kubernetes-validate/bin/kubernetes-validate
python=target/kubernetes-validate/bin/python3
cj=target/check-jsonschema/bin/check-jsonschema
upfbench=${UPFBENCH:-target/debug/upfbench}
for tool in "$kv" "$cj" "$upfbench"; do
  [[ -x $tool ]] || { echo "kubernetes: $tool is missing (make test installs it)" >&2; exit 1; }
done

if (($#)); then
  files=("$@")
else
  files=()
  for f in "$dir"/*.yaml; do
    [[ $f == */kustomization.yaml ]] || files+=("$f")
  done
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "kubernetes: $*" >&2; failed=1; }

# The API's schemas, offline. A kind it has no schema for is a WARN: only the NADs may be.
nad_warning="Couldn't find schema for kind NetworkAttachmentDefinition"
for version in 1.30.0 1.37.0; do
  if ! out=$("$kv" --strict -k "$version" "${files[@]}" 2>&1); then
    echo "$out" >&2
    fail "kubernetes-validate -k $version refused the manifests"
    continue
  fi
  warnings=$(grep '^WARN' <<< "$out" | grep -v "$nad_warning" || true)
  if [[ -n $warnings ]]; then
    echo "$warnings" >&2
    fail "kubernetes-validate -k $version warned"
  fi
  echo "kubernetes: $(grep -c '^INFO.* passed' <<< "$out" || true) resources pass Kubernetes" \
    "$version's schemas (strict); $(grep -c "$nad_warning" <<< "$out" || true) NADs left to" \
    "their CRD's schema"
done

# The NADs: the CRD's schema, then their CNI configurations.
mkdir "$scratch/nads"
cni=ok
"$python" "$dir/manifests.py" nads "$scratch/nads" "${files[@]}" \
  || { cni=wrong; fail "a NAD's CNI configuration is wrong"; }
nads=("$scratch"/nads/*.json)
if [[ -e ${nads[0]} ]]; then
  if out=$("$cj" --schemafile "$dir/schema/network-attachment-definition.json" "${nads[@]}" 2>&1); then
    echo "kubernetes: ${#nads[@]} NADs pass the Multus CRD's schema; their CNI configurations: $cni"
  else
    echo "$out" >&2
    fail "a NAD does not fit the Multus CRD's schema"
  fi
fi

"$python" "$dir/manifests.py" qos "${files[@]}" \
  || fail "a data-plane pod would get no CPUs of its own from the static CPU manager"

# The upfbench files, as the pods would read them: the device plugin's variables set, `cores:
# auto` on this process's CPUs.
mkdir "$scratch/files"
listed=$("$python" "$dir/manifests.py" configmaps "$scratch/files" "${files[@]}") \
  || fail "a ConfigMap holds a file that is not upfbench's"
config_files=()
while read -r kind path; do
  [[ -n $path ]] || continue
  config_files+=("$path")
  # The JSON Schema an editor checks the file with takes its forms too (`auto`, `{env: ...}`).
  out=$("$cj" --schemafile "schema/$kind.schema.json" "$path" 2>&1) \
    || { echo "$out" >&2; fail "$(basename "$path") does not fit schema/$kind.schema.json"; }
done <<< "$listed"
if ((${#config_files[@]})); then
  if out=$(PCIDEVICE_INTEL_COM_UPFBENCH_N3=0000:3b:02.0 PCIDEVICE_INTEL_COM_UPFBENCH_N6=0000:3b:0a.0 \
    "$upfbench" validate "${config_files[@]}" 2>&1); then
    echo "kubernetes: ${#config_files[@]} files of the ConfigMaps pass their JSON Schemas and" \
      "upfbench validate ($(basename -a "${config_files[@]}" | tr '\n' ' ' | sed 's/ $//'))"
  else
    echo "$out" >&2
    fail "upfbench validate refused a file of the ConfigMaps"
  fi
fi

if ((!$#)); then
  "$python" "$dir/manifests.py" kustomization "$dir" || fail "kustomization.yaml and the directory disagree"
fi
exit "$failed"
