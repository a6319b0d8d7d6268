# kgate — the two commands a fresh Debian bookworm machine needs: `make run` and `make test`.
GEN        ?= Ninja
DATA_DIR   ?= ./kgate-data
JOBS       ?= $(shell nproc)

.PHONY: all deps build run test test-quick bench fuzz soak format clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B build -G $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKGATE_TESTS=OFF >/dev/null
	@cmake --build build -j $(JOBS)

run: build
	@./build/kgate serve --data-dir $(DATA_DIR)

# Builds twice (-Werror, then ASan+UBSan) and runs every test in both; ends with "N passed, N failed".
test: deps
	@scripts/run-tests

# One -Werror build and its tests only (for quick iterations).
test-quick: deps
	@KGATE_TEST_CONFIGS=werror scripts/run-tests

bench: deps
	@scripts/run-bench

fuzz: deps
	@scripts/run-fuzz $(FUZZ_SECONDS)

# Not in CI: SOAK_MINUTES (default 30) of mixed and hostile load with periodic kill -9; bench/results/soak.md.
soak: deps
	@scripts/run-soak

format:
	@git ls-files '*.c' '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf build build-test build-asan build-tsan build-fuzz build-bench build-soak
