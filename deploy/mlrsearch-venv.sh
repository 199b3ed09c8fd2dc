#!/usr/bin/env bash
# CSIT's MLRsearch 1.2.1 from PyPI, for the search's differential test
# (crates/search/tests/mlrsearch_differential/, which finds it here), in a virtual
# environment under target/ so that no interpreter's own packages change. Idempotent: nothing
# is downloaded when the environment already has it. `make test` runs it before the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/mlrsearch
version=1.2.1
has() {
  "$venv/bin/python3" -c "import importlib.metadata as m, sys, MLRsearch
sys.exit(m.version('MLRsearch') != '$version')" 2>/dev/null
}

if has; then
  exit 0
fi
rm -rf "$venv"
mkdir -p target
# Debian's python3 needs python3-venv for this (deploy/setup.sh installs it).
python3 -m venv "$venv"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "MLRsearch==$version"
has || {
  echo "mlrsearch-venv: MLRsearch $version did not install into $venv" >&2
  exit 1
}
echo "mlrsearch-venv: MLRsearch $version in $venv"
