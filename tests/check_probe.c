/* SPDX-License-Identifier: MIT */
/* Tests of futexsim probe (sim/probe*.c): the topology read from the fake sysfs
 * trees of tests/probe/ (tests/probe/README.md says what each one is), the
 * refusal of topologies the machine schema cannot express, the machine file
 * written from made-up measurements (loads with machine_from_yaml with the same
 * topology, every constant with a source comment, written atomically), the
 * kernel preset chosen for a release, and the command line; for probe --check,
 * the scenarios built for a topology, the CSV table's round trip, perf's output
 * parsed (from a hand-written sample, and through a fake perf), the kernel without
 * PR_FUTEX_HASH (simulated with a seccomp filter) and a short real check. No
 * timing assertions: the real runs only have to produce a table.
 * Run from the repository root (the trees and configs/ are read from there). */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "models/machine.h"
#include "sim/core/yamltree.h"
#include "sim/perfbench.h"
#include "sim/probe/probe.h"
#include "tests/testutil.h"

#define TREE(name) "tests/probe/" name
#define PYTHON "/usr/bin/python3"

/* ---- helpers ------------------------------------------------------------------ */

static void read_ok(const char *root, struct probe_topology *t)
{
	struct fs_error e = { 0 };

	ck_assert_msg(probe_topology_read(t, root, &e) == 0, "%s: %s", root, e.msg);
}

static bool has_note(const struct probe_topology *t, const char *part)
{
	for (uint32_t i = 0; i < t->nnotes; i++)
		if (strstr(t->notes[i], part))
			return true;
	return false;
}

/* A latency as probe_measure makes it: the low tail x written, its median above. */
static void set(struct probe_value *v, double x)
{
	v->measured = true;
	v->n = 20;
	v->estimate = x;
	v->median = 1.1 * x;
	v->lo = 0.9 * x;
	v->hi = 1.2 * x;
	v->percentiles = true;
	v->low_tail = true;
	v->attempts = 1;
	snprintf(v->how, sizeof(v->how), "made up by check_probe");
}

/* The SMT slowdown: a ratio, its median written. */
static void set_ratio(struct probe_value *v, double x)
{
	set(v, x);
	v->median = x;
	v->low_tail = false;
}

/* Measurements as probe_measure would make them on this topology: what it cannot
 * measure (no SMT, one CPU, ...) is left for probe_results_finish. */
static void fake_results(struct probe_results *r, const struct probe_topology *t)
{
	probe_results_init(r, t);
	r->seconds = 1;
	set(&r->syscall, 95.3);
	set(&r->line_hit, 1.25);
	set(&r->atomic_hit, 7.5);
	if (t->threads_per_core > 1) {
		set(&r->transfer_smt, 8.9);
		set_ratio(&r->smt_slowdown, 1.25);
	}
	if (t->clusters)
		set(&r->transfer_cluster, 20.5);
	if (t->cores_per_node / t->cores_per_cluster > 1)
		set(&r->transfer_node, 32.4);
	for (uint32_t k = 0; k < r->ndistances; k++) {
		set(&r->transfer_remote[k], 100.0 + r->distances[k]);
		set(&r->memory_remote[k], 150.0 + r->distances[k]);
	}
	set(&r->memory_local, 92.5);
	probe_results_finish(r, t);
}

/* A probed file loads: fails with the loader's message. */
#define ck_assert_loads(expr, e)                                                                                        \
	ck_assert_msg((expr) == 0, "%s", (e).msg)

/* Loads `text` as the config loader does; fails the test on error. */
static void load_machine(const char *text, struct machine *m)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *root;

	ck_assert_ptr_nonnull(d);
	root = yt_load_string(d, "probed.yaml", text, strlen(text), &e);
	ck_assert_msg(root != NULL, "%s\n%s", e.msg, text);
	ck_assert_msg(machine_from_yaml(m, root, &e) == 0, "%s%s\n%s", e.msg, "",
		      ""[0] ? "" : text);
	yt_doc_free(d);
}

/* `text` into dir/NAME with plain stdio (not probe_write: no load), for
 * config_sources.py. */
