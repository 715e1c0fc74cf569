/* SPDX-License-Identifier: MIT */
#include "models/workloads/condvar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/distribution.h"
#include "models/procset.h"
#include "models/usync.h"
#include "models/world.h"
#include "sim/core/config.h"

#define MAX_GROUPS (1u << 16)
#define GROUP_BYTES 128u /* a group's struct: mutex (40 B), conditions (48 B each) */
#define COND_OFFSET 40u
#define COND_BYTES 48u   /* sizeof(pthread_cond_t) */

enum pattern { PAT_BARRIER, PAT_PRODCONS };
static const char *const pattern_names[] = { "barrier", "producer-consumer", NULL };
static const char *const broadcast_names[] = { "wake-all", "requeue", NULL };

/* The conditions of a group. */
enum { COND_BARRIER = 0, COND_NOT_EMPTY = 0, COND_NOT_FULL = 1 };

struct condvar_params {
	struct procset_params pp;
	struct usync_params up;
	int pattern;
	bool requeue;
	uint32_t groups;
	uint32_t producers;    /* per group; UINT32_MAX = half of it */
	uint32_t capacity;
	struct distribution work, critical;
	uint64_t rounds;       /* ops per thread; 0 = unlimited */
};

/* What a thread does: the protocol in progress says where it is. */
enum stage {
	ST_LOCK,     /* taking the group's mutex */
	ST_WAIT,     /* waiting on a condition (holds the mutex when it returns) */
	ST_NOTIFY,   /* broadcast or signal */
	ST_UNLOCK    /* releasing the mutex: then the op is done */
};

enum role { ROLE_BARRIER, ROLE_PRODUCER, ROLE_CONSUMER };

struct group {
	uint32_t first;        /* its first thread */
	uint32_t members;
	uint32_t count;        /* barrier: arrived; queue: items in it */
	uint32_t generation;   /* barrier */
	uint64_t broadcasts;   /* in the window */
	uint64_t woken, moved; /* by those broadcasts */
};

struct thread_state {
	uint8_t stage, role;
	uint32_t group;
	uint32_t generation;   /* the barrier generation it waits to see pass */
	uint64_t ops;          /* all, for `rounds` */
};

struct condvar_wl {
	const struct world *world;
	const struct condvar_params *p;
	struct procset ps;
	struct usync u;
	struct group *groups;
	struct thread_state *th;
};

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type",	 PROCSET_KEYS, USYNC_KEYS, "pattern", "groups",   "broadcast",
					    "producers", "capacity",   "work",	   "critical", "rounds", NULL };
	struct condvar_params *p = calloc(1, sizeof(*p));
	int broadcast;

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0 || procset_parse(n, m, &p->pp, e) < 0 ||
	    usync_parse(n, &p->up, e) < 0 || cfg_get_enum(n, "pattern", pattern_names, PAT_BARRIER, &p->pattern, e) < 0 ||
	    cfg_get_u32(n, "groups", 1, 1, MAX_GROUPS, &p->groups, e) < 0 ||
	    cfg_get_enum(n, "broadcast", broadcast_names, 0, &broadcast, e) < 0 ||
	    cfg_get_u32(n, "producers", UINT32_MAX, 1, UINT32_MAX, &p->producers, e) < 0 ||
	    cfg_get_u32(n, "capacity", 16, 1, UINT32_MAX, &p->capacity, e) < 0 ||
	    /* [A] defaults: work between barriers or per item, a short critical section */
	    distribution_get(n, "work", (struct distribution){ DIST_EXPONENTIAL, 10 * PS_PER_US, 0, 0 }, &p->work, e) <
		    0 ||
	    distribution_get(n, "critical", (struct distribution){ DIST_FIXED, 100 * PS_PER_US / 1000, 0, 0 },
			     &p->critical, e) < 0 ||
	    cfg_get_u64(n, "rounds", 0, 0, UINT64_MAX, &p->rounds, e) < 0)
		return -1;
	p->requeue = broadcast == 1;
	if (p->groups > p->pp.threads)
		return fs_fail_at(e, &yt_get(n, "groups")->mark, "groups: %u groups for %u threads (each needs one)",
				  p->groups, p->pp.threads);
	/* private objects: a group's threads must be one process's */
	if (!p->up.shared && p->groups % p->pp.processes)
		return fs_fail_at(e, &n->mark,
				  "workload: %u groups cannot be split evenly over %u processes (make groups a "
				  "multiple of processes, or set shared: true)",
				  p->groups, p->pp.processes);
	if (p->pattern == PAT_PRODCONS) {
		uint32_t smallest = p->pp.threads / p->groups;

		if (smallest < 2)
			return fs_fail_at(e, &n->mark,
					  "workload: a producer-consumer group needs 2 threads (a producer and a "
					  "consumer); %u threads in %u groups",
					  p->pp.threads, p->groups);
		if (p->producers != UINT32_MAX && p->producers >= smallest)
			return fs_fail_at(e, &yt_get(n, "producers")->mark,
					  "producers: %u producers leave no consumer in a group of %u threads",
					  p->producers, smallest);
	}
	return 0;
}

