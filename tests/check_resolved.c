/* SPDX-License-Identifier: MIT */
/* Tests of the scenario "as resolved": the typed readers record the defaults
 * they use (sim/core/config.h, yt_note_default), a loaded scenario's resolved tree
 * shows every value of its run, and loading that tree again gives the same run. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/core/config.h"
#include "tests/testutil.h"

static struct yt_node *load(struct yt_doc *d, const char *text)
{
	struct fs_error e = { 0 };
	struct yt_node *root = yt_load_string(d, "t.yaml", text, strlen(text), &e);

	ck_assert_msg(root != NULL, "%s", e.msg);
	return root;
}

static const char *scalar_at(const struct yt_node *map, const char *key)
{
	const struct yt_node *n = yt_get(map, key);

	return n && n->kind == YT_SCALAR ? n->scalar : NULL;
}

/* Each reader, key absent: the value stored, the text recorded. */
START_TEST(test_readers_record_defaults)
{
	struct yt_doc *d = yt_doc_new();
	struct yt_node *m;
	struct fs_error e = { 0 };
	uint64_t u64, milli, ps;
	uint32_t u32;
	bool b;
	struct fs_cost cost, cycles;
	const char *str, *none;
	int en;
	static const char *const names[] = { "red", "green", NULL };

	ck_assert_ptr_nonnull(d);
	m = load(d, "given: 1\n");
	yt_doc_record_defaults(d, true);
	ck_assert_int_eq(cfg_get_u64(m, "u64", 12345678901ull, 0, UINT64_MAX, &u64, &e), 0);
	ck_assert_int_eq(cfg_get_u32(m, "u32", 7, 0, 10, &u32, &e), 0);
	ck_assert_int_eq(cfg_get_bool(m, "flag", false, &b, &e), 0);
	ck_assert_int_eq(cfg_get_fixed3(m, "factor", 1250, 0, 10000, &milli, &e), 0);
	ck_assert_int_eq(cfg_get_duration(m, "time", 1500, 0, UINT64_MAX, &ps, &e), 0);
	ck_assert_int_eq(cfg_get_cost(m, "cost", fs_cost_of_ps(250000), &cost, &e), 0);
	ck_assert_int_eq(cfg_get_cost(m, "cycles", fs_cost_of_cycles(10), &cycles, &e), 0);
	ck_assert_int_eq(cfg_get_string(m, "text", "yes", &str, &e), 0);
	ck_assert_int_eq(cfg_get_string(m, "nothing", NULL, &none, &e), 0);
	ck_assert_int_eq(cfg_get_enum(m, "colour", names, 1, &en, &e), 0);
	ck_assert_int_eq(cfg_get_enum(m, "no_colour", names, -1, &en, &e), 0);
	ck_assert_int_eq(cfg_get_u64(m, "given", 5, 0, 10, &u64, &e), 0);
	ck_assert_uint_eq(u64, 1);

	ck_assert_str_eq(scalar_at(m, "u64"), "12345678901");
	ck_assert_str_eq(scalar_at(m, "u32"), "7");
	ck_assert_str_eq(scalar_at(m, "flag"), "false");
	ck_assert_str_eq(scalar_at(m, "factor"), "1.25");
	ck_assert_str_eq(scalar_at(m, "time"), "1.5ns");
	ck_assert_str_eq(scalar_at(m, "cost"), "250ns");
	ck_assert_str_eq(scalar_at(m, "cycles"), "10 cycles");
	ck_assert_str_eq(scalar_at(m, "text"), "yes");
	ck_assert(yt_get(m, "text")->quoted); /* a string, not the boolean yes */
	ck_assert_str_eq(scalar_at(m, "colour"), "green");
	/* no default value: nothing to record */
	ck_assert_ptr_null(yt_get(m, "nothing"));
	ck_assert_ptr_null(yt_get(m, "no_colour"));
	ck_assert_str_eq(scalar_at(m, "given"), "1");

	/* read back, the recorded texts give the same values */
	ck_assert_int_eq(cfg_get_u64(m, "u64", 0, 0, UINT64_MAX, &u64, &e), 0);
	ck_assert_uint_eq(u64, 12345678901ull);
	ck_assert_int_eq(cfg_get_bool(m, "flag", true, &b, &e), 0);
	ck_assert(!b);
	ck_assert_int_eq(cfg_get_fixed3(m, "factor", 0, 0, 10000, &milli, &e), 0);
	ck_assert_uint_eq(milli, 1250);
	ck_assert_int_eq(cfg_get_duration(m, "time", 0, 0, UINT64_MAX, &ps, &e), 0);
	ck_assert_uint_eq(ps, 1500);
	ck_assert_int_eq(cfg_get_cost(m, "cost", fs_cost_of_ps(0), &cost, &e), 0);
	ck_assert_uint_eq(fs_cost_ps(cost, 2000000), 250000);
	ck_assert_int_eq(cfg_get_cost(m, "cycles", fs_cost_of_ps(0), &cycles, &e), 0);
	ck_assert_uint_eq(fs_cost_ps(cycles, 2000000), 5000); /* 10 cycles at 2 GHz */
	ck_assert_int_eq(cfg_get_string(m, "text", "", &str, &e), 0);
	ck_assert_str_eq(str, "yes");
	ck_assert_int_eq(cfg_get_enum(m, "colour", names, 0, &en, &e), 0);
	ck_assert_int_eq(en, 1);
	yt_doc_free(d);
}
END_TEST

