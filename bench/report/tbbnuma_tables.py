#!/usr/bin/env python3
"""TBB-NUMA figures 14 to 18 (seed 001, section 5) from locus-bench results.

    tbbnuma_tables.py RESULTS.jsonl [RESULTS.jsonl ...] [--policy tbb-numa] [--baseline tbb-std]
                      [--extra SUFFIX]... [--title TEXT]

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

--extra SUFFIX adds a column "(NACS, NADD) SUFFIX": POLICY's (NACS, NADD)
run under an option of ours, its variant suffixed by tools/reproduce.py
(locus:POLICY+nacs[+contender]SUFFIX). It is shown beside the paper's
configuration, never instead of it: the gain is (NACS, NADD)'s.
Configurations no result has are left out of the tables. --title puts
TEXT above the tables as a heading.

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
    extras = []
    paths = []
    it = iter(argv)
    for a in it:
        if a == "--policy":
            policy = next(it)
        elif a == "--baseline":
            baseline = next(it)
        elif a == "--extra":
            extras.append(next(it))
        elif a == "--title":
            print(f"## {next(it)}\n")
        else:
            paths.append(a)
    # (column, variant suffix, policy, suffix after +contender): BASELINE's
    # standard-TBB configurations, POLICY's, then the extras.
    columns = [(name, suffix, policy, "") for name, suffix in CONFIGS]
    standard = list(STANDARD_TBB)
    base_name = "(noap, FT)"
    if baseline:
        extra = [(f"{name} {baseline}", suffix, baseline, "") for name, suffix in CONFIGS if name in STANDARD_TBB]
        columns = extra + columns  # the baseline's first, as the paper's figures order them
        standard = [name for name, _, _, _ in extra]
        base_name = f"(noap, FT) {baseline}"
    columns += [(f"(NACS, NADD) {e}", "+nacs", policy, e) for e in extras]
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
            for name, suffix, who, tail in columns:
                if variant == f"locus:{who}{suffix}" + ("+contender" if contender else "") + tail:
                    groups[(machine, bench, s, workers, contender)][name] = c

    for contender in (False, True):
        keys = sorted(k for k in groups if k[4] == contender)
        if not keys:
            continue
        # Configurations no run of this block has (say POLICY's standard-TBB
        # ones, when BASELINE's stand for them) are left out.
        shown = [col for col in columns if any(col[0] in groups[k] for k in keys)]
        what = "with the contender in a second arena (figures 16 and 17)" if contender else "(figures 14, 15, 18)"
        print(f"### Relative execution time {what}\n")
        print(f"Time relative to {base_name}; gain = T(best standard-TBB configuration: "
              + ", ".join(standard) + ") / T(NACS, NADD) - 1, the paper's measure (section 5.2: 0.40 / 0.34 "
              "- 1 = +18% for cg).\n")
        print("| machine | benchmark | setting | P | " + " | ".join(n for n, _, _, _ in shown) + " | gain over best standard |")
        print("|---|---|---|---|" + "---|" * len(shown) + "---|")
        for k in keys:
            machine, bench, s, workers, _ = k
            g = groups[k]
            base = g.get(base_name)
            row = []
            for name, _, _, _ in shown:
                c = g.get(name)
                row.append(f"{c['median_s'] / base['median_s']:.2f}" if c and base else "-")
            standard_times = [g[n]["median_s"] for n in standard if n in g]
            best = g.get("(NACS, NADD)")
            gain = f"{100 * (min(standard_times) / best['median_s'] - 1):+.0f}%" if standard_times and best else "-"
            print(f"| {labels[machine]} | {bench} | {s} | {workers} | " + " | ".join(row) + f" | {gain} |")
        print()
        print(f"### Where the lines served beyond L2 came from {what}\n")
        print("Percent of the lines: own socket's L3 / another socket's L3 / local DRAM / remote DRAM.\n")
        print("| machine | benchmark | P | " + " | ".join(n for n, _, _, _ in shown) + " |")
        print("|---|---|---|" + "---|" * len(shown))
        for k in keys:
            machine, bench, s, workers, _ = k
            row = []
            for name, _, _, _ in shown:
                c = groups[k].get(name)
                b = breakdown(c) if c else None
                row.append(" / ".join(f"{x:.0f}" for x in b) if b else "-")
            print(f"| {machine} | {bench} | {workers} | " + " | ".join(row) + " |")
        print()
        print("Absolute times (s): " + "; ".join(
            f"{k[0]} {k[1]} {n} {groups[k][n]['median_s']:.4g}" for k in keys for n, _, _, _ in shown if n in groups[k]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
