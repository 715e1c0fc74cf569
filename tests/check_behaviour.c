/* SPDX-License-Identifier: MIT */
/* Behaviour that must hold by construction of a faithful model, on small scenarios:
 * a lone thread never moves a line; rcuref costs two transfers of its counter line
 * per op when threads on different cores alternate (and none without it); more
 * buckets never lower throughput much in the contended range; every op takes its
 * bucket lock once; CNA keeps lock hand-offs on the holder's node; the same
 * scenario and seed give the same run. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"

#define E5 "scenarios/e5-2650-hashbench.yaml"

static uint64_t window_ops(const struct sim *s)
{
	uint64_t ops = 0;

	for (uint32_t i = 0; i < s->tasks.n; i++)
		ops += s->tasks.v[i].ops;
	return ops;
}

START_TEST(test_lone_thread_never_transfers)
{
	static const char *const sets[] = {
		"kernel=linux-6.18", "workload.threads=1", "run.duration=200us", "run.warmup=20us",
	};
	struct tu_run r;
	uint64_t all = 0;

	tu_run(&r, E5, sets, 4);
	ck_assert_uint_gt(window_ops(&r.s), 100);
	ck_assert_ptr_nonnull(r.s.ft.procs[0].phash);
	ck_assert_uint_eq(tu_transfers_of(&r.s, "private hash of process 0"), 0);
	for (int k = 0; k < XFER_NCLASSES; k++)
		all += r.s.coh.total_transfers[k];
	ck_assert_uint_eq(all, 0);
	tu_run_free(&r);
}
END_TEST

/* The header's users field on a line of its own, so only the refcount touches it
 * (the immutable flag, read by every get and put, with hash_mask on the other). */
#define OWN_LINE \
	"kernel.layout.private_hash_header={size: 128, align: 64, fields: {users: 0, hash_mask: 64, immutable: 72}}"

START_TEST(test_rcuref_two_transfers_per_op)
{
	static const char *const sets[] = {
		"kernel=linux-6.16-dev", OWN_LINE, "kernel.private_hash.buckets=4096",
		"workload.threads=8", "workload.cpus=0-7", "run.duration=300us", "run.warmup=30us",
	};
	struct tu_run r;
	uint64_t ops, xfers;

	tu_run(&r, E5, sets, 7);
	ops = window_ops(&r.s);
	xfers = tu_transfers_of(&r.s, "private hash header of process 0");
	ck_assert_uint_gt(ops, 1000);
	/* get and put are one RMW each: at most two transfers per op, and with eight
	 * threads taking turns nearly every RMW finds the line on another core */
	ck_assert_msg(xfers <= 2 * ops + 16 && xfers >= 19 * ops / 10, "%llu transfers for %llu ops",
		      (unsigned long long)xfers, (unsigned long long)ops);
	tu_run_free(&r);
}
END_TEST

START_TEST(test_immutable_and_percpu_never_move_the_counter)
{
	static const char *const modes[] = { "kernel.private_hash.refcount=none",
					     "kernel.private_hash.refcount=percpu-6.17",
					     "kernel.private_hash.refcount=percpu-6.18" };

	for (int i = 0; i < 3; i++) {
		const char *sets[] = {
			"kernel=linux-6.16-dev", OWN_LINE, modes[i], "kernel.private_hash.buckets=4096",
			"workload.threads=8", "workload.cpus=0-7", "run.duration=100us", "run.warmup=10us",
		};
		struct tu_run r;

		tu_run(&r, E5, sets, 8);
		ck_assert_uint_gt(window_ops(&r.s), 500);
		ck_assert_uint_eq(tu_transfers_of(&r.s, "private hash header of process 0"), 0);
		ck_assert_uint_eq(tu_transfers_of(&r.s, "per-CPU futex_ref"), 0);
		tu_run_free(&r);
	}
}
END_TEST

