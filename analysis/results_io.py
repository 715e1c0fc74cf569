# SPDX-License-Identifier: MIT
"""Reading futexsim result files and sweep tables, and writing files atomically.

Shared by analysis/collect and analysis/plot (docs/results-format.md, docs/sweeps.md).
Needs only Debian's python3-h5py and python3-numpy.
"""
import csv
import errno
import math
import os
import pickle
import re
import select
import signal
import stat
import sys
import tempfile
import time

import h5py
import numpy as np

RESULTS_FORMAT = "futexsim-results"
SWEEP_FORMAT = "futexsim-sweep"
# A sweep table's columns after `file`: what ran, by name (analysis/collect)
DESCRIPTIVE = ["scenario", "machine", "kernel", "workload"]


def prog_name(source_name):
    """The name a tool was run as: futexsim-NAME when run through the link make install puts
    in PREFIX/bin (its usage and man page then name the installed command), else its path in
    the source tree."""
    base = os.path.basename(sys.argv[0])
    return base if base.startswith("futexsim-") else source_name


class InputError(Exception):
    """A file that is not what the command expects; the message names the file."""


# what text from a result file may not hold: lone surrogates (h5py's stand-ins for bytes
# that are not UTF-8) and control characters but newline and tab
_NOT_TEXT = re.compile("[\ud800-\udfff\x00-\x08\x0b-\x1f\x7f-\x9f]")


def checked_text(s, what="a text value"):
    """s (str, or bytes as UTF-8) if it is text as futexsim writes it: UTF-8 without
    control characters but newline and tab, as futexsim's reader (sim/h5read.c)
    requires; InputError naming `what` otherwise."""
    if isinstance(s, bytes):
        try:
            s = s.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{what} is not UTF-8 text (byte 0x{s[e.start]:02x} at offset {e.start})") from None
    s = str(s)
    bad = _NOT_TEXT.search(s)
    if bad:
        c = bad.group()
        raise InputError(f"{what} is not UTF-8 text (at character {bad.start()})" if "\ud800" <= c <= "\udfff"
                         else f"{what} holds a control character (at character {bad.start()})")
    return s


def text(ds):
    """A text dataset (fixed-length NUL-padded UTF-8) as str or an array of str, each
    checked (checked_text)."""
    try:
        v = ds.asstr()[()]
    except UnicodeDecodeError as e:
        raise InputError(f"dataset {ds.name} is not UTF-8 text ({e.reason} at byte {e.start})") from None
    for t in (v.flat if isinstance(v, np.ndarray) else [v]):
        checked_text(t, f"dataset {ds.name}")
    return v


# no name, version or other string attribute is longer (sim/h5read.c)
MAX_ATTR_TEXT = 64 << 10


def attr_text(v, what="a text attribute"):
    """A string attribute's value as str, checked (checked_text, at most 64 KiB)."""
    s = checked_text(v, what)
    if len(s) > MAX_ATTR_TEXT:
        raise InputError(f"{what} is {len(s)} characters long, more than the {MAX_ATTR_TEXT} a name takes")
    return s


def count(ds, what):
    """A count (or id) dataset or attribute value: one integer, not negative. NaN, an
    infinity, a fraction or a negative number is a damaged file, never a measurement
    (InputError naming `what`)."""
    v = ds[()] if isinstance(ds, h5py.Dataset) else ds
    kind = getattr(v, "dtype", np.dtype(type(v))).kind
    if np.ndim(v) != 0 or kind not in "ui":
        raise InputError(f"{what} is not one integer ({v!r})")
    if int(v) < 0:
        raise InputError(f"{what} is {int(v)}, not a count")
    return int(v)


def figure(ds, what):
    """A figure stored as a double (a share, a time, a rate): one finite number, not
    negative (InputError naming `what` otherwise)."""
    v = ds[()] if isinstance(ds, h5py.Dataset) else ds
    if np.ndim(v) != 0 or getattr(v, "dtype", np.dtype(type(v))).kind not in "uif":
        raise InputError(f"{what} is not one number ({v!r})")
    v = float(v)
    if not math.isfinite(v) or v < 0:
        raise InputError(f"{what} is {v}, not a finite figure of 0 or more")
    return v


