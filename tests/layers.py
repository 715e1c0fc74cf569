#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""layers.py [--objects BUILD] [ROOT]: the layers of docs/architecture.md, checked on the
sources and on the compiled objects, so that neither an include nor a symbol can cross them.

Layers, lowest first: the substrate (sim/core/), the models (models/ and every folder below
it), the program (sim/, less sim/core/). A layer depends only on the layers below it.

On the sources (every .c and .h of sim/core/ and models/, at any depth):
  - each quoted #include, its path normalised ("sim/core/../results.h" is "sim/results.h"),
    names a header of the same layer or one below;
  - an #include of a macro (a computed include, which this check cannot follow) is refused;
  - HDF5's headers only in the program.
On the objects (BUILD/sim/core, BUILD/models, BUILD/sim; `nm`), which is what the linker
sees, so that an `extern` declaration instead of an include is caught too:
  - an undefined symbol of a layer's object is not defined by an object of a layer above;
  - no HDF5 symbol (H5*) is used below the program;
  - the models' documented order (MODEL_ORDER, docs/architecture.md): a model object uses
    symbols of its own group or of groups before it only;
  - the program's documented order (PROGRAM_ORDER) likewise, so that no circle runs through
    the program's modules (the run builds on the estimate, the results on the run);
  - the views (sim/views/) read struct results only: of the program they use the results' and
    the helpers' symbols, of the models their name tables (data) only, never a function.
On the sources of sim/views/ too: of the program's headers they include only the results'
(VIEW_HEADERS) and each other's, so the run's state (sim/sim.h) is out of their reach.
Prints FILE:LINE (or OBJECT) and what crosses; exits 1 on any. `--self-test` plants each
violation (and the bypasses an include check alone misses) in a scratch tree, compiling
objects with cc, and expects every one caught and the clean tree passed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The models' order (docs/architecture.md), lowest first: a group may use what the groups
# before it define, and its own members; each name is an object's stem under models/ (a
# trailing * matches a prefix; a folder matches its files).
MODEL_ORDER = [
    ("machine", ["machine"]),
    ("scheduler", ["sched/"]),
    ("coherence", ["dircache", "coherence", "memmap"]),
    ("locks", ["spinlock", "rtlock", "rwsem"]),
    ("keys and paths", ["hashfn", "futex_step", "futex_path", "refcount"]),
    ("kernel designs", ["kernel"]),
    ("tables", ["futex_table"]),
    ("tasks", ["task", "task_cpu", "task_lock", "futex_queue"]),
    ("workloads", ["procset", "usync", "distribution", "workload", "workloads/"]),
]

# The program's order (docs/architecture.md), lowest first, as MODEL_ORDER: names are stems
# under sim/ (a folder matches its files). The estimate is below the run (sim_build refuses a
# scenario by it), the results above it (they gather from a finished run), the views and the
# result file above the results, the commands on top.
PROGRAM_ORDER = [
    ("helpers", ["cliopt", "perfstat", "band", "runcache", "runpool"]),
    ("scenario", ["scenario"]),
    ("time series", ["timeseries"]),
    ("estimate", ["estimate"]),
    ("run", ["sim"]),
    ("results", ["results"]),
    ("views and files", ["views/", "h5common", "h5out", "h5read", "compare", "tracesum"]),
    ("commands", ["perfbench", "fit", "record", "probe/", "cmd/", "main"]),
]

# The program's headers a view may include (besides sim/views/ and every header of the
# models and the substrate): the results and what their struct holds.
VIEW_HEADERS = {"sim/results.h", "sim/result_rows.h", "sim/band.h", "sim/perfstat.h"}
# The program's objects whose symbols a view may use: the results, the views, the helpers.
VIEW_USES = ("results", "views/", "cliopt", "perfstat", "band", "runpool")


def is_view(rel):
    return rel.replace(os.sep, "/").startswith("sim/views/")


