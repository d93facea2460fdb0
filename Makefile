# Quick start:  make run   (builds, runs the demo and the first-look suite:
#                          10 benchmarks, locus against oneTBB and OpenMP and
#                          each policy where it acts, 1 and all cores; writes
#                          results/report/report.html; 3 minutes on 2
#                          loaded AMD EPYC cores once built)
#               make test  (builds, runs the test suite)
# Both install missing Debian packages first (apt-get, as root).
# Also: make bench-all (every benchmark x variant x 1..cores workers at the
# quick sizes, about an hour; results/report-all), make bench-full (paper-sized
# inputs), make bench-sim (the suite on the simulated NUMA-WS machine,
# likely over an hour now that every policy runs there), make demo, make test-repeat (the concurrency
# tests five times over), make test-asan,
# make test-tsan (SANITIZE_BENCH=ON: with the benchmarks), make package (the Debian package, docs/packaging.md),
# make reproduce-<paper> (a paper's tables, SIMULATED: docs/reproduction.md),
# make bench-overheads (each construct's cost against oneTBB's, one run).

BUILD      ?= build
GENERATOR  ?= Ninja
PACKAGES   := cmake ninja-build g++ pkg-config libhwloc-dev hwloc libnuma-dev \
              libboost-context-dev libgtest-dev libtbb-dev python3-matplotlib \
              libopenmpi-dev openmpi-bin
# Debian's python, which python3-matplotlib installs into (not whatever
# python3 comes first on PATH).
PYTHON     := /usr/bin/python3
RESULTS    ?= results
REPS       ?= 3
JOBS       ?= $(shell nproc)

.PHONY: all deps configure build build-run run demo bench-first bench-all bench-quick bench-overheads bench-sim bench-full test test-repeat test-asan test-tsan package clean

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

# make run builds only what it runs (the demo and locus-bench), not the
# tests: about half of the whole build.
RUN_TARGETS := locus-demo locus-bench
build-run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(RUN_TARGETS)

run: demo bench-first

demo: build-run
	@$(BUILD)/bin/locus-demo

# The first look (locus-bench --suite first; --help lists its cells):
# serial, locus:ws, oneTBB and OpenMP on each of 10 benchmarks, each policy
# on the benchmarks of its paper, 1 and all cores, 1 warm-up + 3 timed
# rounds; every run verified against serial.
bench-first: build-run
	@mkdir -p $(RESULTS)
	@rm -f $(RESULTS)/first.jsonl
	@echo "running the first-look benchmark suite (progress and time left below)"
	@$(BUILD)/bin/locus-bench --suite first --out $(RESULTS)/first.jsonl
	@echo "work and span of each benchmark (LOCUS_SPAN=1, one instrumented run each)"
	@LOCUS_SPAN=1 $(BUILD)/bin/locus-bench --suite first --variants locus:ws --reps 1 --warmup 0 \
	  --quiet --out $(RESULTS)/first.jsonl
	@$(PYTHON) bench/report/report.py $(RESULTS)/first.jsonl --out $(RESULTS)/report \
	  --title "locus: a first look (quick sizes)" >/dev/null
	@echo "report: $(RESULTS)/report/report.html (and report.md); make bench-all runs every cell"

# The whole quick suite: every benchmark x implementation x 1..cores workers.
bench-all: build
	@mkdir -p $(RESULTS)
	@rm -f $(RESULTS)/quick.jsonl
	@echo "running the whole quick benchmark suite (about an hour on 2 cores; progress and time left below)"
	@$(BUILD)/bin/locus-bench --suite all --size quick --reps $(REPS) --out $(RESULTS)/quick.jsonl
	@echo "work and span of each benchmark (LOCUS_SPAN=1, one instrumented run each)"
	@LOCUS_SPAN=1 $(BUILD)/bin/locus-bench --size quick --variants locus:ws --reps 1 --warmup 0 \
	  --quiet --out $(RESULTS)/quick.jsonl
	@$(PYTHON) bench/report/report.py $(RESULTS)/quick.jsonl --out $(RESULTS)/report-all \
	  --title "locus benchmarks (quick sizes, every cell)" >/dev/null
	@echo "report: $(RESULTS)/report-all/report.html (and report.md)"

# What each construct costs against oneTBB's (locus-bench --suite overheads;
# issue 44), in one run: the report's "Overheads against oneTBB" table.
bench-overheads: build
	@mkdir -p $(RESULTS)
	@rm -f $(RESULTS)/overheads.jsonl
	@$(BUILD)/bin/locus-bench --suite overheads --places core --out $(RESULTS)/overheads.jsonl
	@$(PYTHON) bench/report/report.py $(RESULTS)/overheads.jsonl --out $(RESULTS)/report-overheads \
	  --title "locus: overheads against oneTBB (quick sizes)" >/dev/null
	@echo "report: $(RESULTS)/report-overheads/report.md (Overheads against oneTBB)"

