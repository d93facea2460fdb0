#!/usr/bin/env python3
"""Traces read back with a real JSON parser (docs/observability.md).

    test_trace.py BIN_DIR WORK_DIR

Runs trace_program with LOCUS_TRACE on the threaded engine and twice on the
simulator (two processes, one seed), loads each file with Python's json
module, checks the Chrome trace-event structure and the event kinds, checks
that the two simulated files are byte-identical, and runs locus-trace on
them, and has locus-bench trace a simulated cell and report.py draw it. On
the threaded engine only what the program guarantees is checked
(which worker steals what depends on timing); the simulator's run is the
same every time, so there every kind must appear.
"""
import json
import os
import subprocess
import sys

bin_dir, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(path, extra):
    env = dict(os.environ, LOCUS_TRACE=path, **extra)
    env.pop("LOCUS_TRACE_MAX", None)
    r = subprocess.run([os.path.join(bin_dir, "trace_program")], env=env, capture_output=True, text=True)
    check(r.returncode == 0, f"trace_program {extra}: exit {r.returncode}: {r.stderr}")
    with open(path, "rb") as f:
        raw = f.read()
    return raw, json.loads(raw)


def validate(t, label):
    """The structure chrome://tracing and Perfetto read; returns the events by kind."""
    other = t["otherData"]
    events = t["traceEvents"]
    workers, places = other["workers"], other["places"]
    check(len(other["worker_place"]) == workers, f"{label}: worker_place has one entry per worker")
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M"
             and e["name"] in ("process_name", "thread_name")}
    check(sum(1 for (p, tid) in names if tid is None) == places, f"{label}: one process per place")
    for w in range(workers):
        check(names.get((other["worker_place"][w], w)) == f"worker {w}",
              f"{label}: thread {w} named in its place's process")
    kinds = {}
    flows = {}
    for e in events:
        ph = e["ph"]
        check(ph in ("M", "X", "i", "s", "f", "C"), f"{label}: known phase {ph}")
        if ph == "M":
            continue
        check(isinstance(e["ts"], (int, float)) and e["ts"] >= 0, f"{label}: ts is a number >= 0")
        check(isinstance(e["pid"], int) and isinstance(e["tid"], int), f"{label}: pid and tid are integers")
        check(0 <= e["tid"] < workers and e["pid"] == other["worker_place"][e["tid"]],
              f"{label}: a worker's events are in its place's process")
        if ph == "X":
            check(e["dur"] >= 0, f"{label}: dur >= 0")
            kinds.setdefault(e["args"]["kind"], []).append(e)
            if e["args"]["kind"] == "loop":
                check(e["args"]["lo"] < e["args"]["hi"], f"{label}: a loop slice has its range")
        elif ph in "sf":
            flows.setdefault(e["id"], []).append(ph)
            check("distance" in e["args"], f"{label}: an arrow carries its distance")
        elif ph == "C":
            check(all(isinstance(v, int) for v in e["args"].values()), f"{label}: counter values are integers")
            kinds.setdefault("counter:" + e["cat"], []).append(e)
        elif ph == "i":
            kinds.setdefault("instant:" + e["name"], []).append(e)
    check(all(sorted(v) == ["f", "s"] for v in flows.values()), f"{label}: every arrow has one start and one end")
    return kinds


# Threaded, two workers: what the program guarantees whoever runs what.
_, t = run(os.path.join(work, "threaded.json"), {"LOCUS_WORKERS": "2", "LOCUS_ENGINE": "threaded"})
check(t["otherData"]["clock"] == "steady", "threaded: steady clock")
k = validate(t, "threaded")
labels = {e["name"] for e in k.get("spawned", [])}
check({"scale", "blocks", "fib-root", "fib"} <= labels, f"threaded: labeled slices, got {sorted(labels)}")
check(len(k.get("fork", [])) > 0, "threaded: fork_join branches")
check(len(k.get("loop", [])) > 0, "threaded: loop leaves")
check(len(k.get("root", [])) == 3, "threaded: three root tasks (three spawns from main)")
check(sum(1 for e in k.get("spawned", []) if e["name"] == "fib") == 54,
      "threaded: fib(20) spawns a labeled child at every call with n > 12 (54 of them)")

