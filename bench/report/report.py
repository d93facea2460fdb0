#!/usr/bin/env python3
"""Turns locus-bench results (JSON lines) into a report a person can look at.

    report.py RESULTS.jsonl [...] --out DIR [--title TEXT]

Writes DIR/report.html (self-contained: tables and inline SVG plots),
DIR/report.md (the tables, with the plots as DIR/*.svg) and the plots.

From each benchmark's rows it derives the figures of the NUMA-WS paper:
T_S (the serial variant), T_1 and T_P (a variant on 1 and P workers),
T_1/T_S (spawn overhead), T_1/T_P (scalability), T_S/T_P (speedup), the
work / scheduling / idle breakdown of locus variants normalized to T_S
(figure 3 and 7), and work inflation W_P/T_1 (figure 8), where W_P is the
work time summed over all workers at P. When a results file holds several
measurements of the same cell, the latest counts. Simulated results
(engine "sim") are labeled with their machine model and kept apart.

Cells that locus-bench traced (--trace DIR; the row names its file) get a
section of their own with pictures of that run (trace_pictures.py): the
timeline of the workers, the steals between places and, under the
simulator, each place's memory accesses by level. Which cells: those the
user traced (e.g. one benchmark, one variant, one worker count), or every
cell at --size tiny.

Cells run with LOCUS_SPAN=1 (they carry "parallelism") measure the
program's work T_1 and span T_inf instead of its time: they are kept apart
from the timed cells, listed in a "work and span" table per benchmark, and
give the parallelism bound of that benchmark's speedup plot (the Cilkscale
picture: measured speedup against min(P, parallelism) and min(P, burdened
parallelism)).

Cells of locus-mpi-bench (bench/mpi: hybrid MPI + threads; they carry
"ranks") are kept apart: a "Hybrid MPI benchmarks" section lists them per
program, shape (ranks x workers per rank) and variant, each against the
mpi variant of the same shape, with the launch line of each run.

The report opens with a table of contents and the provenance of the runs
its cells come from (the "run" record locus-bench writes before each run's
cells: date, commit, compiler and flags, CPU and caches, library versions,
reps, LOCUS_* settings). The overview compares every locus policy with the
best of oneTBB and OpenMP; a cell whose slowest timed run took more than
NOISY_SPREAD times its fastest is flagged "noisy" wherever its time appears.
"""

import argparse
import html
import io
import json
import os
import sys
import zlib
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_pictures  # noqa: E402

# A cell is noisy when its slowest timed run took more than this times its
# fastest: its median is then a weak estimate, whatever it says.
NOISY_SPREAD = 1.2

VARIANT_ORDER = ["serial", "locus", "tbb", "tbb:affinity", "omp:static", "omp:dynamic", "omp:guided"]


# Colours of the variants, the same in every plot: each base variant (a
# policy, a baseline) has its own colour, by this fixed order; a variant
# with modifiers (locus:ws+affinity, locus:tbb-numa+nacs, ...) has its base's
# colour with a dashed line and another marker (a hatch in bar charts).
# Sixteen colours apart in hue or lightness (tab10, then navy, teal,
# black, gold, maroon and grey for the baselines); names beyond the list get
# one by a hash of the name, so that they too keep theirs from plot to plot.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#000080", "#008080", "#000000", "#e6ab02", "#800000", "#6baed6", "#7f7f7f"]
COLOR_ORDER = ["locus:ws", "locus:numa-ws", "locus:tbb-numa", "locus:cats", "locus:adws", "locus:ml-adws",
               "locus:ml-ws", "locus:sb", "locus:nabbitc", "tbb", "tbb:affinity", "omp:static", "omp:dynamic",
               "omp:guided", "locus", "serial"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["--", "-.", ":"]


def variant_style(name):
    """(colour, linestyle, marker, hatch) of a variant, stable across plots."""
    base, _, modifiers = name.partition("+")
    if base in COLOR_ORDER:
        color = PALETTE[COLOR_ORDER.index(base) % len(PALETTE)]
    else:
        color = PALETTE[zlib.crc32(base.encode()) % len(PALETTE)]
    if not modifiers:
        return color, "-", "o", None
    h = zlib.crc32(modifiers.encode())
    return color, LINESTYLES[h % len(LINESTYLES)], MARKERS[1 + h % (len(MARKERS) - 1)], "//"


def legend_outside(ax, entries, fontsize=7):
    """The legend to the right of the axes, off the data; two columns when
    long."""
    if entries:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, fontsize=fontsize,
                  ncol=1 if entries <= 16 else 2, frameon=False)


