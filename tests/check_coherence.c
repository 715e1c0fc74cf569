/* SPDX-License-Identifier: MIT */
/* Tests of models/coherence.c on hand-worked access sequences.
 *
 * Machine (cores-first, 2 nodes x 2 cores x 2 SMT): CPU c is core c % 4, node
 * (c % 4) / 2, SMT thread c / 4. So CPUs 0, 1 are node 0; 2, 3 node 1; CPU 4 is
 * CPU 0's sibling. Costs: hit 1 ns, atomic hit 10 ns, sibling 5 ns, node 40 ns,
 * remote 100 ns, DRAM 80 ns local / 150 ns remote. Requester r runs on CPU r.
 * Every expected time below is worked out by hand from these numbers. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "models/coherence.h"
#include "models/memmap.h"
#include "tests/testutil.h"

#define NS 1000ull

static const char machine_fmt[] =
	"name: coh-test\n"
	"topology: {nodes: 2, cores_per_node: 2, threads_per_core: 2}\n"
	"frequency: 1GHz\n"
	"distance: [[10, 21], [21, 10]]\n"
	"costs: {line_hit: 1ns, atomic_hit: 10ns, transfer_smt: 5ns, transfer_node: 40ns,\n"
	"        transfer_remote: 100ns, memory_local: 80ns, memory_remote: 150ns,\n"
	"        syscall: 100ns, line_hold: %s, smt_slowdown: 1.0%s}\n";

struct grant {
	uint32_t requester, line;
	simtime_t at;
};

struct fixture {
	struct machine m;
	struct engine e;
	struct coherence c;
	struct grant log[64];
	uint32_t n;
};

static struct fixture fx;

static void on_grant(void *ctx, uint32_t requester, uint32_t line)
{
	struct fixture *f = ctx;

	ck_assert_uint_lt(f->n, 64);
	f->log[f->n++] = (struct grant){ requester, line, f->e.now };
}

/* `extra`: more costs, ", key: value" each, or "". */
static void setup_machine(const char *hold, const char *extra)
{
	char yaml[1024];

	memset(&fx, 0, sizeof(fx));
	snprintf(yaml, sizeof(yaml), machine_fmt, hold, extra);
	tu_machine(&fx.m, yaml);
	ck_assert_int_eq(engine_init(&fx.e), 0);
	ck_assert_int_eq(coh_init(&fx.c, &fx.m, &fx.e, 8, on_grant, &fx), 0);
}

static void setup_with_hold(const char *hold)
{
	setup_machine(hold, "");
}

static void teardown(void)
{
	coh_free(&fx.c);
	engine_free(&fx.e);
	machine_free(&fx.m);
}

/* Runs every event before `t`, then sets the clock to `t` (nothing may be pending before it). */
static void at(simtime_t t)
{
	engine_run(&fx.e, t);
	ck_assert_msg(engine_try_advance(&fx.e, t, ENGINE_MAX_KINDS - 1, 0) || fx.e.now == t,
		      "an event is due before %llu", (unsigned long long)t);
}

static void finish(void)
{
	engine_run(&fx.e, SIMTIME_MAX);
}

static enum coh_result access_(uint32_t line, uint32_t cpu, enum access_kind k, simtime_t *cost)
{
	return coh_access(&fx.c, line, cpu, cpu, k, cost);
}

static void expect_grant(uint32_t i, uint32_t requester, simtime_t at_ps)
{
	ck_assert_uint_gt(fx.n, i);
	ck_assert_uint_eq(fx.log[i].requester, requester);
	ck_assert_uint_eq(fx.log[i].at, at_ps);
}

/* A line homed on node 0 that CPU 0 filled from DRAM at 80 ns: it owns it; the log is emptied. */
static uint32_t line_owned_by_cpu0(void)
{
	uint32_t l = coh_add_line(&fx.c, 0x1000, 0);
	simtime_t cost;

	at(0);
	ck_assert_int_eq(access_(l, 0, ACCESS_RMW, &cost), COH_WAIT);
	finish();
	expect_grant(0, 0, 80 * NS);
	fx.n = 0;
	return l;
}