START_TEST(test_more_buckets_never_much_slower)
{
	double prev = 0;

	for (unsigned b = 2; b <= 256; b *= 2) {
		char buckets[64];
		const char *sets[] = { buckets, "run.duration=2ms", "run.warmup=200us" };
		struct tu_run r;
		double mean;

		snprintf(buckets, sizeof(buckets), "kernel.private_hash.buckets=%u", b);
		tu_run(&r, E5, sets, 3);
		mean = (double)window_ops(&r.s) / r.s.tasks.n;
		ck_assert_msg(mean >= 0.95 * prev, "%u buckets: %.0f ops per thread, %u buckets had %.0f", b, mean,
			      b / 2, prev);
		prev = mean;
		tu_run_free(&r);
	}
}
END_TEST

START_TEST(test_each_op_takes_its_bucket_lock_once)
{
	static const char *const sets[] = { "kernel.private_hash.buckets=4", "run.duration=500us",
					    "run.warmup=0ns" };
	struct tu_run r;
	uint64_t acquisitions = 0, ops_started_or_done = 0, contended = 0;

	tu_run(&r, E5, sets, 3);
	for (uint32_t l = 0; l < r.s.locks.n; l++) {
		acquisitions += r.s.locks.locks[l].acquisitions;
		contended += r.s.locks.locks[l].contended;
		/* queued tasks are waiting for this lock: the head spins (or its hand-off is
		 * on the way), the others wait on their MCS nodes */
		for (uint32_t q = r.s.locks.locks[l].qhead; q != SPIN_NONE; q = r.s.locks.next[q]) {
			uint8_t st = r.s.tasks.v[q].state;

			if (q == r.s.locks.locks[l].qhead)
				ck_assert(st == TS_LOCK_MCS || st == TS_LOCK_SPIN || st == TS_LOCK_TAKE);
			else
				ck_assert(st == TS_LOCK_MCS);
		}
	}
	for (uint32_t i = 0; i < r.s.tasks.n; i++)
		ops_started_or_done += r.s.tasks.v[i].programs_run;
	/* every completed op took the lock once; ops cut off by the end took it at most once more */
	ck_assert_uint_ge(acquisitions, ops_started_or_done);
	ck_assert_uint_le(acquisitions, ops_started_or_done + r.s.tasks.n);
	ck_assert_uint_gt(contended, acquisitions / 2); /* 28 threads on 4 buckets: mostly queued */
	tu_run_free(&r);
}
END_TEST

/* MCS hand-offs (stores to the next waiter's queue node) that cross nodes, out of all. */
static double mcs_handoffs_across(const struct sim *s, uint64_t *all)
{
	uint64_t across = 0;

	*all = 0;
	for (uint32_t l = 0; l < s->coh.nlines; l++) {
		if (strcmp(s->mem.objects[s->mem.labels[l].object].name, "MCS queue node") != 0)
			continue;
		across += s->coh.lines[l].stats.transfers[XFER_REMOTE];
		for (int k = 0; k < XFER_NCLASSES; k++)
			*all += s->coh.lines[l].stats.transfers[k];
	}
	return *all ? (double)across / (double)*all : 0;
}

/* 28 threads on both nodes queue on 2 bucket locks: the stock lock hands over in
 * arrival order, so about half its MCS hand-offs cross nodes (0.51 measured); CNA
 * hands over within the holder's node while it has waiters queued there, crossing
 * only when the node's run out (0.07 measured), and its queues stay well formed. */
