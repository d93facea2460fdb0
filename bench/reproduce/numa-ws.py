"""NUMA-WS (seed 000, section V): figures 7, 8 and 9, SIMULATED on
numa-ws-4x8 (the paper's 4 x 8-core Xeon E5-4620, 2.2 GHz, 16 MB of L3 a
socket, 64 MB in all, QPI ring), 32 workers, one run a cell (the simulator
repeats exactly).

Policies. numa-ws is locus:numa-ws with its defaults, the paper's
configuration (src/policy/numa_ws/README.md): biased steals with the
`distance` weights (a stated rule, not chosen on these benchmarks: rank r
of the distance matrix gets 1/(r+1)^2 of the steals, libfork's rule; issue
43 point 7), push threshold 4, an out-of-work worker looks into its own
mailbox only and a deposit wakes only its receiver. The paper's Cilk Plus
is random work stealing with the paper's data layout, the better (by T_32)
of first-touch and interleaved pages: locus:ws+first-touch and
locus:ws+interleave; plain locus:ws (blocks per place, as numa-ws's data)
is beside them. Our own options, each its own run and column, variants
suffixed (tools/reproduce.py):
- [scan]: LOCUS_NUMA_WS_SCAN_PLACE_MAILBOXES=on (a worker also looks into
  its place-mates' mailboxes);
- [wake]: LOCUS_NUMA_WS_WAKE_PLACE_MATES=on (a deposit into a busy
  worker's mailbox wakes a sleeping place-mate);
- [scan+wake]: both, the prompt deposits that were always on in
  docs/benchmarks.md's figures of 2026-11-24;
- [uniform]: LOCUS_STEAL_WEIGHTS=1, every victim the same weight (a weight
  list's last entry stands for every farther rank), figure 8 under
  uniform weights (point 7);
- [threshold=t]: LOCUS_PUSH_THRESHOLD=t for t = 1, 2, 8, 16 (4 is the
  default, the main run), the sensitivity table of point 8, on the three
  benchmarks whose cuts are the paper's headlines (heat, cg, cilksort).
The fork_join branch a thief takes stays pushed on when earmarked
elsewhere (README: locus's counterpart of the Cilk continuation a thief
takes, line 28); it is no option, so it has no column.
strassen and strassen-z have no hints (as in the paper): nothing is ever
deposited, so [scan] and [wake] cannot differ from the default there and
are not run; [uniform] is. Every option run has its own numa-ws cell at 1
worker, so every inflation W_32/T_1 is from one invocation.

Sizes (REPRODUCTION.md, rule 3; the paper's figure 7 column "input size /
base case"). The modeled L3s hold 64 MB; every paper input is far above
that, so its working set streams from DRAM every pass:
- cg: the paper's "75k x 75", NAS CG's class B matrix (na = 75000,
  nonzer 13, shift 60: 13.7 M nonzeros, about 165 MB, 2.6 times the four
  L3s) with 25 CG iterations an outer step, as NAS. (The paper's matrix is
  class B's, not class C's: class C is na = 150000, the TBB-NUMA paper's
  input.) Outer steps: 3 of the paper's 75, a cut for time only: each
  outer step is the same 25 sweeps of the same matrix, so the working set,
  its ratio to the L3s and the tasks per worker per sweep are the paper's;
  what changes is the weight of the first, cold sweep (1 in 75 sweeps
  here, 1 in 1875 in the paper). The paper's 75 would take 25 times as
  long (see TIME).
- heat: the paper's grid, 16k x 16k (two grids of doubles, 4.3 GB, 67
  times the L3s) with the paper's 10-row base case (1,638 leaves a step,
  51 a worker); 20 of the paper's 100 time steps, a cut for time only
  (each step is the same sweep; the first, cold step weighs 1/20 here,
  1/100 in the paper). The paper's 100 steps would take 5 times as long.
- cilksort: the paper's 1.3e8 64-bit keys (2.1 GB with the scratch array),
  base cases 1k.
- hull1, hull2: the paper's 100000k points (1.6 GB of points, 2.8 and 3.2
  GB resident), base case 10k. hull2 at this size takes more than 9 hours
  (TIME); if that is not reasonable, the next choice is a smaller n with the
  points still many times the L3s, stated as not the paper's ratio (not
  chosen yet: no smaller size has been timed).
- matmul, matmul-z: the paper's 4k x 4k (three matrices, 400 MB),
  32 x 32 base case.
- strassen, strassen-z: n = 4096, not the paper's 8k x 8k: at 8192 the
  work is 7 times n = 4096's and one benchmark's runs would take about
  7 hours (TIME). Three 4096 matrices (400 MB, plus the temporaries) are 6
  times the L3s where the paper's 1.6 GB are 24 times: both stream from
  DRAM at every level above the base case, and neither has hints (the
  claim is that numa-ws costs nothing there); the 16 x 16 base case is
  the paper's. That is not the paper's ratio; the table's setting column
  says n = 4096.
- check.*: cilksort at locus-bench's quick size (4 M keys, 64 MB: the L3s'
  size), every column and table, to check the spec and the tables in a
  few minutes (`--only check.`). Not the paper's size: not a reproduction,
  and its table says so.

Figure 9 (T_1/T_P, workers packed onto the fewest sockets, as the paper):
ws and numa-ws at 8, 16 and 24 workers on every benchmark (P = 1 and 32
come from the figure 7 and 8 run, which at 32 workers fills the four
sockets as --pack would).

TIME: more than 20 hours in all, an ESTIMATE (only the check part has
run whole), on the 2-vCPU AMD EPYC host (KVM; family 25 model 17) of
2026-11-29, locus-bench built from commit 0bba6c9's sources (this branch
changes only scripts and docs), while two other engineers' reproductions
shared the two cores (load average about 4). Measured (/usr/bin/time, wall
clock of one locus-bench call with one cell, its setup included: the
input, the serial reference computed on the host, the page moves; max
RSS): the whole check part 66 s (0.16 GB); cilksort 1.3e8 serial 86 s
(T_S 14.9 s simulated, 4.4 GB), numa-ws at 32 workers 127 s (W_32 19.6 s,
4.4 GB); heat 16k x 16k with 2 steps, numa-ws and ws at 32 workers 25 s
each, with 6 steps numa-ws 71 s (6.9 GB; so 11.6 s a step and about
1.4 s of setup); cg 75k with 1 outer step, numa-ws at 32 workers 73 s
(0.42 GB); hull1 100000k, numa-ws at 32 workers 71 s (3.2 GB); matmul 4k,
numa-ws at 32 workers 285 s (W_32 35.7 s, 0.48 GB). From these, a cell
costs: cilksort 86 to 127 s; heat 20 steps about 235 s; cg 3 outer steps about 210 s;
hull1 about 70 s; matmul and matmul-z about 270 to 290 s; strassen n =
4096 about 200 s at 1 worker to 363 s at 32 (measured: numa-ws at 32
workers 363 s, W_32 40.6 s, 3.6 GB; the 1-worker cells from its 9 host
seconds a simulated second and T_S extrapolated from the quick size by
7^2); hull2 100000k at 32
workers (numa-ws) did not finish in 23.7 minutes (stopped there; 3.6 GB),
so more than 24 minutes a cell. A
part has 31 cells (cg, cilksort, heat: the figure 7 and 8 run's 9, 8 in
the option runs, 8 in the threshold runs, 6 in figure 9), 23 (hull1,
hull2, matmul, matmul-z) or 17 (strassen, strassen-z), so:

    reproduce.py numa-ws --only check.        # 1.1 minutes (measured)
    reproduce.py numa-ws --only cg.           # about 1.8 hours
    reproduce.py numa-ws --only cilksort.     # about 1 hour
    reproduce.py numa-ws --only heat.         # about 2 hours
    reproduce.py numa-ws --only hull1.        # about 27 minutes
    reproduce.py numa-ws --only hull2.        # more than 9 hours (23 cells, over 24 minutes each)
    reproduce.py numa-ws --only matmul.       # about 1.8 hours
    reproduce.py numa-ws --only matmul-z.     # about 1.7 hours
    reproduce.py numa-ws --only strassen.     # about 1.3 hours
    reproduce.py numa-ws --only strassen-z.   # about 1.1 hours

The paper's full repetitions would take: heat with 100 steps about 5 times
its part (7 to 10 hours), cg with 75 outer steps about 25 times (about 45
hours); strassen at 8192 about 7 times its part. The largest cell needs
about 7 GB of host memory (heat's grids and the simulator's page tables).
Each call re-makes the tables from its new results and the other runs'
earlier ones; runs not made yet are named in the header and absent from
the tables."""

