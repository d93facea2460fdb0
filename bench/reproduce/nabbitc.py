"""NabbitC (seed 004, section V): figures 6 and 7, tables II and III, at
the paper's granularity, SIMULATED on nabbitc-8x10 (the paper's 8 x 10-core
Xeon E7-8860), 20 to 80 workers packed onto the fewest sockets.

Granularity (REPRODUCTION.md, rule 3): Table I's heat, fdtd and life have
102,400 nodes over 5 iterations, 20,480 nodes per step (256 per worker at
80 workers). fdtd and life have the same here, one row per node (fdtd on
20,480 rows of 1,024, life on a 20,482-row grid). The paper's grids are
larger (n = 16384, m = 655360); ours keep what the result depends on
besides the node count: every step streams from DRAM (life's two grids
are 0.8 GB and fdtd's three fields 0.5 GB, against the eight L3s' 192 MB).
A node's rows are smaller than the paper's, so a node's data fits its
core's L2 here and not there: named beside the results in
docs/reproduction.md.

heat-graph's grid is square, so 20,480 rows make two 3.4 GB grids, which
the simulator takes some 5 minutes per cell to run on this machine kind;
it runs here at 8,192 nodes per step (n = 8194, 1 GB: 102 nodes per
worker at 80 workers, 410 at 20), 40% of the paper's granularity, which
the tables say.

Nabbit is locus:ws running the same graphs, NabbitC locus:nabbitc with the
paper's algorithm (its defaults), "+ hand-offs" the same with our
hand-offs option on (its own column), and OpenMP static the loop version
with locus's static partition, which runs block k on worker k and on no
other (parallel.hpp)."""

TITLE = "NabbitC reproduction (seed 004): figures 6 and 7, tables II and III, SIMULATED on nabbitc-8x10"

_COMMON = ["--engine", "sim", "--machine", "nabbitc-8x10", "--pack", "--reps", "1", "--warmup", "0", "--quiet"]
_WORKERS = ["--workers", "20,40,60,80"]
_ALL = "locus:ws,locus:nabbitc,locus:nabbitc+bad-colors,locus:nabbitc+invalid-colors,locus:ws+static"
# benchmark, its size, its variants
_CELLS = [
    ("fdtd-graph", ["--param", "nx=20480", "--param", "ny=1024", "--param", "block=1", "--param", "steps=5"], _ALL),
    ("life-graph", ["--param", "n=20482", "--param", "block=1", "--param", "steps=5"], _ALL),
    ("heat-graph", ["--param", "n=8194", "--param", "block=1", "--param", "steps=5"], _ALL),
]

RUNS = []
for _bench, _size, _variants in _CELLS:
    _b = ["--benchmarks", _bench] + _size
    RUNS.append({"name": f"{_bench}-serial", "args": _COMMON + _b + ["--variants", "serial", "--workers", "1"]})
    RUNS.append({"name": f"{_bench}", "args": _COMMON + _b + _WORKERS + ["--variants", _variants]})
    RUNS.append({"name": f"{_bench}-hand-offs", "args": _COMMON + _b + _WORKERS + ["--variants", "locus:nabbitc"],
                 "env": {"LOCUS_NABBITC_HAND_OFFS": "on"}, "suffix": "[hand-offs]"})

TABLES = [("nabbitc_tables.py", [r["name"] for r in RUNS], [])]
