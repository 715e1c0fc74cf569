/* SPDX-License-Identifier: MIT */
/* Tests of the path compiler (models/futex_path.c): the micro-ops a kernel
 * design's path compiles to, the patched targets of its branches and jumps, and
 * the two ways out of FUTEX_WAIT, on the compiled program followed by hand and
 * in a small simulation.
 *
 * Every expected micro-op and time below is worked out by hand from the machine
 * and kernel written in this file (MACHINE, KERNEL_FMT). The machine runs at
 * 2.0 GHz, so one cycle is 500 ps:
 *   syscall 100 ns                          = 100000 ps  (machine costs.syscall)
 *   key_private 20 cycles                   =  10000 ps
 *   key_shared 300 cycles                   = 150000 ps
 *   hash_global 11 cycles                   =   5500 ps  (the global table's hash)
 *   wait_setup 40 cycles                    =  20000 ps
 *   uval_read 3 ns                          =   3000 ps  (a cost given as a time)
 *   lock_slowpath 30 cycles                 =  15000 ps
 *   chain_entry 15 cycles                   =   7500 ps
 *   schedule 1 us                           = 1000000 ps
 * No private hash (so hash_lookup is the global hash's local work then, as
 * futex_hash() does since 6.16, a read of the bucket's priv field, and hash_put
 * reads nothing but the bucket's priv field) and the default 6.16+ bucket layout
 * (waiters, lock, chain, priv on one 64-byte line). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/futex_path.h"
#include "models/futex_table.h"
#include "models/kernel.h"
#include "models/machine.h"
#include "tests/testutil.h"

#define NS 1000ull
#define US 1000000ull

/* The costs above in picoseconds, at 2.0 GHz. */
#define SYSCALL_PS 100000ull      /* 100 ns */
#define KEY_PRIVATE_PS 10000ull   /* 20 cycles x 500 ps */
#define KEY_SHARED_PS 150000ull   /* 300 cycles x 500 ps */
#define HASH_GLOBAL_PS 5500ull    /* 11 cycles x 500 ps */
#define WAIT_SETUP_PS 20000ull    /* 40 cycles x 500 ps */
#define UVAL_READ_PS 3000ull      /* 3 ns */
#define LOCK_SLOW_PS 15000ull     /* 30 cycles x 500 ps */
#define CHAIN_ENTRY_PS 7500ull    /* 15 cycles x 500 ps */
#define SCHEDULE_PS 1000000ull    /* 1 us */

/* One node of four cores without SMT (no slowdown, no siblings); line costs for
 * the simulation: a hit 1 ns, an atomic hit 10 cycles = 5 ns, another core's
 * line 40 ns, a DRAM fill 80 ns, no hold window. */
#define MACHINE                                                                                         \
	"{name: path-test, topology: {nodes: 1, cores_per_node: 4, threads_per_core: 1},"                \
	" frequency: 2.0GHz,"                                                                           \
	" costs: {line_hit: 1ns, atomic_hit: 10 cycles, transfer_smt: 5ns, transfer_node: 40ns,"        \
	" memory_local: 80ns, syscall: 100ns, line_hold: 0, smt_slowdown: 1.0},"                        \
	" sched: {wake_to_run: 7us}}"
#define LINE_HIT_PS 1000ull
#define ATOMIC_HIT_PS 5000ull     /* 10 cycles x 500 ps */
#define FILL_PS 80000ull          /* memory_local */

/* The kernel: %s is the body of its `path:` map. One global table of 16 buckets. */
#define KERNEL_FMT                                                                                      \
	"{name: path-test, global_hash: {per_node: false, buckets: 16},"            \
	" costs: {key_private: 20 cycles, key_shared: 300 cycles, hash_global: 11 cycles,"             \
	" wait_setup: 40 cycles, uval_read: 3ns, lock_slowpath: 30 cycles, chain_entry: 15 cycles,"     \
	" schedule: 1us}, path: {%s}}"
#define WAKEUP_LATENCY_PS (7 * US)

/* The 6.16+ EAGAIN path (configs/kernels/linux-6.16-dev.yaml); wait_block, wake
 * and requeue are the defaults (docs/kernel.md). */
#define WAIT_6_16                                                                                       \
	"wait_eagain: [syscall, get_key, hash_lookup, wait_setup, waiters_inc, lock, read_uval,"        \
	" waiters_dec, unlock, hash_put]"

#define MAX_UOPS 64u

/* A builder as procset_builder makes one, for a private-futex task without a
 * private hash: the mm and private hash lines exist nowhere here (COH_NONE), so
 * a step that wanted one would fail with missing_line rather than read garbage.
 * (Sized to hold either enum's fields.) */
