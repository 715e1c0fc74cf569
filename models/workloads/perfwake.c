/* SPDX-License-Identifier: MIT */
#include "models/workloads/perfwake.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/procset.h"
#include "models/usync.h"
#include "models/world.h"
#include "sim/core/config.h"

enum suite { SUITE_WAKE, SUITE_WAKE_PARALLEL, SUITE_REQUEUE };

#define MAX_RUNS 100000u

struct perfwake_params {
	struct procset_params pp; /* first (procset_params_release); pp.threads: the blocked threads and the wakers */
	enum suite suite;
	struct usync_params up;
	uint32_t blocked, wakers, runs, nwake, nrequeue;
	bool pi;                  /* requeue -p: FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI */
};

struct perfwake {
	const struct world *world;
	const struct perfwake_params *p;
	struct procset ps;
	struct usync u;
	struct usync_futex *f1, *f2;
	uint32_t first;           /* the process's first task: blocked threads, then wakers */
	uint32_t runs_begun, asleep, returned, wakers_done;
	uint32_t count;           /* this run: woken (wake suites) or requeued (requeue) */
	uint32_t calls;           /* this run's CMP_REQUEUE_PI calls (perf counts one woken per call) */
	uint32_t woken2;          /* requeue: woken from futex2 after the timed loop */
	bool timing;              /* requeue: the timed loop is under way */
	simtime_t run_start;
	/* per run inside the window: perf's figure in whole microseconds (tv_usec), the
	 * exact time, and the count woken or requeued; wake-parallel: per run and waker */
	uint32_t nruns, nsamples;
	double *run_us, *run_ps, *run_count, *run_calls;
	double *sample_us, *sample_ps, *sample_count;
	uint64_t woken, moved, violations;
	bool *exiting;            /* per blocked thread: running its exit (sched.thread_exit) */
};

static const char *const suite_names[] = { "wake", "wake-parallel", "requeue" };

static int parse_suite(const struct yt_node *n, const struct machine *m, void **params, enum suite suite,
		       struct fs_error *e)
{
	static const char *const keys[3][16] = {
		{ "type", PROCSET_KEYS, USYNC_KEYS, "runs", "nwake", NULL },
		{ "type", PROCSET_KEYS, USYNC_KEYS, "runs", "wakers", NULL },
		{ "type", PROCSET_KEYS, USYNC_KEYS, "runs", "nrequeue", "broadcast", "pi", NULL },
	};
	struct perfwake_params *p = calloc(1, sizeof(*p));
	bool broadcast = false;

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	p->suite = suite;
	if (cfg_check_keys(n, "workload", keys[suite], e) < 0 || procset_parse(n, m, &p->pp, e) < 0 ||
	    usync_parse(n, &p->up, e) < 0 ||
	    /* perf's defaults: -r 10, -w 1 (wake) or 2 (wake-parallel), -q 1; each suite
	     * reads its own keys only (the resolved scenario lists what was read) */
	    cfg_get_u32(n, "runs", 10, 1, MAX_RUNS, &p->runs, e) < 0 ||
	    (suite == SUITE_WAKE && cfg_get_u32(n, "nwake", 1, 1, UINT32_MAX, &p->nwake, e) < 0) ||
	    (suite == SUITE_WAKE_PARALLEL && cfg_get_u32(n, "wakers", 2, 1, 1u << 16, &p->wakers, e) < 0) ||
	    (suite == SUITE_REQUEUE && (cfg_get_u32(n, "nrequeue", 1, 1, UINT32_MAX, &p->nrequeue, e) < 0 ||
					cfg_get_bool(n, "broadcast", false, &broadcast, e) < 0 ||
					cfg_get_bool(n, "pi", false, &p->pi, e) < 0)))
		return -1;
	if (p->pp.processes != 1)
		return fs_fail_at(e, &yt_get(n, "processes")->mark,
				  "processes: perf bench futex %s runs in one process", suite_names[suite]);
	if (p->pp.churn_interval)
		return fs_fail_at(e, &yt_get(n, "churn_interval")->mark,
				  "churn_interval: perf bench futex %s creates its threads per run, no churn",
				  suite_names[suite]);
	p->blocked = p->pp.threads;
	if (suite != SUITE_WAKE_PARALLEL)
		p->wakers = 1; /* perf's main thread */
	else if (p->wakers > p->blocked || p->blocked % p->wakers)
		/* futex-wake-parallel.c: "Must be perfectly divisible" */
		return fs_fail_at(e, yt_get(n, "wakers") ? &yt_get(n, "wakers")->mark : &n->mark,
				  "wakers: %u blocked threads cannot be shared by %u wakers (perf needs the wakers to "
				  "divide the threads)",
				  p->blocked, p->wakers);
	if (broadcast)
		p->nrequeue = p->blocked;
	p->pp.threads += p->wakers;
	return 0;
}

