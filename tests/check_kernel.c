/* SPDX-License-Identifier: MIT */
/* Tests of the kernel design: table sizing rules (futex_init() and futex_hash_allocate_default() in kernel/futex/core.c),
 * presets and their inheritance, path checks, and where tables put buckets. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/futex_table.h"
#include "models/kernel.h"
#include "tests/testutil.h"

static struct kernel_design sizing(void)
{
	struct kernel_design k;

	memset(&k, 0, sizeof(k));
	k.global.buckets_per_cpu = 256;
	k.global.min_buckets = 4;
	k.private_hash.enabled = true;
	k.private_hash.buckets = -1;
	k.private_hash.per_thread = 4;
	k.private_hash.min_buckets = 16;
	return k;
}

START_TEST(test_roundup_pow2)
{
	ck_assert_uint_eq(roundup_pow2(1), 1);
	ck_assert_uint_eq(roundup_pow2(3), 4);
	ck_assert_uint_eq(roundup_pow2(8192), 8192);
	ck_assert_uint_eq(roundup_pow2(9216), 16384);
	ck_assert_uint_eq(roundup_pow2((1ull << 31) + 1), 0); /* does not fit in 32 bits */
}
END_TEST

START_TEST(test_global_sizes)
{
	struct kernel_design k = sizing();

	ck_assert_uint_eq(kernel_global_buckets(&k, 32, 1), 8192);   /* 3.14-6.15, 32 CPUs */
	ck_assert_uint_eq(kernel_global_buckets(&k, 144, 1), 65536); /* 36864 -> 65536 */
	ck_assert_uint_eq(kernel_global_buckets(&k, 32, 2), 4096);   /* 6.16+: per node */
	ck_assert_uint_eq(kernel_global_buckets(&k, 144, 4), 16384); /* 9216 -> 16384 */
	ck_assert_uint_eq(kernel_global_buckets(&k, 1, 1), 256);
	k.global.buckets_per_cpu = 1;
	ck_assert_uint_eq(kernel_global_buckets(&k, 1, 2), 4);       /* the max(4, ...) floor */
	k.global.buckets = 64;
	ck_assert_uint_eq(kernel_global_buckets(&k, 144, 4), 64);    /* fixed size wins */
}
END_TEST

START_TEST(test_private_sizes)
{
	struct kernel_design k = sizing();

	/* roundup_pow_of_two(4 x min(threads, cpus)), clamped to [16, node table] */
	ck_assert_uint_eq(kernel_private_buckets(&k, 29, 32, 4096), 128); /* 116 -> 128 */
	ck_assert_uint_eq(kernel_private_buckets(&k, 1, 32, 4096), 16);   /* 4 -> 16 */
	ck_assert_uint_eq(kernel_private_buckets(&k, 1000, 144, 16384), 1024); /* 576 -> 1024 */
	ck_assert_uint_eq(kernel_private_buckets(&k, 100, 100, 256), 256);     /* 512 clamped */
	k.private_hash.buckets = 2;
	ck_assert_uint_eq(kernel_private_buckets(&k, 100, 100, 256), 2);  /* prctl-set size */
	k.private_hash.buckets = 0;
	ck_assert_uint_eq(kernel_private_buckets(&k, 100, 100, 256), 0);  /* the global hash */
	k.private_hash.buckets = -1;
	k.private_hash.enabled = false;
	ck_assert_uint_eq(kernel_private_buckets(&k, 100, 100, 256), 0);
}
END_TEST

/* A scenario on `machine` with kernel `kernel_yaml` (a preset name or a flow map). */
static char *scenario(const char *machine, const char *kernel_yaml, const char *workload_extra)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "machine: %s\nkernel: %s\nworkload: {type: hash-bench, threads: 2, futexes: 64%s}\n"
		 "run: {duration: 10us, warmup: 0ns}\n",
		 machine, kernel_yaml, workload_extra);
	return tu_write_temp(text);
}

static int load(struct scenario *sc, const char *path, struct fs_error *e)
{
	memset(e, 0, sizeof(*e));
	return scenario_load(sc, path, NULL, 0, e);
}