static uint32_t no_lines[MMF_NFIELDS + PHF_NFIELDS];

static struct path_builder builder(const struct kernel_design *k, const struct machine *m, bool shared,
				   struct uop *uops)
{
	struct path_builder b = {
		.k = k, .m = m, .shared = shared, .private_hash = false, .mm_lines = no_lines,
		.phash_lines = no_lines, .percpu_ref_line = COH_NONE, .uops = uops, .cap = MAX_UOPS,
	};

	for (size_t i = 0; i < sizeof(no_lines) / sizeof(no_lines[0]); i++)
		no_lines[i] = COH_NONE;
	/* as procset_builder does: the design's costs at the machine's clock */
	for (unsigned c = 0; c < KC_NCOSTS; c++)
		b.costs_ps[c] = fs_cost_ps(k->costs[c], m->freq_khz);
	return b;
}

/* --- compiling --------------------------------------------------------------- */

static struct {
	struct machine m;
	struct yt_doc *doc; /* the design borrows its strings from it */
	struct kernel_design k;
	struct uop uops[MAX_UOPS];
} fx;

/* Loads MACHINE and a design whose path map is `paths`. */
static void load_design(const char *paths)
{
	char yaml[2048];
	struct fs_error e = { 0 };
	struct yt_node *root;

	memset(&fx, 0, sizeof(fx));
	tu_machine(&fx.m, MACHINE);
	snprintf(yaml, sizeof(yaml), KERNEL_FMT, paths);
	fx.doc = yt_doc_new();
	ck_assert_ptr_nonnull(fx.doc);
	root = yt_load_string(fx.doc, "test-kernel.yaml", yaml, strlen(yaml), &e);
	ck_assert_msg(root != NULL, "%s", e.msg);
	ck_assert_msg(kernel_from_yaml(&fx.k, root, &e) == 0, "%s", e.msg);
}

static void free_design(void)
{
	machine_free(&fx.m);
	yt_doc_free(fx.doc);
	fx.doc = NULL;
}

/* Compiles operation `op` into fx.uops (after `b`'s micro-ops so far); fails the test on error. */
static void compile(struct path_builder *b, enum futex_op_kind op)
{
	struct fs_error e = { 0 };

	ck_assert_msg(futex_path_build(b, op, &e) == 0, "%s", e.msg);
	ck_assert(!b->overflow);
	ck_assert(!b->missing_line);
}

/* The program is exactly `want` (n micro-ops), field by field. */
static void assert_prog(const struct path_builder *b, const struct uop *want, uint32_t n)
{
	ck_assert_uint_eq(b->n, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct uop *g = &b->uops[i], *w = &want[i];

		ck_assert_msg(g->kind == w->kind, "uop %u: kind %u, expected %u", i, g->kind, w->kind);
		ck_assert_msg(g->operand == w->operand, "uop %u: operand %u, expected %u", i, g->operand, w->operand);
		ck_assert_msg(g->work_ps == w->work_ps, "uop %u: work_ps %llu, expected %llu", i,
			      (unsigned long long)g->work_ps, (unsigned long long)w->work_ps);
		/* and what its kind carries (access, cond, line, field, to, ...) */
		ck_assert_msg(uop_same(g, w), "uop %u (kind %u): not the micro-op expected", i, g->kind);
	}
}

#define WORK(ps) { .kind = UOP_WORK, .operand = OPND_NONE, .work_ps = (ps) }
/* an access to the line of a target operand; to a fixed line; to a bucket field */
#define ACCESS(kind_, opnd) { .kind = UOP_ACCESS, .access = (kind_), .operand = (opnd) }
#define LINE_ACCESS(kind_, line_) { .kind = UOP_ACCESS, .access = (kind_), .operand = OPND_LINE, .line = (line_) }
#define FIELD_ACCESS(kind_, opnd, field_) { .kind = UOP_ACCESS, .access = (kind_), .operand = (opnd), .field = (field_) }
#define LOCK(opnd) { .kind = UOP_LOCK, .operand = (opnd), .work_ps = LOCK_SLOW_PS }
#define UNLOCK(opnd) { .kind = UOP_UNLOCK, .operand = (opnd) }
#define WAITERS(opnd, inc_) { .kind = UOP_WAITERS, .operand = (opnd), .inc = (inc_) }
#define BRANCH(cond_, to_) { .kind = UOP_BRANCH, .cond = (cond_), .operand = OPND_NONE, .to = (to_) }
#define JUMP(to_) { .kind = UOP_JUMP, .operand = OPND_NONE, .to = (to_) }
#define QUEUE { .kind = UOP_QUEUE, .operand = OPND_NONE }
#define SLEEP { .kind = UOP_SLEEP, .operand = OPND_NONE }
#define WALK(requeue_) { .kind = UOP_WALK, .operand = OPND_NONE, .requeue = (requeue_), .work_ps = CHAIN_ENTRY_PS }

