#!/usr/bin/env python3
"""ADWS figures 16, 17 and 18 (seed 003, section 6) from locus-bench results
of the serial variant and the ADWS paper's five schedulers.

    adws_tables.py RESULTS.jsonl [--layout +interleave] [--local +first-touch]

Prints Markdown, one table per benchmark, one row per parameter setting
(the working-set sweep): figure 16, speedup T_S / T_56 per policy; figure
17, the summed busy (work), scheduling and idle seconds per policy (idle
derived as P T - busy - scheduling); figure
18, L3 misses per policy as the lines served from beyond the worker's own
socket's L3 (another socket's L3, or DRAM), with the serial run's beside
them. Rows are labeled with the results' engine and machine (SIMULATED when
the engine is "sim").

--layout names the data-layout suffix of the policies' variants (the ADWS
paper ran them with pages interleaved: locus:ws+interleave, ...). --local
adds figure 21: adws and ml-adws with that layout (pages where the
computation first touches them) against --layout's, as 1 - T_local /
T_layout."""

import argparse
from collections import defaultdict

from results import verified_cells, where

POLICIES = ["ws", "adws", "ml-ws", "ml-adws", "sb"]
# What the sb column is: the paper's SB-D parameters, with locus's
# differences from it (src/policy/multilevel/README.md).
SB_NOTE = ("sb: SB-D's sigma = 0.5 and mu = 0.2 (the paper's), sizes per task group rather than per task, "
           "no per-cache task queues (src/policy/multilevel/README.md).")


def l3_misses(cell):
    a = cell.get("accesses") or {}
    return a.get("remote_l3_hits", 0) + a.get("local_dram", 0) + a.get("remote_dram", 0)


def setting(cell):
    return ",".join(f"{k}={v}" for k, v in sorted(cell["params"].items()))


def main(path, layout, local):
    cells = {}
    label = set()
    for c in verified_cells([path]):
        cells[(c["benchmark"], setting(c), c["variant"])] = c
        label.add(where(c))
    print("Results: " + "; ".join(sorted(label)) + ".\n")
    print(SB_NOTE + "\n")
    by_bench = defaultdict(list)
    for (bench, s, _v) in cells:
        if s not in by_bench[bench]:
            by_bench[bench].append(s)
    for bench, settings in by_bench.items():
        print(f"### {bench}\n")
        print("| setting | T_S (s) | " + " | ".join(f"{p} T_S/T" for p in POLICIES) + " |")
        print("|---|---|" + "---|" * len(POLICIES))
        for s in settings:
            serial = cells.get((bench, s, "serial"))
            row = [s, f"{serial['median_s']:.4f}" if serial else "-"]
            for p in POLICIES:
                c = cells.get((bench, s, "locus:" + p + layout))
                row.append(f"{serial['median_s'] / c['median_s']:.1f}" if c and serial else "-")
            print("| " + " | ".join(row) + " |")
        def table(title, variants, show):
            print(f"\n{title}\n")
            print("| setting | " + " | ".join(v.removeprefix("locus:") for v in variants) + " |")
            print("|---|" + "---|" * len(variants))
            for s in settings:
                cs = [cells.get((bench, s, v)) for v in variants]
                print("| " + " | ".join([s] + [show(c) if c else "-" for c in cs]) + " |")

        # Idle: the rest of P x T (a worker asleep through a whole timed run
        # is not in the recorded idle_s, so it is derived, not read).
        table("Figure 17, busy / scheduling / idle seconds summed over the workers (idle = P T - busy - scheduling):",
              ["locus:" + p + layout for p in POLICIES],
              lambda c: f"{c['work_s']:.3f} / {c['sched_s']:.3f} / "
              f"{c['workers'] * c['median_s'] - c['work_s'] - c['sched_s']:.3f}")
        table("Figure 18, L3 misses (lines from another socket's L3 or DRAM), millions:",
              ["serial"] + ["locus:" + p + layout for p in POLICIES], lambda c: f"{l3_misses(c) / 1e6:.2f}")
        if local:
            # Figure 21: only the deterministic schedulers (section 6.5).
            print(f"\nFigure 21, {local} against {layout or 'the default layout'}: T (s) each, and 1 - T_local / T:\n")
            print("| setting | policy | T " + (layout or "default") + " | T " + local + " | gain | DRAM local / remote, millions |")
            print("|---|---|---|---|---|---|")
            for s in settings:
                for p in ("adws", "ml-adws"):
                    a, b = cells.get((bench, s, "locus:" + p + layout)), cells.get((bench, s, "locus:" + p + local))
                    if not (a and b):
                        continue
                    dram = " -> ".join(f"{(c['accesses'] or {}).get('local_dram', 0) / 1e6:.2f} / "
                                       f"{(c['accesses'] or {}).get('remote_dram', 0) / 1e6:.2f}" for c in (a, b))
                    print(f"| {s} | {p} | {a['median_s']:.4f} | {b['median_s']:.4f} | "
                          f"{100 * (1 - b['median_s'] / a['median_s']):+.1f}% | {dram} |")
        print()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--layout", default="", help="the policies' variant suffix, e.g. +interleave")
    parser.add_argument("--local", default="", help="figure 21's layout, e.g. +first-touch")
    args = parser.parse_args()
    main(args.results, args.layout, args.local)
