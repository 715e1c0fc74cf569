/* Tests of futexsim probe (sim/probe*.c): the topology read from the fake sysfs
 * trees of tests/probe/ (tests/probe/README.md says what each one is), the
 * refusal of topologies the machine schema cannot express, the machine file
 * written from made-up measurements (loads with machine_from_yaml with the same
 * topology, every constant with a source comment, written atomically), the
 * kernel preset chosen for a release, and the command line. No timing
 * assertions: the one real measurement only has to produce a loadable file.
 * Run from the repository root (the trees and configs/ are read from there). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/machine.h"
#include "sim/core/yamltree.h"
#include "sim/probe.h"
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

static void set(struct probe_value *v, double x)
{
	v->measured = true;
	v->n = 20;
	v->median = x;
	v->lo = 0.9 * x;
	v->hi = 1.2 * x;
	v->percentiles = true;
	snprintf(v->how, sizeof(v->how), "made up by check_probe");
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
		set(&r->smt_slowdown, 1.25);
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

/* Loads `text` as the config loader does; fails the test on error. */
static void load_machine(const char *text, struct machine *m)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *root;

	ck_assert_ptr_nonnull(d);
	root = yt_load_string(d, "probed.yaml", text, strlen(text), &e);
	ck_assert_msg(root != NULL, "%s\n%s", e.msg, text);
	ck_assert_msg(machine_from_yaml(m, root, &e) == 0, "%s\n%s", e.msg, text);
	yt_doc_free(d);
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
	ck_assert_msg(probe_verify(text, "probed.yaml", &t, &e) == 0, "%s", e.msg);
	load_machine(text, &m);
	same_topology(&m, &t);
	ck_assert_str_eq(m.name, "probed-test");
	ck_assert_uint_eq(m.freq_khz, t.freq_khz);
	/* measured values as written: the medians */
	ck_assert_uint_eq(m.syscall_ps, 95300);
	ck_assert_uint_eq(m.line_hit_ps, 1250);
	ck_assert_uint_eq(m.memory_local_ps, 92500);
	ck_assert_ptr_nonnull(strstr(text, "syscall: 95.3ns"));
	ck_assert_ptr_nonnull(strstr(text, "# [M] measured by futexsim probe: median 95.30ns, spread 85.77-114.36ns "
					   "(p10-p90) over 20 trials; made up by check_probe; "));
	ck_assert_ptr_nonnull(strstr(text, t.model));
	ck_assert_ptr_nonnull(strstr(text, t.release));
	if (t.threads_per_core > 1) {
		ck_assert_uint_eq(m.transfer_smt_ps, 8900);
		ck_assert_uint_eq(m.smt_slowdown_milli, 1250);
	} else {
		/* unmeasurable: said so, with the reason */
		ck_assert_uint_eq(m.smt_slowdown_milli, 1000);
		ck_assert_ptr_nonnull(strstr(text, "smt_slowdown: 1.0       # [D] no SMT"));
		ck_assert_ptr_nonnull(strstr(text, "transfer_smt: "));
		ck_assert_ptr_nonnull(strstr(text, "# [A] no SMT (threads_per_core 1): never used"));
	}
	if (t.clusters)
		ck_assert_uint_eq(m.transfer_cluster_ps, 20500);
	if (t.nodes > 1) {
		ck_assert_uint_eq(m.remote_ps[1], 121000); /* distance 21 */
		ck_assert_uint_eq(m.mem_ps[1], 171000);
	}
	if (t.ncpus == 1)
		ck_assert_ptr_nonnull(strstr(text, "transfer_node: 40ns     # [A] no two cores on one node (one CPU)"));
	ck_assert_ptr_nonnull(strstr(text, "line_hold: 10 cycles    # [A] not measurable by futexsim probe"));

	/* written atomically: the file, and nothing else, in its directory; sourced */
	tu_mkdtemp(dir, "futexsim-probe");
	snprintf(path, sizeof(path), "%s/probed.yaml", dir);
	ck_assert_msg(probe_write(path, text, &t, &e) == 0, "%s", e.msg);
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
	load_machine(text, &m);
	same_topology(&m, &t);
	machine_free(&m);
	tu_mkdtemp(dir, "futexsim-probe");
	snprintf(path, sizeof(path), "%s/nothing.yaml", dir);
	ck_assert_msg(probe_write(path, text, &t, &e) == 0, "%s", e.msg);
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
	ck_assert_msg(strstr(e.msg, "loads with nodes 1 where the probed machine has 2"), "%s", e.msg);
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
			      !strstr(out, "mds:"),
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
	if (rc == 1 && strstr(out, "sched_setaffinity")) {
		fprintf(stderr, "check_probe: SKIPPED the real probe: %s\n", out);
		free(out);
		tu_rmtree(dir);
		return;
	}
	ck_assert_msg(rc == 0, "%s", out);
	ck_assert_msg(strstr(out, "futexsim probe: [1/") && strstr(out, "wrote "), "%s", out);
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
	ck_assert_ptr_nonnull(strstr(text, "[M] measured by futexsim probe: median"));
	sources_ok(path);
	machine_free(&m);
	probe_topology_free(&t);
	free(text);
	tu_rmtree(dir);
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *topology = tcase_create("topology");
	TCase *file = tcase_create("file");
	TCase *kernel = tcase_create("kernel");
	TCase *cli = tcase_create("cli");

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
	tcase_add_loop_test(kernel, kernel_preset_of_release, 0, (int)(sizeof(presets) / sizeof(presets[0])));
	tcase_add_test(cli, cli_topology_and_usage);
	tcase_add_test(cli, cli_probes_this_machine);
	tcase_set_timeout(cli, 60);
	suite_add_tcase(s, topology);
	suite_add_tcase(s, file);
	suite_add_tcase(s, kernel);
	suite_add_tcase(s, cli);
	return s;
}

int main(void)
{
	return tu_run_suite(probe_suite());
}
