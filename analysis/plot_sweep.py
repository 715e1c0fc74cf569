# SPDX-License-Identifier: MIT
"""The figure of a collected sweep (analysis/plot sweep): a figure column against the
swept parameter, one line per variant (every other parameter that varies), the mean
over seeds with error bars of one standard deviation when several seeds ran, and
published measurements overlaid from a CSV file.
"""
import csv
import math
from collections import OrderedDict

import numpy as np

from results_io import DESCRIPTIVE, InputError, check_regular, parse_value

# y columns people plot, with their axis labels and the divisor that keeps ticks short
Y_LABELS = {
    "ops_per_sec": ("throughput per thread, perf's \"Averaged\" (million ops/s)", 1e6),
    "transfers_per_op": ("cache-line transfers per op", 1),
    "stderr_pct": ("standard error over threads (%)", 1),
    "total_ops": ("ops in the measured window (millions)", 1e6),
    "dram_fills": ("lines filled from DRAM", 1),
}


def finite(v):
    """Whether a table cell is a finite number."""
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def short(key):
    return key.rsplit(".", 1)[-1]


def varying(rows, col):
    return len({str(r[col]) for r in rows}) > 1


def decided_by(rows, params, col):
    """Whether rows with the same parameter values always have the same col."""
    seen = {}
    return all(seen.setdefault(tuple(str(r[p]) for p in params), r[col]) == r[col] for r in rows)


def choose_x(params, rows, x):
    if x:
        if x not in params:
            raise InputError(f"--x {x}: not a parameter of the table (parameters: {', '.join(params) or 'none'})")
        return x
    swept = [p for p in params if varying(rows, p)]
    if not swept:
        raise InputError("no parameter varies in the table: nothing to plot against (--x KEY to choose one)")
    # the parameter with the most values is the curve's axis; the rest make variants
    return max(swept, key=lambda p: len({str(r[p]) for r in rows}))


def is_log2(xs):
    """Sizes: positive powers of two over at least three doublings."""
    pos = [x for x in xs if isinstance(x, int) and x > 0]
    return (len(pos) == len([x for x in xs if x != 0]) and len(pos) >= 2
            and all(x & (x - 1) == 0 for x in pos) and max(pos) >= 8 * min(pos))


def read_published(spec):
    """FILE.csv[:COL[,COL...]]: x in the first column, one curve per COL (default all).
    Lines starting with # are comments (analysis/data/ keeps its sources there)."""
    path, _, cols = spec.partition(":")
    try:
        check_regular(path, "CSV file")  # a FIFO would block the open
        with open(path, newline="", encoding="utf-8") as f:
            lines = list(csv.reader(line for line in f if not line.startswith("#")))
    except InputError as e:
        raise InputError(f"--published {e}") from None
    except OSError as e:
        raise InputError(f"--published {path}: {e.strerror}") from None
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"--published {path}: not a CSV file of numbers ({e})") from None
    lines = [row for row in lines if row]
    if len(lines) < 2 or len(lines[0]) < 2:
        raise InputError(f"--published {path}: expected a CSV header of at least two columns, then rows")
    header = lines[0]
    rows = [dict(zip(header, row)) for row in lines[1:]]
    xcol = header[0]
    wanted = cols.split(",") if cols else header[1:]
    for c in wanted:
        if c not in header:
            raise InputError(f"--published {path}: no column {c} (columns: {', '.join(header)})")
    curves = OrderedDict()
    for c in wanted:
        try:
            curves[c] = [(parse_value(r[xcol]), float(r[c])) for r in rows if r.get(c, "") != ""]
        except ValueError:
            raise InputError(f"--published {path}: column {c} holds a value that is not a number") from None
    return path, xcol, curves


