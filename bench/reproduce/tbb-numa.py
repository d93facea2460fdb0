"""TBB-NUMA (seed 001, section 5): figures 14 to 18, SIMULATED on the
paper's three machines (table 1): tbb-numa-westmere-4x8 (4 x 8-core Xeon
E7-4830, 24 MB of L3 a socket, QPI), 32 workers, for figures 14 to 17;
tbb-numa-nehalem-2x4 (8 workers) and tbb-numa-bulldozer-4x4 (16) for
figure 18. One run a cell (the simulator repeats exactly); the bandwidth
model (memory controllers and links) is on, with the presets' figures.

Configurations (section 5.2). The paper's baseline is standard TBB (rule
4): the `tbb-std` policy models its scheduling, a mailbox per thread, the
affinity partitioner that mails a sub-range to the thread that ran it
last, random stealing (src/policy/tbb_std/README.md). The three
configurations standard TBB can reach run under it; the two only TBB-NUMA
can reach run under `tbb-numa` with its defaults, the paper's rules:

    (noap, FT)    locus:tbb-std+noap+serial-init  (every page first touched by a serial initialization: place 0)
    (noap, INTL)  locus:tbb-std+noap+interleave
    (ap, INTL)    locus:tbb-std+ap+interleave      (loop programs only, as in the paper)
    (NACS, INTL)  locus:tbb-numa+nacs+interleave
    (NACS, NADD)  locus:tbb-numa+nacs              (the data distributed per place)

Times are relative to (noap, FT); the gain is the paper's measure, T(best
standard-TBB configuration) / T(NACS, NADD) - 1 (section 5.2: cg 0.40 /
0.34 - 1 = +18%; issue 43, point 5). Figures 16 and 17 add `+contender`
to every configuration: section 5.3's floating-point contender, whose
working set fits in L1/L2, in a second arena for as long as the program
runs (bench/common/contender.hpp), so that the resource manager splits
the workers between the two. Figure 15 and 17's uncore traffic is the
simulator's count of where each line served beyond L2 came from.

Our options (src/policy/tbb_numa/README.md, off by default), each its
own run and column beside the paper's (NACS, NADD), on the Westmere
without the contender, variants suffixed (tools/reproduce.py):
- [idle]: LOCUS_TBB_NUMA_IDLE_WHILE_STEALING=on (a place counts idle
  through its workers' whole search, steal attempts included);
- [bypass]: LOCUS_TBB_NUMA_BYPASS_PLAIN_FRAMES=on (every frame tagged
  with a place is bypassed for its idle place, not only mailed children);
- [idle+bypass]: both, figure 9's wider rules that were the default of
  docs/benchmarks.md's figures of 2026-11-27.

Sizes (REPRODUCTION.md, rule 3; the paper's table 2). Every input is the
paper's, or the paper's working set and tasks with fewer repetitions of
the same step (a cut for time only, stated per program); the Westmere's
four L3s hold 96 MB:
- cg: NAS class C's matrix, the paper's (na = 150000, nonzer 15, shift
  110: 36.1 M nonzeros, about 430 MB, 4.5 times the L3s), 25 CG
  iterations a step as NAS (cgitmax); 1 of NAS's 75 outer steps. Every
  step is the same 25 sweeps of the same matrix, so the working set, its
  ratio to the L3s and the tasks per worker per sweep are the paper's;
  what changes is the weight of the first, cold sweep (1 in 25 here, 1 in
  1875 in the paper).
- mg: NAS class C's grid (512^3, three grids of doubles and the coarser
  levels, about 3.5 GB), blocks of 8 planes; 4 of class C's 20 V-cycles
  (each V-cycle the same sweeps of the same grids). The paper's mg
  distributed its data inside the timed region (its NADD loses to (ap,
  INTL) by the migration's cost, section 5.2); here every layout is made
  before timing, so that cost is not in our times.
- streamcluster: PARSEC native's chunks (200 000 points of dimension 128,
  102 MB a chunk, the paper's 10 M points being 50 of them), 2 of the 50
  chunks: each chunk is clustered on its own (the same local search over
  fresh points), so a chunk's working set, its ratio to the L3s and the
  tasks per pass (32 partitions) are the paper's.
- fluidanimate: the paper's 500 K particles (494 384 placed), 50 of its
  500 frames (each frame the same five phases over the same cells).
- ferret: locus-bench's full database, 4 M synthetic images (640 MB of
  index and signatures, 6.7 times the L3s; bench/ferret/README.md says
  how it stands for PARSEC's), 512 of the paper's 3500 queries, 128 in
  flight (every query probes the whole index, so the working set is the
  paper's; fewer queries are fewer repetitions).
- cg.isolate-links, cg.isolate-controllers (issue 43, point 6): cg's
  (noap, INTL), (ap, INTL), (NACS, INTL) and (NACS, NADD) on the Westmere
  with its QPI links unbounded (link_gbps = 0), then with its memory
  controllers unbounded (memory_controller_gbps = 0), everything else the
  preset's (bench/reproduce/machines/): the isolating experiment for cg's
  (NACS, NADD) falling behind (noap, INTL). The model is not changed to
  reach a figure: these machines only say which resource the gap is made
  of.
- check.*: every program at locus-bench's tiny size, every configuration,
  the contender and figure 18's machines, to check the spec and the
  tables in a few minutes (`--only check.`). Not the paper's sizes: not a
  reproduction, and its table says so.

TIME: an ESTIMATE, about 5 hours in all (cg's part measured: 79.9
minutes, the two isolating runs not included, while two other
simulations shared the host), on the 2-vCPU AMD EPYC host
(KVM; family 25 model 17) of 2026-11-29, locus-bench of commit 1b5e2aa.
Measured (/usr/bin/time, wall clock of one locus-bench call with one
cell, its setup included, (NACS, NADD) on the Westmere at 32 workers):
cg class C with 1 and 3 CG iterations 7.3 and 16.2 s (so 4.4 s an
iteration, 115 s a step of 25; 1.3 GB); mg 512^3 with 1 V-cycle 29 s
(5.1 GB); streamcluster one native chunk 79 s (0.15 GB); fluidanimate 1
and 3 frames 2.3 and 6.2 s (1.9 s a frame; 0.77 GB); ferret with 64 and
256 queries 12.8 and 44.3 s (0.16 s a query; 0.76 GB). A part has 23
cells (cg, mg: 5 configurations on each of three machines, 5 with the
contender, 3 option runs) or 19 (the others, 4 configurations), so:

    reproduce.py tbb-numa --only check.           # a few minutes
    reproduce.py tbb-numa --only cg.              # 79.9 minutes (measured, with two other simulations on the host)
    reproduce.py tbb-numa --only mg.              # about 50 minutes
    reproduce.py tbb-numa --only streamcluster.   # about 50 minutes
    reproduce.py tbb-numa --only fluidanimate.    # about 30 minutes
    reproduce.py tbb-numa --only ferret.          # about 30 minutes

The cells with the contender take longer (the contender's work is
simulated too). The paper's full repetitions would take: cg with 75 steps
about 75 times its part, mg with 20 V-cycles about 5 times, streamcluster
with 50 chunks 25 times, fluidanimate with 500 frames 10 times, ferret
with 3500 queries about 7 times. Each call re-makes the tables from its
new results and the other runs' earlier ones; runs not made yet are named
in the header and absent from the tables."""