static void write_plain(const char *dir, const char *name, const char *text, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* The machine has the probed topology, CPU by CPU. */
static void same_topology(const struct machine *m, const struct probe_topology *t)
{
	ck_assert_uint_eq(m->nodes, t->nodes);
	ck_assert_uint_eq(m->cores_per_node, t->cores_per_node);
	ck_assert_uint_eq(m->threads_per_core, t->threads_per_core);
	ck_assert_uint_eq(m->cores_per_cluster, t->cores_per_cluster);
	ck_assert_uint_eq(m->ncpus, t->ncpus);
	ck_assert_int_eq(m->numbering, t->numbering);
	for (uint32_t i = 0; i < t->nodes * t->nodes; i++)
		ck_assert_uint_eq(m->distance[i], t->distance[i]);
	for (uint32_t c = 0; c < t->ncpus; c++) {
		ck_assert_uint_eq(m->cpu_node[c], t->cpus[c].node);
		/* two CPUs share a model core exactly when Linux calls them siblings */
		for (uint32_t d = 0; d < t->ncpus; d++)
			ck_assert_int_eq(m->cpu_core[c] == m->cpu_core[d], t->cpus[c].core_key == t->cpus[d].core_key);
		if (t->clusters)
			for (uint32_t d = 0; d < t->ncpus; d++)
				ck_assert_int_eq(m->cpu_cluster[c] == m->cpu_cluster[d],
						 t->cpus[c].llc_key == t->cpus[d].llc_key);
	}
}

/* tests/config_sources.py on `path`: every constant has a source comment. */
static void sources_ok(const char *path)
{
	char *out;
	int rc;

	if (access(PYTHON, X_OK) != 0) {
		fprintf(stderr, "check_probe: SKIPPED the source-comment check of %s: %s is missing\n", path, PYTHON);
		return;
	}
	rc = tu_shellf(&out, PYTHON " tests/config_sources.py '%s'", path);
	ck_assert_msg(rc == 0, "config_sources.py %s:\n%s", path, out);
	ck_assert_ptr_nonnull(strstr(out, "0 constants without a source"));
	free(out);
}

static uint32_t files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	uint32_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((ent = readdir(d)))
		n += ent->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- topology from sysfs --------------------------------------------------------- */

START_TEST(two_nodes_smt_cores_first)
{
	struct probe_topology t;

	read_ok(TREE("2node-smt"), &t);
	ck_assert_uint_eq(t.ncpus, 8);
	ck_assert_uint_eq(t.nodes, 2);
	ck_assert_uint_eq(t.cores_per_node, 2);
	ck_assert_uint_eq(t.threads_per_core, 2);
	ck_assert_int_eq(t.numbering, NUMBERING_CORES_FIRST);
	ck_assert(t.node_dirs && t.siblings_known && !t.clusters);
	ck_assert_uint_eq(t.cores_per_cluster, 2);
	ck_assert_uint_eq(t.distance[0], 10);
	ck_assert_uint_eq(t.distance[1], 21);
	ck_assert_uint_eq(t.distance[2], 21);
	ck_assert_uint_eq(t.distance[3], 10);
	/* CPU c is core c % 4 on node (c % 4) / 2; core_id repeats across packages */
	for (uint32_t c = 0; c < 8; c++) {
		ck_assert_uint_eq(t.cpus[c].linux_id, c);
		ck_assert_uint_eq(t.cpus[c].core, c % 4);
		ck_assert_uint_eq(t.cpus[c].node, (c % 4) / 2);
		ck_assert_uint_eq(t.cpus[c].core_key, c % 4);
	}
	ck_assert_uint_eq(t.packages, 2);
	ck_assert_uint_eq(t.freq_khz, 2000000); /* base_frequency, not cpuinfo_max_freq or cpu MHz */
	ck_assert(!t.freq_assumed);
	ck_assert_ptr_nonnull(strstr(t.freq_source, "base_frequency"));
	ck_assert_str_eq(t.model, "Fake Xeon E5-2650 0 @ 2.00GHz");
	ck_assert_str_eq(t.release, "6.12.1-amd64");
	ck_assert_uint_eq(t.l1d_bytes, 32 << 10);
	ck_assert_uint_eq(t.l2_bytes, 256 << 10);
	ck_assert_uint_eq(t.llc_bytes, 20 << 20);
	ck_assert_uint_eq(t.llc_level, 3);
	ck_assert_uint_eq(t.nvulns, 3);
	ck_assert_str_eq(t.vulns[0], "mds: Not affected"); /* sorted by name */
	ck_assert_str_eq(t.vulns[1], "meltdown: Mitigation: PTI");
	ck_assert_uint_eq(t.nnotes, 0);
	probe_topology_free(&t);
}
END_TEST

START_TEST(one_cpu_without_numa)
{
	struct probe_topology t;

	read_ok(TREE("1cpu"), &t);
	ck_assert_uint_eq(t.ncpus, 1);
	ck_assert_uint_eq(t.nodes, 1);
	ck_assert(!t.node_dirs);
	ck_assert_uint_eq(t.cores_per_node, 1);
	ck_assert_uint_eq(t.threads_per_core, 1);
	ck_assert_uint_eq(t.distance[0], 10);
	ck_assert_uint_eq(t.freq_khz, 1800000); /* cpu MHz of /proc/cpuinfo */
	ck_assert(!t.freq_assumed);
	ck_assert_uint_eq(t.llc_bytes, 0);
	ck_assert_str_eq(t.release, "5.10.0");
	probe_topology_free(&t);
}
END_TEST

START_TEST(offline_cpus_are_left_out)
{
	struct probe_topology t;
	static const uint32_t linux_ids[] = { 0, 1, 2, 3, 6, 7 };

	read_ok(TREE("offline"), &t);
	ck_assert_uint_eq(t.ncpus, 6);
	ck_assert_str_eq(t.offline, "4-5");
	ck_assert_uint_eq(t.nodes, 1);
	ck_assert_uint_eq(t.cores_per_node, 3);
	ck_assert_uint_eq(t.threads_per_core, 2);
	ck_assert_int_eq(t.numbering, NUMBERING_SMT_ADJACENT);
	for (uint32_t c = 0; c < 6; c++) {
		ck_assert_uint_eq(t.cpus[c].linux_id, linux_ids[c]);
		ck_assert_uint_eq(t.cpus[c].core, c / 2);
	}
	ck_assert(t.freq_assumed); /* no cpufreq, no cpu MHz */
	ck_assert_uint_eq(t.freq_khz, 2000000);
	ck_assert(has_note(&t, "CPUs 4-5 are offline"));
	ck_assert(has_note(&t, "4-5 = Linux 6-7"));
	probe_topology_free(&t);
}
END_TEST

START_TEST(clusters_and_a_memory_only_node)
{
	struct probe_topology t;

	read_ok(TREE("ccx"), &t);
	ck_assert_uint_eq(t.ncpus, 8);
	ck_assert_uint_eq(t.nodes, 1); /* node 1 has memory, no CPUs */
	ck_assert(has_note(&t, "node 1 has no online CPUs"));
	ck_assert_int_eq(t.numbering, NUMBERING_SMT_ADJACENT);
	ck_assert(t.clusters);
	ck_assert_uint_eq(t.cores_per_cluster, 2);
	ck_assert_uint_eq(t.cores_per_node, 4);
	ck_assert_uint_eq(t.freq_khz, 3400000);
	ck_assert_ptr_nonnull(strstr(t.freq_source, "cpuinfo_max_freq"));
	probe_topology_free(&t);
}
END_TEST

START_TEST(inexpressible_topologies_are_refused)
{
	struct probe_topology t;
	struct fs_error e = { 0 };

	ck_assert_int_eq(probe_topology_read(&t, TREE("unequal"), &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "cannot be written as a futexsim machine file") &&
			      strstr(e.msg, "node 0 has 2 cores and node 1 has 1") && strstr(e.msg, "nothing written"),
		      "%s", e.msg);
	probe_topology_free(&t);

	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(probe_topology_read(&t, TREE("interleaved"), &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "neither cores-first") && strstr(e.msg, "CPU 1 is on node 1"), "%s", e.msg);
	probe_topology_free(&t);

	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(probe_topology_read(&t, "tests/probe/no-such-tree", &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strstr(e.msg, "cannot read tests/probe/no-such-tree/sys/devices/system/cpu/online"), "%s",
		      e.msg);
	probe_topology_free(&t);
}
END_TEST

/* ---- the machine file ------------------------------------------------------------ */

static const char *const round_trip_trees[] = { TREE("2node-smt"), TREE("1cpu"), TREE("offline"), TREE("ccx") };

/* The line "  KEY: WORD" of the mitigations block, its comment "# [M] RAW" at the
 * file's comment column (26). */
static bool has_mitigation(const char *text, const char *key, const char *word, const char *raw)
{
	char want[900], entry[64];

	snprintf(entry, sizeof(entry), "  %s: %s", key, word);
	snprintf(want, sizeof(want), "\n%-26s# [M] %s\n", entry, raw);
	return strstr(text, want) != NULL;
}

/* The mitigations block of each tree's vulnerabilities files. */
static void expect_mitigations(const char *text, const struct probe_topology *t)
{
	char head[768];

	snprintf(head, sizeof(head),
		 "\nmitigations:               # [M] read from %s/sys/devices/system/cpu/vulnerabilities (--root)\n",
		 t->root);
	ck_assert_msg(strstr(text, head) != NULL, "%s", text);
	if (strstr(t->root, "2node-smt")) {
		ck_assert(has_mitigation(text, "pti", "on", "meltdown: Mitigation: PTI"));
		ck_assert(has_mitigation(text, "spectre_v2", "retpoline", "spectre_v2: Mitigation: Retpolines; IBPB: conditional"));
		ck_assert(has_mitigation(text, "return_thunk", "unknown",
					 "retbleed: no such file; spec_rstack_overflow: no such file"));
	} else if (strstr(t->root, "ccx")) {
		ck_assert(has_mitigation(text, "pti", "off", "meltdown: Not affected"));
		ck_assert(has_mitigation(text, "spectre_v2", "eibrs",
					 "spectre_v2: Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: "
					 "always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected"));
		ck_assert(has_mitigation(text, "return_thunk", "on",
					 "retbleed: Not affected; spec_rstack_overflow: Mitigation: Safe RET"));
	} else if (strstr(t->root, "1cpu")) {
		ck_assert(has_mitigation(text, "pti", "off", "meltdown: Not affected"));
		ck_assert(has_mitigation(text, "spectre_v2", "unknown", "spectre_v2: no such file"));
	} else {
		/* no vulnerabilities directory at all */
		ck_assert(has_mitigation(text, "pti", "unknown", "meltdown: no such file"));
		ck_assert(has_mitigation(text, "return_thunk", "unknown",
					 "retbleed: no such file; spec_rstack_overflow: no such file"));
	}
	/* the block holds the three words, then the costs */
	ck_assert_ptr_nonnull(strstr(text, "\nmitigations:"));
	ck_assert_ptr_nonnull(strstr(strstr(text, "\nmitigations:"), "\n  return_thunk: "));
	ck_assert(strchr(strstr(text, "\n  return_thunk: ") + 1, '\n') == strstr(text, "\ncosts:\n"));
}

START_TEST(written_file_round_trips)
{
	const char *root = round_trip_trees[_i];
	struct probe_topology t;
	struct probe_results r;
	struct fs_error e = { 0 };
	struct machine m;
	char dir[64], path[128];
	char *text;

	read_ok(root, &t);
	fake_results(&r, &t);
	text = probe_render(&t, &r, "probed-test", &e);
	ck_assert_msg(text != NULL, "%s", e.msg);
	/* measured values as written: the low tails, not the medians */
	ck_assert_ptr_nonnull(strstr(text, "syscall: 95.3ns"));
	ck_assert_ptr_nonnull(strstr(text, "# [M] measured by futexsim probe: low tail 95.30ns, median 104.83ns, spread "
					   "85.77-114.36ns (p10-p90) over 20 rounds; made up by check_probe; "));
	ck_assert_ptr_nonnull(strstr(text, t.model));
	ck_assert_ptr_nonnull(strstr(text, t.release));
	ck_assert_ptr_null(strstr(text, "# [warning] unstable")); /* nothing unstable */
	if (t.threads_per_core == 1) {
		/* unmeasurable: said so, with the reason */
		ck_assert_ptr_nonnull(strstr(text, "smt_slowdown: 1.0       # [D] no SMT"));
		ck_assert_ptr_nonnull(strstr(text, "transfer_smt: "));
		ck_assert_ptr_nonnull(strstr(text, "# [A] no SMT (threads_per_core 1): never used"));
	} else {
		ck_assert_ptr_nonnull(strstr(text, "smt_slowdown: 1.250     # [M] measured by futexsim probe: median 1.250, "
						   "spread 1.125-1.500 (p10-p90) over 20 trials;"));
	}
	if (t.ncpus == 1)
		ck_assert_ptr_nonnull(strstr(text, "transfer_node: 40ns     # [A] no two cores on one node (one CPU)"));
	ck_assert_ptr_nonnull(strstr(text, "line_hold: 10 cycles    # [A] not measurable by futexsim probe"));
	/* the band's ranges: each measured cost's spread (0.9x-1.2x here), the hold time's bounds */
	ck_assert_ptr_nonnull(strstr(text, "\nuncertainty:  # [M] the range of each cost"));
	ck_assert_ptr_nonnull(strstr(text, "\n  costs:\n    syscall: [85.770ns, 114.360ns] # [M] the spread (p10-p90) "
					   "of futexsim probe's 20 rounds\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n    line_hold: [0 cycles, 40 cycles] # [A]"));
	ck_assert(t.threads_per_core > 1 ? strstr(text, "\n    smt_slowdown: [1.125, 1.500]") != NULL
					 : strstr(text, "\n    smt_slowdown:") == NULL);
	expect_mitigations(text, &t);
	/* every constant sourced, the mitigations included */
	tu_mkdtemp(dir, "futexsim-probe");
	write_plain(dir, "plain.yaml", text, path, sizeof(path));
	sources_ok(path);
	tu_rmtree(dir);

	ck_assert_loads(probe_verify(text, "probed.yaml", &t, &e), e);
	load_machine(text, &m);
	same_topology(&m, &t);
	ck_assert_str_eq(m.name, "probed-test");
	ck_assert_uint_eq(m.freq_khz, t.freq_khz);
	ck_assert_uint_eq(m.syscall_ps, 95300);
	ck_assert_uint_eq(m.line_hit_ps, 1250);
	ck_assert_uint_eq(m.memory_local_ps, 92500);
	if (t.threads_per_core > 1) {
		ck_assert_uint_eq(m.transfer_smt_ps, 8900);
		ck_assert_uint_eq(m.smt_slowdown_milli, 1250);
	} else {
		ck_assert_uint_eq(m.smt_slowdown_milli, 1000);
	}
	if (t.clusters)
		ck_assert_uint_eq(m.transfer_cluster_ps, 20500);
	if (t.nodes > 1) {
		ck_assert_uint_eq(m.remote_ps[1], 121000); /* distance 21 */
		ck_assert_uint_eq(m.mem_ps[1], 171000);
	}

	/* written atomically: the file, and nothing else, in its directory; sourced */
	tu_mkdtemp(dir, "futexsim-probe");
	snprintf(path, sizeof(path), "%s/probed.yaml", dir);
	ck_assert_loads(probe_write(path, text, &t, &e), e);
	ck_assert(tu_exists(path));
	ck_assert_uint_eq(files_in(dir), 1);
	sources_ok(path);
	tu_rmtree(dir);
	machine_free(&m);
	free(text);
	probe_topology_free(&t);
}
END_TEST

START_TEST(nothing_measured_is_labelled)
{
	struct probe_topology t;
	struct probe_results r;
	struct fs_error e = { 0 };
	struct machine m;
	char dir[64], path[128];
	char *text;

	read_ok(TREE("2node-smt"), &t);
	probe_results_init(&r, &t);
	probe_results_finish(&r, &t);
	text = probe_render(&t, &r, "nothing", &e);
	ck_assert_msg(text != NULL, "%s", e.msg);
	ck_assert_ptr_null(strstr(text, "[M] measured by"));
	ck_assert_ptr_nonnull(strstr(text, "memory_remote: 210.0ns  # [A] not measured: memory_local x distance / 10"));
	ck_assert_ptr_nonnull(strstr(text, "smt_slowdown: 1.3       # [A] not measured"));
	/* no measured spread: the band's ranges hold the assumed hold time only */
	ck_assert_ptr_nonnull(strstr(text, "\nuncertainty:  # [M] the range of each cost, for futexsim run --band "
					   "(docs/calibration.md)\n  costs:\n    call_return: [0ns, 10ns]"));
	ck_assert_ptr_nonnull(strstr(text, "\n    line_hold: [0 cycles, 40 cycles]"));
	ck_assert_ptr_null(strstr(text, "\n    syscall:"));
	ck_assert_ptr_nonnull(strstr(text, "\n  pti: on "));
	tu_mkdtemp(dir, "futexsim-probe");
	write_plain(dir, "plain.yaml", text, path, sizeof(path));
	sources_ok(path);
	tu_rmtree(dir);
	load_machine(text, &m);
	same_topology(&m, &t);
	machine_free(&m);
	tu_mkdtemp(dir, "futexsim-probe");
	snprintf(path, sizeof(path), "%s/nothing.yaml", dir);
	ck_assert_loads(probe_write(path, text, &t, &e), e);
	sources_ok(path);
	tu_rmtree(dir);
	free(text);
	probe_topology_free(&t);
}
END_TEST

START_TEST(several_distances_make_a_map)
{
	struct probe_topology t;
	struct probe_results r;
	struct fs_error e = { 0 };
	struct machine m;
	char *text;

	/* the 2-node tree with a made-up third distance class: render only */
	read_ok(TREE("2node-smt"), &t);
	fake_results(&r, &t);
	r.ndistances = 2;
	r.distances[1] = 31;
	set(&r.transfer_remote[1], 160);
	r.memory_remote[1].measured = false;
	snprintf(r.memory_remote[1].why_not, sizeof(r.memory_remote[1].why_not), "mbind refused: Operation not permitted");
	probe_results_finish(&r, &t);
	text = probe_render(&t, &r, "map", &e);
	ck_assert_msg(text != NULL, "%s", e.msg);
	ck_assert_ptr_nonnull(strstr(text, "transfer_remote: {21: 121.0ns, 31: 160.0ns}"));
	ck_assert_ptr_nonnull(strstr(text, "memory_remote: {21: 171.0ns, 31: 286.8ns}"));
	ck_assert_ptr_nonnull(strstr(text, "distance 31: [A] mbind refused: Operation not permitted: memory_local x "
					   "distance / 10"));
	load_machine(text, &m);
	ck_assert_uint_eq(m.remote_ps[1], 121000);
	machine_free(&m);
	free(text);
	probe_topology_free(&t);
}
END_TEST

START_TEST(a_wrong_file_is_never_written)
{
	struct probe_topology smt, ccx;
	struct probe_results r;
	struct fs_error e = { 0 };
	char dir[64], path[128], *text, *out;
	FILE *f;

	read_ok(TREE("2node-smt"), &smt);
	read_ok(TREE("ccx"), &ccx);
	fake_results(&r, &ccx);
	text = probe_render(&ccx, &r, "ccx", &e);
	ck_assert_ptr_nonnull(text);
	tu_mkdtemp(dir, "futexsim-probe");
	snprintf(path, sizeof(path), "%s/old.yaml", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("old\n", f);
	fclose(f);
	/* the ccx file does not have the 2-node topology: refused, the old file kept */
	ck_assert_int_eq(probe_write(path, text, &smt, &e), -1);
	ck_assert_msg(strstr(e.msg, "loads with nodes 1 where the probed machine has 2"), "%s%s", e.msg,
		      "");
	ck_assert_int_eq(tu_shellf(&out, "cat '%s'", path), 0);
	ck_assert_str_eq(out, "old\n");
	free(out);
	ck_assert_uint_eq(files_in(dir), 1);
	/* not YAML of a machine */
	ck_assert_int_eq(probe_verify("name: x\n", "x.yaml", &smt, &e), -1);
	ck_assert_msg(strstr(e.msg, "does not load"), "%s", e.msg);
	/* an unwritable place */
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(probe_write("/nonexistent-dir/x.yaml", text, &ccx, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_OUTPUT);
	tu_rmtree(dir);
	free(text);
	probe_topology_free(&smt);
	probe_topology_free(&ccx);
}
END_TEST

START_TEST(names_from_paths)
{
	char name[64];

	probe_name_from_path("configs/machines/my-box.yaml", name, sizeof(name));
	ck_assert_str_eq(name, "my-box");
	probe_name_from_path("/tmp/probe.yml", name, sizeof(name));
	ck_assert_str_eq(name, "probe");
	probe_name_from_path("we ird\"name.yaml", name, sizeof(name));
	ck_assert_str_eq(name, "weirdname");
	probe_name_from_path("dir/.yaml", name, sizeof(name));
	ck_assert_str_eq(name, "probed");
}
END_TEST

/* ---- low tails: the estimate, spread, drift, attempts ---------------------------- */

static void stats(const double *v, uint32_t n, struct probe_stats *st)
{
	probe_stats_of(v, n, st);
	ck_assert_uint_eq(st->n, n);
}

/* Noise only adds time: a hand-off of 34-36ns with most rounds slowed to 600-1200ns
 * (a descheduled partner) is 34ns, not the median; the spread is flagged. */
START_TEST(low_tail_ignores_the_slow_rounds)
{
	static const double rounds[20] = { 34, 600, 900, 35, 700, 1200, 36, 650, 880, 34.5,
					   610, 990, 35.5, 640, 720, 34.2, 800, 35.1, 1100, 36.3 };
	static const double few[3] = { 40, 38, 500 };
	struct probe_stats st;

	stats(rounds, 20, &st);
	ck_assert(st.percentiles);
	/* p10 of 20: 0.9 of the way from the 2nd to the 3rd lowest (34.2, 34.5) */
	ck_assert_double_eq_tol(st.estimate, 34.47, 1e-9);
	ck_assert_double_eq_tol(st.lo, 34.47, 1e-9);
	ck_assert_double_gt(st.median, 600);
	ck_assert_double_eq_tol(st.hi, 990 + 0.1 * (1100 - 990), 1e-9);
	ck_assert(st.unstable);
	ck_assert_msg(strstr(st.why, "p90/p10 29.04") && strstr(st.why, "above 2.0"), "%s", st.why);
	/* the order does not matter to the estimate */
	ck_assert_double_eq_tol(st.first, 34.0 + 0.9 * (34.5 - 34.0), 1e-9); /* p10 of the first 10 */
	/* below 10 rounds: the minimum, min-max */
	stats(few, 3, &st);
	ck_assert(!st.percentiles);
	ck_assert_double_eq(st.estimate, 38);
	ck_assert_double_eq(st.lo, 38);
	ck_assert_double_eq(st.hi, 500);
	ck_assert(isnan(st.first) && isnan(st.second)); /* too few for halves */
	stats(NULL, 0, &st);
	ck_assert(isnan(st.estimate) && !st.unstable);
}
END_TEST

/* Rounds of a quiet machine: within a few percent, in any order: stable. */
START_TEST(steady_rounds_are_stable)
{
	double rounds[40];
	struct probe_stats st;

	for (uint32_t i = 0; i < 40; i++)
		rounds[i] = 34 + (double)((i * 7) % 5) * 0.5; /* 34.0-36.0, mixed */
	stats(rounds, 40, &st);
	ck_assert_msg(!st.unstable, "%s", st.why);
	ck_assert_str_eq(st.why, "");
	ck_assert_double_eq_tol(st.estimate, 34, 1e-9);
	ck_assert_double_eq_tol(st.first, 34, 1e-9);
	ck_assert_double_eq_tol(st.second, 34, 1e-9);
}
END_TEST

/* The spread rule alone: rounds alternating a and b (each half alike, so no drift),
 * b = 1.9a stable, b = 2.1a unstable. */
START_TEST(spread_beyond_the_limit_is_unstable)
{
	double rounds[20];
	struct probe_stats st;

	for (uint32_t i = 0; i < 20; i++)
		rounds[i] = i % 2 ? 1.9 * 50 : 50;
	stats(rounds, 20, &st);
	ck_assert_msg(!st.unstable, "%s", st.why);
	ck_assert_double_eq_tol(st.hi / st.lo, 1.9, 1e-9);
	ck_assert_double_eq_tol(st.first, st.second, 1e-9);
	for (uint32_t i = 0; i < 20; i++)
		rounds[i] = i % 2 ? 2.1 * 50 : 50;
	stats(rounds, 20, &st);
	ck_assert(st.unstable);
	ck_assert_msg(strstr(st.why, "spread 50.00-105.00ns (p10-p90): p90/p10 2.10, above 2.0") &&
			      !strstr(st.why, "drift"),
		      "%s", st.why);
}
END_TEST

/* The drift rule alone: a floor of 34ns in the first half of the rounds and 45ns in
 * the second (a virtual CPU moved) is unstable though the spread is small; a
 * floor 15% higher is not. */
START_TEST(drift_between_halves_is_unstable)
{
	double rounds[20];
	struct probe_stats st;

	for (uint32_t i = 0; i < 20; i++)
		rounds[i] = (i < 10 ? 34 : 45) + (double)(i % 3) * 0.4;
	stats(rounds, 20, &st);
	ck_assert_double_lt(st.hi / st.lo, PROBE_SPREAD_LIMIT);
	ck_assert_double_eq_tol(st.first, 34, 1e-9);
	ck_assert_double_eq_tol(st.second, 45, 1e-9);
	ck_assert(st.unstable);
	ck_assert_msg(strstr(st.why, "drift: low tail 34.00ns in the first half of the rounds, 45.00ns in the second "
				      "(32%, above 20%)") &&
			      !strstr(st.why, "spread"),
		      "%s", st.why);
	/* falling as much counts the same */
	for (uint32_t i = 0; i < 20; i++)
		rounds[i] = (i < 10 ? 45 : 34) + (double)(i % 3) * 0.4;
	stats(rounds, 20, &st);
	ck_assert(st.unstable && strstr(st.why, "drift"));
	for (uint32_t i = 0; i < 20; i++)
		rounds[i] = (i < 10 ? 34 : 34 * 1.15) + (double)(i % 3) * 0.1;
	stats(rounds, 20, &st);
	ck_assert_msg(!st.unstable, "%s", st.why);
}
END_TEST

static struct probe_stats attempt(double estimate, bool unstable)
{
	struct probe_stats st;

	memset(&st, 0, sizeof(st));
	st.n = 100;
	st.estimate = estimate;
	st.unstable = unstable;
	snprintf(st.why, sizeof(st.why), "%s", unstable ? "made-up spread" : "");
	return st;
}

/* Retries: the last attempt is kept when it is stable and not slowed against the
 * lowest low tail seen; otherwise the lowest, flagged. */
START_TEST(attempts_keep_the_lowest_until_one_is_stable)
{
	struct probe_stats a[4];
	char why[400];
	bool ok;

	a[0] = attempt(34, false);
	ck_assert_uint_eq(probe_pick_attempt(a, 1, &ok, why, sizeof(why)), 0);
	ck_assert(ok);
	/* a bimodal attempt reached 25ns; a stable one at 220ns (the vCPUs apart all the
	 * while) does not overrule it */
	a[0] = attempt(25, true);
	a[1] = attempt(220, false);
	ck_assert_uint_eq(probe_pick_attempt(a, 2, &ok, why, sizeof(why)), 0);
	ck_assert(!ok);
	ck_assert_msg(strstr(why, "2 attempts, low tails 25.00, 220.00ns; kept the lowest (attempt 1), itself unstable: "
				  "made-up spread"),
		      "%s", why);
	a[2] = attempt(26, false); /* stable, within 20% of 25 */
	ck_assert_uint_eq(probe_pick_attempt(a, 3, &ok, why, sizeof(why)), 2);
	ck_assert(ok);
	/* within 20% of an unstable lower one: accepted; beyond: not */
	a[0] = attempt(30, true);
	a[1] = attempt(35.9, false);
	ck_assert_uint_eq(probe_pick_attempt(a, 2, &ok, why, sizeof(why)), 1);
	ck_assert(ok);
	a[1] = attempt(36.1, false);
	ck_assert_uint_eq(probe_pick_attempt(a, 2, &ok, why, sizeof(why)), 0);
	ck_assert(!ok);
	/* unstable every time: the lowest */
	a[0] = attempt(30, true);
	a[1] = attempt(25, true);
	a[2] = attempt(28, true);
	a[3] = attempt(40, true);
	ck_assert_uint_eq(probe_pick_attempt(a, 4, &ok, why, sizeof(why)), 1);
	ck_assert(!ok);
	ck_assert_msg(strstr(why, "4 attempts, low tails 30.00, 25.00, 28.00, 40.00ns; kept the lowest (attempt 2)"), "%s",
		      why);
}
END_TEST

/* Several pairs: the median of their low tails; unstable when one is. */
START_TEST(pairs_combine_to_the_median_low_tail)
{
	static const double r0[10] = { 20, 21, 20, 22, 20, 21, 20, 22, 20, 21 };
	static const double r1[10] = { 30, 31, 30, 32, 30, 31, 30, 32, 30, 31 };
	static const double r2[10] = { 100, 101, 100, 102, 100, 101, 100, 102, 100, 101 };
	struct probe_series s[3];
	struct probe_value v;

	memset(s, 0, sizeof(s));
	memset(&v, 0, sizeof(v));
	s[0].rounds = r0;
	s[1].rounds = r1;
	s[2].rounds = r2;
	for (uint32_t i = 0; i < 3; i++) {
		s[i].n = 10;
		probe_stats_of(s[i].rounds, 10, &s[i].stats);
		s[i].attempts = 1;
		s[i].accepted = true;
		snprintf(s[i].where, sizeof(s[i].where), "CPUs %u-%u", 2 * i, 2 * i + 1);
	}
	ck_assert_int_eq(probe_value_combine(s, 3, &v), 0);
	ck_assert(v.measured && v.low_tail && !v.unstable);
	ck_assert_double_eq_tol(v.estimate, 30, 1e-9);
	ck_assert_uint_eq(v.n, 30);
	ck_assert(v.percentiles);
	ck_assert_double_eq_tol(v.median, 30.5, 1e-9); /* of the 30 rounds pooled */
	ck_assert_double_eq_tol(v.lo, 20, 1e-9);
	ck_assert_double_eq_tol(v.hi, 101, 1e-9);
	ck_assert_int_eq(probe_value_combine(s, 2, &v), 0);
	ck_assert_double_eq_tol(v.estimate, 25, 1e-9); /* the mean of two */
	s[1].accepted = false;
	s[1].attempts = 4;
	snprintf(s[1].why, sizeof(s[1].why), "4 attempts, ...");
	ck_assert_int_eq(probe_value_combine(s, 3, &v), 0);
	ck_assert(v.unstable);
	ck_assert_uint_eq(v.attempts, 4);
	ck_assert_str_eq(v.warning, "CPUs 2-3: 4 attempts, ...");
}
END_TEST

/* An unstable value: a warning on standard error and a [warning] comment line just
 * above it in the file. */
START_TEST(unstable_value_is_warned)
{
	struct probe_topology t;
	struct probe_results r;
	struct fs_error e = { 0 };
	char *text, *err = NULL, *at, *nl;
	size_t len = 0;
	FILE *f;

	read_ok(TREE("2node-smt"), &t);
	fake_results(&r, &t);
	r.transfer_remote[0].unstable = true;
	r.transfer_remote[0].attempts = 4;
	snprintf(r.transfer_remote[0].warning, sizeof(r.transfer_remote[0].warning),
		 "CPUs 0-2: 4 attempts, low tails 121.00, ...");
	probe_results_finish(&r, &t);
	text = probe_render(&t, &r, "unstable", &e);
	ck_assert_msg(text != NULL, "%s", e.msg);
	at = strstr(text, "\n  # [warning] unstable: transfer_remote: CPUs 0-2: 4 attempts, low tails 121.00, ...; its "
			  "lowest low tail kept\n");
	if (!at)
		fputs(text, stderr);
	ck_assert(at != NULL);
	nl = strchr(at + 1, '\n');
	ck_assert(nl && !strncmp(nl + 1, "  transfer_remote: 121.0ns ", 27)); /* the next line is the value */
	ck_assert_ptr_nonnull(strstr(text, "over 20 rounds, unstable after every retry; made up"));
	ck_assert_ptr_null(strstr(nl, "[warning]")); /* the others are stable */
	f = open_memstream(&err, &len);
	ck_assert_ptr_nonnull(f);
	probe_warn_unstable(f, "transfer_remote", &r.transfer_remote[0]);
	probe_warn_unstable(f, "syscall", &r.syscall); /* stable: nothing */
	fclose(f);
	ck_assert_str_eq(err, "futexsim probe: warning: transfer_remote is unstable: CPUs 0-2: 4 attempts, low tails "
			      "121.00, ...; its lowest low tail kept (the machine file says so beside the value)\n");
	free(err);
	free(text);
	probe_topology_free(&t);
}
END_TEST

/* ---- mitigations: the sysfs texts to the block's words ---------------------------- */

static const struct {
	const char *text, *word;
} spectre_v2_cases[] = {
	{ "Mitigation: Retpolines; IBPB: conditional; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: "
	  "Retpoline",
	  "retpoline" },
	{ "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
	  "retpoline" }, /* the development VM */
	{ "Mitigation: Full generic retpoline, IBPB: conditional, IBRS_FW, STIBP: disabled, RSB filling",
	  "retpoline" }, /* Linux 4.19-5.x */
	{ "Mitigation: Full AMD retpoline, IBPB: conditional, STIBP: disabled, RSB filling", "retpoline" },
	{ "Mitigation: LFENCE; IBPB: conditional; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected", "retpoline" },
	{ "Mitigation: Enhanced / Automatic IBRS + Retpolines; IBPB: conditional; RSB filling", "retpoline" },
	{ "Vulnerable: Retpoline without IBPB", "retpoline" },
	{ "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S",
	  "eibrs" },
	{ "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; STIBP: always-on; RSB filling; PBRSB-eIBRS: Not "
	  "affected; BHI: Retpoline",
	  "eibrs" }, /* "BHI: Retpoline" is not the mode */
	{ "Mitigation: Enhanced IBRS, IBPB: conditional, RSB filling", "eibrs" },
	{ "Vulnerable: eIBRS with unprivileged eBPF", "eibrs" },
	{ "Mitigation: IBRS; IBPB: always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
	  "ibrs" }, /* "PBRSB-eIBRS" is not the mode */
	{ "Vulnerable", "off" },
	{ "Vulnerable, IBPB: disabled, STIBP: disabled", "off" },
	{ "Not affected", "off" },
	{ "Mitigation: CSV2, BHB", "unknown" }, /* arm64 */
	{ "", "unknown" },
	{ NULL, "unknown" }, /* no such file */
};

static const struct {
	const char *retbleed, *srso, *word;
} return_thunk_cases[] = {
	{ "Not affected", "Mitigation: Safe RET", "on" },
	{ "Not affected", "Vulnerable: Safe RET, no microcode", "on" }, /* the development VM */
	{ "Not affected", "Mitigation: safe RET", "on" },                /* Linux 6.5's spelling */
	{ "Not affected", "Vulnerable: Microcode, no safe RET", "off" },
	{ "Mitigation: untrained return thunk; SMT vulnerable", "Mitigation: Safe RET", "on" },
	{ "Mitigation: untrained return thunk; SMT enabled with STIBP protection", NULL, "on" },
	{ "Vulnerable: untrained return thunk / IBPB on non-AMD based uarch", "Not affected", "on" },
	{ "Mitigation: Stuffing", "Not affected", "on" }, /* call depth tracking */
	{ "Mitigation: Enhanced IBRS", "Not affected", "off" },
	{ "Mitigation: IBRS", "Not affected", "off" },
	{ "Mitigation: IBPB", "Mitigation: IBPB", "off" },
	{ "Not affected", "Mitigation: SMT disabled", "off" },
	{ "Vulnerable", "Vulnerable", "off" },
	{ "Not affected", "Not affected", "off" },
	{ "Mitigation: Enhanced IBRS", NULL, "unknown" }, /* spec_rstack_overflow missing (before 6.5) */
	{ NULL, "Not affected", "unknown" },
	{ NULL, NULL, "unknown" },
};

START_TEST(mitigation_words)
{
	ck_assert_str_eq(probe_mitigation_pti("Mitigation: PTI"), "on");
	ck_assert_str_eq(probe_mitigation_pti("Not affected"), "off");
	ck_assert_str_eq(probe_mitigation_pti("Vulnerable"), "off");
	ck_assert_str_eq(probe_mitigation_pti("Unknown (XEN PV detected, hypervisor mitigation required)"), "unknown");
	ck_assert_str_eq(probe_mitigation_pti(NULL), "unknown");
	for (size_t i = 0; i < sizeof(spectre_v2_cases) / sizeof(spectre_v2_cases[0]); i++) {
		const char *got = probe_mitigation_spectre_v2(spectre_v2_cases[i].text);

		ck_assert_msg(!strcmp(got, spectre_v2_cases[i].word), "spectre_v2 '%s' -> %s, expected %s",
			      spectre_v2_cases[i].text ? spectre_v2_cases[i].text : "(no file)", got, spectre_v2_cases[i].word);
	}
	for (size_t i = 0; i < sizeof(return_thunk_cases) / sizeof(return_thunk_cases[0]); i++) {
		const char *got = probe_mitigation_return_thunk(return_thunk_cases[i].retbleed, return_thunk_cases[i].srso);

		ck_assert_msg(!strcmp(got, return_thunk_cases[i].word), "retbleed '%s', spec_rstack_overflow '%s' -> %s, expected %s",
			      return_thunk_cases[i].retbleed ? return_thunk_cases[i].retbleed : "(no file)",
			      return_thunk_cases[i].srso ? return_thunk_cases[i].srso : "(no file)", got,
			      return_thunk_cases[i].word);
	}
}
END_TEST

/* The texts as read from a tree, by file name. */
START_TEST(mitigation_texts_by_name)
{
	struct probe_topology t;

	read_ok(TREE("ccx"), &t);
	ck_assert_str_eq(probe_vuln_text(&t, "spec_rstack_overflow"), "Mitigation: Safe RET");
	ck_assert_str_eq(probe_vuln_text(&t, "meltdown"), "Not affected");
	ck_assert_ptr_null(probe_vuln_text(&t, "spectre")); /* a prefix of a name is not the name */
	ck_assert_ptr_null(probe_vuln_text(&t, "mds"));
	ck_assert_str_eq(probe_vuln_text(&t, "spectre_v2"), "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; "
							    "STIBP: always-on; RSB filling; PBRSB-eIBRS: Not affected; BHI: "
							    "Not affected");
	probe_topology_free(&t);
}
END_TEST

/* ---- kernel presets -------------------------------------------------------------- */

static const struct {
	const char *release, *preset;
} presets[] = {
	{ "6.18.3-arch1", "linux-6.18" },
	{ "6.18.44-fc-v669", "linux-6.18" },
	{ "7.1.0", "linux-6.18" },
	{ "6.17.9-200.fc42.x86_64", "linux-6.17" },
	{ "6.16.0", "linux-6.16-dev" },
	{ "6.16", "linux-6.16-dev" },
	{ "6.15.11", "linux-6.15" },
	{ "6.12.1-amd64", "linux-6.15" },
	{ "5.10.0", "linux-6.15" },
	{ "5.6.0", "linux-6.15" },
	{ "5.5.19", "linux-3.14" },
	{ "4.19.0-27-amd64", "linux-3.14" },
	{ "3.14.0", "linux-3.14" },
	{ "3.10.0-1160.el7.x86_64", "linux-2.6.22" },
	{ "2.6.32-754.el6.x86_64", "linux-2.6.22" },
	{ "2.6.22.1", "linux-2.6.22" },
	{ "2.6.21", "linux-2.6.18" },
	{ "2.6.18-398.el5", "linux-2.6.18" },
	{ "garbage", NULL },
	{ "6", NULL },
	{ "", NULL },
	{ "-6.1", NULL },
};

START_TEST(kernel_preset_of_release)
{
	const char *got = probe_kernel_preset(presets[_i].release);
	char path[256];

	if (!presets[_i].preset) {
		ck_assert_msg(got == NULL, "'%s' -> %s", presets[_i].release, got);
		return;
	}
	ck_assert_msg(got && !strcmp(got, presets[_i].preset), "'%s' -> %s, expected %s", presets[_i].release,
		      got ? got : "NULL", presets[_i].preset);
	snprintf(path, sizeof(path), "configs/kernels/%s.yaml", got);
	ck_assert_msg(tu_exists(path), "%s: no such preset", path);
}
END_TEST

/* ---- the command line ------------------------------------------------------------ */

START_TEST(cli_topology_and_usage)
{
	char *out;

	ck_assert_int_eq(tu_futexsim("probe --topology --root " TREE("2node-smt"), &out), 0);
	ck_assert_msg(strstr(out, "2 nodes x 2 cores x 2 threads = 8 CPUs, cores-first") &&
			      strstr(out, "nearest preset linux-6.15") && strstr(out, "meltdown: Mitigation: PTI") &&
			      !strstr(out, "mds:") &&
			      strstr(out, "\n  mitigations: pti on, spectre_v2 retpoline, return_thunk unknown\n"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe --topology --root " TREE("unequal"), &out), 3);
	ck_assert_msg(strstr(out, "futexsim probe: this machine's topology cannot be written") &&
			      strstr(out, "same number of cores on every node"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe", &out), 2);
	ck_assert_msg(strstr(out, "missing -o FILE.yaml"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe -o /tmp/x.yaml --root " TREE("2node-smt"), &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe -o /tmp/x.yaml --seconds 0", &out), 2);
	ck_assert_msg(strstr(out, "--seconds needs a number"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe -o /nonexistent-dir/x.yaml --seconds 1", &out), 4);
	ck_assert_msg(strstr(out, "cannot write beside /nonexistent-dir/x.yaml"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe --help", &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usage: futexsim probe -o FILE.yaml"));
	free(out);
	ck_assert_int_eq(tu_futexsim("help probe", &out), 0);
	free(out);
}
END_TEST

/* A real probe of this machine with the smallest budget: a file that loads and
 * whose every constant has a source. Skipped (loudly) where pinning is refused. */
START_TEST(cli_probes_this_machine)
{
	char dir[64], path[128], *out, *text;
	struct probe_topology t;
	struct machine m;
	FILE *f;
	long len;
	int rc;

	tu_mkdtemp(dir, "futexsim-probe");
	snprintf(path, sizeof(path), "%s/here.yaml", dir);
	rc = tu_shellf(&out, "%s probe --seconds 0.5 -o '%s'", tu_bin(), path);
	/* the pin refused (probe_pin_failed, or a CPU this process may not use); not
	 * any failure: the progress always names sched_setaffinity */
	if (rc == 1 && (strstr(out, "cannot pin a thread") || strstr(out, "may not run on it"))) {
		fprintf(stderr, "check_probe: SKIPPED the real probe: %s\n", out);
		free(out);
		tu_rmtree(dir);
		return;
	}
	ck_assert_msg(rc == 0, "%s", out);
	ck_assert_msg(strstr(out, "futexsim probe: [1/") && strstr(out, "low tail ") && strstr(out, "wrote "), "%s", out);
	free(out);
	ck_assert_uint_eq(files_in(dir), 1);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	load_machine(text, &m);
	read_ok("/", &t);
	same_topology(&m, &t);
	ck_assert_ptr_nonnull(strstr(text, "syscall: "));
	ck_assert_ptr_nonnull(strstr(text, "[M] measured by futexsim probe: low tail "));
	ck_assert_ptr_nonnull(strstr(text, "\nmitigations:               # [M] read from "
					   "/sys/devices/system/cpu/vulnerabilities on this host\n  pti: "));
	sources_ok(path);
	machine_free(&m);
	probe_topology_free(&t);
	free(text);
	tu_rmtree(dir);
}
END_TEST

/* ---- probe --check: scenarios ------------------------------------------------------ */

/* A topology of 2 cores x 2 SMT threads on one node, numbered cores-first (CPU c on
 * core c % 2) or smt-adjacent (CPU c on core c / 2): what the scenario list reads. */
static void two_by_two(struct probe_topology *t, bool smt_adjacent)
{
	memset(t, 0, sizeof(*t));
	t->ncpus = 4;
	t->nodes = 1;
	t->cores_per_node = 2;
	t->ncores = 2;
	t->threads_per_core = 2;
	t->cores_per_cluster = 2;
	t->numbering = smt_adjacent ? NUMBERING_SMT_ADJACENT : NUMBERING_CORES_FIRST;
	t->cpus = calloc(4, sizeof(*t->cpus));
	ck_assert_ptr_nonnull(t->cpus);
	for (uint32_t c = 0; c < 4; c++) {
		t->cpus[c].linux_id = c;
		t->cpus[c].core = smt_adjacent ? c / 2 : c % 2;
		t->cpus[c].core_key = smt_adjacent ? c / 2 * 2 : c % 2; /* its core's lowest CPU */
	}
}

static void expect_scenario(const struct probe_check_scenario *s, const char *name, uint32_t threads, bool shared,
			    int32_t buckets, const uint32_t *cpus, bool perf_placement)
{
	ck_assert_str_eq(s->name, name);
	ck_assert_uint_eq(s->threads, threads);
	ck_assert_int_eq(s->shared, shared);
	ck_assert_int_eq(s->buckets, buckets);
	for (uint32_t i = 0; i < threads; i++)
		ck_assert_msg(s->cpus[i] == cpus[i], "%s: thread %u on CPU %u, expected %u", name, i, s->cpus[i], cpus[i]);
	ck_assert_msg(s->perf_placement == perf_placement, "%s: perf_placement %d", name, s->perf_placement);
}

START_TEST(check_scenarios_of_one_cpu)
{
	static const uint32_t cpu0[] = { 0 };
	struct probe_topology t;
	struct probe_check_scenario *s;
	struct fs_error e = { 0 };
	uint32_t n;

	read_ok(TREE("1cpu"), &t);
	ck_assert_msg(probe_check_scenarios(&t, true, "", &s, &n, &e) == 0, "%s", e.msg);
	/* 1 thread = one per core = every CPU: once, private and shared, then the hash sizes */
	ck_assert_uint_eq(n, 6);
	expect_scenario(&s[0], "1 thread", 1, false, PROBE_BUCKETS_AUTO, cpu0, true);
	expect_scenario(&s[1], "1 thread -S", 1, true, PROBE_BUCKETS_AUTO, cpu0, true);
	expect_scenario(&s[2], "1 thread -b 2", 1, false, 2, cpu0, true);
	expect_scenario(&s[3], "1 thread -b 16", 1, false, 16, cpu0, true);
	expect_scenario(&s[4], "1 thread -b 128", 1, false, 128, cpu0, true);
	expect_scenario(&s[5], "1 thread -b 0", 1, false, 0, cpu0, true);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_str_eq(s[i].skip, "");
	probe_check_scenarios_free(s, n);
	probe_topology_free(&t);
}
END_TEST

START_TEST(check_scenarios_of_two_cores_two_threads)
{
	static const uint32_t cpu0[] = { 0 }, all[] = { 0, 1, 2, 3 }, first2[] = { 0, 1 }, per_core[] = { 0, 2 };
	struct probe_topology t;
	struct probe_check_scenario *s;
	struct fs_error e = { 0 };
	char list[64];
	uint32_t n;

	/* cores-first: CPUs 0 and 1 are the two cores, as perf pins 2 threads */
	two_by_two(&t, false);
	ck_assert_msg(probe_check_scenarios(&t, true, "", &s, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n, 10);
	expect_scenario(&s[0], "1 thread", 1, false, PROBE_BUCKETS_AUTO, cpu0, true);
	expect_scenario(&s[1], "1 thread -S", 1, true, PROBE_BUCKETS_AUTO, cpu0, true);
	expect_scenario(&s[2], "1/core (2)", 2, false, PROBE_BUCKETS_AUTO, first2, true);
	expect_scenario(&s[3], "1/core (2) -S", 2, true, PROBE_BUCKETS_AUTO, first2, true);
	expect_scenario(&s[4], "all CPUs (4)", 4, false, PROBE_BUCKETS_AUTO, all, true);
	expect_scenario(&s[5], "all CPUs (4) -S", 4, true, PROBE_BUCKETS_AUTO, all, true);
	expect_scenario(&s[6], "all CPUs (4) -b 2", 4, false, 2, all, true);
	expect_scenario(&s[7], "all CPUs (4) -b 16", 4, false, 16, all, true);
	expect_scenario(&s[8], "all CPUs (4) -b 128", 4, false, 128, all, true);
	expect_scenario(&s[9], "all CPUs (4) -b 0", 4, false, 0, all, true);
	probe_cpulist(s[4].cpus, s[4].threads, list, sizeof(list));
	ck_assert_str_eq(list, "0-3");
	probe_check_scenarios_free(s, n);
	probe_topology_free(&t);

	/* smt-adjacent: one thread per core is CPUs 0 and 2, not where perf puts 2 threads */
	two_by_two(&t, true);
	ck_assert_msg(probe_check_scenarios(&t, true, "", &s, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n, 10);
	expect_scenario(&s[2], "1/core (2)", 2, false, PROBE_BUCKETS_AUTO, per_core, false);
	expect_scenario(&s[3], "1/core (2) -S", 2, true, PROBE_BUCKETS_AUTO, per_core, false);
	expect_scenario(&s[4], "all CPUs (4)", 4, false, PROBE_BUCKETS_AUTO, all, true);
	probe_cpulist(s[2].cpus, s[2].threads, list, sizeof(list));
	ck_assert_str_eq(list, "0,2");
	probe_check_scenarios_free(s, n);

	/* a kernel without PR_FUTEX_HASH: the hash sizes listed, skipped with the reason */
	ck_assert_msg(probe_check_scenarios(&t, false, "no PR_FUTEX_HASH here", &s, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n, 10);
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].buckets == PROBE_BUCKETS_AUTO)
			ck_assert_str_eq(s[i].skip, "");
		else
			ck_assert_str_eq(s[i].skip, "no PR_FUTEX_HASH here");
	}
	probe_check_scenarios_free(s, n);
	probe_topology_free(&t);

	/* 2 nodes x 2 cores x 2 threads, cores-first: 1, 4 (CPUs 0-3), 8 */
	read_ok(TREE("2node-smt"), &t);
	ck_assert_msg(probe_check_scenarios(&t, true, "", &s, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n, 10);
	ck_assert_str_eq(s[2].name, "1/core (4)");
	ck_assert(s[2].perf_placement);
	ck_assert_str_eq(s[4].name, "all CPUs (8)");
	probe_check_scenarios_free(s, n);
	probe_topology_free(&t);
}
END_TEST

/* ---- probe --check: the table ------------------------------------------------------ */

static struct probe_check_row row(const char *name, uint32_t threads, bool shared, int32_t buckets, double real,
				  double perf, double sim, const char *note)
{
	struct probe_check_row r;

	memset(&r, 0, sizeof(r));
	snprintf(r.scenario, sizeof(r.scenario), "%s", name);
	r.threads = threads;
	r.shared = shared;
	r.buckets = buckets;
	r.repeats = isnan(real) ? 0 : 3;
	r.real = real;
	r.real_min = isnan(real) ? NAN : real - 1000;
	r.real_max = isnan(real) ? NAN : real + 2500;
	r.real_stderr_pct = isnan(real) ? NAN : 1.25;
	r.perf = perf;
	r.perf_stderr_pct = isnan(perf) ? NAN : 0.12;
	r.sim = sim;
	r.sim_min = isnan(sim) ? NAN : sim - 300;
	r.sim_max = isnan(sim) ? NAN : sim + 300;
	r.error_pct = isnan(real) || isnan(sim) ? NAN : round(10000.0 * (sim / real - 1.0)) / 100.0;
	snprintf(r.note, sizeof(r.note), "%s", note);
	return r;
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

START_TEST(check_csv_round_trips)
{
	struct probe_check_row rows[4];
	struct probe_check_table t = { rows, 4, NAN, NAN, NAN }, back;
	struct fs_error e = { 0 };
	char dir[64], path[128], *text, *out;

	rows[0] = row("1 thread", 1, false, PROBE_BUCKETS_AUTO, 2500000, 2679808, 3000000,
		      "private hash: 16 slots real, 16 slots simulated");
	rows[1] = row("1 thread -S", 1, true, PROBE_BUCKETS_AUTO, 2000000, NAN, 1800000, "");
	rows[2] = row("all CPUs (4) -b 0", 4, false, 0, 2400000, NAN, 2400000, "a \"quoted\" note, with a comma");
	rows[3] = row("all CPUs (4) -b 16", 4, false, 16, NAN, NAN, 2100000, "not run: no PR_FUTEX_HASH");
	/* |+20%|, |-10%|, 0: the median is 10% */
	ck_assert(probe_check_median_abs_error(&t) == 10.0);

	text = probe_check_csv(&t);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(!strncmp(text,
			       "scenario,threads,futexes,buckets,repeats,real_median,real_min,real_max,real_stderr_pct,"
			       "perf,perf_stderr_pct,simulated,simulated_min,simulated_max,error_pct,suite,unit,note\r\n"
			       "1 thread,1,private,auto,3,2500000,2499000,2502500,1.25,2679808,0.12,3000000,2999700,"
			       "3000300,20.00,hash,ops/s,\"private hash: 16 slots real, 16 slots simulated\"\r\n"
			       "1 thread -S,1,shared,auto,3,2000000,1999000,2002500,1.25,,,1800000,1799700,1800300,-10.00,"
			       "hash,ops/s,\r\n",
			       strlen("scenario,threads,futexes,buckets,repeats,real_median,real_min,real_max,"
				      "real_stderr_pct,perf,perf_stderr_pct,simulated,simulated_min,simulated_max,error_pct,"
				      "suite,unit,note\r\n1 thread,1,private,auto,3,2500000,2499000,2502500,1.25,2679808,0.12,"
				      "3000000,2999700,3000300,20.00,hash,ops/s,\"private hash: 16 slots real, 16 slots "
				      "simulated\"\r\n1 thread -S,1,shared,auto,3,2000000,1999000,2002500,1.25,,,1800000,"
				      "1799700,1800300,-10.00,hash,ops/s,\r\n")),
		      "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\"a \"\"quoted\"\" note, with a comma\"\r\n"));
	ck_assert_ptr_nonnull(strstr(text, "\r\nmedian |error|,,,,,,,,,,,,,,10.00,,,\r\n"));
	free(text);

	/* written atomically (nothing else left in the directory), read back the same */
	tu_mkdtemp(dir, "futexsim-check");
	snprintf(path, sizeof(path), "%s/table.csv", dir);
	ck_assert_msg(probe_check_csv_write(path, &t, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(files_in(dir), 1);
	ck_assert_msg(probe_check_csv_read(path, &back, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(back.n, 4);
	ck_assert(back.median_abs_error == 10.0);
	for (uint32_t i = 0; i < 4; i++) {
		const struct probe_check_row *a = &rows[i], *b = &back.rows[i];

		ck_assert_str_eq(b->scenario, a->scenario);
		ck_assert_str_eq(b->note, a->note);
		ck_assert_uint_eq(b->threads, a->threads);
		ck_assert_int_eq(b->shared, a->shared);
		ck_assert_int_eq(b->buckets, a->buckets);
		ck_assert_uint_eq(b->repeats, a->repeats);
		ck_assert(same_double(b->real, a->real) && same_double(b->real_min, a->real_min) &&
			  same_double(b->real_max, a->real_max) && same_double(b->real_stderr_pct, a->real_stderr_pct));
		ck_assert(same_double(b->perf, a->perf) && same_double(b->perf_stderr_pct, a->perf_stderr_pct));
		ck_assert(same_double(b->sim, a->sim) && same_double(b->sim_min, a->sim_min) &&
			  same_double(b->sim_max, a->sim_max));
		ck_assert_msg(same_double(b->error_pct, a->error_pct), "%s: %g %g", a->scenario, b->error_pct, a->error_pct);
	}
	probe_check_table_free(&back);

	/* the table for the terminal */
	ck_assert_int_eq(tu_shellf(&out, "printf 'x,y\\n1,2\\n' > '%s'", path), 0);
	free(out);
	ck_assert_int_eq(probe_check_csv_read(path, &back, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "not a futexsim probe --check table"));
	/* an unwritable place: nothing written */
	ck_assert_int_eq(probe_check_csv_write("/nonexistent-dir/t.csv", &t, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_OUTPUT);
	tu_rmtree(dir);
}
END_TEST

START_TEST(check_table_prints)
{
	struct probe_check_row rows[2];
	struct probe_check_table t = { rows, 2, NAN, NAN, NAN };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	rows[0] = row("1 thread", 1, false, PROBE_BUCKETS_AUTO, 2500000, 2679808, 3000000, "");
	rows[1] = row("all CPUs (2) -b 2", 2, false, 2, NAN, NAN, 2100000, "not run: no PR_FUTEX_HASH");
	probe_check_median_abs_error(&t);
	ck_assert_ptr_nonnull(f);
	probe_check_print(&t, f);
	fclose(f);
	ck_assert_msg(strstr(text, "1 thread                      2500000 (2499000-2502500, 3)       2679808    3000000 "
				   "  +20.0%") &&
			      strstr(text, "all CPUs (2) -b 2                   - (not run)                        -    2100000"
					   "        -") &&
			      strstr(text, "median |error| over 1 scenario: 20.0%") &&
			      strstr(text, "notes:\n  all CPUs (2) -b 2: not run: no PR_FUTEX_HASH\n"),
		      "%s", text);
	free(text);
}
END_TEST

/* ---- probe --check: perf ----------------------------------------------------------- */

/* perf bench futex hash's output, written from its documented format
 * (tools/perf/bench/futex-hash.c: print_summary and the per-thread lines). */
static const char perf_sample[] =
	"# Running 'futex/hash' benchmark:\n"
	"Run summary [PID 4242]: 4 threads, each operating on 1024 [private] futexes for 1 secs.\n"
	"\n"
	"[thread  0] futexes: 0x55d0c1a4d2a0 ... 0x55d0c1a4e29c [ 1234001 ops/sec ]\n"
	"[thread  1] futexes: 0x55d0c1a4e2b0 ... 0x55d0c1a4f2ac [ 1234990 ops/sec ]\n"
	"[thread  2] futexes: 0x55d0c1a4f2c0 ... 0x55d0c1a502bc [ 1233310 ops/sec ]\n"
	"[thread  3] futexes: 0x55d0c1a502d0 ... 0x55d0c1a512cc [ 1235967 ops/sec ]\n"
	"\n"
	"Averaged 1234567 operations/sec (+- 0.12%), total secs = 1\n";

START_TEST(perf_output_parsed)
{
	double avg = 0, pct = 0, secs = 0;

	ck_assert_int_eq(probe_perf_parse(perf_sample, &avg, &pct, &secs), 0);
	ck_assert(avg == 1234567);
	ck_assert(pct == 0.12);
	ck_assert(secs == 1);
	/* without the standard error (one thread prints +- 0.00%, older perf less) */
	ck_assert_int_eq(probe_perf_parse("Averaged 99 operations/sec\n", &avg, &pct, &secs), 0);
	ck_assert(avg == 99 && isnan(pct) && isnan(secs));
	/* no Averaged line at the start of a line: nothing */
	ck_assert_int_eq(probe_perf_parse("# Running 'futex/hash' benchmark:\nperf: Averaged 5\n", &avg, &pct, &secs),
			 -1);
	ck_assert_int_eq(probe_perf_parse("", &avg, &pct, &secs), -1);
	ck_assert_int_eq(probe_perf_parse("Averaged lots operations/sec\n", &avg, &pct, &secs), -1);
}
END_TEST

/* A fake perf (a shell script) through FUTEXSIM_PERF: found, its -b read from -h,
 * its Averaged figure taken; a failing one is skipped with its message. */
START_TEST(perf_found_run_and_refused)
{
	char dir[64], good[128], bad[128], sample[128], *out;
	struct probe_perf p;
	double avg = 0, pct = 0;
	char why[320];
	FILE *f;

	tu_mkdtemp(dir, "futexsim-perf");
	snprintf(sample, sizeof(sample), "%s/sample.txt", dir);
	f = fopen(sample, "w");
	ck_assert_ptr_nonnull(f);
	fputs(perf_sample, f);
	fclose(f);
	snprintf(good, sizeof(good), "%s/perf", dir);
	f = fopen(good, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n"
		   "case \"$*\" in *-h*) echo '    -b, --buckets <n>     Specify amount of hash buckets'; exit 129;; esac\n"
		   "cat '%s'\n",
		sample);
	fclose(f);
	snprintf(bad, sizeof(bad), "%s/perf-bad", dir);
	f = fopen(bad, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\necho '# Running '\"'\"'futex/hash'\"'\"' benchmark:'\necho 'perf: futex: not permitted'\nexit 1\n", f);
	fclose(f);
	ck_assert_int_eq(tu_shellf(&out, "chmod +x '%s' '%s'", good, bad), 0);
	free(out);

	setenv("FUTEXSIM_PERF", good, 1);
	probe_perf_find(&p);
	ck_assert_msg(p.usable && p.buckets, "%s", p.why);
	ck_assert_str_eq(p.path, good);
	ck_assert_int_eq(probe_perf_run(&p, 4, false, 16, &avg, &pct, why, sizeof(why)), 0);
	ck_assert(avg == 1234567 && pct == 0.12);

	setenv("FUTEXSIM_PERF", bad, 1);
	probe_perf_find(&p);
	ck_assert(p.usable && !p.buckets); /* its -h names no --buckets */
	ck_assert_int_eq(probe_perf_run(&p, 2, false, 16, &avg, &pct, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "has no -b"));
	ck_assert_int_eq(probe_perf_run(&p, 2, true, PROBE_BUCKETS_AUTO, &avg, &pct, why, sizeof(why)), 1);
	ck_assert_msg(strstr(why, "exit status 1") && strstr(why, "perf: futex: not permitted"), "%s", why);
	ck_assert(!p.usable); /* not tried again */

	setenv("FUTEXSIM_PERF", "none", 1);
	probe_perf_find(&p);
	ck_assert(!p.usable);
	ck_assert_ptr_nonnull(strstr(p.why, "FUTEXSIM_PERF=none"));
	setenv("FUTEXSIM_PERF", "/nonexistent/perf", 1);
	probe_perf_find(&p);
	ck_assert(!p.usable);
	unsetenv("FUTEXSIM_PERF");
	tu_rmtree(dir);
}
END_TEST

/* ---- probe --check: the command ------------------------------------------------- */

/* This machine's file from made-up measurements (the check compares whatever the
 * file says; only its topology must be this machine's), in dir/here.yaml. */
static void this_machine_file(const char *dir, char *path, size_t size)
{
	struct probe_topology t;
	struct probe_results r;
	struct fs_error e = { 0 };
	char *text;

	read_ok("/", &t);
	fake_results(&r, &t);
	text = probe_render(&t, &r, "here", &e);
	ck_assert_msg(text != NULL, "%s", e.msg);
	snprintf(path, size, "%s/here.yaml", dir);
	ck_assert_loads(probe_write(path, text, &t, &e), e);
	free(text);
	probe_topology_free(&t);
}

START_TEST(check_cli_usage)
{
	char dir[64], path[128], *out;
	struct probe_topology here, other;
	struct probe_results r;
	struct fs_error e = { 0 };
	char *text;

	ck_assert_int_eq(tu_futexsim("probe --check --topology", &out), 2);
	ck_assert_msg(strstr(out, "--check runs on this machine"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe --machine x.yaml -o y.yaml", &out), 2);
	ck_assert_msg(strstr(out, "--machine goes with --check"), "%s", out);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe --check -o -", &out), 2);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe --check --machine /nonexistent/m.yaml -o /tmp/futexsim-no.csv", &out), 3);
	free(out);
	ck_assert_int_eq(tu_futexsim("probe --check --machine configs/machines/small-1node.yaml -o /nonexistent-dir/t.csv",
				     &out),
			 4);
	free(out);

	/* another machine's file is refused before anything runs */
	read_ok("/", &here);
	read_ok(TREE("2node-smt"), &other);
	if (here.ncpus != other.ncpus) {
		tu_mkdtemp(dir, "futexsim-check");
		fake_results(&r, &other);
		text = probe_render(&other, &r, "other", &e);
		ck_assert_ptr_nonnull(text);
		snprintf(path, sizeof(path), "%s/other.yaml", dir);
		ck_assert_loads(probe_write(path, text, &other, &e), e);
		ck_assert_int_eq(tu_shellf(&out, "%s probe --check --machine '%s' -o '%s/t.csv'", tu_bin(), path, dir), 3);
		ck_assert_msg(strstr(out, "describes 2 node(s) x 2 cores x 2 threads"), "%s", out);
		ck_assert_uint_eq(files_in(dir), 1);
		free(out);
		free(text);
		tu_rmtree(dir);
	}
	probe_topology_free(&here);
	probe_topology_free(&other);
}
END_TEST

/* Runs `command` with prctl(PR_FUTEX_HASH, ...) failing with EINVAL, as on a kernel
 * before 6.16 (a seccomp filter, no privilege needed). Its exit status and output;
 * -2 where seccomp filters are not available. */
static int run_without_futex_hash(const char *command, char **output)
{
#if defined(__linux__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                     \
	(defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
	const unsigned arch = AUDIT_ARCH_X86_64;
#else
	const unsigned arch = AUDIT_ARCH_AARCH64;
#endif
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])), /* low half */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 78 /* PR_FUTEX_HASH */, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EINVAL & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(filter) / sizeof(filter[0])), filter };
	char dir[64], log[128], cmd[1024];
	int status, rc;
	pid_t pid;

	tu_mkdtemp(dir, "futexsim-seccomp");
	snprintf(log, sizeof(log), "%s/out", dir);
	ck_assert_uint_lt((size_t)snprintf(cmd, sizeof(cmd), "{ %s\n} > '%s' 2>&1", command, log), sizeof(cmd));
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(99);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(98);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (rc == 99) {
		tu_rmtree(dir);
		return -2;
	}
	ck_assert_int_eq(tu_shellf(output, "cat '%s'", log), 0);
	tu_rmtree(dir);
	return rc;
#else
	(void)command;
	(void)output;
	return -2;
#endif
}

/* A short real check (no perf: futexsim's own loops of perf's blocking suites),
 * once as it is and once (hash rows only) on a kernel without PR_FUTEX_HASH: a
 * table with every scenario, the hash sizes skipped with the reason in the second.
 * Skipped (loudly) where pinning is refused. */
START_TEST(check_runs_on_this_machine)
{
	char dir[64], machine[128], csv[128], anchored[160], cmd[512], *out;
	struct probe_check_table t;
	struct fs_error e = { 0 };
	int rc;

	tu_mkdtemp(dir, "futexsim-check");
	this_machine_file(dir, machine, sizeof(machine));
	snprintf(csv, sizeof(csv), "%s/table.csv", dir);
	snprintf(cmd, sizeof(cmd), "FUTEXSIM_PERF=none %s probe --check --machine '%s' --seconds 0.5 -o '%s'", tu_bin(),
		 machine, csv);
	rc = tu_shell(cmd, &out);
	if (rc == 1 && (strstr(out, "cannot pin a thread") || strstr(out, "may not run on it"))) {
		fprintf(stderr, "check_probe: SKIPPED the real check: %s\n", out);
		free(out);
		tu_rmtree(dir);
		return;
	}
	ck_assert_msg(rc == 0, "%s", out);
	ck_assert_msg(strstr(out, "perf SKIPPED: not run: FUTEXSIM_PERF=none") && strstr(out, "median |error| over") &&
			      strstr(out, "wrote "),
		      "%s", out);
	free(out);
	/* the machine file and the table; the stock rows, the machine fitted to them and
	 * the anchored table */
	ck_assert_uint_eq(files_in(dir), 5);
	snprintf(anchored, sizeof(anchored), "%s/table-anchored.csv", dir);
	ck_assert_msg(probe_check_csv_read(anchored, &t, &e) == 0, "%s", e.msg);
	for (uint32_t i = 0; i < t.n; i++)
		ck_assert_msg(!isnan(t.rows[i].sim) && (strstr(t.rows[i].note, "a fit row") ||
							 strstr(t.rows[i].note, "predicted from the fit")),
			      "%s: %s", t.rows[i].scenario, t.rows[i].note);
	probe_check_table_free(&t);
	ck_assert_msg(probe_check_csv_read(csv, &t, &e) == 0, "%s", e.msg);
	ck_assert_uint_ge(t.n, 6 + 8);
	ck_assert(!isnan(t.median_abs_error));
	for (uint32_t i = 0; i < t.n; i++) {
		const struct probe_check_row *r = &t.rows[i];

		if (strcmp(r->suite, "hash") && strcmp(r->suite, "schbench"))
			/* perf's blocking suites, without perf: futexsim's own loop of each */
			ck_assert_msg(strstr(r->note, "real: futexsim's loop of `perf bench") &&
					      strstr(r->note, "(perf not run: FUTEXSIM_PERF=none)"),
				      "%s: %s", r->scenario, r->note);
		ck_assert_msg(r->repeats >= 3 && !isnan(r->real) && !isnan(r->sim) && !isnan(r->error_pct) && isnan(r->perf),
			      "%s: %s", r->scenario, r->note);
		ck_assert(r->real > 0 && r->sim > 0);
		if (!strcmp(r->suite, "schbench"))
			ck_assert_msg(!strcmp(r->unit, "requests/s") && strstr(r->note, "futex calls per request"), "%s: %s",
				      r->scenario, r->note);
	}
	ck_assert(!isnan(t.blocking_median) && !isnan(t.blocking_max));
	probe_check_table_free(&t);
	/* the hash rows only from here on */
	snprintf(cmd, sizeof(cmd), "FUTEXSIM_PERF=none %s probe --check --machine '%s' --seconds 0.5 --no-blocking -o '%s'",
		 tu_bin(), machine, csv);

	/* the same on a kernel without PR_FUTEX_HASH */
	rc = run_without_futex_hash(cmd, &out);
	if (rc == -2) {
		fprintf(stderr, "check_probe: SKIPPED the kernel without PR_FUTEX_HASH: no seccomp filters here\n");
		tu_rmtree(dir);
		return;
	}
	ck_assert_msg(rc == 0, "%s", out);
	ck_assert_msg(strstr(out, "SKIPPING the private hash sizes (-b): this kernel has no PR_FUTEX_HASH"), "%s", out);
	free(out);
	ck_assert_msg(probe_check_csv_read(csv, &t, &e) == 0, "%s", e.msg);
	for (uint32_t i = 0; i < t.n; i++) {
		const struct probe_check_row *r = &t.rows[i];

		if (r->buckets == PROBE_BUCKETS_AUTO) {
			ck_assert_msg(r->repeats >= 3 && !isnan(r->real), "%s: %s", r->scenario, r->note);
			if (!r->shared)
				ck_assert_msg(strstr(r->note, "unknown (no PR_FUTEX_HASH: the global hash) real"), "%s", r->note);
		} else {
			ck_assert_msg(r->repeats == 0 && isnan(r->real) && isnan(r->sim) && isnan(r->error_pct) &&
					      strstr(r->note, "not run: this kernel has no PR_FUTEX_HASH"),
				      "%s: %s", r->scenario, r->note);
		}
	}
	probe_check_table_free(&t);
	tu_rmtree(dir);
}
END_TEST


/* ---- sleeping and waking: the idle states, the derivation, the sched block ---------- */

START_TEST(idle_states_read_from_sysfs)
{
	struct probe_topology t;
	uint64_t usage[PROBE_MAX_IDLE];

	/* intel_idle: every state enters by MWAIT, which polls the thread flags */
	read_ok(TREE("2node-smt"), &t);
	ck_assert(t.idle.present);
	ck_assert_str_eq(t.idle.driver, "intel_idle");
	ck_assert_str_eq(t.idle.governor, "menu");
	ck_assert_uint_eq(t.idle.n, 4);
	ck_assert_str_eq(t.idle.s[0].name, "POLL");
	ck_assert_str_eq(t.idle.s[3].name, "C6");
	ck_assert_str_eq(t.idle.s[3].desc, "MWAIT 0x20");
	ck_assert_int_eq(t.idle.s[3].latency_us, 133);
	ck_assert_int_eq(t.idle.s[3].residency_us, 600);
	for (uint32_t k = 0; k < 4; k++)
		ck_assert_msg(t.idle.s[k].polls && !t.idle.s[k].disabled, "%s", t.idle.s[k].name);
	ck_assert_int_eq(probe_idle_usage(&t, 0, usage), 0);
	ck_assert(usage[0] == 120 && usage[1] == 5000 && usage[3] == 40);
	ck_assert_int_eq(probe_idle_usage(&t, 5, usage), -1); /* no such CPU directory */
	probe_topology_free(&t);

	/* acpi_idle on a Zen part: FFH MWAIT polls, an I/O-port C-state does not; C3 disabled */
	read_ok(TREE("ccx"), &t);
	ck_assert_str_eq(t.idle.driver, "acpi_idle");
	ck_assert_uint_eq(t.idle.n, 4);
	ck_assert(t.idle.s[0].polls && t.idle.s[1].polls && !t.idle.s[2].polls && !t.idle.s[3].polls);
	ck_assert(!t.idle.s[2].disabled && t.idle.s[3].disabled);
	ck_assert_ptr_nonnull(strstr(t.idle.s[2].why, "I/O-port"));
	probe_topology_free(&t);

	/* a KVM guest's haltpoll: HLT does not poll */
	read_ok(TREE("1cpu"), &t);
	ck_assert_str_eq(t.idle.driver, "haltpoll");
	ck_assert_uint_eq(t.idle.n, 2);
	ck_assert_str_eq(t.idle.s[1].name, "haltpoll idle");
	ck_assert(t.idle.s[0].polls && !t.idle.s[1].polls);
	ck_assert_int_eq(t.idle.s[1].latency_us, 1);
	probe_topology_free(&t);

	/* no cpuidle directory at all */
	read_ok(TREE("offline"), &t);
	ck_assert(!t.idle.present);
	ck_assert_uint_eq(t.idle.n, 0);
	probe_topology_free(&t);
}
END_TEST

START_TEST(idle_polls_by_driver_and_state)
{
	static const struct {
		const char *driver, *name, *desc;
		bool polls;
		const char *why;
	} cases[] = {
		{ "haltpoll", "POLL", "CPUIDLE CORE POLL IDLE", true, "poll_state.c" },
		{ "intel_idle", "C1E", "MWAIT 0x01", true, "intel_idle" },
		{ "intel_idle", "C6", "", true, "mwait.h" },
		{ "acpi_idle", "C1", "ACPI FFH MWAIT 0x0", true, "ACPI FFH MWAIT 0x0" },
		{ "acpi_idle", "C1", "ACPI HLT", false, "HLT (ACPI HLT)" },
		{ "acpi_idle", "C2", "ACPI IOPORT 0x814", false, "I/O-port" },
		{ "haltpoll", "haltpoll idle", "default architecture idle", false, "cpuidle-haltpoll.c" },
		{ "psci_idle", "cpu-sleep", "ARM PSCI", false, "not known to poll" },
		{ "", "C1", "", false, "driver unknown" },
	};
	char why[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = probe_idle_polls(cases[i].driver, cases[i].name, cases[i].desc, why, sizeof(why));

		ck_assert_msg(got == cases[i].polls, "%s %s (%s): %d", cases[i].driver, cases[i].name, cases[i].desc, got);
		ck_assert_msg(strstr(why, cases[i].why), "%s %s: %s", cases[i].driver, cases[i].name, why);
	}
}
END_TEST

START_TEST(idle_dominant_state_of_snapshots)
{
	/* two CPUs x three states, before and after */
	const uint64_t before[] = { 10, 500, 7, 0, 900, 3 };
	const uint64_t after[] = { 12, 650, 7, 400, 905, 3 }; /* deltas: state0 2+400, state1 150+5 */

	ck_assert_int_eq(probe_idle_dominant(before, after, 2, 3), 0);
	ck_assert_int_eq(probe_idle_dominant(before, after, 1, 3), 1); /* the first CPU alone */
	ck_assert_int_eq(probe_idle_dominant(before, before, 2, 3), -1); /* nothing entered */
	ck_assert_int_eq(probe_idle_dominant(after, before, 2, 3), -1); /* counters never go back: no delta */
}
END_TEST

/* Hand-picked sched measurements (ns). */
static void fake_sched(struct probe_sched *s, double handoff, double wake, double wait, double spin, double idle,
		       double poll)
{
	memset(s, 0, sizeof(*s));
	s->idle_state = s->poll_state = -1;
	s->perf_pipe_us = NAN;
	s->slept_idle = s->slept_poll = s->slept_spin = s->slept_same = NAN;
	s->cpu_a = 0;
	s->cpu_b = 1;
	s->cross = true;
	set(&s->handoff, handoff);
	set(&s->futex_wake, wake);
	set(&s->futex_wait, wait);
	set(&s->wake_spin, spin);
	set(&s->wake_idle, idle);
	if (!isnan(poll))
		set(&s->wake_poll, poll);
	else
		snprintf(s->poll_why, sizeof(s->poll_why), "/dev/cpu_dma_latency: Permission denied (writing it takes root)");
}

START_TEST(sched_derived_by_hand)
{
	struct probe_topology vm, skx;
	struct probe_sched s;

	read_ok(TREE("1cpu"), &vm);   /* POLL 0/0 polls, haltpoll idle 1/1 HLT */
	read_ok(TREE("2node-smt"), &skx); /* POLL, C1 2us, C1E 10us, C6 133us: all poll */

	/* separable (the VM): 2400 - 200 - 300 = 1900 ns; 10000 - 150 - 0 = 9850 ns; 17700 - 10000 - (1000 - 0) = 6700 ns */
	fake_sched(&s, 2400, 200, 300, 150, 17700, 10000);
	s.idle_state = 1;
	s.poll_state = 0;
	s.slept_idle = 0.995;
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(s.context_switch.derived && s.context_switch.label == 'M');
	ck_assert(fabs(s.context_switch.ns - 1900) < 1e-9);
	ck_assert_str_eq(s.context_switch.value, "1.90us");
	ck_assert(s.wake_to_run.derived && fabs(s.wake_to_run.ns - 9850) < 1e-9);
	ck_assert_str_eq(s.wake_to_run.value, "9.85us");
	ck_assert(s.ipi.derived && fabs(s.ipi.ns - 6700) < 1e-9);
	ck_assert_str_eq(s.ipi.value, "6.70us");
	ck_assert_msg(strstr(s.ipi.how, "haltpoll idle, which does not poll) 17.70us") &&
			      strstr(s.ipi.how, "slept in 100% of its waits") && strstr(s.ipi.how, "1us - 0us (sysfs) = 6.70us") &&
			      strstr(s.ipi.how, "; STAMP"),
		      "%s", s.ipi.how);
	ck_assert_ptr_nonnull(strstr(s.context_switch.how, "= 1.90us"));
	ck_assert_str_eq(s.ipi.warning, "");

	/* the idle CPUs rested in a polling state (intel_idle's C1E): no IPI was timed;
	 * wake_to_run = idle - spin - C1E's 10 us */
	fake_sched(&s, 2400, 200, 300, 150, 15150, 12000);
	s.idle_state = 2;
	s.poll_state = 0;
	probe_sched_derive(&skx.idle, &s, "STAMP");
	ck_assert(fabs(s.wake_to_run.ns - 5000) < 1e-9);
	ck_assert(!s.ipi.derived && s.ipi.label == 'A' && s.ipi.ns == 0);
	ck_assert_str_eq(s.ipi.value, "0ns");
	ck_assert_msg(strstr(s.ipi.how, "rested in C1E, which polls"), "%s", s.ipi.how);

	/* no polling case (no root): the IPI stays in wake_to_run, said so */
	fake_sched(&s, 2400, 200, 300, 150, 17700, NAN);
	s.idle_state = 1;
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(fabs(s.wake_to_run.ns - (17700 - 150 - 1000)) < 1e-9);
	ck_assert_msg(strstr(s.wake_to_run.how, "the IPI included") && strstr(s.wake_to_run.how, "Permission denied"),
		      "%s", s.wake_to_run.how);
	ck_assert_msg(s.ipi.label == 'A' && strstr(s.ipi.how, "not separable on this host") &&
			      strstr(s.ipi.how, "its cost is in wake_to_run"),
		      "%s", s.ipi.how);

	/* the idle case on CPUs busy with other work (10 idle entries for 1000 sleeps): its
	 * state is not the wake-ups', nothing is separated, the value warned */
	ck_assert(probe_sched_was_idle(500, 1000) && !probe_sched_was_idle(499, 1000) && probe_sched_was_idle(0, 0));
	fake_sched(&s, 2400, 200, 300, 150, 17700, 10000);
	s.idle_state = 1;
	s.poll_state = 0;
	s.entries_idle = 10;
	s.sleeps_idle = 1000;
	s.entries_poll = 90000;
	s.sleeps_poll = 1000;
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(fabs(s.wake_to_run.ns - (17700 - 150)) < 1e-9); /* no state known: no exit latency taken off */
	ck_assert_msg(strstr(s.wake_to_run.warning, "wake_idle: the CPUs were busy with other work (10 idle entries for "
						    "1000 sleeps)"),
		      "%s", s.wake_to_run.warning);
	ck_assert_msg(s.ipi.label == 'A' && strstr(s.ipi.how, "busy with other work: 10 idle entries for 1000 sleeps"),
		      "%s", s.ipi.how);

	/* noise below the subtracted parts: written as 0, said so; an unstable input warned */
	fake_sched(&s, 400, 200, 300, 150, 17700, 10000);
	s.idle_state = 1;
	s.poll_state = 0;
	s.handoff.unstable = true;
	snprintf(s.handoff.warning, sizeof(s.handoff.warning), "CPU 0: made up");
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(s.context_switch.derived && s.context_switch.ns == 0);
	ck_assert_str_eq(s.context_switch.value, "0ns");
	ck_assert_ptr_nonnull(strstr(s.context_switch.how, "negative: the noise of the inputs; written as 0"));
	ck_assert_str_eq(s.context_switch.warning, "handoff: CPU 0: made up");

	/* one CPU: nothing across to time, the schema's defaults */
	fake_sched(&s, 2400, 200, 300, 150, 17700, 10000);
	s.cross = false;
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(s.context_switch.derived);
	ck_assert(!s.wake_to_run.derived && !strcmp(s.wake_to_run.value, "5us") && s.wake_to_run.label == 'A');
	ck_assert(!s.ipi.derived && !strcmp(s.ipi.value, "0ns"));

	/* nothing measured at all */
	memset(&s, 0, sizeof(s));
	s.idle_state = s.poll_state = -1;
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(!strcmp(s.context_switch.value, "1.5us") && s.context_switch.label == 'A');
	probe_topology_free(&vm);
	probe_topology_free(&skx);
}
END_TEST

/* The waker's side: ipi_send = wake_call_idle - futex_wake when the idle case's
 * target did not poll; thread_exit = exit_cold - context_switch. By hand. */
START_TEST(sched_waker_side_by_hand)
{
	struct probe_topology vm, skx;
	struct probe_sched s;

	read_ok(TREE("1cpu"), &vm);
	read_ok(TREE("2node-smt"), &skx);

	/* the VM: 5800 - 200 = 5600 ns; 68900 - (2400 - 200 - 300) = 67000 ns */
	fake_sched(&s, 2400, 200, 300, 150, 17700, 10000);
	s.idle_state = 1;
	s.poll_state = 0;
	set(&s.wake_call_idle, 5800);
	set(&s.exit_cold, 68900);
	s.exit_preempted = 0.3;
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(s.ipi_send.derived && s.ipi_send.label == 'M' && fabs(s.ipi_send.ns - 5600) < 1e-9);
	ck_assert_str_eq(s.ipi_send.value, "5.60us");
	ck_assert_msg(strstr(s.ipi_send.how, "in haltpoll idle, which does not poll) 5.80us") &&
			      strstr(s.ipi_send.how, "= 5.60us") && strstr(s.ipi_send.how, "; STAMP"),
		      "%s", s.ipi_send.how);
	ck_assert(s.thread_exit.derived && s.thread_exit.label == 'M' && fabs(s.thread_exit.ns - 67000) < 1e-9);
	ck_assert_str_eq(s.thread_exit.value, "67.00us");
	ck_assert_msg(strstr(s.thread_exit.how, "preempted the waker in 30%") &&
			      strstr(s.thread_exit.how, "less one context switch 1.90us = 67.00us"),
		      "%s", s.thread_exit.how);

	/* idle CPUs that poll (intel_idle's C1E): the wake-ups sent no IPI, nothing to send */
	fake_sched(&s, 2400, 200, 300, 150, 15150, 12000);
	s.idle_state = 2;
	s.poll_state = 0;
	set(&s.wake_call_idle, 900);
	probe_sched_derive(&skx.idle, &s, "STAMP");
	ck_assert(!s.ipi_send.derived && s.ipi_send.label == 'A' && s.ipi_send.ns == 0);
	ck_assert_msg(strstr(s.ipi_send.how, "rested in a state that polls"), "%s", s.ipi_send.how);
	/* the exit case not run: no exit cost */
	ck_assert(!s.thread_exit.derived && s.thread_exit.label == 'A' && !strcmp(s.thread_exit.value, "0ns"));

	/* busy CPUs (the idle case's state not the wake-ups'): whether IPIs went is not known */
	fake_sched(&s, 2400, 200, 300, 150, 17700, 10000);
	s.idle_state = 1;
	s.entries_idle = 10;
	s.sleeps_idle = 1000;
	set(&s.wake_call_idle, 5800);
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(!s.ipi_send.derived && s.ipi_send.ns == 0);
	ck_assert_msg(strstr(s.ipi_send.how, "busy with other work"), "%s", s.ipi_send.how);

	/* one CPU: no IPI to send; the exit still measured */
	fake_sched(&s, 2400, 200, 300, 150, 17700, 10000);
	s.cross = false;
	set(&s.exit_cold, 10000);
	probe_sched_derive(&vm.idle, &s, "STAMP");
	ck_assert(!s.ipi_send.derived && strstr(s.ipi_send.how, "one CPU"));
	ck_assert(s.thread_exit.derived && fabs(s.thread_exit.ns - 8100) < 1e-9);
	probe_topology_free(&vm);
	probe_topology_free(&skx);
}
END_TEST

START_TEST(sched_block_written_and_loaded)
{
	static const char *const trees[] = { TREE("1cpu"), TREE("2node-smt"), TREE("ccx"), TREE("offline") };
	char dir[64], path[128];

	tu_mkdtemp(dir, "futexsim-sched");
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct probe_topology t;
		struct probe_results r;
		struct fs_error e = { 0 };
		struct machine m;
		char *text;

		read_ok(trees[i], &t);
		probe_results_init(&r, &t);
		fake_sched(&r.sched, 2400, 200, 300, 150, 17700, 10000);
		r.sched.idle_state = t.idle.n > 1 ? 1 : -1;
		r.sched.poll_state = t.idle.n ? 0 : -1;
		probe_results_finish(&r, &t);
		text = probe_render(&t, &r, "sched", &e);
		ck_assert_msg(text != NULL, "%s", e.msg);
		ck_assert_msg(strstr(text, "\nsched:                    # [M] sleeping and waking") != NULL, "%s", text);
		write_plain(dir, "sched.yaml", text, path, sizeof(path));
		sources_ok(path);
		load_machine(text, &m);
		ck_assert(m.sched.given);
		ck_assert_uint_eq(m.sched.context_switch_ps, 1900000);
		if (!strcmp(trees[i], TREE("1cpu"))) {
			/* POLL polls, HLT does not: separable */
			ck_assert_uint_eq(m.sched.nidle, 2);
			ck_assert_str_eq(m.sched.idle[1].name, "haltpoll idle");
			ck_assert(m.sched.idle[0].polls && !m.sched.idle[1].polls);
			ck_assert_uint_eq(m.sched.idle[1].exit_latency_ps, 1000000);
			ck_assert_uint_eq(m.sched.ipi_ps, 6700000);
			ck_assert_uint_eq(m.sched.wake_to_run_ps, 9850000);
			ck_assert_ptr_nonnull(strstr(text, "    - {name: \"haltpoll idle\", exit_latency: 1us, target_residency: "
							   "1us, polls: false} # [M] state1 (default architecture idle)"));
		} else if (!strcmp(trees[i], TREE("2node-smt"))) {
			/* every state polls: no IPI timed */
			ck_assert_uint_eq(m.sched.nidle, 4);
			ck_assert_uint_eq(m.sched.idle[3].exit_latency_ps, 133000000);
			ck_assert_uint_eq(m.sched.idle[3].target_residency_ps, 600000000);
			ck_assert(m.sched.idle[3].polls);
			ck_assert_uint_eq(m.sched.ipi_ps, 0);
			ck_assert_uint_eq(m.sched.wake_to_run_ps, (17700 - 150 - 2000) * 1000);
		} else if (!strcmp(trees[i], TREE("ccx"))) {
			/* C3 disabled: left out with a comment */
			ck_assert_uint_eq(m.sched.nidle, 3);
			ck_assert_ptr_nonnull(strstr(text, "    # state3 (C3, 350/700 us) left out: disabled"));
			ck_assert(!m.sched.idle[2].polls);
		} else {
			/* no cpuidle: one assumed state */
			ck_assert_uint_eq(m.sched.nidle, 1);
			ck_assert_str_eq(m.sched.idle[0].name, "default idle");
			ck_assert_ptr_nonnull(strstr(text, "  idle_states:            # [A] no cpuidle states"));
		}
		machine_free(&m);
		free(text);
		/* a table whose residency goes down is raised to stay non-decreasing (the schema) */
		if (t.idle.n >= 3) {
			t.idle.s[2].residency_us = 0;
			text = probe_render(&t, &r, "sched", &e);
			ck_assert_msg(text != NULL, "%s", e.msg);
			ck_assert_ptr_nonnull(strstr(text, "; raised to "));
			load_machine(text, &m);
			ck_assert(m.sched.idle[2].target_residency_ps >= m.sched.idle[1].target_residency_ps);
			machine_free(&m);
			free(text);
		}
		probe_topology_free(&t);
	}
	tu_rmtree(dir);
}
END_TEST


/* The sched: block docs/probe.md shows (as a run on the development VM wrote it)
 * loads with the machine parser, in place of a rendered file's own. */
START_TEST(docs_sched_sample_loads)
{
	struct probe_topology t;
	struct probe_results r;
	struct fs_error e = { 0 };
	struct machine m;
	char *doc = NULL, *text, *start, *end, *mine, *merged;
	size_t len = 0;
	FILE *f = fopen("docs/probe.md", "r");

	ck_assert_ptr_nonnull(f);
	ck_assert(getdelim(&doc, &len, '\0', f) > 0);
	fclose(f);
	start = strstr(doc, "```yaml\nsched:");
	ck_assert_msg(start != NULL, "docs/probe.md has no ```yaml block starting with sched:");
	start += strlen("```yaml\n");
	end = strstr(start, "\n```");
	ck_assert_ptr_nonnull(end);
	end[1] = '\0';
	read_ok(TREE("1cpu"), &t);
	fake_results(&r, &t);
	text = probe_render(&t, &r, "docs", &e);
	ck_assert_msg(text != NULL, "%s", e.msg);
	mine = strstr(text, "\nsched:");
	ck_assert_ptr_nonnull(mine);
	merged = malloc(strlen(text) + strlen(start) + 2);
	ck_assert_ptr_nonnull(merged);
	sprintf(merged, "%.*s\n%s%s", (int)(mine - text), text, start, strstr(mine, "\nuncertainty:") + 1);
	load_machine(merged, &m);
	ck_assert(m.sched.given);
	ck_assert_uint_eq(m.sched.nidle, 2);
	ck_assert_str_eq(m.sched.idle[1].name, "haltpoll idle");
	ck_assert(m.sched.idle[0].polls && !m.sched.idle[1].polls);
	ck_assert(m.sched.context_switch_ps > 0 && m.sched.wake_to_run_ps > 0);
	machine_free(&m);
	free(merged);
	free(text);
	free(doc);
	probe_topology_free(&t);
}
END_TEST

/* ---- the blocking rows ------------------------------------------------------------------ */

START_TEST(own_loops_read_from_perf_lines)
{
	struct probe_suite_run r;
	char msg[256];

	ck_assert_msg(probe_suite_from_line("perf bench -r 5 futex wake -t 8 -w 2", 2, &r, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_str_eq(r.suite, "wake");
	ck_assert(r.threads == 8 && r.runs == 5 && r.nwake == 2 && !r.shared);
	ck_assert_int_eq(probe_suite_from_line("perf bench futex wake-parallel -t 4 -w 2 -S", 2, &r, msg, sizeof(msg)), 0);
	ck_assert(!strcmp(r.suite, "wake-parallel") && r.threads == 4 && r.wakers == 2 && r.runs == 10 && r.shared);
	ck_assert_int_eq(probe_suite_from_line("perf bench futex requeue -q 2", 6, &r, msg, sizeof(msg)), 0);
	ck_assert(!strcmp(r.suite, "requeue") && r.threads == 6 && r.nrequeue == 2); /* -t: every CPU, as perf */
	ck_assert_int_eq(probe_suite_from_line("perf bench futex lock-pi -t 2 -M -r 1", 2, &r, msg, sizeof(msg)), 0);
	ck_assert(!strcmp(r.suite, "lock-pi") && r.threads == 2 && r.multi && fabs(r.seconds - 1.0) < 1e-9);
	/* what the own loops do not do */
	ck_assert_int_eq(probe_suite_from_line("perf bench futex requeue -t 4 -p", 2, &r, msg, sizeof(msg)), -1);
	ck_assert_ptr_nonnull(strstr(msg, "-B and -p"));
	ck_assert_int_eq(probe_suite_from_line("perf bench futex wake-parallel -t 5 -w 2", 2, &r, msg, sizeof(msg)), -1);
	ck_assert_int_eq(probe_suite_from_line("perf bench futex hash -t 2", 2, &r, msg, sizeof(msg)), -1);
	ck_assert_ptr_nonnull(strstr(msg, "not one of perf's blocking suites"));
}
END_TEST

START_TEST(schbench_protocol)
{
	_Atomic uint32_t w = 0;
	_Atomic int stop = 0;
	struct probe_sb_node a = { 0, NULL }, b = { 0, NULL }, c = { 0, NULL };
	struct probe_sb_node *_Atomic head = NULL, *n;
	uint64_t calls = 0;

	/* post: CAS 0 -> 1 and a FUTEX_WAKE only when it succeeded */
	ck_assert(probe_sb_post(&w, &calls));
	ck_assert_uint_eq(atomic_load(&w), 1);
	ck_assert_uint_eq(calls, 1);
	ck_assert(!probe_sb_post(&w, &calls)); /* already posted: no call */
	ck_assert_uint_eq(calls, 1);
	/* wait: CAS 1 -> 0 at once, no call */
	ck_assert_int_eq(probe_sb_wait(&w, &stop, &calls), 0);
	ck_assert_uint_eq(atomic_load(&w), 0);
	ck_assert_uint_eq(calls, 1);
	ck_assert(!probe_sb_try_wait(&w)); /* nothing posted */
	/* a wait with nothing posted and the stop flag set returns 1 without sleeping */
	atomic_store(&stop, 1);
	ck_assert_int_eq(probe_sb_wait(&w, &stop, &calls), 1);
	/* the list: pushed a, b, c; taken whole, most recent first, and empty after */
	probe_sb_push(&head, &a);
	probe_sb_push(&head, &b);
	probe_sb_push(&head, &c);
	n = probe_sb_take(&head);
	ck_assert(n == &c && n->next == &b && n->next->next == &a && a.next == NULL);
	ck_assert_ptr_null(atomic_load(&head));
	ck_assert_ptr_null(probe_sb_take(&head));
}
END_TEST

START_TEST(block_scenarios_of_two_cpus)
{
	static const char *const names[] = { "wake -t 2", "wake -t 8", "wake-parallel -t 4 -w 2", "requeue -t 4",
					     "lock-pi -t 2", "lock-pi -t 2 -M", "schbench -m 1 -t 2", "schbench -m 2 -t 4" };
	struct probe_topology t;
	struct probe_block_scenario *b;
	struct fs_error e = { 0 };
	uint32_t n;

	read_ok(TREE("ccx"), &t); /* 8 CPUs: capped at 8 */
	ck_assert_int_eq(probe_block_scenarios(&t, &b, &n, &e), 0);
	ck_assert_str_eq(b[1].name, "wake -t 32");
	ck_assert_str_eq(b[7].name, "schbench -m 8 -t 16");
	free(b);
	probe_topology_free(&t);

	read_ok(TREE("offline"), &t);
	t.ncpus = 2; /* as the 2-vCPU VM */
	ck_assert_int_eq(probe_block_scenarios(&t, &b, &n, &e), 0);
	ck_assert_uint_eq(n, 8);
	for (uint32_t i = 0; i < n; i++) {
		struct perfbench_sets sets;
		enum perfbench_figure fig;
		char msg[256];

		ck_assert_str_eq(b[i].name, names[i]);
		if (!strcmp(b[i].suite, "schbench")) {
			ck_assert_str_eq(b[i].unit, "requests/s");
			ck_assert_str_eq(b[i].real, "");
			continue;
		}
		/* perf's line and futexsim's parse alike; the figure is perf's */
		ck_assert_msg(perfbench_line_sets(b[i].sim, "small-1node", "linux-6.18", NULL, &sets, &fig, msg, sizeof(msg)) == 0,
			      "%s: %s", b[i].sim, msg);
		ck_assert_int_eq(fig, strcmp(b[i].unit, "ms") ? PERF_FIGURE_OPS_PER_SEC : PERF_FIGURE_MS);
		ck_assert_msg(perfbench_line_sets(b[i].real, "small-1node", "linux-6.18", NULL, &sets, &fig, msg, sizeof(msg)) == 0,
			      "%s: %s", b[i].real, msg);
	}
	ck_assert_str_eq(b[0].real, "perf bench -r 5 futex wake -t 2");
	ck_assert_str_eq(b[4].real, "perf bench futex lock-pi -t 2 -r 1");
	ck_assert_str_eq(b[4].sim, "perf bench futex lock-pi -t 2 -r 0.1");
	ck_assert(b[6].m == 1 && b[6].t == 2 && b[6].threads == 3);
	ck_assert(b[7].m == 2 && b[7].t == 4 && b[7].threads == 10);
	free(b);
	t.ncpus = 4;
	probe_topology_free(&t);
}
END_TEST

START_TEST(blocking_rows_in_the_table_and_csv)
{
	struct probe_check_row rows[4];
	struct probe_check_table t = { rows, 4, NAN, NAN, NAN }, back;
	struct fs_error e = { 0 };
	char dir[64], path[128], *text = NULL;
	size_t len = 0;
	FILE *f;

	rows[0] = row("1 thread", 1, false, PROBE_BUCKETS_AUTO, 2500000, NAN, 3000000, "");
	rows[1] = row("wake -t 2", 2, false, PROBE_BUCKETS_AUTO, 0.1102, NAN, 0.0990, "real: `perf bench -r 5 futex wake -t 2`");
	rows[2] = row("lock-pi -t 2", 2, false, PROBE_BUCKETS_AUTO, 3000, NAN, 3300, "");
	rows[3] = row("schbench -m 1 -t 2", 3, false, PROBE_BUCKETS_AUTO, 160000, NAN, 240000, "");
	snprintf(rows[0].suite, sizeof(rows[0].suite), "hash");
	snprintf(rows[1].suite, sizeof(rows[1].suite), "wake");
	snprintf(rows[1].unit, sizeof(rows[1].unit), "ms");
	snprintf(rows[2].suite, sizeof(rows[2].suite), "lock-pi");
	snprintf(rows[2].unit, sizeof(rows[2].unit), "ops/s");
	snprintf(rows[3].suite, sizeof(rows[3].suite), "schbench");
	snprintf(rows[3].unit, sizeof(rows[3].unit), "requests/s");
	for (int i = 1; i < 4; i++) {
		rows[i].real_min = 0.9 * rows[i].real;
		rows[i].real_max = 1.1 * rows[i].real;
		rows[i].sim_min = rows[i].sim_max = rows[i].sim;
		rows[i].real_stderr_pct = NAN;
	}
	/* the hash rows' median (+20%) apart from the blocking rows': -10.16%, +10%, +50% */
	ck_assert(probe_check_median_abs_error(&t) == 20.0);
	ck_assert(fabs(t.blocking_median - 10.16) < 1e-9);
	ck_assert(t.blocking_max == 50.0);

	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	probe_check_print(&t, f);
	fclose(f);
	ck_assert_msg(strstr(text, "median |error| over 1 scenario: 20.0%\n\nblocking suites (") &&
			      strstr(text, "wake -t 2                      0.1102 (0.0992-0.1212, 3)               -     0.0990   -10.2%") &&
			      strstr(text, "schbench -m 1 -t 2             160000 (144000-176000, 3)               -     240000   +50.0%") &&
			      strstr(text, "blocking median |error| over 3 rows: 10.2%, max 50.0%"),
		      "%s", text);
	free(text);

	text = probe_check_csv(&t);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, ",error_pct,suite,unit,note\r\n") &&
			      strstr(text, "\r\nwake -t 2,2,private,auto,3,0.1102,0.0992,0.1212,,,,0.0990,0.0990,0.0990,-10.16,wake,ms,") &&
			      strstr(text, ",50.00,schbench,requests/s,\r\n") &&
			      strstr(text, "\r\nmedian |error|,,,,,,,,,,,,,,20.00,,,\r\n") &&
			      strstr(text, "\r\nblocking median |error|,,,,,,,,,,,,,,10.16,,,\r\n") &&
			      strstr(text, "\r\nblocking max |error|,,,,,,,,,,,,,,50.00,,,\r\n"),
		      "%s", text);
	free(text);
	tu_mkdtemp(dir, "futexsim-check");
	snprintf(path, sizeof(path), "%s/table.csv", dir);
	ck_assert_msg(probe_check_csv_write(path, &t, &e) == 0, "%s", e.msg);
	ck_assert_msg(probe_check_csv_read(path, &back, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(back.n, 4);
	ck_assert(back.median_abs_error == 20.0 && back.blocking_median == 10.16 && back.blocking_max == 50.0);
	ck_assert_str_eq(back.rows[1].suite, "wake");
	ck_assert_str_eq(back.rows[1].unit, "ms");
	ck_assert_str_eq(back.rows[3].unit, "requests/s");
	ck_assert_str_eq(back.rows[1].note, "real: `perf bench -r 5 futex wake -t 2`");
	probe_check_table_free(&back);
	tu_rmtree(dir);
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *topology = tcase_create("topology");
	TCase *file = tcase_create("file");
	TCase *lowtail = tcase_create("lowtail");
	TCase *mitigations = tcase_create("mitigations");
	TCase *kernel = tcase_create("kernel");
	TCase *cli = tcase_create("cli");
	TCase *check = tcase_create("check");
	TCase *sched = tcase_create("sched");

	tcase_add_test(topology, two_nodes_smt_cores_first);
	tcase_add_test(topology, one_cpu_without_numa);
	tcase_add_test(topology, offline_cpus_are_left_out);
	tcase_add_test(topology, clusters_and_a_memory_only_node);
	tcase_add_test(topology, inexpressible_topologies_are_refused);
	tcase_add_loop_test(file, written_file_round_trips, 0,
			    (int)(sizeof(round_trip_trees) / sizeof(round_trip_trees[0])));
	tcase_add_test(file, nothing_measured_is_labelled);
	tcase_add_test(file, several_distances_make_a_map);
	tcase_add_test(file, a_wrong_file_is_never_written);
	tcase_add_test(file, names_from_paths);
	tcase_add_test(lowtail, low_tail_ignores_the_slow_rounds);
	tcase_add_test(lowtail, steady_rounds_are_stable);
	tcase_add_test(lowtail, spread_beyond_the_limit_is_unstable);
	tcase_add_test(lowtail, drift_between_halves_is_unstable);
	tcase_add_test(lowtail, attempts_keep_the_lowest_until_one_is_stable);
	tcase_add_test(lowtail, pairs_combine_to_the_median_low_tail);
	tcase_add_test(lowtail, unstable_value_is_warned);
	tcase_add_test(mitigations, mitigation_words);
	tcase_add_test(mitigations, mitigation_texts_by_name);
	tcase_add_loop_test(kernel, kernel_preset_of_release, 0, (int)(sizeof(presets) / sizeof(presets[0])));
	tcase_add_test(cli, cli_topology_and_usage);
	tcase_add_test(cli, cli_probes_this_machine);
	tcase_set_timeout(cli, 60);
	tcase_add_test(sched, idle_states_read_from_sysfs);
	tcase_add_test(sched, idle_polls_by_driver_and_state);
	tcase_add_test(sched, idle_dominant_state_of_snapshots);
	tcase_add_test(sched, sched_derived_by_hand);
	tcase_add_test(sched, sched_waker_side_by_hand);
	tcase_add_test(sched, sched_block_written_and_loaded);
	tcase_add_test(sched, docs_sched_sample_loads);
	tcase_add_test(check, schbench_protocol);
	tcase_add_test(check, own_loops_read_from_perf_lines);
	tcase_add_test(check, block_scenarios_of_two_cpus);
	tcase_add_test(check, blocking_rows_in_the_table_and_csv);
	tcase_add_test(check, check_scenarios_of_one_cpu);
	tcase_add_test(check, check_scenarios_of_two_cores_two_threads);
	tcase_add_test(check, check_csv_round_trips);
	tcase_add_test(check, check_table_prints);
	tcase_add_test(check, perf_output_parsed);
	tcase_add_test(check, perf_found_run_and_refused);
	tcase_add_test(check, check_cli_usage);
	tcase_add_test(check, check_runs_on_this_machine);
	tcase_set_timeout(check, 120);
	suite_add_tcase(s, topology);
	suite_add_tcase(s, file);
	suite_add_tcase(s, lowtail);
	suite_add_tcase(s, mitigations);
	suite_add_tcase(s, kernel);
	suite_add_tcase(s, cli);
	suite_add_tcase(s, check);
	suite_add_tcase(s, sched);
	return s;
}

int main(void)
{
	return tu_run_suite(probe_suite());
}