def variant_key(name):
    """serial, the locus policies in COLOR_ORDER's order (each followed by
    its modified variants), then oneTBB and OpenMP."""
    base = name.partition("+")[0]
    within = COLOR_ORDER.index(base) if base in COLOR_ORDER else len(COLOR_ORDER)
    for i, prefix in enumerate(VARIANT_ORDER):
        if name == prefix or (prefix == "locus" and name.startswith("locus:")):
            return (i, within, name)
    return (len(VARIANT_ORDER), within, name)


def load(paths):
    """The cells (the latest measurement of each wins), the run records and
    the hybrid MPI cells (bench/mpi), apart. A cell's "_run" is the index of
    the run record before it in its file, or None for results written before
    locus-bench recorded provenance."""
    cells = OrderedDict()
    hybrid = OrderedDict()
    runs = []
    for path in paths:
        run = None
        with open(path) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"report.py: {path}:{number}: not JSON: {e}")
                if row.get("record") == "run":
                    runs.append(row)
                    run = len(runs) - 1
                    continue
                if "record" in row:  # a record of a kind this report does not know
                    continue
                if run is not None and not is_span_cell(row) and \
                        runs[run].get("settings", {}).get("LOCUS_SPAN", "0") != "0":
                    # A cell of a LOCUS_SPAN=1 run without span figures (a
                    # program with no fork-join to instrument, e.g. the
                    # pipeline): one instrumented run, not a timing, so it
                    # must not replace the cell's measurement.
                    continue
                row["_run"] = run
                if is_hybrid_cell(row):
                    # locus-mpi-bench (bench/mpi): R ranks x W workers, a
                    # section of its own; "workers" alone (R x W) would mix
                    # 2 ranks x 1 with 1 rank x 2.
                    key = (row.get("machine", "?"), row["size"], row["benchmark"], row["variant"], row["ranks"],
                           row["workers_per_rank"])
                    hybrid[key] = row
                    continue
                key = (row.get("engine", "threaded"), row.get("machine", "?"), row["size"], row["benchmark"],
                       row["variant"], row["workers"], is_span_cell(row))
                cells[key] = row  # the latest measurement of a cell wins
    return list(cells.values()), runs, list(hybrid.values())


def is_hybrid_cell(row):
    """A cell of locus-mpi-bench: MPI ranks, each with its threads."""
    return "ranks" in row


def is_span_cell(row):
    """A cell of a LOCUS_SPAN=1 run: its time is that of an instrumented
    serial-order run, its figures are work and span."""
    return "parallelism" in row


def spread(row):
    """max/min of a cell's timed runs (1 for one run)."""
    return row["max_s"] / row["min_s"] if row.get("min_s") else 1.0


def noisy(row):
    return row is not None and spread(row) > NOISY_SPREAD


def timed(row, digits=4):
    """A cell's median, flagged when the cell is noisy."""
    return fmt(row["median_s"], digits) + (" (noisy)" if noisy(row) else "")


def fmt(x, digits=3):
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}g}" if abs(x) < 1 else f"{x:.{digits}f}".rstrip("0").rstrip(".")


class Benchmark:
    def __init__(self, name, all_rows):
        self.name = name
        self.span_rows = [r for r in all_rows if is_span_cell(r)]
        rows = [r for r in all_rows if not is_span_cell(r)]
        self.rows = rows  # the timed cells (none when only span cells were run)
        self.by_variant = defaultdict(dict)
        for r in rows:
            self.by_variant[r["variant"]][r["workers"]] = r
        serial = self.by_variant.get("serial", {}).get(1)
        self.t_s = serial["median_s"] if serial else None
        self.workers = sorted({r["workers"] for r in rows})
        self.variants = sorted(self.by_variant, key=variant_key)
        self.verified = all(r["verified"] for r in all_rows)
        self.params = all_rows[0].get("params", {})
        self.summary = all_rows[0].get("summary", "")

    def t(self, variant, p):
        row = self.by_variant.get(variant, {}).get(p)
        return row["median_s"] if row else None

    def table(self):
        """Rows of: variant, P, median, min-max, T_S/T_P, T_1/T_P, T_P/T_S at 1, breakdown, inflation."""
        out = []
        for v in self.variants:
            t1 = self.t(v, 1)
            for p in sorted(self.by_variant[v]):
                r = self.by_variant[v][p]
                tp = r["median_s"]
                line = OrderedDict()
                line["variant"] = v
                line["P"] = p
                line["median s"] = fmt(tp, 4)
                line["min-max s"] = f"{fmt(r['min_s'], 3)}-{fmt(r['max_s'], 3)}"
                line["max/min"] = fmt(spread(r), 3) + (" noisy" if noisy(r) else "")
                # A time of 0 (nothing the simulator charged) has no ratio.
                line["T_S/T_P"] = fmt(self.t_s / tp) if self.t_s and tp else "-"
                line["T_1/T_P"] = fmt(t1 / tp) if t1 and tp else "-"
                line["T_1/T_S"] = fmt(t1 / self.t_s) if (t1 and self.t_s and p == 1) else ""
                if "work_s" in r and t1:
                    line["work/sched/idle (x T_S)"] = "/".join(
                        fmt(r[k] / self.t_s, 2) if self.t_s else "-" for k in ("work_s", "sched_s", "idle_s"))
                    w1 = self.by_variant[v].get(1, {}).get("work_s")
                    line["W_P/T_1"] = fmt(r["work_s"] / t1, 3) if t1 else "-"
                    line["steals"] = fmt(r.get("steals", 0), 3)
                else:
                    line["work/sched/idle (x T_S)"] = ""
                    line["W_P/T_1"] = ""
                    line["steals"] = ""
                if "accesses" in r:
                    line["remote share"] = fmt(remote_share(r["accesses"]), 3)
                line["verified"] = "yes" if r["verified"] else "NO"
                out.append(line)
        return out