# Simulated, twice in two processes: the same bytes, and every kind.
sim = {"LOCUS_ENGINE": "sim", "LOCUS_MACHINE": "numa-ws-4x8", "LOCUS_WORKERS": "8", "LOCUS_SEED": "3"}
raw_a, a = run(os.path.join(work, "sim_a.json"), sim)
raw_b, _ = run(os.path.join(work, "sim_b.json"), sim)
check(raw_a == raw_b, "simulator: two runs with one seed write byte-identical traces")
check(a["otherData"]["clock"] == "virtual", "simulator: virtual clock")
k = validate(a, "sim")
# No "instant:wake" required: the root that starts a computation wakes every
# sleeper from outside the pool (scheduler.cpp, sleep protocol), which no
# worker records, so this small program need not have a worker's wake-up;
# those it has are checked as every instant is (validate).
for kind in ("spawned", "fork", "loop", "root", "stolen", "posted", "sleep", "counter:failed steals",
             "counter:accesses", "instant:post"):
    check(len(k.get(kind, [])) > 0, f"simulator: events of kind {kind}")
for e in k.get("stolen", []):
    check("from" in e["args"] and "distance" in e["args"], "simulator: a steal names its victim and distance")
levels = {"local cache", "remote cache", "local DRAM", "remote DRAM"}
check(all(set(e["args"]) == levels for e in k.get("counter:accesses", [])), "simulator: accesses by level")

# locus-trace summarizes both, and refuses what is not a trace.
tool = os.path.join(bin_dir, "locus-trace")
for name in ("threaded.json", "sim_a.json"):
    r = subprocess.run([sys.executable, tool, os.path.join(work, name), "--json"], capture_output=True, text=True)
    check(r.returncode == 0, f"locus-trace {name}: exit {r.returncode} {r.stderr}")
    if r.returncode == 0:
        s = json.loads(r.stdout)
        check(len(s["workers"]) == (2 if name == "threaded.json" else 8), f"locus-trace {name}: one row per worker")
        for w in s["workers"]:
            check(abs(w["work"] + w["search"] + w["sleep"] - 1) < 1e-6, f"locus-trace {name}: shares add up to 1")
        check(len(s["longest"]) == 10, f"locus-trace {name}: the ten longest runs")
        if name == "sim_a.json":
            check(sum(s["steals_by_distance"].values()) == len(k["stolen"]), "locus-trace: every steal by distance")
            check(s["away_from_hint"] > 0, "locus-trace: runs away from their hint (fib-root is hinted at place 3)")
bad = os.path.join(work, "not_a_trace.json")
with open(bad, "w") as f:
    f.write("{\"traceEvents\": []}")
r = subprocess.run([sys.executable, tool, bad], capture_output=True, text=True)
check(r.returncode == 2 and "not a locus trace" in r.stderr, "locus-trace: a file that is not a locus trace: exit 2")

# The report's pictures of a traced cell (locus-bench --trace, report.py).
bench = os.path.join(bin_dir, "locus-bench")
report = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "report", "report.py")
if os.path.exists(bench):
    out = os.path.join(work, "r.jsonl")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([bench, "--engine", "sim", "--machine", "numa-ws-4x8", "--benchmarks", "heat", "--variants",
                        "serial,locus:numa-ws", "--workers", "8", "--size", "tiny", "--quiet", "--trace",
                        os.path.join(work, "traces"), "--out", out], capture_output=True, text=True)
    check(r.returncode == 0, f"locus-bench --trace: exit {r.returncode} {r.stderr}")
    rows = [json.loads(line) for line in open(out) if '"benchmark"' in line]
    traced = [row for row in rows if row.get("trace")]
    check(len(traced) == 2 and all(os.path.exists(row["trace"]) for row in traced),
          "locus-bench --trace: each cell's trace written and named in its result line")
    r = subprocess.run([sys.executable, report, out, "--out", os.path.join(work, "report")], capture_output=True,
                       text=True)
    check(r.returncode == 0, f"report.py: exit {r.returncode} {r.stderr}")
    page = open(os.path.join(work, "report", "report.html")).read() if r.returncode == 0 else ""
    check("Schedule of heat locus:numa-ws P=8 (sim, tiny)" in page, "report: a schedule section for the traced cell")
    for kind in ("timeline", "steals", "accesses"):
        name = os.path.join(work, "report", f"sim-tiny-heat-locus_numa-ws-P8-{kind}.svg")
        svg = open(name).read() if os.path.exists(name) else ""
        check(svg.startswith("<svg") and svg in page, f"report: the {kind} picture, inline in the page")
        check("href" not in svg and "<script" not in svg, f"report: the {kind} picture refers to nothing outside")
else:
    print("locus-bench not built (LOCUS_BUILD_BENCHMARKS=OFF): the report's pictures are not checked")

print(f"{len(failures)} failure(s)" if failures else "all trace checks passed")
sys.exit(1 if failures else 0)
