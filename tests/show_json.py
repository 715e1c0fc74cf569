#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks `futexsim show --json` and `show --csv` over several result files against
`futexsim show`'s text for each file: every figure the summary prints must be in the
JSON with the same value (as the text rounds it), and the CSV row must agree.

usage: tests/show_json.py FUTEXSIM FILE.h5...   (prints OK, or what differs; exit 1)
Run by tests/check_h5.c.
"""
import csv
import io
import json
import re
import subprocess
import sys

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: text says {want!r}, JSON/CSV gives {got!r}")


def value_text(v, units):
    """sim/results.c print_value"""
    if units == "ps":
        if v >= 1e9:
            return "%.3f ms" % (v / 1e9)
        if v >= 1e6:
            return "%.3f us" % (v / 1e6)
        return "%.1f ns" % (v / 1e3)
    if units == "count":
        return "%.0f" % v
    return "%.4g" % v


def run(args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout


def compare(f, o, text):
    lines = text.splitlines()
    m = re.search(r"^# futexsim (\S+): scenario (\S+), machine (\S+), kernel (\S+), seed (\d+)$", text, re.M)
    check(f + " header", (o["futexsim_version"], o["scenario"], o["machine"], o["kernel"], o["seed"]),
          (m[1], m[2], m[3], m[4], int(m[5])))
    m = re.search(r"^Averaged (\d+) operations/sec \(\+- ([0-9.]+)%\), total secs = (\S+)$", text, re.M)
    check(f + " Averaged", (o["ops_per_sec"], "%.2f" % o["stderr_pct"], "%.6g" % o["window_s"]),
          (int(m[1]), m[2], m[3]))
    m = re.search(r"^futexsim: (\S+) ms warm-up, (\S+) ms measured \(simulated time(; the run was interrupted)?\)$",
                  text, re.M)
    check(f + " window", ("%.6g" % (o["warmup_s"] * 1e3), "%.6g" % (o["window_s"] * 1e3), o["complete"]),
          (m[1], m[2], m[3] is None))
    m = re.search(r"^  total ops +(\d+)$", text, re.M)
    check(f + " total ops", o["total_ops"], int(m[1]))
    m = re.search(r"^  line transfers +(\d+) within SMT core, (\d+) within node, (\d+) across nodes "
                  r"\(([0-9.]+) per op\)$", text, re.M)
    check(f + " transfers", (o["transfers_smt"], o["transfers_node"], o["transfers_remote"],
                             "%.3f" % o["transfers_per_op"]), (int(m[1]), int(m[2]), int(m[3]), m[4]))
    m = re.search(r"^  DRAM fills +(\d+)$", text, re.M)
    check(f + " DRAM fills", o["dram_fills"], int(m[1]))
    b = o["blocking"]
    m = re.search(r"^  blocking +(\d+) futex calls, (\d+) wake-ups, (\d+) chain entries walked, (\d+) requeued; "
                  r"([0-9.]+)% of thread time asleep; (\d+) context switches$", text, re.M)
    got = (b["futex_calls"], b["wakeups"], b["chain_walked"], b["requeued"], "%.1f" % b["asleep_pct"],
           b["context_switches"])
    check(f + " blocking", got, (int(m[1]), int(m[2]), int(m[3]), int(m[4]), m[5], int(m[6])) if m
          else (0, 0, 0, 0, "0.0", 0))
    want = {}
    if "  %s figures:" % o["workload"] in lines:
        for line in lines[lines.index("  %s figures:" % o["workload"]) + 1:]:
            m = re.match(r"^    (\S+) +(\S.*)$", line)
            if not m or re.match(r"^ +\d+\. ", line):
                break
            want[m[1]] = m[2]
    check(f + " figures", {k: value_text(v["value"], v["units"]) for k, v in o["figures"].items()}, want)
    want = [(int(m[1]), int(m[2]), int(m[3]), "%.3f" % float(m[4]), m[5]) for m in
            re.finditer(r"^  resize +\d+ +process (\d+) private hash (\d+) -> (\d+) buckets at ([0-9.]+) ms, "
                        r"(in use [0-9.]+ ms later|not published by the end)$", text, re.M)]
    got = [(z["process"], z["from_buckets"], z["to_buckets"], "%.3f" % (z["start_s"] * 1e3),
            "not published by the end" if z["in_use_after_s"] is None else "in use %.3f ms later" %
            (z["in_use_after_s"] * 1e3)) for z in o["resizes"]]
    check(f + " resizes", got, want)
    want = [(int(m[1]), int(m[2]), int(m[3]), int(m[4]), m[5]) for m in
            re.finditer(r"^    +\d+\. +(\d+) \((\d+)/(\d+)/(\d+)\)  (.*)$", text, re.M)]
    got = [(h["transfers"], h["smt"], h["node"], h["remote"], h["what"]) for h in o["hottest_lines"]]
    check(f + " hottest lines", got, want)
    want = [(m[1], int(m[2]), int(m[3]), int(m[4]), m[5], int(m[6])) for m in
            re.finditer(r"^    +\d+\. +([0-9.]+) +(\d+) +(\d+) +(\d+)  (.*) bucket (\d+)$", text, re.M)]
    got = [("%.3f" % (k["lock_wait_ps"] / 1e6), k["acquisitions"], k["contended"], k["futexes"], k["table"],
            k["bucket"]) for k in o["hottest_buckets"]]
    check(f + " hottest buckets", got, want)
    if not o["hottest_lines"] or not o["per_thread"] or (o["workload"] != "hash-bench" and not o["figures"]):
        failures.append(f + ": the test needs files with hottest lines, threads and (blocking) figures")


def main():
    futexsim, files = sys.argv[1], sys.argv[2:]
    objs = json.loads(run([futexsim, "show", "--json"] + files))
    check("objects", [o["file"] for o in objs], files)
    rows = list(csv.DictReader(io.StringIO(run([futexsim, "show", "--csv"] + files))))
    check("CSV rows", [r["file"] for r in rows], files)
    for f, o, row in zip(files, objs, rows):
        compare(f, o, run([futexsim, "show", f]))
        for k in ("ops_per_sec", "total_ops", "dram_fills", "threads", "events", "simulated_ops"):
            check(f + " CSV " + k, row[k], str(o[k]))
        check(f + " CSV blocking", row["blocking_futex_calls"], str(o["blocking"]["futex_calls"]))
        check(f + " CSV resizes", row["resizes"], str(len(o["resizes"])))
        check(f + " CSV complete", row["complete"], "1" if o["complete"] else "0")
        for name, fig in o["figures"].items():
            check(f + " CSV " + name, float(row[name]), float("%.12g" % fig["value"]))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("OK %d files" % len(files))


main()
