#!/usr/bin/env python3
"""One benchmark's cells side by side across several results files: the
same cells measured by different builds or settings (an ablation, a
before/after), each file given a label.

    compare_runs.py [--variant V] [--workers P] LABEL=RESULTS.jsonl [...]

Prints one Markdown table: per benchmark, T_P of each label and its change
against the first label, then W_P (work summed over workers) and, where
the policy counts them, pushes. Rows are labeled with the engine and the
machine of the first file (SIMULATED when engine is "sim"). The latest
cell of a file wins, as in report.py.
"""

import argparse
import json
import sys


def load(path, variant, workers):
    cells, label = {}, set()
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            if "record" in row or row.get("variant") != variant or row.get("workers") != workers:
                continue
            if "parallelism" in row:  # a LOCUS_SPAN=1 cell, not a timing
                continue
            cells[row["benchmark"]] = row
            label.add((row.get("engine", "threaded"), row.get("machine", "?"), row.get("size", "?")))
    return cells, label


def fmt(x):
    return "-" if x is None else f"{x:.4g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="LABEL=RESULTS.jsonl")
    ap.add_argument("--variant", default="locus:numa-ws")
    ap.add_argument("--workers", type=int, default=32)
    args = ap.parse_args()
    labels, files, kinds = [], [], set()
    for spec in args.runs:
        if "=" not in spec:
            sys.exit(f"compare_runs.py: \"{spec}\": expected LABEL=RESULTS.jsonl")
        label, path = spec.split("=", 1)
        cells, kind = load(path, args.variant, args.workers)
        labels.append(label)
        files.append(cells)
        kinds |= kind
    if not files[0]:
        sys.exit(f"compare_runs.py: no {args.variant} cells at P={args.workers} in the first file")
    if len(kinds) > 1:
        sys.exit(f"compare_runs.py: the files mix engines, machines or sizes: {sorted(kinds)}")
    engine, machine, size = kinds.pop()
    where = f"SIMULATED on {machine}" if engine == "sim" else f"measured on {machine}"
    print(f"{args.variant} at P={args.workers}, {where}, size {size}; T_P and W_P in seconds; "
          f"change against {labels[0]}.\n")
    head = ["benchmark"]
    for i, l in enumerate(labels):
        head += [f"T_P {l}"] + ([f"change {l}"] if i else [])
    head += [f"W_P {l}" for l in labels] + [f"pushes {l}" for l in labels]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for bench in files[0]:
        rows = [f.get(bench) for f in files]
        base = rows[0]["median_s"]
        line = [bench]
        for i, r in enumerate(rows):
            t = r["median_s"] if r else None
            line.append(fmt(t))
            if i:
                line.append(f"{100 * (t / base - 1):+.1f}%" if t else "-")
        line += [fmt(r.get("work_s")) if r else "-" for r in rows]
        line += [str(r["pushes"]) if r and "pushes" in r else "-" for r in rows]
        print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main()
