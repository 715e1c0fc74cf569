/* SPDX-License-Identifier: MIT */
/* The blocking workloads (mutex, condvar) and what follows from how futexes work:
 * the glibc mutex protocol keeps mutual exclusion and loses no wake-up (every
 * thread finishes a fixed number of acquisitions, nobody is left asleep, the word
 * ends at 0); an uncontended mutex never enters the kernel; a broadcast by
 * requeue wakes one waiter where wake-all wakes them all, and the requeued keep
 * their order on the mutex's chain; colliding keys lengthen chain walks and make
 * wakes dearer; a private hash grown by thread creation shows its cost in the
 * time series and no resize happens after the last creation; the CPU scheduler
 * shares a CPU between threads with context switches. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/procset.h"
#include "tests/testutil.h"

#define MUTEX "scenarios/workloads/mutex.yaml"
#define BARRIER "scenarios/workloads/barrier.yaml"
#define QUEUE "scenarios/workloads/producer-consumer.yaml"
#define CHURN "scenarios/workloads/churn.yaml"
#define COLLISIONS "scenarios/workloads/collisions.yaml"
#define PROCESSES "scenarios/workloads/processes.yaml"

static double figure(const struct sim *s, const char *name)
{
	struct workload_figures f = { 0 };

	s->sc->wl_type->figures(s->wl, &f);
	for (uint32_t i = 0; i < f.n; i++)
		if (strcmp(f.v[i].name, name) == 0)
			return f.v[i].value;
	ck_abort_msg("no workload figure %s", name);
	return 0;
}

static uint64_t sum_tasks(const struct sim *s, size_t offset)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->nthreads; i++)
		sum += *(const uint64_t *)((const char *)&s->tasks.v[i] + offset);
	return sum;
}
#define SUM(s, field) sum_tasks(s, offsetof(struct task, field))

START_TEST(test_uncontended_mutex_never_enters_the_kernel)
{
	/* each thread its own mutex (on its own line), or one thread alone */
	static const char *const own[] = { "workload.threads=8", "workload.mutexes=8", "workload.pick=fixed",
					   "workload.mutex_stride=64", "workload.cpus=0-7", "run.duration=1ms" };
	static const char *const alone[] = { "workload.threads=1", "workload.mutexes=1", "run.duration=1ms" };
	const char *const *cases[] = { own, alone };
	const size_t sizes[] = { 6, 3 };

	for (int c = 0; c < 2; c++) {
		struct tu_run r;

		tu_run(&r, MUTEX, cases[c], sizes[c]);
		/* 2.2 us per acquisition (think + critical section) over 1 ms */
		ck_assert_uint_gt(SUM(&r.s, ops), 300u * r.s.nthreads);
		ck_assert_uint_eq(SUM(&r.s, stats.futex_calls), 0);
		ck_assert_double_eq(figure(&r.s, "futex_calls"), 0);
		ck_assert_uint_eq(SUM(&r.s, stats.wakeups), 0);
		/* no kernel: no hash bucket line ever moved */
		ck_assert_uint_eq(tu_transfers_of(&r.s, "private hash"), 0);
		tu_run_free(&r);
	}
}
END_TEST

/* One thread alone, hand-computed: each acquisition is think (1 us) + lock_call
 * and the CAS (an atomic hit), then the critical section (1 us) + lock_call and
 * the exchange: 2 us + 4 x 20 cycles at 3 GHz = 2026.67 ns; 2 ms hold 986.8. */
START_TEST(test_lone_mutex_period)
{
	static const char *const sets[] = { "machine=small-1node", "workload.threads=1", "workload.think=1us",
					    "workload.critical=1us", "run.duration=2ms" };
	struct tu_run r;

	tu_run(&r, MUTEX, sets, 5);
	ck_assert_uint_eq(r.s.m->atomic_hit_ps, 6667);
	ck_assert_uint_ge(r.s.tasks.v[0].ops, 986);
	ck_assert_uint_le(r.s.tasks.v[0].ops, 987);
	tu_run_free(&r);
}
END_TEST

/* Every thread takes its share of acquisitions and exits: a lost wake-up would
 * leave a thread asleep with the run out of events, short of its count. */
