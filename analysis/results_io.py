# SPDX-License-Identifier: MIT
"""Reading futexsim result files and sweep tables, and writing files atomically.

Shared by analysis/collect and analysis/plot (docs/results-format.md, docs/sweeps.md).
Needs only Debian's python3-h5py and python3-numpy.
"""
import csv
import os
import pickle
import select
import signal
import sys
import tempfile
import time

import h5py
import numpy as np

RESULTS_FORMAT = "futexsim-results"
SWEEP_FORMAT = "futexsim-sweep"
# A sweep table's columns after `file`: what ran, by name (analysis/collect)
DESCRIPTIVE = ["scenario", "machine", "kernel", "workload"]


class InputError(Exception):
    """A file that is not what the command expects; the message names the file."""


def text(ds):
    """A text dataset (fixed-length NUL-padded UTF-8) as str or an array of str."""
    return ds.asstr()[()]


def attr_text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def read_limit(path):
    """Seconds a file may take to read: FUTEXSIM_READ_TIMEOUT, else 20 s + 1 s per 10 MB
    (as futexsim's own reader, sim/h5read.c)."""
    try:
        v = float(os.environ.get("FUTEXSIM_READ_TIMEOUT", ""))
        if v > 0:
            return v
    except ValueError:
        pass
    return 20 + os.path.getsize(path) / 10e6


def fork_child(child):
    """Runs child() in a forked process that sends the bytes it returns (with its exit
    status: (data, status)) down a pipe and exits; returns (pid, the pipe's read end).
    libhdf5 can crash or loop on a damaged file or a failed write: a child's death
    does not take this process with it."""
    sys.stdout.flush()
    sys.stderr.flush()
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(rfd)
        data, status = child()
        with os.fdopen(wfd, "wb") as w:
            w.write(data)
        os._exit(status)
    os.close(wfd)
    return pid, rfd


def read_guarded(path, fn, limit=None, doing="reading"):
    """fn(path), run in a forked child process within `limit` seconds (default
    read_limit(path)), its result pickled back. libhdf5 can crash or loop on a damaged
    file and would take this process with it: a child that dies or runs out of time
    makes an InputError naming the file; an exception fn raises is raised here."""
    limit = read_limit(path) if limit is None else limit

    def child():
        try:
            out = ("ok", fn(path))
        except BaseException as e:  # noqa: BLE001 -- raised again in the parent
            out = ("raise", e)
        try:
            return pickle.dumps(out), 0
        except Exception as e:  # noqa: BLE001
            return pickle.dumps(("raise", InputError(f"{path}: {e}"))), 0

    pid, rfd = fork_child(child)
    chunks, deadline = [], time.monotonic() + limit
    with os.fdopen(rfd, "rb", buffering=0) as r:
        while True:
            if not select.select([r], [], [], max(deadline - time.monotonic(), 0))[0]:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                share = "limit" if doing == "reading" else "reading's share"
                raise InputError(f"{path}: {doing} it took more than {limit:.0f} s: a damaged file "
                                 f"(FUTEXSIM_READ_TIMEOUT sets the {share})")
            b = r.read(1 << 20)
            if not b:
                break
            chunks.append(b)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        raise InputError(f"{path}: the HDF5 library crashed reading it (signal {os.WTERMSIG(status)}): "
                         "a damaged file")
    if not chunks:
        raise InputError(f"{path}: reading it failed (exit {os.waitstatus_to_exitcode(status)})")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "raise":
        raise value
    return value