START_TEST(test_no_recording_when_off)
{
	struct yt_doc *d = yt_doc_new(), *other = yt_doc_new();
	struct yt_node *m, *n;
	struct fs_error e = { 0 };
	uint64_t v;

	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(other);
	m = load(d, "a: 1\n");
	n = load(other, "a: 1\n");
	/* off by default */
	ck_assert_int_eq(cfg_get_u64(m, "b", 3, 0, 10, &v, &e), 0);
	ck_assert_uint_eq(v, 3);
	ck_assert_ptr_null(yt_get(m, "b"));
	/* on for one doc only: a map of another doc stays as it is */
	yt_doc_record_defaults(d, true);
	ck_assert_int_eq(cfg_get_u64(n, "b", 3, 0, 10, &v, &e), 0);
	ck_assert_ptr_null(yt_get(n, "b"));
	/* an absent section (NULL map) has nowhere to record */
	ck_assert_int_eq(cfg_get_u64(NULL, "b", 4, 0, 10, &v, &e), 0);
	ck_assert_uint_eq(v, 4);
	/* switched off again */
	yt_doc_record_defaults(d, false);
	ck_assert_int_eq(cfg_get_u64(m, "c", 3, 0, 10, &v, &e), 0);
	ck_assert_ptr_null(yt_get(m, "c"));
	yt_doc_free(d);
	yt_doc_free(other);
}
END_TEST

static const struct yt_node *at_path(const struct yt_node *n, const char *a, const char *b)
{
	n = yt_get(n, a);
	return b ? yt_get(n, b) : n;
}

/* quickstart.yaml gives no run.aslr, no workload.start, no output.interval,
 * no workload.loop_cost: the resolved tree shows the documented defaults
 * (docs/scenario.md), and the --set values. */
