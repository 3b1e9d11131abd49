# Thin wrapper around CMake. `make` builds, `make test` runs the whole suite
# (optimized build, then ASan+UBSan build), `make bench` runs benchmarks.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake
BUILD ?= build
ASAN_BUILD ?= build-asan

.PHONY: all deps build demo test test-fast test-asan bench fuzz install clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt: | deps
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	scripts/demo

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt: | deps
	CC=clang $(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DPAIMON_SANITIZE=ON \
	  -DCMAKE_C_FLAGS_DEBUG="-O1 -g"

test-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 PAIMON_SANITIZED=1 ctest --output-on-failure -j $(JOBS)

test: test-fast test-asan

bench: build
	$(CMAKE) --build $(BUILD) --target benchmarks -j $(JOBS)
	bench/run

FUZZ_SECONDS ?= 60
fuzz: deps
	CC=clang $(CMAKE) -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DPAIMON_FUZZ=ON -DCMAKE_C_FLAGS_DEBUG="-O1 -g"
	$(CMAKE) --build build-fuzz -j $(JOBS)
	scripts/run-fuzz build-fuzz $(FUZZ_SECONDS)

# make install [PREFIX=/opt/paimon] [DESTDIR=/stage]: PREFIX overrides the
# configured prefix (default /usr/local); DESTDIR stages the whole tree.
PREFIX ?=
install: build
	DESTDIR="$(DESTDIR)" $(CMAKE) --install $(BUILD) $(if $(PREFIX),--prefix "$(PREFIX)")

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
