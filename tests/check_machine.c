/* SPDX-License-Identifier: MIT */
/* Tests of models/machine.c: CPU numbering, per-pair costs, CPU lists, YAML
 * errors and the shipped presets. Expected values are computed by hand from the
 * YAML texts below and the numbering rules in models/machine.h.
 * Run from the repository root (the presets are loaded from configs/machines/). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/machine.h"
#include "sim/core/yamltree.h"
#include "tests/testutil.h"

#define E5_PATH "configs/machines/e5-2650-2s-hw.yaml"
#define E7_PATH "configs/machines/e7-8890v3-4s.yaml"
#define EPYC_PATH "configs/machines/epyc-7713-2s.yaml"
#define SKYLAKE_PATH "configs/machines/skylake-sp-8180-2s.yaml"
#define SMALL_PATH "configs/machines/small-1node.yaml"

/* ---- helpers ---------------------------------------------------------------- */

/* Loads `text` as "inline.yaml" and builds a machine from it. The document is
 * freed before returning: the machine must not point into it. */
static int load_text(const char *text, struct machine *m, struct fs_error *e)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *root;
	int rc = -1;

	ck_assert_ptr_nonnull(d);
	memset(m, 0xa5, sizeof(*m)); /* garbage in: machine_from_yaml must reset it */
	root = yt_load_string(d, "inline.yaml", text, strlen(text), e);
	if (root)
		rc = machine_from_yaml(m, root, e);
	else
		memset(m, 0, sizeof(*m));
	yt_doc_free(d);
	return rc;
}

static void load_text_ok(const char *text, struct machine *m)
{
	struct fs_error e = { 0 };

	ck_assert_msg(load_text(text, m, &e) == 0, "unexpected error: %s", e.msg);
}

static void load_file_ok(const char *path, struct machine *m)
{
	struct yt_doc *d = yt_doc_new();
	struct fs_error e = { 0 };
	struct yt_node *root;

	ck_assert_ptr_nonnull(d);
	root = yt_load_file(d, path, &e);
	ck_assert_msg(root != NULL, "%s: %s", path, e.msg);
	ck_assert_msg(machine_from_yaml(m, root, &e) == 0, "%s: %s", path, e.msg);
	yt_doc_free(d);
}

/* A 3-node machine whose costs exercise both forms and both units. Cycles are at
 * 2.5 GHz, i.e. 400 ps. CPUs (cores-first, 6 cores): CPU c is core c % 6, SMT
 * thread c / 6, node (c % 6) / 2. Line numbers matter: error tests replace
 * one line and expect errors at positions computed on these lines. */
static const char *const tri_lines[] = {
	/*  1 */ "name: tri",
	/*  2 */ "topology: {nodes: 3, cores_per_node: 2, threads_per_core: 2}",
	/*  3 */ "frequency: 2.5GHz",
	/*  4 */ "distance: [[10, 21, 31], [21, 10, 21], [31, 21, 10]]",
	/*  5 */ "costs:",
	/*  6 */ "  line_hit: 2 cycles",
	/*  7 */ "  atomic_hit: 20 cycles",
	/*  8 */ "  transfer_smt: 20 cycles",
	/*  9 */ "  transfer_node: 40ns",
	/* 10 */ "  transfer_remote: {21: 100ns, 31: 300 cycles}",
	/* 11 */ "  memory_local: 80ns",
	/* 12 */ "  memory_remote: {21: 150ns, 31: 500 cycles}",
	/* 13 */ "  syscall: 1.5us",
	/* 14 */ "  line_hold: 1.5 cycles",
	/* 15 */ "  smt_slowdown: 1.25",
	NULL,
};

/* The tri machine with line `line` (1-based; 0 = none) replaced by `text`.
 * Removing a key is done by replacing its line with a comment, so that the
 * following lines keep their numbers. Caller frees. */
static char *tri_text(unsigned line, const char *text)
{
	size_t size = 1;
	char *out;

	for (unsigned i = 0; tri_lines[i]; i++)
		size += strlen(i + 1 == line ? text : tri_lines[i]) + 1;
	out = malloc(size);
	ck_assert_ptr_nonnull(out);
	out[0] = '\0';
	for (unsigned i = 0; tri_lines[i]; i++) {
		strcat(out, i + 1 == line ? text : tri_lines[i]);
		strcat(out, "\n");
	}
	return out;
}

/* The tri machine as it is. */
static void load_tri(struct machine *m)
{
	char *text = tri_text(0, NULL);

	load_text_ok(text, m);
	free(text);
}

static void ck_assert_cpus(const uint32_t *got, uint32_t ngot, const uint32_t *want, uint32_t nwant)
{
	ck_assert_uint_eq(ngot, nwant);
	for (uint32_t i = 0; i < nwant; i++)
		ck_assert_msg(got[i] == want[i], "entry %u: got CPU %u, expected %u", i, got[i],
			      want[i]);
}

/* ---- numbering ---------------------------------------------------------------- */

