#!/usr/bin/env python3
"""The simulator's idle waiting against the detailed model, cell by cell.

    tools/sim_idle_check.py [--bench build/bin/locus-bench] [--seeds N] [--out FILE.md] [CELL ...]

Runs each cell (a simulated locus-bench run: machine, benchmark, policy,
workers, parameters) under LOCUS_SIM_IDLE=attempts (every failed steal
attempt of an idle worker simulated) and LOCUS_SIM_IDLE=events (an idle
worker that sees nothing it may take waits for an event that may show
some), with seeds 1..N each, and prints per cell the means of the
simulated time, the steals and the policy's pushes (numa-ws, tbb-numa:
mailbox deposits) under both, their differences, the seed-to-seed spread of
the detailed model, and the host CPU time of both. Every run is verified
against the serial result by locus-bench itself; a wrong result stops the
check.

A CELL is machine:benchmark:policy:workers[:key=value,...], e.g.
numa-ws-4x8:heat:numa-ws:32:steps=5. Without cells, the fixed set below
(every policy, each on its paper's machine and benchmarks, quick sizes).
"""
import argparse
import json
import os
import statistics as st
import subprocess
import sys
import tempfile
import time

CELLS = [
    "numa-ws-4x8:heat:ws:32:steps=5",
    "numa-ws-4x8:heat:numa-ws:32:steps=5",
    "numa-ws-4x8:cilksort:numa-ws:32",
    "tbb-numa-westmere-4x8:cg:tbb-numa:32",
    "cats-opteron-4x4:cats-heat:cats:16:steps=10",
    "cats-opteron-4x4:sor:cats:16:steps=10",
    "adws-cascadelake-2x28:dtree:adws:56",
    "adws-cascadelake-2x28:dtree:ml-adws:56",
    "adws-cascadelake-2x28:kdtree:ml-ws:56",
    "adws-cascadelake-2x28:kdtree:sb:56",
    "nabbitc-8x10:heat-graph:nabbitc:80:steps=6",
]

# A policy's pushes (work it moves toward a place): numa-ws's mailbox
# pushes, tbb-numa's mailed tasks; a record has them as top-level fields.
PUSH_COUNTERS = ("pushes", "mailed")


def run(bench, cell, mode, seed):
    machine, benchmark, policy, workers, *rest = cell.split(":")
    params = []
    for kv in (rest[0].split(",") if rest and rest[0] else []):
        params += ["--param", kv]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.jsonl")
        env = dict(os.environ, LOCUS_SEED=str(seed), LOCUS_SIM_IDLE=mode)
        cmd = [bench, "--engine", "sim", "--machine", machine, "--benchmarks", benchmark, "--variants",
               "locus:" + policy, "--workers", workers, "--quiet", "--out", out] + params
        before = os.times()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        after = os.times()
        if p.returncode != 0:
            sys.exit(f"sim_idle_check: {cell} ({mode}, seed {seed}) failed:\n{p.stderr[-2000:]}")
        rec = json.loads(open(out).read().splitlines()[-1])
    if not rec.get("verified"):
        sys.exit(f"sim_idle_check: {cell} ({mode}, seed {seed}): the result differs from the serial one")
    pushes = sum(rec.get(name, 0) for name in PUSH_COUNTERS)
    host = (after.children_user + after.children_system) - (before.children_user + before.children_system)
    return {"time": rec["median_s"], "steals": rec["steals"], "attempts": rec["steal_attempts"],
            "pushes": pushes, "host": host}


def pct(new, old):
    return 100.0 * (new - old) / old if old else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/bin/locus-bench")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", help="append the table to this Markdown file")
    ap.add_argument("cells", nargs="*")
    a = ap.parse_args()
    cells = a.cells or CELLS
    lines = ["| cell (SIMULATED) | time, attempts | time, events | diff | spread of attempts | steals diff | "
             "pushes diff | host s, attempts | host s, events |", "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for cell in cells:
        res = {m: [run(a.bench, cell, m, s) for s in range(1, a.seeds + 1)] for m in ("attempts", "events")}
        mean = {m: {k: st.mean(r[k] for r in res[m]) for k in res[m][0]} for m in res}
        times = [r["time"] for r in res["attempts"]]
        spread = 100.0 * (st.stdev(times) / st.mean(times)) if len(times) > 1 else 0.0
        d, e = mean["attempts"], mean["events"]
        row = (f"| {cell} | {d['time'] * 1e3:.3f} ms | {e['time'] * 1e3:.3f} ms | {pct(e['time'], d['time']):+.1f}% | "
               f"{spread:.1f}% | {pct(e['steals'], d['steals']):+.1f}% | "
               f"{pct(e['pushes'], d['pushes']):+.1f}% | {d['host']:.2f} | {e['host']:.2f} |")
        lines.append(row)
        print(row, flush=True)
    lines.append("")
    lines.append(f"Means over seeds 1 to {a.seeds}; spread: the detailed model's standard deviation over the "
                 f"seeds, in % of its mean; host s: CPU seconds of one locus-bench process (setup and the "
                 f"serial reference included). {time.strftime('%Y-%m-%d')}.")
    if a.out:
        with open(a.out, "a") as f:
            f.write("\n".join(lines) + "\n\n")


if __name__ == "__main__":
    main()