static int parse_wake(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	return parse_suite(n, m, params, SUITE_WAKE, e);
}

static int parse_wake_parallel(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	return parse_suite(n, m, params, SUITE_WAKE_PARALLEL, e);
}

static int parse_requeue(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	return parse_suite(n, m, params, SUITE_REQUEUE, e);
}

static uint32_t ntasks(const void *params)
{
	return ((const struct perfwake_params *)params)->pp.threads;
}

/* The blocked threads are the ones reported. */
static uint32_t nthreads(const void *params)
{
	return ((const struct perfwake_params *)params)->blocked;
}

static void free_state(void *state)
{
	struct perfwake *w = state;

	if (!w)
		return;
	usync_free(&w->u);
	procset_free(&w->ps);
	free(w->run_us);
	free(w->run_ps);
	free(w->run_count);
	free(w->run_calls);
	free(w->sample_us);
	free(w->sample_ps);
	free(w->sample_count);
	free(w->exiting);
	free(w);
}

static bool is_blocked_thread(const struct perfwake *w, const struct task *t)
{
	return t->id - w->first < w->p->blocked;
}

static bool run_in_window(const struct perfwake *w)
{
	const struct tasks *ts = w->world->tasks;

	return w->run_start >= ts->window_start && w->run_start < ts->window_end;
}

/* A waker's next call, as perf's loops make them. */
static void waker_call(struct perfwake *w, struct task *t)
{
	const struct perfwake_params *p = w->p;

	switch (p->suite) {
	case SUITE_WAKE:
		usync_futex_wake(&w->u, t, w->f1, p->nwake);
		break;
	case SUITE_WAKE_PARALLEL:
		usync_futex_wake(&w->u, t, w->f1, p->blocked / p->wakers);
		break;
	case SUITE_REQUEUE:
		if (w->timing && p->pi) /* the first waiter may get futex2, the others queue on it */
			usync_futex_cmp_requeue_pi(&w->u, t, w->f1, 0, w->f2, p->nrequeue);
		else if (w->timing) /* nr_wake 0: move them all, wake none */
			usync_futex_requeue(&w->u, t, w->f1, 0, w->f2, 0, p->nrequeue);
		else
			usync_futex_wake(&w->u, t, w->f2, p->blocked);
		break;
	}
}

/* Every blocked thread sleeps on futex1: the wakers start. */
static void start_run(struct perfwake *w)
{
	struct tasks *ts = w->world->tasks;

	w->run_start = ts->eng->now;
	w->count = w->woken2 = w->wakers_done = w->calls = 0;
	w->timing = true;
	for (uint32_t k = 0; k < w->p->wakers; k++) {
		struct task *t = &ts->v[w->first + w->p->blocked + k];

		t->clock = w->run_start;
		waker_call(w, t);
		task_start(ts, t, w->run_start);
	}
}

/* A blocked thread's wait: FUTEX_WAIT(futex1, 0), or with -p FUTEX_WAIT_REQUEUE_PI(futex1, 0, futex2). */
static void block(struct perfwake *w, struct task *t)
{
	if (w->p->pi)
		usync_futex_wait_requeue_pi(&w->u, t, w->f1, 0, w->f2);
	else
		usync_futex_wait(&w->u, t, w->f1, 0);
}