# locus-bench writes the engine's counters under the simulator's names
# (l1_hits, ...); results written before that used l1, l2, l3, remote_l3.
OLD_ACCESS_NAMES = {"l1": "l1_hits", "l2": "l2_hits", "l3": "l3_hits", "remote_l3": "remote_l3_hits"}


def access_levels(accesses):
    """Accesses by level, keyed l1, l2, l3, remote_l3, local_dram, remote_dram."""
    out = {}
    for short in ("l1", "l2", "l3", "remote_l3", "local_dram", "remote_dram"):
        out[short] = accesses.get(OLD_ACCESS_NAMES.get(short, short), accesses.get(short, 0))
    return out


def remote_share(accesses):
    """The share of the memory accesses that missed the own node's caches
    and DRAM (remote L3 hits and remote DRAM), of those served beyond L2."""
    accesses = access_levels(accesses)
    beyond_l2 = sum(accesses.get(k, 0) for k in ("l3", "remote_l3", "local_dram", "remote_dram"))
    remote = accesses.get("remote_l3", 0) + accesses.get("remote_dram", 0)
    return remote / beyond_l2 if beyond_l2 else 0.0


def sim_overview(benchmarks):
    """Simulated runs: per benchmark and locus policy, the NUMA-WS paper's
    figures 7 and 8 at the largest P: T_1/T_S, T_1/T_P, work inflation
    W_P/T_1, scheduling time as a share of P x T_P, and where the memory
    accesses were served."""
    rows = []
    for b in benchmarks:
        p = max(b.workers)
        for v in b.variants:
            if not v.startswith("locus"):
                continue
            r1, rp = b.by_variant[v].get(1), b.by_variant[v].get(p)
            if not rp:
                continue
            t1 = r1["median_s"] if r1 else None
            tp = rp["median_s"]
            acc = access_levels(rp.get("accesses", {}))
            total = sum(acc.values()) or 1
            row = OrderedDict()
            row["benchmark"] = b.name
            row["variant"] = v
            row["T_S s"] = fmt(b.t_s, 4)
            row["T_1/T_S"] = fmt(t1 / b.t_s) if (t1 and b.t_s) else "-"
            row[f"T_1/T_{p}"] = fmt(t1 / tp) if t1 else "-"
            row["W_P/T_1"] = fmt(rp["work_s"] / t1, 3) if (t1 and "work_s" in rp) else "-"
            row["sched % of P·T_P"] = fmt(100 * rp.get("sched_s", 0) / (p * tp), 2) if tp else "-"
            row["L1/L2/L3 %"] = "/".join(fmt(100 * acc.get(k, 0) / total, 2) for k in ("l1", "l2", "l3"))
            row["remote L3/local DRAM/remote DRAM %"] = "/".join(
                fmt(100 * acc.get(k, 0) / total, 2) for k in ("remote_l3", "local_dram", "remote_dram"))
            row["verified"] = "yes" if b.verified else "NO"
            rows.append(row)
    return rows


def span_table(b):
    """Work and span of each LOCUS_SPAN=1 cell (docs/observability.md)."""
    rows = []
    for r in sorted(b.span_rows, key=lambda r: (variant_key(r["variant"]), r["workers"])):
        row = OrderedDict()
        row["variant"] = r["variant"]
        row["P"] = r["workers"]
        row["work T_1 s"] = fmt(r["t1_work_s"], 4)
        row["span T_inf s"] = fmt(r["tinf_span_s"], 4)
        row["burdened span s"] = fmt(r["burdened_span_s"], 4)
        row["parallelism"] = fmt(r["parallelism"], 4)
        row["burdened parallelism"] = fmt(r["burdened_parallelism"], 4)
        row["verified"] = "yes" if r["verified"] else "NO"
        rows.append(row)
    return rows