START_TEST(e5_numbering_is_cores_first)
{
	struct machine m;

	load_file_ok(E5_PATH, &m);
	ck_assert_uint_eq(m.ncpus, 32);
	ck_assert_uint_eq(m.ncores, 16);
	ck_assert_uint_eq(m.nodes, 2);
	ck_assert_int_eq(m.numbering, NUMBERING_CORES_FIRST);
	/* {cpu, core, node, smt} */
	static const uint32_t want[][4] = {
		{ 0, 0, 0, 0 }, { 7, 7, 0, 0 }, { 8, 8, 1, 0 }, { 15, 15, 1, 0 },
		{ 16, 0, 0, 1 }, { 23, 7, 0, 1 }, { 24, 8, 1, 1 }, { 31, 15, 1, 1 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t cpu = want[i][0];

		ck_assert_uint_eq(m.cpu_core[cpu], want[i][1]);
		ck_assert_uint_eq(m.cpu_node[cpu], want[i][2]);
		ck_assert_uint_eq(machine_cpu_of(&m, want[i][1], want[i][3]), cpu);
	}
	machine_free(&m);
}
END_TEST

static const char adjacent_yaml[] =
	"name: adj\n"
	"topology: {nodes: 2, cores_per_node: 2, threads_per_core: 2, numbering: smt-adjacent}\n"
	"frequency: 1GHz\n"
	"distance: [[10, 21], [21, 10]]\n"
	"costs: {line_hit: 2 cycles, atomic_hit: 20 cycles, transfer_smt: 10ns, transfer_node: 40ns,\n"
	"        transfer_remote: 100ns, memory_local: 80ns, memory_remote: 150ns, syscall: 200ns,\n"
	"        line_hold: 5ns, smt_slowdown: 1.0}\n";

START_TEST(smt_adjacent_numbering)
{
	struct machine m;
	/* CPU c is core c / 2, SMT thread c % 2; core k is on node k / 2. */
	static const uint32_t want[][4] = {
		{ 0, 0, 0, 0 }, { 1, 0, 0, 1 }, { 2, 1, 0, 0 }, { 3, 1, 0, 1 },
		{ 4, 2, 1, 0 }, { 5, 2, 1, 1 }, { 6, 3, 1, 0 }, { 7, 3, 1, 1 },
	};

	load_text_ok(adjacent_yaml, &m);
	ck_assert_str_eq(m.name, "adj");
	ck_assert_str_eq(m.description, "");
	ck_assert_uint_eq(m.ncpus, 8);
	ck_assert_int_eq(m.numbering, NUMBERING_SMT_ADJACENT);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t cpu = want[i][0];

		ck_assert_uint_eq(m.cpu_core[cpu], want[i][1]);
		ck_assert_uint_eq(m.cpu_node[cpu], want[i][2]);
		ck_assert_uint_eq(machine_cpu_of(&m, want[i][1], want[i][3]), cpu);
	}
	/* 1 GHz: 2 cycles = 2000 ps; single-form remote cost applies to distance 21 */
	ck_assert_uint_eq(m.line_hit_ps, 2000);
	ck_assert_uint_eq(m.smt_slowdown_milli, 1000);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 1), XFER_SMT);
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 1), 10000);
	ck_assert_int_eq(machine_xfer_class(&m, 1, 2), XFER_NODE);
	ck_assert_uint_eq(machine_xfer_ps(&m, 1, 2), 40000);
	ck_assert_int_eq(machine_xfer_class(&m, 3, 4), XFER_REMOTE);
	ck_assert_uint_eq(machine_xfer_ps(&m, 3, 4), 100000);
	ck_assert_uint_eq(machine_mem_ps(&m, 5, 1), 80000);
	ck_assert_uint_eq(machine_mem_ps(&m, 5, 0), 150000);
	machine_free(&m);
}
END_TEST

/* ---- costs -------------------------------------------------------------------- */

START_TEST(tri_scalar_costs)
{
	struct machine m;

	load_tri(&m);
	ck_assert_uint_eq(m.freq_khz, 2500000);
	ck_assert_uint_eq(m.ncpus, 12);
	ck_assert_uint_eq(m.distance[0 * 3 + 2], 31);
	ck_assert_uint_eq(m.distance[1 * 3 + 1], 10);
	ck_assert_uint_eq(m.line_hit_ps, 800);        /* 2 cycles x 400 ps */
	ck_assert_uint_eq(m.atomic_hit_ps, 8000);     /* 20 cycles */
	ck_assert_uint_eq(m.transfer_smt_ps, 8000);   /* 20 cycles */
	ck_assert_uint_eq(m.transfer_node_ps, 40000); /* 40ns */
	ck_assert_uint_eq(m.memory_local_ps, 80000);  /* 80ns */
	ck_assert_uint_eq(m.syscall_ps, 1500000);     /* 1.5us */
	ck_assert_uint_eq(m.line_hold_ps, 600);       /* 1.5 cycles */
	ck_assert_uint_eq(m.smt_slowdown_milli, 1250);
	/* the optional factors default to 1.0 */
	ck_assert_uint_eq(m.transfer_occupancy_milli, 1000);
	ck_assert_uint_eq(m.transfer_contended_milli, 1000);
	ck_assert_uint_eq(m.invalidation_milli, 1000);
	machine_free(&m);
}
END_TEST

