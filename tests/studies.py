#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The studies of scenarios/studies/ (docs/studies.md), tested two ways:

1. Each verdict function (analysis/studies.py) on hand-made runs whose answer is known:
   the figures it reports are the ones computed by hand here.
2. Each study's script end to end at its smallest grid (STUDY_TEST=1): it writes a
   verdict and a PNG figure, the verdict's figures are those of its own result files
   (recomputed here from the HDF5 files with h5py, not from printed text), and
   swapping two result files changes them accordingly.

usage: tests/studies.py [--unit]   (--unit: the hand-made cases only)
Environment: FUTEXSIM (the binary), PYTHON (the interpreter for the scripts).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "analysis"))

import h5py  # noqa: E402

import studies  # noqa: E402


def run(part="p", ops=1e6, params=None, threads=28, ns=None, workload=None, resizes=None, tables=None,
        bucket_bytes=64):
    return {"part": part, "name": "r", "params": dict(params or {}), "ops_per_sec": ops, "threads": threads,
            "total_ops": 1000, "window_s": 1e-3, "ns_per_op": dict(ns or {}), "workload": dict(workload or {}),
            "resizes": list(resizes or []), "tables": list(tables or [("private hash of process 0", 16)]),
            "bucket_bytes": bucket_bytes}


class Verdicts(unittest.TestCase):
    def test_lines(self):
        rs = []
        for part, kernel, nbytes, ops in (("read", "linux-6.18", 64, 1.0e6), ("read", "bucket-split-2026", 128, 1.1e6),
                                          ("removed", "linux-6.18", 64, 1.25e6),
                                          ("removed", "bucket-split-2026", 128, 1.2e6)):
            p = {"kernel": kernel, "kernel.private_hash.buckets": "16"}
            if part == "removed":
                p["kernel.layout.bucket.fields.priv"] = "none"
            rs.append(run(part, ops, p, bucket_bytes=nbytes))
        line, fig = studies.verdict_lines(rs)
        rel, mem = fig["relative_pct"], fig["memory_ratio"]
        self.assertAlmostEqual(rel["2 lines, hb->priv read"]["16/28"], 10.0)
        self.assertAlmostEqual(rel["1 line, no hb->priv"]["16/28"], 25.0)
        self.assertAlmostEqual(rel["2 lines, no hb->priv"]["16/28"], 20.0)
        self.assertEqual(mem["2 lines, no hb->priv"]["16/28"], 2.0)
        self.assertEqual(mem["1 line, no hb->priv"]["16/28"], 1.0)
        self.assertIn("+25.0%", line)

    def test_aslr(self):
        rs = []
        # 16 buckets: ASLR spreads 20% (0.9..1.1 around 1.0), fixed 2%; 1024: both 1%
        for part, b, vals in (("aslr", 16, (0.9, 1.0, 1.1)), ("fixed", 16, (0.99, 1.0, 1.01)),
                              ("aslr", 1024, (0.995, 1.0, 1.005)), ("fixed", 1024, (0.995, 1.0, 1.005))):
            for seed, v in enumerate(vals, 1):
                rs.append(run(part, v * 1e6, {"workload.futexes": "1", "kernel.private_hash.buckets": str(b),
                                              "run.seed": str(seed)}))
        line, fig = studies.verdict_aslr(rs)
        self.assertAlmostEqual(fig["spread_pct"]["1/16"]["aslr"], 20.0)
        self.assertAlmostEqual(fig["spread_pct"]["1/16"]["fixed"], 2.0)
        self.assertEqual(fig["stops_mattering_at"]["1"], 1024)
        self.assertEqual(fig["seeds"], 3)
        self.assertIn("stops mattering at 1024", line)

    def test_chain(self):
        rs = [run("mutex", params={"kernel.private_hash.buckets": "16"}, ns={"lock": 100.0, "chain": 10.0}),
              run("schbench", params={"kernel.private_hash.buckets": "16"}, ns={"lock": 10.0, "chain": 30.0})]
        line, fig = studies.verdict_chain(rs)
        self.assertTrue(fig["mutex_lock_dominates"])
        self.assertFalse(fig["schbench_lock_dominates"])
        self.assertIn("schbench: the bucket lock dominates at 0 of 1 points", line)

    def test_resize(self):
        ms = 1e-3
        rs = [run("hash", params={"kernel": "linux-6.17", "workload.create_interval": "50us"}, threads=8,
                  resizes=[{"start_s": 0.15 * ms, "delay_s": 4.0 * ms, "from": 16, "to": 32},
                           {"start_s": 0.35 * ms, "delay_s": 3.8 * ms, "from": 32, "to": 64}]),
              run("mutex", params={"kernel": "linux-6.17", "workload.create_interval": "50us"}, threads=28,
                  resizes=[{"start_s": 0.15 * ms, "delay_s": None, "from": 16, "to": 32}])]
        line, fig = studies.verdict_resize(rs)
        self.assertEqual((fig["published"], fig["resizes"]), (2, 3))
        self.assertAlmostEqual(fig["delay_ms_median"], 3.9)
        self.assertEqual([p["threads_then"] for p in fig["points"]], [4, 8, 4])
        self.assertIn("hash 8 threads: 2/2 in 3.8-4.0 ms", line)
        self.assertIn("1 never took effect", line)

    def test_schbench_names_the_counter(self):
        # a disagreeing loss (70%) names the counter: 300 requests/s x 2.5 calls x 2
        # atomics = 1500 a second, 666,667 ns each; the report's 2,297,856 x 2 x 2: 108.8 ns
        g = [("global hash", 0)]
        p = [("private hash of process 0", 128)]
        rs = [run("schbench", workload={"rps": 1000.0, "futex_calls_per_request": 2.0},
                  params={"kernel": "linux-6.15"}, tables=g),
              run("schbench", workload={"rps": 300.0, "futex_calls_per_request": 2.5},
                  params={"kernel": "linux-6.16-dev", "kernel.private_hash.refcount": "rcuref"}, tables=p)]
        line, fig = studies.verdict_schbench(rs)
        self.assertFalse(fig["agrees"])
        self.assertAlmostEqual(fig["rcuref_ns_per_counter_atomic"], 1e9 / 1500.0)
        self.assertAlmostEqual(fig["reported_ns_per_counter_atomic"], 1e9 / (4 * 2297856.0))
        self.assertIn("2 atomics x 2.5 futex calls per request one at a time, 666667 ns each", line)
        self.assertIn("at most 109 ns", line)

    def test_schbench(self):
        g = [("global hash", 0)]
        p = [("private hash of process 0", 128)]
        rs = [run("schbench", workload={"rps": 1000.0}, params={"kernel": "linux-6.15"}, tables=g),
              run("schbench", workload={"rps": 680.0}, params={"kernel": "linux-6.16-dev",
                                                               "kernel.private_hash.refcount": "rcuref"}, tables=p),
              run("hash", 2e6, {"kernel": "linux-6.15"}, tables=g),
              run("hash", 0.2e6, {"kernel": "linux-6.16-dev", "kernel.private_hash.refcount": "rcuref"}, tables=p)]
        line, fig = studies.verdict_schbench(rs)
        self.assertNotIn("rcuref_vs_immutable_1024_loss_pct", fig)
        # the 1024-bucket pair: 600 against 1000 requests/s, 40% lost, 2.7 points from the reported 37.3%
        for rc, rps in (("rcuref", 600.0), ("none", 1000.0)):
            rs.append(run("schbench", workload={"rps": rps}, tables=p,
                          params={"kernel": "linux-6.16-dev", "kernel.private_hash.refcount": rc,
                                  "kernel.private_hash.buckets": "1024"}))
        line, fig = studies.verdict_schbench(rs)
        self.assertAlmostEqual(fig["rcuref_vs_immutable_1024_loss_pct"], 40.0)
        self.assertTrue(fig["agrees_1024"])
        self.assertIn("at 1024 buckets rcuref loses 40% against immutable (reported 37%): agrees", line)
        self.assertAlmostEqual(fig["rcuref_schbench_loss_pct"], 32.0)
        self.assertAlmostEqual(fig["rcuref_hash_loss_pct"], 90.0)
        self.assertTrue(fig["agrees"])
        self.assertEqual(list(fig["relative_pct"]["schbench"]),
                         ["linux-6.15 (global hash)", "linux-6.16-dev (rcuref)", "linux-6.16-dev (rcuref, 1024 buckets)",
                          "linux-6.16-dev (immutable, 1024 buckets)"])


    def test_nodediv(self):
        rs = []
        for machine, nodes in (("two", 2), ("four", 4)):
            for sel, ops in (("hash", 1.0e6), ("mulshift", 1.03e6)):
                r = run("global", ops, {"machine": machine, "kernel.global_hash.node_select": sel},
                        tables=[(f"global hash node {i}", 4096) for i in range(nodes)])
                # 1000 futexes: evenly over two nodes; 300/250/250/200 over four
                r["table_futexes"] = [500, 500] if nodes == 2 else [300, 250, 250, 200]
                rs.append(r)
        line, fig = studies.verdict_nodediv(rs)
        self.assertEqual([p["nodes"] for p in fig["points"]], [2, 4])
        self.assertAlmostEqual(fig["points"][0]["gain_pct"], 3.0)
        self.assertAlmostEqual(fig["points"][1]["imbalance_div_pct"], 20.0)  # 300 x 4 / 1000 - 1
        self.assertIn("2 nodes +3.0%, 4 nodes +3.0%", line)
        self.assertIn("within 20.0% of even", line)


    def test_placement(self):
        rs = []
        # E5: one socket 1.0M, spread 0.8M (seeds 0.78M and 0.82M) at 16 buckets, equal at 1024
        for buckets, one, spread in (("16", [1.0e6], [0.78e6, 0.82e6]), ("1024", [2.0e6], [2.0e6])):
            for nodes, opss in ((1, one), (2, spread)):
                for ops in opss:
                    r = run("placement", ops, {"machine": "e5", "workload.threads": "8",
                                               "kernel.private_hash.buckets": buckets})
                    r["nodes_used"] = nodes
                    rs.append(r)
        # a size run only on one socket: no point
        r = run("placement", 1e6, {"machine": "e5", "workload.threads": "8", "kernel.private_hash.buckets": "64"})
        r["nodes_used"] = 1
        rs.append(r)
        line, fig = studies.verdict_placement(rs)
        self.assertEqual([(p["buckets"], p["nodes"]) for p in fig["points"]], [(16, 2), (1024, 2)])
        self.assertAlmostEqual(fig["points"][0]["change_pct"], -20.0)
        self.assertAlmostEqual(fig["points"][1]["change_pct"], 0.0)
        self.assertIn("e5 (8 threads over 2 sockets) -20.0% with the 16 buckets, +0.0% with the 1024 buckets", line)
        with self.assertRaises(studies.InputError):
            studies.verdict_placement([r])


