/* SPDX-License-Identifier: MIT */
/* The coherence protocol's table (models/coherence.h, COH_PROTOCOL), row by row, on
 * hand-worked cases: a line put in each state as CPU 0 sees it, CPU 0 accesses it
 * with each kind, and the cost, every CPU's state after and the traffic counted are
 * checked against figures worked out here from the machine's numbers, not read
 * from the table. tests/protocol_mutants.sh mutates each row of the table and
 * expects this test to fail.
 *
 * Machine (as tests/check_coherence.c's, cores-first, 2 nodes x 2 cores x 2 SMT):
 * CPUs 0, 1 on node 0, 2, 3 on node 1, CPU 4 CPU 0's SMT sibling. Hit 1 ns, atomic
 * hit 10 ns, sibling 5 ns, node 40 ns, remote 100 ns, DRAM 80 ns local / 150 ns
 * remote, invalidation 1.2 (a write that invalidates a remote sharer: 120 ns), no
 * hold window, the adjacent-line prefetcher on. The lines are homed on node 1, so
 * CPU 0 fills them in 150 ns. The states put (put_state), as CPU 0 sees them:
 * MODIFIED_HERE owner 0; MODIFIED_ELSEWHERE owner 2; SHARED_ONLY_HERE sharer 0;
 * SHARED_HERE sharers 0, 2; SHARED_ELSEWHERE sharers 1, 2 (1 the nearer: 40 ns,
 * 2 the farther: 100 ns); INVALID nobody. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "models/coherence.h"
#include "tests/testutil.h"

#define NS 1000ull

static const char machine_yaml[] =
	"name: protocol-test\n"
	"topology: {nodes: 2, cores_per_node: 2, threads_per_core: 2}\n"
	"frequency: 1GHz\n"
	"distance: [[10, 21], [21, 10]]\n"
	"costs: {line_hit: 1ns, atomic_hit: 10ns, transfer_smt: 5ns, transfer_node: 40ns,\n"
	"        transfer_remote: 100ns, memory_local: 80ns, memory_remote: 150ns,\n"
	"        syscall: 100ns, line_hold: 0ns, smt_slowdown: 1.0, invalidation: 1.2}\n"
	"coherence: {adjacent_line_prefetch: true}\n";

struct grant {
	uint32_t requester;
	simtime_t at;
};

static struct {
	struct machine m;
	struct engine e;
	struct coherence c;
	struct grant log[16];
	uint32_t n;
} fx;

static void on_grant(void *ctx, uint32_t requester, uint32_t line)
{
	(void)ctx;
	(void)line;
	ck_assert_uint_lt(fx.n, 16);
	fx.log[fx.n++] = (struct grant){ requester, fx.e.now };
}

static void setup(void)
{
	memset(&fx, 0, sizeof(fx));
	tu_machine(&fx.m, machine_yaml);
	ck_assert_int_eq(engine_init(&fx.e), 0);
	ck_assert_int_eq(coh_init(&fx.c, &fx.m, &fx.e, 8, on_grant, &fx), 0);
}

static void teardown(void)
{
	coh_free(&fx.c);
	engine_free(&fx.e);
	machine_free(&fx.m);
}

static void finish(void)
{
	engine_run(&fx.e, SIMTIME_MAX);
}

static void expect_grant(uint32_t i, uint32_t requester, simtime_t at_ps)
{
	ck_assert_uint_gt(fx.n, i);
	ck_assert_uint_eq(fx.log[i].requester, requester);
	ck_assert_uint_eq(fx.log[i].at, at_ps);
}

/* Sets `line`'s owner and sharers (white box: a line with a single sharer, for one,
 * is not reached by the shipped protocol) so that CPU 0 sees it in `st`. */
static void put_sharers(uint32_t line, uint16_t n, uint16_t a, uint16_t b)
{
	struct line *l = &fx.c.lines[line];

	l->owner = COH_NONE;
	l->nsharers = n;
	l->sh[0] = a;
	l->sh[1] = b;
}

