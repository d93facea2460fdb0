#!/usr/bin/env python3
"""ADWS figures 16, 17 and 18 (seed 003, section 6) from locus-bench results
of the serial variant and the ADWS paper's five schedulers.

    adws_tables.py RESULTS.jsonl

Prints Markdown, one table per benchmark, one row per parameter setting
(the working-set sweep): figure 16, speedup T_S / T_56 per policy; figure
17, the summed busy (work), scheduling and idle seconds per policy (idle
derived as P T - busy - scheduling); figure
18, L3 misses per policy as the lines served from beyond the worker's own
socket's L3 (another socket's L3, or DRAM), with the serial run's beside
them. Rows are labeled with the results' engine and machine (SIMULATED when
the engine is "sim")."""

import json
import sys
from collections import defaultdict

POLICIES = ["ws", "adws", "ml-ws", "ml-adws", "sb"]


def l3_misses(cell):
    a = cell.get("accesses") or {}
    return a.get("remote_l3_hits", 0) + a.get("local_dram", 0) + a.get("remote_dram", 0)


def setting(cell):
    return ",".join(f"{k}={v}" for k, v in sorted(cell["params"].items()))


def main(path):
    cells = {}
    label = set()
    for line in open(path):
        c = json.loads(line)
        if "record" in c:  # a run's header
            continue
        if not c.get("verified"):
            sys.exit(f"{path}: {c['benchmark']} {c['variant']} P={c['workers']} was not verified")
        cells[(c["benchmark"], setting(c), c["variant"])] = c
        label.add(("SIMULATED on " if c["engine"] == "sim" else "measured on ") + (c.get("machine") or "host"))
    print("Results: " + "; ".join(sorted(label)) + ".\n")
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
                c = cells.get((bench, s, "locus:" + p))
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
              ["locus:" + p for p in POLICIES],
              lambda c: f"{c['work_s']:.3f} / {c['sched_s']:.3f} / "
              f"{c['workers'] * c['median_s'] - c['work_s'] - c['sched_s']:.3f}")
        table("Figure 18, L3 misses (lines from another socket's L3 or DRAM), millions:",
              ["serial"] + ["locus:" + p for p in POLICIES], lambda c: f"{l3_misses(c) / 1e6:.2f}")
        print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
