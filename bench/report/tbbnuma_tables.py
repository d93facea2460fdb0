#!/usr/bin/env python3
"""TBB-NUMA figures 14 to 18 (seed 001, section 5) from locus-bench results.

    tbbnuma_tables.py RESULTS.jsonl [RESULTS.jsonl ...] [--policy tbb-numa] [--baseline tbb-std]

Expects, per benchmark, setting and machine, the paper's configurations as
locus variants of one policy (default tbb-numa), each alone and, for
figures 16 and 17, with +contender:

    (noap, FT)    locus:POLICY+noap+serial-init
    (noap, INTL)  locus:POLICY+noap+interleave
    (ap, INTL)    locus:POLICY+ap+interleave       (loop programs only)
    (NACS, INTL)  locus:POLICY+nacs+interleave
    (NACS, NADD)  locus:POLICY+nacs

The first three run POLICY's scheduler with its hints off. With
--baseline BASELINE (tbb-std: standard TBB's scheduling, thread mailboxes
and the affinity partitioner, src/policy/tbb_std/README.md), the three
standard-TBB configurations are also read from BASELINE's runs, as columns
of their own ("(noap, FT) BASELINE", ...):

    (noap, FT) BASELINE    locus:BASELINE+noap+serial-init
    (noap, INTL) BASELINE  locus:BASELINE+noap+interleave
    (ap, INTL) BASELINE    locus:BASELINE+ap+interleave

and then they are the paper's baselines: times are relative to BASELINE's
(noap, FT), and the gain is over the best of BASELINE's three.

Prints Markdown:

- figure 14 (16 with the contender; 18 on other machines): time relative
  to (noap, FT), and the gain of (NACS, NADD) over the best configuration
  standard TBB can reach ((noap, FT), (noap, INTL), (ap, INTL));
- figure 15 (17): where the lines served beyond L2 came from: the own
  socket's L3, another socket's L3, local DRAM, remote DRAM, in percent
  (the simulator's counters; absent on threads).

A cell whose result was not verified stops the script. Tables are labeled
with the results' engine and machine (SIMULATED when the engine is "sim")."""

import sys
from collections import defaultdict

from results import verified_cells, where

CONFIGS = [
    ("(noap, FT)", "+noap+serial-init"),
    ("(noap, INTL)", "+noap+interleave"),
    ("(ap, INTL)", "+ap+interleave"),
    ("(NACS, INTL)", "+nacs+interleave"),
    ("(NACS, NADD)", "+nacs"),
]
STANDARD_TBB = ("(noap, FT)", "(noap, INTL)", "(ap, INTL)")


def setting(cell):
    return ",".join(f"{k}={v}" for k, v in sorted(cell["params"].items()))


def breakdown(cell):
    a = cell.get("accesses")
    if not a:
        return None
    parts = [a["l3_hits"], a["remote_l3_hits"], a["local_dram"], a["remote_dram"]]
    total = sum(parts)
    return [100.0 * p / total for p in parts] if total else None


def main(argv):
    policy = "tbb-numa"
    baseline = None
    paths = []
    it = iter(argv)
    for a in it:
        if a == "--policy":
            policy = next(it)
        elif a == "--baseline":
            baseline = next(it)
        else:
            paths.append(a)
    # (column, variant suffix, policy): POLICY's configurations, then
    # BASELINE's standard-TBB ones.
    columns = [(name, suffix, policy) for name, suffix in CONFIGS]
    standard = list(STANDARD_TBB)
    base_name = "(noap, FT)"
    if baseline:
        extra = [(f"{name} {baseline}", suffix, baseline) for name, suffix in CONFIGS if name in STANDARD_TBB]
        columns += extra
        standard = [name for name, _, _ in extra]
        base_name = f"(noap, FT) {baseline}"
    if not paths:
        sys.exit(__doc__)
    cells, labels = {}, {}
    for c in verified_cells(paths):
        machine = c.get("machine") or "host"
        labels[machine] = where(c)
        cells[(machine, c["benchmark"], setting(c), c["variant"], c["workers"])] = c

    groups = defaultdict(dict)  # (machine, bench, setting, workers, contender) -> config -> cell
    for (machine, bench, s, variant, workers), c in cells.items():
        for contender in (False, True):
            for name, suffix, who in columns:
                if variant == f"locus:{who}{suffix}" + ("+contender" if contender else ""):
                    groups[(machine, bench, s, workers, contender)][name] = c

    for contender in (False, True):
        keys = sorted(k for k in groups if k[4] == contender)
        if not keys:
            continue
        what = "with the contender in a second arena (figures 16 and 17)" if contender else "(figures 14, 15, 18)"
        print(f"### Relative execution time {what}\n")
        print(f"Time relative to {base_name}; gain = 1 - T(NACS, NADD) / T(best standard-TBB configuration: "
              + ", ".join(standard) + ").\n")
        print("| machine | benchmark | setting | P | " + " | ".join(n for n, _, _ in columns) + " | gain over best standard |")
        print("|---|---|---|---|" + "---|" * len(columns) + "---|")
        for k in keys:
            machine, bench, s, workers, _ = k
            g = groups[k]
            base = g.get(base_name)
            row = []
            for name, _, _ in columns:
                c = g.get(name)
                row.append(f"{c['median_s'] / base['median_s']:.2f}" if c and base else "-")
            standard_times = [g[n]["median_s"] for n in standard if n in g]
            best = g.get("(NACS, NADD)")
            gain = f"{100 * (1 - best['median_s'] / min(standard_times)):+.0f}%" if standard_times and best else "-"
            print(f"| {labels[machine]} | {bench} | {s} | {workers} | " + " | ".join(row) + f" | {gain} |")
        print()
        print(f"### Where the lines served beyond L2 came from {what}\n")
        print("Percent of the lines: own socket's L3 / another socket's L3 / local DRAM / remote DRAM.\n")
        print("| machine | benchmark | P | " + " | ".join(n for n, _, _ in columns) + " |")
        print("|---|---|---|" + "---|" * len(columns))
        for k in keys:
            machine, bench, s, workers, _ = k
            row = []
            for name, _, _ in columns:
                c = groups[k].get(name)
                b = breakdown(c) if c else None
                row.append(" / ".join(f"{x:.0f}" for x in b) if b else "-")
            print(f"| {machine} | {bench} | {workers} | " + " | ".join(row) + " |")
        print()
        print("Absolute times (s): " + "; ".join(
            f"{k[1]} {n} {groups[k][n]['median_s']:.4g}" for k in keys for n, _, _ in columns if n in groups[k]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
