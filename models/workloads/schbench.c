/* SPDX-License-Identifier: MIT */
#include "models/workloads/schbench.h"

#include <stdlib.h>
#include <string.h>

#include "models/procset.h"
#include "models/usync.h"
#include "models/world.h"
#include "sim/core/config.h"

#define MAX_THREADS (1u << 16)
#define RECORD_BYTES (1ull << 20) /* a thread's record: about 1 MiB (a pipe buffer in it) */
#define WORD_OFFSET 64u           /* its futex word */
#define LIST_OFFSET 128u          /* [A] a message thread's list head */

struct schbench_params {
	struct procset_params pp; /* pp.threads: the message threads, then their workers */
	struct usync_params up;
	uint32_t msg, workers;    /* message threads; workers per message thread */
	simtime_t request_ps;
	bool pin_auto;            /* -M auto: workers may run on every listed CPU (else pinned) */
};

/* What a thread's current program is (its next step when it completes). */
enum phase {
	W_CLEAR, W_PUSH, W_POST, W_POST_WAKE, W_WAIT, W_SLEEP,  /* a worker */
	M_CLEAR, M_TAKE, M_POST, M_POST_WAKE, M_WAIT, M_SLEEP   /* a message thread */
};

struct schbench {
	const struct world *world;
	const struct schbench_params *p;
	struct procset ps;
	struct usync u;
	uint32_t first;          /* the process's first task */
	uint8_t *phase;          /* per thread */
	simtime_t *stamp;        /* per worker: the pass timestamp its message thread gave it */
	uint32_t *list, *nlist;  /* per message thread: its list (a stack of workers) and length */
	uint32_t *batch, *nbatch, *next; /* per message thread: the list it took, its length, the next to post */
	uint64_t requests;       /* in the measuring window */
	uint64_t requests_all;   /* since the start: schbench's counter is never reset */
	struct cpu_mask workers_cpus; /* -M auto: where the workers may run */
};

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type", "cpus", "message_threads", "workers", "request", "pinning", USYNC_KEYS,
					    NULL };
	static const char *const pinnings[] = { "auto", "spread", NULL };
	int pinning;
	struct schbench_params *p = calloc(1, sizeof(*p));
	const struct yt_node *cpus = yt_get(n, "cpus");

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0 || usync_parse(n, &p->up, e) < 0 ||
	    (cpus && cfg_expect(cpus, YT_SCALAR, "cpus", e) < 0) ||
	    machine_parse_cpulist(m, cpus ? cpus->scalar : "all", cpus ? &cpus->mark : &n->mark, &p->pp.cpus,
				  &p->pp.ncpus, e) < 0 ||
	    /* the reported run: -m 4 -t 256 */
	    cfg_get_u32(n, "message_threads", 4, 1, 1024, &p->msg, e) < 0 ||
	    cfg_get_u32(n, "workers", 256, 1, MAX_THREADS, &p->workers, e) < 0 ||
	    /* [A] -n 0 -s 0: a request is two gettimeofday calls through the vDSO */
	    cfg_get_duration(n, "request", 50 * PS_PER_US / 1000, 0, PS_PER_S, &p->request_ps, e) < 0 ||
	    cfg_get_enum(n, "pinning", pinnings, 0, &pinning, e) < 0)
		return -1;
	p->pin_auto = pinning == 0;
	if ((uint64_t)p->msg * (p->workers + 1) > MAX_THREADS)
		return fs_fail_at(e, &n->mark, "workload: %u message threads x (%u workers + 1) is more than %u threads",
				  p->msg, p->workers, MAX_THREADS);
	p->pp.threads = p->msg * (p->workers + 1);
	p->pp.processes = 1;
	p->pp.start_skew = PS_PER_US; /* as procset's default */
	p->pp.create_interval = 50 * PS_PER_US;
	return 0;
}

static void free_state(void *state)
{
	struct schbench *w = state;

	if (!w)
		return;
	usync_free(&w->u);
	procset_free(&w->ps);
	free(w->phase);
	free(w->stamp);
	free(w->list);
	free(w->nlist);
	free(w->batch);
	free(w->nbatch);
	free(w->next);
	free(w);
}

