#!/usr/bin/env python3
"""report.py on hand-written results: LOCUS_SPAN=1 cells are kept apart
from the timed cells of the same benchmark, variant and worker count (and
a span run's cell without span figures is dropped), give
the work-and-span table and the parallelism bound of the speedup plot, and
a file with only span cells still makes a report; a simulated cell's
access matrix is drawn as shares of each place's row; every base variant
(nine policies and the baselines) has a colour of its own, the same in
every plot whatever the other variants; hybrid MPI cells (bench/mpi) get a
table of their own, each shape against its mpi variant, and do not mix
with the threaded cells.

    test_report.py REPORT_PY OUT_DIR
"""

import importlib.util
import json
import os
import subprocess
import sys


def cell(variant, workers, median, **extra):
    row = {"benchmark": "tree", "variant": variant, "workers": workers, "size": "tiny", "engine": "threaded",
           "machine": "host", "median_s": median, "min_s": median, "max_s": median, "verified": True,
           "params": {"n": 10}, "summary": "a test tree"}
    row.update(extra)
    return row


SPAN = {"t1_work_s": 4.0, "tinf_span_s": 0.5, "burdened_span_s": 1.0, "parallelism": 8.0,
        "burdened_parallelism": 4.0}


def run_report(report_py, out_dir, name, rows):
    os.makedirs(out_dir, exist_ok=True)
    results = os.path.join(out_dir, name + ".jsonl")
    with open(results, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    out = os.path.join(out_dir, name)
    subprocess.run([sys.executable, report_py, results, "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "report.md")) as f:
        return out, f.read()


def check(condition, what):
    if not condition:
        sys.exit("test_report.py: " + what)


def main():
    report_py, out_dir = sys.argv[1], sys.argv[2]

    # Timed cells at P = 1, 2, 4, then a span cell at P = 1 written later:
    # the span cell must not replace the timed one ("the latest wins" is
    # for measurements of the same kind).
    rows = [cell("serial", 1, 4.0), cell("locus:ws", 1, 4.0), cell("locus:ws", 2, 2.5), cell("locus:ws", 4, 1.6),
            cell("locus:ws", 1, 9.0, **SPAN), cell("locus:ws", 4, 9.0, **dict(SPAN, parallelism=3.0))]
    out, md = run_report(report_py, out_dir, "mixed", rows)
    check("| locus:ws | 1 | 4 |" in md, "the timed P=1 cell was replaced by the span cell:\n" + md)
    check("| locus:ws | 1 | 4 | 0.5 | 1 | 8 | 4 | yes |" in md, "no work-and-span row:\n" + md)
    plot = os.path.join(out, "threaded-tiny-tree-parallelism.svg")
    check(os.path.exists(plot), "no parallelism plot")
    with open(plot) as f:
        svg = f.read()
    # The bound at P = 4 comes from the span cell run at 4 workers.
    check("parallelism 3 at P=4" in svg and "burdened 4" in svg, "the plot does not name the bounds at P=4")

    # A LOCUS_SPAN=1 run's cell without span figures (a program with
    # nothing to instrument, as the pipeline) does not replace the timing.
    rows = [{"record": "run", "settings": {}}, cell("serial", 1, 4.0), cell("locus:ws", 1, 4.0),
            cell("locus:ws", 2, 2.5), {"record": "run", "settings": {"LOCUS_SPAN": "1"}}, cell("locus:ws", 2, 7.0)]
    out, md = run_report(report_py, out_dir, "span_without_figures", rows)
    check("| locus:ws | 2 | 2.5 |" in md, "a LOCUS_SPAN=1 cell without span figures replaced the timing:\n" + md)

    # Only span cells: a table, no timing plots, no crash.
    out, md = run_report(report_py, out_dir, "span_only", [cell("locus:ws", 1, 9.0, **SPAN)])
    check("| locus:ws | 1 | 4 | 0.5 | 1 | 8 | 4 | yes |" in md, "no work-and-span row with span cells only")
    check(not os.path.exists(os.path.join(out, "threaded-tiny-tree-speedup.svg")), "a speedup plot of no timings")
    # Simulated cells with an access matrix: each locus variant at the
    # largest P gets a picture of its rows' shares by home node.
    sim = dict(engine="sim", machine="numa-ws-4x8")
    rows = [cell("serial", 1, 4.0, **sim), cell("locus:ws", 1, 4.0, **sim),
            cell("locus:ws", 2, 2.5, access_matrix=[[3, 1], [0, 8]], **sim)]
    out, md = run_report(report_py, out_dir, "access", rows)
    picture = os.path.join(out, "sim-tiny-tree-access-locus_ws.svg")
    check(os.path.exists(picture), "no access matrix picture")
    with open(picture) as f:
        svg = f.read()
    for share in (">75<", ">25<", ">0<", ">100<"):
        check(share in svg, f"the access matrix lacks the share {share}")

    # Hybrid MPI cells (locus-mpi-bench): 2 ranks x 1 and 1 rank x 2 are
    # both 2 "workers" but different cells; each variant is compared with
    # the mpi variant of its own shape; the threaded cells are untouched.
    def hybrid(variant, ranks, per_rank, median):
        return cell(variant, ranks * per_rank, median, benchmark="heat-mpi", ranks=ranks, workers_per_rank=per_rank)
    rows = [{"record": "run", "settings": {}, "launch": "mpirun -np 2", "mpi_library": "Open MPI v4.1.4"},
            cell("serial", 1, 4.0), cell("locus:ws", 2, 2.5),
            hybrid("mpi", 2, 1, 2.0), hybrid("mpi+locus-tasks", 2, 1, 1.6),
            hybrid("mpi", 1, 1, 4.0),
            dict(hybrid("mpi+locus-tasks", 1, 2, 2.5), mpi_requests_waited=800.0, mpi_tasks_suspended=76.0)]
    out, md = run_report(report_py, out_dir, "hybrid", rows)
    check("| heat-mpi | 2 x 1 | mpi+locus-tasks | 1.6 | 1.6-1.6 | 1.25 |  | yes |" in md,
          "no hybrid row against the mpi variant of 2 ranks:\n" + md)
    check("| heat-mpi | 1 x 2 | mpi+locus-tasks | 2.5 | 2.5-2.5 | 1.6 | 800 (76) | yes |" in md,
          "no hybrid row against the mpi variant of 1 rank:\n" + md)
    check("| locus:ws | 2 | 2.5 |" in md and "Launched as: mpirun -np 2" in md, "threaded cells or launch line lost")
    out, md = run_report(report_py, out_dir, "hybrid_only", rows[:1] + rows[3:])
    check("## Hybrid MPI benchmarks" in md, "no report from hybrid cells alone")

    # Colours: distinct for the base variants, 14 or more to draw from, a
    # modified variant in its base's colour with another line, and a
    # variant's colour in a plot independent of the variants beside it.
    spec = importlib.util.spec_from_file_location("report", report_py)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    check(len(set(report.PALETTE)) >= 14, "fewer than 14 colours")
    bases = ["serial", "tbb", "tbb:affinity", "omp:static", "omp:dynamic", "omp:guided"] + [
        "locus:" + p for p in ("ws", "numa-ws", "tbb-numa", "cats", "adws", "ml-adws", "ml-ws", "sb", "nabbitc")]
    colours = [report.variant_style(v)[0] for v in bases]
    check(len(set(colours)) == len(bases), "two base variants share a colour: " + str(dict(zip(bases, colours))))
    ws, ws_affinity = report.variant_style("locus:ws"), report.variant_style("locus:ws+affinity")
    check(ws[0] == ws_affinity[0] and ws[1] != ws_affinity[1], "locus:ws+affinity not drawn as a kind of locus:ws")
    omp = report.variant_style("omp:static")[0]
    few = [cell("serial", 1, 4.0), cell("omp:static", 1, 4.0), cell("omp:static", 2, 2.5)]
    many = few + [cell(v, w, 3.0) for v in bases[1:] if v != "omp:static" for w in (1, 2)]
    for name, rows in (("few", few), ("many", many)):
        out, _ = run_report(report_py, out_dir, name, rows)
        with open(os.path.join(out, "threaded-tiny-tree-speedup.svg")) as f:
            check(omp in f.read(), f"omp:static is not drawn in {omp} among {name} variants")
    print("test_report.py: ok")


if __name__ == "__main__":
    main()
