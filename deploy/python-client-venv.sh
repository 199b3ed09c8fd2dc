#!/usr/bin/env bash
# The Python client's test tools (clients/python, docs/scale.md §5): pytest and mypy from PyPI,
# pinned, and the client itself installed editable, in one virtual environment under target/ so
# that no interpreter's own packages change. Idempotent: nothing is downloaded when the
# environment already has them. `make test` runs it, then mypy --strict and the unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/pyclient
pytest_version=8.3.4
mypy_version=1.13.0
has() {
  "$venv/bin/python3" -c "import importlib.metadata as m, sys
sys.exit(m.version('pytest') != '$pytest_version' or m.version('mypy') != '$mypy_version'
         or m.version('upfbench-client') is None)" 2>/dev/null
}

if has; then
  exit 0
fi
rm -rf "$venv"
mkdir -p target
# Debian's python3 needs python3-venv for this (deploy/setup.sh installs it).
python3 -m venv "$venv"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
  "pytest==$pytest_version" "mypy==$mypy_version" -e "clients/python[test]"
has || {
  echo "python-client-venv: pytest $pytest_version, mypy $mypy_version or the client did not" \
    "install into $venv" >&2
  exit 1
}
echo "python-client-venv: pytest $pytest_version, mypy $mypy_version and upfbench-client" \
  "(editable) in $venv"