START_TEST(tri_transfer_pairs)
{
	struct machine m;
	/* {from, to, class, ps}; nodes: CPUs 0,1,6,7 -> 0; 2,3,8,9 -> 1; 4,5,10,11 -> 2 */
	static const uint64_t want[][4] = {
		{ 0, 6, XFER_SMT, 8000 },        /* core 0, threads 0 and 1 */
		{ 11, 5, XFER_SMT, 8000 },       /* core 5 */
		{ 0, 1, XFER_NODE, 40000 },      /* cores 0 and 1, node 0 */
		{ 0, 7, XFER_NODE, 40000 },      /* core 0 and core 1's sibling */
		{ 0, 2, XFER_REMOTE, 100000 },   /* node 0 -> 1: distance 21, 100ns */
		{ 9, 4, XFER_REMOTE, 100000 },   /* node 1 -> 2: distance 21 */
		{ 0, 4, XFER_REMOTE, 120000 },   /* node 0 -> 2: distance 31, 300 cycles */
		{ 10, 1, XFER_REMOTE, 120000 },  /* node 2 -> 0 */
	};

	load_tri(&m);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t from = (uint32_t)want[i][0], to = (uint32_t)want[i][1];

		ck_assert_msg(machine_xfer_class(&m, from, to) == (enum xfer_class)want[i][2],
			      "%u->%u: class %s", from, to,
			      xfer_class_name(machine_xfer_class(&m, from, to)));
		ck_assert_uint_eq(machine_xfer_ps(&m, from, to), want[i][3]);
		/* every pair here is symmetric */
		ck_assert_uint_eq(machine_xfer_ps(&m, to, from), want[i][3]);
	}
	for (uint32_t cpu = 0; cpu < m.ncpus; cpu++)
		ck_assert_uint_eq(machine_xfer_ps(&m, cpu, cpu), 0);
	machine_free(&m);
}
END_TEST

START_TEST(tri_memory)
{
	struct machine m;

	load_tri(&m);
	ck_assert_uint_eq(machine_mem_ps(&m, 0, 0), 80000);  /* local */
	ck_assert_uint_eq(machine_mem_ps(&m, 0, 1), 150000); /* distance 21 */
	ck_assert_uint_eq(machine_mem_ps(&m, 0, 2), 200000); /* distance 31: 500 cycles */
	ck_assert_uint_eq(machine_mem_ps(&m, 9, 0), 150000); /* CPU 9: core 3, node 1 */
	ck_assert_uint_eq(machine_mem_ps(&m, 9, 1), 80000);
	ck_assert_uint_eq(machine_mem_ps(&m, 9, 2), 150000);
	ck_assert_uint_eq(machine_mem_ps(&m, 10, 0), 200000); /* CPU 10: core 4, node 2 */
	machine_free(&m);
}
END_TEST

START_TEST(e5_pairs_use_the_preset_costs)
{
	struct machine m;

	load_file_ok(E5_PATH, &m);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 16), XFER_SMT);
	ck_assert_int_eq(machine_xfer_class(&m, 24, 8), XFER_SMT);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 7), XFER_NODE);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 17), XFER_NODE);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 8), XFER_REMOTE);
	ck_assert_int_eq(machine_xfer_class(&m, 23, 31), XFER_REMOTE);
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 16), m.transfer_smt_ps);
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 17), m.transfer_node_ps);
	/* the preset's costs are hardware figures and may be revised; their order may not */
	ck_assert_uint_lt(m.transfer_smt_ps, m.transfer_node_ps);
	ck_assert_uint_lt(m.transfer_node_ps, machine_xfer_ps(&m, 0, 8));
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 8), machine_xfer_ps(&m, 31, 16));
	ck_assert_uint_eq(machine_mem_ps(&m, 0, 0), m.memory_local_ps);
	ck_assert_uint_eq(machine_mem_ps(&m, 24, 1), m.memory_local_ps);
	ck_assert_uint_lt(machine_mem_ps(&m, 0, 0), machine_mem_ps(&m, 0, 1));
	ck_assert_uint_eq(machine_mem_ps(&m, 0, 1), machine_mem_ps(&m, 8, 0));
	ck_assert_uint_eq(m.freq_khz, 2000000);
	machine_free(&m);
}
END_TEST

/* ---- presets ------------------------------------------------------------------- */

START_TEST(presets_load)
{
	struct machine m;

	load_file_ok(E7_PATH, &m);
	ck_assert_uint_eq(m.ncpus, 144);
	ck_assert_uint_eq(m.nodes, 4);
	ck_assert_uint_eq(m.ncores, 72);
	ck_assert_uint_eq(m.cpu_node[71], 3);
	ck_assert_uint_eq(m.cpu_core[72], 0); /* first sibling */
	ck_assert_int_eq(machine_xfer_class(&m, 0, 72), XFER_SMT);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 143), XFER_REMOTE);
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 18), machine_xfer_ps(&m, 0, 71));
	/* home snooping: whole sets of HitME entries, a DRAM read cheaper than a fill */
	ck_assert_int_eq(m.snoop, SNOOP_HOME);
	ck_assert_uint_eq(m.directory_cache_lines % m.directory_cache_ways, 0);
	ck_assert_uint_lt(m.directory_read_ps, m.memory_local_ps);
	machine_free(&m);

	load_file_ok(SMALL_PATH, &m);
	ck_assert_uint_eq(m.ncpus, 8);
	ck_assert_uint_eq(m.nodes, 1);
	ck_assert_uint_eq(m.distance[0], 10);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 4), XFER_SMT);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 3), XFER_NODE);
	ck_assert_uint_eq(machine_mem_ps(&m, 7, 0), m.memory_local_ps);
	machine_free(&m);
}
END_TEST