/* The blocked threads (re)start: each calls FUTEX_WAIT(futex1, 0). */
static void block_all(struct perfwake *w, simtime_t at)
{
	struct tasks *ts = w->world->tasks;

	w->asleep = w->returned = 0;
	w->runs_begun++;
	for (uint32_t i = 0; i < w->p->blocked; i++) {
		struct task *t = &ts->v[w->first + i];

		t->clock = at;
		block(w, t);
		task_start(ts, t, at);
	}
}

/* After a run: the next, or the end of the simulation. */
static void run_over(struct perfwake *w)
{
	struct tasks *ts = w->world->tasks;

	if (w->returned < w->p->blocked || w->wakers_done < w->p->wakers)
		return;
	if (w->runs_begun == w->p->runs || ts->eng->now >= ts->window_end) {
		ts->finished = true;
		engine_stop(ts->eng);
		return;
	}
	block_all(w, ts->eng->now);
}

/* tasks' slept hook: a blocked thread went to sleep in its wait. */
static void slept(void *ctx, struct task *t)
{
	struct perfwake *w = ctx;

	if (!is_blocked_thread(w, t) || t->wait.word != &w->f1->w)
		return;
	if (++w->asleep == w->p->blocked)
		start_run(w);
}

/* procset: the first run's threads start; the wakers wait for them to sleep. */
static void thread_started(void *ctx, struct task *t)
{
	struct perfwake *w = ctx;

	t->uncounted = true;
	if (!is_blocked_thread(w, t))
		return;
	block(w, t);
	task_start(w->world->tasks, t, t->clock);
}

static bool publish(void *ctx, uint32_t pid)
{
	return usync_publish(&((struct perfwake *)ctx)->u, pid);
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct perfwake_params *p = params;
	struct perfwake *w = calloc(1, sizeof(*w));
	uint64_t base;
	uint32_t object;

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	w->run_us = calloc(p->runs, sizeof(double));
	w->run_ps = calloc(p->runs, sizeof(double));
	w->run_count = calloc(p->runs, sizeof(double));
	w->run_calls = calloc(p->runs, sizeof(double));
	w->sample_us = calloc((size_t)p->runs * p->wakers, sizeof(double));
	w->sample_ps = calloc((size_t)p->runs * p->wakers, sizeof(double));
	w->sample_count = calloc((size_t)p->runs * p->wakers, sizeof(double));
	w->exiting = calloc(p->blocked, sizeof(bool));
	if (!w->run_us || !w->run_ps || !w->run_count || !w->run_calls || !w->sample_us || !w->sample_ps ||
	    !w->sample_count || !w->exiting)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (procset_init(&w->ps, world, &p->pp, !p->up.shared, &ops, w, e) < 0 ||
	    usync_init(&w->u, world, &w->ps, 2, 0, p->pi, &p->up, e) < 0 ||
	    /* perf's static u_int32_t futex1, futex2: adjacent words, futex2 first as a
	     * gcc build of perf lays them out (seen in its requeue header) */
	    usync_alloc(&w->u, 0, 8, "futex1 and futex2", "futex word", &base, &object, e) < 0 ||
	    usync_place(&w->u, &w->u.mutexes[0].f, 0, base + 4, object, 1, e) < 0 ||
	    usync_place(&w->u, &w->u.mutexes[1].f, 0, base, object, 0, e) < 0)
		return -1;
	w->f1 = &w->u.mutexes[0].f;
	w->f2 = &w->u.mutexes[1].f;
	if (p->pi) {
		static const char *const no_fields[] = { NULL };
		uint32_t pi_object = memmap_object(world->mem, "pi_state", "pi_state", no_fields);

		if (pi_object == MEMMAP_NONE || usync_place_pi_state(&w->u, w->f2, 0, pi_object, 0, e) < 0)
			return pi_object == MEMMAP_NONE ? fs_fail(e, FS_ERR_LIMIT, "out of memory") : -1;
	}
	w->first = world->ft->procs[0].first_task;
	w->runs_begun = 1;
	tasks_set_slept(world->tasks, slept, w);
	return usync_start(&w->u, &w->ps, e);
}