/* Three steps, one micro-op each: the syscall's local work, the bucket lock
 * (carrying the slow path's work, spent only when contended) and its unlock.
 * The wake path is three other steps (two micro-ops): `op` selects the path. */
START_TEST(test_three_steps)
{
	static const struct uop want_wait[] = {
		WORK(SYSCALL_PS),             /* syscall: 100 ns */
		LOCK(OPND_BUCKET_LOCK),       /* lock: work_ps = lock_slowpath 15 ns */
		UNLOCK(OPND_BUCKET_LOCK),     /* unlock */
	};
	/* syscall and hash_lookup's hash are both local work: one micro-op of 100 +
	 * 5.5 ns; then hash_lookup's read of hb->priv; wake_walk carries the
	 * per-entry key compare, arg 0 (no requeue) */
	static const struct uop want_wake[] = {
		WORK(SYSCALL_PS + HASH_GLOBAL_PS),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
		WALK(0),
	};
	struct path_builder b;

	load_design("wait_eagain: [syscall, lock, unlock], wake: [syscall, hash_lookup, wake_walk]");
	ck_assert_uint_eq(fx.k.paths[FOP_WAIT_EAGAIN].nsteps, 3);
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAIT_EAGAIN);
	assert_prog(&b, want_wait, 3);

	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAKE);
	assert_prog(&b, want_wake, 3);
	free_design();
}
END_TEST

/* A read and, next, a write or RMW of the same operand are one request for
 * ownership: the read becomes the exclusive fetch (a write), the RMW stays and
 * will hit. Not merged: another line in between, local work in between, an RMW
 * of another line, a read after a read. */
START_TEST(test_read_then_rmw_one_request)
{
	static const struct uop want[] = {
		LINE_ACCESS(ACCESS_WRITE, 7), LINE_ACCESS(ACCESS_RMW, 7), /* merged */
		LINE_ACCESS(ACCESS_READ, 7), LINE_ACCESS(ACCESS_RMW, 8),  /* other line */
		LINE_ACCESS(ACCESS_READ, 9), WORK(5000), LINE_ACCESS(ACCESS_RMW, 9), /* work between */
		LINE_ACCESS(ACCESS_READ, 9), LINE_ACCESS(ACCESS_READ, 9),
		FIELD_ACCESS(ACCESS_WRITE, OPND_BUCKET_FIELD, BF_PRIV), FIELD_ACCESS(ACCESS_WRITE, OPND_BUCKET_FIELD, BF_PRIV),
	};
	struct path_builder b;

	load_design("wait_eagain: [syscall, lock, unlock]");
	b = builder(&fx.k, &fx.m, false, fx.uops);
	path_emit_access(&b, ACCESS_READ, OPND_LINE, 7);
	path_emit_access(&b, ACCESS_RMW, OPND_LINE, 7);
	path_emit_access(&b, ACCESS_READ, OPND_LINE, 7);
	path_emit_access(&b, ACCESS_RMW, OPND_LINE, 8);
	path_emit_access(&b, ACCESS_READ, OPND_LINE, 9);
	path_emit_work(&b, 5000);
	path_emit_access(&b, ACCESS_RMW, OPND_LINE, 9);
	path_emit_access(&b, ACCESS_READ, OPND_LINE, 9);
	path_emit_access(&b, ACCESS_READ, OPND_LINE, 9);
	path_emit_access(&b, ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV);
	path_emit_access(&b, ACCESS_WRITE, OPND_BUCKET_FIELD, BF_PRIV);
	assert_prog(&b, want, sizeof(want) / sizeof(want[0]));
	free_design();
}
END_TEST

/* Three steps of local work and accesses: consecutive local work merges into one
 * micro-op, and a shared futex's key costs more and touches its struct page. */