/* Clusters (cores sharing a last-level cache, an AMD CCX): one node of 8 cores in
 * two clusters of 4, no SMT. Cores 0-3 are cluster 0, 4-7 cluster 1; a line moves
 * at transfer_cluster (20 ns) inside a cluster and transfer_node (100 ns) between
 * clusters of the node; both are class `node`. Without the keys a node is one
 * cluster and every same-node transfer costs transfer_node. */
#define CLUSTERED                                                                              \
	"{name: ccx, topology: {nodes: 1, cores_per_node: 8, threads_per_core: 1, cores_per_cluster: 4}," \
	" frequency: 2GHz, costs: {line_hit: 1ns, atomic_hit: 5ns, transfer_smt: 5ns,"            \
	" transfer_cluster: 20ns, transfer_node: 100ns, memory_local: 80ns, syscall: 80ns,"       \
	" line_hold: 0, smt_slowdown: 1.0}}"

START_TEST(clusters)
{
	struct machine m;
	struct fs_error e = { 0 };
	char *text;

	load_text_ok(CLUSTERED, &m);
	ck_assert_uint_eq(m.cores_per_cluster, 4);
	ck_assert_uint_eq(m.cpu_cluster[3], 0);
	ck_assert_uint_eq(m.cpu_cluster[4], 1);
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 3), 20000);  /* same cluster */
	ck_assert_uint_eq(machine_xfer_ps(&m, 3, 4), 100000); /* next cluster */
	ck_assert_uint_eq(machine_xfer_ps(&m, 7, 4), 20000);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 7), XFER_NODE);
	machine_free(&m);

	/* the defaults: one cluster per node, transfer_cluster = transfer_node */
	load_file_ok(E5_PATH, &m);
	ck_assert_uint_eq(m.cores_per_cluster, m.cores_per_node);
	ck_assert_uint_eq(m.transfer_cluster_ps, m.transfer_node_ps);
	ck_assert_uint_eq(machine_xfer_ps(&m, 0, 7), m.transfer_node_ps);
	machine_free(&m);

	/* clusters must divide the node */
	text = strdup(CLUSTERED);
	ck_assert_ptr_nonnull(text);
	memcpy(strstr(text, "cores_per_cluster: 4"), "cores_per_cluster: 3", 20);
	ck_assert_int_eq(load_text(text, &m, &e), -1);
	ck_assert_msg(strstr(e.msg, "does not divide cores_per_node 8"), "%s", e.msg);
	machine_free(&m);
	free(text);

	/* the EPYC preset: 8-core CCXs, CPUs numbered cores first over both sockets */
	load_file_ok(EPYC_PATH, &m);
	ck_assert_uint_eq(m.ncpus, 256);
	ck_assert_uint_eq(m.nodes, 2);
	ck_assert_uint_lt(machine_xfer_ps(&m, 0, 7), machine_xfer_ps(&m, 0, 8));   /* CCX 0 vs CCX 1 */
	ck_assert_uint_lt(machine_xfer_ps(&m, 0, 8), machine_xfer_ps(&m, 0, 64));  /* vs the other socket */
	ck_assert_int_eq(machine_xfer_class(&m, 0, 128), XFER_SMT);                /* core 0's sibling */
	machine_free(&m);

	load_file_ok(SKYLAKE_PATH, &m);
	ck_assert_uint_eq(m.ncpus, 112);
	ck_assert_uint_eq(m.cpu_node[28], 1);
	machine_free(&m);
}
END_TEST

/* ---- CPU lists ----------------------------------------------------------------- */

START_TEST(cpulists_e5)
{
	static const uint32_t node0[] = { 0, 1, 2, 3, 4, 5, 6, 7,
					  16, 17, 18, 19, 20, 21, 22, 23 };
	static const uint32_t node1[] = { 8, 9, 10, 11, 12, 13, 14, 15,
					  24, 25, 26, 27, 28, 29, 30, 31 };
	static const uint32_t mixed[] = { 0, 1, 2, 3, 8 };
	static const uint32_t ordered[] = { 16, 17, 3, 0 };
	static const uint32_t node1_then_cpus[] = { 8, 9, 10, 11, 12, 13, 14, 15,
						    24, 25, 26, 27, 28, 29, 30, 31, 0, 16 };
	uint32_t all[32];
	struct machine m;
	struct fs_error e = { 0 };
	uint32_t *cpus, n;

	for (uint32_t i = 0; i < 32; i++)
		all[i] = i;
	load_file_ok(E5_PATH, &m);
#define CK_CPULIST(spec, want)                                                              \
	do {                                                                                \
		ck_assert_msg(machine_parse_cpulist(&m, spec, NULL, &cpus, &n, &e) == 0,      \
			      "%s: %s", spec, e.msg);                                       \
		ck_assert_cpus(cpus, n, want, sizeof(want) / sizeof(want[0]));              \
		free(cpus);                                                                 \
	} while (0)
	CK_CPULIST("node0", node0);
	CK_CPULIST("node1", node1);
	CK_CPULIST("0-7,16-23", node0);
	CK_CPULIST("0-3,8", mixed);
	CK_CPULIST("all", all);
	CK_CPULIST("16-17,3,0", ordered);
	CK_CPULIST("node1,0,16", node1_then_cpus);
	CK_CPULIST(" 0-3, 8 ", mixed);
#undef CK_CPULIST
	machine_free(&m);
}
END_TEST