static void record_run(struct perfwake *w, simtime_t ps, uint32_t count)
{
	if (!run_in_window(w))
		return;
	w->run_ps[w->nruns] = (double)ps;
	w->run_us[w->nruns] = floor((double)ps / 1e6);
	w->run_count[w->nruns] = count;
	w->run_calls[w->nruns] = w->calls;
	w->nruns++;
}

static void program_done(void *state, struct task *t)
{
	struct perfwake *w = state;
	struct tasks *ts = w->world->tasks;
	const struct perfwake_params *p = w->p;

	if (is_blocked_thread(w, t)) {
		bool *exiting = &w->exiting[t->id - w->first];
		simtime_t exit_ps = w->world->m->sched.thread_exit_ps;

		if (*exiting) {
			/* its exit is done: the thread is gone until the next run's */
			*exiting = false;
			goto gone;
		}
		if (!p->pi || t->call.word == &w->f1->w) {
			/* back from its wait: woken */
			if (run_in_window(w))
				gsl_histogram_increment(w->u.latency, (double)(t->clock - w->run_start));
			task_count_op(ts, t);
		}
		if (p->pi && t->call.word == &w->f1->w) {
			/* owning futex2 (perf: "got the lock at futex2"), it unlocks it */
			if ((w->f2->w.value & FUTEX_TID_MASK) != t->id + 1)
				w->violations++;
			usync_futex_unlock_pi(&w->u, t, w->f2);
			return;
		}
		if (exit_ps) {
			/* perf's worker returns from its wait and calls pthread_exit: do_exit runs
			 * on the thread's CPU, inside the waker's timed loop when the thread
			 * preempted the waker there (a read of futex1, with the library call's
			 * lock_call around it, stands for its last access) */
			*exiting = true;
			usync_user_atomic(&w->u, t, UP_LOAD, w->f1, 0, 0, exit_ps);
			return;
		}
gone:
		/* idle until the next run */
		w->returned++;
		task_stop(ts, t);
		run_over(w);
		return;
	}
	switch (p->suite) {
	case SUITE_WAKE:
		w->count += t->walk.woken;
		if (run_in_window(w))
			w->woken += t->walk.woken;
		if (w->count < p->blocked) {
			waker_call(w, t);
			return;
		}
		record_run(w, t->clock - w->run_start, w->count);
		break;
	case SUITE_WAKE_PARALLEL:
		w->count += t->walk.woken;
		if (run_in_window(w)) {
			w->woken += t->walk.woken;
			w->sample_ps[w->nsamples] = (double)(t->clock - w->run_start);
			w->sample_us[w->nsamples] = floor(w->sample_ps[w->nsamples] / 1e6);
			w->sample_count[w->nsamples++] = t->walk.woken;
		}
		if (w->wakers_done + 1 == p->wakers)
			record_run(w, 0, w->count); /* the run's figure is the wakers' mean (print_perf) */
		break;
	case SUITE_REQUEUE:
		if (w->timing) {
			/* the syscall's return: woken (by the PI proxy) and requeued */
			uint32_t woken = p->pi ? t->call.proxy_woken : t->walk.woken;

			w->count += woken + t->walk.moved;
			w->calls++;
			if (run_in_window(w)) {
				w->moved += t->walk.moved;
				w->woken += woken;
			}
			if (w->count < p->blocked) {
				waker_call(w, t);
				return;
			}
			record_run(w, t->clock - w->run_start, w->count);
			w->timing = false;
			if (!p->pi) {
				waker_call(w, t);
				return;
			}
			/* perf's FUTEX_WAKE of futex2 fails on PI waiters (-EINVAL): they pass
			 * futex2 on to each other by unlocking it */
			break;
		}
		w->woken2 += t->walk.woken;
		if (run_in_window(w))
			w->woken += t->walk.woken;
		if (w->woken2 < p->blocked && t->walk.woken) {
			waker_call(w, t);
			return;
		}
		break;
	}
	w->wakers_done++;
	task_stop(ts, t);
	run_over(w);
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	const struct perfwake_params *p = params;
	const struct perfwake *w = state;
	const char *scope = p->up.shared ? "shared" : "private";
	/* perf's %p of its futexes: here their simulated addresses */
	unsigned long long f1 = w ? (unsigned long long)w->f1->w.uaddr : 0, f2 = w ? (unsigned long long)w->f2->w.uaddr : 0;

	(void)secs;
	switch (p->suite) {
	case SUITE_WAKE:
		fprintf(out, "Run summary [PID 0]: blocking on %u threads (at [%s] futex 0x%llx), waking up %u at a time.\n\n",
			p->blocked, scope, f1, p->nwake);
		break;
	case SUITE_WAKE_PARALLEL:
		fprintf(out,
			"Run summary [PID 0]: blocking on %u threads (at [%s] futex 0x%llx), %u threads waking up %u at "
			"a time.\n\n",
			p->blocked, scope, f1, p->wakers, p->blocked / p->wakers);
		break;
	case SUITE_REQUEUE:
		fprintf(out, "Run summary [PID 0]: Requeuing %u threads (from [%s] 0x%llx to %s0x%llx), %u at a time.\n\n",
			p->blocked, scope, f1, p->pi ? "PI " : "", f2, p->nrequeue);
		break;
	}
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	(void)state;
	fprintf(out, "[thread %2u] cpu %u: wake-ups [ %llu ops/sec ]\n", t->id, t->cpu, (unsigned long long)ops_per_sec);
}

