"""ADWS and multi-level ADWS (seed 003, section 6): figures 16 to 21,
SIMULATED on adws-cascadelake-2x28 (the paper's 2 x 28-core Xeon, 38.5 MiB
of L3 a socket, 77 MB in all), 56 workers, one run a cell (the simulator
repeats exactly). As the paper ran (section 6.1, numactl --interleave=all),
every parallel cell has its pages interleaved over the sockets
(locus:P+interleave); serial runs local pages. ws stands for Cilk Plus
(random work stealing); adws, ml-adws, ml-ws and sb are the paper's
SL-ADWS, ML-ADWS, ML-WS and SB (sb's differences from the paper's SB-D are
named under every table, bench/report/adws_tables.py).

TIME: about 19 hours in all, an ESTIMATE (the whole spec has not been run),
on the 2-vCPU AMD EPYC host (KVM; family 25 model 17) of 2026-11-29,
locus-bench built from commit 32f818b's sources (this branch changes only
scripts and docs), while another engineer's builds shared the two cores
(load average about 3 during the larger cells). Measured (/usr/bin/time,
wall clock, max RSS): the below-l3 runs together 78 s; single cells, host
seconds for the simulated T_S: serial rrm 128 MB 4.0 s (T_S 0.42 s), rrm 512
MB 38 s (2.1 s, 1.7 GB RSS), rrm 2 GB 94 s (10.0 s, 6.6 GB), heat2d n = 2048
6.1 s (1.18 s), heat2d n = 8192 105 s (18.9 s, 1.7 GB), matmul n = 2048 17.6
s (3.56 s, 0.17 GB), sph side 58 40 s (4.22 s, 0.15 GB), dtree 1 M rows 16.7
s (1.60 s, 0.41 GB), dtree 10.5 M rows 124 s (17.8 s, 3.9 GB), kdtree 2 GB
70 s (3.96 s, 6.8 GB), quicksort 2 GB 97 s (11.0 s, 4.5 GB); parallel cells
at 56 workers, one variant each: rrm 128 MB 5.6 s (adws) to 13.7 s (sb), rrm
512 MB 28 to 30 s, matmul n = 2048 40 s, sph side 58 62 s, dtree 1 M rows 22
to 28 s, kdtree 2 GB 98 s (ws) and 90 s (ml-adws), heat2d n = 8192 346 s
(adws, 1.8 GB). So a serial cell costs about 5 to 18 host seconds per
simulated second of T_S (by benchmark) and a parallel cell about 11 to 25
(more at small sizes, where setting up dominates). From these factors and
T_S (measured, or extrapolated from the next size down by the work's growth:
heat2d n = 4096, matmul n = 4096 and 8192 (228 s), sph side 204 (about 230
s)), the parts take:

    reproduce.py adws --only below-l3     # below one socket's L3: 1.3 minutes (measured)
    reproduce.py adws --only mid          # 64 MB to 928 MB, with figure 20a: about 2 hours
    reproduce.py adws --only fig19        # figure 19 (RRM's alpha, 64 MB and 1 GB): about 50 minutes
    reproduce.py adws --only paper-       # the paper's largest sizes: about 16.5 hours, per benchmark:
        --only paper-rrm 25 min, paper-heat2d 45 min, paper-quicksort 35 min, paper-kdtree 20 min,
        paper-dtree 50 min (these five about 3 hours), paper-matmul about 5.3 hours (n = 8192),
        paper-sph about 8.4 hours (side 204: about 40 minutes a cell, 11 cells)

Each --only call re-makes the tables from its new results and the other
runs' earlier ones; runs not made yet are named in the header and absent
from the tables. The largest cell needs about 7 GB of host memory (max RSS
is 1.2 to 3.3 times the working set).

Sizes (REPRODUCTION.md, rule 3; working sets: rrm 8n bytes, heat2d
2 x 8 (n + 2)(n + 34) bytes, matmul 24 n^2 (three double matrices; the
paper's SGEMM is single precision, 12 n^2), quicksort 16n and kdtree 48n
(two buffers), dtree 232 bytes a row (28 floats and a label, two buffers;
the paper's doubles make its 10.5 M rows 4.5 GB), sph 128 bytes a particle,
side x side x 2 side particles):
- below-l3-*: below one socket's 38.5 MiB: rrm 8 and 32 MB, heat2d
  n = 1024 (17 MB), matmul n = 512 and 1024 (6 and 24 MB), quicksort 16 MB,
  kdtree 19 MB, dtree 100 000 rows (23 MB), sph side 34 (10 MB);
- mid-*: around and above the 77 MB of L3, the points of docs/benchmarks.md
  and figure 20a's sizes (64 MB to 928 MB): rrm 128 and 512 MB, heat2d n = 2048 and 4096
  (67 and 269 MB), matmul n = 2048 and 4096 (96 and 384 MB), quicksort 64
  (figure 20a) and 512 MB, kdtree 64 MB (figure 20a, 1 398 101 points) and
  307 MB, dtree 383 620 rows (89 MB, figure 20a) and 1 M and 4 M rows (232
  and 928 MB), sph side 58 (50 MB; figure 20a's 52 MB) and 100 (256 MB);
- paper-*: the paper's largest (figure 16's rightmost points, 20b and
  21): quicksort and kdtree 2 GB (2^27 doubles, 44 739 242 points), dtree
  the full HIGGS training set's 10.5 M rows (2.4 GB), sph side 204
  (2.2 GB), heat2d n = 8192 (1.07 GB; the paper's text gives no largest
  Heat2D size), rrm 2^28 doubles (2 GB; none given either), and matmul
  n = 8192 (1.6 GB). MatMul's N = 16384 (6.4 GB of doubles; about 11 GB
  of RSS at matmul's measured 1.7 times) would fit the 24 GB host but is 8
  times n = 8192's work, about 43 hours a setting: it is not in the spec;
  n = 8192 is the largest MatMul run, and the tables say so by their
  setting column.
Other parameters are locus-bench's quick defaults, which are the paper's
(rrm leaf 32 KB and map grain 128 KB, heat2d 50 steps, 64 x 64 cutoff,
256-byte padding; quicksort and kdtree 64 KB cutoffs; dtree depth 17, 64 KB
and 256 KB cutoffs; sph 5 steps, 32-particle leaves); matmul checks 128
rows of C against the reference from n = 4096 up (a triple loop on the host
otherwise).

Figures 17 and 18 are the figure 16 cells' busy/scheduling/idle seconds
and L3 misses (lines served from beyond the worker's socket's L3) beside
serial's. Figure 19: rrm at 64 MB (19a, alpha 1, 2, 4, 7, 10) and 1 GB
(19b, alpha 1, 4, 10), ws, ml-ws, adws and ml-adws with hints and adws and
ml-adws without (`--param hints=0`, variants suffixed [no-hints], with a ws
cell of their own run). Figure 20: quicksort, kdtree, dtree and sph
without hints at figure 20a's sizes (mid-*-no-hints) and 20b's (the paper
sizes, paper-*-no-hints); matmul and heat2d are left out as in the paper
(their hints are equal shares, which is also the guess without hints).
Figure 21: adws and ml-adws with pages where they are first touched
(+first-touch) against interleaved, at the paper sizes of rrm, heat2d,
matmul, quicksort, kdtree and dtree (not sph: 2 more 40-minute cells).

Not here yet: the isolating experiments of issue 40 (rule 7) for the
headlines that do not reproduce (a trace of one tied group, and the
result with its idle time removed)."""