static void free_state(void *state)
{
	struct condvar_wl *w = state;

	if (!w)
		return;
	usync_free(&w->u);
	procset_free(&w->ps);
	free(w->groups);
	free(w->th);
	free(w);
}

/* Group g's mutex and condition c, as usync indices. */
static uint32_t mutex_of(uint32_t g)
{
	return g;
}

static uint32_t cond_of(uint32_t g, uint32_t c)
{
	return g * 2 + c;
}

/* Thread i's group: groups are consecutive blocks of threads, like processes. */
static uint32_t group_of(const struct condvar_params *p, uint32_t i)
{
	return (uint32_t)((uint64_t)i * p->groups / p->pp.threads);
}

static uint32_t group_process(const struct condvar_wl *w, uint32_t g)
{
	/* a group's struct lives with its first thread */
	return w->world->tasks->v[w->groups[g].first].process;
}

static int place_groups(struct condvar_wl *w, struct fs_error *e)
{
	const struct condvar_params *p = w->p;
	uint32_t arrays = p->up.shared ? 1 : p->pp.processes;

	for (uint32_t a = 0; a < arrays; a++) {
		uint64_t base;
		uint32_t object, n = 0;
		char name[64];

		for (uint32_t g = 0; g < p->groups; g++)
			n += p->up.shared || group_process(w, g) == a;
		if (!n)
			continue;
		snprintf(name, sizeof(name), p->up.shared ? "shared condvar groups" : "condvar groups of process %u", a);
		if (usync_alloc(&w->u, a, (uint64_t)n * GROUP_BYTES, name, "group", &base, &object, e) < 0)
			return -1;
		n = 0;
		for (uint32_t g = 0; g < p->groups; g++) {
			uint64_t at = base + (uint64_t)n * GROUP_BYTES;
			uint32_t pid = group_process(w, g);

			if (!p->up.shared && pid != a)
				continue;
			if (usync_place(&w->u, &w->u.mutexes[mutex_of(g)].f, pid, at, object, n, e) < 0 ||
			    usync_place(&w->u, &w->u.conds[cond_of(g, 0)].seq, pid, at + COND_OFFSET, object, n, e) < 0 ||
			    usync_place(&w->u, &w->u.conds[cond_of(g, 1)].seq, pid, at + COND_OFFSET + COND_BYTES, object,
					n, e) < 0)
				return -1;
			n++;
		}
	}
	return 0;
}

static void lock(struct condvar_wl *w, struct task *t, simtime_t work)
{
	w->th[t->id].stage = ST_LOCK;
	usync_lock(&w->u, t, mutex_of(w->th[t->id].group), work);
}

static void unlock(struct condvar_wl *w, struct task *t)
{
	w->th[t->id].stage = ST_UNLOCK;
	usync_unlock(&w->u, t, 0);
}