struct cpulist_error_case {
	const char *spec;
	const char *fragment;
};

static const struct cpulist_error_case cpulist_errors[] = {
	{ "0-3,2", "CPU 2 listed twice" },
	{ "node0,5", "CPU 5 listed twice" },
	{ "node0,node0", "CPU 0 listed twice" },
	{ "0-32", "CPU 32 out of range (machine 'e5-2650-2s-hw' has 32 CPUs, 0-31)" },
	{ "40", "CPU 40 out of range" },
	{ "99999999999999999999", "out of range (machine 'e5-2650-2s-hw' has 32 CPUs" },
	{ "node9", "no node 9 (machine 'e5-2650-2s-hw' has 2 nodes" },
	{ "node", "cannot read 'node'" },
	{ "garbage", "cannot read 'garbage' (expected all, nodeN, N or N-M)" },
	{ "1-", "cannot read '1-'" },
	{ "0x10", "cannot read '0x10'" },
	{ "5-2", "range 5-2 runs backwards" },
	{ "", "CPU list is empty" },
	{ "  ", "CPU list is empty" },
	{ "1,,2", "empty item" },
	{ "1,", "empty item" },
	{ "all,1", "'all' must stand alone" },
};

START_TEST(cpulist_errors_e5)
{
	const struct cpulist_error_case *c = &cpulist_errors[_i];
	const struct fs_mark at = { "scenario.yaml", 4, 9 };
	struct machine m;
	struct fs_error e = { 0 };
	uint32_t *cpus = (uint32_t *)&m, n = 77;

	load_file_ok(E5_PATH, &m);
	ck_assert_int_eq(machine_parse_cpulist(&m, c->spec, &at, &cpus, &n, &e), -1);
	ck_assert_ptr_null(cpus);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strncmp(e.msg, "scenario.yaml:4:9: ", 19) == 0, "no mark: %s", e.msg);
	ck_assert_msg(strstr(e.msg, c->fragment), "'%s': '%s' lacks '%s'", c->spec, e.msg,
		      c->fragment);
	/* without a mark, no prefix */
	ck_assert_int_eq(machine_parse_cpulist(&m, c->spec, NULL, &cpus, &n, &e), -1);
	ck_assert_msg(strncmp(e.msg, "scenario.yaml", 13) != 0, "%s", e.msg);
	machine_free(&m);
}
END_TEST

/* ---- YAML errors --------------------------------------------------------------- */

struct yaml_error_case {
	unsigned line;       /* line of the tri machine to replace */
	const char *text;    /* its replacement */
	const char *where;   /* expected "inline.yaml:LINE:COL: " prefix */
	const char *fragment;
};

