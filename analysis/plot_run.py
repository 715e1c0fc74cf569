# SPDX-License-Identifier: MIT
"""The figures of one futexsim result file (analysis/plot run).

throughput: each thread's ops/s per output.interval over the measured window
lines:      the hottest cache lines x transfer distance, and each hash table's
            bucket-lock acquisitions (bucket x table, the table's home node named)
nodes:      the node x node line-transfer matrix
transfers:  line transfers per microsecond by distance class over the measured window,
            with the private hash's resizes marked (a thread creation that grew it,
            and when the new hash came into use)
latency:    blocking workloads only (the file has workload/latency_counts): the
            latency histogram as a cumulative distribution, log time axis, with the
            percentiles the summary prints marked
"""
import numpy as np
from matplotlib.colors import LogNorm, Normalize
from matplotlib.ticker import FuncFormatter

from results_io import attr_text, text


def title_of(f):
    s = f["summary"].attrs
    sets = " ".join(str(o) for o in text(f["provenance/overrides"])) if "provenance/overrides" in f else ""
    scenario, machine, kernel = (attr_text(s[k], f"attribute {k} of summary") for k in ("scenario", "machine", "kernel"))
    t = f"{scenario}: {machine}, {kernel}"
    if int(f.attrs.get("incomplete", 0)):
        t += " (INCOMPLETE: interrupted)"
    return t + (f"\n--set {sets}" if sets else "")


def time_unit(span_ps):
    """A time unit that keeps the axis numbers readable: (divisor in ps, name)."""
    for div, name in ((1e12, "s"), (1e9, "ms"), (1e6, "us")):
        if span_ps >= 2 * div:
            return div, name
    return 1e3, "ns"