TITLE = ("TBB-NUMA reproduction (seed 001): figures 14 to 18, SIMULATED on tbb-numa-westmere-4x8 (32 workers), "
         "tbb-numa-nehalem-2x4 (8) and tbb-numa-bulldozer-4x4 (16)")

_COMMON = ["--engine", "sim", "--reps", "1", "--warmup", "0", "--quiet"]
_WESTMERE = ["--machine", "tbb-numa-westmere-4x8", "--workers", "32"]
_FIGURE_18 = [("nehalem", ["--machine", "tbb-numa-nehalem-2x4", "--workers", "8"]),
              ("bulldozer", ["--machine", "tbb-numa-bulldozer-4x4", "--workers", "16"])]
_STANDARD = ["locus:tbb-std+noap+serial-init", "locus:tbb-std+noap+interleave"]
_AFFINITY_PARTITIONER = ["locus:tbb-std+ap+interleave"]
_NUMA = ["locus:tbb-numa+nacs+interleave", "locus:tbb-numa+nacs"]
_LOOPS = {"cg", "mg-graph"}
_OPTIONS = [("idle", {"LOCUS_TBB_NUMA_IDLE_WHILE_STEALING": "on"}),
            ("bypass", {"LOCUS_TBB_NUMA_BYPASS_PLAIN_FRAMES": "on"}),
            ("idle+bypass", {"LOCUS_TBB_NUMA_IDLE_WHILE_STEALING": "on", "LOCUS_TBB_NUMA_BYPASS_PLAIN_FRAMES": "on"})]