def span_cell_for(b, p):
    """The span cell that bounds the speedup at P workers: the one run at P
    (loops and static partitions cut their range by the worker count, so
    the DAG, and its parallelism, can depend on P), else the one of the
    fewest workers; of several variants, the first in the report's order."""
    at_p = [r for r in b.span_rows if r["workers"] == p]
    pool = at_p or [r for r in b.span_rows if r["workers"] == min(x["workers"] for x in b.span_rows)]
    return min(pool, key=lambda r: variant_key(r["variant"]))


def plot_parallelism(b):
    """Measured speedup against the work and span laws: T_P >= T_1/P and
    T_P >= T_inf, so speedup <= min(P, parallelism); the burdened line
    charges a steal at every point where one could happen."""
    timed_variants = [v for v in b.variants if v.startswith("locus") and len(b.by_variant[v]) > 1]
    if not b.span_rows or not timed_variants:
        return None
    ps = b.workers
    bounds = [span_cell_for(b, p) for p in ps]
    fig, ax = plt.subplots(figsize=(4.6, 3.2))
    for v in timed_variants:
        ps = sorted(b.by_variant[v])
        base = b.t_s or b.t(v, 1)
        color, style, marker, _ = variant_style(v)
        ax.plot(ps, [base / b.t(v, p) for p in ps], color=color, linestyle=style, marker=marker,
                label=f"{v} measured")
    par = [r["parallelism"] for r in bounds]
    burdened = [r["burdened_parallelism"] for r in bounds]
    ax.plot(ps, [min(p, x) for p, x in zip(ps, par)], linestyle="--", color="black",
            label=f"min(P, parallelism {fmt(par[-1], 3)} at P={ps[-1]})")
    ax.plot(ps, [min(p, x) for p, x in zip(ps, burdened)], linestyle=":", color="#c44e52",
            label=f"min(P, burdened {fmt(burdened[-1], 3)})")
    ax.set_xlabel("workers P")
    ax.set_ylabel("speedup T_S / T_P" if b.t_s else "speedup T_1 / T_P")
    ax.set_xticks(ps)
    ax.set_title(f"{b.name}: speedup and its bound ({bounds[-1]['variant']} span run)", fontsize=9)
    legend_outside(ax, len(timed_variants) + 2)
    ax.grid(alpha=0.3)
    return svg_of(fig)


def access_matrix_svg(r):
    """Under the simulator: where the data that each place's workers used
    lives, as each row's shares of its accesses served beyond the private
    caches, by the home node of the line (access_matrix)."""
    counts = r.get("access_matrix")
    if not counts:
        return None
    shares = [[100 * v / (sum(row) or 1) for v in row] for row in counts]
    return trace_pictures.matrix_svg(f"{r['variant']} P={r['workers']}: % of each place's accesses by home",
                                     "place", "home node", shares, cell=40, text=lambda v: f"{v:.0f}")


def svg_of(fig):
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.find("<svg"):]


def plot_speedup(b):
    fig, ax = plt.subplots(figsize=(4.6, 3.2))
    lines = 0
    for v in b.variants:
        if v == "serial":
            continue
        ps = sorted(b.by_variant[v])
        if not b.t_s:
            continue
        color, style, marker, _ = variant_style(v)
        ax.plot(ps, [b.t_s / b.t(v, p) for p in ps], color=color, linestyle=style, marker=marker, markersize=4,
                label=v)
        lines += 1
    if b.workers:
        ax.plot(b.workers, b.workers, linestyle=":", color="grey", label="linear")
        lines += 1
    ax.set_xlabel("workers")
    ax.set_ylabel("speedup T_S / T_P")
    ax.set_xticks(b.workers)
    ax.set_title(f"{b.name}: speedup")
    legend_outside(ax, lines)
    ax.grid(alpha=0.3)
    return svg_of(fig)


def label_size(bars):
    """The font size of bar labels: smaller as bars crowd, so that one
    label never runs into the next (each bar is given 0.22 inch or more)."""
    return 8 if bars <= 12 else 7 if bars <= 24 else 6


def plot_times(b):
    p = max(b.workers)
    names, med, lo, hi, styles = [], [], [], [], []
    for v in b.variants:
        r = b.by_variant[v].get(p) or b.by_variant[v].get(1)
        if not r:
            continue
        names.append(f"{v} (P={r['workers']})")
        med.append(r["median_s"])
        lo.append(r["median_s"] - r["min_s"])
        hi.append(r["max_s"] - r["median_s"])
        styles.append(variant_style(v))
    fig, ax = plt.subplots(figsize=(4.6, 0.25 * len(names) + 1.2))
    ax.barh(range(len(names)), med, xerr=[lo, hi], color=[c for c, *_ in styles], capsize=2, edgecolor="white", linewidth=0.5)
    for i, (_, _, _, hatch) in enumerate(styles):
        if hatch:
            ax.patches[i].set_hatch(hatch)
    ax.set_yticks(range(len(names)), names, fontsize=label_size(len(names)))
    ax.invert_yaxis()
    ax.set_xlabel("median seconds (bars: min to max)")
    ax.set_title(f"{b.name}: time per variant")
    ax.grid(axis="x", alpha=0.3)
    return svg_of(fig)


