#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Fuzzes the Python tools through their command lines (issue 38): byte flips and
truncations of the result files of every workload (tests/fuzz/results-corpus/) and of
a sweep table made from them, given to analysis/collect (a directory of mutants at a
time), analysis/plot run and analysis/plot sweep. Each must read or refuse its input:
exit 0 or 1 (collect: 0 with the bad files listed, or 1 when none is sound), with no
traceback on stderr and no hang (FUTEXSIM_READ_TIMEOUT cuts libhdf5's own loops). An
input that breaks that is kept in OUT (default build-fuzz/tools-artifacts/).

usage: tests/fuzz/fuzz_tools.py [--seconds N | --runs N] [--seed N] [--out DIR] [--no-plot]
--runs makes a deterministic run for make check; --seconds a time budget (make fuzz-tools).
Prints the inputs tried, the failures and the hangs per tool; exits 1 on a failure.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "results-corpus")
PY = sys.executable
# a read that the child's limit does not cut is a hang of the tool itself
LIMIT, HANG = "3", 120


def mutate(rng, data):
    b = bytearray(data)
    for _ in range(rng.choice([1, 2, 4, 16])):
        b[rng.randrange(len(b))] = rng.randrange(256)
    if rng.random() < 0.2:
        b = b[: rng.randrange(len(b))]
    return bytes(b)


def run(tool, args, env, stats, keep, out):
    """One command; a failure (traceback, unexpected status, hang) keeps `keep` in out."""
    stats.setdefault(tool, [0, 0, 0])[0] += 1
    try:
        p = subprocess.run([PY, os.path.join(ROOT, "analysis", tool)] + args, capture_output=True, env=env,
                           timeout=HANG, cwd=ROOT)
    except subprocess.TimeoutExpired:
        stats[tool][2] += 1
        why = "hang"
    else:
        err = p.stderr.decode(errors="replace")
        ok = p.returncode in (0, 1) and "Traceback" not in err
        if ok:
            return True
        stats[tool][1] += 1
        why = f"exit {p.returncode}:\n{err[-2000:]}"
    os.makedirs(out, exist_ok=True)
    for path in keep:
        shutil.copy(path, os.path.join(out, f"{tool.replace(' ', '-')}-{int(time.time() * 1000)}-"
                                            f"{os.path.basename(path)}"))
    print(f"fuzz_tools: {tool} {' '.join(args)}: {why}", file=sys.stderr)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--runs", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "build-fuzz", "tools-artifacts"))
    ap.add_argument("--no-plot", action="store_true", help="collect only (plot loads matplotlib: slow)")
    a = ap.parse_args()
    if (a.seconds is None) == (a.runs is None):
        ap.error("give --seconds or --runs")
    rng = random.Random(a.seed)
    seeds = [open(os.path.join(CORPUS, n), "rb").read() for n in sorted(os.listdir(CORPUS))]
    env = dict(os.environ, FUTEXSIM_READ_TIMEOUT=LIMIT)
    stats, failed, i = {}, 0, 0
    deadline = time.monotonic() + (a.seconds or 0)
    with tempfile.TemporaryDirectory(prefix="futexsim-fuzz-tools-") as tmp:
        # a sound table to mutate: collect of the corpus itself
        sound = os.path.join(tmp, "sound")
        shutil.copytree(CORPUS, sound)
        subprocess.run([PY, os.path.join(ROOT, "analysis", "collect"), sound], capture_output=True, check=True)
        table = open(os.path.join(sound, "sweep.csv"), "rb").read()
        while (a.runs is not None and i < a.runs) or (a.seconds is not None and time.monotonic() < deadline):
            i += 1
            d = os.path.join(tmp, f"r{i}")
            os.makedirs(d)
            files = []
            for k in range(8):
                files.append(os.path.join(d, f"m{k}.h5"))
                with open(files[-1], "wb") as f:
                    f.write(mutate(rng, rng.choice(seeds)))
            failed += not run("collect", [d, "-o", os.path.join(d, "t")], env, stats, files, a.out)
            if not a.no_plot:
                failed += not run("plot", ["run", files[0], "-o", os.path.join(d, "p")], env, stats, files[:1], a.out)
                cut = os.path.join(d, "t.csv")
                with open(cut, "wb") as f:
                    f.write(mutate(rng, table))
                failed += not run("plot", ["sweep", cut, "-o", os.path.join(d, "s.png")], env, stats, [cut], a.out)
            shutil.rmtree(d)
    for tool, (tried, bad, hangs) in sorted(stats.items()):
        print(f"fuzz_tools: {tool}: {tried} inputs tried, {bad} failures, {hangs} hangs")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