def _p(*settings):
    return [a for s in settings for a in ("--param", s)]


# part (the --only prefix), benchmark, size arguments
_CELLS = [
    ("cg", "cg", ["--size", "full"] + _p("na=150000", "nonzer=15", "shift=110", "outer=1", "inner=25")),
    ("mg", "mg-graph", ["--size", "full"] + _p("n=512", "iterations=4", "block=8")),
    ("streamcluster", "streamcluster", ["--size", "full"] + _p("chunk=200000", "chunks=2", "dim=128")),
    ("fluidanimate", "fluidanimate", ["--size", "full"] + _p("particles=500000", "frames=50")),
    ("ferret", "ferret", ["--size", "full"] + _p("images=4000000", "queries=512", "in_flight=128")),
]


def _variants(bench, contender=False):
    names = _STANDARD + (_AFFINITY_PARTITIONER if bench in _LOOPS else []) + _NUMA
    return ",".join(v + ("+contender" if contender else "") for v in names)


def _runs(part, bench, size):
    """One program's runs: figures 14 and 15, 16 and 17 (the contender),
    18 (the other two machines), and our options."""
    b = _COMMON + ["--benchmarks", bench] + size
    runs = [{"name": f"{part}.fig14", "args": b + _WESTMERE + ["--variants", _variants(bench)]},
            {"name": f"{part}.fig16", "args": b + _WESTMERE + ["--variants", _variants(bench, True)]}]
    for machine, at in _FIGURE_18:
        runs.append({"name": f"{part}.fig18-{machine}", "args": b + at + ["--variants", _variants(bench)]})
    for option, env in _OPTIONS:
        runs.append({"name": f"{part}.{option}", "args": b + _WESTMERE + ["--variants", "locus:tbb-numa+nacs"],
                     "env": env, "suffix": f"[{option}]"})
    return runs


# Issue 43, point 6: cg's (NACS, NADD) behind (noap, INTL), with the links
# or the memory controllers unbounded, one at a time (machine files beside
# this spec; paths from the repository's root, where make runs).
_ISOLATE = [("isolate-links", "bench/reproduce/machines/westmere-unbounded-links.machine"),
            ("isolate-controllers", "bench/reproduce/machines/westmere-unbounded-controllers.machine")]


def _isolating_runs(part, bench, size):
    b = _COMMON + ["--benchmarks", bench] + size
    variants = ",".join(_STANDARD[1:] + _AFFINITY_PARTITIONER + _NUMA)
    return [{"name": f"{part}.{what}", "args": b + ["--machine", path, "--workers", "32", "--variants", variants]}
            for what, path in _ISOLATE]


def _program_runs(prefix, part, bench, size):
    return _runs(prefix + part, bench, size) + (_isolating_runs(prefix + part, bench, size) if part == "cg" else [])


RUNS = [r for part, bench, size in _CELLS for r in _program_runs("", part, bench, size)]
RUNS += [r for part, bench, _ in _CELLS for r in _program_runs("check.", part, bench, ["--size", "tiny"])]


def _names(prefix):
    return [r["name"] for r in RUNS if r["name"].startswith(prefix)]


_PAPER = [r["name"] for r in RUNS if not r["name"].startswith("check.")]
_TABLE_ARGS = ["--baseline", "tbb-std"] + [a for o, _ in _OPTIONS for a in ("--extra", f"[{o}]")]
TABLES = [
    ("tbbnuma_tables.py", _PAPER, _TABLE_ARGS + [
        "--title", "Figures 14 to 18 at the paper's inputs (cg 1 of 75 steps, mg 4 of 20 V-cycles, streamcluster "
                   "2 of 50 chunks, fluidanimate 50 of 500 frames, ferret 512 of 3500 queries; "
                   "bench/reproduce/tbb-numa.py)"]),
    ("tbbnuma_tables.py", _names("check."), _TABLE_ARGS + [
        "--title", "Check: every program at locus-bench's tiny size, NOT the paper's inputs (not a reproduction; "
                   "it checks the spec and the tables)"]),
]