START_TEST(test_three_steps_merge_work)
{
	/* private: syscall, get_key (key_private), read_uval's fixup are one WORK of
	 * 100 + 10 + 3 = 113 ns, then the read of the futex word's line */
	static const struct uop want_private[] = {
		WORK(SYSCALL_PS + KEY_PRIVATE_PS + UVAL_READ_PS),
		ACCESS(ACCESS_READ, OPND_WORD_LINE),
	};
	/* shared: get_key's 150 ns merges with the syscall's 100; the page reference
	 * get and put are two RMWs of the struct page's line, and they split the
	 * read_uval work (3 ns) from the syscall's */
	static const struct uop want_shared[] = {
		WORK(SYSCALL_PS + KEY_SHARED_PS),
		ACCESS(ACCESS_RMW, OPND_PAGE_LINE),
		ACCESS(ACCESS_RMW, OPND_PAGE_LINE),
		WORK(UVAL_READ_PS),
		ACCESS(ACCESS_READ, OPND_WORD_LINE),
	};
	struct path_builder b;

	ck_assert_uint_eq(want_private[0].work_ps, 113000);
	ck_assert_uint_eq(want_shared[0].work_ps, 250000);
	load_design("wait_eagain: [syscall, get_key, read_uval]");
	ck_assert_uint_eq(fx.k.paths[FOP_WAIT_EAGAIN].nsteps, 3);
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAIT_EAGAIN);
	assert_prog(&b, want_private, 2);

	b = builder(&fx.k, &fx.m, true, fx.uops);
	compile(&b, FOP_WAIT_EAGAIN);
	assert_prog(&b, want_shared, 5);
	free_design();
}
END_TEST

START_TEST(test_calls_pay_call_return)
{
	/* The same three steps on a machine whose kernel pays 2 ns per call and return:
	 * syscall makes 5 calls (do_syscall_64, x64_sys_call, __x64_sys_futex, do_futex,
	 * syscall_exit_to_user_mode), get_key 1 (get_futex_key; shared: + 5 of
	 * get_user_pages_fast's), read_uval 1 (futex_get_value_locked): 7 calls = 14 ns
	 * private, 12 = 24 ns shared, each ahead of its step's own work. */
	static const struct uop want_private[] = {
		WORK(SYSCALL_PS + KEY_PRIVATE_PS + UVAL_READ_PS + 7 * 2 * NS),
		ACCESS(ACCESS_READ, OPND_WORD_LINE),
	};
	static const struct uop want_shared[] = {
		WORK(SYSCALL_PS + KEY_SHARED_PS + 11 * 2 * NS),
		ACCESS(ACCESS_RMW, OPND_PAGE_LINE),
		ACCESS(ACCESS_RMW, OPND_PAGE_LINE),
		WORK(UVAL_READ_PS + 2 * NS),
		ACCESS(ACCESS_READ, OPND_WORD_LINE),
	};
	struct path_builder b;

	load_design("wait_eagain: [syscall, get_key, read_uval]");
	fx.m.call_return_ps = 2 * NS;
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAIT_EAGAIN);
	assert_prog(&b, want_private, 2);
	b = builder(&fx.k, &fx.m, true, fx.uops);
	compile(&b, FOP_WAIT_EAGAIN);
	assert_prog(&b, want_shared, 5);
	free_design();
}
END_TEST

/* FUTEX_WAIT with the 6.16+ EAGAIN path and the default wait_block
 * [queue, unlock, sleep, hash_put]: wait_eagain through read_uval (steps 0-6),
 * the value check, wait_block, a jump to the end, then the rest of wait_eagain
 * (waiters_dec, unlock, hash_put). Indices:
 *    0 WORK      syscall + get_key + hash_lookup's hash = 100 + 10 + 5.5 = 115.5 ns
 *    1 ACCESS    hash_lookup: read of the bucket's priv (before waiters++ writes the line)
 *    2 WORK      wait_setup 20 ns
 *    3 WAITERS   +1
 *    4 LOCK
 *    5 WORK      read_uval's 3 ns
 *    6 ACCESS    read of the futex word
 *    7 BRANCH    value changed -> 15 (the rest of wait_eagain)
 *    8 ACCESS    queue: write of the bucket's chain
 *    9 QUEUE
 *   10 UNLOCK
 *   11 WORK      sleep: schedule() 1 us (not merged: an UNLOCK comes between)
 *   12 SLEEP
 *   13 ACCESS    hash_put: read of the bucket's priv
 *   14 JUMP      -> 18, the end of the program
 *   15 WAITERS   -1
 *   16 UNLOCK
 *   17 ACCESS    hash_put: read of the bucket's priv
 */
#define WAIT_PREFIX_PS (SYSCALL_PS + KEY_PRIVATE_PS + HASH_GLOBAL_PS)
static const struct uop want_wait[] = {
	WORK(WAIT_PREFIX_PS),
	FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
	WORK(WAIT_SETUP_PS),
	WAITERS(OPND_BUCKET_FIELD, 1),
	LOCK(OPND_BUCKET_LOCK),
	WORK(UVAL_READ_PS),
	ACCESS(ACCESS_READ, OPND_WORD_LINE),
	BRANCH(BR_VALUE_NE, 15),
	FIELD_ACCESS(ACCESS_WRITE, OPND_BUCKET_FIELD, BF_CHAIN),
	QUEUE,
	UNLOCK(OPND_BUCKET_LOCK),
	WORK(SCHEDULE_PS),
	SLEEP,
	FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
	JUMP(18),
	WAITERS(OPND_BUCKET_FIELD, 0),
	UNLOCK(OPND_BUCKET_LOCK),
	FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
};
#define WAIT_NUOPS 18u
#define WAIT_SLEEP_PC 12u