static const struct yaml_error_case yaml_errors[] = {
	/* distance matrix of the wrong size: at the matrix, then at the short row */
	{ 4, "distance: [[10, 21], [21, 10]]", "inline.yaml:4:11: ", "2 rows for 3 nodes" },
	{ 4, "distance: [[10, 21, 31], [21, 10], [31, 21, 10]]", "inline.yaml:4:26: ",
	  "distance[1]: 2 entries for 3 nodes" },
	{ 4, "distance: 21", "inline.yaml:4:11: ", "distance" },
	/* diagonal not 10; off-diagonal 10; out of the SLIT range */
	{ 4, "distance: [[10, 21, 31], [21, 11, 21], [31, 21, 10]]", "inline.yaml:4:31: ",
	  "distance[1][1]: 11 on the diagonal" },
	{ 4, "distance: [[10, 10, 31], [21, 10, 21], [31, 21, 10]]", "inline.yaml:4:17: ",
	  "distance[0][1]: 10 between two nodes" },
	{ 4, "distance: [[10, 21, 255], [21, 10, 21], [31, 21, 10]]", "inline.yaml:4:21: ",
	  "distance[0][2]" },
	/* missing distance matrix on a multi-node machine: at the root map */
	{ 4, "# no distance", "inline.yaml:1:1: ", "missing key 'distance'" },
	/* a remote cost map missing a distance of the matrix: at the map */
	{ 10, "  transfer_remote: {21: 100ns}", "inline.yaml:10:20: ",
	  "costs.transfer_remote: no cost for distance 31" },
	{ 12, "  memory_remote: {31: 100ns}", "inline.yaml:12:18: ",
	  "costs.memory_remote: no cost for distance 21" },
	{ 10, "  transfer_remote: {21: 100ns, 31: 1ns, far: 1ns}", "inline.yaml:10:41: ",
	  "costs.transfer_remote distance" },
	{ 10, "  transfer_remote: {21: 100ns, 31: 1 furlong}", "inline.yaml:10:36: ",
	  "costs.transfer_remote[31]" },
	/* unknown keys, with a suggestion, at the key */
	{ 2, "topology: {nodes: 3, cores_per_node: 2, treads_per_core: 2}", "inline.yaml:2:41: ",
	  "unknown key 'treads_per_core' in topology (did you mean 'threads_per_core'?)" },
	{ 14, "  line_hld: 1.5 cycles", "inline.yaml:14:3: ",
	  "unknown key 'line_hld' in costs (did you mean 'line_hold'?)" },
	{ 3, "frequncy: 2.5GHz", "inline.yaml:3:1: ", "(did you mean 'frequency'?)" },
	/* missing required keys: at the map that should hold them */
	{ 13, "# no syscall", "inline.yaml:6:3: ", "missing key 'syscall'" },
	{ 1, "# no name", "inline.yaml:2:1: ", "missing key 'name'" },
	{ 2, "topology: {nodes: 3, cores_per_node: 2}", "inline.yaml:2:11: ",
	  "missing key 'threads_per_core'" },
	{ 10, "# no transfer_remote", "inline.yaml:6:3: ", "missing key 'transfer_remote'" },
	/* bad values */
	{ 15, "  smt_slowdown: 0.9", "inline.yaml:15:17: ", "costs.smt_slowdown" },
	{ 9, "  transfer_node: 0ns", "inline.yaml:9:18: ", "costs.transfer_node: '0ns' is too small" },
	{ 13, "  syscall: 2s", "inline.yaml:13:12: ", "costs.syscall: '2s' is" },
	{ 2, "topology: {nodes: 64, cores_per_node: 64, threads_per_core: 2}", "inline.yaml:2:11: ",
	  "= 8192 CPUs (at most 4096 supported)" },
	{ 2, "topology: {nodes: 3, cores_per_node: 2, threads_per_core: 9}", "inline.yaml:2:59: ",
	  "threads_per_core" },
	{ 2, "topology: {nodes: 3, cores_per_node: 2, threads_per_core: 2, numbering: cores-frist}",
	  "inline.yaml:2:73: ", "cores-first" },
	{ 1, "name: \"\"", "inline.yaml:1:7: ", "name: must not be empty" },
	/* the directory cache: only with home snooping, then complete and whole sets */
	{ 15, "  smt_slowdown: 1.25\ncoherence: {directory_cache_lines: 8}", "inline.yaml:16:36: ",
	  "apply only with coherence.snoop: home" },
	{ 15, "  smt_slowdown: 1.25\n  directory_read: 60ns", "inline.yaml:16:19: ",
	  "apply only with coherence.snoop: home" },
	{ 15, "  smt_slowdown: 1.25\ncoherence: {snoop: hme}", "inline.yaml:16:20: ", "'home'" },
	{ 15, "  smt_slowdown: 1.25\ncoherence: {snoop: home, directory_cache_lines: 8, directory_cache_ways: 2}",
	  "inline.yaml:6:3: ", "missing key 'directory_read'" },
	{ 15, "  smt_slowdown: 1.25\n  directory_read: 60ns\ncoherence: {snoop: home, directory_cache_lines: 9, "
	      "directory_cache_ways: 2}", "inline.yaml:17:49: ", "(9) must be a multiple of directory_cache_ways (2)" },
};

START_TEST(yaml_errors_have_marks)
{
	const struct yaml_error_case *c = &yaml_errors[_i];
	char *text = tri_text(c->line, c->text);
	struct fs_error e = { 0 };
	struct machine m;
	int rc = load_text(text, &m, &e);

	free(text);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	ck_assert_msg(strncmp(e.msg, c->where, strlen(c->where)) == 0, "'%s' does not start with '%s'",
		      e.msg, c->where);
	ck_assert_msg(strstr(e.msg, c->fragment), "'%s' lacks '%s'", e.msg, c->fragment);
	/* left empty, and freeing it is safe (twice, too) */
	ck_assert_ptr_null(m.name);
	ck_assert_ptr_null(m.remote_ps);
	ck_assert_uint_eq(m.ncpus, 0);
	machine_free(&m);
	machine_free(&m);
}
END_TEST

START_TEST(one_node_defaults)
{
	/* One node: no distance, no remote costs; description kept. */
	static const char text[] =
		"name: one\n"
		"description: a test box\n"
		"topology: {nodes: 1, cores_per_node: 3, threads_per_core: 1}\n"
		"frequency: 2000MHz\n"
		"costs: {line_hit: 0ns, atomic_hit: 10 cycles, transfer_smt: 1ns, transfer_node: 30ns,\n"
		"        memory_local: 90ns, syscall: 100ns, line_hold: 0ns, smt_slowdown: 1,\n"
		"        transfer_occupancy: 1.5, transfer_contended: 1.25, invalidation: 2}\n";
	struct machine m;

	load_text_ok(text, &m);
	ck_assert_str_eq(m.description, "a test box");
	ck_assert_uint_eq(m.ncpus, 3);
	ck_assert_uint_eq(m.distance[0], 10);
	ck_assert_uint_eq(m.atomic_hit_ps, 5000); /* 10 cycles at 2 GHz */
	ck_assert_uint_eq(m.line_hit_ps, 0);
	ck_assert_int_eq(machine_xfer_class(&m, 0, 2), XFER_NODE);
	ck_assert_uint_eq(machine_mem_ps(&m, 2, 0), 90000);
	ck_assert_uint_eq(m.transfer_occupancy_milli, 1500);
	ck_assert_uint_eq(m.transfer_contended_milli, 1250);
	ck_assert_uint_eq(m.invalidation_milli, 2000);
	machine_free(&m);
}
END_TEST

