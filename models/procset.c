/* SPDX-License-Identifier: MIT */
#include "models/procset.h"

#include <stdlib.h>
#include <string.h>

#include "models/futex_table.h"
#include "models/world.h"
#include "sim/core/config.h"

/* How long a refused publish waits before trying again: about one futex op [A]. */
#define PUBLISH_RETRY_PS 1000000ull

static void on_create(void *ctx, uint32_t i);
static void on_publish(void *ctx, uint32_t pid);
static void on_churn(void *ctx, uint32_t i);

void procset_params_free(struct procset_params *p)
{
	free(p->cpus);
	p->cpus = NULL;
}

uint32_t procset_params_threads(const void *params)
{
	return ((const struct procset_params *)params)->threads;
}

void procset_params_release(void *params)
{
	if (params)
		procset_params_free(params);
	free(params);
}

int procset_parse(const struct yt_node *n, const struct machine *m, struct procset_params *p,
		  struct fs_error *e)
{
	static const char *const thread_starts[] = { "together", "as_created", NULL };
	const struct yt_node *cpus = yt_get(n, "cpus");
	int thread_start;

	if (cpus && cfg_expect(cpus, YT_SCALAR, "cpus", e) < 0)
		return -1;
	if (machine_parse_cpulist(m, cpus ? cpus->scalar : "all", cpus ? &cpus->mark : &n->mark, &p->cpus,
				  &p->ncpus, e) < 0)
		return -1;
	if (cfg_get_u32(n, "threads", p->ncpus, 1, 1u << 16, &p->threads, e) < 0 ||
	    cfg_get_u32(n, "processes", 1, 1, 1u << 12, &p->processes, e) < 0 ||
	    cfg_get_duration(n, "start_skew", 1 * PS_PER_US, 0, PS_PER_S, &p->start_skew, e) < 0 ||
	    cfg_get_enum(n, "threads_start", thread_starts, 0, &thread_start, e) < 0 ||
	    /* pthread_create of a pinned thread, clone included [A] */
	    cfg_get_duration(n, "create_interval", 50 * PS_PER_US, 1, PS_PER_S, &p->create_interval, e) < 0 ||
	    cfg_get_duration(n, "churn_interval", 0, 0, PS_PER_S, &p->churn_interval, e) < 0)
		return -1;
	p->staggered = thread_start == 1;
	if (p->processes > p->threads) {
		const struct yt_node *q = yt_get(n, "processes");

		return fs_fail_at(e, q ? &q->mark : &n->mark, "processes: %u processes for %u threads (each needs one)",
				  p->processes, p->threads);
	}
	return 0;
}

int procset_init(struct procset *ps, const struct world *world, const struct procset_params *p, bool private_ops,
		 const struct procset_ops *ops, void *ctx, struct fs_error *e)
{
	static const char *const no_fields[] = { NULL };
	uint32_t nthreads = p->threads, nprocs = p->processes, ncpus = p->ncpus, q_object;
	const uint32_t *cpus = p->cpus;

	memset(ps, 0, sizeof(*ps));
	ps->world = world;
	ps->nprocs = nprocs;
	ps->p = p;
	ps->private_ops = private_ops;
	ps->ops = *ops;
	ps->ctx = ctx;
	ps->exit_due = calloc(nthreads, sizeof(*ps->exit_due));
	if (!ps->exit_due)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	ps->create_kind = engine_register(world->eng, on_create, ps);
	ps->publish_kind = engine_register(world->eng, on_publish, ps);
	ps->churn_kind = engine_register(world->eng, on_churn, ps);
	q_object = memmap_object(world->mem, "futex_q on the kernel stack of thread", "thread", no_fields);
	if (q_object == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t q = 0, next = 0; q < nprocs; q++) {
		uint32_t first = p->process_threads ? next : (uint32_t)((uint64_t)nthreads * q / nprocs);
		uint32_t n = p->process_threads ? p->process_threads[q]
					      : (uint32_t)((uint64_t)nthreads * (q + 1) / nprocs) - first;
		/* forked where its first thread runs: its mm, hash and memory live there */
		uint32_t home = world->m->cpu_node[cpus[first % ncpus]], pid;
		struct process *proc;

		/* started together: every thread exists before the first op (+1: main) */
		if (futex_tables_add_process(world->ft, p->staggered ? 1 : n + 1, home, &pid, e) < 0)
			return -1;
		proc = &world->ft->procs[pid];
		next = first + n;
		proc->first_task = first;
		proc->ntasks = n;
		proc->live = p->staggered ? 0 : n;
		for (uint32_t i = first; i < first + n; i++) {
			struct task *t = &world->tasks->v[i];

			t->cpu = cpus[i % ncpus];
			t->core = world->m->cpu_core[t->cpu];
			t->node = world->m->cpu_node[t->cpu];
			t->process = pid;
			/* a waiter's futex_q lives on its kernel stack, allocated on its node;
			 * a waker walking the chain reads it */
			t->wait.q_line = memmap_line(world->mem, memmap_alloc(world->mem, MEM_KERNEL_NODE, t->node, 64, 64), q_object,
						i, -1);
			if (t->wait.q_line == MEMMAP_NONE)
				return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		}
	}
	return 0;
}

void procset_free(struct procset *ps)
{
	free(ps->exit_due);
	memset(ps, 0, sizeof(*ps));
}