START_TEST(test_cna_keeps_handoffs_on_the_node)
{
	static const char *const sets[][4] = {
		{ "kernel.private_hash.buckets=2", "run.duration=500us", "run.warmup=50us", "kernel.spinlock=qspinlock" },
		{ "kernel.private_hash.buckets=2", "run.duration=500us", "run.warmup=50us", "kernel.spinlock=cna" },
	};
	double across[2];
	uint64_t ops[2];

	for (int v = 0; v < 2; v++) {
		struct tu_run r;
		uint64_t all;

		tu_run(&r, E5, sets[v], 4);
		across[v] = mcs_handoffs_across(&r.s, &all);
		ck_assert_uint_gt(all, 500);
		ops[v] = window_ops(&r.s);
		for (uint32_t l = 0; l < r.s.locks.n; l++) {
			const struct cna_queue *q = r.s.locks.secondary ? &r.s.locks.secondary[l] : NULL;

			/* a waiter in the secondary queue means one in the main queue */
			if (q && q->head != SPIN_NONE)
				ck_assert_uint_ne(r.s.locks.locks[l].qhead, SPIN_NONE);
			for (uint32_t w = q ? q->head : SPIN_NONE; w != SPIN_NONE; w = r.s.locks.next[w])
				ck_assert_int_eq(r.s.tasks.v[w].state, TS_LOCK_MCS);
		}
		tu_run_free(&r);
	}
	ck_assert_msg(across[0] > 0.3, "qspinlock: %.2f of MCS hand-offs across nodes", across[0]);
	ck_assert_msg(across[1] < 0.15, "cna: %.2f of MCS hand-offs across nodes", across[1]);
	ck_assert_uint_gt(ops[1], ops[0]); /* hand-offs within a node are cheaper */
}
END_TEST

