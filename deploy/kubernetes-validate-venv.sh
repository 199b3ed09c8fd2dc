#!/usr/bin/env bash
# kubernetes-validate from PyPI, which checks the manifests of deploy/kubernetes/ against the
# Kubernetes API's own schemas, bundled for each release (no cluster, no network:
# deploy/kubernetes/validate.sh), in a virtual environment under target/ so that no
# interpreter's own packages change. Idempotent: nothing is downloaded when the environment
# already has it. `make test` runs it before the manifests' check.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/kubernetes-validate
version=1.37.0
has() {
  "$venv/bin/python3" -c "import importlib.metadata as m, sys
sys.exit(m.version('kubernetes-validate') != '$version')" 2>/dev/null
}

if has; then
  exit 0
fi
rm -rf "$venv"
mkdir -p target
# Debian's python3 needs python3-venv for this (deploy/setup.sh installs it).
python3 -m venv "$venv"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
  "kubernetes-validate==$version"
has || {
  echo "kubernetes-validate-venv: kubernetes-validate $version did not install into $venv" >&2
  exit 1
}
echo "kubernetes-validate-venv: kubernetes-validate $version in $venv"