static void run_to_completion(const char *path, const char *const *sets, size_t n, uint64_t per_thread)
{
	struct tu_run r;

	tu_run(&r, path, sets, n);
	for (uint32_t i = 0; i < r.s.nthreads; i++) {
		const struct task *t = &r.s.tasks.v[i];

		ck_assert_msg(t->state == TS_IDLE, "thread %u still in state %u at the end", i, t->state);
		ck_assert_msg(t->wait.word == NULL, "thread %u still queued on a futex", i);
		ck_assert_uint_eq(t->locks_held, 0);
		ck_assert_uint_eq(t->ops, per_thread);
	}
	ck_assert_double_eq(figure(&r.s, "mutual_exclusion_violations"), 0);
	ck_assert_double_eq(figure(&r.s, "lock_acquisitions"), (double)per_thread * r.s.nthreads);
	/* the run ended because everybody finished, long before its end */
	ck_assert_uint_lt(r.s.eng.now, r.s.end);
	tu_run_free(&r);
}

START_TEST(test_mutex_protocol_no_lost_wakeups)
{
	/* one mutex fought over by 8 threads with long critical sections: most
	 * acquisitions go through FUTEX_WAIT and FUTEX_WAKE */
	static const char *const kernels[] = { "kernel=linux-6.18", "kernel=linux-6.17", "kernel=linux-3.14",
					       "kernel=linux-2.6.18" };

	for (int k = 0; k < 4; k++) {
		const char *sets[] = { kernels[k],	  "machine=small-1node",    "workload.threads=8",
				       "workload.mutexes=1", "workload.critical=2us", "workload.think=500ns",
				       "workload.acquisitions=300", "run.warmup=0ms",	  "run.duration=1s" };

		run_to_completion(MUTEX, sets, 9, 300);
	}
}
END_TEST

START_TEST(test_mutex_protocol_shared_processes_and_sharing_cpus)
{
	/* process-shared mutexes in 3 processes; then 12 threads on 4 CPUs */
	static const char *const shared[] = { "machine=small-1node", "workload.threads=6", "workload.processes=3",
					      "workload.shared=true", "workload.mutexes=2", "workload.critical=1us",
					      "workload.acquisitions=200", "run.warmup=0ms", "run.duration=1s" };
	static const char *const crowded[] = { "machine=small-1node", "workload.threads=12", "workload.cpus=0-3",
					       "workload.mutexes=2", "workload.critical=1us",
					       "workload.acquisitions=200", "run.warmup=0ms", "run.duration=1s" };

	run_to_completion(MUTEX, shared, 9, 200);
	run_to_completion(MUTEX, crowded, 8, 200);
}
END_TEST

START_TEST(test_condvar_no_lost_wakeups)
{
	static const char *const broadcasts[] = { "workload.broadcast=wake-all", "workload.broadcast=requeue" };

	for (int b = 0; b < 2; b++) {
		const char *sets[] = { "machine=small-1node", "workload.threads=8", broadcasts[b],
				       "workload.rounds=100", "run.warmup=0ms", "run.duration=1s" };
		struct tu_run r;

		tu_run(&r, BARRIER, sets, 6);
		for (uint32_t i = 0; i < r.s.nthreads; i++) {
			ck_assert_uint_eq(r.s.tasks.v[i].state, TS_IDLE);
			ck_assert_uint_eq(r.s.tasks.v[i].ops, 100);
		}
		/* one broadcast per round */
		ck_assert_double_eq(figure(&r.s, "broadcasts"), 100);
		ck_assert_double_eq(figure(&r.s, "mutual_exclusion_violations"), 0);
		tu_run_free(&r);
	}
	{
		const char *sets[] = { "machine=small-1node", "workload.threads=8",   "workload.groups=2",
				       "workload.producers=2", "workload.capacity=2", "workload.rounds=150",
				       "run.warmup=0ms",	  "run.duration=1s" };
		struct tu_run r;

		/* 2 queues, each 2 producers and 2 consumers: every item put is taken */
		tu_run(&r, QUEUE, sets, 8);
		for (uint32_t i = 0; i < r.s.nthreads; i++) {
			ck_assert_uint_eq(r.s.tasks.v[i].state, TS_IDLE);
			ck_assert_uint_eq(r.s.tasks.v[i].ops, 150);
		}
		tu_run_free(&r);
	}
}
END_TEST