class BadInput(unittest.TestCase):
    def test_missing_result_file(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "aslr"))
            with open(os.path.join(d, "aslr", "runs.tsv"), "w") as f:
                f.write("# scenario\tx.yaml\nname\trun.seed\n0001_seed-1\t1\n")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "analysis/study"), "aslr", d],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1)
            self.assertIn("0001_seed-1.h5: no such result file", p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "verdict.json")))

    def test_unknown_study(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "analysis/study"), "no-such", "."],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("studies: schbench-vs-hash, aslr", p.stderr)


def ops_of(path):
    with h5py.File(path, "r") as f:
        return float(f["summary/ops_per_sec"][()])


class EndToEnd(unittest.TestCase):
    """Every study's script at STUDY_TEST=1 in a temporary results root."""

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="futexsim-studies.")
        cls.env = dict(os.environ, STUDY_TEST="1", STUDIES_OUT=cls.out, J="2")
        cls.env.setdefault("PYTHON", sys.executable)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def study(self, name):
        p = subprocess.run([os.path.join(ROOT, "scenarios/studies", name, "run")], env=self.env,
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(p.stdout.startswith(name), p.stdout)
        d = os.path.join(self.out, name)
        with open(os.path.join(d, "verdict.json")) as f:
            doc = json.load(f)
        self.assertIn(doc["verdict"], p.stdout)
        with open(os.path.join(d, name + ".png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        return d, doc

    def reanalyse(self, name, d):
        p = subprocess.run([self.env["PYTHON"], os.path.join(ROOT, "analysis/study"), name, d], env=self.env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(d, "verdict.json")) as f:
            return json.load(f)

    def test_bucket_lines(self):
        d, doc = self.study("bucket-lines")
        h5 = os.path.join(d, "read", "h5")
        files = sorted(os.listdir(h5))  # kernel slowest: linux-6.18 first, then bucket-split-2026
        self.assertEqual(len(files), 4)
        base, split = ops_of(os.path.join(h5, files[1])), ops_of(os.path.join(h5, files[3]))  # 16 buckets
        rel = doc["figures"]["relative_pct"]["2 lines, hb->priv read"]["16/8"]
        self.assertAlmostEqual(rel, 100.0 * (split / base - 1.0), places=6)
        # double the split run's throughput in its file: the verdict must follow the file
        with h5py.File(os.path.join(h5, files[3]), "r+") as f:
            f["summary/ops_per_sec"][()] = 2 * f["summary/ops_per_sec"][()]
        changed = self.reanalyse("bucket-lines", d)["figures"]["relative_pct"]["2 lines, hb->priv read"]["16/8"]
        self.assertAlmostEqual(changed, 100.0 * (2 * split / base - 1.0), delta=1e-6 * 100)

    def test_aslr(self):
        d, doc = self.study("aslr")
        runs = {}
        for part in ("aslr", "fixed"):
            for fn in sorted(os.listdir(os.path.join(d, part, "h5"))):
                runs.setdefault(part, []).append(ops_of(os.path.join(d, part, "h5", fn)))
        # the test grid: 1 futex per thread, 16 and 1024 buckets, seeds 1 and 2 (seed fastest)
        for part, ops in runs.items():
            for i, b in enumerate((16, 1024)):
                pair = ops[2 * i:2 * i + 2]
                want = 100.0 * (max(pair) - min(pair)) / (sum(pair) / 2)
                self.assertAlmostEqual(doc["figures"]["spread_pct"][f"1/{b}"][part], want, places=6)

    def test_chain(self):
        d, doc = self.study("chain-vs-lock")
        with h5py.File(os.path.join(d, "mutex", "h5", os.listdir(os.path.join(d, "mutex", "h5"))[0]), "r") as f:
            classes = [c.decode() if isinstance(c, bytes) else c for c in f["threads/time"].attrs["classes"]]
            t = f["threads/time"][()].sum(axis=0)
            ops = int(f["summary/total_ops"][()])
        want = t[classes.index("lock")] / 1000.0 / ops
        got = [p for p in doc["figures"]["points"] if p["workload"] == "mutex"][0]["lock_ns"]
        self.assertAlmostEqual(got, want, places=6)

    def test_resize(self):
        d, doc = self.study("resize")
        n = 0
        for part in ("mutex", "hash"):
            for fn in os.listdir(os.path.join(d, part, "h5")):
                with h5py.File(os.path.join(d, part, "h5", fn), "r") as f:
                    n += f["resizes/start"].shape[0] if "resizes" in f else 0
        self.assertEqual(doc["figures"]["resizes"], n)
        self.assertGreater(n, 0)

    def test_schbench_names_the_counter(self):
        # a disagreeing loss (70%) names the counter: 300 requests/s x 2.5 calls x 2
        # atomics = 1500 a second, 666,667 ns each; the report's 2,297,856 x 2 x 2: 108.8 ns
        g = [("global hash", 0)]
        p = [("private hash of process 0", 128)]
        rs = [run("schbench", workload={"rps": 1000.0, "futex_calls_per_request": 2.0},
                  params={"kernel": "linux-6.15"}, tables=g),
              run("schbench", workload={"rps": 300.0, "futex_calls_per_request": 2.5},
                  params={"kernel": "linux-6.16-dev", "kernel.private_hash.refcount": "rcuref"}, tables=p)]
        line, fig = studies.verdict_schbench(rs)
        self.assertFalse(fig["agrees"])
        self.assertAlmostEqual(fig["rcuref_ns_per_counter_atomic"], 1e9 / 1500.0)
        self.assertAlmostEqual(fig["reported_ns_per_counter_atomic"], 1e9 / (4 * 2297856.0))
        self.assertIn("2 atomics x 2.5 futex calls per request one at a time, 666667 ns each", line)
        self.assertIn("at most 109 ns", line)

    def test_schbench(self):
        d, doc = self.study("schbench-vs-hash")
        rps = []
        for fn in sorted(os.listdir(os.path.join(d, "schbench", "h5"))):
            with h5py.File(os.path.join(d, "schbench", "h5", fn), "r") as f:
                rps.append(float(f["workload/rps"][()]))
        # designs.tsv's second row is the rcuref design
        self.assertAlmostEqual(doc["figures"]["rcuref_schbench_loss_pct"], 100.0 * (1.0 - rps[1] / rps[0]), places=6)


    def test_placement(self):
        d, doc = self.study("placement")
        h5 = os.path.join(d, "placement", "h5")
        ops = {}
        for fn in os.listdir(h5):
            with h5py.File(os.path.join(h5, fn), "r") as f:
                nodes = len(set(f["threads/node"][()].tolist()))
                size = [int(x) for x in f["tables/size"][()]][-1]
                ops[(nodes, size)] = float(f["summary/ops_per_sec"][()])
        # the test grid: 4 threads on socket 0, or 2 on each socket; 16 and 1024 buckets
        got = {p["buckets"]: p["change_pct"] for p in doc["figures"]["points"]}
        for b in (16, 1024):
            self.assertAlmostEqual(got[b], 100.0 * (ops[(2, b)] / ops[(1, b)] - 1.0), places=6)

    def test_nodediv(self):
        d, doc = self.study("node-div")
        files = sorted(os.listdir(os.path.join(d, "global", "h5")))  # node_select hash, then mulshift
        div, mul = (ops_of(os.path.join(d, "global", "h5", f)) for f in files)
        self.assertAlmostEqual(doc["figures"]["points"][0]["gain_pct"], 100.0 * (mul / div - 1.0), places=6)
        self.assertEqual(doc["figures"]["points"][0]["nodes"], 2)
        # another study's verdict asked of these runs: refused, naming what is there
        p = subprocess.run([self.env["PYTHON"], os.path.join(ROOT, "analysis/study"), "aslr", d], env=self.env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 1)
        self.assertIn("its runs are of the parts global, while aslr sweeps aslr, fixed", p.stderr)
        self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    if "--unit" in sys.argv:
        sys.argv.remove("--unit")
        suite = unittest.TestSuite([unittest.defaultTestLoader.loadTestsFromTestCase(c) for c in (Verdicts, BadInput)])
        sys.exit(0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1)
    if shutil.which("parallel") is None:
        print("tests/studies.py: SKIPPED the end-to-end studies: GNU parallel is missing (make deps installs it)")
        sys.argv += ["Verdicts", "BadInput"]
    unittest.main(verbosity=1)
