"""Pictures of one traced run (locus-bench --trace, docs/observability.md)
for the report: a timeline, a place-by-place steal matrix and, under the
simulator, memory accesses by level for each place. Static SVG written by
hand: self-contained, no script, no network.
"""

import html
import json
from collections import defaultdict

# Places' colors (a colorblind-safe qualitative palette, repeated past 8).
PLACE_COLORS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000"]
NO_HINT = "#9e9e9e"
SLEEP = "#e8e8e8"
LEVELS = ["local cache", "remote cache", "local DRAM", "remote DRAM"]
LEVEL_COLORS = ["#228833", "#ccbb44", "#4477aa", "#ee6677"]


def place_color(p):
    return NO_HINT if p is None or p < 0 else PLACE_COLORS[p % len(PLACE_COLORS)]


def load(path):
    with open(path) as f:
        return json.load(f)


def top_level_runs(trace):
    """Per worker, the slices not nested in another slice of that worker."""
    by_worker = defaultdict(list)
    for e in trace["traceEvents"]:
        if e.get("ph") == "X":
            by_worker[e["tid"]].append(e)
    out = {}
    for w, slices in by_worker.items():
        slices.sort(key=lambda e: (e["ts"], -e["dur"]))
        top, end = [], None
        for e in slices:
            if end is None or e["ts"] >= end:
                top.append(e)
                end = e["ts"] + e["dur"]
        out[w] = top
    return out


def timeline_svg(trace, width=900, row=18, max_arrows=400):
    other = trace["otherData"]
    workers, places = other["workers"], other["places"]
    worker_place = other["worker_place"]
    runs = top_level_runs(trace)
    # From the first task run to the end of the last: the pool's idle time
    # before and after the run is left out.
    tasks = [e for es in runs.values() for e in es if e["args"].get("kind") != "sleep"]
    t0 = min((e["ts"] for e in tasks), default=0.0)
    t1 = max((e["ts"] + e["dur"] for e in tasks), default=1.0)
    span = max(t1 - t0, 1e-9)
    left, top = 70, 24
    plot_w = width - left - 10
    height = top + workers * row + 60

    def x(t):
        return left + (t - t0) / span * plot_w

    unit = "virtual us" if other.get("clock") == "virtual" else "us"
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"font-family='sans-serif' font-size='11'>",
             f"<text x='{left}' y='14'>timeline: workers as rows, task runs colored by the place of their hint "
             f"(gray: no hint; light: asleep; white: searching); lines: steals, victim to thief</text>"]
    for w in range(workers):
        y = top + w * row
        parts.append(f"<text x='4' y='{y + row - 5}'>w{w} (p{worker_place[w]})</text>")
        parts.append(f"<rect x='{left}' y='{y}' width='{plot_w}' height='{row - 3}' fill='none' stroke='#ddd'/>")
        # Runs narrower than a pixel are merged into the pixel's dominant color.
        pixels = defaultdict(lambda: defaultdict(float))
        for e in runs.get(w, []):
            kind = e["args"].get("kind")
            color = SLEEP if kind == "sleep" else place_color(e["args"].get("hint"))
            a, b = x(max(e["ts"], t0)), x(min(e["ts"] + e["dur"], t1))
            if b <= a:
                continue
            if b - a >= 1:
                parts.append(f"<rect x='{a:.1f}' y='{y}' width='{b - a:.1f}' height='{row - 3}' fill='{color}'/>")
            else:
                pixels[int(a)][color] += e["dur"]
        for px, colors in sorted(pixels.items()):
            color = max(colors.items(), key=lambda kv: kv[1])[0]
            parts.append(f"<rect x='{px}' y='{y}' width='1' height='{row - 3}' fill='{color}'/>")
    steals = [e for es in runs.values() for e in es if e["args"].get("kind") == "stolen" and "from" in e["args"]]
    steals.sort(key=lambda e: e["ts"])
    step = max(1, len(steals) // max_arrows)
    for e in steals[::step]:
        v, t = e["args"]["from"], e["tid"]
        xs = x(e["ts"])
        parts.append(f"<line x1='{xs:.1f}' y1='{top + v * row + row / 2 - 1}' x2='{xs:.1f}' "
                     f"y2='{top + t * row + row / 2 - 1}' stroke='#000' stroke-width='0.6' opacity='0.6'/>")
    y = top + workers * row + 14
    parts.append(f"<text x='{left}' y='{y}'>first task</text>")
    parts.append(f"<text x='{left + plot_w}' y='{y}' text-anchor='end'>+{span:.1f} {unit}</text>")
    if len(steals) > max_arrows:
        parts.append(f"<text x='{left + plot_w / 2}' y='{y}' text-anchor='middle'>one steal line in {step} "
                     f"of {len(steals)}</text>")
    lx = left
    for p in range(places):
        parts.append(f"<rect x='{lx}' y='{y + 12}' width='12' height='10' fill='{place_color(p)}'/>"
                     f"<text x='{lx + 16}' y='{y + 21}'>place {p}</text>")
        lx += 70
    parts.append(f"<rect x='{lx}' y='{y + 12}' width='12' height='10' fill='{NO_HINT}'/>"
                 f"<text x='{lx + 16}' y='{y + 21}'>no hint</text>")
    if other.get("stopped"):
        parts.append(f"<text x='{left}' y='{y + 40}' fill='#c00'>the trace stopped at LOCUS_TRACE_MAX: only "
                     f"the start of the run</text>")
    parts.append("</svg>")
    return "\n".join(parts)


def matrix_svg(title, row_label, col_label, counts, cell=34, text=str):
    """A heat map of counts[i][j] (rows i, columns j), each cell shaded by
    its value against the largest and labeled with text(value)."""
    rows, cols = len(counts), len(counts[0]) if counts else 0
    left, top = 110, 44
    width, height = max(380, left + cols * cell + 20, 6 * len(title) + 8), top + rows * cell + 30
    peak = max([v for r in counts for v in r] + [1])
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"viewBox='0 0 {width} {height}' font-family='sans-serif' font-size='11'>",
             f"<text x='4' y='14'>{html.escape(title)}</text>",
             f"<text x='{left}' y='32'>{html.escape(col_label)} →</text>"]
    for j in range(cols):
        parts.append(f"<text x='{left + j * cell + cell / 2}' y='{top - 4}' text-anchor='middle'>{j}</text>")
    for i in range(rows):
        parts.append(f"<text x='{left - 6}' y='{top + i * cell + cell / 2 + 4}' text-anchor='end'>"
                     f"{html.escape(row_label)} {i}</text>")
        for j in range(cols):
            v = counts[i][j]
            shade = int(255 - 200 * v / peak)
            parts.append(f"<rect x='{left + j * cell}' y='{top + i * cell}' width='{cell - 1}' height='{cell - 1}' "
                         f"fill='rgb({shade},{shade},255)'/>")
            parts.append(f"<text x='{left + j * cell + cell / 2}' y='{top + i * cell + cell / 2 + 4}' "
                         f"text-anchor='middle'>{html.escape(text(v))}</text>")
    parts.append("</svg>")
    return "\n".join(parts)