def plot_breakdown(b):
    """NUMA-WS figure 3/7: total processing time split into work, scheduling
    and idle, summed over workers, normalized to T_S."""
    bars = []
    for v in b.variants:
        for p in sorted(b.by_variant[v]):
            r = b.by_variant[v][p]
            if "work_s" in r and b.t_s:
                bars.append((f"{v} P={p}", r["work_s"] / b.t_s, r["sched_s"] / b.t_s, r["idle_s"] / b.t_s))
    if not bars:
        return None
    # Horizontal bars, one row per cell, so that labels never overlap
    # however many policies there are.
    fig, ax = plt.subplots(figsize=(4.6, 0.25 * len(bars) + 1.2))
    y = range(len(bars))
    work = [w for _, w, _, _ in bars]
    sched = [s for _, _, s, _ in bars]
    idle = [i for _, _, _, i in bars]
    ax.barh(y, work, label="work", color="#55a868")
    ax.barh(y, sched, left=work, label="scheduling", color="#c44e52")
    ax.barh(y, idle, left=[a + c for a, c in zip(work, sched)], label="idle", color="#8c8c8c")
    ax.set_yticks(list(y), [n for n, *_ in bars], fontsize=label_size(len(bars)))
    ax.invert_yaxis()
    ax.set_xlabel("processing time / T_S")
    ax.set_title(f"{b.name}: where the time went")
    legend_outside(ax, 3)
    ax.grid(axis="x", alpha=0.3)
    return svg_of(fig)


def markdown_table(rows):
    if not rows:
        return ""
    cols = list(rows[0].keys())
    out = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(out)


def html_table(rows):
    if not rows:
        return ""
    cols = list(rows[0].keys())
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r[c]))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def overview(benchmarks):
    """One row per benchmark and locus policy: T_S, the policy at 1 and at
    the largest P, the best of oneTBB and OpenMP at that P, and the policy
    against it; the fastest policy of a benchmark is marked."""
    rows = []
    for b in benchmarks:
        p = max(b.workers)
        others = [(b.t(v, p), v) for v in b.variants if v.startswith("tbb") or v.startswith("omp")]
        others = [o for o in others if o[0] is not None]
        best = min(others) if others else (None, "-")
        policies = [v for v in b.variants if v.startswith("locus:") and b.t(v, p)]
        fastest = min(policies, key=lambda v: b.t(v, p)) if len(policies) > 1 else None
        serial = b.by_variant.get("serial", {}).get(1)
        for v in policies or ["-"]:
            t1, tp = b.t(v, 1), b.t(v, p)
            row = OrderedDict()
            row["benchmark"] = b.name
            row["locus policy"] = v + (" (fastest)" if v == fastest else "")
            row["T_S s"] = timed(serial) if serial else "-"
            row["T_1/T_S"] = fmt(t1 / b.t_s) if (t1 and b.t_s) else "-"
            row[f"T_1/T_{p}"] = fmt(t1 / tp) if (t1 and tp) else "-"
            row[f"T_{p} s"] = timed(b.by_variant[v][p]) if tp else "-"
            row[f"best other T_{p} s"] = (f"{timed(b.by_variant[best[1]][p])} ({best[1]})" if best[0] else "-")
            row["policy / best other"] = fmt(tp / best[0]) if (tp and best[0]) else "-"
            row["verified"] = "yes" if b.verified else "NO"
            rows.append(row)
    return rows


# The constructs of the overheads suite (bench/runner/suites.cpp, issue 44)
# and how many of each one a run performs, from its parameters.
def _fib_forks(n):
    a, b = 0, 1  # fib(k), fib(k+1); a call with n >= 2 forks: fib(n+1) - 1 forks in all
    for _ in range(n + 1):
        a, b = b, a + b
    return max(a - 1, 0)


OVERHEAD_CONSTRUCTS = [
    ("arena", "arena::execute from a thread", lambda p: int(p["rounds"])),
    ("arena-from-task", "arena::execute from a task", lambda p: int(p["rounds"])),
    ("enqueue", "task_group::enqueue", lambda p: int(p["rounds"]) * int(p["tasks"])),
    ("pipeline", "pipeline item", lambda p: int(p["items"])),
    ("fib", "fork_join (oneTBB: parallel_invoke)", lambda p: _fib_forks(int(p["n"]))),
    ("fib-spawn", "task_group::spawn (oneTBB: task_group::run)", lambda p: _fib_forks(int(p["n"]))),
]


