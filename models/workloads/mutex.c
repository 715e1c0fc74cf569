/* SPDX-License-Identifier: MIT */
#include "models/workloads/mutex.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/distribution.h"
#include "models/futex_table.h"
#include "models/procset.h"
#include "models/usync.h"
#include "models/world.h"
#include "sim/core/config.h"

#define MAX_MUTEXES (1u << 20)

enum pick { PICK_UNIFORM, PICK_ZIPF, PICK_FIXED };
static const char *const pick_names[] = { "uniform", "zipf", "fixed", NULL };

struct mutex_params {
	struct procset_params pp;
	struct usync_params up;
	uint32_t mutexes;       /* per process, or in all when shared */
	int pick;
	double zipf_exponent;
	struct distribution think, critical;
	uint32_t stride;
	uint64_t acquisitions;  /* per thread; 0 = unlimited */
};

struct mutex_wl {
	const struct world *world;
	const struct mutex_params *p;
	struct procset ps;
	struct usync u;
	gsl_ran_discrete_t *zipf;
};

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type",	    PROCSET_KEYS, USYNC_KEYS,	  "mutexes",
					    "pick",	    "zipf_exponent", "think",	    "critical",
					    "mutex_stride", "acquisitions", NULL };
	struct mutex_params *p = calloc(1, sizeof(*p));
	uint64_t zipf_milli;

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0 || procset_parse(n, m, &p->pp, e) < 0 ||
	    usync_parse(n, &p->up, e) < 0)
		return -1;
	if (cfg_get_u32(n, "mutexes", 1, 1, MAX_MUTEXES, &p->mutexes, e) < 0 ||
	    cfg_get_enum(n, "pick", pick_names, PICK_UNIFORM, &p->pick, e) < 0 ||
	    cfg_get_fixed3(n, "zipf_exponent", 1000, 0, 10000, &zipf_milli, e) < 0 ||
	    /* [A] defaults: a short critical section and a think time a few times longer */
	    distribution_get(n, "think", (struct distribution){ DIST_EXPONENTIAL, 1 * PS_PER_US, 0, 0 }, &p->think,
			     e) < 0 ||
	    distribution_get(n, "critical", (struct distribution){ DIST_FIXED, 200 * PS_PER_US / 1000, 0, 0 },
			     &p->critical, e) < 0 ||
	    /* sizeof(pthread_mutex_t) on x86-64 glibc */
	    cfg_get_u32(n, "mutex_stride", 40, 4, 4096, &p->stride, e) < 0 ||
	    cfg_get_u64(n, "acquisitions", 0, 0, UINT64_MAX, &p->acquisitions, e) < 0)
		return -1;
	p->zipf_exponent = (double)zipf_milli / 1000.0;
	if (p->stride % 4) {
		const struct yt_node *s = yt_get(n, "mutex_stride");

		return fs_fail_at(e, &s->mark, "mutex_stride: %u is not a multiple of 4 (a futex word is 4 bytes, aligned)",
				  p->stride);
	}
	if ((uint64_t)p->mutexes * p->pp.processes > MAX_MUTEXES)
		return fs_fail_at(e, &n->mark, "workload: mutexes x processes = %llu, at most %u",
				  (unsigned long long)p->mutexes * p->pp.processes, MAX_MUTEXES);
	return 0;
}

static void free_state(void *state)
{
	struct mutex_wl *w = state;

	if (!w)
		return;
	usync_free(&w->u);
	procset_free(&w->ps);
	if (w->zipf)
		gsl_ran_discrete_free(w->zipf);
	free(w);
}

/* The mutex thread t takes next: an index into its process's mutexes. */
static uint32_t pick(struct mutex_wl *w, const struct task *t)
{
	const struct mutex_params *p = w->p;
	uint32_t base = p->up.shared ? 0 : t->process * p->mutexes;

	switch (p->pick) {
	case PICK_ZIPF:
		return base + (uint32_t)gsl_ran_discrete(w->world->rng, w->zipf);
	case PICK_FIXED:
		return base + t->id % p->mutexes;
	default:
		return base + (uint32_t)gsl_rng_uniform_int(w->world->rng, p->mutexes);
	}
}

static void next_lock(struct mutex_wl *w, struct task *t)
{
	/* both draw from the run's RNG: in this order, named, not as arguments of one
	 * call, whose order C leaves to the compiler (gcc and clang differed) */
	simtime_t think = distribution_sample(&w->p->think, w->world->rng);
	uint32_t mutex = pick(w, t);

	usync_lock(&w->u, t, mutex, think);
}

/* procset: thread t starts at its clock. */
static void thread_started(void *ctx, struct task *t)
{
	struct mutex_wl *w = ctx;

	t->uncounted = true;
	next_lock(w, t);
	task_start(w->world->tasks, t, t->clock);
}