def steal_matrix_svg(trace):
    other = trace["otherData"]
    n, wp = other["places"], other["worker_place"]
    counts = [[0] * n for _ in range(n)]
    for e in trace["traceEvents"]:
        if e.get("ph") == "X" and e["args"].get("kind") == "stolen" and "from" in e["args"]:
            counts[wp[e["args"]["from"]]][wp[e["tid"]]] += 1
    return matrix_svg("steals: victim's place (rows) to thief's place (columns)", "victim place", "thief place",
                      counts)


def access_svg(trace, width=520, bar=22):
    """Under the simulator: each place's workers' memory accesses by level."""
    other = trace["otherData"]
    n, wp = other["places"], other["worker_place"]
    totals = [[0] * 4 for _ in range(n)]
    any_counter = False
    for e in trace["traceEvents"]:
        if e.get("ph") == "C" and e.get("cat") == "accesses":
            any_counter = True
            for i, level in enumerate(LEVELS):
                totals[wp[e["tid"]]][i] += e["args"][level]
    if not any_counter:
        return None
    left, top = 80, 24
    height = top + n * (bar + 6) + 30
    plot_w = width - left - 10
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
             f"font-family='sans-serif' font-size='11'>",
             "<text x='4' y='14'>memory accesses of each place's workers, by where they were served (share)</text>"]
    for p in range(n):
        y = top + p * (bar + 6)
        parts.append(f"<text x='4' y='{y + bar - 7}'>place {p}</text>")
        total = sum(totals[p]) or 1
        x = left
        for i in range(4):
            w = plot_w * totals[p][i] / total
            parts.append(f"<rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{bar}' fill='{LEVEL_COLORS[i]}'>"
                         f"<title>{LEVELS[i]}: {totals[p][i]}</title></rect>")
            x += w
    y = top + n * (bar + 6) + 12
    x = left
    for i in range(4):
        parts.append(f"<rect x='{x}' y='{y}' width='12' height='10' fill='{LEVEL_COLORS[i]}'/>"
                     f"<text x='{x + 16}' y='{y + 9}'>{LEVELS[i]}</text>")
        x += 100
    parts.append("</svg>")
    return "\n".join(parts)


def pictures(path):
    """[(kind, svg)] for the trace at path."""
    trace = load(path)
    out = [("timeline", timeline_svg(trace)), ("steals", steal_matrix_svg(trace))]
    acc = access_svg(trace)
    if acc is not None:
        out.append(("accesses", acc))
    return out