static void wait(struct condvar_wl *w, struct task *t, uint32_t c)
{
	uint32_t g = w->th[t->id].group;

	w->th[t->id].stage = ST_WAIT;
	usync_cond_wait(&w->u, t, cond_of(g, c), mutex_of(g), 0);
}

/* procset: thread t starts at its clock. */
static void thread_started(void *ctx, struct task *t)
{
	struct condvar_wl *w = ctx;

	t->uncounted = true;
	lock(w, t, distribution_sample(&w->p->work, w->world->rng));
	task_start(w->world->tasks, t, t->clock);
}

static bool publish(void *ctx, uint32_t pid)
{
	return usync_publish(&((struct condvar_wl *)ctx)->u, pid);
}

/* Holding the mutex (just taken, or back from a wait): decide. */
static void holding(struct condvar_wl *w, struct task *t)
{
	struct thread_state *th = &w->th[t->id];
	struct group *g = &w->groups[th->group];
	simtime_t cs = distribution_sample(&w->p->critical, w->world->rng);

	switch (th->role) {
	case ROLE_BARRIER:
		if (th->stage == ST_WAIT) {
			/* woken: go on only once the generation has passed (spurious wake-ups, EAGAIN) */
			if (g->generation == th->generation)
				wait(w, t, COND_BARRIER);
			else
				unlock(w, t);
			return;
		}
		if (++g->count < g->members) {
			th->generation = g->generation;
			th->stage = ST_WAIT;
			usync_cond_wait(&w->u, t, cond_of(th->group, COND_BARRIER), mutex_of(th->group), cs);
			return;
		}
		g->count = 0;
		g->generation++;
		if (task_in_window(w->world->tasks, t))
			g->broadcasts++;
		th->stage = ST_NOTIFY;
		usync_cond_broadcast(&w->u, t, cond_of(th->group, COND_BARRIER), mutex_of(th->group), w->p->requeue, cs);
		return;
	case ROLE_PRODUCER:
		if (g->count == w->p->capacity) {
			wait(w, t, COND_NOT_FULL);
			return;
		}
		g->count++;
		th->stage = ST_NOTIFY;
		usync_cond_signal(&w->u, t, cond_of(th->group, COND_NOT_EMPTY), cs);
		return;
	default:
		if (g->count == 0) {
			wait(w, t, COND_NOT_EMPTY);
			return;
		}
		g->count--;
		th->stage = ST_NOTIFY;
		usync_cond_signal(&w->u, t, cond_of(th->group, COND_NOT_FULL), cs);
		return;
	}
}

