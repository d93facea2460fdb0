#!/usr/bin/env python3
"""Where a simulated run's host time goes: engine, runtime, policy, memory model.

    tools/sim_profile.py [--out FILE.md] [--label TEXT] -- COMMAND [ARGS...]

Runs COMMAND under `perf record` (samples of the process's CPU time), then
attributes every sampled function to the part of locus its source file
belongs to, read from the binary's debug information (addr2line; the Release
build keeps -g):

  memory model  src/sim/ (caches, directory, page homes and map, the access
                path and its contention model)
  engine        src/engine/, src/fiber/ and Boost.Context's switch
  policy        src/policy/
  runtime       src/core/, src/util/, src/trace/, src/memory/, src/topology/
                and include/locus/ (templates the program instantiates)
  program       the benchmark's own code (bench/, tools/, support/)
  kernel, libc  the operating system and the C library (page faults, memset)

A function inlined into another counts with the one it was inlined into.
Prints a table of shares and the top functions; --out appends it to FILE.
Needs perf (Debian: linux-perf) and binutils.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

PARTS = ["memory model", "engine", "policy", "runtime", "program", "kernel", "libc", "other"]


def part_of_path(path):
    if path is None:
        return "other"
    p = path.replace("\\", "/")
    if "/src/sim/" in p:
        return "memory model"
    if "/src/engine/" in p or "/src/fiber/" in p or "boost/context" in p:
        return "engine"
    if "/src/policy/" in p:
        return "policy"
    for d in ("/src/core/", "/src/util/", "/src/trace/", "/src/memory/", "/src/topology/", "/include/locus/"):
        if d in p:
            return "runtime"
    for d in ("/bench/", "/tools/", "/support/", "/tests/"):
        if d in p:
            return "program"
    return "other"


def source_files(binary, addresses):
    """Address -> the source file of the function it lies in (the outermost
    of its inlined frames), from the binary's line information."""
    if not addresses:
        return {}
    out = subprocess.run(["addr2line", "-i", "-a", "-e", binary] + addresses, capture_output=True,
                         text=True).stdout
    files, current = {}, None
    for line in out.splitlines():
        if line.startswith("0x"):
            current = int(line, 16)
        elif current is not None:
            files[current] = line.rsplit(":", 1)[0]  # the last frame printed is the outermost
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="append the table to this Markdown file")
    ap.add_argument("--label", default="", help="a title for the table")
    ap.add_argument("--top", type=int, default=8, help="functions listed (default 8)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("give the command to profile after --")
    binary = cmd[0] if os.path.sep in cmd[0] else subprocess.run(["which", cmd[0]], capture_output=True,
                                                                   text=True).stdout.strip()
    if not binary or not os.path.exists(binary):
        ap.error(f"cannot find the program {cmd[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        rec = subprocess.run(["perf", "record", "-F", "499", "-o", data, "--"] + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if rec.returncode != 0:
            sys.exit(f"sim_profile: the command failed (status {rec.returncode}):\n{rec.stderr[-2000:]}")
        script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events", "-F", "ip,sym,dso"],
                                capture_output=True, text=True).stdout
    exe = os.path.basename(binary)
    # Where the program's code was mapped: a sample's address in the file is
    # its address minus the mapping's start plus the mapping's file offset
    # (a position-independent executable's code lies at its file offset).
    start = offset = 0
    for m in re.finditer(r"PERF_RECORD_MMAP2? .*?\[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ 0x([0-9a-f]+|0) .*?\]: r-xp (\S+)",
                         script):
        if os.path.basename(m.group(3)) == exe:
            start, offset = int(m.group(1), 16), int(m.group(2), 16)
            break
    samples = defaultdict(int)  # (dso, symbol) -> samples
    an_address = {}
    for line in script.splitlines():
        m = re.match(r"^\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
        if not m:
            continue
        ip, sym, dso = m.group(1), m.group(2), os.path.basename(m.group(3))
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        samples[(dso, sym)] += 1
        an_address.setdefault((dso, sym), hex(int(ip, 16) - start + offset))
    ours = [an_address[k] for k in samples if k[0] == exe]
    files = source_files(binary, ours)
    shares = defaultdict(float)
    funcs = []
    for (dso, sym), n in samples.items():
        if dso.startswith("[kernel") or dso == "[unknown]" and sym == "[unknown]":
            part = "kernel"
        elif dso.startswith("libc") or dso.startswith("ld-linux"):
            part = "libc"
        elif dso == exe:
            part = "engine" if "fcontext" in sym else part_of_path(files.get(int(an_address[(dso, sym)], 16)))
        else:
            part = "other"
        shares[part] += n
        funcs.append((n, part, sym))
    total = sum(shares.values()) or 1.0
    lines = []
    if a.label:
        lines.append(f"**{a.label}**\n")
    lines.append("| part | share of CPU samples |")
    lines.append("|---|---|")
    for part in PARTS:
        if shares.get(part, 0) > 0:
            lines.append(f"| {part} | {100 * shares[part] / total:.1f}% |")
    lines.append("")
    lines.append("| function | part | share |")
    lines.append("|---|---|---|")
    for pct, part, sym in sorted(funcs, reverse=True)[: a.top]:
        short = sym if len(sym) <= 70 else sym[:67] + "..."
        lines.append(f"| `{short}` | {part} | {100 * pct / total:.1f}% |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
