/* SPDX-License-Identifier: MIT */
#include "models/workloads/lockpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/procset.h"
#include "models/usync.h"
#include "models/world.h"
#include "sim/core/config.h"

/* [A] perf -M's per-thread calloc(1, 4)s, made between pthread_create() calls, as
 * far apart as perf 6.1 with glibc 2.36 put them on the machine the tests run on
 * (0x2b0 bytes: pthread_create's own allocations lie between): no two share a line */
#define CALLOC_STRIDE 688u

struct lockpi_params {
	struct procset_params pp;
	struct usync_params up;
	bool multi;
	simtime_t usleep_ps, slack_ps;
};

enum lockpi_phase { LP_LOCK, LP_NAP, LP_UNLOCK };

struct lockpi {
	const struct world *world;
	const struct lockpi_params *p;
	struct procset ps;
	struct usync u;
	struct uop nap;          /* usleep(1): a timed sleep of the task's work_ps */
	uint8_t *phase;          /* per task: enum lockpi_phase of the program it runs */
	simtime_t *lock_called;  /* per task: when its FUTEX_LOCK_PI began */
	uint32_t *owner;         /* per futex: the thread the workload saw take it, or USYNC_NONE */
	uint64_t pairs, violations;
};

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type", PROCSET_KEYS, USYNC_KEYS, "multi", "usleep", "timer_slack", NULL };
	struct lockpi_params *p = calloc(1, sizeof(*p));

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0 || procset_parse(n, m, &p->pp, e) < 0 ||
	    usync_parse(n, &p->up, e) < 0 || cfg_get_bool(n, "multi", false, &p->multi, e) < 0 ||
	    /* perf's usleep(1) */
	    cfg_get_duration(n, "usleep", PS_PER_US, 0, PS_PER_S, &p->usleep_ps, e) < 0 ||
	    /* a SCHED_OTHER task's default timer slack, 50 us (prctl(2), PR_SET_TIMERSLACK) */
	    cfg_get_duration(n, "timer_slack", 50 * PS_PER_US, 0, PS_PER_S, &p->slack_ps, e) < 0)
		return -1;
	if (p->pp.processes != 1)
		return fs_fail_at(e, &yt_get(n, "processes")->mark,
				  "processes: perf bench futex lock-pi runs in one process");
	return 0;
}

static void free_state(void *state)
{
	struct lockpi *w = state;

	if (!w)
		return;
	usync_free(&w->u);
	procset_free(&w->ps);
	free(w->phase);
	free(w->lock_called);
	free(w->owner);
	free(w);
}

static uint32_t futex_of(const struct lockpi *w, const struct task *t)
{
	return w->p->multi ? t->id - w->world->ft->procs[0].first_task : 0;
}

static void lock(struct lockpi *w, struct task *t)
{
	w->phase[t->id] = LP_LOCK;
	w->lock_called[t->id] = t->clock;
	usync_futex_lock_pi(&w->u, t, &w->u.mutexes[futex_of(w, t)].f);
}

static void thread_started(void *ctx, struct task *t)
{
	struct lockpi *w = ctx;

	t->uncounted = true;
	lock(w, t);
	task_start(w->world->tasks, t, t->clock);
}

static bool publish(void *ctx, uint32_t pid)
{
	return usync_publish(&((struct lockpi *)ctx)->u, pid);
}

static int place_futexes(struct lockpi *w, uint32_t nfutex, struct fs_error *e)
{
	uint64_t base;
	uint32_t object, pi_object;
	static const char *const no_fields[] = { NULL };

	if (usync_alloc(&w->u, 0, (uint64_t)nfutex * CALLOC_STRIDE, w->p->multi ? "per-thread futexes" : "global_futex",
			"futex word", &base, &object, e) < 0)
		return -1;
	pi_object = memmap_object(w->world->mem, "pi_state", "pi_state", no_fields);
	if (pi_object == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t i = 0; i < nfutex; i++)
		if (usync_place(&w->u, &w->u.mutexes[i].f, 0, base + (uint64_t)i * CALLOC_STRIDE, object, i, e) < 0 ||
		    usync_place_pi_state(&w->u, &w->u.mutexes[i].f, 0, pi_object, i, e) < 0)
			return -1;
	return 0;
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct lockpi_params *p = params;
	struct lockpi *w = calloc(1, sizeof(*w));
	uint32_t nfutex = p->multi ? p->pp.threads : 1;

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	w->nap = (struct uop){ .kind = UOP_NAP, .operand = OPND_NONE };
	w->phase = calloc(world->tasks->n, sizeof(*w->phase));
	w->lock_called = calloc(world->tasks->n, sizeof(*w->lock_called));
	w->owner = malloc(nfutex * sizeof(*w->owner));
	if (!w->phase || !w->lock_called || !w->owner)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t i = 0; i < nfutex; i++)
		w->owner[i] = USYNC_NONE;
	if (procset_init(&w->ps, world, &p->pp, !p->up.shared, &ops, w, e) < 0 ||
	    usync_init(&w->u, world, &w->ps, nfutex, 0, true, &p->up, e) < 0 || place_futexes(w, nfutex, e) < 0)
		return -1;
	return usync_start(&w->u, &w->ps, e);
}