static void put_state(uint32_t line, enum coh_state st)
{
	switch (st) {
	case COH_MODIFIED_HERE:
		put_sharers(line, 0, 0, 0);
		fx.c.lines[line].owner = 0;
		break;
	case COH_MODIFIED_ELSEWHERE:
		put_sharers(line, 0, 0, 0);
		fx.c.lines[line].owner = 2;
		break;
	case COH_SHARED_ONLY_HERE:
		put_sharers(line, 1, 0, 0);
		break;
	case COH_SHARED_HERE:
		put_sharers(line, 2, 0, 2);
		break;
	case COH_SHARED_ELSEWHERE:
		put_sharers(line, 2, 1, 2);
		break;
	default:
		put_sharers(line, 0, 0, 0);
		break;
	}
	ck_assert_int_eq(coh_state(&fx.c, line, 0), st);
}

/* What one access counts, by hand: `counter` once at distance `cls` (fills and
 * upgrades at 0), or nothing (COH_CNT_NONE). */
struct counted {
	enum coh_counter counter;
	enum xfer_class cls;
};

/* The traffic counted is exactly that of the case's accesses a, b and c. */
static void expect_traffic(struct counted a, struct counted b, struct counted c)
{
	uint64_t want[COH_NCOUNTERS][XFER_NCLASSES] = { { 0 } };
	uint64_t fills = 0;

	want[a.counter][a.cls]++;
	want[b.counter][b.cls]++;
	want[c.counter][c.cls]++;
	memset(want[COH_CNT_NONE], 0, sizeof(want[COH_CNT_NONE]));
	for (int k = 0; k < COH_NCOUNTERS; k++)
		for (int d = 0; d < XFER_NCLASSES; d++)
			ck_assert_msg(fx.c.traffic[k][d] == want[k][d], "traffic[%d][%d] is %llu, not %llu", k, d,
				      (unsigned long long)fx.c.traffic[k][d], (unsigned long long)want[k][d]);
	/* the figures the results report are the kinds' sums */
	for (int d = 0; d < XFER_NCLASSES; d++)
		ck_assert_uint_eq(fx.c.total_transfers[d], fx.c.traffic[COH_CNT_C2C][d] + fx.c.traffic[COH_CNT_INVALIDATE][d] +
								   fx.c.traffic[COH_CNT_PREFETCH][d] + fx.c.traffic[COH_CNT_POSTED][d]);
	fills = fx.c.traffic[COH_CNT_FILL][0] + fx.c.traffic[COH_CNT_PREFETCH_FILL][0];
	ck_assert_uint_eq(fx.c.total_fills, fills);
}

static void expect_states(uint32_t line, enum coh_state cpu0, enum coh_state cpu1, enum coh_state cpu2)
{
	ck_assert_int_eq(coh_state(&fx.c, line, 0), cpu0);
	ck_assert_int_eq(coh_state(&fx.c, line, 1), cpu1);
	ck_assert_int_eq(coh_state(&fx.c, line, 2), cpu2);
}

#define M_HERE COH_MODIFIED_HERE
#define M_ELSE COH_MODIFIED_ELSEWHERE
#define S_ONLY COH_SHARED_ONLY_HERE
#define S_HERE COH_SHARED_HERE
#define S_ELSE COH_SHARED_ELSEWHERE
#define INV COH_INVALID
#define NOTHING { COH_CNT_NONE, 0 }