START_TEST(cpu_side_costs)
{
	/* The clock under load converts cycles (10 cycles at 2 GHz x 1.25 = 4 ns), not
	 * ns figures; call_return and key_shared as given; the mitigations' words. */
	static const char text[] =
		"name: one\n"
		"topology: {nodes: 1, cores_per_node: 2, threads_per_core: 1}\n"
		"frequency: 2000MHz\n"
		"mitigations: {pti: on, spectre_v2: retpoline, return_thunk: off}\n"
		"costs: {line_hit: 0ns, atomic_hit: 10 cycles, transfer_smt: 1ns, transfer_node: 30ns,\n"
		"        memory_local: 90ns, syscall: 100ns, line_hold: 0ns, smt_slowdown: 1,\n"
		"        core_clock: 1.25, call_return: 3.5ns, key_shared: 300 cycles}\n";
	static const char defaults[] =
		"name: one\n"
		"topology: {nodes: 1, cores_per_node: 2, threads_per_core: 1}\n"
		"frequency: 2000MHz\n"
		"costs: {line_hit: 0ns, atomic_hit: 10 cycles, transfer_smt: 1ns, transfer_node: 30ns,\n"
		"        memory_local: 90ns, syscall: 100ns, line_hold: 0ns, smt_slowdown: 1}\n";
	static const char *const bad[][2] = {
		{ "mitigations: {pti: maybe}\n", "pti" },
		{ "mitigations: {retpoline: on}\n", "retpoline" },
		{ "mitigations: [on]\n", "mitigations" },
	};
	struct fs_error e = { 0 };
	struct machine m;
	char buf[1024];

	load_text_ok(text, &m);
	ck_assert_uint_eq(m.base_freq_khz, 2000000);
	ck_assert_uint_eq(m.freq_khz, 2500000);
	ck_assert_uint_eq(m.atomic_hit_ps, 4000);
	ck_assert_uint_eq(m.transfer_node_ps, 30000);
	ck_assert_uint_eq(m.syscall_ps, 100000);
	ck_assert_uint_eq(m.call_return_ps, 3500);
	ck_assert(m.has_key_shared);
	ck_assert_uint_eq(fs_cost_ps(m.key_shared, m.freq_khz), 120000); /* 300 cycles at 2.5 GHz */
	ck_assert_int_eq(m.mitigations.pti, MIT_ON);
	ck_assert_int_eq(m.mitigations.spectre_v2, SPV2_RETPOLINE);
	ck_assert_int_eq(m.mitigations.return_thunk, MIT_OFF);
	machine_free(&m);
	load_text_ok(defaults, &m);
	ck_assert_uint_eq(m.freq_khz, 2000000);
	ck_assert_uint_eq(m.atomic_hit_ps, 5000);
	ck_assert_uint_eq(m.call_return_ps, 0);
	ck_assert(!m.has_key_shared);
	ck_assert_int_eq(m.mitigations.pti, MIT_UNKNOWN);
	machine_free(&m);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", defaults, bad[i][0]);
		ck_assert_int_eq(load_text(buf, &m, &e), -1);
		ck_assert_msg(strstr(e.msg, bad[i][1]) && strstr(e.msg, "inline.yaml:"), "%s", e.msg);
		machine_free(&m);
	}
	snprintf(buf, sizeof(buf), "%s", defaults);
	strcpy(strstr(buf, "smt_slowdown: 1}"), "smt_slowdown: 1, core_clock: 0.2}\n");
	ck_assert_int_eq(load_text(buf, &m, &e), -1);
	ck_assert_msg(strstr(e.msg, "core_clock"), "%s", e.msg);
	machine_free(&m);
}
END_TEST

