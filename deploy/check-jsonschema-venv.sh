#!/usr/bin/env bash
# check-jsonschema from PyPI, the independent validator of the shipped YAML files against the
# JSON Schemas in schema/ (config::schema's validator test in crates/generator, which finds it
# here), and openapi-spec-validator, which checks the HTTP API's OpenAPI 3.1 document
# (schema/api/v1/openapi.json; the api crate's openapi validator test finds it here), in one
# virtual environment under target/ so that no interpreter's own packages change.
# Idempotent: nothing is downloaded when the environment already has them. `make test` runs
# it before the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/check-jsonschema
version=0.39.0
openapi_version=0.9.0
has() {
  "$venv/bin/python3" -c "import importlib.metadata as m, sys
sys.exit(m.version('check-jsonschema') != '$version'
         or m.version('openapi-spec-validator') != '$openapi_version')" 2>/dev/null
}

if has; then
  exit 0
fi
rm -rf "$venv"
mkdir -p target
# Debian's python3 needs python3-venv for this (deploy/setup.sh installs it).
python3 -m venv "$venv"
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check \
  "check-jsonschema==$version" "openapi-spec-validator==$openapi_version"
has || {
  echo "check-jsonschema-venv: check-jsonschema $version or openapi-spec-validator" \
    "$openapi_version did not install into $venv" >&2
  exit 1
}
echo "check-jsonschema-venv: check-jsonschema $version, openapi-spec-validator" \
  "$openapi_version in $venv"