START_TEST(test_requeue_wakes_fewer_than_wake_all)
{
	static const char *const wake_all[] = { "workload.broadcast=wake-all" };
	static const char *const requeue[] = { "workload.broadcast=requeue" };
	struct tu_run a, q;

	tu_run(&a, BARRIER, wake_all, 1);
	tu_run(&q, BARRIER, requeue, 1);
	/* broadcasts for the ratios below: a few tens with wake-all; with requeue only a
	 * few, the 27 requeued waiters then being handed the mutex one by one, each one's
	 * CPU woken from a deep idle state in turn */
	ck_assert_double_gt(figure(&a.s, "broadcasts"), 30);
	ck_assert_double_gt(figure(&q.s, "broadcasts"), 2);
	/* 27 waiters per broadcast: wake-all wakes nearly all (a few are not asleep
	 * yet and see the value change), requeue wakes exactly one and moves the rest */
	ck_assert_double_gt(figure(&a.s, "woken_per_broadcast"), 20);
	ck_assert_double_eq_tol(figure(&q.s, "woken_per_broadcast"), 1, 0.01);
	ck_assert_double_gt(figure(&q.s, "requeued_per_broadcast"), 20);
	ck_assert_double_eq(figure(&a.s, "requeued_per_broadcast"), 0);
	tu_run_free(&a);
	tu_run_free(&q);
}
END_TEST

/* The tasks queued on `word`, in chain order (their bucket's chain filtered). */
static uint32_t chain_of(const struct sim *s, const struct futex_word *word, uint32_t *out, uint32_t max)
{
	const struct task *first = NULL;
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->nthreads && !first; i++)
		if (s->tasks.v[i].wait.word == word)
			first = &s->tasks.v[i];
	if (!first)
		return 0;
	for (uint32_t c = first->wait.table->chain_head[first->wait.bucket]; c != FUTEX_CHAIN_END && n < max;
	     c = s->tasks.v[c].wait.chain_next)
		if (s->tasks.v[c].wait.word == word)
			out[n++] = c;
	return n;
}