START_TEST(test_scenario_resolved_has_defaults)
{
	static const char *const sets[] = { "run.duration=200us", "kernel.private_hash.buckets=16" };
	static const struct {
		const char *section, *key, *value;
	} expect[] = {
		{ "run", "duration", "200us" },
		{ "run", "aslr", "true" },
		{ "workload", "start", "random" },
		{ "output", "interval", "100us" },
		{ "output", "hottest_lines", "5" },
		{ "workload", "loop_cost", "10 cycles" },
		{ "workload", "start_skew", "1us" },
		{ "workload", "shared", "false" },
		{ "name", NULL, "quickstart" },
	};
	struct scenario sc;
	struct fs_error e = { 0 };
	const struct yt_node *buckets;

	ck_assert_msg(scenario_load(&sc, "scenarios/quickstart.yaml", sets, 2, &e) == 0, "%s", e.msg);
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		const struct yt_node *n = at_path(sc.resolved, expect[i].section, expect[i].key);

		ck_assert_msg(n && n->kind == YT_SCALAR, "%s.%s missing", expect[i].section, expect[i].key);
		ck_assert_str_eq(n->scalar, expect[i].value);
	}
	buckets = at_path(at_path(sc.resolved, "kernel", NULL), "private_hash", "buckets");
	ck_assert_ptr_nonnull(buckets);
	ck_assert_str_eq(buckets->scalar, "16");
	/* the given tree is untouched */
	ck_assert_ptr_null(yt_get(yt_get(sc.given, "run"), "aslr"));
	ck_assert_ptr_null(yt_get(sc.given, "output") ? yt_get(yt_get(sc.given, "output"), "interval") : NULL);
	/* and the file's bytes are kept as they were */
	{
		FILE *f = fopen("scenarios/quickstart.yaml", "rb");
		char buf[8192];
		size_t n;

		ck_assert_ptr_nonnull(f);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		ck_assert_uint_eq(n, sc.given_len);
		ck_assert(memcmp(buf, sc.given_text, n) == 0);
	}
	scenario_free(&sc);
}
END_TEST

/* The resolved scenario, written out and run, is the same run: same figures,
 * and resolving it again changes nothing. */
START_TEST(test_resolved_reruns_identically)
{
	static const char *const sets[] = { "run.duration=150us", "run.warmup=20us", "workload.threads=4",
					    "kernel=linux-6.17" };
	struct tu_run a, b;
	char *yaml, *again, *path;
	struct fs_error e = { 0 };
	struct scenario sc2;

	tu_run(&a, "scenarios/quickstart.yaml", sets, 4);
	yaml = yt_emit_string(a.sc.resolved);
	ck_assert_ptr_nonnull(yaml);
	path = tu_write_temp(yaml);
	tu_run(&b, path, NULL, 0);
	ck_assert_uint_eq(a.s.tasks.n, b.s.tasks.n);
	for (uint32_t i = 0; i < a.s.tasks.n; i++)
		ck_assert_uint_eq(a.s.tasks.v[i].ops, b.s.tasks.v[i].ops);
	ck_assert_mem_eq(a.s.coh.total_transfers, b.s.coh.total_transfers, sizeof(a.s.coh.total_transfers));
	ck_assert_uint_eq(a.s.eng.events, b.s.eng.events);
	ck_assert_str_eq(a.sc.name, b.sc.name);
	/* a fixed point: nothing left to fill in */
	ck_assert_msg(scenario_load(&sc2, path, NULL, 0, &e) == 0, "%s", e.msg);
	again = yt_emit_string(sc2.resolved);
	ck_assert_ptr_nonnull(again);
	ck_assert_str_eq(again, yaml);
	free(again);
	scenario_free(&sc2);
	unlink(path);
	free(path);
	free(yaml);
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

START_TEST(test_interval_limits)
{
	static const char *const too_many[] = { "run.duration=1s", "output.interval=10ns" };
	static const char *const zero[] = { "output.interval=0" };
	struct scenario sc;
	struct fs_error e = { 0 };

	ck_assert_int_eq(scenario_load(&sc, "scenarios/quickstart.yaml", too_many, 2, &e), -1);
	ck_assert_msg(strstr(e.msg, "100000000 intervals") && strstr(e.msg, "--set output.interval=10ns"), "%s",
		      e.msg);
	scenario_free(&sc);
	memset(&e, 0, sizeof(e));
	ck_assert_int_eq(scenario_load(&sc, "scenarios/quickstart.yaml", zero, 1, &e), -1);
	ck_assert_int_eq(e.status, FS_ERR_INPUT);
	scenario_free(&sc);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("resolved");
	TCase *tc = tcase_create("defaults");

	tcase_add_test(tc, test_readers_record_defaults);
	tcase_add_test(tc, test_no_recording_when_off);
	tcase_add_test(tc, test_scenario_resolved_has_defaults);
	tcase_add_test(tc, test_resolved_reruns_identically);
	tcase_add_test(tc, test_interval_limits);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