TITLE = "NUMA-WS reproduction (seed 000): figures 7, 8 and 9, SIMULATED on numa-ws-4x8, 32 workers"

_COMMON = ["--engine", "sim", "--machine", "numa-ws-4x8", "--reps", "1", "--warmup", "0", "--quiet"]
_MAIN = "serial,locus:ws,locus:ws+first-touch,locus:ws+interleave,locus:numa-ws"
_OPTIONS = [("scan", {"LOCUS_NUMA_WS_SCAN_PLACE_MAILBOXES": "on"}),
            ("wake", {"LOCUS_NUMA_WS_WAKE_PLACE_MATES": "on"}),
            ("scan+wake", {"LOCUS_NUMA_WS_SCAN_PLACE_MAILBOXES": "on", "LOCUS_NUMA_WS_WAKE_PLACE_MATES": "on"}),
            ("uniform", {"LOCUS_STEAL_WEIGHTS": "1"})]
_THRESHOLDS = (1, 2, 8, 16)
_UNHINTED = {"strassen", "strassen-z"}
_SWEEPS = {"cg", "cilksort", "heat"}

# part (the --only prefix), benchmark, setting label, parameters
_CELLS = [
    ("check", "cilksort", "quick 4M", ["--param", "n=4000000"]),
    ("cg", "cg", "75k x 3 outer", ["--param", "na=75000", "--param", "nonzer=13", "--param", "shift=60",
                                   "--param", "outer=3", "--param", "inner=25"]),
    ("cilksort", "cilksort", "1.3e8", ["--param", "n=130000000", "--param", "sort_cutoff=1024",
                                       "--param", "merge_cutoff=1024"]),
    ("heat", "heat", "16k x 16k x 20", ["--param", "n=16384", "--param", "steps=20", "--param", "grain=10"]),
    ("hull1", "hull1", "100000k", ["--param", "n=100000000", "--param", "cutoff=10000"]),
    ("hull2", "hull2", "100000k", ["--param", "n=100000000", "--param", "cutoff=10000"]),
    ("matmul", "matmul", "4k", ["--param", "n=4096", "--param", "block=32", "--param", "check_rows=128"]),
    ("matmul-z", "matmul-z", "4k", ["--param", "n=4096", "--param", "block=32", "--param", "check_rows=128"]),
    ("strassen", "strassen", "n = 4096", ["--param", "n=4096", "--param", "block=16", "--param", "check_rows=128"]),
    ("strassen-z", "strassen-z", "n = 4096", ["--param", "n=4096", "--param", "block=16",
                                              "--param", "check_rows=128"]),
]