static void program_done(void *state, struct task *t)
{
	struct condvar_wl *w = state;
	struct thread_state *th = &w->th[t->id];
	struct group *g = &w->groups[th->group];

	if (!usync_step(&w->u, t))
		return;
	switch (th->stage) {
	case ST_LOCK:
	case ST_WAIT:
		holding(w, t);
		return;
	case ST_NOTIFY:
		if (th->role == ROLE_BARRIER && task_in_window(w->world->tasks, t)) {
			g->woken += t->walk.woken;
			g->moved += t->walk.moved;
		}
		unlock(w, t);
		return;
	default: /* unlocked: one barrier passed, one item put or taken */
		task_count_op(w->world->tasks, t);
		if (w->p->rounds && ++th->ops >= w->p->rounds) {
			task_stop(w->world->tasks, t);
			return;
		}
		if (procset_exiting(&w->ps, t))
			return;
		lock(w, t, distribution_sample(&w->p->work, w->world->rng));
	}
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct condvar_params *p = params;
	struct condvar_wl *w = calloc(1, sizeof(*w));

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	w->groups = calloc(p->groups, sizeof(*w->groups));
	w->th = calloc(p->pp.threads, sizeof(*w->th));
	if (!w->groups || !w->th)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t i = 0; i < p->pp.threads; i++)
		if (w->groups[group_of(p, i)].members++ == 0)
			w->groups[group_of(p, i)].first = i;
	for (uint32_t i = 0; i < p->pp.threads; i++) {
		struct thread_state *th = &w->th[i];
		const struct group *g = &w->groups[group_of(p, i)];
		uint32_t producers = p->producers == UINT32_MAX ? g->members / 2 : p->producers;

		th->group = group_of(p, i);
		th->role = p->pattern == PAT_BARRIER	  ? ROLE_BARRIER
			   : i - g->first < producers ? ROLE_PRODUCER
						      : ROLE_CONSUMER;
	}
	if (procset_init(&w->ps, world, &p->pp, !p->up.shared, &ops, w, e) < 0 ||
	    usync_init(&w->u, world, &w->ps, p->groups, 2 * p->groups, false, &p->up, e) < 0 || place_groups(w, e) < 0)
		return -1;
	return usync_start(&w->u, &w->ps, e);
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	(void)state;
	const struct condvar_params *p = params;

	if (p->pattern == PAT_BARRIER)
		fprintf(out, "Run summary: %u threads in %u barrier group(s), broadcast by %s, for %.6g secs.\n\n",
			p->pp.threads, p->groups, broadcast_names[p->requeue], secs);
	else
		fprintf(out, "Run summary: %u threads in %u producer-consumer group(s), queue of %u, for %.6g secs.\n\n",
			p->pp.threads, p->groups, p->capacity, secs);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	static const char *const what[] = { "barriers passed", "items put", "items taken" };
	const struct condvar_wl *w = state;

	fprintf(out, "[thread %2u] cpu %u: %s [ %llu ops/sec ]\n", t->id, t->cpu, what[w->th[t->id].role],
		(unsigned long long)ops_per_sec);
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct condvar_wl *w = state;
	uint64_t broadcasts = 0, woken = 0, moved = 0;

	for (uint32_t g = 0; g < w->p->groups; g++) {
		broadcasts += w->groups[g].broadcasts;
		woken += w->groups[g].woken;
		moved += w->groups[g].moved;
	}
	usync_figures(&w->u, out);
	procset_figures(&w->ps, out);
	if (w->p->pattern == PAT_BARRIER) {
		workload_figure_add(out, "broadcasts", "count", (double)broadcasts);
		workload_figure_add(out, "woken_per_broadcast", "ratio", broadcasts ? (double)woken / broadcasts : 0);
		workload_figure_add(out, "requeued_per_broadcast", "ratio", broadcasts ? (double)moved / broadcasts : 0);
	}
}

static void size(const void *params, struct workload_size *out)
{
	const struct condvar_params *p = params;

	out->processes = p->pp.processes;
	out->max_process_threads = (p->pp.threads + p->pp.processes - 1) / p->pp.processes + 1;
	out->user_lines = (uint64_t)p->groups * (GROUP_BYTES / 64 + 1) * (p->up.shared ? 2 : 1) + p->pp.processes;
	out->targets = 3ull * p->groups;
	/* a lock runs after the work between rounds or items, an unlock after the critical section */
	out->step_work_ps = (simtime_t)fmin(distribution_mean_ps(&p->work), distribution_mean_ps(&p->critical));
	out->bytes = usync_bytes(p->pp.threads, p->groups, 2 * p->groups, false) +
		     (uint64_t)p->groups * sizeof(struct group) + (uint64_t)p->pp.threads * sizeof(struct thread_state);
}

static const char *role(const void *state, const struct task *t)
{
	static const char *const names[] = { [ROLE_BARRIER] = "barrier", [ROLE_PRODUCER] = "producer",
					     [ROLE_CONSUMER] = "consumer" };
	const struct condvar_wl *w = state;

	return names[w->th[t->id].role];
}

const struct workload_type workload_condvar = {
	.name = "condvar",
	.description = "a barrier (broadcast by wake-all or requeue) or a producer-consumer queue on glibc condvars",
	.parse = parse,
	.ntasks = procset_params_threads,
	.nthreads = procset_params_threads,
	.setup = setup,
	.program_done = program_done,
	.print_header = print_header,
	.print_thread = print_thread,
	.role = role,
	.figures = figures,
	.free_state = free_state,
	.free_params = procset_params_release,
	.size = size,
};
