#!/usr/bin/env python3
"""Regenerates one paper's reproduction tables from scratch (make
reproduce-<paper>; ../shared/REPRODUCTION.md, rule 6).

    reproduce.py PAPER [--bench PATH] [--out DIR] [--only PREFIX] [--list] [--dry-run]

PAPER names a spec, bench/reproduce/<paper>.py, which lists the paper's
experiments as locus-bench runs (RUNS: name, arguments, and optionally
environment settings and a suffix for the variant names of that run, so
that one policy under an option of ours gets its own column) and the
scripts that make the tables from them (TABLES). Every run writes
DIR/<name>.jsonl (DIR: results/reproduce-<paper>); every cell is verified
against the serial result by locus-bench, and the table scripts refuse a
cell that was not. The tables go to DIR/tables.md under a header naming
the commit, the date, the host's CPU, the commands and the time it all
took (the figure docs/reproduction.md states per paper).

--only re-runs the runs whose name starts with PREFIX and makes the tables
from their new results and the other runs' earlier ones (the header says
so; other runs with no results yet are left out of the tables and named
in the header, so that a long paper can be run in parts); --list prints the papers that have a spec; --dry-run prints the
commands."""

import argparse
import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "bench" / "reproduce"
REPORT = ROOT / "bench" / "report"


def papers():
    return sorted(p.stem for p in SPECS.glob("*.py") if not p.stem.startswith("_"))


def load_spec(paper):
    path = SPECS / f"{paper}.py"
    if not path.exists():
        sys.exit(f"reproduce: no spec for '{paper}' (bench/reproduce/{paper}.py); papers with one: "
                 + (", ".join(papers()) or "none"))
    spec = importlib.util.spec_from_file_location(f"reproduce_{paper.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for field in ("TITLE", "RUNS", "TABLES"):
        if not hasattr(module, field):
            sys.exit(f"reproduce: bench/reproduce/{paper}.py defines no {field}")
    return module


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def commits(paths):
    """The commits locus-bench recorded (its run records) in the results."""
    seen = []
    for path in paths:
        for line in open(path):
            cell = json.loads(line)
            if cell.get("record") == "run" and cell.get("commit", "")[:7] not in seen:
                seen.append(cell.get("commit", "unknown")[:7])
    return ", ".join(seen) or "unknown"


def rename_variants(path, suffix):
    """Appends suffix to every locus variant of a results file: the run's
    cells under an option of ours become their own column."""
    lines = []
    for line in open(path):
        cell = json.loads(line)
        if "record" not in cell and cell.get("variant", "").startswith("locus:"):
            cell["variant"] += suffix
        lines.append(json.dumps(cell))
    Path(path).write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paper", nargs="?")
    ap.add_argument("--bench", default=str(ROOT / "build" / "bin" / "locus-bench"))
    ap.add_argument("--out")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    if args.list or not args.paper:
        print("papers with a reproduction spec: " + (", ".join(papers()) or "none"))
        return 0 if args.list else 2
    spec = load_spec(args.paper)
    out = Path(args.out or ROOT / "results" / f"reproduce-{args.paper}")
    commands = []
    for run in spec.RUNS:
        env = run.get("env", {})
        cmd = [args.bench] + run["args"] + ["--out", str(out / f"{run['name']}.jsonl")]
        commands.append((run, env, cmd))
    if args.dry_run:
        for run, env, cmd in commands:
            if args.only and not run["name"].startswith(args.only):
                continue
            print(" ".join([f"{k}={v}" for k, v in env.items()] + [shlex.quote(c) for c in cmd]))
        return 0
    if not Path(args.bench).exists():
        sys.exit(f"reproduce: {args.bench} is not built (make build-run builds it)")
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    missing = []  # with --only, the other runs that have no results yet
    for i, (run, env, cmd) in enumerate(commands, 1):
        path = out / f"{run['name']}.jsonl"
        if args.only and not run["name"].startswith(args.only):
            if not path.exists():
                missing.append(run["name"])
            continue
        path.unlink(missing_ok=True)
        print(f"[{i}/{len(commands)}] {run['name']}: " + " ".join(shlex.quote(c) for c in cmd[1:]), flush=True)
        t0 = time.monotonic()
        subprocess.run(cmd, env={**os.environ, **env}, check=True)
        if run.get("suffix"):
            rename_variants(path, run["suffix"])
        print(f"    {time.monotonic() - t0:.0f} s", flush=True)
    tables = []
    for script, names, extra in spec.TABLES:
        files = [str(out / f"{n}.jsonl") for n in names if n not in missing]
        if not files:
            continue
        result = subprocess.run([sys.executable, str(REPORT / script)] + files + extra, capture_output=True,
                                text=True, check=True)
        tables.append(result.stdout)
    elapsed = time.monotonic() - started
    files_used = [out / f"{run['name']}.jsonl" for run, _, _ in commands if run["name"] not in missing]
    header = [
        f"# {spec.TITLE}",
        "",
        f"Regenerated by `make reproduce-{args.paper}` on {time.strftime('%Y-%m-%d', time.gmtime())}, "
        f"locus-bench of commit {commits(files_used)}, on {cpu_name()} ({os.cpu_count()} CPUs): {elapsed / 60:.1f} minutes"
        + (f" (only the runs named {args.only}*; the others' results are earlier ones)." if args.only else "."),
        "",
    ]
    if missing:
        header += [f"Not run yet (no results; their rows are absent from the tables): {', '.join(missing)}.", ""]
    header += [
        "Runs:",
        "",
    ]
    for run, env, cmd in commands:
        header.append("    " + " ".join([f"{k}={v}" for k, v in env.items()] + ["locus-bench"]
                                         + [shlex.quote(c) for c in run["args"]]))
    (out / "tables.md").write_text("\n".join(header) + "\n\n" + "\n".join(tables))
    print(f"{out / 'tables.md'} ({elapsed / 60:.1f} minutes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