START_TEST(test_same_seed_same_run)
{
	static const char *const sets[] = { "kernel.private_hash.buckets=16", "run.duration=300us",
					    "run.warmup=30us" };
	struct tu_run a, b;

	tu_run(&a, E5, sets, 3);
	tu_run(&b, E5, sets, 3);
	ck_assert_uint_eq(a.s.eng.events, b.s.eng.events);
	for (uint32_t i = 0; i < a.s.tasks.n; i++)
		ck_assert_uint_eq(a.s.tasks.v[i].ops, b.s.tasks.v[i].ops);
	ck_assert_uint_eq(a.s.coh.nlines, b.s.coh.nlines);
	for (uint32_t l = 0; l < a.s.coh.nlines; l++) {
		ck_assert_uint_eq(a.s.coh.lines[l].reads, b.s.coh.lines[l].reads);
		ck_assert_uint_eq(a.s.coh.lines[l].writes, b.s.coh.lines[l].writes);
		ck_assert_mem_eq(&a.s.coh.lines[l].stats, &b.s.coh.lines[l].stats, sizeof(a.s.coh.lines[l].stats));
	}
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

/* Two runs of one scenario gave the same figures, thread by thread and line by line:
 * ops, programs, time by class as results report it, wake-ups, each line's counters. */
static void assert_same_figures(const struct sim *a, const struct sim *b, const char *what)
{
	ck_assert_uint_eq(a->tasks.n, b->tasks.n);
	for (uint32_t k = 0; k < a->tasks.n; k++) {
		const struct task *x = &a->tasks.v[k], *y = &b->tasks.v[k];
		/* the time reported (results.c): what a task counted so far plus the
		 * micro-op under way; how far it got without an event moves time
		 * from one to the other */
		simtime_t tx[TC_NCLASSES], ty[TC_NCLASSES], sx[STEP_NSTEPS], sy[STEP_NSTEPS];

		ck_assert_msg(x->ops == y->ops && x->programs_run == y->programs_run, "%s: task %u", what, k);
		tasks_split_work(&a->tasks, x, sim_window_stop(a), tx, sx);
		tasks_split_work(&b->tasks, y, sim_window_stop(b), ty, sy);
		ck_assert_msg(memcmp(tx, ty, sizeof(tx)) == 0 && memcmp(sx, sy, sizeof(sx)) == 0,
			      "%s: task %u's time by class", what, k);
		ck_assert_uint_eq(x->stats.wakeups, y->stats.wakeups);
	}
	ck_assert_uint_eq(a->coh.nlines, b->coh.nlines);
	for (uint32_t l = 0; l < a->coh.nlines; l++) {
		const struct line *x = &a->coh.lines[l], *y = &b->coh.lines[l];

		ck_assert_msg(x->reads == y->reads && x->writes == y->writes &&
				      memcmp(&x->stats, &y->stats, sizeof(x->stats)) == 0,
			      "%s: line %u", what, l);
	}
}

/* A prefetch nobody waits behind completes without an event (models/coherence.c):
 * the same runs with every completion an event give the same ops, time by class
 * and line counters, thread by thread and line by line, with more events. On the
 * Intel machines (the spatial prefetcher): hash-bench on the global and the private
 * hash, shared futexes, a contended bucket lock, a mutex and a condvar barrier. */
static void run_with(struct tu_run *r, const char *path, const char *const *sets, size_t nsets, bool events)
{
	struct fs_error e = { 0 };

	ck_assert_msg(scenario_load(&r->sc, path, sets, nsets, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&r->s, &r->sc, &e) == 0, "%s", e.msg);
	r->s.coh.prefetch_events = events;
	ck_assert_msg(sim_run(&r->s, &e) == 0, "%s", e.msg);
}

START_TEST(test_quiet_prefetches_change_nothing)
{
	static const struct {
		const char *path;
		const char *sets[4];
	} runs[] = {
		{ "scenarios/bench/e5-global.yaml", { "run.duration=300us", "run.warmup=100us" } },
		{ "scenarios/bench/e5-global.yaml", { "run.duration=300us", "run.warmup=100us", "workload.shared=true" } },
		{ "scenarios/bench/e5-private2.yaml", { "run.duration=300us", "run.warmup=100us" } },
		{ "scenarios/bench/e7-global.yaml", { "run.duration=100us", "run.warmup=50us", "kernel=linux-6.16-dev" } },
		{ "scenarios/workloads/mutex.yaml", { "run.duration=300us", "run.warmup=100us" } },
		{ "scenarios/workloads/barrier.yaml", { "run.duration=300us", "run.warmup=100us" } },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		static struct tu_run quiet, loud;
		size_t n = 0;

		while (n < 4 && runs[i].sets[n])
			n++;
		run_with(&quiet, runs[i].path, runs[i].sets, n, false);
		run_with(&loud, runs[i].path, runs[i].sets, n, true);
		ck_assert(quiet.s.m->adjacent_line_prefetch);
		ck_assert_msg(quiet.s.eng.events < loud.s.eng.events, "%s: %llu events, %llu with every prefetch one",
			      runs[i].path, (unsigned long long)quiet.s.eng.events,
			      (unsigned long long)loud.s.eng.events);
		assert_same_figures(&quiet.s, &loud.s, runs[i].path);
		tu_run_free(&quiet);
		tu_run_free(&loud);
	}
}
END_TEST

/* Every queue of the engine (sim/core/event_queue.h) runs the same events in the same
 * order: the same event count, the same end, the same figures thread by thread and
 * line by line, on hash-bench (the global hash, a private one with the prefetch
 * hooks on), a mutex, a condvar barrier, producers and consumers. */
START_TEST(test_every_queue_same_run)
{
	static const struct {
		const char *path;
		bool prefetch;
	} runs[] = {
		{ "scenarios/bench/e5-global.yaml", false },
		{ "scenarios/bench/e5-private2.yaml", true },
		{ "scenarios/workloads/mutex.yaml", false },
		{ "scenarios/workloads/barrier.yaml", false },
		{ "scenarios/workloads/producer-consumer.yaml", false },
	};
	const char *names[EVENT_QUEUE_NTYPES + 1];

	event_queue_names(names);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		static struct tu_run base, other;
		struct tu_run *both[2] = { &base, &other };
		size_t queues[2] = { 0, (size_t)_i };

		for (int j = 0; j < 2; j++) {
			char queue[64];
			const char *sets[] = { "run.duration=200us", "run.warmup=50us", queue };
			struct fs_error e = { 0 };
			struct tu_run *r = both[j];

			snprintf(queue, sizeof(queue), "run.event_queue=%s", names[queues[j]]);
			ck_assert_msg(scenario_load(&r->sc, runs[i].path, sets, 3, &e) == 0, "%s", e.msg);
			ck_assert_msg(sim_build(&r->s, &r->sc, &e) == 0, "%s", e.msg);
			ck_assert_ptr_eq(r->s.eng.queue, event_queue_at(queues[j]));
			r->s.eng.prefetch_next = runs[i].prefetch;
			ck_assert_msg(sim_run(&r->s, &e) == 0, "%s", e.msg);
		}
		ck_assert_uint_eq(base.s.eng.events, other.s.eng.events);
		ck_assert_uint_eq(base.s.eng.now, other.s.eng.now);
		assert_same_figures(&base.s, &other.s, runs[i].path);
		tu_run_free(&base);
		tu_run_free(&other);
	}
}
END_TEST