def overheads_table(benchmarks):
    """Issue 44: per construct and P, each variant's cost per operation
    (median / operations) and each locus variant's time against oneTBB's
    from the same run (at most 1.00 is the goal); then task_group::spawn
    against fork_join under each locus policy. Empty unless the run had
    these benchmarks with a tbb variant."""
    by_name = {b.name: b for b in benchmarks}
    rows = []
    for name, construct, ops_of in OVERHEAD_CONSTRUCTS:
        b = by_name.get(name)
        if b is None or "tbb" not in b.by_variant:
            continue
        ops = ops_of(b.params)
        locus = [v for v in b.variants if v.startswith("locus:")]
        for p in b.workers:
            tbb = b.t("tbb", p)
            if not tbb or not ops:
                continue
            row = OrderedDict()
            row["construct"] = f"{construct} ({name})"
            row["P"] = p
            row["operations"] = ops
            row["oneTBB ns/op"] = fmt(tbb / ops * 1e9, 3)
            for v in locus:
                t = b.t(v, p)
                row[f"{v} ns/op"] = fmt(t / ops * 1e9, 3) if t else "-"
                row[f"{v} / oneTBB"] = fmt(t / tbb) if t else "-"
            rows.append(row)
    fj, sp = by_name.get("fib"), by_name.get("fib-spawn")
    if fj and sp and fj.params.get("n") == sp.params.get("n"):
        for v in [v for v in sp.variants if v.startswith("locus:") and v in fj.by_variant]:
            for p in sp.workers:
                a, b = sp.t(v, p), fj.t(v, p)
                if a and b:
                    row = OrderedDict()
                    row["construct"] = f"task_group::spawn / fork_join under {v} (goal: at most 2)"
                    row["P"] = p
                    row["operations"] = _fib_forks(int(sp.params["n"]))
                    row["spawn / fork_join"] = fmt(a / b)
                    rows.append(row)
    # Every row has every column (markdown_table takes the first row's).
    columns = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    return [OrderedDict((k, r.get(k, "")) for k in columns) for r in rows]


def hybrid_tables(cells, runs):
    """The hybrid MPI benchmarks (bench/mpi/README.md), per machine and size:
    one row per program, shape (ranks x workers per rank) and variant, with
    the variant's time against the mpi variant's of the same shape (mpi /
    variant: above 1, faster than one serial rank per core would be with
    these ranks); then how each run was launched."""
    groups = defaultdict(list)
    for r in cells:
        groups[(r.get("machine", "?"), r["size"])].append(r)
    order = {"mpi": 0, "mpi+omp": 1, "mpi+locus-bsp": 2, "mpi+locus-tasks": 3, "mpi+locus-bsp-aware": 4}
    out = []
    for (machine, size), rows in groups.items():
        mpi = {(r["benchmark"], r["ranks"], r["workers_per_rank"]): r for r in rows if r["variant"] == "mpi"}
        table = []
        for r in sorted(rows, key=lambda r: (r["benchmark"], -r["ranks"], order.get(r["variant"], 9), r["variant"])):
            base = mpi.get((r["benchmark"], r["ranks"], 1))
            line = OrderedDict()
            line["program"] = r["benchmark"]
            line["ranks x workers"] = f"{r['ranks']} x {r['workers_per_rank']}"
            line["variant"] = r["variant"]
            line["median s"] = timed(r)
            line["min-max s"] = f"{fmt(r['min_s'], 3)}-{fmt(r['max_s'], 3)}"
            line["mpi / variant"] = fmt(base["median_s"] / r["median_s"]) if base else "-"
            # locus::mpi's counters (per rep, all ranks): waits, and those
            # that suspended their task.
            line["waits (suspended) per rep"] = (f"{r['mpi_requests_waited']:.0f} ({r['mpi_tasks_suspended']:.0f})"
                                                 if "mpi_requests_waited" in r else "")
            line["verified"] = "yes" if r["verified"] else "NO"
            table.append(line)
        launches = []
        for i in sorted({r["_run"] for r in rows if r["_run"] is not None}):
            run = runs[i]
            launches.append(f"{run.get('launch', '?')} ({run.get('mpi_library', 'MPI ?')}; "
                            f"load average {run.get('load_average', '?')})")
        out.append((machine, size, table, sorted(set(launches))))
    return out