START_TEST(test_wait_branch_targets)
{
	struct path_builder b;
	struct uop shifted[WAIT_NUOPS + 1];

	ck_assert_uint_eq(WAIT_PREFIX_PS, 115500);
	load_design(WAIT_6_16);
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAIT);
	assert_prog(&b, want_wait, WAIT_NUOPS);
	ck_assert_uint_eq(b.uops[7].to, 15);
	ck_assert_uint_eq(b.uops[14].to, 18);

	/* Targets are indices in the whole program: after one micro-op that is not
	 * local work (which would absorb the syscall's), everything moves up by one,
	 * the branch to 16 and the jump to 19. */
	b = builder(&fx.k, &fx.m, false, fx.uops);
	path_emit_access(&b, ACCESS_READ, OPND_WORD_LINE, 0);
	compile(&b, FOP_WAIT);
	shifted[0] = (struct uop)ACCESS(ACCESS_READ, OPND_WORD_LINE);
	memcpy(shifted + 1, want_wait, sizeof(want_wait));
	shifted[1 + 7].to = 16;
	shifted[1 + 14].to = 19;
	assert_prog(&b, shifted, WAIT_NUOPS + 1);
	free_design();
}
END_TEST

/* The other branches: wake's waiters_pending skips to just after the unlock,
 * requeue's cmp_uval to the double unlock itself (the locks are held). */
START_TEST(test_wake_and_requeue_branch_targets)
{
	/* default wake [syscall get_key hash_lookup waiters_pending lock wake_walk unlock hash_put]:
	 * hash_lookup reads hb->priv; no waiters -> 7, past the unlock at 6, to hash_put */
	static const struct uop want_wake[] = {
		WORK(SYSCALL_PS + KEY_PRIVATE_PS + HASH_GLOBAL_PS), /* 115.5 ns */
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_WAITERS),
		BRANCH(BR_NO_WAITERS, 7),
		LOCK(OPND_BUCKET_LOCK),
		WALK(0),
		UNLOCK(OPND_BUCKET_LOCK),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
	};
	/* default requeue [syscall get_key get_key2 hash_lookup hash_lookup2 waiters_inc2
	 * double_lock cmp_uval requeue_walk double_unlock waiters_dec2 hash_put hash_put2]:
	 * two keys and the first hash merge with the syscall: 100 + 2 x 10 + 5.5 =
	 * 125.5 ns; each hash_lookup reads its bucket's priv, which splits the second
	 * hash's 5.5 ns off; a changed value -> 11, the first half of the double unlock */
	static const struct uop want_requeue[] = {
		WORK(SYSCALL_PS + 2 * KEY_PRIVATE_PS + HASH_GLOBAL_PS),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
		WORK(HASH_GLOBAL_PS),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET2_FIELD, BF_PRIV),
		WAITERS(OPND_BUCKET2_FIELD, 1),
		LOCK(OPND_LOCK_FIRST),
		LOCK(OPND_LOCK_SECOND),
		WORK(UVAL_READ_PS),
		ACCESS(ACCESS_READ, OPND_WORD_LINE),
		BRANCH(BR_VALUE_NE, 11),
		WALK(1),
		UNLOCK(OPND_LOCK_FIRST),
		UNLOCK(OPND_LOCK_SECOND),
		WAITERS(OPND_BUCKET2_FIELD, 0),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET_FIELD, BF_PRIV),
		FIELD_ACCESS(ACCESS_READ, OPND_BUCKET2_FIELD, BF_PRIV),
	};
	struct path_builder b;

	ck_assert_uint_eq(want_wake[0].work_ps, 115500);
	ck_assert_uint_eq(want_requeue[0].work_ps, 125500);
	load_design(WAIT_6_16);
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAKE);
	assert_prog(&b, want_wake, 8);
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_REQUEUE);
	assert_prog(&b, want_requeue, 16);
	free_design();
}
END_TEST

/* --- following the wait program by hand ---------------------------------------- */

/* Runs the control flow of a FUTEX_WAIT program as the task executor does, with
 * the value check giving `value_ne`; stores the indices of the micro-ops it
 * executes (branches and jumps left out) and returns how many. The walk must end
 * exactly at the program's end. */
