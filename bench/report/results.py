"""Reading locus-bench results (JSON lines) for the report scripts."""

import json
import sys


def verified_cells(paths):
    """Every result cell of the files, in order; a run's header records are
    skipped, and a cell whose result was not verified stops the script (a
    table is never built on a wrong result)."""
    for path in paths:
        for line in open(path):
            c = json.loads(line)
            if "record" in c:
                continue
            if not c.get("verified"):
                sys.exit(f"{path}: {c['benchmark']} {c['variant']} P={c['workers']} was not verified")
            yield c


def where(cell):
    """The label every figure carries: SIMULATED on a machine model, or
    measured on a host."""
    return ("SIMULATED on " if cell.get("engine") == "sim" else "measured on ") + (cell.get("machine") or "host")