# The name bench-all had before make run became the first look.
bench-quick: bench-all

# The NUMA-WS paper's benchmarks on its simulated 4 x 8 machine (SIMULATED
# figures: docs/simulator.md), serial, ws and numa-ws (the paper's
# comparison) on 1 and 32 workers; about 6 minutes of one core when last
# timed (2026-11-23). The other policies' simulated figures are in
# docs/benchmarks.md.
bench-sim: build
	@mkdir -p $(RESULTS)
	@rm -f $(RESULTS)/sim.jsonl
	@$(BUILD)/bin/locus-bench --engine sim --machine numa-ws-4x8 --size quick --workers 1,32 \
	  --variants serial,locus:ws,locus:numa-ws \
	  --benchmarks cg,cilksort,heat,hull1,hull2,matmul,matmul-z,strassen,strassen-z --out $(RESULTS)/sim.jsonl
	@LOCUS_SPAN=1 $(BUILD)/bin/locus-bench --engine sim --machine numa-ws-4x8 --size quick --workers 1,32 \
	  --variants locus:ws --benchmarks cg,cilksort,heat,hull1,hull2,matmul,matmul-z,strassen,strassen-z \
	  --quiet --out $(RESULTS)/sim.jsonl
	@$(PYTHON) bench/report/report.py $(RESULTS)/sim.jsonl --out $(RESULTS)/report-sim \
	  --title "locus on the simulated NUMA-WS machine (numa-ws-4x8)" >/dev/null
	@echo "report: $(RESULTS)/report-sim/report.html"

bench-full: build
	@mkdir -p $(RESULTS)
	@rm -f $(RESULTS)/full.jsonl
	@$(BUILD)/bin/locus-bench --size full --reps $(REPS) --out $(RESULTS)/full.jsonl
	@$(PYTHON) bench/report/report.py $(RESULTS)/full.jsonl --out $(RESULTS)/report-full \
	  --title "locus benchmarks (full sizes)" >/dev/null
	@echo "report: $(RESULTS)/report-full/report.html"

# One paper's experiments regenerated from scratch, make reproduce-<paper>
# (tools/reproduce.py runs bench/reproduce/<paper>.py's locus-bench runs and
# table scripts; results/reproduce-<paper>/tables.md). docs/reproduction.md
# gives each paper's time and results; `tools/reproduce.py --list` the
# papers with a spec.
reproduce-%: build-run
	@$(PYTHON) tools/reproduce.py $* --bench $(BUILD)/bin/locus-bench

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j 2

# The concurrency tests again, REPEAT times each, two at a time: a test that
# fails once in fifty runs should show here, before it lands.
REPEAT     ?= 5
CONCURRENCY_TESTS := Deque|RandomTrees|NumaWsTrees|Loops|Outside|SerialOrder|Idle|Exceptions|Mutex|LongRun|TbbNuma|Enqueue|Arena|Pipeline|test_mpi|UserApi|PlaceArenas
test-repeat: build
	@ctest --test-dir $(BUILD) --output-on-failure -j 2 --repeat until-fail:$(REPEAT) -R '$(CONCURRENCY_TESTS)'

# The Debian package of the library and headers (cpack's DEB generator
# writes the .deb itself; no dpkg-dev needed, dpkg-shlibdeps is not used).
package: build
	@cd $(BUILD) && cpack -G DEB

# The library's tests under sanitizers (separate build trees). The
# benchmark program is left out by default: compiled with ASan+UBSan it alone
# took 24 of CI's 90 minutes on two cores, and its cells are verified
# against serial in every other run. SANITIZE_BENCH=ON builds and runs it
# too (bench_smoke, the simulator's determinism), as before a change to the
# benchmarks' memory handling or to the simulator.
SANITIZE_BENCH ?= OFF
test-asan: deps
	@cmake -S . -B $(BUILD)-asan -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DLOCUS_SANITIZE=address \
	  -DLOCUS_BUILD_BENCHMARKS=$(SANITIZE_BENCH) >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@ctest --test-dir $(BUILD)-asan --output-on-failure -j 2 -LE no_sanitizer

test-tsan: deps
	@cmake -S . -B $(BUILD)-tsan -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DLOCUS_SANITIZE=thread \
	  -DLOCUS_BUILD_BENCHMARKS=$(SANITIZE_BENCH) >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS)
	@ctest --test-dir $(BUILD)-tsan --output-on-failure -j 2 -LE no_sanitizer

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