TITLE = ("ADWS and multi-level ADWS reproduction (seed 003): figures 16 to 21, SIMULATED on "
         "adws-cascadelake-2x28, 56 workers")

_COMMON = ["--engine", "sim", "--machine", "adws-cascadelake-2x28", "--reps", "1", "--warmup", "0", "--quiet"]
_P56 = ["--workers", "56"]
_POLICIES = ["ws", "adws", "ml-ws", "ml-adws", "sb"]
_PAPER = ",".join(f"locus:{p}+interleave" for p in _POLICIES)
_LOCAL = "locus:adws+first-touch,locus:ml-adws+first-touch"
_NO_HINTS = "locus:ws+interleave,locus:adws+interleave,locus:ml-adws+interleave"

# benchmark, [(tier, label, parameters)]; tiers: below-l3, mid, paper.
_MM_CHECK = ["--param", "check_rows=128"]
_SWEEP = [
    ("rrm", [("below-l3", "8MB", ["--param", "n=1048576"]),
             ("below-l3", "32MB", ["--param", "n=4194304"]),
             ("mid", "128MB", ["--param", "n=16777216"]),
             ("mid", "512MB", ["--param", "n=67108864"]),
             ("paper", "2GB", ["--param", "n=268435456"])]),
    ("heat2d", [("below-l3", "n1024", ["--param", "n=1024"]),
                ("mid", "n2048", ["--param", "n=2048"]),
                ("mid", "n4096", ["--param", "n=4096"]),
                ("paper", "n8192", ["--param", "n=8192"])]),
    ("matmul", [("below-l3", "n512", ["--param", "n=512"]),
                ("below-l3", "n1024", ["--param", "n=1024"]),
                ("mid", "n2048", ["--param", "n=2048"]),
                ("mid", "n4096", ["--param", "n=4096"] + _MM_CHECK),
                ("paper", "n8192", ["--param", "n=8192"] + _MM_CHECK)]),
    ("quicksort", [("below-l3", "16MB", ["--param", "n=1048576"]),
                   ("mid", "64MB", ["--param", "n=4194304"]),
                   ("mid", "512MB", ["--param", "n=33554432"]),
                   ("paper", "2GB", ["--param", "n=134217728"])]),
    ("kdtree", [("below-l3", "19MB", ["--param", "n=400000"]),
                ("mid", "64MB", ["--param", "n=1398101"]),
                ("mid", "307MB", ["--param", "n=6400000"]),
                ("paper", "2GB", ["--param", "n=44739242"])]),
    ("dtree", [("below-l3", "100k", ["--param", "rows=100000"]),
               ("mid", "384k", ["--param", "rows=383620"]),
               ("mid", "1M", ["--param", "rows=1000000"]),
               ("mid", "4M", ["--param", "rows=4000000"]),
               ("paper", "10.5M", ["--param", "rows=10500000"])]),
    ("sph", [("below-l3", "side34", ["--param", "side=34"]),
             ("mid", "side58", ["--param", "side=58"]),
             ("mid", "side100", ["--param", "side=100"]),
             ("paper", "side204", ["--param", "side=204"])]),
]
# Figure 20's settings: 20a's sizes (near the 77 MB of L3) and 20b's (the
# largest), on the four benchmarks with irregular trees.
_FIG20 = {("quicksort", "64MB"), ("kdtree", "64MB"), ("dtree", "384k"), ("sph", "side58"),
          ("quicksort", "2GB"), ("kdtree", "2GB"), ("dtree", "10.5M"), ("sph", "side204")}