def plot_sweep(columns, params, rows, x=None, y="ops_per_sec", published=(), title=None):
    if not rows:
        raise InputError("the table has no rows")
    if y not in columns:
        raise InputError(f"--y {y}: no such column (columns: {', '.join(columns)})")
    x = choose_x(params, rows, x)
    variant_cols = [c for c in params if c != x and varying(rows, c)]
    # scenario, machine, ... make variants only when the parameters do not decide them
    # (tables of several scenarios), not when a swept key sets them (--set kernel=...)
    variant_cols += [c for c in columns if (c in DESCRIPTIVE or c[:-5] in DESCRIPTIVE and c.endswith("_name"))
                     and varying(rows, c) and not decided_by(rows, params, c)]
    ylabel, div = Y_LABELS.get(y, (y, 1))

    # variant -> x -> values over seeds; a run without a finite y (a workload figure
    # other runs have, NaN in the HDF5 table) has no point
    groups = OrderedDict()
    for r in rows:
        if r[x] == "" or not finite(r[y]):
            continue  # the run did not set the x parameter, or has no y
        v = tuple((c, r[c]) for c in variant_cols)
        groups.setdefault(v, OrderedDict()).setdefault(r[x], []).append(float(r[y]) / div)
    if not groups:
        raise InputError(f"--y {y}: no run has a number in that column (every one is empty, NaN or infinite, or "
                         f"sets no {x})")
    xs_all = sorted({k for g in groups.values() for k in g}, key=lambda v: (isinstance(v, str), v))
    numeric = all(isinstance(v, (int, float)) for v in xs_all)
    pubs = [read_published(p) for p in published]
    pub_xs = [px for _, _, cs in pubs for c in cs.values() for px, _ in c]
    log2 = numeric and is_log2(xs_all + pub_xs)

    import matplotlib.pyplot as plt  # only now: bad input fails fast, without it

    fig, ax = plt.subplots(figsize=(10, 6))
    zero_at = None
    if log2:
        ax.set_xscale("log", base=2)
        if 0 in xs_all or 0 in pub_xs:  # x = 0 has no place on a log axis: one step left
            zero_at = min(v for v in xs_all if v > 0) / 2
    cat = {v: i for i, v in enumerate(xs_all)} if not numeric else None

    def pos(v):
        if cat is not None:
            return cat[v]
        return zero_at if (zero_at and v == 0) else v

    seeds = max(len(vals) for g in groups.values() for vals in g.values())
    for i, (variant, g) in enumerate(groups.items()):
        label = "simulated" + (" " + ", ".join(f"{short(c)}={val}" for c, val in variant) if variant else "")
        pts = [(pos(k), float(np.mean(vals)), float(np.std(vals, ddof=1)) if len(vals) > 1 else 0.0)
               for k, vals in g.items()]
        curve = [p for p, k in zip(pts, g) if not (zero_at and k == 0)]
        curve.sort()
        colour = f"C{i % 10}"
        if curve:
            px, py, pe = zip(*curve)
            # categories in a row are not a curve: markers only
            ax.errorbar(px, py, yerr=pe if seeds > 1 else None, fmt="-o" if cat is None else "o",
                        ms=4 if cat is None else 7, capsize=3, color=colour, label=label)
        for p, k in zip(pts, g):
            if zero_at and k == 0:
                ax.errorbar([p[0]], [p[1]], yerr=[p[2]] if seeds > 1 else None, fmt="D", ms=7, capsize=3,
                            color=colour, label=None if curve else label)
    for j, (path, pcol, curves) in enumerate(pubs):
        for k, (c, pts) in enumerate(curves.items()):
            style = dict(color="black" if len(curves) == 1 else f"C{(len(groups) + k) % 10}", ms=5)
            line = sorted((pos(px), py / div) for px, py in pts if not (zero_at and px == 0))
            if line:
                lx, ly = zip(*line)
                ax.plot(lx, ly, "--s", mfc="none", label=f"published {c} ({path.rsplit('/', 1)[-1]})", **style)
            for px, py in pts:
                if zero_at and px == 0:
                    ax.plot([zero_at], [py / div], "s", mfc="none", ms=9, mew=1.5, color=style["color"])

    if cat is not None:
        ax.set_xticks(range(len(xs_all)))
        ax.set_xticklabels([str(v) for v in xs_all], rotation=20 if len(xs_all) > 6 else 0)
    elif log2:
        ticks = sorted({pos(v) for v in xs_all + pub_xs})
        ax.set_xticks(ticks)
        ax.set_xticklabels([zero_label(x) if zero_at and t == zero_at else f"{int(t)}" for t in ticks],
                           rotation=45 if len(ticks) > 10 else 0, fontsize=9)
        ax.minorticks_off()
        if zero_at:
            ax.axvline(zero_at * math.sqrt(2), color="grey", lw=0.8, ls=":")
    xlabel = x + (" (log2 scale)" if log2 else "")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    note = "one seed per point"
    if seeds > 1:  # say how large the bars are: often smaller than the markers
        rel = max(np.std(v, ddof=1) / abs(np.mean(v)) for g in groups.values() for v in g.values()
                  if len(v) > 1 and np.mean(v))
        note = f"mean of {seeds} seeds, error bars 1 standard deviation (at most {100 * rel:.2g}%)"
    what = describe(rows)
    ax.set_title(title or f"{shorten(what, 110)}\n{len(rows)} simulated runs, {note}", fontsize=11)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def describe(rows):
    """scenario (machine, N threads), from whichever descriptive columns the table has;
    several values listed."""
    def values(c):
        vs = sorted({r.get(c, r.get(c + "_name", "?")) for r in rows}, key=lambda v: (isinstance(v, str), v))
        return ", ".join(str(v) for v in vs)
    return f"{values('scenario')} ({values('machine')}; {values('threads')} threads)"


def shorten(s, n):
    return s if len(s) <= n else s[: n - 3] + "..."


def zero_label(x):
    return "0\n(global\nhash)" if x.endswith("buckets") else "0"