/* Tasks: message threads 0..msg-1, then message thread g's workers. */
static bool is_msg(const struct schbench *w, const struct task *t)
{
	return t->id - w->first < w->p->msg;
}

static const char *role(const void *state, const struct task *t)
{
	return is_msg(state, t) ? "message" : "worker";
}

static uint32_t group_of(const struct schbench *w, const struct task *t)
{
	uint32_t i = t->id - w->first;

	return i < w->p->msg ? i : (i - w->p->msg) / w->p->workers;
}

/* usync's futexes: the threads' words in task order, then the list heads. */
static struct usync_futex *word_of(struct schbench *w, uint32_t task)
{
	return &w->u.mutexes[task - w->first].f;
}

static struct usync_futex *list_of(struct schbench *w, uint32_t g)
{
	return &w->u.mutexes[w->p->pp.threads + g].f;
}

static void step(struct schbench *w, struct task *t, enum phase ph)
{
	struct usync *u = &w->u;
	uint32_t g = group_of(w, t);
	struct usync_futex *own = word_of(w, t->id), *msg = word_of(w, w->first + g);

	w->phase[t->id - w->first] = (uint8_t)ph;
	switch (ph) {
	case W_CLEAR: /* the request, then a new one: its word to 0 */
		usync_user_atomic(u, t, UP_XCHG, own, 0, 0, w->p->request_ps);
		break;
	case W_PUSH:
		usync_user_atomic(u, t, UP_XCHG, list_of(w, g), 0, 0, 0);
		break;
	case W_POST:
	case M_POST:
		usync_user_atomic(u, t, UP_CAS, ph == W_POST ? msg : word_of(w, w->batch[g * w->p->workers + w->next[g]]), 0, 1, 0);
		break;
	case W_POST_WAKE:
		usync_futex_wake(u, t, msg, 1);
		break;
	case M_POST_WAKE:
		usync_futex_wake(u, t, word_of(w, w->batch[g * w->p->workers + w->next[g]]), 1);
		break;
	case W_WAIT:
	case M_WAIT:
		usync_user_atomic(u, t, UP_CAS, own, 1, 0, 0);
		break;
	case W_SLEEP:
	case M_SLEEP:
		usync_futex_wait(u, t, own, 0);
		break;
	case M_CLEAR:
		usync_user_atomic(u, t, UP_XCHG, own, 0, 0, 0);
		break;
	case M_TAKE:
		usync_user_atomic(u, t, UP_XCHG, list_of(w, g), 0, 0, 0);
		break;
	}
}

/* The message thread posts its next listed worker, or waits when none is left. */
static void post_next(struct schbench *w, struct task *t, uint32_t g)
{
	step(w, t, w->next[g] < w->nbatch[g] ? M_POST : M_WAIT);
}

static void program_done(void *state, struct task *t)
{
	struct schbench *w = state;
	struct tasks *ts = w->world->tasks;
	uint32_t g = group_of(w, t), me = t->id - w->first;

	switch ((enum phase)w->phase[me]) {
	case W_CLEAR:
		step(w, t, W_PUSH);
		return;
	case W_PUSH:
		w->list[g * w->p->workers + w->nlist[g]++] = t->id;
		step(w, t, W_POST);
		return;
	case W_POST:
		step(w, t, t->call.old_value == 0 ? W_POST_WAKE : W_WAIT);
		return;
	case W_POST_WAKE:
	case W_SLEEP:
		step(w, t, W_WAIT);
		return;
	case W_WAIT:
		if (t->call.old_value != 1) {
			step(w, t, W_SLEEP);
			return;
		}
		/* handed a request: its wake-up latency, then the request */
		if (task_in_window(ts, t)) {
			gsl_histogram_increment(w->u.latency, (double)(t->clock - w->stamp[me]));
			w->requests++;
		}
		if (t->clock < ts->window_end)
			w->requests_all++;
		task_count_op(ts, t);
		step(w, t, W_CLEAR);
		return;
	case M_CLEAR:
		step(w, t, M_TAKE);
		return;
	case M_TAKE:
		/* the whole list, most recent first; one timestamp for the pass */
		w->nbatch[g] = w->nlist[g];
		w->next[g] = 0;
		for (uint32_t i = 0; i < w->nlist[g]; i++) {
			uint32_t worker = w->list[g * w->p->workers + w->nlist[g] - 1 - i];

			w->batch[g * w->p->workers + i] = worker;
			w->stamp[worker - w->first] = t->clock;
		}
		w->nlist[g] = 0;
		post_next(w, t, g);
		return;
	case M_POST:
		if (t->call.old_value == 0) {
			step(w, t, M_POST_WAKE);
			return;
		}
		w->next[g]++;
		post_next(w, t, g);
		return;
	case M_POST_WAKE:
		w->next[g]++;
		post_next(w, t, g);
		return;
	case M_SLEEP:
		step(w, t, M_WAIT);
		return;
	case M_WAIT:
		step(w, t, t->call.old_value == 1 ? M_CLEAR : M_SLEEP);
		return;
	}
}

