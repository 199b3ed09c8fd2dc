# The two commands of the README: `make quickstart` and `make test`.
CARGO ?= cargo

.PHONY: setup build quickstart test lint fmt bench

setup:
	bash deploy/setup.sh

build: setup
	$(CARGO) build --release --locked

# The main job on the embedded default. Until the reflector and the datapath land it only builds.
quickstart: build
	@echo "quickstart: built target/release/upfbench; the generator-against-reflector run lands with the datapath issues"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

test: setup lint
	$(CARGO) test --workspace --locked

fmt:
	$(CARGO) fmt --all

bench: setup
	$(CARGO) bench --workspace --locked
