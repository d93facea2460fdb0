# Quick start:  make run   (builds, runs the demo)
#               make test  (builds, runs the test suite)
# Both install missing Debian packages first (apt-get, as root).

BUILD      ?= build
GENERATOR  ?= Ninja
PACKAGES   := cmake ninja-build g++ pkg-config libhwloc-dev hwloc libnuma-dev \
              libboost-context-dev libgtest-dev libtbb-dev
JOBS       ?= $(shell nproc)

.PHONY: all deps configure build run test test-asan test-tsan clean

all: build

# Installs what is missing, and says nothing when nothing is.
deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "need root to apt-get install:$$missing" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(BUILD)/build.ninja: CMakeLists.txt | deps
	@cmake -S . -B $(BUILD) -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release >/dev/null

configure: deps $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@$(BUILD)/bin/locus-demo

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j 2

# The whole suite under sanitizers (separate build trees).
test-asan: deps
	@cmake -S . -B $(BUILD)-asan -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DLOCUS_SANITIZE=address >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@ctest --test-dir $(BUILD)-asan --output-on-failure -j 2 -LE no_sanitizer

test-tsan: deps
	@cmake -S . -B $(BUILD)-tsan -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DLOCUS_SANITIZE=thread >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS)
	@ctest --test-dir $(BUILD)-tsan --output-on-failure -j 2 -LE no_sanitizer

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