/* CPU 0's demand accesses: a hit costs `ns` at once, a transfer is granted `ns` later. */
static const struct demand_case {
	const char *what;
	enum coh_state state;
	enum access_kind kind;
	bool hit;
	simtime_t ns;
	enum coh_state after[3]; /* as CPUs 0, 1, 2 see it */
	struct counted counted;
} demand[] = {
	{ "a read of its own Modified copy: a hit", M_HERE, ACCESS_READ, true, 1, { M_HERE, M_ELSE, M_ELSE }, NOTHING },
	{ "a read of an Invalid copy from a remote Modified owner: 100 ns, both Shared", M_ELSE, ACCESS_READ, false, 100,
	  { S_HERE, S_ELSE, S_HERE }, { COH_CNT_C2C, XFER_REMOTE } },
	{ "a read of its only Shared copy: a hit", S_ONLY, ACCESS_READ, true, 1, { S_ONLY, S_ELSE, S_ELSE }, NOTHING },
	{ "a read of a Shared copy: a hit", S_HERE, ACCESS_READ, true, 1, { S_HERE, S_ELSE, S_HERE }, NOTHING },
	{ "a read of others' Shared copies: from the nearest (CPU 1, 40 ns), all three Shared", S_ELSE, ACCESS_READ,
	  false, 40, { S_HERE, S_HERE, S_HERE }, { COH_CNT_C2C, XFER_NODE } },
	{ "a read of a line in no cache: remote DRAM, 150 ns, Exclusive", INV, ACCESS_READ, false, 150,
	  { M_HERE, M_ELSE, M_ELSE }, { COH_CNT_FILL, 0 } },

	{ "a store to its own Modified copy: a hit", M_HERE, ACCESS_WRITE, true, 1, { M_HERE, M_ELSE, M_ELSE }, NOTHING },
	{ "a store taking a remote owner's copy: 100 ns", M_ELSE, ACCESS_WRITE, false, 100, { M_HERE, M_ELSE, M_ELSE },
	  { COH_CNT_C2C, XFER_REMOTE } },
	{ "a store to its only Shared copy: upgraded in place, a hit's cost", S_ONLY, ACCESS_WRITE, true, 1,
	  { M_HERE, M_ELSE, M_ELSE }, { COH_CNT_UPGRADE, 0 } },
	{ "a store to a copy CPU 2 shares: its invalidation, 100 ns x 1.2", S_HERE, ACCESS_WRITE, false, 120,
	  { M_HERE, M_ELSE, M_ELSE }, { COH_CNT_INVALIDATE, XFER_REMOTE } },
	{ "a store to others' Shared copies: costed by the farthest (CPU 2), 100 ns x 1.2", S_ELSE, ACCESS_WRITE, false,
	  120, { M_HERE, M_ELSE, M_ELSE }, { COH_CNT_INVALIDATE, XFER_REMOTE } },
	{ "a store to a line in no cache: remote DRAM, 150 ns", INV, ACCESS_WRITE, false, 150, { M_HERE, M_ELSE, M_ELSE },
	  { COH_CNT_FILL, 0 } },

	{ "an atomic on its own Modified copy: an atomic hit", M_HERE, ACCESS_RMW, true, 10, { M_HERE, M_ELSE, M_ELSE },
	  NOTHING },
	{ "an atomic taking a remote owner's copy: 100 ns", M_ELSE, ACCESS_RMW, false, 100, { M_HERE, M_ELSE, M_ELSE },
	  { COH_CNT_C2C, XFER_REMOTE } },
	{ "an atomic on its only Shared copy: upgraded in place, an atomic hit's cost", S_ONLY, ACCESS_RMW, true, 10,
	  { M_HERE, M_ELSE, M_ELSE }, { COH_CNT_UPGRADE, 0 } },
	{ "an atomic on a copy CPU 2 shares: 120 ns", S_HERE, ACCESS_RMW, false, 120, { M_HERE, M_ELSE, M_ELSE },
	  { COH_CNT_INVALIDATE, XFER_REMOTE } },
	{ "an atomic on others' Shared copies: 120 ns", S_ELSE, ACCESS_RMW, false, 120, { M_HERE, M_ELSE, M_ELSE },
	  { COH_CNT_INVALIDATE, XFER_REMOTE } },
	{ "an atomic on a line in no cache: 150 ns", INV, ACCESS_RMW, false, 150, { M_HERE, M_ELSE, M_ELSE },
	  { COH_CNT_FILL, 0 } },
};