static uint32_t follow(const struct uop *p, uint32_t n, bool value_ne, uint32_t *out)
{
	uint32_t pc = 0, k = 0, steps = 0;

	while (pc < n) {
		const struct uop *u = &p[pc];

		ck_assert_msg(++steps <= 2 * n, "the program loops");
		if (u->kind == UOP_BRANCH) {
			ck_assert_uint_eq(u->cond, BR_VALUE_NE);
			pc = value_ne ? u->to : pc + 1;
		} else if (u->kind == UOP_JUMP) {
			pc = u->to;
		} else {
			out[k++] = pc++;
		}
	}
	ck_assert_uint_eq(pc, n);
	return k;
}

static uint32_t count_kind(const struct uop *p, const uint32_t *trace, uint32_t n, uint8_t kind)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < n; i++)
		c += p[trace[i]].kind == kind;
	return c;
}

static simtime_t local_work(const struct uop *p, const uint32_t *trace, uint32_t n)
{
	simtime_t ps = 0;

	for (uint32_t i = 0; i < n; i++)
		if (p[trace[i]].kind == UOP_WORK)
			ps += p[trace[i]].work_ps;
	return ps;
}

START_TEST(test_wait_exits_by_hand)
{
	/* value changed: 0-6, the branch to 15, 15-17: waiters back down, unlock,
	 * hash_put; no queue, no sleep */
	static const uint32_t eagain[] = { 0, 1, 2, 3, 4, 5, 6, 15, 16, 17 };
	/* value matches: 0-6, on past the branch to 8-13 (queue, unlock, sleep,
	 * hash_put), the jump at 14 to 18: the end */
	static const uint32_t block[] = { 0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13 };
	uint32_t trace[2 * MAX_UOPS], n;
	struct path_builder b;

	load_design(WAIT_6_16);
	b = builder(&fx.k, &fx.m, false, fx.uops);
	compile(&b, FOP_WAIT);

	n = follow(b.uops, b.n, true, trace);
	ck_assert_uint_eq(n, 10);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(trace[i] == eagain[i], "EAGAIN step %u: uop %u, expected %u", i, trace[i], eagain[i]);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_QUEUE), 0);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_SLEEP), 0);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_LOCK), 1);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_UNLOCK), 1);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_WAITERS), 2); /* +1 then -1 */
	/* 115.5 + 20 + 3 ns: no schedule() */
	ck_assert_uint_eq(local_work(b.uops, trace, n), 138500);

	n = follow(b.uops, b.n, false, trace);
	ck_assert_uint_eq(n, 13);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(trace[i] == block[i], "blocking step %u: uop %u, expected %u", i, trace[i], block[i]);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_QUEUE), 1);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_SLEEP), 1);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_LOCK), 1);
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_UNLOCK), 1);
	/* +1 only: the waker takes the waiter off the chain and counts it down */
	ck_assert_uint_eq(count_kind(b.uops, trace, n, UOP_WAITERS), 1);
	/* 115.5 + 20 + 3 + 1000 ns of schedule() */
	ck_assert_uint_eq(local_work(b.uops, trace, n), 1138500);
	free_design();
}
END_TEST

/* --- in a simulation ----------------------------------------------------------- */

/* A hash-bench run of two threads on CPUs 0 and 1 (cores 0 and 1), both starting
 * at time 0, gives a built simulation with two tasks, their futex words and
 * targets. The test then replaces their programs before anything runs:
 *   task 0: FUTEX_WAIT(w, expected) on its own futex's target;
 *   task 1: 500 us of local work, then FUTEX_WAKE(w, 1) on the same target;
 * and stops each task after its one program (instead of the workload's
 * program_done hook, which would set the next). */
#define WAKER_DELAY_PS (500 * US)

static struct {
	struct scenario sc;
	struct sim s;
	struct futex_word w;
	struct uop prog[2][MAX_UOPS];
	uint32_t done[2];      /* programs completed, per task */
	simtime_t done_at[2];  /* the task's clock at its completion */
} sf;

static void stop_after_one(void *ctx, struct task *t)
{
	(void)ctx;
	ck_assert_uint_lt(t->id, 2);
	sf.done[t->id]++;
	sf.done_at[t->id] = t->clock;
	task_stop(&sf.s.tasks, t);
}

