#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Plots published vs simulated figures from futexsim-validate's points.csv.

usage: plot_validation.py DIR   (reads DIR/points.csv, writes DIR/validation.png)

One panel per table: bucket sweeps as curves over log2(buckets) (published solid,
simulated dashed, one colour per series; the global hash, x = 0, as separate
markers at the left), and the v11 table as paired bars.
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "results/validation"
    with open(os.path.join(d, "points.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    tables = defaultdict(list)
    for r in rows:
        tables[r["table"]].append(r)
    fig, axes = plt.subplots(len(tables), 1, figsize=(11, 5.5 * len(tables)), squeeze=False)
    for ax, (table, pts) in zip(axes[:, 0], tables.items()):
        if all(int(r["x"]) == 0 or r["series"].startswith(("before", "with")) for r in pts):
            labels = [r["series"] for r in pts]
            xs = range(len(pts))
            ax.bar([x - 0.2 for x in xs], [float(r["published"]) / 1e6 for r in pts], 0.4, label="published")
            ax.bar([x + 0.2 for x in xs], [float(r["simulated"]) / 1e6 for r in pts], 0.4, label="simulated")
            ax.set_xticks(list(xs))
            ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
        else:
            series = defaultdict(list)
            for r in pts:
                series[r["series"]].append(r)
            for i, (name, rs) in enumerate(series.items()):
                colour = f"C{i % 10}"
                rs = sorted(rs, key=lambda r: int(r["x"]))
                sweep = [r for r in rs if int(r["x"]) > 0]
                xs = [int(r["x"]) for r in sweep]
                ax.plot(xs, [float(r["published"]) / 1e6 for r in sweep], "-o", color=colour, ms=3,
                        label=f"{name} published")
                ax.plot(xs, [float(r["simulated"]) / 1e6 for r in sweep], "--x", color=colour, ms=4,
                        label=f"{name} simulated")
                for r in rs:
                    if int(r["x"]) == 0:  # the global hash
                        ax.plot([1], [float(r["published"]) / 1e6], "o", color=colour, mfc="none", ms=8)
                        ax.plot([1], [float(r["simulated"]) / 1e6], "x", color=colour, ms=8)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("private hash buckets (log2; the global hash drawn at x = 1)")
        ax.set_ylabel("ops/sec per thread (millions)")
        ax.set_title(f"{table}: published vs simulated")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    out = os.path.join(d, "validation.png")
    fig.savefig(out, dpi=90)
    print("wrote", out)


if __name__ == "__main__":
    main()