/* perf's avg_stats and rel_stddev_stats (tools/perf/util/stat.c): the mean, and
 * the standard error of the mean in percent of it. */
static void perf_stats(const double *v, size_t n, double *mean, double *rel_pct)
{
	double sd = n > 1 ? gsl_stats_sd(v, 1, n) : 0;

	*mean = n ? gsl_stats_mean(v, 1, n) : 0;
	*rel_pct = *mean ? 100 * sd / sqrt((double)n) / *mean : 0;
}

/* The lines perf prints per run ([Run N]: ...) or, with `summary`, its last line. */
static void print_perf(const void *state, bool summary, FILE *out)
{
	const struct perfwake *w = state;
	const struct perfwake_params *p = w->p;
	double us, pct, count, count_pct;

	if (p->suite == SUITE_WAKE_PARALLEL) {
		if (!summary) {
			for (uint32_t r = 0; r < w->nruns; r++) {
				perf_stats(w->sample_us + (size_t)r * p->wakers, p->wakers, &us, &pct);
				perf_stats(w->sample_count + (size_t)r * p->wakers, p->wakers, &count, &count_pct);
				fprintf(out, "[Run %u]: Avg per-thread latency (waking %u/%u threads) in %.4f ms (+-%.2f%%)\n",
					r + 1, (unsigned)count, p->blocked, us / 1000, pct);
			}
			return;
		}
		perf_stats(w->sample_us, w->nsamples, &us, &pct);
		perf_stats(w->sample_count, w->nsamples, &count, &count_pct);
		fprintf(out, "Avg per-thread latency (waking %u/%u threads) in %.4f ms (+-%.2f%%)\n", (unsigned)count,
			p->blocked, us / 1000, pct);
		return;
	}
	if (!summary) {
		for (uint32_t r = 0; r < w->nruns; r++)
			if (p->pi) /* perf counts one awoken per call */
				fprintf(out, "[Run %u]: Awoke and Requeued (%u+%u) of %u threads in %.4f ms\n", r + 1,
					(unsigned)w->run_calls[r], (unsigned)(w->run_count[r] - w->run_calls[r]), p->blocked,
					w->run_us[r] / 1000);
			else
				fprintf(out, "[Run %u]: %s %u of %u threads in %.4f ms\n", r + 1,
					p->suite == SUITE_WAKE ? "Wokeup" : "Requeued", (unsigned)w->run_count[r],
					p->blocked, w->run_us[r] / 1000);
		return;
	}
	perf_stats(w->run_us, w->nruns, &us, &pct);
	perf_stats(w->run_count, w->nruns, &count, &count_pct);
	fprintf(out, "%s %u of %u threads in %.4f ms (+-%.2f%%)\n", p->suite == SUITE_WAKE ? "Wokeup" : "Requeued",
		(unsigned)count, p->blocked, us / 1000, pct);
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct perfwake *w = state;
	const struct perfwake_params *p = w->p;
	double mean = 0, rel = 0, calls = 0;
	double total = gsl_histogram_sum(w->u.latency);

	for (uint32_t i = 0; i < w->u.ntasks; i++)
		calls += (double)w->u.tasks[i].futex_calls;
	workload_figure_add(out, "runs", "count", w->nruns);
	if (p->suite == SUITE_WAKE_PARALLEL) {
		perf_stats(w->sample_ps, w->nsamples, &mean, &rel);
		workload_figure_add(out, "waker_time_mean", "ps", mean);
		workload_figure_add(out, "waker_time_stderr", "percent", rel);
	} else {
		perf_stats(w->run_ps, w->nruns, &mean, &rel);
		workload_figure_add(out, "run_time_mean", "ps", mean);
		workload_figure_add(out, "run_time_stderr", "percent", rel);
	}
	workload_figure_add(out, "waiters_woken", "count", (double)w->woken);
	workload_figure_add(out, "waiters_requeued", "count", (double)w->moved);
	workload_figure_add(out, "futex_calls", "count", calls);
	workload_figure_add(out, "wakeup_latency_p50", "ps", usync_latency_quantile(&w->u, 0.50));
	workload_figure_add(out, "wakeup_latency_p90", "ps", usync_latency_quantile(&w->u, 0.90));
	workload_figure_add(out, "wakeup_latency_p99", "ps", usync_latency_quantile(&w->u, 0.99));
	workload_figure_add(out, "wakeup_latency_mean", "ps", total > 0 ? gsl_histogram_mean(w->u.latency) : 0);
	if (p->pi)
		workload_figure_add(out, "mutual_exclusion_violations", "count", (double)w->violations);
	out->nbins = (uint32_t)gsl_histogram_bins(w->u.latency);
	out->edges = w->u.latency->range;
	out->counts = w->u.latency->bin;
}