START_TEST(test_requeue_keeps_the_waiters_order)
{
	static const char *const sets[] = { "machine=small-1node", "workload.threads=6", "workload.broadcast=requeue",
					    "workload.work={dist: uniform, min: 1us, max: 30us}", "run.warmup=0ms",
					    "run.duration=3ms" };
	struct scenario sc;
	struct sim s;
	struct fs_error e = { 0 };
	const struct futex_word *cond = NULL;
	uint32_t before[8], nbefore = 0, checked = 0;

	ck_assert_msg(scenario_load(&sc, BARRIER, sets, 6, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&s, &sc, &e) == 0, "%s", e.msg);
	sim_start(&s);
	/* every 200 ns: a requeue moves the sleepers within one walk, and the mutex
	 * passes them on one at a time afterwards */
	for (simtime_t at = 200000; at < s.end; at += 200000) {
		const struct futex_word *mutex = NULL;
		uint32_t now[8], n, after[8], nafter = 0;

		sim_advance(&s, at);
		for (uint32_t i = 0; i < s.nthreads && !cond; i++)
			if (s.tasks.v[i].wait.word && chain_of(&s, s.tasks.v[i].wait.word, now, 8) >= 3)
				cond = s.tasks.v[i].wait.word; /* the barrier's condition: most sleep there */
		if (!cond)
			continue;
		n = chain_of(&s, cond, now, 8);
		if (n >= 3) {
			memcpy(before, now, n * sizeof(*now));
			nbefore = n;
			continue;
		}
		if (n || nbefore < 3)
			continue;
		/* the broadcast woke one sleeper and moved the others onto the mutex's
		 * chain in the order they slept; the mutex may have passed to some of them
		 * since (which ones depends on who retried it first): those still queued
		 * keep that order among themselves */
		for (uint32_t k = 1; k < nbefore && !mutex; k++)
			mutex = s.tasks.v[before[k]].wait.word;
		if (mutex) {
			uint32_t k = 0;

			n = chain_of(&s, mutex, now, 8);
			for (uint32_t i = 0; i < n; i++)
				for (uint32_t m = 0; m < nbefore; m++)
					if (now[i] == before[m])
						after[nafter++] = m;
			for (uint32_t i = 1; i < nafter; i++)
				k += after[i - 1] < after[i];
			ck_assert_msg(k + 1 == nafter || nafter == 0, "the requeued waiters are out of order");
			checked += nafter >= 2;
		}
		nbefore = 0;
	}
	ck_assert_uint_gt(checked, 5);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

START_TEST(test_colliding_keys_lengthen_chain_walks)
{
	static const char *const few[] = { "kernel.private_hash.buckets=2" };
	static const char *const many[] = { "kernel.private_hash.buckets=1024" };
	struct tu_run a, b;
	double walk_few, walk_many;

	tu_run(&a, COLLISIONS, few, 1);
	tu_run(&b, COLLISIONS, many, 1);
	ck_assert_uint_gt(SUM(&a.s, stats.wakeups), 1000);
	ck_assert_uint_gt(SUM(&b.s, stats.wakeups), 1000);
	walk_few = (double)SUM(&a.s, stats.chain_walked) / (double)SUM(&a.s, stats.wakeups);
	walk_many = (double)SUM(&b.s, stats.chain_walked) / (double)SUM(&b.s, stats.wakeups);
	/* 14 sleepers over 2 buckets: a wake passes several other mutexes' waiters;
	 * over 1024 buckets its own waiter is nearly always the only entry */
	ck_assert_msg(walk_few > 2 && walk_many < 1.1, "entries per wake %.2f (2 buckets) vs %.2f (1024)", walk_few,
		      walk_many);
	/* the walk's extra entries show in the wake call, beside its fixed part (the
	 * syscall, the lock, the waker's try_to_wake_up: sched.wake_up) */
	ck_assert_double_gt(figure(&a.s, "wake_call_mean"), 1.3 * figure(&b.s, "wake_call_mean"));
	/* a wake is a syscall: never cheaper than its entry and exit */
	ck_assert_double_gt(figure(&b.s, "wake_call_mean"), (double)b.s.m->syscall_ps);
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

/* The time series' ops per interval, summed over threads. */
struct series {
	uint64_t ops[1024];
	simtime_t time[1024];
	uint32_t n;
};

static int collect(void *ctx, const struct series_rows *rows, struct fs_error *e)
{
	struct series *sr = ctx;

	(void)e;
	for (uint32_t r = 0; r < rows->n && sr->n < 1024; r++, sr->n++) {
		sr->time[sr->n] = rows->time[r];
		sr->ops[sr->n] = 0;
		for (uint32_t t = 0; t < rows->nthreads; t++)
			sr->ops[sr->n] += rows->ops[(size_t)r * rows->nthreads + t];
	}
	return 0;
}

static double mean_ops(const struct series *sr, simtime_t from, simtime_t to)
{
	double sum = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < sr->n; i++)
		if (sr->time[i] >= from && sr->time[i] < to) {
			sum += (double)sr->ops[i];
			n++;
		}
	ck_assert_uint_gt(n, 0);
	return sum / n;
}

START_TEST(test_churn_resize_cost_then_none)
{
	struct scenario sc;
	struct sim s;
	struct fs_error e = { 0 };
	struct series *sr = calloc(1, sizeof(*sr));
	simtime_t last_creation, published = 0;

	ck_assert_msg(scenario_load(&sc, CHURN, NULL, 0, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&s, &sc, &e) == 0, "%s", e.msg);
	series_set_sink(&s.series, collect, sr);
	ck_assert_msg(sim_run(&s, &e) == 0, "%s", e.msg);
	/* 28 threads, one every 100 us: the hash grows at 4, 8 and 16 threads */
	last_creation = 27 * 100000000ull;
	ck_assert_uint_eq(s.ft.nresizes, 3);
	for (uint32_t i = 0; i < s.ft.nresizes; i++) {
		ck_assert_uint_lt(s.ft.resizes[i].start, last_creation);
		ck_assert_uint_ne(s.ft.resizes[i].end, SIMTIME_MAX);
		/* two grace periods in atomic mode, at least; a growth while one is
		 * pending is published with it */
		ck_assert_uint_ge(s.ft.resizes[i].end - s.ft.resizes[0].start, 2 * s.k->rcu_grace_period_ps);
		if (s.ft.resizes[i].end > published)
			published = s.ft.resizes[i].end;
	}
	/* with all 28 threads running: slower while the refcount is atomic than after
	 * (a small part of an op that sleeps and wakes: under 1% on this machine) */
	ck_assert_uint_lt(last_creation + 250000000ull, published);
	ck_assert_double_lt(mean_ops(sr, last_creation + 250000000ull, published - 250000000ull),
			    0.997 * mean_ops(sr, published + 500000000ull, s.end));
	ck_assert_uint_eq(s.ft.procs[0].phash->size, 128);
	/* churn went on after the last creation (threads exit and are replaced) */
	ck_assert_double_gt(figure(&s, "thread_exits"), 5);
	free(sr);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

/* A resize published while threads sleep in the old hash moves them: right
 * after it, every sleeper is queued in the new hash, and all wake up later. */
START_TEST(test_resize_rehashes_waiters)
{
	static const char *const sets[] = { "machine=small-1node", "kernel=linux-6.17", "workload.threads=8",
					    "workload.mutexes=2", "workload.critical=20us", "workload.think=1us",
					    "workload.threads_start=as_created", "workload.create_interval=20us",
					    "workload.acquisitions=400", "run.warmup=0ms", "run.duration=1s" };
	struct scenario sc;
	struct sim s;
	struct fs_error e = { 0 };
	bool slept[8] = { false };
	uint32_t moved = 0;
	bool published = false;

	ck_assert_msg(scenario_load(&sc, MUTEX, sets, 11, &e) == 0, "%s", e.msg);
	ck_assert_msg(sim_build(&s, &sc, &e) == 0, "%s", e.msg);
	sim_start(&s);
	for (simtime_t at = 200000; at < s.end && !published; at += 200000) {
		sim_advance(&s, at);
		published = s.ft.nresizes && s.ft.resizes[0].end != SIMTIME_MAX;
		for (uint32_t i = 0; i < s.nthreads; i++) {
			const struct task *t = &s.tasks.v[i];

			if (!published) {
				/* asleep in the hash that is about to be replaced */
				slept[i] = t->wait.word && t->state == TS_SLEEP && s.ft.nresizes &&
					   t->wait.table != s.ft.procs[0].phash;
			} else if (t->wait.word) {
				ck_assert_ptr_eq(t->wait.table, s.ft.procs[0].phash);
				moved += slept[i];
			}
		}
	}
	ck_assert(published);
	ck_assert_uint_gt(moved, 0);
	sim_advance(&s, s.end);
	ck_assert_int_eq(sim_finish(&s, &e), 0);
	for (uint32_t i = 0; i < s.nthreads; i++)
		ck_assert_uint_eq(s.tasks.v[i].state, TS_IDLE);
	sim_free(&s);
	scenario_free(&sc);
}
END_TEST

START_TEST(test_threads_share_cpus)
{
	/* 16 threads on 4 CPUs, no blocking at all (own mutexes): only time slices
	 * switch them, and each gets about a quarter of a CPU */
	static const char *const sets[] = { "machine=small-1node", "workload.threads=16", "workload.cpus=0-3",
					    "workload.mutexes=16", "workload.pick=fixed", "workload.mutex_stride=64",
					    "run.duration=30ms" };
	struct tu_run r;
	uint64_t min = UINT64_MAX, max = 0;

	tu_run(&r, MUTEX, sets, 7);
	for (uint32_t i = 0; i < r.s.nthreads; i++) {
		uint64_t ops = r.s.tasks.v[i].ops;

		min = ops < min ? ops : min;
		max = ops > max ? ops : max;
	}
	/* 30 ms of 3 ms slices: every thread ran, none starved */
	ck_assert_uint_gt(SUM(&r.s, stats.switches_in), 16);
	ck_assert_uint_gt(min, max / 3);
	ck_assert_uint_eq(SUM(&r.s, stats.futex_calls), 0);
	tu_run_free(&r);
}
END_TEST

/* The workload's figures, the resizes and the per-thread blocking columns go into
 * the result file; `futexsim show` prints the same summary from it. */
START_TEST(test_figures_in_the_result_file)
{
	char dir[64], *run = NULL, *show = NULL, *py = NULL;
	const char *from, *shown;

	tu_mkdtemp(dir, "futexsim-wl");
	ck_assert_int_eq(tu_shellf(&run, "%s run %s -o %s/c.h5 --set run.duration=8ms", tu_bin(), CHURN, dir), 0);
	ck_assert_int_eq(tu_shellf(&show, "%s show %s/c.h5", tu_bin(), dir), 0);
	/* everything from the blocking line to the hottest lines */
	from = strstr(run, "  blocking ");
	ck_assert_ptr_nonnull(from);
	ck_assert_ptr_nonnull(strstr(run, "  resize 3 "));
	shown = strstr(show, "  blocking ");
	ck_assert_ptr_nonnull(shown);
	ck_assert_int_eq(strncmp(from, shown, (size_t)(strstr(from, "  hottest") - from)), 0);
	ck_assert_int_eq(tu_shellf(&py,
				   "/usr/bin/python3 -c 'import h5py, sys; f = h5py.File(sys.argv[1]); "
				   "print(f[\"workload/latency_p99\"].attrs[\"units\"], len(f[\"resizes/start\"]), "
				   "int(f[\"workload/latency_counts\"][:].sum()) == int(f[\"workload/lock_acquisitions\"][()]), "
				   "int(f[\"threads/futex_calls\"][:].sum()) == int(f[\"workload/futex_calls\"][()]))' %s/c.h5",
				   dir),
			 0);
	ck_assert_str_eq(py, "ps 3 True True\n");
	free(run);
	free(show);
	free(py);
	tu_rmtree(dir);
}
END_TEST

static uint64_t global_futexes(const struct sim *s)
{
	uint64_t n = 0;

	for (uint32_t t = 0; t < s->ft.nglobal; t++)
		for (uint32_t b = 0; b < s->ft.tables[t]->size; b++)
			n += s->ft.tables[t]->hashed[b];
	return n;
}

/* Same scenario and seed, same run: the same standard output (the wall-clock line is on stderr). */
START_TEST(test_same_seed_same_run)
{
	static const char *const runs[] = { MUTEX " --set run.duration=2ms",
					    BARRIER " --set run.duration=2ms --set workload.broadcast=requeue",
					    CHURN " --set run.duration=3ms --seed 7" };

	for (int i = 0; i < 3; i++) {
		char *a = NULL, *b = NULL;

		ck_assert_int_eq(tu_shellf(&a, "%s run %s --no-output --per-thread 2>/dev/null", tu_bin(),
					   runs[i]),
				 0);
		ck_assert_int_eq(tu_shellf(&b, "%s run %s --no-output --per-thread 2>/dev/null", tu_bin(),
					   runs[i]),
				 0);
		ck_assert_str_eq(a, b);
		ck_assert_ptr_nonnull(strstr(a, "latency_p99"));
		free(a);
		free(b);
	}
}
END_TEST

/* Process-shared mutexes hash by inode into the global table, whatever the
 * process; private ones stay in their own process's private hash. */
START_TEST(test_shared_futexes_global_private_ones_private)
{
	static const char *const shared[] = { "workload.shared=true", "run.duration=2ms" };
	static const char *const private[] = { "workload.shared=false", "run.duration=2ms" };
	struct tu_run a, b;

	tu_run(&a, PROCESSES, shared, 2);
	tu_run(&b, PROCESSES, private, 2);
	ck_assert_uint_eq(a.s.ft.nprocs, 4);
	ck_assert_uint_gt(SUM(&a.s, stats.futex_calls), 100);
	ck_assert_uint_gt(SUM(&b.s, stats.futex_calls), 100);
	ck_assert_uint_gt(tu_transfers_of(&a.s, "global hash"), 0);
	/* no op touches a private hash (its lines may still move: a neighbour's
	 * prefetch on the E5) */
	ck_assert_uint_eq(tu_accesses_of(&a.s, "private hash of"), 0);
	/* the same 64 mutexes for all 4 processes: resolved once each, by inode */
	ck_assert_uint_eq(global_futexes(&a.s), 64);
	ck_assert_uint_eq(global_futexes(&b.s), 0);
	ck_assert_uint_eq(tu_accesses_of(&b.s, "global hash"), 0);
	for (uint32_t p = 0; p < 4; p++) {
		char name[64];

		snprintf(name, sizeof(name), "private hash of process %u", p);
		ck_assert_uint_gt(tu_transfers_of(&b.s, name), 0);
	}
	tu_run_free(&a);
	tu_run_free(&b);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("workloads");
	TCase *tc = tcase_create("workloads");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_uncontended_mutex_never_enters_the_kernel);
	tcase_add_test(tc, test_lone_mutex_period);
	tcase_add_test(tc, test_mutex_protocol_no_lost_wakeups);
	tcase_add_test(tc, test_mutex_protocol_shared_processes_and_sharing_cpus);
	tcase_add_test(tc, test_condvar_no_lost_wakeups);
	tcase_add_test(tc, test_requeue_wakes_fewer_than_wake_all);
	tcase_add_test(tc, test_requeue_keeps_the_waiters_order);
	tcase_add_test(tc, test_colliding_keys_lengthen_chain_walks);
	tcase_add_test(tc, test_churn_resize_cost_then_none);
	tcase_add_test(tc, test_threads_share_cpus);
	tcase_add_test(tc, test_resize_rehashes_waiters);
	tcase_add_test(tc, test_figures_in_the_result_file);
	tcase_add_test(tc, test_shared_futexes_global_private_ones_private);
	tcase_add_test(tc, test_same_seed_same_run);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run_suite(suite());
}