RUNS = []
for _part, _bench, _label, _params in _CELLS:
    # The paper parts start from locus-bench's full sizes (cg's grains,
    # the base cases), then set every input named above explicitly.
    _b = _COMMON + ["--benchmarks", _bench] + ([] if _part == "check" else ["--size", "full"]) + _params
    RUNS.append({"name": f"{_part}.fig78", "args": _b + ["--variants", _MAIN, "--workers", "1,32"]})
    for _opt, _env in _OPTIONS:
        if _bench in _UNHINTED and _opt != "uniform":
            continue
        RUNS.append({"name": f"{_part}.{_opt}", "args": _b + ["--variants", "locus:numa-ws", "--workers", "1,32"],
                     "env": _env, "suffix": f"[{_opt}]"})
    if _bench in _SWEEPS:
        for _t in _THRESHOLDS:
            RUNS.append({"name": f"{_part}.threshold-{_t}",
                         "args": _b + ["--variants", "locus:numa-ws", "--workers", "1,32"],
                         "env": {"LOCUS_PUSH_THRESHOLD": str(_t)}, "suffix": f"[threshold={_t}]"})
    RUNS.append({"name": f"{_part}.fig9", "args": _b + ["--variants", "locus:ws,locus:numa-ws",
                                                        "--workers", "8,16,24", "--pack"]})


def _names(*prefixes):
    return [r["name"] for r in RUNS if r["name"].startswith(prefixes)]


_PAPER_PARTS = tuple(f"{p}." for p, _, _, _ in _CELLS if p != "check")
_SETTINGS = []
for _part, _bench, _label, _ in _CELLS:
    if _part != "check":
        _SETTINGS += ["--setting", f"{_bench}={_label}"]
_EXTRA = ["--extra", "[scan]", "--extra", "[wake]", "--extra", "[scan+wake]", "--extra", "[uniform]"]
_SWEEP = [a for t in _THRESHOLDS for a in ("--threshold", f"[threshold={t}]")]
TABLES = [
    ("numa_ws_tables.py", _names(*_PAPER_PARTS), _SETTINGS + _EXTRA + _SWEEP + [
        "--title", "Figures 7, 8 and 9 at the paper's inputs (cg and heat with fewer outer steps / time steps, "
                   "strassen at n = 4096; bench/reproduce/numa-ws.py)"]),
    ("numa_ws_tables.py", _names("check."), ["--setting", "cilksort=quick 4M, not the paper's 1.3e8"] + _EXTRA
     + _SWEEP + ["--title", "Check: cilksort at locus-bench's quick size, NOT the paper's input (not a "
                            "reproduction; it checks the spec and the tables)"]),
]
