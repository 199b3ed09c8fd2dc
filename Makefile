# The two commands of the README: `make quickstart` and `make test`.
CARGO ?= cargo
# The Python client's venv (deploy/python-client-venv.sh) and mypy's cache, both under target/.
PYCLIENT = target/pyclient/bin
PYCLIENT_CACHE = target/pyclient/mypy-cache

.PHONY: setup setup-lab setup-test build quickstart package test test-prepare venvs chroots lint fmt \
	bench fuzz

setup:
	bash deploy/setup.sh

# What the tests need beyond setup: chromium, for the report page's browser test.
setup-test:
	bash deploy/setup.sh --test

# What the real-UPF lab (deploy/upflab-compare.sh) needs beyond setup: bpftool, jq, curl.
setup-lab:
	bash deploy/setup.sh --lab

# The release binary links DPDK statically (about 16 % more TX than the shared libraries).
build: setup
	$(CARGO) build --release --locked --features static

# The main job on the embedded default: upfbench reflect and upfbench sweep joined by memif.
quickstart: build
	bash deploy/quickstart.sh

# The Debian package, target/package/upfbench_VERSION_ARCH.deb (docs/install.md).
package: build
	bash deploy/package/build.sh

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --locked

# The lint, the Python tools and the chroots side by side (test-prepare): the first is the CPU's,
# the others mostly wait on downloads; then the tests, one after another.
test: setup-test
	$(MAKE) --no-print-directory -j3 --output-sync=target test-prepare
	$(PYCLIENT)/mypy --strict --cache-dir $(PYCLIENT_CACHE) clients/python/src \
		clients/python/tests clients/python/examples
	$(PYCLIENT)/mypy --strict --cache-dir $(PYCLIENT_CACHE) clients/python/e2e
	cd clients/python && ../../$(PYCLIENT)/python3 -m pytest -q -p no:cacheprovider tests
	$(CARGO) test --workspace --locked
	CARGO=$(CARGO) bash deploy/kubernetes/test.sh
	bash deploy/no-dpdk-test.sh
	python3 -m unittest discover -s deploy/upflab
	bash deploy/fuzz-smoke.sh
	bash deploy/package/test.sh

test-prepare: lint venvs chroots

# The Python tools the tests run, each in a venv under target/.
venvs:
	bash deploy/mlrsearch-venv.sh
	bash deploy/check-jsonschema-venv.sh
	bash deploy/kubernetes-validate-venv.sh
	bash deploy/python-client-venv.sh

# The Debian 12 roots of the no-DPDK test and the package test (downloads, kept under target/).
chroots:
	bash deploy/chroot-base.sh > /dev/null
	bash deploy/no-dpdk-chroot.sh > /dev/null

# Every cargo-fuzz target for FUZZ_SECONDS each (make test runs them for 10 s).
fuzz: setup
	FUZZ_SECONDS=$${FUZZ_SECONDS:-300} bash deploy/fuzz-smoke.sh

fmt:
	$(CARGO) fmt --all

bench: setup
	$(CARGO) bench --workspace --locked
