# The two commands of the README: `make quickstart` and `make test`.
CARGO ?= cargo

.PHONY: setup build quickstart test lint fmt bench fuzz

setup:
	bash deploy/setup.sh

build: setup
	$(CARGO) build --release --locked

# The main job on the embedded default. The generator and the reflector are not written yet: until they
# land this builds upfbench and lists the DPDK ports that the no-NIC testbed's vdevs produce.
QUICKSTART_EAL = --no-huge -m 256 --no-pci --no-shconf --file-prefix upfbench-quickstart \
	--vdev net_null0 --vdev net_ring0
quickstart: build
	./target/release/upfbench ports -- $(QUICKSTART_EAL)
	@echo "quickstart: the generator-against-reflector run is not implemented yet (see README, state of each part)"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

test: setup lint
	$(CARGO) test --workspace --locked
	bash deploy/fuzz-smoke.sh

# Every cargo-fuzz target for FUZZ_SECONDS each (make test runs them for 20 s).
fuzz: setup
	FUZZ_SECONDS=$${FUZZ_SECONDS:-300} bash deploy/fuzz-smoke.sh

fmt:
	$(CARGO) fmt --all

bench: setup
	$(CARGO) bench --workspace --locked