static void program_done(void *state, struct task *t)
{
	struct lockpi *w = state;
	struct tasks *ts = w->world->tasks;
	uint32_t f = futex_of(w, t);
	struct futex_word *word = &w->u.mutexes[f].f.w;

	switch (w->phase[t->id]) {
	case LP_LOCK:
		/* FUTEX_LOCK_PI returned: the word must be ours, and nobody else's */
		if ((word->value & FUTEX_TID_MASK) != t->id + 1 || w->owner[f] != USYNC_NONE) {
			w->violations++;
#ifdef FUTEXSIM_DEBUG
			fprintf(stderr, "futexsim: PI futex %u returned to task %u; word %#x, owner %u\n", f, t->id,
				word->value, w->owner[f]);
			abort();
#endif
		}
		w->owner[f] = t->id;
		if (task_in_window(ts, t))
			gsl_histogram_increment(w->u.latency, (double)(t->clock - w->lock_called[t->id]));
		/* usleep(1), holding it */
		w->phase[t->id] = LP_NAP;
		t->prog = &w->nap;
		t->nuops = 1;
		t->call.work_ps = w->p->usleep_ps + w->p->slack_ps;
		return;
	case LP_NAP:
		w->phase[t->id] = LP_UNLOCK;
		w->owner[f] = USYNC_NONE;
		usync_futex_unlock_pi(&w->u, t, &w->u.mutexes[f].f);
		return;
	default: /* LP_UNLOCK */
		if (task_in_window(ts, t))
			w->pairs++;
		task_count_op(ts, t);
		if (procset_exiting(&w->ps, t))
			return;
		lock(w, t);
	}
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	const struct lockpi_params *p = params;

	(void)state;
	/* futex-lock-pi.c: the seconds as whole ones (bench__runtime) */
	fprintf(out, "Run summary [PID 0]: %u threads doing pi lock/unlock pairing for %d secs.\n\n", p->pp.threads,
		(int)secs);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	const struct lockpi *w = state;

	fprintf(out, "[thread %3u] futex: 0x%llx [ %llu ops/sec ]\n", t->id,
		(unsigned long long)w->u.mutexes[futex_of(w, t)].f.w.uaddr, (unsigned long long)ops_per_sec);
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct lockpi *w = state;
	double n = gsl_histogram_sum(w->u.latency), calls = 0, handoffs = 0;

	for (uint32_t i = 0; i < w->u.ntasks; i++) {
		calls += (double)w->u.tasks[i].futex_calls;
		/* a PI waiter is woken only by the unlock that hands it the word */
		handoffs += (double)w->world->tasks->v[i].stats.wakeups;
	}
	workload_figure_add(out, "lock_unlock_pairs", "count", (double)w->pairs);
	workload_figure_add(out, "handoffs", "count", handoffs);
	workload_figure_add(out, "futex_calls", "count", calls);
	workload_figure_add(out, "lock_latency_p50", "ps", usync_latency_quantile(&w->u, 0.50));
	workload_figure_add(out, "lock_latency_p90", "ps", usync_latency_quantile(&w->u, 0.90));
	workload_figure_add(out, "lock_latency_p99", "ps", usync_latency_quantile(&w->u, 0.99));
	workload_figure_add(out, "lock_latency_mean", "ps", n > 0 ? gsl_histogram_mean(w->u.latency) : 0);
	workload_figure_add(out, "mutual_exclusion_violations", "count", (double)w->violations);
	out->nbins = (uint32_t)gsl_histogram_bins(w->u.latency);
	out->edges = w->u.latency->range;
	out->counts = w->u.latency->bin;
}

/* What setup allocates and maps (sim/estimate.h); keep in step with setup. */
static void size(const void *params, struct workload_size *out)
{
	const struct lockpi_params *p = params;
	uint32_t nfutex = p->multi ? p->pp.threads : 1;

	out->processes = 1;
	out->max_process_threads = p->pp.threads + 1;
	out->user_lines = (uint64_t)nfutex * CALLOC_STRIDE / 64 + 3;
	out->targets = nfutex;
	out->step_work_ps = p->usleep_ps + p->slack_ps;
	out->bytes = usync_bytes(p->pp.threads, nfutex, 0, true) + (uint64_t)p->pp.threads * 9 + nfutex * 4ull +
		     nfutex * 128ull;
}

const struct workload_type workload_lockpi = {
	.name = "lock-pi",
	.description = "perf bench futex lock-pi: FUTEX_LOCK_PI, usleep(1), FUTEX_UNLOCK_PI on one futex (or one each)",
	.parse = parse,
	.ntasks = procset_params_threads,
	.nthreads = procset_params_threads,
	.setup = setup,
	.program_done = program_done,
	.print_header = print_header,
	.print_thread = print_thread,
	.figures = figures,
	.free_state = free_state,
	.free_params = procset_params_release,
	.size = size,
};