/* The path's steps by name, space-separated, are `want`. */
static void assert_path(const struct kernel_path *p, const char *want)
{
	char got[1024] = "";

	for (uint32_t i = 0; i < p->nsteps; i++) {
		if (i)
			strcat(got, " ");
		strcat(got, futex_step_names[p->steps[i]]);
	}
	ck_assert_str_eq(got, want);
}

START_TEST(test_presets_inherit)
{
	struct scenario sc;
	struct fs_error e;
	char *p = scenario("e5-2650-2s", "linux-6.18", "");

	ck_assert_msg(load(&sc, p, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(sc.kernel.name, "linux-6.18");
	ck_assert_str_eq(sc.kernel.private_hash.refcount->name, "percpu-6.18");
	ck_assert(sc.kernel.global.per_node);                 /* from linux-6.16-dev */
	ck_assert(sc.kernel.private_hash.enabled);
	ck_assert_int_eq(sc.kernel.bucket.off[BF_PRIV], 24);
	ck_assert_uint_eq(sc.kernel.paths[FOP_WAIT_EAGAIN].nsteps, 10);
	/* the paths it leaves out are the defaults docs/kernel.md lists */
	assert_path(&sc.kernel.paths[FOP_WAIT_BLOCK], "queue unlock sleep hash_put");
	assert_path(&sc.kernel.paths[FOP_WAKE], "syscall get_key hash_lookup waiters_pending lock wake_walk unlock hash_put");
	assert_path(&sc.kernel.paths[FOP_REQUEUE], "syscall get_key get_key2 hash_lookup hash_lookup2 waiters_inc2 "
		    "double_lock cmp_uval requeue_walk double_unlock waiters_dec2 hash_put hash_put2");
	scenario_free(&sc);
	unlink(p);
	free(p);

	p = scenario("e5-2650-2s", "{preset: linux-6.15, global_hash: {buckets: 256}}", "");
	ck_assert_msg(load(&sc, p, &e) == 0, "%s", e.msg);
	ck_assert(!sc.kernel.global.per_node);
	ck_assert(sc.kernel.global.interleave);
	ck_assert_uint_eq(sc.kernel.global.buckets, 256);
	ck_assert_int_eq(sc.kernel.bucket.off[BF_PRIV], LAYOUT_ABSENT);
	scenario_free(&sc);
	unlink(p);
	free(p);
}
END_TEST

/* The scheduler block: the presets' policies, the slice scaled to the machine's CPUs
 * (32: 3 ms; small-1node's 8: 3 ms; a fixed `timeslice` as given), and the wake-up
 * keys that moved to the machine refused with a message naming their new place. */
START_TEST(test_scheduler_block)
{
	struct scenario sc;
	struct fs_error e;
	struct fair_params fp;
	char *p = scenario("e5-2650-2s", "linux-6.18", "");

	ck_assert_msg(load(&sc, p, &e) == 0, "%s", e.msg);
	fp = kernel_scheduler(&sc.kernel, 32);
	ck_assert_int_eq(fp.policy, FAIR_EEVDF);
	ck_assert_uint_eq(fp.slice, 3 * PS_PER_MS);
	ck_assert_uint_eq(fp.tick, 4 * PS_PER_MS);
	ck_assert(fp.run_to_parity && fp.delay_dequeue);
	ck_assert_uint_eq(kernel_scheduler(&sc.kernel, 2).slice, 1500 * PS_PER_US);
	scenario_free(&sc);
	unlink(p);
	free(p);
	p = scenario("e5-2650-2s", "linux-3.14", "");
	ck_assert_msg(load(&sc, p, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(sc.kernel.scheduler.policy, FAIR_FIFO);
	scenario_free(&sc);
	unlink(p);
	free(p);
	p = scenario("e5-2650-2s", "{preset: linux-6.18, timeslice: 20us, scheduler: {hz: 1000}}", "");
	ck_assert_msg(load(&sc, p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(kernel_scheduler(&sc.kernel, 32).slice, 20 * PS_PER_US);
	ck_assert_uint_eq(kernel_scheduler(&sc.kernel, 32).tick, PS_PER_MS);
	scenario_free(&sc);
	unlink(p);
	free(p);
	p = scenario("e5-2650-2s", "{preset: linux-6.18, wakeup_latency: 7us}", "");
	ck_assert_int_eq(load(&sc, p, &e), -1);
	ck_assert_msg(strstr(e.msg, "wakeup_latency") && strstr(e.msg, "sched.wake_to_run"), "%s", e.msg);
	scenario_free(&sc);
	unlink(p);
	free(p);
	p = scenario("e5-2650-2s", "{preset: linux-6.18, scheduler: {policy: cfs}}", "");
	ck_assert_int_eq(load(&sc, p, &e), -1);
	ck_assert_msg(strstr(e.msg, "policy") && strstr(e.msg, "eevdf"), "%s", e.msg);
	scenario_free(&sc);
	unlink(p);
	free(p);
}
END_TEST

/* Every refcount mode YAML accepts (refcount_mode_names) is one the table has. */
START_TEST(test_refcount_modes)
{
	const char *buf[REFCOUNT_MAX_MODES + 1];
	const char *const *names = refcount_mode_names(buf);
	size_t n = 0;

	for (; names[n]; n++) {
		const struct refcount_mode *mode = refcount_mode_find(names[n]);

		ck_assert_msg(mode != NULL, "no mode '%s'", names[n]);
		ck_assert_str_eq(mode->name, names[n]);
		ck_assert_ptr_nonnull(mode->emit_get);
		ck_assert_ptr_nonnull(mode->emit_put);
	}
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_null(refcount_mode_find("rcu-ref"));
}
END_TEST

START_TEST(test_bad_designs)
{
	static const struct {
		const char *kernel, *fragment;
	} cases[] = {
		{ "{preset: linux-6.18, private_hash: {buckets: 100}}", "not a power of two" },
		{ "{preset: linux-6.18, private_hash: {refcount: rcu-ref}}", "did you mean 'rcuref'" },
		{ "{preset: linux-6.18, global_hash: {hash: jhash3}}", "did you mean 'jhash2'" },
		{ "{preset: linux-6.18, path: {wait_eagain: [syscall, lock]}}", "'lock' without 'unlock'" },
		{ "{preset: linux-6.18, path: {wait_eagain: [syscall, unlock]}}", "'unlock' without 'lock'" },
		{ "{preset: linux-6.18, path: {wait_eagain: [syscall, lokc]}}", "did you mean 'lock'" },
		{ "{preset: linux-6.18, layout: {bucket: {fields: {waiters: none}}}}",
		  "step 'waiters_inc' needs layout.bucket.fields.waiters" },
		{ "linux-9.99", "unknown kernel preset 'linux-9.99'" },
		{ "{preset: linux-6.18, privat_hash: {}}", "did you mean 'private_hash'" },
		/* a header may be absent (size 0), but then it has no fields: 6.16-dev's has three */
		{ "{preset: linux-6.16-dev, layout: {private_hash_header: {size: 0}}}",
		  "an object of size 0 has no fields, but users is at 0" },
		/* only the header may be absent */
		{ "{preset: linux-6.18, layout: {bucket: {size: 0}}}", "size: '0' is out of range (expected between 1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = scenario("small-1node", cases[i].kernel, "");
		struct scenario sc;
		struct sim s;
		struct fs_error e;
		int rc = load(&sc, p, &e);

		if (rc == 0) {
			rc = sim_build(&s, &sc, &e);
			sim_free(&s);
		}
		ck_assert_msg(rc < 0, "case %zu accepted", i);
		ck_assert_msg(strstr(e.msg, cases[i].fragment), "case %zu: '%s' lacks '%s'", i, e.msg,
			      cases[i].fragment);
		scenario_free(&sc);
		unlink(p);
		free(p);
	}
}
END_TEST

static void build(struct scenario *sc, struct sim *s, const char *machine, const char *kernel,
		  const char *extra)
{
	char *p = scenario(machine, kernel, extra);
	struct fs_error e;

	ck_assert_msg(load(sc, p, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(s, sc, &e) == 0, "%s", e.msg);
	unlink(p);
	free(p);
}

START_TEST(test_tables_of_presets)
{
	struct scenario sc;
	struct sim s;

	build(&sc, &s, "e5-2650-2s", "linux-6.18", "");
	ck_assert_uint_eq(s.ft.nglobal, 2);
	ck_assert_uint_eq(s.ft.global_buckets, 4096);
	ck_assert_uint_eq(s.ft.tables[0]->node, 0);
	ck_assert_uint_eq(s.ft.tables[1]->node, 1);
	/* 2 workers + main: roundup(4 x 3) = 16, the minimum */
	ck_assert_ptr_nonnull(s.ft.procs[0].phash);
	ck_assert_uint_eq(s.ft.procs[0].phash->size, 16);
	/* every global bucket of node 1 lives in node 1's memory */
	ck_assert_uint_eq(s.coh.lines[futex_table_line(s.ft.tables[1], 17, BF_LOCK)].home_node, 1);
	/* aligned buckets: one line per bucket, all four fields on it */
	ck_assert_uint_eq(futex_table_line(s.ft.tables[0], 5, BF_WAITERS), futex_table_line(s.ft.tables[0], 5, BF_PRIV));
	ck_assert_uint_ne(futex_table_line(s.ft.tables[0], 5, BF_LOCK), futex_table_line(s.ft.tables[0], 6, BF_LOCK));
	sim_free(&s);
	scenario_free(&sc);

	build(&sc, &s, "e7-8890v3-4s", "linux-6.15", "");
	ck_assert_uint_eq(s.ft.nglobal, 1);
	ck_assert_uint_eq(s.ft.global_buckets, 65536);
	ck_assert_ptr_null(s.ft.procs[0].phash);
	/* interleaved: consecutive 4 KiB pages (64 buckets) on consecutive nodes */
	ck_assert_uint_eq((s.coh.lines[futex_table_line(s.ft.tables[0], 0, BF_LOCK)].home_node + 1) % 4,
			  s.coh.lines[futex_table_line(s.ft.tables[0], 64, BF_LOCK)].home_node);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

/* Which buckets share a 128-byte pair (the prefetcher's unit): 6.16-dev's buckets follow
 * the header's line, so bucket 0 pairs with the header, 1 with 2; the RFC's bare array
 * of its own pairs 0 with 1, 2 with 3. */
START_TEST(test_private_hash_pairs)
{
	static const char *const kernels[] = { "{preset: linux-6.16-dev, private_hash: {buckets: 8}}",
					       "{preset: private-hash-rfc-2024, private_hash: {buckets: 8}}" };

	for (unsigned v = 0; v < 2; v++) {
		struct scenario sc;
		struct sim s;
		const struct futex_table *t;
		const uint32_t *pair;

		build(&sc, &s, "e5-2650-2s", kernels[v], "");
		t = s.ft.procs[0].phash;
		ck_assert_ptr_nonnull(t);
		ck_assert_uint_eq(t->size, 8);
		pair = s.coh.buddy;
		ck_assert_ptr_nonnull(pair);
		for (uint32_t b = 0; b + 1 < 8; b++) {
			uint32_t line = futex_table_line(t, b, BF_LOCK), next = futex_table_line(t, b + 1, BF_LOCK);
			bool paired = b % 2 != v; /* 6.16-dev: (1, 2), (3, 4)...; RFC: (0, 1), (2, 3)... */

			ck_assert_msg((pair[line] == next) == paired, "kernel %u: buckets %u and %u", v, b, b + 1);
		}
		if (v == 0)
			ck_assert_uint_eq(pair[futex_table_line(t, 0, BF_LOCK)], s.ft.procs[0].phash_lines[PHF_USERS]);
		else
			ck_assert_uint_eq(s.ft.procs[0].phash_lines[PHF_USERS], MEMMAP_NONE);
		sim_free(&s);
		scenario_free(&sc);
	}
}
END_TEST

START_TEST(test_packed_buckets_share_lines)
{
	struct scenario sc;
	struct sim s;
	const struct futex_table *t;

	/* 24-byte buckets (2.6 era): buckets 0, 1, 2 start at 0, 24, 48 of the first line */
	build(&sc, &s, "small-1node",
	      "{preset: linux-6.15, layout: {bucket: {size: 24, align: 8, "
	      "fields: {waiters: 0, lock: 4, chain: 8, priv: none}}}}",
	      "");
	t = s.ft.tables[0];
	ck_assert_uint_eq(futex_table_line(t, 0, BF_LOCK), futex_table_line(t, 1, BF_LOCK));
	ck_assert_uint_eq(futex_table_line(t, 0, BF_LOCK), futex_table_line(t, 2, BF_LOCK));
	ck_assert_uint_ne(futex_table_line(t, 2, BF_LOCK), futex_table_line(t, 3, BF_LOCK));
	/* bucket 2's chain (48 + 8 = 56) is on line 0 too; bucket 5 (120) straddles nothing */
	ck_assert_uint_eq(futex_table_line(t, 2, BF_CHAIN), futex_table_line(t, 0, BF_WAITERS));
	/* one line, yet a spinlock per bucket: bucket 0's held leaves bucket 1's free */
	ck_assert_int_eq(spinlock_try(&s.locks, t->lock0, 0, 0), SPIN_ACQUIRED);
	ck_assert(spinlock_is_free(&s.locks, t->lock0 + 1));
	ck_assert(!spinlock_is_free(&s.locks, t->lock0));
	spinlock_release(&s.locks, t->lock0, 0);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

START_TEST(test_resolve_follows_the_hash)
{
	struct scenario sc;
	struct sim s;
	const struct process *p;
	struct op_target t;
	uint64_t uaddr = UINT64_C(0x7f0000001234);
	struct futex_key key;
	uint32_t h;

	build(&sc, &s, "e5-2650-2s", "linux-6.18", "");
	p = &s.ft.procs[0];
	/* private op: the private hash, jhash2 over the address words with the offset as initval */
	t = futex_tables_resolve(&s.ft, 0, uaddr, false, -1);
	ck_assert_ptr_eq(t.table, p->phash);
	{
		uint32_t words[2] = { 0x00001000, 0x7f00 };

		ck_assert_uint_eq(t.bucket, jhash2(words, 2, 0x234) & 15);
	}
	/* shared op: a global table, node from the bits above the bucket index */
	t = futex_tables_resolve(&s.ft, 0, uaddr, true, -1);
	key = futex_key_mm_shared(p->mm, uaddr);
	{
		uint32_t words[4] = { (uint32_t)key.ptr, (uint32_t)(key.ptr >> 32), (uint32_t)key.word,
				      (uint32_t)(key.word >> 32) };

		h = jhash2(words, 4, 0x234 | FUT_OFF_MMSHARED);
	}
	ck_assert_uint_eq(t.bucket, h & 4095);
	ck_assert_ptr_eq(t.table, s.ft.tables[(h >> 12) % 2]);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *sizes = tcase_create("sizing");
	TCase *designs = tcase_create("designs");

	tcase_add_test(sizes, test_roundup_pow2);
	tcase_add_test(sizes, test_global_sizes);
	tcase_add_test(sizes, test_private_sizes);
	tcase_add_test(sizes, test_refcount_modes);
	tcase_add_test(designs, test_presets_inherit);
	tcase_add_test(designs, test_scheduler_block);
	tcase_add_test(designs, test_bad_designs);
	tcase_add_test(designs, test_tables_of_presets);
	tcase_add_test(designs, test_private_hash_pairs);
	tcase_add_test(designs, test_packed_buckets_share_lines);
	tcase_add_test(designs, test_resolve_follows_the_hash);
	tcase_set_timeout(designs, 20);
	suite_add_tcase(s, sizes);
	suite_add_tcase(s, designs);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