ORDER_NAME = {"models": "the models' order", "program": "the program's order"}

INCLUDE = re.compile(r'^\s*#\s*include\s*(.*)$')


def layer_of(rel):
    """'substrate', 'models', 'program' or None for a path relative to the root."""
    rel = rel.replace(os.sep, "/")
    if rel.startswith("sim/core/"):
        return "substrate"
    if rel.startswith("models/"):
        return "models"
    if rel.startswith("sim/"):
        return "program"
    return None


RANK = {"substrate": 0, "models": 1, "program": 2}


def sources(root, top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, f), root)


def check_sources(root):
    bad, n = [], 0
    for rel in list(sources(root, "sim/core")) + list(sources(root, "models")) + list(sources(root, "sim/views")):
        layer = layer_of(rel)
        n += 1
        with open(os.path.join(root, rel), errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                what = m.group(1).strip()
                if what.startswith("<"):
                    if what.startswith("<hdf5") or what.startswith("<H5"):
                        bad.append(f"{rel}:{lineno}: includes HDF5: only the program (sim/) writes and reads result files")
                    continue
                if not what.startswith('"'):
                    bad.append(f"{rel}:{lineno}: includes a macro ({what}): the {layer} layer's includes must be "
                               "quoted paths this check can follow")
                    continue
                inc = os.path.normpath(what.strip('"')).replace(os.sep, "/")
                target = layer_of(inc)
                if is_view(rel) and target == "program" and inc not in VIEW_HEADERS and not is_view(inc):
                    bad.append(f'{rel}:{lineno}: includes "{inc}": a view reads struct results only (of the '
                               "program's headers sim/results.h and what it holds, and the views')")
                elif target is None or RANK[target] > RANK[layer]:
                    bad.append(f'{rel}:{lineno}: includes "{what.strip(chr(34))}" ({inc}): the {layer} layer may '
                               f"include only its own headers and those below it")
    return bad, n


def nm(path, defined):
    """The undefined symbols of an object, or its defined ones as (symbol, nm type)."""
    args = ["nm", "--defined-only", "-g", path] if defined else ["nm", "-u", path]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if defined and len(parts) == 3:
            syms.append((parts[2], parts[1]))
        elif not defined and len(parts) == 2 and parts[0] in ("U", "w", "v"):
            syms.append(parts[1])
    return syms


def objects(build, root):
    """The objects of the three layers whose source is in the tree (a build directory
    may keep the object of a file since moved or deleted)."""
    for d, _, files in os.walk(build):
        for f in sorted(files):
            if f.endswith(".o"):
                rel = os.path.relpath(os.path.join(d, f), build).replace(os.sep, "/")
                if layer_of(rel) and os.path.exists(os.path.join(root, rel[:-2] + ".c")):
                    yield rel


def group_of(rel):
    """(the order, the rank of the object's group in it), or (the order, None) when the
    object is in no group; (None, None) for the substrate."""
    layer = layer_of(rel)
    if layer == "substrate":
        return None, None
    order, stem = (MODEL_ORDER, rel[len("models/"):-2]) if layer == "models" else (PROGRAM_ORDER, rel[len("sim/"):-2])
    for rank, (_, members) in enumerate(order):
        for m in members:
            if (m.endswith("/") and stem.startswith(m)) or stem == m:
                return order, rank
    return order, None


def check_objects(build, root):
    objs = list(objects(build, root))
    where, kind = {}, {}
    for o in objs:
        for s, t in nm(os.path.join(build, o), True):
            where.setdefault(s, o)
            kind.setdefault(s, t)
    bad = []
    for o in objs:
        layer = layer_of(o)
        order, group = group_of(o)
        if order is not None and group is None:
            bad.append(f"{o}: a {layer} object in no group of {ORDER_NAME[layer]} (tests/layers.py "
                       f"{'MODEL_ORDER' if layer == 'models' else 'PROGRAM_ORDER'}, docs/architecture.md)")
        for s in nm(os.path.join(build, o), False):
            if s.startswith("H5") and layer != "program":
                bad.append(f"{o}: uses {s} (HDF5): only the program writes and reads result files")
                continue
            d = where.get(s)
            if d is None or d == o:
                continue
            if RANK[layer_of(d)] > RANK[layer]:
                bad.append(f"{o}: uses {s}, defined by {d}: the {layer} layer may not use the {layer_of(d)}'s symbols")
            elif is_view(o) and layer_of(d) == "models" and kind[s] not in ("D", "R"):
                bad.append(f"{o}: uses {s}, defined by {d}: a view reads struct results only (of the models "
                           "their name tables, not their functions)")
            elif (is_view(o) and layer_of(d) == "program"
                  and not any(d[len("sim/"):-2] == u or (u.endswith("/") and d[len("sim/"):].startswith(u))
                              for u in VIEW_USES)):
                bad.append(f"{o}: uses {s}, defined by {d}: a view reads struct results only (of the program "
                           "the results', the views' and the helpers' symbols)")
            elif layer_of(d) == layer and group is not None:
                g = group_of(d)[1]
                if g is not None and g > group:
                    bad.append(f"{o}: uses {s}, defined by {d}: {order[group][0]} comes before "
                               f"{order[g][0]} in {ORDER_NAME[layer]}")
    return bad, len(objs)


def run(root, build):
    bad, n = check_sources(root)
    nobj = 0
    if build:
        if not os.path.isdir(build):
            print(f"layers: no objects under {build}: build first")
            return 1
        b, nobj = check_objects(build, root)
        bad += b
    for line in bad:
        print(line)
    if n == 0:
        print(f"layers: no source files under {root}/sim/core or {root}/models")
        return 1
    print(f"layers: {n} source files and {nobj} objects of the three layers checked, {len(bad)} violations")
    return 1 if bad else 0


def self_test():
    cc = os.environ.get("CC", "cc")
    tmp = tempfile.mkdtemp(prefix="layers-")
    try:
        def write(rel, text):
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(text)

        def build():
            shutil.rmtree(os.path.join(tmp, "build"), ignore_errors=True)
            for top in ("sim", "models"):
                for rel in sources(tmp, top):
                    if rel.endswith(".c"):
                        out = os.path.join(tmp, "build", rel[:-2] + ".o")
                        os.makedirs(os.path.dirname(out), exist_ok=True)
                        # a file that does not compile (a missing HDF5 header) has no object:
                        # the source check is what catches it
                        subprocess.run([cc, "-c", "-I", tmp, os.path.join(tmp, rel), "-o", out], capture_output=True)

        def passes():
            build()
            with open(os.devnull, "w") as null:
                old = sys.stdout
                sys.stdout = null
                try:
                    return run(tmp, os.path.join(tmp, "build")) == 0
                finally:
                    sys.stdout = old

        clean = {
            "sim/core/error.h": "int core_fn(void);\n",
            "sim/core/error.c": '#include "sim/core/error.h"\n#include <stdio.h>\nint core_fn(void) { return 1; }\n',
            "models/machine.h": '#include "sim/core/error.h"\nint machine_fn(void);\n',
            "models/machine.c": '#include "models/machine.h"\nint machine_fn(void) { return core_fn(); }\n',
            "models/task.h": "int task_fn(void);\n",
            "models/task.c": '#include "models/task.h"\n#include "models/machine.h"\nint task_fn(void) { return machine_fn(); }\n'
                             'const char *const task_names[] = { "t", 0 };\n',
            "sim/results.h": "extern int results_count;\nint results_fn(void);\n",
            "sim/results.c": '#include "sim/results.h"\n#include "models/task.h"\nint results_count;\n'
                             "extern int sim_fn(void);\nint results_fn(void) { return task_fn() + sim_fn(); }\n",
            "sim/sim.c": "extern int estimate_fn(void);\nint sim_fn(void) { return estimate_fn(); }\n",
            "sim/estimate.c": "int estimate_fn(void) { return 0; }\n",
            "sim/views/text.c": '#include "sim/results.h"\n#include "models/task.h"\nextern const char *const task_names[];\n'
                                "int text_fn(void) { return results_fn() + (task_names[0] != 0); }\n",
        }
        for rel, text in clean.items():
            write(rel, text)
        if not passes():
            print("layers self-test: a clean tree failed")
            return 1
        cases = [
            ("sim/core/up.c", '#include "models/task.h"\n', "the substrate includes a model"),
            ("models/up.c", '#include "sim/results.h"\n', "a model includes the program"),
            ("models/up.h", '#include "sim/results.h"\n', "a model's header includes the program"),
            ("models/h5.c", "#include <hdf5.h>\n", "a model includes HDF5"),
            ("sim/core/up.h", '  #  include "sim/results.h"\n', "spaced include"),
            ("models/dots.c", '#include "sim/core/../results.h"\n', "an include through .."),
            ("models/macro.c", '#define H "sim/results.h"\n#include H\n', "an include through a macro"),
            ("models/sub/deep.c", '#include "sim/results.h"\n', "a file in a subfolder of models/"),
            ("models/ext.c", "extern int results_count;\nint ext_fn(void) { return results_count; }\n",
             "an extern declaration of a program symbol"),
            ("models/h5sym.c", "extern int H5Fopen(void);\nint h5_fn(void) { return H5Fopen(); }\n",
             "an HDF5 symbol in a model"),
            ("sim/core/ext.c", "extern int machine_fn(void);\nint ext2_fn(void) { return machine_fn(); }\n",
             "the substrate calls a model"),
            ("models/machine2.c", "extern int task_fn(void);\nint machine_fn2(void) { return task_fn(); }\n",
             "an object of a group in no order"),
            ("sim/stray.c", "int stray_fn(void) { return 0; }\n", "a program object in no group of its order"),
            ("sim/views/run.c", '#include "sim/sim.h"\n', "a view including the run's state"),
            ("sim/views/up.c", "extern int sim_fn(void);\nint view_up_fn(void) { return sim_fn(); }\n",
             "a view using the run's symbols"),
            ("sim/views/model.c", "extern int task_fn(void);\nint view_model_fn(void) { return task_fn(); }\n",
             "a view calling a model's function"),
        ]
        failed = 0
        for rel, text, what in cases:
            write(rel, text)
            try:
                caught = not passes()
            except subprocess.CalledProcessError as err:
                print(f"layers self-test: {what}: cc failed: {err.stderr.decode(errors='replace')}")
                caught = False
            os.remove(os.path.join(tmp, rel))
            if not caught:
                print(f"layers self-test: {what} ({rel}) was not caught")
                failed = 1
        # against the orders, in files of the clean tree: each caught, then the file restored
        against = [
            ("models/machine.c", '#include "models/machine.h"\nextern int task_fn(void);\n'
                                 "int machine_fn(void) { return core_fn(); }\nint up_fn(void) { return task_fn(); }\n",
             "machine using a task symbol (against the models' order)"),
            ("sim/estimate.c", "extern int results_fn(void);\nint estimate_fn(void) { return results_fn(); }\n",
             "the estimate using the results (the circle run -> estimate -> results -> run)"),
        ]
        for rel, text, what in against:
            write(rel, text)
            if passes():
                print(f"layers self-test: {what} was not caught")
                failed = 1
            write(rel, clean[rel])
        if not failed:
            print(f"layers self-test: {len(cases) + len(against)} violations caught, the clean tree passes")
        return failed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    build = None
    args = argv[1:]
    if args[:1] == ["--objects"]:
        if len(args) < 2:
            print("usage: layers.py [--objects BUILD] [ROOT] | --self-test")
            return 2
        build = args[1]
        args = args[2:]
    return run(args[0] if args else ".", build)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
