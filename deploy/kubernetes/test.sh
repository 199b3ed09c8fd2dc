#!/usr/bin/env bash
# `make test`'s check of deploy/kubernetes: the manifests pass validate.sh, and each broken
# manifest of tests/ fails it with the message its `# expect:` line names (so that a check that
# passes everything cannot go unnoticed). Builds the upfbench binary if it is not there.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s%N)
export UPFBENCH=${UPFBENCH:-target/debug/upfbench}
[[ -x $UPFBENCH ]] || ${CARGO:-cargo} build --locked -q -p upfbench
bash deploy/kubernetes/validate.sh

cases=(deploy/kubernetes/tests/*.yaml)
for case in "${cases[@]}"; do
  expect=$(sed -n 's/^# expect: //p' "$case" | head -n 1)
  [[ -n $expect ]] || { echo "kubernetes: $case has no '# expect:' line" >&2; exit 1; }
  if out=$(bash deploy/kubernetes/validate.sh "$case" 2>&1); then
    echo "$out" >&2
    echo "kubernetes: $case passed, and must fail with: $expect" >&2
    exit 1
  fi
  if ! grep -qF -- "$expect" <<< "$out"; then
    echo "$out" >&2
    echo "kubernetes: $case failed, but not with: $expect" >&2
    exit 1
  fi
done
echo "kubernetes: ${#cases[@]} broken manifests fail as expected;" \
  "$(( ($(date +%s%N) - start) / 1000000 )) ms in all"