START_TEST(test_demand_rows)
{
	const struct demand_case *k = &demand[_i];
	uint32_t l;
	simtime_t cost = 0;

	setup();
	l = coh_add_line(&fx.c, 0x1000, 1);
	put_state(l, k->state);
	ck_assert_msg(coh_access(&fx.c, l, 0, 0, k->kind, &cost) == (k->hit ? COH_HIT : COH_WAIT), "%s", k->what);
	if (k->hit) {
		ck_assert_msg(cost == k->ns * NS, "%s: cost %llu ps", k->what, (unsigned long long)cost);
	} else {
		finish();
		ck_assert_uint_eq(fx.n, 1);
		expect_grant(0, 0, k->ns * NS);
	}
	expect_states(l, k->after[0], k->after[1], k->after[2]);
	expect_traffic(k->counted, (struct counted)NOTHING, (struct counted)NOTHING);
	teardown();
}
END_TEST

/* The prefetcher's reads. CPU 0's demand miss of line a (in no cache: a 150 ns fill,
 * counted) reads a's pair b for CPU 0's prefetcher, unless CPU 0 can read b already.
 * Nobody waits behind it, so its completion is kept out of the queue and is when
 * the test reads it: prefetch_done_at. */
static const struct prefetch_case {
	const char *what;
	enum coh_state state;
	bool issued;
	simtime_t ns;
	enum coh_state after[3];
	struct counted counted;
} prefetch[] = {
	{ "from a remote owner: 100 ns, both Shared", M_ELSE, true, 100, { S_HERE, S_ELSE, S_HERE },
	  { COH_CNT_PREFETCH, XFER_REMOTE } },
	{ "from the nearest sharer: 40 ns", S_ELSE, true, 40, { S_HERE, S_HERE, S_HERE }, { COH_CNT_PREFETCH, XFER_NODE } },
	{ "from DRAM: 150 ns, Exclusive", INV, true, 150, { M_HERE, M_ELSE, M_ELSE }, { COH_CNT_PREFETCH_FILL, 0 } },
	{ "of its own Modified copy: not issued", M_HERE, false, 0, { M_HERE, M_ELSE, M_ELSE }, NOTHING },
	{ "of its only Shared copy: not issued", S_ONLY, false, 0, { S_ONLY, S_ELSE, S_ELSE }, NOTHING },
	{ "of a Shared copy: not issued", S_HERE, false, 0, { S_HERE, S_ELSE, S_HERE }, NOTHING },
};

/* Lines a and b, a 128-byte pair homed on node 1. */
static void pair(uint32_t *a, uint32_t *b)
{
	*a = coh_add_line(&fx.c, 0x1000, 1);
	*b = coh_add_line(&fx.c, 0x1040, 1);
	coh_pair_lines(&fx.c, *a, *b);
}

START_TEST(test_prefetch_rows)
{
	const struct prefetch_case *k = &prefetch[_i];
	uint32_t a, b;
	simtime_t cost;

	setup();
	pair(&a, &b);
	put_state(b, k->state);
	ck_assert_int_eq(coh_access(&fx.c, a, 0, 0, ACCESS_READ, &cost), COH_WAIT);
	ck_assert_msg(fx.c.prefetch_line[0] == (k->issued ? b : COH_NONE), "%s", k->what);
	if (k->issued)
		ck_assert_msg(fx.c.prefetch_done_at[0] == k->ns * NS, "%s: done at %llu ps", k->what,
			      (unsigned long long)fx.c.prefetch_done_at[0]);
	finish();
	ck_assert_uint_eq(fx.n, 1);
	expect_grant(0, 0, 150 * NS);
	expect_states(b, k->after[0], k->after[1], k->after[2]);
	expect_traffic(k->counted, (struct counted){ COH_CNT_FILL, 0 }, (struct counted)NOTHING);
	teardown();
}
END_TEST

/* A prefetch that queued while b moved, served in a state where CPU 0 has a copy
 * after all: b, owned by CPU 2, is on its way to CPU 1 (a store: 100 ns); CPU 0's
 * prefetch of it queues behind (b is MOVING for it); the state kept is then set to
 * the row's (white box: as if that transfer left CPU 0 a copy), and the prefetch,
 * served at 100 ns, is a hit (1 ns). Without the set, CPU 0 reads b from its new
 * owner, CPU 1 (40 ns): the MOVING row, then MODIFIED_ELSEWHERE's. */