/* procset: the process's new private hash, once no op is inside the old one. */
static bool publish(void *ctx, uint32_t pid)
{
	return usync_publish(&((struct mutex_wl *)ctx)->u, pid);
}

/* The mutex arrays: one per process in its heap, or one in a shared mapping. */
static int place_mutexes(struct mutex_wl *w, struct fs_error *e)
{
	const struct mutex_params *p = w->p;
	uint32_t arrays = p->up.shared ? 1 : p->pp.processes;

	for (uint32_t a = 0; a < arrays; a++) {
		char name[64];
		uint64_t base;
		uint32_t object;

		if (p->up.shared)
			snprintf(name, sizeof(name), "shared mutexes");
		else
			snprintf(name, sizeof(name), "mutexes of process %u", a);
		if (usync_alloc(&w->u, a, (uint64_t)p->mutexes * p->stride, name, "mutex", &base, &object, e) < 0)
			return -1;
		for (uint32_t i = 0; i < p->mutexes; i++)
			if (usync_place(&w->u, &w->u.mutexes[a * p->mutexes + i].f, a, base + (uint64_t)i * p->stride,
					object, i, e) < 0)
				return -1;
	}
	return 0;
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct mutex_params *p = params;
	struct mutex_wl *w = calloc(1, sizeof(*w));

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	if (p->pick == PICK_ZIPF) {
		double *weight = malloc(p->mutexes * sizeof(*weight));

		if (!weight)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		for (uint32_t k = 0; k < p->mutexes; k++)
			weight[k] = pow(k + 1, -p->zipf_exponent);
		w->zipf = gsl_ran_discrete_preproc(p->mutexes, weight);
		free(weight);
		if (!w->zipf)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	if (procset_init(&w->ps, world, &p->pp, !p->up.shared, &ops, w, e) < 0 ||
	    usync_init(&w->u, world, &w->ps, p->mutexes * (p->up.shared ? 1 : p->pp.processes), 0, false, &p->up, e) < 0 ||
	    place_mutexes(w, e) < 0)
		return -1;
	return usync_start(&w->u, &w->ps, e);
}

static void program_done(void *state, struct task *t)
{
	struct mutex_wl *w = state;

	if (!usync_step(&w->u, t))
		return;
	if (usync_holds(&w->u, t)) {
		/* acquired: one op */
		task_count_op(w->world->tasks, t);
		usync_unlock(&w->u, t, distribution_sample(&w->p->critical, w->world->rng));
		return;
	}
	if (w->p->acquisitions && w->u.tasks[t->id].acquisitions >= w->p->acquisitions) {
		task_stop(w->world->tasks, t);
		return;
	}
	if (procset_exiting(&w->ps, t))
		return;
	next_lock(w, t);
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	(void)state;
	const struct mutex_params *p = params;

	fprintf(out, "Run summary: %u threads taking %u %s mutexes (%s pick) for %.6g secs.\n\n", p->pp.threads,
		p->mutexes, p->up.shared ? "process-shared" : "private", pick_names[p->pick], secs);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	(void)state;
	fprintf(out, "[thread %2u] cpu %u: mutex acquisitions [ %llu ops/sec ]\n", t->id, t->cpu,
		(unsigned long long)ops_per_sec);
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct mutex_wl *w = state;

	usync_figures(&w->u, out);
	procset_figures(&w->ps, out);
}

/* What setup allocates and maps (sim/estimate.h); keep in step with setup. */
static void size(const void *params, struct workload_size *out)
{
	const struct mutex_params *p = params;
	uint64_t nmutex = (uint64_t)p->mutexes * (p->up.shared ? 1 : p->pp.processes);

	out->processes = p->pp.processes;
	out->max_process_threads = (p->pp.threads + p->pp.processes - 1) / p->pp.processes + 1;
	out->user_lines = nmutex * p->stride / 64 + 2 * (p->up.shared ? 1 : p->pp.processes);
	if (p->up.shared)
		out->user_lines += nmutex * p->stride / 4096 + 1; /* struct pages */
	out->targets = nmutex;
	/* a lock's CAS runs after the think time, its unlock after the critical section */
	out->step_work_ps = (simtime_t)fmin(distribution_mean_ps(&p->think), distribution_mean_ps(&p->critical));
	out->bytes = usync_bytes(p->pp.threads, (uint32_t)nmutex, 0, false) + (p->pick == PICK_ZIPF ? p->mutexes * 24ull : 0);
}

const struct workload_type workload_mutex = {
	.name = "mutex",
	.description = "threads locking glibc mutexes: CAS, FUTEX_WAIT when contended, FUTEX_WAKE on unlock",
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
