"""NabbitC (seed 004, section V): figures 6 and 7, tables II and III, at
the paper's granularity, SIMULATED on nabbitc-8x10 (the paper's 8 x 10-core
Xeon E7-8860), 20 to 80 workers packed onto the fewest sockets.

Granularity (REPRODUCTION.md, rule 3): Table I's heat, fdtd and life have
102,400 nodes over 5 iterations, 20,480 nodes per step (256 per worker at
80 workers). Ours have the same, one row per node: heat on 20,482 rows of
2,048 cells, fdtd on 20,480 rows of 1,024, life on a 20,482-row square
grid. The paper's grids are larger (n = 16384, m = 655360); ours keep what
the result depends on besides the node count: every step streams from DRAM
(heat's two grids are 0.67 GB, life's 0.84 GB and fdtd's three fields
0.5 GB, against the eight L3s' 192 MB, 24 MB a socket). A node's rows are
smaller than the paper's, so a node's data fits its core's L2 here and not
there: named beside the results in docs/reproduction.md.

Nabbit is locus:ws running the same graphs, NabbitC locus:nabbitc with the
paper's algorithm (its defaults), "+ hand-offs" the same with our
hand-offs option on (its own column), OpenMP static the loop version with
locus's static partition, which runs block k on worker k and on no other
(parallel.hpp), and OpenMP guided (PageRank only, as in the paper) a model
of libgomp's guided chunks (locus_backend.hpp).

cg, sw and swn2 (Table I), added 2026-11-29:
- cg-graph: the paper's matrix, NA = 900,000 rows with about 26 nonzeros a
  row (NAS's generator with nonzer 4: 23 a row, the nearest; nonzer 5 gives
  33), one power-method step of 25 CG iterations ("1 iteration"), blocks of
  3,000 rows: Table I's 300 nodes (spmv nodes per CG iteration; the
  reductions and vector updates add their own). About 250 MB of matrix,
  1.3 times the L3s.
- sw3-graph (sw, the n^3 form): the paper's n = m = 5120 and 32 x 32
  blocks, 25,600 nodes.
- sw-graph (swn2, the n^2 form): Table I's 16,384 nodes (128 x 128 blocks)
  on n = m = 32,768 with 256 x 256 blocks, not the paper's n = 131,072
  with 1024 x 1024 blocks, whose H (68 GB of 32-bit scores) does not fit
  in 24 GB. Ours is 4 GB (21 times the L3s; the paper's 360 times): both
  stream from DRAM; a node's block is 256 KB (a core's L2) against the
  paper's 4 MB. Not the paper's ratio: its rows say so.
Not run here: mg (Table I: nx = ny = nz = 2048, 16,384 nodes): its three
grids of 2048^3 doubles are 206 GB; keeping its ratio to the L3s would
need caches scaled down with a 512^3 grid, not done yet.

TIME of the added benchmarks, an ESTIMATE from one cell each (locus:nabbitc
at 80 workers, wall clock with setup, on the 2-vCPU AMD EPYC host of
2026-11-29 while another simulation shared it): sw3-graph at n = 1280 4.5 s
(a 64th of the paper's work: about 4.8 minutes a cell at 5120), sw-graph
at n = 16384 14 s (a quarter of n = 32768's: about 1 minute a cell, 8.5 GB
of host memory with the serial reference), cg-graph with 2 CG iterations
10 s (about 1.3 minutes a cell with 25). With 27 cells a benchmark:
about 2.2 hours for sw, 30 minutes for swn2, 35 minutes for cg."""

TITLE = "NabbitC reproduction (seed 004): figures 6 and 7, tables II and III, SIMULATED on nabbitc-8x10"

_COMMON = ["--engine", "sim", "--machine", "nabbitc-8x10", "--pack", "--reps", "1", "--warmup", "0", "--quiet"]
_WORKERS = ["--workers", "20,40,60,80"]
_ALL = "locus:ws,locus:nabbitc,locus:nabbitc+bad-colors,locus:nabbitc+invalid-colors,locus:ws+static"
# benchmark, its size, its variants
_CELLS = [
    ("fdtd-graph", ["--param", "nx=20480", "--param", "ny=1024", "--param", "block=1", "--param", "steps=5"], _ALL),
    ("life-graph", ["--param", "n=20482", "--param", "block=1", "--param", "steps=5"], _ALL),
    ("heat-graph", ["--param", "rows=20482", "--param", "n=2048", "--param", "block=1", "--param", "steps=5"], _ALL),
    # 256 blocks of pages per iteration, 10 iterations: within Table I's 180
    # (uk-2002) to 1,050 (uk-2007-05) nodes per iteration; an R-MAT graph of
    # 2^20 vertices, not the web crawls (bench/pagerank_graph/README.md).
    ("pagerank-graph", ["--param", "scale=20", "--param", "block=4096", "--param", "iterations=10"],
     _ALL + ",locus:ws+guided"),
    ("cg-graph", ["--param", "na=900000", "--param", "nonzer=4", "--param", "outer=1", "--param", "inner=25",
                  "--param", "block=3000"], _ALL),
    ("sw3-graph", ["--param", "n=5120", "--param", "m=5120", "--param", "block=32"], _ALL),
    ("sw-graph", ["--param", "n=32768", "--param", "m=32768", "--param", "block=256"], _ALL),
]

RUNS = []
for _bench, _size, _variants in _CELLS:
    _b = ["--benchmarks", _bench] + _size
    RUNS.append({"name": f"{_bench}-serial", "args": _COMMON + _b + ["--variants", "serial", "--workers", "1"]})
    RUNS.append({"name": f"{_bench}", "args": _COMMON + _b + _WORKERS + ["--variants", _variants]})
    # The isolating run for OpenMP static: the graph (Nabbit) and the loop
    # (static) on one worker, where no schedule differs, against T_S.
    RUNS.append({"name": f"{_bench}-one-worker",
                 "args": _COMMON + _b + ["--variants", "locus:ws,locus:ws+static", "--workers", "1"]})
    RUNS.append({"name": f"{_bench}-hand-offs", "args": _COMMON + _b + _WORKERS + ["--variants", "locus:nabbitc"],
                 "env": {"LOCUS_NABBITC_HAND_OFFS": "on"}, "suffix": "[hand-offs]"})

TABLES = [("nabbitc_tables.py", [r["name"] for r in RUNS], [])]
