#!/usr/bin/env python3
"""NabbitC figures 6 and 7 and tables II and III (seed 004, section V) from
locus-bench results of the task-graph benchmarks.

    nabbitc_tables.py RESULTS.jsonl [RESULTS.jsonl ...]

Expects, per benchmark and setting, the serial variant on one worker and,
at each worker count, locus:ws (Nabbit), locus:nabbitc (NabbitC),
locus:nabbitc+bad-colors, locus:nabbitc+invalid-colors and locus:ws+static
(the loop version in OpenMP static's partition; omp:static where the
results are measured on threads). Prints Markdown:

- figure 6: speedup T_S / T_P of OpenMP static (and guided, where
  present), Nabbit and NabbitC (and
  NabbitC with our hand-offs, locus:nabbitc[hand-offs], where present);
- figure 7: remote accesses, as section V-B's node-level measure (the
  cell's summary) and, under the simulator, the true share: remote L3 hits
  and remote DRAM lines over every line served beyond L2;
- figures 8 and 9: successful steals, and idle time per worker;
- tables II and III: T_Nabbit / T_NabbitC with bad and with invalid colors
  (the paper's "speedup of NabbitC over Nabbit"), with their mean and
  standard deviation over the worker counts, as the paper gives them.

A cell whose result was not verified stops the script. Tables are labeled
with the results' engine and machine (SIMULATED when the engine is "sim")."""

import re
import statistics
import sys
from collections import defaultdict

from results import verified_cells, where

NABBIT, NABBITC = "locus:ws", "locus:nabbitc"
BAD, INVALID = "locus:nabbitc+bad-colors", "locus:nabbitc+invalid-colors"
# NabbitC with our hand-offs option on (tools/reproduce.py's run suffix).
HANDED = "locus:nabbitc[hand-offs]"
STATIC = ("locus:ws+static", "omp:static")
GUIDED = ("locus:ws+guided", "omp:guided")


def setting(cell):
    return ",".join(f"{k}={v}" for k, v in sorted(cell["params"].items()))


def measure(cell):
    # The label said "VI-B" before the section number was corrected: both.
    m = re.search(r"\(NabbitC (?:V-B|VI-B)\) ([0-9.e+-]+)%", cell.get("summary", ""))
    return float(m.group(1)) if m else None


def true_remote(cell):
    a = cell.get("accesses")
    if not a:
        return None
    beyond = a["l3_hits"] + a["remote_l3_hits"] + a["local_dram"] + a["remote_dram"]
    return 100.0 * (a["remote_l3_hits"] + a["remote_dram"]) / beyond if beyond else None


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main(paths):
    cells, labels = {}, set()
    for c in verified_cells(paths):
        cells[(c["benchmark"], setting(c), c["variant"], c["workers"])] = c
        labels.add(where(c))
    print("Results: " + "; ".join(sorted(labels)) + ".\n")
    runs = defaultdict(set)
    for (bench, s, v, p) in cells:
        if v != "serial":
            runs[(bench, s)].add(p)

    def t(bench, s, v, p):
        c = cells.get((bench, s, v, p))
        return c["median_s"] if c else None

    def ratio(a, b):
        return a / b if a is not None and b else None

    handed = any(v == HANDED for (_, _, v, _) in cells)
    policies = (NABBIT, NABBITC, HANDED) if handed else (NABBIT, NABBITC)
    names = ["Nabbit", "NabbitC"] + (["NabbitC + hand-offs (ours)"] if handed else [])
    print("Figure 6, speedup T_S / T_P (OpenMP static / " + " / ".join(names) + "), and figure 7, remote "
          "accesses (section V-B measure / true share):\n")
    guided = any(v in GUIDED for (_, _, v, _) in cells)
    print("| benchmark | setting | P | T_S (s) | OpenMP static | " + ("OpenMP guided | " if guided else "")
          + " | ".join(names) + " | " + " | ".join(f"{n} remote" for n in names) + " |")
    print("|---|---|---|---|---|" + ("---|" if guided else "") + "---|" * (2 * len(names)))
    for (bench, s), ps in sorted(runs.items()):
        serial = t(bench, s, "serial", 1)
        for p in sorted(ps):
            static = next((t(bench, s, v, p) for v in STATIC if t(bench, s, v, p) is not None), None)
            remote = []
            for v in policies:
                c = cells.get((bench, s, v, p))
                remote.append("-" if c is None else f"{fmt(measure(c), '.1f')}% / {fmt(true_remote(c), '.1f')}%")
            speedups = [fmt(ratio(serial, t(bench, s, v, p)), ".1f") for v in policies]
            by_guided = next((t(bench, s, v, p) for v in GUIDED if t(bench, s, v, p) is not None), None)
            print(f"| {bench} | {s} | {p} | {fmt(serial, '.4f')} | {fmt(ratio(serial, static), '.1f')} | "
                  + (f"{fmt(ratio(serial, by_guided), '.1f')} | " if guided else "")
                  + " | ".join(speedups) + " | " + " | ".join(remote) + " |")
    def field(bench, s, v, p, key):
        c = cells.get((bench, s, v, p))
        return None if c is None or key not in c else c[key]

    print("\nFigure 8, successful steals, and figure 9, idle time per worker (ms; the paper's figure 9 is "
          "the idle time its first colored steal costs, which is part of it):\n")
    print("| benchmark | setting | P | " + " | ".join(f"{n} steals" for n in names) + " | "
          + " | ".join(f"{n} idle" for n in names) + " |")
    print("|---|---|---|" + "---|" * (2 * len(names)))
    for (bench, s), ps in sorted(runs.items()):
        for p in sorted(ps):
            steals = [fmt(field(bench, s, v, p, "steals"), "d") for v in policies]
            idle = []
            for v in policies:
                i = field(bench, s, v, p, "idle_s")
                idle.append(fmt(None if i is None else 1e3 * i / p, ".2f"))
            print(f"| {bench} | {s} | {p} | " + " | ".join(steals) + " | " + " | ".join(idle) + " |")
    for title, variant in (("Table II, bad colors", BAD), ("Table III, invalid colors", INVALID)):
        print(f"\n{title}: T_Nabbit / T_NabbitC per worker count, mean and standard deviation over them:\n")
        print("| benchmark | setting | " + " | ".join(f"P={p}" for p in sorted({p for ps in runs.values() for p in ps}))
              + " | mean | S.D. |")
        all_ps = sorted({p for ps in runs.values() for p in ps})
        print("|---|---|" + "---|" * (len(all_ps) + 2))
        for (bench, s), ps in sorted(runs.items()):
            values = {p: ratio(t(bench, s, NABBIT, p), t(bench, s, variant, p)) for p in ps}
            got = [v for v in values.values() if v is not None]
            if not got:
                continue
            sd = statistics.stdev(got) if len(got) > 1 else None
            print(f"| {bench} | {s} | " + " | ".join(fmt(values.get(p), ".2f") for p in all_ps) +
                  f" | {statistics.mean(got):.2f} | {fmt(sd, '.2f')} |")


if __name__ == "__main__":
    if len(sys.argv) < 2 or any(a.startswith("-") for a in sys.argv[1:]):
        sys.exit(__doc__)
    main(sys.argv[1:])