/* What setup allocates and maps (sim/estimate.h); keep in step with setup. */
static void size(const void *params, struct workload_size *out)
{
	const struct perfwake_params *p = params;

	out->processes = 1;
	out->max_process_threads = p->pp.threads + 1;
	out->user_lines = 3;
	out->targets = 2;
	out->bytes = usync_bytes(p->pp.threads, 2, 0, p->pi) + (uint64_t)p->runs * (4 + 3ull * p->wakers) * sizeof(double);
}

/* Tasks: the blocked threads, then the wakers (perf's main thread in wake and requeue). */
static const char *role(const void *state, const struct task *t)
{
	const struct perfwake *w = state;

	return t->id - w->first < w->p->blocked ? "blocked" : "waker";
}

#define PERFWAKE_TYPE(var, type_name, parser, what)                                                                   \
	const struct workload_type var = {                                                                            \
		.name = type_name,                                                                                    \
		.description = what,                                                                                  \
		.parse = parser,                                                                                      \
		.ntasks = ntasks,                                                                                     \
		.nthreads = nthreads,                                                                                 \
		.setup = setup,                                                                                       \
		.program_done = program_done,                                                                         \
		.print_header = print_header,                                                                         \
		.print_thread = print_thread,                                                                         \
		.role = role,                                                                                         \
		.print_perf = print_perf,                                                                             \
		.figures = figures,                                                                                   \
		.free_state = free_state,                                                                             \
		.free_params = procset_params_release,                                                                \
		.size = size,                                                                                         \
	}

PERFWAKE_TYPE(workload_wake, "wake", parse_wake,
	      "perf bench futex wake: threads blocked on one futex, woken by FUTEX_WAKE nwake at a time, per run");
PERFWAKE_TYPE(workload_wake_parallel, "wake-parallel", parse_wake_parallel,
	      "perf bench futex wake-parallel: waker threads each wake their share of the blocked threads at once");
PERFWAKE_TYPE(workload_requeue, "requeue", parse_requeue,
	      "perf bench futex requeue: blocked threads moved by FUTEX_CMP_REQUEUE to a second futex, then woken");