def file_kind(mode):
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def check_regular(path, what="result file"):
    """The size of `path` if it is a regular file; InputError saying what it is
    otherwise. Opened without blocking (a FIFO's open would wait for a writer) and
    looked at, as futexsim's reader does."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise InputError(f"{path}: no such file") from None
        raise InputError(f"cannot read {path}: {e.strerror}") from None
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{path}: {file_kind(st.st_mode)}, not a {what}")
    return st.st_size


def read_limit(path):
    """Seconds a file may take to read: FUTEXSIM_READ_TIMEOUT, else 20 s + 1 s per 10 MB
    (as futexsim's own reader, sim/h5read.c). InputError when path is no regular file."""
    size = check_regular(path)
    try:
        v = float(os.environ.get("FUTEXSIM_READ_TIMEOUT", ""))
        if 0 < v < 1e9:  # a number of seconds (inf, nan, 1e400: the default, as futexsim's)
            return v
    except ValueError:
        pass
    return 20 + size / 10e6


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


def open_h5(path, what="result file"):
    """An HDF5 file opened for reading; InputError, naming the file, when it cannot be
    (no regular file: check_regular). Untrusted files are read in a child
    (read_guarded) by the callers."""
    check_regular(path, what)
    try:
        return h5py.File(path, "r")
    except OSError:
        raise InputError(f"{path}: not an HDF5 file") from None


# a dataset holds at most this many bytes of data per byte of file (deflate of runs of
# zeros), and never less than the floor: sizes a damaged file declares are checked
# before anything is read (sim/h5read.c)
EXPANSION, MIN_READ_BYTES = 1024, 64 << 20


def check_values(ds, path, limit):
    """A dataset's values in their domain: every figure futexsim writes, outside
    provenance/ (the --set values as given), is a count, an id, a time, a ratio, a share
    or a rate: no NaN, no infinity, nothing negative. InputError naming the dataset."""
    name = ds.name.lstrip("/")
    if ds.size * ds.dtype.itemsize > limit:
        raise InputError(f"{path}: dataset {name} declares {ds.size} elements, more than a file of this size can hold")
    if name.startswith("provenance/") or ds.dtype.kind not in "fi" or ds.size == 0:
        return
    v = ds[()]
    bad = ~np.isfinite(v) | (v < 0) if ds.dtype.kind == "f" else v < 0
    if np.any(bad):
        raise InputError(f"{path}: dataset {name} holds {np.asarray(v)[bad].flat[0]!r}, not a finite figure of 0 or more")


def check_objects(f, path):
    """Every object of the open file f in the file itself and every figure in its
    domain, as futexsim's reader checks (sim/h5read.c): every link a hard link (a soft or
    external link would show another group, or another file's, as this run's), no
    dataset with its data in external files or mapped from others (virtual), no value
    NaN, infinite or negative (check_values). InputError naming the first that is not."""
    seen = set()
    limit = max(MIN_READ_BYTES, EXPANSION * os.fstat(f.id.get_vfd_handle()).st_size)

    def walk(g, prefix):
        for name in g:  # a group's link names, none followed
            link = g.get(name, getlink=True)
            full = f"{prefix}/{name}"
            if isinstance(link, h5py.SoftLink):
                raise InputError(f"{path}: {full} is a soft link to {link.path}: a result file holds all its "
                                 "objects itself (hard links only)")
            if isinstance(link, h5py.ExternalLink):
                raise InputError(f"{path}: {full} is an external link to {link.filename}:{link.path}: a result "
                                 "file holds all its objects itself (hard links only)")
            if not isinstance(link, h5py.HardLink):
                raise InputError(f"{path}: {full} is a user-defined link: a result file holds all its objects "
                                 "itself (hard links only)")
            obj = g[name]
            if isinstance(obj, h5py.Dataset) and (obj.is_virtual or obj.external):
                raise InputError(f"{path}: dataset {full[1:]} keeps its data in other files: a result file "
                                 "holds all its data itself")
            if isinstance(obj, h5py.Dataset):
                check_values(obj, path, limit)
            if isinstance(obj, h5py.Group):
                info = h5py.h5o.get_info(obj.id)
                if (info.fileno, info.addr) not in seen:  # a group linked twice: walked once
                    seen.add((info.fileno, info.addr))
                    walk(obj, full)

    walk(f, "")


def check_totals(f, path):
    """The summary's total against the rows it sums, as the run computed it: total_ops
    is the threads' ops (another run's threads/ in the file, or a damaged total, is a
    file that contradicts itself). InputError otherwise."""
    total = f["summary/total_ops"][()]
    ops = f["threads/ops"][()]
    if np.ndim(total) != 0 or np.ndim(ops) != 1 or int(total) != sum(int(v) for v in ops):
        raise InputError(f"{path}: summary/total_ops is {total!r}, but the {np.size(ops)} threads' ops (threads/ops) "
                         f"sum to {sum(int(v) for v in np.ravel(ops))}: the file contradicts itself")


def open_result(path):
    """Opens a futexsim result file for reading (checked: check_objects, check_totals);
    InputError when it is not one, or not a sound one."""
    f = open_h5(path)
    try:
        if attr_text(f.attrs.get("format", ""), "attribute format of /") != RESULTS_FORMAT:
            raise InputError(f"{path}: not a futexsim result file (no format={RESULTS_FORMAT} attribute)")
        check_objects(f, path)
        check_totals(f, path)
    except BaseException:
        f.close()
        raise
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
    check_regular(path, "sweep table")
    if path.endswith(".csv"):
        try:
            with open(path, newline="", encoding="utf-8") as f:
                reader = csv.DictReader(f)
                rows = [{k: parse_value(v) if v != "" else "" for k, v in r.items()} for r in reader]
                columns = reader.fieldnames or []
        except OSError as e:
            raise InputError(f"{path}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not a table from analysis/collect (not UTF-8 text: byte 0x"
                             f"{e.object[e.start]:02x} at offset {e.start})") from None
        except csv.Error as e:  # a field longer than the csv module takes, a NUL, ...
            raise InputError(f"{path}: not a table from analysis/collect ({e})") from None
        if any(None in r or None in r.values() for r in rows):
            raise InputError(f"{path}: not a table from analysis/collect (a row of another length than the header)")
        # the CSV has no attributes: the parameters stand between the descriptive
        # columns and seed (analysis/collect's order)
        first = 1 + len(DESCRIPTIVE)
        if columns[:1] != ["file"] or "seed" not in columns[first:]:
            raise InputError(f"{path}: not a table from analysis/collect (no file and seed columns)")
        parameters = columns[first:columns.index("seed")]
        return columns, parameters, rows
    with open_h5(path, "sweep table") as f:
        if attr_text(f.attrs.get("format", ""), "attribute format of /") != SWEEP_FORMAT:
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