START_TEST(sched_block)
{
	/* The idle states in the file's order, durations as given, polls defaulting off;
	 * without the block, one polling state and the documented defaults. */
	static const char base[] =
		"name: one\n"
		"topology: {nodes: 1, cores_per_node: 2, threads_per_core: 1}\n"
		"frequency: 2000MHz\n"
		"costs: {line_hit: 0ns, atomic_hit: 10 cycles, transfer_smt: 1ns, transfer_node: 30ns,\n"
		"        memory_local: 90ns, syscall: 100ns, line_hold: 0ns, smt_slowdown: 1}\n";
	static const char block[] =
		"sched:\n"
		"  idle_states:\n"
		"    - {name: POLL, exit_latency: 0ns, target_residency: 0ns, polls: true}\n"
		"    - {name: C1, exit_latency: 2us, target_residency: 2us, polls: true}\n"
		"    - {name: C6, exit_latency: 133us, target_residency: 400us}\n"
		"  ipi: 1.1us\n"
		"  ipi_send: 300ns\n"
		"  wake_to_run: 800ns\n"
		"  context_switch: 1200ns\n"
		"  thread_exit: 9us\n";
	static const char *const bad[][2] = {
		{ "sched: {idle_states: []}\n", "1 to 10 states" },
		{ "sched: {idle_states: [{name: C1, exit_latency: 2us}]}\n", "target_residency" },
		{ "sched: {idle_states: [{name: C6, exit_latency: 133us, target_residency: 400us},\n"
		  "                      {name: C1, exit_latency: 2us, target_residency: 2us}]}\n",
		  "shallowest first" },
		{ "sched: {ipi: 2ms}\n", "ipi" },
		{ "sched: {thread_exit: 2ms}\n", "thread_exit" },
		{ "sched: {wake_latency: 2us}\n", "wake_latency" },
		{ "sched: {idle_states: [{name: C1, exit_latency: 2us, target_residency: 2us, polls: 3}]}\n", "polls" },
	};
	struct fs_error e = { 0 };
	struct machine m;
	char buf[2048];

	snprintf(buf, sizeof(buf), "%s%s", base, block);
	load_text_ok(buf, &m);
	ck_assert(m.sched.given);
	ck_assert_uint_eq(m.sched.nidle, 3);
	ck_assert_str_eq(m.sched.idle[1].name, "C1");
	ck_assert(m.sched.idle[0].polls && m.sched.idle[1].polls && !m.sched.idle[2].polls);
	ck_assert_uint_eq(m.sched.idle[2].exit_latency_ps, 133000000);
	ck_assert_uint_eq(m.sched.idle[2].target_residency_ps, 400000000);
	ck_assert_uint_eq(m.sched.ipi_ps, 1100000);
	ck_assert_uint_eq(m.sched.ipi_send_ps, 300000);
	ck_assert_uint_eq(m.sched.thread_exit_ps, 9000000);
	ck_assert_uint_eq(m.sched.wake_to_run_ps, 800000);
	ck_assert_uint_eq(m.sched.context_switch_ps, 1200000);
	machine_free(&m);
	load_text_ok(base, &m);
	ck_assert(!m.sched.given);
	ck_assert_uint_eq(m.sched.nidle, 1);
	ck_assert(m.sched.idle[0].polls);
	ck_assert_uint_eq(m.sched.idle[0].exit_latency_ps, 0);
	ck_assert_uint_eq(m.sched.ipi_ps, 0);
	ck_assert_uint_eq(m.sched.ipi_send_ps, 0);
	ck_assert_uint_eq(m.sched.thread_exit_ps, 0);
	ck_assert_uint_eq(m.sched.wake_to_run_ps, 5000000);
	ck_assert_uint_eq(m.sched.context_switch_ps, 1500000);
	machine_free(&m);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", base, bad[i][0]);
		ck_assert_int_eq(load_text(buf, &m, &e), -1);
		ck_assert_msg(strstr(e.msg, bad[i][1]) && strstr(e.msg, "inline.yaml:"), "%s: %s", bad[i][0], e.msg);
		machine_free(&m);
	}
}
END_TEST

START_TEST(free_and_names)
{
	struct machine m;

	memset(&m, 0, sizeof(m));
	machine_free(&m);
	machine_free(NULL);
	ck_assert_str_eq(xfer_class_name(XFER_SMT), "smt");
	ck_assert_str_eq(xfer_class_name(XFER_NODE), "node");
	ck_assert_str_eq(xfer_class_name(XFER_REMOTE), "remote");
}
END_TEST

static Suite *machine_suite(void)
{
	Suite *s = suite_create("machine");
	TCase *numbering = tcase_create("numbering");
	TCase *costs = tcase_create("costs");
	TCase *presets = tcase_create("presets");
	TCase *cpulists = tcase_create("cpulists");
	TCase *errors = tcase_create("errors");

	tcase_add_test(numbering, e5_numbering_is_cores_first);
	tcase_add_test(numbering, smt_adjacent_numbering);
	tcase_add_test(costs, tri_scalar_costs);
	tcase_add_test(costs, tri_transfer_pairs);
	tcase_add_test(costs, tri_memory);
	tcase_add_test(costs, e5_pairs_use_the_preset_costs);
	tcase_add_test(costs, one_node_defaults);
	tcase_add_test(costs, cpu_side_costs);
	tcase_add_test(costs, sched_block);
	tcase_add_test(presets, presets_load);
	tcase_add_test(presets, clusters);
	tcase_add_test(cpulists, cpulists_e5);
	tcase_add_loop_test(cpulists, cpulist_errors_e5, 0,
			    (int)(sizeof(cpulist_errors) / sizeof(cpulist_errors[0])));
	tcase_add_loop_test(errors, yaml_errors_have_marks, 0,
			    (int)(sizeof(yaml_errors) / sizeof(yaml_errors[0])));
	tcase_add_test(errors, free_and_names);
	suite_add_tcase(s, numbering);
	suite_add_tcase(s, costs);
	suite_add_tcase(s, presets);
	suite_add_tcase(s, cpulists);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	return tu_run_suite(machine_suite());
}