def open_h5(path):
    """An HDF5 file opened for reading; InputError, naming the file, when it cannot be.
    Untrusted files are read in a child (read_guarded) by the callers."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    try:
        return h5py.File(path, "r")
    except OSError:
        raise InputError(f"{path}: not an HDF5 file") from None


def open_result(path):
    """Opens a futexsim result file for reading; InputError when it is not one."""
    f = open_h5(path)
    if attr_text(f.attrs.get("format", "")) != RESULTS_FORMAT:
        f.close()
        raise InputError(f"{path}: not a futexsim result file (no format={RESULTS_FORMAT} attribute)")
    return f


def parse_value(s):
    """A table cell as int, float or str, for sorting and plotting."""
    for conv in (int, float):
        try:
            return conv(s)
        except (TypeError, ValueError):
            pass
    return s


def read_table(path):
    """A sweep table (analysis/collect's CSV or HDF5) as (columns, parameters, rows):
    rows are dicts of column -> int/float/str ("" for a parameter a run did not set)."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    if path.endswith(".csv"):
        try:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                rows = [{k: parse_value(v) if v != "" else "" for k, v in r.items()} for r in reader]
                columns = reader.fieldnames or []
        except OSError as e:
            raise InputError(f"{path}: {e.strerror}") from None
        # the CSV has no attributes: the parameters stand between the descriptive
        # columns and seed (analysis/collect's order)
        first = 1 + len(DESCRIPTIVE)
        if columns[:1] != ["file"] or "seed" not in columns[first:]:
            raise InputError(f"{path}: not a table from analysis/collect (no file and seed columns)")
        parameters = columns[first:columns.index("seed")]
        return columns, parameters, rows
    with open_h5(path) as f:
        if attr_text(f.attrs.get("format", "")) != SWEEP_FORMAT:
            raise InputError(f"{path}: not a sweep table (no format={SWEEP_FORMAT} attribute)")
        columns = [attr_text(c) for c in f.attrs["columns"]]
        parameters = [attr_text(c) for c in f.attrs["parameters"]]
        data = {}
        for c in columns:
            ds = f["table"][c]
            data[c] = list(ds.asstr()[()]) if ds.dtype.kind == "S" else ds[()].tolist()
    rows = [{c: data[c][i] for c in columns} for i in range(len(data[columns[0]]))] if columns else []
    return columns, parameters, rows


class OutputError(Exception):
    """An output that cannot be written; the message names the output, not the input."""


def replace_atomically(path, write):
    """Calls write(tmp_path), then renames tmp_path to path: no half-written outputs.
    OutputError, naming `path`, when it cannot be written."""
    replace_all_atomically([(path, write)])


def write_guarded(path, tmp, write):
    """write(tmp) in a forked child: libhdf5 can crash on a failed write (a full disk)
    and would take this process with it. OutputError naming `path` when the child
    fails or dies; its stderr (the library's own noise) is dropped."""
    def child():
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        try:
            write(tmp)
        except BaseException as e:  # noqa: BLE001 -- reported by the parent
            return (getattr(e, "strerror", None) or str(e) or type(e).__name__).encode(errors="replace"), 1
        return b"", 0

    pid, rfd = fork_child(child)
    with os.fdopen(rfd, "rb") as r:
        why = r.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        raise OutputError(f"cannot write {path}: the library writing it crashed (signal {os.WTERMSIG(status)}): "
                          "is the disk full?")
    if os.waitstatus_to_exitcode(status):
        raise OutputError(f"cannot write {path}: {why or 'the writer failed'}")


def replace_all_atomically(outputs):
    """For each (path, write): write(tmp_path) into a temporary beside path; only once
    every one is written are they renamed into place, so a failure (a full disk) leaves
    every output as it was and no temporary behind. OutputError naming the path."""
    tmps = []
    try:
        for path, write in outputs:
            d = os.path.dirname(os.path.abspath(path))
            try:
                fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
            except OSError as e:
                raise OutputError(f"cannot write {path}: {e.strerror}") from None
            os.close(fd)
            tmps.append(tmp)
            write_guarded(path, tmp, write)
        # mkstemp makes the file private; the outputs get the usual umask permissions
        mask = os.umask(0)
        os.umask(mask)
        for tmp in tmps:
            os.chmod(tmp, 0o666 & ~mask)
        for (path, _), tmp in zip(outputs, tmps):
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise OutputError(f"cannot write {path}: {e.strerror}") from None
    finally:
        for tmp in tmps:
            if os.path.exists(tmp):
                os.unlink(tmp)


def fixed_text(values):
    """Strings as a fixed-length NUL-padded UTF-8 array, the result files' text type."""
    enc = [v.encode() for v in values]
    return np.array(enc, dtype=f"S{max([len(e) for e in enc] + [1])}")