static void sim_setup(uint32_t value, uint32_t expected)
{
	char text[4096];
	char *path;
	struct fs_error e = { 0 };
	struct task *t0, *t1;
	struct path_builder b;
	char kernel[2048];

	memset(&sf, 0, sizeof(sf));
	snprintf(kernel, sizeof(kernel), KERNEL_FMT, WAIT_6_16);
	snprintf(text, sizeof(text),
		 "machine: %s\nkernel: %s\n"
		 "workload: {type: hash-bench, threads: 2, futexes: 1, cpus: 0-1, start_skew: 0}\n"
		 "run: {duration: 1ms, warmup: 0ns}\n",
		 MACHINE, kernel);
	path = tu_write_temp(text);
	ck_assert_msg(scenario_load(&sf.sc, path, NULL, 0, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&sf.s, &sf.sc, &e) == 0, "%s", e.msg);
	unlink(path);
	free(path);
	ck_assert_uint_eq(sf.s.tasks.n, 2);
	t0 = &sf.s.tasks.v[0];
	t1 = &sf.s.tasks.v[1];
	ck_assert_ptr_nonnull(t0->target.table);

	sf.w = (struct futex_word){ .uaddr = 0x10000, .value = value, .pid = t0->process };

	b = builder(sf.s.k, sf.s.m, false, sf.prog[0]);
	ck_assert_msg(futex_path_build(&b, FOP_WAIT, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(b.n, WAIT_NUOPS);
	t0->prog = sf.prog[0];
	t0->nuops = b.n;
	t0->call.word = &sf.w;
	t0->call.expected = expected;

	b = builder(sf.s.k, sf.s.m, false, sf.prog[1]);
	path_emit(&b, (struct uop){ .kind = UOP_WORK, .operand = OPND_NONE, .work_ps = WAKER_DELAY_PS });
	ck_assert_msg(futex_path_build(&b, FOP_WAKE, &e) == 0, "%s", e.msg);
	t1->prog = sf.prog[1];
	t1->nuops = b.n;
	t1->target = t0->target;
	t1->call.word = &sf.w;
	t1->call.nwake = 1;
	t1->call.nrequeue = 0;

	/* both use the bucket's line now: neither may run ahead on it alone */
	task_note_lines(&sf.s.tasks, t0, &t0->target, 1);
	task_note_lines(&sf.s.tasks, t1, &t1->target, 1);
	/* instead of the workload's hook: no next program */
	tasks_set_program_done(&sf.s.tasks, stop_after_one, NULL);
	sim_start(&sf.s);
}

static void sim_teardown(void)
{
	sim_free(&sf.s);
	scenario_free(&sf.sc);
}

static uint32_t bucket_lock(const struct task *t)
{
	return t->target.table->lock0 + t->target.bucket;
}

/* The word holds 2, the waiter expects 1: EAGAIN. Task 0 alone until 500 us, on
 * cold lines:
 *   0 WORK 115.5 ns                                   ->  115.5
 *   1 read of priv: the bucket line from DRAM, 80 ns,
 *     exclusive (nobody else has it)                  ->  195.5
 *   2 WORK 20 ns                                      ->  215.5
 *   3 waiters++: atomic hit 5 ns                      ->  220.5
 *   4 lock: cmpxchg on that line, ours: 5 ns          ->  225.5
 *   5 WORK 3 ns                                       ->  228.5
 *   6 read of the word's line from DRAM, 80 ns        ->  308.5
 *   7 2 != 1: on to 15
 *  15 waiters--: atomic hit 5 ns                      ->  313.5
 *  16 unlock: store hit 1 ns                          ->  314.5
 *  17 read of priv (the bucket line): hit 1 ns        ->  315.5 ns
 * done at 315.5 ns, without queueing or sleeping. The wake at 500 us then finds
 * no waiters and skips the lock and the walk. */
START_TEST(test_sim_wait_value_changed)
{
	const struct task *t0, *t1;
	struct fs_error e = { 0 };

	sim_setup(2, 1);
	t0 = &sf.s.tasks.v[0];
	t1 = &sf.s.tasks.v[1];
	sim_advance(&sf.s, 400 * US);
	ck_assert_uint_eq(sf.done[0], 1);
	ck_assert_uint_eq(sf.done_at[0], 115500 + FILL_PS + 20000 + ATOMIC_HIT_PS + ATOMIC_HIT_PS + 3000 +
						  FILL_PS + ATOMIC_HIT_PS + LINE_HIT_PS + LINE_HIT_PS);
	ck_assert_uint_eq(sf.done_at[0], 315500);
	ck_assert_uint_eq(t0->state, TS_IDLE);
	ck_assert_uint_eq(t0->ops, 1);
	ck_assert_ptr_null(t0->wait.word);
	ck_assert_uint_eq(t0->target.table->chain_head[t0->target.bucket], FUTEX_CHAIN_END);
	ck_assert_uint_eq(t0->target.table->waiters[t0->target.bucket], 0);
	ck_assert(spinlock_is_free(&sf.s.locks, bucket_lock(t0)));
	ck_assert_uint_eq(sf.s.locks.locks[bucket_lock(t0)].acquisitions, 1);
	ck_assert_uint_eq(sf.done[1], 0); /* the waker is still working */

	sim_advance(&sf.s, sf.s.end);
	ck_assert_msg(sim_finish(&sf.s, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(sf.done[1], 1);
	ck_assert_uint_eq(sf.done[0], 1);
	ck_assert_uint_ge(sf.done_at[1], WAKER_DELAY_PS);
	ck_assert_uint_eq(t1->stats.chain_walked, 0);   /* waiters 0: no walk */
	ck_assert_uint_eq(t0->stats.wakeups, 0);
	ck_assert_uint_eq(t0->stats.slept_ps, 0);
	ck_assert_uint_eq(sf.s.locks.locks[bucket_lock(t0)].acquisitions, 1); /* not the waker's */
	ck_assert_uint_eq(sf.w.value, 2);         /* FUTEX_WAIT only reads it */
	sim_teardown();
}
END_TEST

/* The word holds 2 and the waiter expects 2: it queues and sleeps. Task 0 as
 * above through uop 6 (308.5 ns), then
 *   7 2 == 2: on to 8
 *   8 write of the chain (the bucket line, ours): 1 ns -> 309.5
 *   9 queued on the bucket's chain
 *  10 unlock: store hit 1 ns                          -> 310.5
 *  11 WORK schedule() 1 us                            -> 1310.5 ns
 *  12 asleep from 1310.5 ns, until the wake after 500 us; woken 7 us
 *     (wake_to_run) after it at the earliest, it finishes 13-14. */
START_TEST(test_sim_wait_value_matches)
{
	const struct task *t0, *t1;
	struct fs_error e = { 0 };

	sim_setup(2, 2);
	t0 = &sf.s.tasks.v[0];
	t1 = &sf.s.tasks.v[1];
	sim_advance(&sf.s, 400 * US);
	ck_assert_uint_eq(sf.done[0], 0);
	ck_assert_uint_eq(t0->state, TS_SLEEP);
	ck_assert_uint_eq(t0->pc, WAIT_SLEEP_PC);
	ck_assert_uint_eq(t0->wait.slept_at, 115500 + FILL_PS + 20000 + ATOMIC_HIT_PS + ATOMIC_HIT_PS + 3000 +
						FILL_PS + LINE_HIT_PS + LINE_HIT_PS + SCHEDULE_PS);
	ck_assert_uint_eq(t0->wait.slept_at, 1310500);
	ck_assert_ptr_eq(t0->wait.word, &sf.w);
	ck_assert_uint_eq(t0->target.table->chain_head[t0->target.bucket], 0);
	ck_assert_uint_eq(t0->target.table->waiters[t0->target.bucket], 1);
	ck_assert(spinlock_is_free(&sf.s.locks, bucket_lock(t0))); /* unlocked before sleeping */
	ck_assert_uint_eq(t0->ops, 0);
	ck_assert_uint_eq(sf.done[1], 0);

	sim_advance(&sf.s, sf.s.end);
	ck_assert_msg(sim_finish(&sf.s, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(sf.done[1], 1);
	ck_assert_uint_eq(t1->stats.chain_walked, 1);   /* it found the waiter first in the chain */
	ck_assert_uint_eq(sf.done[0], 1);
	ck_assert_uint_eq(t0->ops, 1);
	ck_assert_uint_eq(t0->stats.wakeups, 1);
	ck_assert_ptr_null(t0->wait.word);
	ck_assert_uint_ge(sf.done_at[0], WAKER_DELAY_PS + WAKEUP_LATENCY_PS);
	ck_assert_uint_ge(t0->stats.slept_ps, WAKER_DELAY_PS + WAKEUP_LATENCY_PS - 1310500);
	ck_assert_uint_eq(t0->target.table->chain_head[t0->target.bucket], FUTEX_CHAIN_END);
	ck_assert_uint_eq(t0->target.table->waiters[t0->target.bucket], 0);
	ck_assert_uint_eq(sf.s.locks.locks[bucket_lock(t0)].acquisitions, 2); /* waiter and waker */
	ck_assert(spinlock_is_free(&sf.s.locks, bucket_lock(t0)));
	sim_teardown();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("path");
	TCase *compiling = tcase_create("compile");
	TCase *exits = tcase_create("wait exits");

	tcase_add_test(compiling, test_three_steps);
	tcase_add_test(compiling, test_three_steps_merge_work);
	tcase_add_test(compiling, test_calls_pay_call_return);
	tcase_add_test(compiling, test_read_then_rmw_one_request);
	tcase_add_test(compiling, test_wait_branch_targets);
	tcase_add_test(compiling, test_wake_and_requeue_branch_targets);
	tcase_add_test(exits, test_wait_exits_by_hand);
	tcase_add_test(exits, test_sim_wait_value_changed);
	tcase_add_test(exits, test_sim_wait_value_matches);
	tcase_set_timeout(exits, 20);
	suite_add_tcase(s, compiling);
	suite_add_tcase(s, exits);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