def provenance(runs, rows):
    """One row per run record that a shown cell comes from."""
    used = sorted({r["_run"] for r in rows if r["_run"] is not None})
    out = []
    for i in used:
        run = runs[i]
        libs = ", ".join(f"{k} {v}" for k, v in run.get("libraries", {}).items())
        settings = " ".join(f"{k}={v}" for k, v in run.get("settings", {}).items()) or "none"
        row = OrderedDict()
        row["run"] = str(len(out) + 1)
        row["date (UTC)"] = run.get("time", "?")
        row["commit"] = run.get("commit", "?")
        row["compiler and flags"] = f"{run.get('compiler', '?')}; {run.get('build_flags', '?')}"
        row["CPU"] = f"{run.get('cpu', '?')}, {run.get('cpus', '?')} cpus ({run.get('host', '?')}, {run.get('os', '?')})"
        row["caches"] = run.get("caches", "?")
        row["libraries"] = libs or "?"
        row["reps"] = f"{run.get('reps', '?')} timed + {run.get('warmup', '?')} warm-up per cell, interleaved"
        row["LOCUS_* settings"] = settings
        row["cells"] = str(sum(1 for r in rows if r["_run"] == i))
        out.append(row)
    return out


def anchor(text):
    """An id for a heading, the same in the HTML and the Markdown."""
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.plots svg { max-width: 520px; height: auto; }
.note { color: #555; font-size: 13px; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 3px; margin-top: 2em; }
nav ul { margin: 0.3em 0 1em; } li.toc3 { margin-left: 1.5em; } li.toc4 { margin-left: 3em; }
.schedule svg { display: block; margin: 0.5em 0; max-width: 100%; height: auto; }
"""


def schedule_section(r, slug, out_dir, engine, size):
    """The pictures of one traced cell (level 4, under its benchmark)."""
    title = f"Schedule of {r['benchmark']} {r['variant']} P={r['workers']} ({engine}, {size})"
    path = r["trace"]
    try:
        pics = trace_pictures.pictures(path)
    except (OSError, ValueError, KeyError) as e:
        note = f"The trace {path} could not be read ({e}); no pictures."
        return (4, title, [note, ""], [f"<p class='note'>{html.escape(note)}</p>"])
    note = (f"From the trace {path} (the cell's last timed run; open it in the Perfetto UI for every task, "
            "or summarize it with locus-trace).")
    md, page = [note, ""], [f"<p class='note'>{html.escape(note)}</p>", "<div class='schedule'>"]
    cell = f"{r['variant']}-P{r['workers']}".replace(":", "_").replace("+", "_")
    for kind, svg in pics:
        name = f"{slug}-{cell}-{kind}.svg"
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(svg)
        md.append(f"![{r['benchmark']} {kind}]({name})")
        page.append(svg)
    page.append("</div>")
    md.append("")
    return (4, title, md, page)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="locus benchmark report")
    args = ap.parse_args()
    rows, runs, hybrid = load(args.results)
    if not rows and not hybrid:
        sys.exit("report.py: no results")
    os.makedirs(args.out, exist_ok=True)

    groups = defaultdict(list)
    for r in rows:
        groups[(r.get("engine", "threaded"), r.get("machine", "?"), r["size"])].append(r)

    # Sections in order: (level, title, Markdown lines, HTML parts); the
    # table of contents is made from them.
    sections = []
    explain = ("T_S: the serial variant. T_P: median of the timed runs on P workers (min to max shown). "
               "T_1/T_S: spawn overhead. T_1/T_P: scalability. work/sched/idle: time summed over workers, "
               "divided by T_S (NUMA-WS figure 7). W_P/T_1: work inflation (figure 8). Every run was "
               "checked against the serial result.")
    noisy_cells = [r for r in rows if noisy(r)]
    noise = (f"{len(noisy_cells)} of {len(rows)} cells are noisy: their slowest timed run took more than "
             f"{NOISY_SPREAD:g} times their fastest (max/min), so their medians are weak estimates; they are "
             "marked \"noisy\" wherever their time appears.")
    prov = provenance(runs, rows + hybrid)
    unrecorded = sum(1 for r in rows + hybrid if r["_run"] is None)
    prov_note = ("Each run as locus-bench recorded it before its cells." +
                 (f" {unrecorded} cells come from results written without a run record: their provenance "
                  "is unknown." if unrecorded else ""))
    sections.append((2, "Provenance", [prov_note, "", markdown_table(prov), ""],
                     [f"<p class='note'>{html.escape(prov_note)}</p>", html_table(prov)]))

    for (engine, machine, size), group_rows in groups.items():
        if engine == "sim":
            block = group_rows[0].get("block_bytes")
            label = (f"SIMULATED on machine model {machine}" + (f" (memory in {block}-byte blocks)" if block else "")
                     + "; times are simulated, not measured")
        else:
            label = "measured on " + machine
        heading = f"{label}, size {size}"
        sections.append((2, heading, [], []))
        by_bench = defaultdict(list)
        for r in group_rows:
            by_bench[r["benchmark"]].append(r)
        benchmarks = [Benchmark(name, rs) for name, rs in by_bench.items()]
        timed_benchmarks = [b for b in benchmarks if b.rows]
        ov = sim_overview(timed_benchmarks) if engine == "sim" else overview(timed_benchmarks)
        sections.append((3, f"Overview ({'simulated' if engine == 'sim' else 'measured'}, {size})",
                         [markdown_table(ov), ""], [html_table(ov)]))
        overheads = overheads_table(timed_benchmarks) if engine != "sim" else []
        if overheads:
            note = ("Each construct's cost per operation (median / operations) and each locus variant's time "
                    "against oneTBB's in this run (issue 44: at most 1.00). The last rows divide "
                    "task_group::spawn by fork_join (fib-spawn / fib) under each locus policy.")
            sections.append((3, f"Overheads against oneTBB (measured, {size})",
                             [note, "", markdown_table(overheads), ""],
                             [f"<p class='note'>{html.escape(note)}</p>", html_table(overheads)]))
        for b in benchmarks:
            slug = f"{engine}-{size}-{b.name}".replace(":", "_").replace("/", "_")
            params = ", ".join(f"{k}={v}" for k, v in b.params.items())
            md = [f"Parameters: {params}. {b.summary}", "", markdown_table(b.table()), ""]
            page = [f"<p class='note'>Parameters: {html.escape(params)}. {html.escape(b.summary)}</p>",
                    html_table(b.table())]
            plots = []
            if b.rows:
                plots = [("speedup", plot_speedup(b)), ("times", plot_times(b)), ("breakdown", plot_breakdown(b)),
                         ("parallelism", plot_parallelism(b))]
                p = max(b.workers)
                for v in b.variants:
                    if b.by_variant[v].get(p):
                        plots.append((f"access-{v}".replace(":", "_").replace("+", "_"),
                                      access_matrix_svg(b.by_variant[v][p])))
            if b.span_rows:
                note = ("Work and span (LOCUS_SPAN=1 cells: every construct in serial order, strands timed; "
                        "burdened: a steal's cost at every point a thief could take work).")
                md += [note, "", markdown_table(span_table(b)), ""]
                page += [f"<p class='note'>{html.escape(note)}</p>", html_table(span_table(b))]
            page.append("<div class='plots'>")
            for kind, svg in plots:
                if svg is None:
                    continue
                name = f"{slug}-{kind}.svg"
                with open(os.path.join(args.out, name), "w") as f:
                    f.write(svg)
                md.append(f"![{b.name} {kind}]({name})")
                page.append(svg)
            page.append("</div>")
            md.append("")
            sections.append((3, f"{b.name} ({'simulated' if engine == 'sim' else 'measured'}, {size})", md, page))
            for r in b.rows:
                if r.get("trace"):
                    sections.append(schedule_section(r, slug, args.out, engine, size))

    if hybrid:
        note = ("locus-mpi-bench (bench/mpi/README.md): R MPI ranks x W threads or locus workers per rank. "
                "A time is the slowest rank's, its median over the reps; mpi / variant compares a variant with "
                "the mpi variant (one serial rank per core) on the same ranks. Every run was checked against a "
                "serial single-process computation.")
        sections.append((2, "Hybrid MPI benchmarks", [note, ""], [f"<p class='note'>{html.escape(note)}</p>"]))
        for machine, size, table, launches in hybrid_tables(hybrid, runs):
            how = "Launched as: " + "; ".join(launches) + "." if launches else ""
            sections.append((3, f"Hybrid, measured on {machine}, size {size}", [markdown_table(table), "", how, ""],
                             [html_table(table), f"<p class='note'>{html.escape(how)}</p>"]))

    md = [f"# {args.title}", "", explain, "", noise, "", "Contents:", ""]
    page = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(args.title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{html.escape(args.title)}</h1>",
            f"<p class='note'>{html.escape(explain)}</p>", f"<p class='note'>{html.escape(noise)}</p>",
            "<nav><b>Contents</b><ul>"]
    for level, title, _, _ in sections:
        indent = "  " * (level - 2)
        md.append(f"{indent}- [{title}](#{anchor(title)})")
        page.append(f"<li class='toc{level}'><a href='#{anchor(title)}'>{html.escape(title)}</a></li>")
    md.append("")
    page.append("</ul></nav>")
    for level, title, md_body, page_body in sections:
        md += [f'<a id="{anchor(title)}"></a>', "", f"{'#' * level} {title}", ""] + md_body
        page.append(f"<h{level} id='{anchor(title)}'>{html.escape(title)}</h{level}>")
        page += page_body

    page.append("</body></html>")
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(args.out, "report.html"), "w") as f:
        f.write("\n".join(page))
    print(os.path.join(args.out, "report.html"))


if __name__ == "__main__":
    main()
