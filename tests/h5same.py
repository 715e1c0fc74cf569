#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""h5same A.h5 B.h5: exit 0 when two futexsim result files hold the same results.

Compares every group, dataset (type, shape and values, bit for bit) and attribute
of both files, except the provenance that must differ between two runs of one
scenario: the wall-clock time, the start time, the command line and the git
revision (docs/results-format.md lists them); and the engine's own bookkeeping,
its event count and the time of its last event, which an optimisation that saves
events changes by design and no result depends on. Prints each difference found.
Used by `make same-results` (tests/same_results.sh).
"""
import sys

import h5py
import numpy as np

# provenance that differs between two runs of the same scenario and seed, or
# between two builds of the same model
SKIP_ATTRS = {
    ("/provenance", "wall_seconds"),
    ("/provenance", "start_time_utc"),
    ("/provenance", "git_revision"),
    ("/provenance", "futexsim_version"),
    # how the engine got there: events handled, the last one's time
    ("/provenance", "events"),
    ("/provenance", "simulated_ps"),
}
SKIP_OBJECTS = {"/provenance/command_line"}


def items(f):
    """Every object path -> object, groups and datasets."""
    out = {"/": f}
    f.visititems(lambda name, obj: out.__setitem__("/" + name, obj))
    return out


def same_value(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return a.tobytes() == b.tobytes()
    return np.array_equal(a, b)


def compare(pa, pb):
    diffs = []
    with h5py.File(pa, "r") as fa, h5py.File(pb, "r") as fb:
        ia, ib = items(fa), items(fb)
        for path in sorted(set(ia) | set(ib)):
            if path in SKIP_OBJECTS:
                continue
            if path not in ia or path not in ib:
                diffs.append(f"{path}: only in {pa if path in ia else pb}")
                continue
            oa, ob = ia[path], ib[path]
            if type(oa) is not type(ob):
                diffs.append(f"{path}: a {type(oa).__name__} in one, a {type(ob).__name__} in the other")
                continue
            if isinstance(oa, h5py.Dataset):
                if oa.dtype != ob.dtype or oa.shape != ob.shape:
                    diffs.append(f"{path}: {oa.dtype}{oa.shape} vs {ob.dtype}{ob.shape}")
                elif oa.shape is not None and not same_value(oa[()], ob[()]):
                    diffs.append(f"{path}: values differ")
            for name in sorted(set(oa.attrs) | set(ob.attrs)):
                if (path, name) in SKIP_ATTRS:
                    continue
                if name not in oa.attrs or name not in ob.attrs:
                    diffs.append(f"{path}@{name}: only in one file")
                elif not same_value(oa.attrs[name], ob.attrs[name]):
                    diffs.append(f"{path}@{name}: {oa.attrs[name]!r} vs {ob.attrs[name]!r}")
    return diffs


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: h5same A.h5 B.h5\n")
        return 2
    diffs = compare(sys.argv[1], sys.argv[2])
    for d in diffs:
        print(d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