/* A thread's time by class (what explain reports) adds up to the measuring window
 * exactly, for every thread that ran through it: whatever it was doing at the
 * window's edges (a wait, an op half done, asleep), and however the engine got
 * there. Hash-bench, a mutex, a condvar barrier, producers and consumers. */
START_TEST(test_time_classes_fill_the_window)
{
	static const char *const runs[][2] = {
		{ "scenarios/bench/e5-global.yaml", NULL },
		{ "scenarios/workloads/mutex.yaml", NULL },
		{ "scenarios/workloads/barrier.yaml", NULL },
		{ "scenarios/workloads/producer-consumer.yaml", NULL },
	};
	static const char *const sets[] = { "run.duration=400us", "run.warmup=100us" };

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct tu_run r;
		simtime_t window;

		tu_run(&r, runs[i][0], sets, 2);
		window = sim_window_ps(&r.s);
		ck_assert_uint_eq(window, 400 * PS_PER_US);
		for (uint32_t k = 0; k < r.s.nthreads; k++) {
			simtime_t time[TC_NCLASSES], steps[STEP_NSTEPS], sum = 0;

			tasks_split_work(&r.s.tasks, &r.s.tasks.v[k], sim_window_stop(&r.s), time, steps);
			for (int c = 0; c < TC_NCLASSES; c++)
				sum += time[c];
			ck_assert_msg(sum == window, "%s: thread %u: classes add up to %llu ps of %llu", runs[i][0], k,
				      (unsigned long long)sum, (unsigned long long)window);
		}
		tu_run_free(&r);
	}
}
END_TEST

/* Programs that take no simulated time would loop forever at one instant: the
 * run is stopped as stalled with a clear error instead (the estimate refuses
 * such scenarios up front; this guards a loop it could miss). */
START_TEST(test_zero_time_loop_stops)
{
	static const char *const sets[] = { "machine={preset: small-1node, costs: {line_hit: 0ns, atomic_hit: 0ns}}",
					    "workload.threads=1", "workload.futexes=1", "run.duration=1ms" };
	struct scenario sc;
	struct sim s;
	struct fs_error e = { 0 };

	ck_assert_msg(scenario_load(&sc, "scenarios/quickstart.yaml", sets, 4, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&s, &sc, &e) == 0, "%s", e.msg);
	/* make the thread's own program free after the estimate accepted it */
	for (uint32_t u = 0; u < s.tasks.v[0].nuops; u++)
		((struct uop *)s.tasks.v[0].prog)[u].work_ps = 0;
	ck_assert_int_eq(sim_run(&s, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "took no simulated time"));
	ck_assert_uint_lt(s.eng.now, s.end);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("behaviour");
	TCase *tc = tcase_create("scenarios");

	tcase_add_test(tc, test_lone_thread_never_transfers);
	tcase_add_test(tc, test_rcuref_two_transfers_per_op);
	tcase_add_test(tc, test_immutable_and_percpu_never_move_the_counter);
	tcase_add_test(tc, test_more_buckets_never_much_slower);
	tcase_add_test(tc, test_each_op_takes_its_bucket_lock_once);
	tcase_add_test(tc, test_cna_keeps_handoffs_on_the_node);
	tcase_add_test(tc, test_same_seed_same_run);
	tcase_add_test(tc, test_time_classes_fill_the_window);
	tcase_add_test(tc, test_quiet_prefetches_change_nothing);
	tcase_add_loop_test(tc, test_every_queue_same_run, 1, EVENT_QUEUE_NTYPES);
	tcase_add_test(tc, test_zero_time_loop_stops);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