static void thread_started(void *ctx, struct task *t)
{
	struct schbench *w = ctx;

	t->uncounted = true;
	step(w, t, is_msg(w, t) ? M_CLEAR : W_CLEAR);
	task_start(w->world->tasks, t, t->clock);
}

static bool publish(void *ctx, uint32_t pid)
{
	return usync_publish(&((struct schbench *)ctx)->u, pid);
}

/* The records in schbench's order, [message thread g, its workers] per group. */
static int place(struct schbench *w, struct fs_error *e)
{
	const struct schbench_params *p = w->p;
	uint64_t base;
	uint32_t object;

	if (usync_alloc(&w->u, 0, (uint64_t)p->pp.threads * RECORD_BYTES, "schbench thread records", "record", &base,
			&object, e) < 0)
		return -1;
	for (uint32_t g = 0; g < p->msg; g++) {
		uint64_t rec = base + (uint64_t)g * (p->workers + 1) * RECORD_BYTES;

		if (usync_place(&w->u, word_of(w, w->first + g), 0, rec + WORD_OFFSET, object, g * (p->workers + 1), e) < 0 ||
		    usync_place(&w->u, list_of(w, g), 0, rec + LIST_OFFSET, object, g * (p->workers + 1), e) < 0)
			return -1;
		for (uint32_t k = 0; k < p->workers; k++)
			if (usync_place(&w->u, word_of(w, w->first + p->msg + g * p->workers + k), 0,
					rec + (1ull + k) * RECORD_BYTES + WORD_OFFSET, object, g * (p->workers + 1) + 1 + k,
					e) < 0)
				return -1;
	}
	return 0;
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct schbench_params *p = params;
	struct schbench *w = calloc(1, sizeof(*w));
	size_t slots = (size_t)p->msg * p->workers;

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	w->phase = calloc(p->pp.threads, sizeof(*w->phase));
	w->stamp = calloc(p->pp.threads, sizeof(*w->stamp));
	w->list = calloc(slots, sizeof(*w->list));
	w->batch = calloc(slots, sizeof(*w->batch));
	w->nlist = calloc(p->msg, sizeof(*w->nlist));
	w->nbatch = calloc(p->msg, sizeof(*w->nbatch));
	w->next = calloc(p->msg, sizeof(*w->next));
	if (!w->phase || !w->stamp || !w->list || !w->batch || !w->nlist || !w->nbatch || !w->next)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (procset_init(&w->ps, world, &p->pp, !p->up.shared, &ops, w, e) < 0 ||
	    usync_init(&w->u, world, &w->ps, p->pp.threads + p->msg, 0, false, &p->up, e) < 0)
		return -1;
	w->first = world->ft->procs[0].first_task;
	if (place(w, e) < 0)
		return -1;
	if (p->pin_auto) {
		/* -M auto pins message thread i to CPU i; its pinning function means to give
		 * the workers the other CPUs but, reusing a loop variable, gives them all of
		 * them (schbench.c of 2025-2026): they go where their wake-ups put them */
		for (uint32_t i = 0; i < p->pp.ncpus; i++)
			cpu_mask_set(&w->workers_cpus, p->pp.cpus[i]);
		for (uint32_t i = w->first + p->msg; i < w->first + p->pp.threads; i++)
			world->tasks->v[i].sched.allowed = &w->workers_cpus;
	}
	return usync_start(&w->u, &w->ps, e);
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	const struct schbench_params *p = params;

	(void)state;
	fprintf(out, "schbench -L -m %u -t %u -n 0 -s 0 (simulated): %u workers, %.6g secs\n\n", p->msg, p->workers,
		p->msg * p->workers, secs);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	const struct schbench *w = state;

	fprintf(out, "[thread %4u] cpu %u: %s [ %llu requests/sec ]\n", t->id, t->cpu,
		is_msg(w, t) ? "message thread" : "worker", (unsigned long long)ops_per_sec);
}