void procset_start(struct procset *ps)
{
	const struct world *world = ps->world;
	simtime_t skew = ps->p->start_skew;

	for (uint32_t q = 0; q < ps->nprocs; q++) {
		const struct process *hp = &world->ft->procs[q];

		for (uint32_t i = hp->first_task; i < hp->first_task + hp->ntasks; i++) {
			simtime_t at = skew ? (simtime_t)gsl_rng_uniform_int(world->rng, skew) : 0;

			if (ps->p->staggered) {
				engine_schedule(world->eng, i * ps->p->create_interval + at, ps->create_kind, i);
			} else {
				world->tasks->v[i].clock = at;
				ps->ops.thread_started(ps->ctx, &world->tasks->v[i]);
			}
		}
	}
	if (ps->p->churn_interval)
		engine_schedule(world->eng, ps->p->churn_interval, ps->churn_kind, 0);
}

void procset_create_at(struct procset *ps, uint32_t task, simtime_t at)
{
	engine_schedule(ps->world->eng, at, ps->create_kind, task);
}

/* Churn: thread i is to exit at its next op boundary; the next one's turn comes
 * an interval later. */
static void on_churn(void *ctx, uint32_t i)
{
	struct procset *ps = ctx;
	const struct world *world = ps->world;

	ps->exit_due[i] = true;
	engine_schedule(world->eng, world->eng->now + ps->p->churn_interval, ps->churn_kind, (i + 1) % ps->p->threads);
}

void procset_figures(const struct procset *ps, struct workload_figures *out)
{
	workload_figure_add(out, "threads_created", "count", (double)ps->created);
	workload_figure_add(out, "thread_exits", "count", (double)ps->exits);
}

bool procset_exiting(struct procset *ps, struct task *t)
{
	const struct world *world = ps->world;

	if (!ps->exit_due[t->id])
		return false;
	ps->exit_due[t->id] = false;
	ps->world->ft->procs[t->process].live--;
	ps->exits++;
	task_stop(world->tasks, t);
	/* pthread_create of its replacement: same CPU, same place in the workload */
	engine_schedule(world->eng, t->clock + ps->p->create_interval, ps->create_kind, t->id);
	return true;
}

bool procset_uses_atomic_mode(const struct procset *ps, uint32_t pid)
{
	const struct world *world = ps->world;

	return world->k->private_hash.refcount->switches_to_atomic && world->ft->procs[pid].phash && ps->private_ops;
}

enum prog_variant procset_variant(const struct procset *ps, const struct task *t)
{
	return ps->world->ft->procs[t->process].ref_atomic_until > ps->world->eng->now && procset_uses_atomic_mode(ps, t->process)
		       ? PROG_REF_ATOMIC
		       : PROG_NORMAL;
}

struct path_builder procset_builder(const struct procset *ps, const struct task *t, enum prog_variant v,
				    bool shared, struct uop *uops, uint32_t cap)
{
	const struct world *world = ps->world;
	const struct process *proc = &world->ft->procs[t->process];
	struct path_builder b = {
		.k = world->k,
		.m = world->m,
		.shared = shared,
		.private_hash = proc->phash != NULL && ps->private_ops,
		.mm_lines = proc->mm_lines,
		.phash_lines = proc->phash_lines,
		.percpu_ref_line = proc->percpu_ref_lines[t->cpu],
		.mmap_sem = proc->mmap_sem,
		.ref_atomic = v == PROG_REF_ATOMIC,
		.uops = uops,
		.cap = cap,
		.parts = &world->tasks->parts,
		.step = WORK_STEP_USER,
	};

	for (unsigned c = 0; c < KC_NCOSTS; c++)
		b.costs_ps[c] = fs_cost_ps(world->k->costs[c], world->m->freq_khz);
	/* a machine fitted to its own -S rows knows its shared-key path (futexsim fit) */
	if (world->m->has_key_shared)
		b.costs_ps[KC_KEY_SHARED] = fs_cost_ps(world->m->key_shared, world->m->freq_khz);
	return b;
}

/* A replaced private hash becomes the one ops use, when the workload agrees. */
static void on_publish(void *ctx, uint32_t pid)
{
	struct procset *ps = ctx;
	const struct world *world = ps->world;

	if (!ps->ops.publish(ps->ctx, pid)) {
		engine_schedule(world->eng, world->eng->now + PUBLISH_RETRY_PS, ps->publish_kind, pid);
		return;
	}
	world->ft->procs[pid].publish_due = false;
	futex_tables_resize_done(world->ft, pid, world->eng->now);
}

/* pthread_create of thread `i`: the kernel may resize the process's private hash. */
static void on_create(void *ctx, uint32_t i)
{
	struct procset *ps = ctx;
	const struct world *world = ps->world;
	struct task *t = &world->tasks->v[i];
	struct process *proc = &world->ft->procs[t->process];
	struct fs_error e = { 0 };
	bool grew;

	proc->live++;
	ps->created++;
	if (futex_tables_thread_created(world->ft, t->process, proc->live + 1, world->eng->now, &grew, &e) < 0) {
		/* out of memory mid-run: stop the run; sim_run reports it */
		engine_out_of_memory(world->eng);
		return;
	}
	if (grew && !proc->publish_due) {
		/* 6.17+: the per-CPU refcount goes atomic; the old hash dies and the new one is
		 * published about two grace periods later. Otherwise at once. */
		simtime_t delay = procset_uses_atomic_mode(ps, t->process) ? 2 * world->k->rcu_grace_period_ps : 0;

		proc->ref_atomic_until = world->eng->now + delay;
		proc->publish_due = true;
		engine_schedule(world->eng, world->eng->now + delay, ps->publish_kind, t->process);
	}
	t->clock = world->eng->now;
	ps->ops.thread_started(ps->ctx, t);
}
