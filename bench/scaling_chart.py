#!/usr/bin/env python3
"""The scaling table, fitted lines and chart of bench/scaling.sh's measurements:

  bench/scaling_chart.py scaling.jsonl scaling.md scaling.svg

For each measurement, seconds = c * ops^k fitted by least squares on log-log (k: how
the time grows with the graph; 1 is linear) and the peak memory the measurement
added (peak resident memory minus the resident memory before it)."""
import json
import math
import os
import sys
import tempfile

MEASURES = ["simulate", "local-search", "zero-shot", "ppo-step"]
LABELS = {"simulate": "a simulation", "local-search": "a local-search move", "zero-shot": "zero-shot",
          "ppo-step": "a PPO step (GO-one)"}
COLORS = {"simulate": "#1f77b4", "local-search": "#ff7f0e", "zero-shot": "#2ca02c", "ppo-step": "#d62728"}


def fit(points):
    """(c, k) of y = c * x^k over (x, y) points, least squares in log-log."""
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    return math.exp(my - k * mx), k


def atomic_write(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)) or ".")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = []
    with open(sys.argv[1]) as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{sys.argv[1]}:{number}: not a JSON line: {e}")
    sizes = sorted({(r["ops"], r["edges"], r["model"]) for r in rows})
    by = {(r["ops"], r["measure"]): r for r in rows}
    md = ["| model | ops | edges | " + " | ".join(f"{LABELS[m]}, s (MB)" for m in MEASURES) + " |",
          "|---|---:|---:|" + "---:|" * len(MEASURES)]
    for ops, edges, model in sizes:
        cells = []
        for m in MEASURES:
            r = by.get((ops, m))
            cells.append("-" if r is None else
                         f"{r['seconds']:.4g} ({max(0.0, r['peak_rss_mb'] - r['rss_before_mb']):.0f})")
        md.append(f"| {model} | {ops} | {edges} | " + " | ".join(cells) + " |")
    md += ["", "Fitted: seconds = c x ops^k over every size (the memory: the peak the measurement added).", "",
           "| measurement | k | c | at 200k ops, s (fitted) | at 200k ops, MB (largest size) |", "|---|---:|---:|---:|---:|"]
    fits = {}
    for m in MEASURES:
        points = [(r["ops"], r["seconds"]) for r in rows if r["measure"] == m and r["seconds"] > 0]
        if len(points) < 2:
            continue
        c, k = fit(points)
        fits[m] = (c, k, points)
        largest = max((r for r in rows if r["measure"] == m), key=lambda r: r["ops"])
        md.append(f"| {LABELS[m]} | {k:.2f} | {c:.3g} | {c * 200000 ** k:.3g} | "
                  f"{largest['peak_rss_mb'] - largest['rss_before_mb']:.0f} |")
    atomic_write(sys.argv[2], "\n".join(md) + "\n")

    # The chart: log-log, seconds against ops, points and fitted lines.
    w, h, left, right, top, bottom = 640, 420, 70, 170, 20, 50
    all_x = [x for _, _, pts in fits.values() for x, _ in pts]
    all_y = [y for _, _, pts in fits.values() for _, y in pts]
    lx0, lx1 = math.floor(math.log10(min(all_x))), math.ceil(math.log10(max(all_x)))
    ly0, ly1 = math.floor(math.log10(min(all_y))), math.ceil(math.log10(max(all_y)))
    px = lambda x: left + (math.log10(x) - lx0) / (lx1 - lx0) * (w - left - right)
    py = lambda y: h - bottom - (math.log10(y) - ly0) / (ly1 - ly0) * (h - top - bottom)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>']
    for e in range(lx0, lx1 + 1):
        x = px(10 ** e)
        svg.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{h - bottom}" stroke="#ddd"/>')
        svg.append(f'<text x="{x:.1f}" y="{h - bottom + 15}" text-anchor="middle">{10 ** e:g}</text>')
    for e in range(ly0, ly1 + 1):
        y = py(10 ** e)
        svg.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - right}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g}</text>')
    svg.append(f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">ops of the training graph</text>')
    svg.append(f'<text x="15" y="{(top + h - bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 15 {(top + h - bottom) / 2})">seconds</text>')
    for i, (m, (c, k, pts)) in enumerate(fits.items()):
        color = COLORS[m]
        x0, x1 = min(x for x, _ in pts), max(x for x, _ in pts)
        svg.append(f'<line x1="{px(x0):.1f}" y1="{py(c * x0 ** k):.1f}" x2="{px(x1):.1f}" y2="{py(c * x1 ** k):.1f}" '
                   f'stroke="{color}" stroke-dasharray="4 3"/>')
        for x, y in pts:
            svg.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
        ly = top + 15 + 18 * i
        svg.append(f'<circle cx="{w - right + 15}" cy="{ly - 4}" r="3" fill="{color}"/>')
        svg.append(f'<text x="{w - right + 23}" y="{ly}">{LABELS[m]}, k = {k:.2f}</text>')
    svg.append("</svg>")
    atomic_write(sys.argv[3], "\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