static const struct queued_case {
	const char *what;
	enum coh_state state; /* put once the prefetch queued; INVALID: nothing put */
	simtime_t done_ns;
	enum coh_state cpu0_after;
	struct counted counted;
} queued[] = {
	{ "served in its own Modified copy: a hit", M_HERE, 101, M_HERE, NOTHING },
	{ "served in its only Shared copy: a hit", S_ONLY, 101, S_ONLY, NOTHING },
	{ "served in a Shared copy: a hit", S_HERE, 101, S_HERE, NOTHING },
	{ "served after the move, from the new owner on its node: 100 + 40 ns", INV, 140, S_HERE,
	  { COH_CNT_PREFETCH, XFER_NODE } },
};

START_TEST(test_prefetch_queued_rows)
{
	const struct queued_case *k = &queued[_i];
	uint32_t a, b;
	simtime_t cost;

	setup();
	pair(&a, &b);
	coh_note_user(&fx.c, a, 0); /* a is requester 0's alone: CPU 1's miss of b does not prefetch it */
	put_state(b, COH_MODIFIED_ELSEWHERE);
	ck_assert_int_eq(coh_access(&fx.c, b, 1, 1, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(coh_access(&fx.c, a, 0, 0, ACCESS_READ, &cost), COH_WAIT);
	ck_assert_msg(fx.c.prefetch_line[0] == b, "%s: the prefetch queues while b moves", k->what);
	ck_assert_uint_eq(fx.c.lines[b].qhead, fx.c.nrequesters + 0);
	if (k->state != COH_INVALID) {
		if (k->state == COH_SHARED_HERE)
			put_sharers(b, 2, 0, 1);
		else
			put_state(b, k->state);
	}
	finish();
	ck_assert_uint_eq(fx.n, 2);
	expect_grant(0, 1, 100 * NS);
	expect_grant(1, 0, 150 * NS);
	ck_assert_msg(fx.c.prefetch_done_at[0] == k->done_ns * NS, "%s: done at %llu ps", k->what,
		      (unsigned long long)fx.c.prefetch_done_at[0]);
	ck_assert_int_eq(coh_state(&fx.c, b, 0), k->cpu0_after);
	/* besides the prefetch: CPU 1's store moved b from CPU 2, a was filled */
	expect_traffic(k->counted, (struct counted){ COH_CNT_C2C, XFER_REMOTE }, (struct counted){ COH_CNT_FILL, 0 });
	teardown();
}
END_TEST

/* MOVING: a line on its way somewhere. Owned by CPU 2, CPU 3 (same node) stores to
 * it (40 ns; the state kept is then CPU 3's). Requester 0 reads on CPU 0, which has
 * no copy; requester 5 on CPU 3 reads the copy it is getting: a hit; requester 6 on
 * CPU 3 stores to it and requester 7 on CPU 1 does an atomic: both wait. Served in
 * order: CPU 0 reads from CPU 3 (100 ns: 140), CPU 3's store invalidates CPU 0's
 * copy (100 ns x 1.2: 260), CPU 1's atomic takes it from CPU 3 (100 ns: 360). */
START_TEST(test_moving_rows)
{
	uint32_t l;
	simtime_t cost = 0;

	setup();
	l = coh_add_line(&fx.c, 0x1000, 1);
	put_state(l, COH_MODIFIED_ELSEWHERE);
	ck_assert_int_eq(coh_access(&fx.c, l, 3, 3, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(coh_access(&fx.c, l, 0, 0, ACCESS_READ, &cost), COH_WAIT);
	ck_assert_int_eq(coh_access(&fx.c, l, 5, 3, ACCESS_READ, &cost), COH_HIT);
	ck_assert_uint_eq(cost, 1 * NS);
	ck_assert_int_eq(coh_access(&fx.c, l, 6, 3, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(coh_access(&fx.c, l, 7, 1, ACCESS_RMW, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 4);
	expect_grant(0, 3, 40 * NS);
	expect_grant(1, 0, 140 * NS);
	expect_grant(2, 6, 260 * NS);
	expect_grant(3, 7, 360 * NS);
	expect_states(l, M_ELSE, M_HERE, M_ELSE);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_C2C][XFER_NODE], 1);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_C2C][XFER_REMOTE], 2);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_INVALIDATE][XFER_REMOTE], 1);
	teardown();
}
END_TEST

/* Through the public interface alone: CPU 2 fills a line of its node (80 ns, RMW);
 * CPU 0's read takes a copy from it (100 ns), both Shared; CPU 0's store then
 * invalidates CPU 2's (120 ns); CPU 4, CPU 0's sibling, reads it (5 ns). */
START_TEST(test_sequence)
{
	uint32_t l;
	simtime_t cost;

	setup();
	l = coh_add_line(&fx.c, 0x1000, 1);
	ck_assert_int_eq(coh_access(&fx.c, l, 2, 2, ACCESS_RMW, &cost), COH_WAIT);
	finish();
	expect_grant(0, 2, 80 * NS);
	ck_assert_int_eq(coh_state(&fx.c, l, 2), M_HERE);
	ck_assert_int_eq(coh_access(&fx.c, l, 0, 0, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(1, 0, 180 * NS);
	ck_assert_int_eq(coh_state(&fx.c, l, 0), S_HERE);
	ck_assert_int_eq(coh_state(&fx.c, l, 2), S_HERE);
	ck_assert_int_eq(coh_access(&fx.c, l, 0, 0, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	expect_grant(2, 0, 300 * NS);
	ck_assert_int_eq(coh_state(&fx.c, l, 0), M_HERE);
	ck_assert_int_eq(coh_state(&fx.c, l, 2), M_ELSE);
	ck_assert_int_eq(coh_access(&fx.c, l, 4, 4, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(3, 4, 305 * NS);
	ck_assert_int_eq(coh_state(&fx.c, l, 4), S_HERE);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_FILL][0], 1);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_C2C][XFER_REMOTE], 1);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_INVALIDATE][XFER_REMOTE], 1);
	ck_assert_uint_eq(fx.c.traffic[COH_CNT_C2C][XFER_SMT], 1);
	teardown();
}
END_TEST

/* Every row of the table has a case above (so that a mutated row fails one). */
START_TEST(test_every_row_has_a_case)
{
	bool seen[COH_NSTATES][ACCESS_NKINDS] = { { false } };

	for (size_t i = 0; i < sizeof(demand) / sizeof(demand[0]); i++)
		seen[demand[i].state][demand[i].kind] = true;
	for (size_t i = 0; i < sizeof(prefetch) / sizeof(prefetch[0]); i++)
		seen[prefetch[i].state][ACCESS_PREFETCH] = true;
	/* test_moving_rows: reads, stores, atomics; test_prefetch_queued_rows: prefetches */
	for (int k = 0; k < ACCESS_NKINDS; k++)
		seen[COH_MOVING][k] = true;
	for (int s = 0; s < COH_NSTATES; s++)
		for (int k = 0; k < ACCESS_NKINDS; k++)
			ck_assert_msg(seen[s][k], "no case for state %d x kind %d", s, k);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("protocol");
	TCase *tc = tcase_create("rows");

	tcase_add_loop_test(tc, test_demand_rows, 0, (int)(sizeof(demand) / sizeof(demand[0])));
	tcase_add_loop_test(tc, test_prefetch_rows, 0, (int)(sizeof(prefetch) / sizeof(prefetch[0])));
	tcase_add_loop_test(tc, test_prefetch_queued_rows, 0, (int)(sizeof(queued) / sizeof(queued[0])));
	tcase_add_test(tc, test_moving_rows);
	tcase_add_test(tc, test_sequence);
	tcase_add_test(tc, test_every_row_has_a_case);
	suite_add_tcase(s, tc);
	return tu_run_suite(s);
}