# Figure 21's (first touch): the paper sizes, sph left out for time.
_FIG21 = {"rrm", "heat2d", "matmul", "quicksort", "kdtree", "dtree"}

RUNS = []
for _bench, _points in _SWEEP:
    for _tier, _label, _params in _points:
        _name = f"{_tier}-{_bench}-{_label}"
        _b = _COMMON + ["--benchmarks", _bench] + _params
        RUNS.append({"name": f"{_name}-serial", "args": _b + ["--variants", "serial", "--workers", "1"]})
        _variants = _PAPER + ("," + _LOCAL if _tier == "paper" and _bench in _FIG21 else "")
        RUNS.append({"name": _name, "args": _b + _P56 + ["--variants", _variants]})
        if (_bench, _label) in _FIG20:
            RUNS.append({"name": f"{_name}-no-hints", "args": _b + _P56 + ["--param", "hints=0", "--variants", _NO_HINTS],
                         "suffix": "[no-hints]"})

# Figure 19: RRM's work ratio alpha, at 64 MB (19a) and 1 GB (19b).
_FIG19_HINTED = "locus:ws+interleave,locus:ml-ws+interleave,locus:adws+interleave,locus:ml-adws+interleave"
for _fig, _n, _alphas in (("fig19a", 8388608, (1, 2, 4, 7, 10)), ("fig19b", 134217728, (1, 4, 10))):
    for _a in _alphas:
        _b = _COMMON + _P56 + ["--benchmarks", "rrm", "--param", f"n={_n}", "--param", f"alpha={_a}"]
        RUNS.append({"name": f"{_fig}-alpha{_a}", "args": _b + ["--variants", _FIG19_HINTED]})
        RUNS.append({"name": f"{_fig}-alpha{_a}-no-hints", "args": _b + ["--param", "hints=0", "--variants", _NO_HINTS],
                     "suffix": "[no-hints]"})


def _names(*prefixes):
    return [r["name"] for r in RUNS if r["name"].startswith(prefixes)]


_ARGS = ["--layout", "+interleave", "--local", "+first-touch", "--no-hints", "[no-hints]"]
TABLES = [
    ("adws_tables.py", _names("below-l3-", "mid-", "paper-"),
     _ARGS + ["--figures", "16,17,18,21", "--title", "Figures 16, 17, 18 and 21: the working-set sweep "
              "(below-l3, mid and paper sizes; figure 21 at the paper sizes)"]),
    ("adws_tables.py", [n for n in _names("mid-", "paper-") if n.endswith("-no-hints") or
                        n + "-no-hints" in _names("mid-", "paper-")],
     _ARGS + ["--figures", "hints", "--title", "Figure 20: no work hints (20a near the L3 size, 20b the largest)"]),
    ("adws_tables.py", _names("fig19"), _ARGS + ["--figures", "hints", "--title", "Figure 19: RRM's work ratio "
                                                 "alpha, 64 MB (19a) and 1 GB (19b)"]),
]
