#!/usr/bin/env bash
# Make's shell under CI (.ci/run: `make test SHELL=/bin/bash .SHELLFLAGS=deploy/ci-step.sh`):
# runs one recipe line as `bash -c` would, then prints how long it took, so that a CI log says
# where its minutes went (the budget is 30: .ci/run).
started=$SECONDS
bash -c "$1"
status=$?
echo "ci: $((SECONDS - started)) s, exit $status: ${1:0:120}" >&2
exit "$status"
