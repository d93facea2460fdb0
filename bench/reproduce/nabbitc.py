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

Not run here yet: mg and cg (Table I: 16,384 and 300 nodes), Smith-Waterman
(sw, swn2)."""

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