/* schbench's `average rps`: every request since the start over the whole run, the
 * warm-up included (its counter is never reset; schbench.c of 2025-2026). */
static double average_rps(const struct schbench *w)
{
	double secs = (double)w->world->tasks->window_end / 1e12;

	return secs > 0 ? (double)w->requests_all / secs : 0;
}

/* schbench's report: wake-up latency percentiles in microseconds, average rps. */
static void print_perf(const void *state, bool summary, FILE *out)
{
	const struct schbench *w = state;
	static const double pct[] = { 50.0, 90.0, 99.0, 99.9 };
	double n = gsl_histogram_sum(w->u.latency);
	double secs = (double)(w->world->tasks->window_end - w->world->tasks->window_start) / 1e12;

	if (!summary)
		return;
	fprintf(out, "Wakeup Latencies percentiles (usec) runtime %.6g (s) (%.0f total samples)\n", secs, n);
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		fprintf(out, "\t%s%4.1fth: %.0f\n", pct[i] == 99.0 ? "* " : "  ", pct[i],
			usync_latency_quantile(&w->u, pct[i] / 100) / 1e6);
	fprintf(out, "average rps: %.2f\n", average_rps(w));
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct schbench *w = state;
	double calls = 0, secs = (double)(w->world->tasks->window_end - w->world->tasks->window_start) / 1e12;

	for (uint32_t i = 0; i < w->u.ntasks; i++)
		calls += (double)w->u.tasks[i].futex_calls;
	workload_figure_add(out, "requests", "count", (double)w->requests);
	workload_figure_add(out, "rps", "ops/s", secs > 0 ? (double)w->requests / secs : 0);
	workload_figure_add(out, "average_rps", "ops/s", average_rps(w));
	workload_figure_add(out, "futex_calls_per_request", "ratio", w->requests ? calls / (double)w->requests : 0);
	workload_figure_add(out, "wakeup_latency_p50", "ps", usync_latency_quantile(&w->u, 0.50));
	workload_figure_add(out, "wakeup_latency_p90", "ps", usync_latency_quantile(&w->u, 0.90));
	workload_figure_add(out, "wakeup_latency_p99", "ps", usync_latency_quantile(&w->u, 0.99));
	workload_figure_add(out, "wakeup_latency_p999", "ps", usync_latency_quantile(&w->u, 0.999));
	out->nbins = (uint32_t)gsl_histogram_bins(w->u.latency);
	out->edges = w->u.latency->range;
	out->counts = w->u.latency->bin;
}

/* What setup allocates and maps (sim/estimate.h); keep in step with setup. */
static void size(const void *params, struct workload_size *out)
{
	const struct schbench_params *p = params;

	out->processes = 1;
	out->max_process_threads = p->pp.threads + 1;
	out->user_lines = (uint64_t)p->pp.threads + p->msg;
	out->targets = (uint64_t)p->pp.threads + p->msg;
	out->step_work_ps = p->request_ps;
	out->bytes = usync_bytes(p->pp.threads, p->pp.threads + p->msg, 0, false) + (uint64_t)p->pp.threads * 9 +
		     (uint64_t)p->msg * p->workers * 8 + p->msg * 12ull;
}

const struct workload_type workload_schbench = {
	.name = "schbench",
	.description = "schbench -L: message threads hand requests to workers through per-thread futex words",
	.parse = parse,
	.ntasks = procset_params_threads,
	.nthreads = procset_params_threads,
	.setup = setup,
	.program_done = program_done,
	.print_header = print_header,
	.print_thread = print_thread,
	.role = role,
	.print_perf = print_perf,
	.figures = figures,
	.free_state = free_state,
	.free_params = procset_params_release,
	.size = size,
};
