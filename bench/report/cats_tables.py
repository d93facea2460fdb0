#!/usr/bin/env python3
"""CATS figure 7, table 2 and figure 13 (seed 002, section 4) from
locus-bench results of locus:ws (the paper's Cilk-a) and locus:cats.

    cats_tables.py RESULTS.jsonl [RESULTS.jsonl ...] [--extra +suffix ...]

Prints Markdown, one row per benchmark and parameter setting: the times of
ws and cats and the paper's measure of figure 7, the time cats saves
against ws (1 - T_cats / T_ws; negative: cats is slower); table 2's L3
misses, the lines served from beyond the worker's own socket's L3 (another
socket's L3, or DRAM), and their cut; where the time went, the workers'
summed work and idle seconds; and what the policy did (counters
partitions, subtrees, cpu_bound, reprofiles, and the two rule checks
intra_escapes and subtree_overlaps, 0 unless a rule broke). The CPU-bound
controls (figure 13) are the same rows: cats's cost over ws, with the
verdict in the cpu_bound column. Rows are labeled with the results' engine
and machine (SIMULATED when the engine is "sim"). A ratio is only formed
between cells of one file (one invocation).

The column "T at ws idle" is the time a cats variant would take if its
workers idled as long as ws's: (work + sched of cats + idle of ws) / P,
since T x P = work + sched + idle in every cell; "work vs ws" is its
summed work over ws's (the locality gain, or loss, by itself). An extra
variant is compared with the ws cell of its own run (locus:ws[spread] for
locus:cats[spread]). --strip MOD keeps only the variants ending in MOD
(e.g. +interleave) and names them without it; --title prints a heading.

--extra adds columns for other cats variants, e.g. options the paper does
not have run as their own variant names; by default only the paper's
configuration is shown."""

import argparse

from results import verified_cells, where

COUNTERS = ["partitions", "subtrees", "cpu_bound", "reprofiles", "intra_escapes", "subtree_overlaps"]


def l3_misses(cell):
    a = cell.get("accesses") or {}
    return a.get("remote_l3_hits", 0) + a.get("local_dram", 0) + a.get("remote_dram", 0)


def setting(cell):
    return ",".join(f"{k}={v}" for k, v in sorted(cell["params"].items()))


def ws_of(by_variant, variant):
    """The ws cell a variant is compared with: the one of its own run (a
    variant renamed with a suffix, locus:cats[spread], has its run's ws
    renamed the same way, locus:ws[spread]), so that a ratio is formed only
    within one invocation."""
    suffix = variant[len("locus:cats"):]
    if suffix.startswith("["):
        return by_variant.get("locus:ws" + suffix)
    return by_variant.get("locus:ws")


def busy(cell):
    return cell.get("work_s", 0) + cell.get("sched_s", 0)


def main(paths, extra, title, strip):
    rows = {}
    order = []
    label = set()
    for c in verified_cells(paths):
        if strip:
            if not c["variant"].endswith(strip):
                continue
            c["variant"] = c["variant"].removesuffix(strip)
        key = (c["benchmark"], setting(c), c["workers"])
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][c["variant"]] = c
        label.add(where(c))
    if title:
        print(f"## {title}\n")
    print("Results: " + "; ".join(sorted(label)) + ".\n")
    variants = ["locus:cats"] + ["locus:cats" + e for e in extra]
    head = ["benchmark", "setting", "P", "ws (ms)"]
    for v in variants:
        name = v.removeprefix("locus:")
        head += [f"{name} (ms)", f"{name} saves", f"{name} L3 cut", f"{name} work vs ws",
                 f"{name} T at ws idle (ms)"]
    head += ["ws L3 misses", "cats L3 misses", "ws work/idle (ms)", "cats work/idle (ms)"] + COUNTERS
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for key in order:
        bench, s, workers = key
        by_variant = rows[key]
        ws = by_variant.get("locus:ws")
        if ws is None:
            continue
        row = [bench, s, str(workers), f"{ws['median_s'] * 1e3:.2f}"]
        for v in variants:
            c = by_variant.get(v)
            base = ws_of(by_variant, v)
            if c is None or base is None:
                row += ["-"] * 5
                continue
            cut = 1 - l3_misses(c) / l3_misses(base) if l3_misses(base) else 0
            work = c.get("work_s", 0) / base["work_s"] if base.get("work_s") else 0
            # T x P = work + sched + idle in every cell: cats's time with
            # its workers idle only as long as ws's
            t_idle = (busy(c) + base.get("idle_s", 0)) / workers
            row += [f"{c['median_s'] * 1e3:.2f}", f"{1 - c['median_s'] / base['median_s']:+.1%}", f"{cut:.0%}",
                    f"{work:.2f}", f"{t_idle * 1e3:.2f}"]
        cats = by_variant.get("locus:cats") or {}
        row.append(f"{l3_misses(ws) / 1e6:.3f} M")
        row.append(f"{l3_misses(cats) / 1e6:.3f} M" if cats else "-")
        row.append(f"{ws.get('work_s', 0) * 1e3:.1f} / {ws.get('idle_s', 0) * 1e3:.1f}")
        row.append(f"{cats.get('work_s', 0) * 1e3:.1f} / {cats.get('idle_s', 0) * 1e3:.1f}" if cats else "-")
        row += [str(cats.get(k, "-")) for k in COUNTERS]
        print("| " + " | ".join(row) + " |")
    print()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--extra", action="append", default=[], help="a cats variant suffix to add as columns")
    ap.add_argument("--title", help="a heading printed above the table")
    ap.add_argument("--strip", help="only the variants ending in this modifier (e.g. +interleave), named without it")
    a = ap.parse_args()
    main(a.results, a.extra, a.title, a.strip)