def throughput(plt, f):
    ts = f["timeseries"]
    t = ts["time"][()].astype(np.float64)
    ops = ts["ops"][()].astype(np.float64)
    nodes = f["threads/node"][()]
    fig, ax = plt.subplots(figsize=(10, 5.5))
    if len(t) == 0:
        ax.text(0.5, 0.5, "no time series: the run stopped during the warm-up",
                ha="center", va="center", transform=ax.transAxes)
    else:
        interval, end = float(ts.attrs["interval_ps"]), float(ts.attrs["end_ps"])
        # the last interval may be cut short by the end of the window
        width = np.clip(np.minimum(t + interval, max(end, t[-1] + 1)) - t, 1.0, interval)
        rate = ops / (width[:, None] / 1e12) / 1e6  # millions of ops/s per thread
        div, unit = time_unit(t[-1] + width[-1] - t[0])
        x = (t + width / 2) / div
        cmaps = [plt.get_cmap(c) for c in ("Blues", "Oranges", "Greens", "Purples", "Reds", "Greys")]
        for i in range(ops.shape[1]):
            node = int(nodes[i])
            shade = 0.45 + 0.45 * (i % 8) / 8
            ax.plot(x, rate[:, i], lw=0.8, alpha=0.6, color=cmaps[node % len(cmaps)](shade),
                    label=f"threads on node {node}" if i == int(np.argmax(nodes == node)) else None)
        ax.plot(x, rate.mean(axis=1), lw=2.2, color="black", label="mean over threads")
        ax.set_xlim(t[0] / div, (t[-1] + width[-1]) / div)
        ax.set_ylim(0, 1.12 * max(float(rate.max()), 1e-9))  # room above the top curve
        ax.legend(fontsize=9, loc="lower right")
        ax.set_xlabel(f"simulated time since the run began ({unit}; the measured window starts after "
                      f"the {fmt_ps(float(ts.attrs['start_ps']))} warm-up)")
    ax.set_ylabel("throughput per thread (million ops/s)")
    ax.set_title(f"{title_of(f)}\nper-thread throughput per {fmt_ps(float(ts.attrs['interval_ps']))} interval",
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def fmt_ps(ps):
    """A duration in its largest whole unit: 1 ms, 100 us."""
    for div, name in ((1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")):
        if ps >= div:
            return f"{ps / div:g} {name}"
    return f"{ps:g} ps"


def hottest_lines(ax, f, top):
    tr = f["lines/transfers"][()].astype(np.float64)  # uint64 would wrap when negated
    order = np.argsort(-tr.sum(axis=1), kind="stable")[:top]
    order = order[tr[order].sum(axis=1) > 0]
    if len(order) == 0:
        ax.text(0.5, 0.5, "no line transfers", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return None
    desc = text(f["lines/description"])
    home = f["lines/home_node"][()]
    data = tr[order]
    im = ax.imshow(np.where(data > 0, data, np.nan), aspect="auto", cmap="viridis", norm=norm_for(data))
    for (r, c), v in np.ndenumerate(data):
        ax.text(c, r, f"{int(v)}", ha="center", va="center", fontsize=7,
                color="white" if v < np.sqrt(data.max()) else "black")
    ax.set_xticks(range(3))
    ax.set_xticklabels(["within SMT core", "within node", "across nodes"], fontsize=9)
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels([f"{shorten(str(desc[i]), 58)} [home node {home[i]}]" for i in order], fontsize=7)
    ax.set_title(f"the {len(order)} lines with the most transfers (blank: none)", fontsize=10)
    return im


def norm_for(data):
    """Log colours when the positive values span a decade or more, else linear ones
    (a log scale over 10400..11200 only labels its ticks badly). Zeros stay blank."""
    pos = data[data > 0]
    lo, hi = float(pos.min()), float(pos.max())
    return LogNorm(vmin=lo, vmax=hi) if hi >= 10 * lo else Normalize(vmin=0, vmax=hi)


def shorten(s, n):
    return s if len(s) <= n else s[: n - 3] + "..."


def bucket_heatmap(ax, f, max_cols=256):
    """Lock acquisitions per bucket, one row per table; wide tables in bins."""
    names, sizes = text(f["tables/name"]), f["tables/size"][()]
    tnodes, first = f["tables/node"][()], f["tables/first_bucket"][()]
    acq = f["buckets/acquisitions"][()].astype(np.float64)
    used = [t for t in range(len(sizes)) if acq[first[t]:first[t] + sizes[t]].sum() > 0]
    if not used:
        ax.text(0.5, 0.5, "no bucket lock was taken", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return None
    cols = int(min(max_cols, max(sizes[t] for t in used)))
    grid = np.full((len(used), cols), np.nan)
    for r, t in enumerate(used):
        a = acq[first[t]:first[t] + sizes[t]]
        per = int(np.ceil(len(a) / cols))
        binned = np.add.reduceat(a, np.arange(0, len(a), per))
        grid[r, :len(binned)] = binned
    im = ax.imshow(np.where(grid > 0, grid, np.nan), aspect="auto", cmap="magma", interpolation="nearest",
                   norm=norm_for(grid))
    ax.set_yticks(range(len(used)))
    ax.set_yticklabels([f"{names[t]} ({sizes[t]} buckets, node {tnodes[t]})" for t in used], fontsize=8)
    if any(sizes[t] > cols for t in used):
        if len({int(sizes[t]) for t in used}) == 1:  # one bin width: label bins by bucket number
            per = int(np.ceil(sizes[used[0]] / cols))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(round(v * per))}"))
            ax.set_xlabel(f"bucket (summed over bins of {per})", fontsize=9)
        else:
            ax.set_xlabel(f"position in the table (wide tables summed into {cols} bins)", fontsize=9)
    else:
        ax.set_xlabel("bucket", fontsize=9)
    ax.set_title("bucket lock acquisitions per table", fontsize=10)
    return im


def lines(plt, f, top=25):
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(11, 10.5), gridspec_kw={"height_ratios": [3.2, 1]})
    im = hottest_lines(a1, f, top)
    if im is not None:
        fig.colorbar(im, ax=a1, label="line transfers")
    im = bucket_heatmap(a2, f)
    if im is not None:
        fig.colorbar(im, ax=a2, label="acquisitions")
    fig.suptitle(f"{title_of(f)}\ncache-line transfers by distance; bucket locks", fontsize=10)
    fig.tight_layout()
    return fig


def nodes(plt, f):
    m = f["summary/node_transfers"][()].astype(np.float64)
    n = m.shape[0]
    fig, ax = plt.subplots(figsize=(4.5 + 0.6 * n, 3.8 + 0.6 * n))
    im = ax.imshow(m, cmap="Blues", vmin=0, vmax=max(m.max(), 1))
    for (r, c), v in np.ndenumerate(m):
        ax.text(c, r, f"{int(v)}", ha="center", va="center", fontsize=10,
                color="white" if v > 0.6 * m.max() else "black")
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xlabel("to node (requester)")
    ax.set_ylabel("from node (previous holder)")
    total = m.sum()
    across = total - np.trace(m)
    ax.set_title(f"{title_of(f)}\nline transfers node x node: {int(total)} in the window, "
                 f"{100 * across / total if total else 0:.0f}% across nodes", fontsize=9)
    fig.colorbar(im, ax=ax, label="line transfers", shrink=0.8)
    fig.tight_layout()
    return fig


def transfers(plt, f):
    ts = f["timeseries"]
    t = ts["time"][()].astype(np.float64)
    xfer = ts["transfers"][()].astype(np.float64)
    fig, ax = plt.subplots(figsize=(10, 5))
    if len(t) == 0:
        ax.text(0.5, 0.5, "no time series: the run stopped during the warm-up",
                ha="center", va="center", transform=ax.transAxes)
        fig.tight_layout()
        return fig
    interval, end = float(ts.attrs["interval_ps"]), float(ts.attrs["end_ps"])
    width = np.clip(np.minimum(t + interval, max(end, t[-1] + 1)) - t, 1.0, interval)
    div, unit = time_unit(t[-1] + width[-1] - t[0])
    x = (t + width / 2) / div
    for k, (name, color) in enumerate((("within an SMT core", "tab:green"), ("within a node", "tab:blue"),
                                       ("across nodes", "tab:red"))):
        ax.plot(x, xfer[:, k] / (width / 1e6), lw=1.6, color=color, label=name)
    if "resizes" in f:
        r = f["resizes"]
        for i, (s, e) in enumerate(zip(r["start"][()], r["end"][()])):
            ax.axvline(float(s) / div, color="black", ls="--", lw=1,
                       label="a private hash grown (its new size on top)" if i == 0 else None)
            if int(e) != 2**64 - 1:
                ax.axvline(float(e) / div, color="black", ls="-", lw=1,
                           label="the new hash in use" if i == 0 else None)
            ax.text(float(s) / div, 1.0, f" {int(r['to_buckets'][i])}", transform=ax.get_xaxis_transform(),
                    va="top", fontsize=8)
    ax.set_xlim(t[0] / div, (t[-1] + width[-1]) / div)
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"simulated time since the run began ({unit}; the measured window starts after "
                  f"the {fmt_ps(float(ts.attrs['start_ps']))} warm-up)")
    ax.set_ylabel("line transfers per microsecond")
    ax.set_title(f"{title_of(f)}\nline transfers by distance per {fmt_ps(interval)} interval", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def latency(plt, f):
    """The workload's latency histogram as a CDF; None for workloads without one."""
    if "workload/latency_counts" not in f or "workload/latency_edges" not in f:
        return None
    edges = f["workload/latency_edges"][()].astype(np.float64)
    counts = f["workload/latency_counts"][()].astype(np.float64)
    total = counts.sum()
    if total <= 0 or len(edges) != len(counts) + 1:
        return None
    upper = edges[1:]  # a bin's count is at or below its upper edge
    used = np.nonzero(counts)[0]
    lo, hi = max(float(edges[used[0]]), float(upper[used[0]]) / 10), float(upper[used[-1]])
    div, unit = time_unit(hi)
    fig, ax = plt.subplots(figsize=(9, 5.2))
    ax.step(upper / div, np.cumsum(counts) / total, where="post", lw=1.8, color="tab:blue")
    ax.set_xscale("log")
    ax.set_xlim(lo / div / 1.25, hi / div * 1.25)  # the occupied bins, not the histogram's whole range
    for name, style in (("latency_p50", ":"), ("latency_p90", "--"), ("latency_p99", "-."), ("latency_p999", "-")):
        if f"workload/{name}" in f:
            v = float(f[f"workload/{name}"][()])
            if v > 0:
                ax.axvline(v / div, color="grey", ls=style, lw=1,
                           label=f"{name.split('_')[1]}: {v / div:.3g} {unit}")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"latency ({unit}, log scale)")
    ax.set_ylabel("fraction of samples at or below")
    ax.set_title(f"{title_of(f)}\nlatency distribution ({int(total)} samples in the window)", fontsize=10)
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    return fig


# name (the output file's suffix), function(plt, h5file) -> figure, or None when the
# file has nothing for it
FIGURES = [("throughput", throughput), ("transfers", transfers), ("lines", lines), ("nodes", nodes),
           ("latency", latency)]


def design_of(path):
    """What plot compare needs of one result file, as plain arrays (read in a child by
    read_guarded and pickled back): its label, the mean per-thread throughput per
    interval, the transfers per op by class, and where an op's time went (futexsim
    explain's classes, ns per op; empty for files without threads/time)."""
    from results_io import open_result

    with open_result(path) as f:
        ts = f["timeseries"]
        t = ts["time"][()].astype(np.float64)
        ops = ts["ops"][()].astype(np.float64)
        interval, end = float(ts.attrs["interval_ps"]), float(ts.attrs["end_ps"])
        s = f["summary"]
        total = float(s["total_ops"][()])
        sets = " ".join(str(o) for o in text(f["provenance/overrides"])) if "provenance/overrides" in f else ""
        breakdown = {}
        if "threads/time" in f and total:
            tt = f["threads/time"]
            classes = [attr_text(c, "attribute classes of threads/time") for c in tt.attrs["classes"]]
            per_class = tt[()].astype(np.float64).sum(axis=0) / 1e3 / total
            breakdown = {c: float(v) for c, v in zip(classes, per_class) if v > 0}
        return {
            "breakdown": breakdown,
            "label": f"{path}: {attr_text(s.attrs['kernel'], 'attribute kernel of summary')}"
                     + (f", --set {sets}" if sets else ""),
            "t": t, "rate": (ops.mean(axis=1) if ops.size else ops) if len(t) else t,
            "width": np.clip(np.minimum(t + interval, max(end, t[-1] + 1)) - t, 1.0, interval) if len(t) else t,
            "per_op": s["transfers"][()].astype(np.float64) / total if total else np.zeros(3),
            "ops_per_sec": int(s["ops_per_sec"][()]),
        }


def compare_designs(plt, designs):
    """Designs side by side: mean per-thread throughput over time, one curve each;
    transfers per op by distance class, a stacked bar each; and, when the files have
    it, where an op's time went (futexsim explain's classes), a stacked bar each."""
    breakdown = all(d["breakdown"] for d in designs)
    if breakdown:
        fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(18, 5.5), gridspec_kw={"width_ratios": [2.2, 1, 1.2]})
    else:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [2.2, 1]})
    span = max((d["t"][-1] + d["width"][-1] - d["t"][0]) for d in designs if len(d["t"])) if any(
        len(d["t"]) for d in designs) else 1e9
    div, unit = time_unit(span)
    colors = plt.get_cmap("tab10")
    for i, d in enumerate(designs):
        if len(d["t"]):
            a1.plot((d["t"] + d["width"] / 2) / div, d["rate"] / (d["width"] / 1e12) / 1e6, lw=1.8,
                    color=colors(i % 10), label=f"{chr(65 + i)}: {d['ops_per_sec'] / 1e6:.3f} M ops/s averaged")
    a1.set_xlabel(f"simulated time since the run began ({unit})")
    a1.set_ylabel("throughput per thread, mean over threads (million ops/s)")
    a1.set_ylim(bottom=0)
    a1.grid(True, alpha=0.3)
    a1.legend(fontsize=8, loc="lower right")
    names = [chr(65 + i) for i in range(len(designs))]
    bottom = np.zeros(len(designs))
    for k, (cls, color) in enumerate((("within an SMT core", "tab:green"), ("within a node", "tab:blue"),
                                       ("across nodes", "tab:red"))):
        v = np.array([d["per_op"][k] for d in designs])
        a2.bar(names, v, bottom=bottom, color=color, label=cls)
        bottom += v
    a2.set_ylabel("line transfers per op")
    a2.legend(fontsize=8)
    a2.grid(True, axis="y", alpha=0.3)
    if breakdown:
        classes = []
        for d in designs:
            classes += [c for c in d["breakdown"] if c not in classes]
        bottom = np.zeros(len(designs))
        cmap = plt.get_cmap("tab20")
        for k, c in enumerate(classes):
            v = np.array([d["breakdown"].get(c, 0.0) for d in designs])
            a3.bar(names, v, bottom=bottom, color=cmap(k % 20), label=c)
            bottom += v
        a3.set_ylabel("simulated time per op (ns), by what the threads did")
        a3.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        a3.grid(True, axis="y", alpha=0.3)
    fig.suptitle("\n".join(f"{chr(65 + i)} = {d['label']}" for i, d in enumerate(designs)), fontsize=8)
    fig.tight_layout()
    return fig
