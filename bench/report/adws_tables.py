#!/usr/bin/env python3
"""ADWS figures 16 to 21 (seed 003, section 6) from locus-bench results
of the serial variant and the ADWS paper's five schedulers.

    adws_tables.py RESULTS.jsonl [RESULTS.jsonl ...] [--layout +interleave] [--local +first-touch]
                   [--no-hints '[no-hints]'] [--figures 16,17,18,21,hints] [--title TEXT]

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
T_layout.

--no-hints names the variant suffix of cells run without work hints
(`--param hints=0`; tools/reproduce.py's run suffix, e.g. [no-hints]);
the hints parameter is left out of a row's setting, so such a cell shares
the row of its hinted counterpart. The "hints" table (figures 19 and 20)
gives, per setting, T of ws and the improvement over ws, 1 - T/T_ws, of
ml-ws and of adws and ml-adws with and without hints (figure 19's
measure), and the change of adws and ml-adws when the hints are taken
away, 1 - T_no-hints / T_hints (figure 20's; negative: slower without).
A no-hints cell is compared with the ws cell of its own run (renamed with
the same suffix) where there is one, so that figure 19's ratios stay
within one invocation; the no-hints against hints ratio is between two
invocations (hints is a parameter), which the simulator repeats exactly.

Figure 16 comes with its isolating experiment (rule 7) for policies that
idle more than ws: each policy's speedup with ws's idle time in place of
its own, T' = (busy + scheduling + idle of ws) / P.

--figures chooses the tables (default 16,17,18, and 21 with --local);
--title prints a heading naming the results' engine and machine.
Several files are read as one set of cells (a later cell of the same
benchmark, setting and variant replaces an earlier one)."""

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
    # hints=0 cells carry a variant suffix instead (--no-hints): they share
    # the row of their hinted counterparts.
    return ",".join(f"{k}={v}" for k, v in sorted(cell["params"].items()) if k != "hints")


def hints_table(bench, settings, cells, layout, no_hints):
    """Figures 19 and 20: improvement over ws, with and without hints."""
    def t(s, v):
        c = cells.get((bench, s, v))
        return c["median_s"] if c else None

    def pct(x):
        return f"{100 * x:+.1f}%" if x is not None else "-"

    def gain(t_new, t_ref):
        return 1 - t_new / t_ref if t_new and t_ref else None

    print(f"\nFigures 19 and 20, work hints: T of ws (s); improvement over ws, 1 - T/T_ws; and the change "
          f"without hints, 1 - T_no-hints / T_hints:\n")
    cols = ["T ws", "ml-ws", "adws", "adws no hints", "ml-adws", "ml-adws no hints", "adws: no hints vs hints",
            "ml-adws: no hints vs hints"]
    print("| setting | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for s in settings:
        ws = t(s, "locus:ws" + layout)
        ws_nh = t(s, "locus:ws" + layout + no_hints) or ws
        row = [s, f"{ws:.4f}" if ws else "-", pct(gain(t(s, "locus:ml-ws" + layout), ws))]
        changes = []
        for p in ("adws", "ml-adws"):
            h, nh = t(s, "locus:" + p + layout), t(s, "locus:" + p + layout + no_hints)
            row += [pct(gain(h, ws)), pct(gain(nh, ws_nh))]
            changes.append(pct(gain(nh, h)))
        if all(x == "-" for x in row[3:]):
            continue
        print("| " + " | ".join(row + changes) + " |")


def main(paths, layout, local, no_hints, figures, title):
    cells = {}
    label = set()
    for c in verified_cells(paths):
        cells[(c["benchmark"], setting(c), c["variant"])] = c
        label.add(where(c))
    if title:
        print(f"## {title}, {'; '.join(sorted(label))}\n")
    print("Results: " + "; ".join(sorted(label)) + ".\n")
    print(SB_NOTE + "\n")
    by_bench = defaultdict(list)
    for (bench, s, _v) in cells:
        if s not in by_bench[bench]:
            by_bench[bench].append(s)
    for bench, settings in by_bench.items():
        print(f"### {bench}\n")
        if "hints" in figures:
            hints_table(bench, settings, cells, layout, no_hints)
        if "16" in figures:
            print("Figure 16, speedup T_S / T:\n")
            print("| setting | T_S (s) | " + " | ".join(f"{p} T_S/T" for p in POLICIES) + " |")
            print("|---|---|" + "---|" * len(POLICIES))
            for s in settings:
                serial = cells.get((bench, s, "serial"))
                row = [s, f"{serial['median_s']:.4f}" if serial else "-"]
                for p in POLICIES:
                    c = cells.get((bench, s, "locus:" + p + layout))
                    row.append(f"{serial['median_s'] / c['median_s']:.1f}" if c and serial else "-")
                print("| " + " | ".join(row) + " |")

        if "16" in figures:
            # Rule 7's isolating experiment for a policy that idles more than
            # ws: the time it would take with ws's idle time instead of its
            # own, T' = (busy + scheduling + idle of ws) / P (P T = busy +
            # scheduling + idle in every cell), i.e. its locality gain alone.
            print("\nFigure 16 with ws's idle time (T_S / T', T' = (busy + scheduling + ws's idle) / P): "
                  "the speedup each policy's work and scheduling alone would give:\n")
            print("| setting | " + " | ".join(f"{p} T_S/T'" for p in POLICIES[1:]) + " |")
            print("|---|" + "---|" * (len(POLICIES) - 1))
            for s in settings:
                serial = cells.get((bench, s, "serial"))
                ws = cells.get((bench, s, "locus:ws" + layout))
                row = [s]
                for p in POLICIES[1:]:
                    c = cells.get((bench, s, "locus:" + p + layout))
                    if not (c and ws and serial):
                        row.append("-")
                        continue
                    ws_idle = ws["workers"] * ws["median_s"] - ws["work_s"] - ws["sched_s"]
                    t = (c["work_s"] + c["sched_s"] + ws_idle) / c["workers"]
                    row.append(f"{serial['median_s'] / t:.1f}")
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
        if "17" in figures:
            table("Figure 17, busy / scheduling / idle seconds summed over the workers (idle = P T - busy - scheduling):",
                  ["locus:" + p + layout for p in POLICIES],
                  lambda c: f"{c['work_s']:.3f} / {c['sched_s']:.3f} / "
                  f"{c['workers'] * c['median_s'] - c['work_s'] - c['sched_s']:.3f}")
        if "18" in figures:
            table("Figure 18, L3 misses (lines from another socket's L3 or DRAM), millions:",
                  ["serial"] + ["locus:" + p + layout for p in POLICIES], lambda c: f"{l3_misses(c) / 1e6:.2f}")
        if local and "21" in figures and any((bench, s, "locus:" + p + local) in cells
                                             for s in settings for p in ("adws", "ml-adws")):
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
    parser.add_argument("results", nargs="+")
    parser.add_argument("--layout", default="", help="the policies' variant suffix, e.g. +interleave")
    parser.add_argument("--local", default="", help="figure 21's layout, e.g. +first-touch")
    parser.add_argument("--no-hints", default="[no-hints]",
                        help="the variant suffix of the cells run with hints=0 (default [no-hints])")
    parser.add_argument("--figures", default="16,17,18,21", help="the tables to print: 16, 17, 18, 21, hints")
    parser.add_argument("--title", help="a heading (the results' engine and machine are added)")
    args = parser.parse_args()
    main(args.results, args.layout, args.local, args.no_hints, set(args.figures.split(",")), args.title)