START_TEST(test_states_and_costs)
{
	uint32_t l, far;
	simtime_t cost = 0;

	setup_with_hold("0ns");
	l = coh_add_line(&fx.c, 0x1000, 0);
	far = coh_add_line(&fx.c, 0x2000, 1);

	at(0); /* uncached: filled from node 0's DRAM */
	ck_assert_int_eq(access_(l, 0, ACCESS_RMW, &cost), COH_WAIT);
	finish();
	expect_grant(0, 0, 80 * NS);
	ck_assert_uint_eq(fx.c.lines[l].stats.fills, 1);

	at(100 * NS); /* owned: an atomic hit */
	ck_assert_int_eq(access_(l, 0, ACCESS_RMW, &cost), COH_HIT);
	ck_assert_uint_eq(cost, 10 * NS);

	at(200 * NS); /* same node, other core */
	ck_assert_int_eq(access_(l, 1, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	expect_grant(1, 1, 240 * NS);

	at(300 * NS); /* a read from the other node: both share it */
	ck_assert_int_eq(access_(l, 2, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(2, 2, 400 * NS);

	at(500 * NS);
	ck_assert_int_eq(access_(l, 1, ACCESS_READ, &cost), COH_HIT);
	ck_assert_uint_eq(cost, 1 * NS);
	ck_assert_int_eq(access_(l, 2, ACCESS_READ, &cost), COH_HIT);
	ck_assert_int_eq(access_(l, 1, ACCESS_WRITE, &cost), COH_WAIT); /* needs CPU 2's copy gone: remote */
	finish();
	expect_grant(3, 1, 600 * NS);

	at(700 * NS); /* CPU 0's sibling */
	ck_assert_int_eq(access_(l, 4, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(4, 4, 740 * NS); /* from CPU 1, same node: 40 ns */

	at(800 * NS); /* CPU 0 writes; sharers 1 and 4: farthest is CPU 1 (node), not 4 (sibling) */
	ck_assert_int_eq(access_(l, 0, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	expect_grant(5, 0, 840 * NS);

	at(900 * NS); /* the sibling reads it back: 5 ns */
	ck_assert_int_eq(access_(l, 4, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(6, 4, 905 * NS);

	ck_assert_uint_eq(fx.c.lines[l].stats.transfers[XFER_SMT], 1);
	ck_assert_uint_eq(fx.c.lines[l].stats.transfers[XFER_NODE], 3);   /* 0->1, 1->4, 1->0 */
	ck_assert_uint_eq(fx.c.lines[l].stats.transfers[XFER_REMOTE], 2); /* 1->2, 2->1 */
	ck_assert_uint_eq(fx.c.lines[l].reads, 5);
	ck_assert_uint_eq(fx.c.lines[l].writes, 5);  /* RMW, RMW hit, W, W, W */

	at(1000 * NS); /* a line homed on node 1, nobody has it: remote DRAM; a lone reader gets it exclusive */
	ck_assert_int_eq(access_(far, 0, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(7, 0, 1150 * NS);
	at(1200 * NS);
	ck_assert_int_eq(access_(far, 0, ACCESS_WRITE, &cost), COH_HIT);
	ck_assert_uint_eq(fx.c.total_fills, 2);
	teardown();
}
END_TEST

START_TEST(test_requests_queue_in_order)
{
	uint32_t l;
	simtime_t cost;

	setup_with_hold("0ns");
	l = line_owned_by_cpu0();

	at(1000 * NS); /* three writers at once: served one transfer at a time, in order */
	ck_assert_int_eq(access_(l, 1, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(access_(l, 2, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(access_(l, 4, ACCESS_WRITE, &cost), COH_WAIT);
	/* the owner cannot hit while its line is leaving */
	ck_assert_int_eq(access_(l, 0, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	expect_grant(0, 1, 1040 * NS); /* 0 -> 1: node */
	expect_grant(1, 2, 1140 * NS); /* 1 -> 2: remote */
	expect_grant(2, 4, 1240 * NS); /* 2 -> 4: remote */
	expect_grant(3, 0, 1245 * NS); /* 4 -> 0: sibling */
	/* waited before service: 0 + 40 + 140 + 240 ns */
	ck_assert_uint_eq(fx.c.lines[l].stats.queued_ps, 420 * NS);
	teardown();
}
END_TEST

/* Locality-aware arbitration (machine coherence.local_handoffs = 1): a line whose
 * queue's head is on another node than its last holder goes first to a queued
 * requester of the holder's node, once in a row. Four writers at 1000 ns, in this
 * order: CPU 2 (node 1), CPU 1 (node 0), CPU 3 (node 1), CPU 5 (node 0, CPU 1's
 * sibling). CPU 2 finds the line idle and gets it at once: 0 -> 2 remote, 1100.
 * Holder 2 (node 1), head 1 (node 0): 3 (node 1) goes first, 2 -> 3 node, 1140.
 * Holder 3, head 1: the one local hand-off is used up, so 1: 3 -> 1 remote, 1240.
 * Holder 1 (node 0), head 5 (node 0): in order, 1 -> 5 sibling, 1245.
 * In FIFO order (local_handoffs 0) the same requests end at 1100, 1200 (2 -> 1
 * remote), 1300 (1 -> 3 remote), 1400 (3 -> 5 remote). */
static void arbitration_run(unsigned local_handoffs)
{
	char yaml[1024];
	uint32_t l;
	simtime_t cost;

	memset(&fx, 0, sizeof(fx));
	snprintf(yaml, sizeof(yaml), machine_fmt, "0ns", "");
	snprintf(yaml + strlen(yaml), sizeof(yaml) - strlen(yaml), "coherence: {local_handoffs: %u}\n", local_handoffs);
	tu_machine(&fx.m, yaml);
	ck_assert_uint_eq(fx.m.local_handoffs, local_handoffs);
	ck_assert_int_eq(engine_init(&fx.e), 0);
	ck_assert_int_eq(coh_init(&fx.c, &fx.m, &fx.e, 8, on_grant, &fx), 0);
	l = line_owned_by_cpu0();
	at(1000 * NS);
	ck_assert_int_eq(access_(l, 2, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(access_(l, 1, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(access_(l, 3, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_int_eq(access_(l, 5, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 4);
}

START_TEST(test_local_handoffs)
{
	arbitration_run(1);
	expect_grant(0, 2, 1100 * NS);
	expect_grant(1, 3, 1140 * NS); /* ahead of 1, which asked earlier */
	expect_grant(2, 1, 1240 * NS);
	expect_grant(3, 5, 1245 * NS);
	ck_assert_uint_eq(fx.c.lines[0].stats.transfers[XFER_REMOTE], 2);
	teardown();

	arbitration_run(0);
	expect_grant(0, 2, 1100 * NS);
	expect_grant(1, 1, 1200 * NS);
	expect_grant(2, 3, 1300 * NS);
	expect_grant(3, 5, 1400 * NS);
	ck_assert_uint_eq(fx.c.lines[0].stats.transfers[XFER_REMOTE], 4);
	teardown();
}
END_TEST

START_TEST(test_hold_window)
{
	uint32_t l;
	simtime_t cost;

	setup_with_hold("20ns");
	l = line_owned_by_cpu0();

	at(1000 * NS);
	ck_assert_int_eq(access_(l, 1, ACCESS_RMW, &cost), COH_WAIT); /* granted at 1040 */
	ck_assert_int_eq(access_(l, 2, ACCESS_RMW, &cost), COH_WAIT); /* starts after CPU 1's hold: 1060 */
	engine_run(&fx.e, 1041 * NS);
	expect_grant(0, 1, 1040 * NS);
	/* within its hold window CPU 1 keeps the line although CPU 2 waits */
	ck_assert_int_eq(access_(l, 1, ACCESS_RMW, &cost), COH_HIT);
	at(1070 * NS); /* the window is over and the line is on its way to CPU 2 */
	ck_assert_int_eq(access_(l, 1, ACCESS_RMW, &cost), COH_WAIT);
	finish();
	expect_grant(1, 2, 1160 * NS); /* 1060 + 100 */
	expect_grant(2, 1, 1280 * NS); /* after CPU 2's hold (1180) + 100 */
	teardown();
}
END_TEST

START_TEST(test_watchers_reread_after_a_write)
{
	uint32_t l;
	simtime_t cost;

	setup_with_hold("0ns");
	l = line_owned_by_cpu0();
	at(100 * NS);
	ck_assert_int_eq(access_(l, 1, ACCESS_READ, &cost), COH_WAIT);
	finish(); /* S {0, 1} at 140 */
	fx.n = 0;

	at(200 * NS); /* CPU 1 spins on its copy: nothing happens until someone writes */
	coh_watch(&fx.c, l, 1, 1);
	at(300 * NS);
	ck_assert_uint_eq(engine_next_time(&fx.e), SIMTIME_MAX);
	ck_assert_int_eq(access_(l, 0, ACCESS_READ, &cost), COH_HIT); /* reads do not disturb it */
	ck_assert_int_eq(access_(l, 2, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	expect_grant(0, 2, 400 * NS); /* invalidating CPUs 0 and 1 on node 0: remote */
	expect_grant(1, 1, 500 * NS); /* CPU 1's re-read, queued behind the write */

	/* a watcher whose copy is already gone re-reads at once */
	at(600 * NS);
	ck_assert_int_eq(access_(l, 2, ACCESS_WRITE, &cost), COH_WAIT);
	finish(); /* granted at 700: CPU 1 lost its copy */
	at(800 * NS);
	coh_watch(&fx.c, l, 1, 1);
	finish();
	expect_grant(3, 1, 900 * NS);
	teardown();
}
END_TEST

/* The fitted factors, each visible once: invalidation 2 (a write to a Shared line),
 * transfer_contended 1.5 (a transfer asked for while the line was busy) and
 * transfer_occupancy 2 (the line moves on no sooner than twice the last transfer's cost). */
START_TEST(test_invalidation_contention_occupancy)
{
	uint32_t l;
	simtime_t cost;

	setup_machine("0ns", ", invalidation: 2, transfer_contended: 1.5, transfer_occupancy: 2");
	l = line_owned_by_cpu0(); /* the fill occupies the line until 160 ns */
	at(1000 * NS); /* a read from the same node, the line idle: 40 ns, it may move on at 1080 */
	ck_assert_int_eq(access_(l, 1, ACCESS_READ, &cost), COH_WAIT);
	finish();
	expect_grant(0, 1, 1040 * NS);
	at(1100 * NS);
	/* CPU 2 writes: sharers 0 and 1 are remote, 100 ns x 2 for the acknowledgements */
	ck_assert_int_eq(access_(l, 2, ACCESS_WRITE, &cost), COH_WAIT);
	/* CPU 3 asks while the line moves: it starts at 1100 + 2 x 200 = 1500, 40 ns x 1.5 */
	ck_assert_int_eq(access_(l, 3, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	expect_grant(1, 2, 1300 * NS);
	expect_grant(2, 3, 1560 * NS);
	teardown();
}
END_TEST

START_TEST(test_counted_transfers_and_node_matrix)
{
	uint32_t l;
	uint64_t sum = 0, all = 0;

	setup_with_hold("0ns");
	l = coh_add_line(&fx.c, 0x1000, 0);
	/* posted stores (the MCS node stores): counted, priced point to point */
	ck_assert_uint_eq(coh_posted_store(&fx.c, l, 0, 2), 100 * NS);
	ck_assert_uint_eq(coh_posted_store(&fx.c, l, 0, 4), 5 * NS);
	ck_assert_uint_eq(coh_posted_store(&fx.c, l, 3, 3), 0); /* to itself: nothing moved */
	ck_assert_uint_eq(fx.c.lines[l].inflight, COH_NONE);     /* nor queued on the line */
	ck_assert_uint_eq(fx.c.lines[l].stats.transfers[XFER_REMOTE], 1);
	ck_assert_uint_eq(fx.c.lines[l].stats.transfers[XFER_SMT], 1);
	ck_assert_uint_eq(fx.c.node_transfers[0 * 2 + 1], 1);
	ck_assert_uint_eq(fx.c.node_transfers[0 * 2 + 0], 1);
	for (int i = 0; i < 4; i++)
		sum += fx.c.node_transfers[i];
	for (int k = 0; k < XFER_NCLASSES; k++)
		all += fx.c.total_transfers[k];
	ck_assert_uint_eq(sum, all);
	coh_reset_stats(&fx.c);
	ck_assert_uint_eq(fx.c.lines[l].stats.transfers[XFER_REMOTE], 0);
	ck_assert_uint_eq(fx.c.total_transfers[XFER_SMT], 0);
	teardown();
}
END_TEST

/* Home snooping (coherence.snoop: home) with a directory cache of one set of 2
 * ways per node and a 60 ns directory read; lines A, B, C homed on node 0.
 * CPU 0 owns A (DRAM fill, 80 ns: no directory read).
 * 1000: CPU 2 (node 1) writes A: remote, A not in node 0's cache: 100 + 60, 1160.
 * 2000: CPU 0 writes A: remote, A cached: 100, 2100.
 * 3000: CPU 1 writes A: within node 0, no directory: 40, 3040.
 * CPU 0 fills B and C (4000 and 5000: 80 each, no directory).
 * 6000: CPU 2 writes B: miss (the set holds A), 6160. 7000: CPU 2 writes C: miss,
 * the set {A, B} evicts A (used last at 2000), 7160. 8000: CPU 2 writes A (from
 * CPU 1): miss again, 8160. 4 directory reads. With source snooping (`snoop`
 * "source") every remote transfer costs 100 and nothing is read. */
static void directory_run(const char *snoop)
{
	/* (line: 0 = A, 1 = B, 2 = C; CPU) written at 1000, 2000, ... ns */
	static const uint32_t writes[][2] = { { 0, 2 }, { 0, 0 }, { 0, 1 }, { 1, 0 }, { 2, 0 },
					      { 1, 2 }, { 2, 2 }, { 0, 2 } };
	char yaml[1024];
	bool home = strcmp(snoop, "home") == 0;
	uint32_t lines[3];
	simtime_t cost;

	memset(&fx, 0, sizeof(fx));
	snprintf(yaml, sizeof(yaml), machine_fmt, "0ns", home ? ", directory_read: 60ns" : "");
	snprintf(yaml + strlen(yaml), sizeof(yaml) - strlen(yaml), "coherence: {snoop: %s%s}\n", snoop,
		 home ? ", directory_cache_lines: 2, directory_cache_ways: 2" : "");
	tu_machine(&fx.m, yaml);
	ck_assert_int_eq(engine_init(&fx.e), 0);
	ck_assert_int_eq(coh_init(&fx.c, &fx.m, &fx.e, 8, on_grant, &fx), 0);
	lines[0] = line_owned_by_cpu0();
	lines[1] = coh_add_line(&fx.c, 0x2000, 0);
	lines[2] = coh_add_line(&fx.c, 0x3000, 0);
	for (uint32_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		at((1000 + 1000 * i) * NS);
		ck_assert_int_eq(access_(lines[writes[i][0]], writes[i][1], ACCESS_WRITE, &cost), COH_WAIT);
		finish();
	}
}

START_TEST(test_directory_cache)
{
	static const simtime_t home_at[] = { 1160, 2100, 3040, 4080, 5080, 6160, 7160, 8160 };
	static const simtime_t source_at[] = { 1100, 2100, 3040, 4080, 5080, 6100, 7100, 8100 };

	directory_run("home");
	ck_assert_uint_eq(fx.n, 8);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(fx.log[i].at, home_at[i] * NS);
	ck_assert_uint_eq(fx.c.dir.misses, 4);
	coh_reset_stats(&fx.c);
	ck_assert_uint_eq(fx.c.dir.misses, 0);
	teardown();

	directory_run("source");
	ck_assert_uint_eq(fx.n, 8);
	for (uint32_t i = 0; i < 8; i++)
		ck_assert_uint_eq(fx.log[i].at, source_at[i] * NS);
	ck_assert_uint_eq(fx.c.dir.misses, 0);
	teardown();
}
END_TEST

/* models/dircache.c alone: 2 nodes, 2 sets of 2 ways; lines 64 bytes apart
 * alternate sets (address / 64 mod 2). */
START_TEST(test_dircache_lru)
{
	struct dircache d;

	ck_assert_int_eq(dircache_init(&d, 2, 4, 2), 0);
	ck_assert(!dircache_lookup(&d, 0, 0));     /* set 0: {0} */
	ck_assert(!dircache_lookup(&d, 0, 128));   /* set 0: {0, 128} */
	ck_assert(!dircache_lookup(&d, 0, 64));    /* set 1: {64} */
	ck_assert(dircache_lookup(&d, 0, 0));      /* 0 used after 128 */
	ck_assert(!dircache_lookup(&d, 1, 0));     /* node 1 has its own cache */
	ck_assert(!dircache_lookup(&d, 0, 256));   /* set 0 full: evicts 128, the least recent */
	ck_assert(dircache_lookup(&d, 0, 0));
	ck_assert(!dircache_lookup(&d, 0, 128));   /* evicts 256 */
	ck_assert(dircache_lookup(&d, 0, 64));     /* set 1 untouched */
	ck_assert(dircache_lookup(&d, 0, 63));     /* same line as 0 */
	ck_assert_uint_eq(d.misses, 6);
	dircache_free(&d);
}
END_TEST

/* coh_solo_to follows the declared users: nobody (not solo), one (solo to it and
 * to no other), two (solo to none), across lines past the first 1024 (the bit
 * array grows with the lines). */
START_TEST(test_solo_bits)
{
	uint32_t lines[1500];

	setup_with_hold("0ns");
	for (uint32_t i = 0; i < 1500; i++) {
		lines[i] = coh_add_line(&fx.c, 0x10000 + 64ull * i, 0);
		ck_assert_uint_eq(lines[i], i);
	}
	for (uint32_t i = 0; i < 1500; i += 3) {
		coh_note_user(&fx.c, lines[i + 1], 2);     /* one user */
		coh_note_user(&fx.c, lines[i + 2], 2);     /* two users */
		coh_note_user(&fx.c, lines[i + 2], 5);
		coh_note_user(&fx.c, lines[i + 2], 2);
	}
	for (uint32_t i = 0; i < 1500; i += 3) {
		ck_assert(!coh_solo_to(&fx.c, lines[i], 2));
		ck_assert(coh_solo_to(&fx.c, lines[i + 1], 2));
		ck_assert(!coh_solo_to(&fx.c, lines[i + 1], 5));
		ck_assert(!coh_solo_to(&fx.c, lines[i + 2], 2));
		ck_assert(!coh_solo_to(&fx.c, lines[i + 2], 5));
	}
	ck_assert_uint_eq(coh_shared_lines(&fx.c), 500);
	teardown();
}
END_TEST

/* The adjacent-line prefetcher (machine coherence.adjacent_line_prefetch): a demand
 * miss of one line of a 128-byte pair also reads the other into the same CPU, with
 * no grant to anyone; its owner loses exclusivity, so its next write must
 * invalidate the copy. A line one task alone uses is never prefetched. */
START_TEST(test_adjacent_line_prefetch)
{
	char yaml[1024];
	simtime_t cost;

	memset(&fx, 0, sizeof(fx));
	snprintf(yaml, sizeof(yaml), machine_fmt, "0ns", "");
	strncat(yaml, "coherence: {adjacent_line_prefetch: true}\n", sizeof(yaml) - strlen(yaml) - 1);
	tu_machine(&fx.m, yaml);
	ck_assert(fx.m.adjacent_line_prefetch);
	ck_assert_int_eq(engine_init(&fx.e), 0);
	ck_assert_int_eq(coh_init(&fx.c, &fx.m, &fx.e, 8, on_grant, &fx), 0);
	uint32_t a = coh_add_line(&fx.c, 0x1000, 0), b = coh_add_line(&fx.c, 0x1040, 0);
	uint32_t d = coh_add_line(&fx.c, 0x3000, 0), solo = coh_add_line(&fx.c, 0x3040, 0);
	coh_pair_lines(&fx.c, a, b);
	coh_pair_lines(&fx.c, d, solo);
	coh_note_user(&fx.c, solo, 5);

	at(0); /* CPU 2 (node 1) writes b: remote DRAM, 150 ns; its prefetcher fills a too */
	ck_assert_int_eq(access_(b, 2, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 1);
	expect_grant(0, 2, 150 * NS);
	ck_assert_uint_eq(fx.c.lines[a].owner, 2);
	ck_assert_uint_eq(fx.c.lines[a].stats.fills, 1);

	at(200 * NS); /* CPU 0 writes a: from CPU 2, 100 ns; its prefetcher reads b from CPU 2 */
	ck_assert_int_eq(access_(a, 0, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 2);
	expect_grant(1, 0, 300 * NS);
	ck_assert_uint_eq(fx.c.lines[b].owner, COH_NONE);
	ck_assert_uint_eq(fx.c.lines[b].nsharers, 2);

	at(400 * NS); /* CPU 2 writes b again: no longer a hit, CPU 0's copy goes first (100 ns) */
	ck_assert_int_eq(access_(b, 2, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 3);
	expect_grant(2, 2, 500 * NS);
	ck_assert_uint_eq(fx.c.lines[b].owner, 2);
	ck_assert_uint_eq(fx.c.lines[a].nsharers, 2); /* and CPU 2's prefetcher took a copy of a */
	ck_assert_uint_eq(fx.c.lines[a].stats.transfers[XFER_REMOTE], 2);
	ck_assert_uint_eq(fx.c.lines[b].stats.transfers[XFER_REMOTE], 2);

	at(600 * NS); /* d's pair is one task's alone: not prefetched */
	ck_assert_int_eq(access_(d, 1, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 4);
	ck_assert_uint_eq(fx.c.lines[solo].owner, COH_NONE);
	ck_assert_uint_eq(fx.c.lines[solo].stats.fills, 0);
	teardown();
}
END_TEST

/* A prefetch nobody queues behind completes without an event: the next access that
 * would see it finds it done (the CPU's copy, its prefetcher free again); a request
 * that arrives while it is in flight makes its completion an event at the time it
 * was due, and is served after it as ever. Hand-worked on the machine above. */
START_TEST(test_quiet_prefetch)
{
	char yaml[1024];
	simtime_t cost;
	uint32_t p2;

	memset(&fx, 0, sizeof(fx));
	snprintf(yaml, sizeof(yaml), machine_fmt, "0ns", "");
	strncat(yaml, "coherence: {adjacent_line_prefetch: true}\n", sizeof(yaml) - strlen(yaml) - 1);
	tu_machine(&fx.m, yaml);
	ck_assert_int_eq(engine_init(&fx.e), 0);
	ck_assert_int_eq(coh_init(&fx.c, &fx.m, &fx.e, 8, on_grant, &fx), 0);
	p2 = fx.c.nrequesters + 2; /* CPU 2's prefetcher */
	uint32_t a = coh_add_line(&fx.c, 0x1000, 0), b = coh_add_line(&fx.c, 0x1040, 0);
	uint32_t c = coh_add_line(&fx.c, 0x2000, 0), d = coh_add_line(&fx.c, 0x2040, 0);
	coh_pair_lines(&fx.c, a, b);
	coh_pair_lines(&fx.c, c, d);

	at(0); /* CPU 2 writes b (remote DRAM, 150 ns); its prefetcher fills a: no event for a */
	ck_assert_int_eq(access_(b, 2, ACCESS_WRITE, &cost), COH_WAIT);
	ck_assert_uint_eq(fx.e.q.len, 1);
	ck_assert_uint_eq(fx.e.q.ev[0].target, b);
	ck_assert_uint_eq(fx.c.lines[a].inflight, p2);
	ck_assert(fx.c.lines[a].quiet_prefetch);
	ck_assert_uint_eq(fx.c.prefetch_line[2], a);

	at(100 * NS); /* CPU 0 reads a while it is in flight: a's completion becomes an event at 150 ns */
	ck_assert_int_eq(access_(a, 0, ACCESS_READ, &cost), COH_WAIT);
	ck_assert(!fx.c.lines[a].quiet_prefetch);
	ck_assert_uint_eq(fx.e.q.len, 2);
	finish();
	/* b at 150 ns; a: CPU 2 got it exclusively at 150 ns, CPU 0's read takes 100 ns more */
	ck_assert_uint_eq(fx.n, 2);
	expect_grant(0, 2, 150 * NS);
	expect_grant(1, 0, 250 * NS);
	ck_assert_uint_eq(fx.c.prefetch_line[2], COH_NONE);
	ck_assert_uint_eq(fx.c.lines[a].stats.transfers[XFER_REMOTE], 1);

	at(1000 * NS); /* CPU 2 writes d; its prefetch of c completes at 1150 ns, unseen */
	ck_assert_int_eq(access_(d, 2, ACCESS_WRITE, &cost), COH_WAIT);
	finish();
	ck_assert_uint_eq(fx.n, 3);
	ck_assert(fx.c.lines[c].quiet_prefetch);
	at(1200 * NS); /* CPU 2 reads c: a hit, and c is settled as of 1150 ns */
	ck_assert_int_eq(access_(c, 2, ACCESS_READ, &cost), COH_HIT);
	ck_assert(!fx.c.lines[c].quiet_prefetch);
	ck_assert_uint_eq(fx.c.lines[c].inflight, COH_NONE);
	ck_assert_uint_eq(fx.c.lines[c].grace_cpu, 2);
	ck_assert_uint_eq(fx.c.lines[c].grace_until, 1150 * NS);
	ck_assert_uint_eq(fx.c.prefetch_line[2], COH_NONE);
	ck_assert_uint_eq(fx.c.lines[c].stats.fills, 1);
	ck_assert_uint_eq(fx.e.q.len, 0);
	teardown();
}
END_TEST

/* What the result file says lives on a line (models/memmap.h), worked out by hand:
 * the object, its element's index range, the fields on it, other objects. */
START_TEST(test_line_descriptions)
{
	static const char *const bucket_fields[] = { "waiters", "lock", "chain", NULL };
	const uint64_t base = UINT64_C(0x7f0000000000);
	struct memmap mm;
	char buf[128], small[12];

	setup_with_hold("0ns");
	ck_assert_int_eq(memmap_init(&mm, &fx.c, 2, base), 0);
	uint32_t hash = memmap_object(&mm, "global hash", "bucket", bucket_fields);
	uint32_t mmobj = memmap_object(&mm, "mm of process 0", NULL, NULL);
	ck_assert_uint_ne(hash, MEMMAP_NONE);
	ck_assert_uint_ne(mmobj, MEMMAP_NONE);

	/* bucket 17 alone, two of its fields */
	uint32_t a = memmap_line(&mm, base, hash, 17, 0);
	ck_assert_uint_eq(memmap_line(&mm, base + 8, hash, 17, 1), a);
	/* buckets 18-19 on one line, one field each; the mm shares it */
	uint32_t b = memmap_line(&mm, base + 64, hash, 19, 2);
	ck_assert_uint_eq(memmap_line(&mm, base + 96, hash, 18, 0), b);
	ck_assert_uint_eq(memmap_line(&mm, base + 120, mmobj, 0, -1), b);
	/* the mm alone on a line: no element, no fields */
	uint32_t c = memmap_line(&mm, base + 128, mmobj, 0, -1);

	ck_assert_str_eq(memmap_describe(&mm, a, buf, sizeof(buf)), "global hash bucket 17 (waiters,lock)");
	ck_assert_str_eq(memmap_fields(&mm, a, buf, sizeof(buf)), "waiters,lock");
	ck_assert_str_eq(memmap_describe(&mm, b, buf, sizeof(buf)),
			 "global hash bucket 18-19 (waiters,chain) +other objects");
	ck_assert_str_eq(memmap_fields(&mm, b, buf, sizeof(buf)), "waiters,chain");
	ck_assert_str_eq(memmap_describe(&mm, c, buf, sizeof(buf)), "mm of process 0");
	ck_assert_str_eq(memmap_fields(&mm, c, buf, sizeof(buf)), "");
	/* cut to the buffer, as snprintf would, and terminated */
	ck_assert_str_eq(memmap_describe(&mm, a, small, sizeof(small)), "global hash");
	ck_assert_str_eq(memmap_fields(&mm, b, small, 5), "wait");
	memmap_free(&mm);
	teardown();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("coherence");
	TCase *tc = tcase_create("sequences");

	tcase_add_test(tc, test_states_and_costs);
	tcase_add_test(tc, test_requests_queue_in_order);
	tcase_add_test(tc, test_local_handoffs);
	tcase_add_test(tc, test_hold_window);
	tcase_add_test(tc, test_watchers_reread_after_a_write);
	tcase_add_test(tc, test_invalidation_contention_occupancy);
	tcase_add_test(tc, test_counted_transfers_and_node_matrix);
	tcase_add_test(tc, test_directory_cache);
	tcase_add_test(tc, test_dircache_lru);
	tcase_add_test(tc, test_solo_bits);
	tcase_add_test(tc, test_line_descriptions);
	tcase_add_test(tc, test_adjacent_line_prefetch);
	tcase_add_test(tc, test_quiet_prefetch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
