/* SPDX-License-Identifier: MIT */
#include "models/workloads/trace.h"

#include <gsl/gsl_histogram.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/futex_queue.h"
#include "models/procset.h"
#include "models/usync.h"
#include "models/world.h"
#include "sim/core/config.h"

enum placement { PLACE_RECORDED, PLACE_SPREAD };
static const char *const placement_names[] = { "recorded", "spread", NULL };
enum relocate { RELOCATE_NONE, RELOCATE_ASLR };
static const char *const relocate_names[] = { "none", "aslr", NULL };

struct trace_params {
	struct trace tr;
	char path[4096];
	struct usync_params up;
	uint32_t *cpus, ncpus;    /* workload.cpus */
	int placement;
	int relocate;
	uint64_t cpu_speed_milli; /* user-space time is divided by this / 1000 */
	uint64_t gap_overhead_ns, call_overhead_ns; /* subtracted from gaps and recorded durations */
	bool user_rmw;            /* a user-space RMW of the word before each call */
};

/* A thread's run through its events. */
enum rp_status { RS_NEW, RS_CREATING, RS_RUNNING, RS_PARKED, RS_DONE };
/* What the program that just completed did. */
enum rp_phase { PH_START, PH_SLEPT, PH_GAP, PH_RMW, PH_CALL, PH_CALL2, PH_NAP };

struct rp_thread {
	uint32_t th;              /* the trace's thread */
	uint32_t next;            /* its current event (index into its list) */
	uint8_t phase, status;
	bool killed;              /* its process's exit_group ran: it ends at its next program's end */
	bool enqueued;            /* its current blocking wait is counted as queued */
	bool forced;              /* its hold was broken: its current event starts without waiting */
	simtime_t left;           /* local work of the current phase still to run (after this slice) */
	simtime_t parked_at;
	uint64_t calls;
	simtime_t blocked_ps;
};

/* A class's replay state (tracelink.h): its ranks' waiters not yet queued, the
 * leading ranks all queued, the turn of its next taking call. */
struct rp_class {
	uint32_t full, next_op;
};

/* The kinds of calls the summary reports latencies for. */
enum rp_kind { RK_WAIT, RK_EAGAIN, RK_TIMED, RK_WAKE, RK_REQUEUE, RK_OTHER, RK_NKINDS };
static const char *const kind_labels[RK_NKINDS] = {
	"wait (woken)", "wait (EAGAIN)", "wait (timeout, other)", "wake", "requeue", "unsupported, failed",
};

struct replay {
	const struct world *world;
	const struct trace_params *p;
	const struct trace *tr;
	struct procset ps;
	struct procset_params pp;
	uint32_t *proc_threads;
	struct usync upriv, ushared;  /* private and shared words: their programs differ */
	uint32_t *task_of;            /* trace thread -> task */
	struct rp_thread *rt;         /* per task */
	struct usync_futex **key_obj; /* per key: its ghost (resolved) */
	struct usync_futex **cls_obj; /* per class */
	struct usync_futex **limbo;   /* per event: a wait that never returned, its own object */
	struct rp_class *cls;
	uint32_t *pending;            /* per class and rank: waiters not yet queued */
	uint64_t *reloc;              /* per process: added to its addresses */
	simtime_t *start_ps, *end_ps; /* per event */
	uint32_t *parked, nparked;
	uint32_t ndone;
	simtime_t end_clock;
	gsl_histogram *lat[RK_NKINDS][2]; /* [kind][0 replayed, 1 recorded] */
	double lat_sum[RK_NKINDS][2];
	uint64_t lat_n[RK_NKINDS];
	uint64_t calls_replayed, holds, holds_broken, stuck, exit_wakes;
	simtime_t hold_ps;
	uint32_t start_kind;          /* the engine event that starts a root thread */
	uint32_t kill_kind;           /* ... that ends a process at its exit_group's time */
	uint32_t kills_pending;       /* such events scheduled, not yet run */
	struct uop slice_prog[2];     /* a time slice of user work, then a read of the slice line */
};

static const struct uop work_prog = { .kind = UOP_WORK, .operand = OPND_TASK_WORK };
static const struct uop nap_prog = { .kind = UOP_NAP, .operand = OPND_NONE };

/* --- parameters --- */

/* The trace file: as given (relative to the working directory), else beside the
 * scenario that names it. */
static int locate(const struct yt_node *n, char *out, size_t len, struct fs_error *e)
{
	char dir[4096];

	if (snprintf(out, len, "%s", n->scalar) >= (int)len)
		return fs_fail_at(e, &n->mark, "trace: path too long");
	if (access(out, R_OK) == 0 || n->scalar[0] == '/' || !n->mark.file)
		return 0;
	snprintf(dir, sizeof(dir), "%s", n->mark.file);
	if (snprintf(out, len, "%s/%s", dirname(dir), n->scalar) >= (int)len || access(out, R_OK) != 0)
		snprintf(out, len, "%s", n->scalar);
	return 0;
}

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type", "trace", "cpus", "placement", "cpu_speed", "tracer_overhead",
					     "user_rmw", "relocate", "lock_call", "syscall_wrap", NULL };
	struct trace_params *p = calloc(1, sizeof(*p));
	const struct yt_node *cpus = yt_get(n, "cpus"), *path = yt_get(n, "trace"), *ovh = yt_get(n, "tracer_overhead");
	const char *given = NULL;

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0 || cfg_require(n, "trace", "workload", e) < 0 ||
	    cfg_parse_string(path, "trace", &given, e) < 0 || locate(path, p->path, sizeof(p->path), e) < 0 ||
	    usync_parse(n, &p->up, e) < 0 || (cpus && cfg_expect(cpus, YT_SCALAR, "cpus", e) < 0) ||
	    machine_parse_cpulist(m, cpus ? cpus->scalar : "all", cpus ? &cpus->mark : &n->mark, &p->cpus, &p->ncpus, e) < 0)
		return -1;
	if (trace_read_file(p->path, &p->tr, e) < 0) {
		char msg[sizeof(e->msg)];
		int status = e->status;

		/* the trace's own FILE:LINE:COL, said to come from the scenario's key */
		snprintf(msg, sizeof(msg), "%s", e->msg);
		fs_fail_at(e, &path->mark, "trace: %s", msg);
		e->status = status; /* out of memory stays a refusal of its own */
		return -1;
	}
	if (cfg_get_enum(n, "placement", placement_names, p->tr.cpus_recorded ? PLACE_RECORDED : PLACE_SPREAD,
			 &p->placement, e) < 0 ||
	    cfg_get_enum(n, "relocate", relocate_names, RELOCATE_NONE, &p->relocate, e) < 0 ||
	    /* 1.0: the recorded machine's speed; 2.0 runs user-space time twice as fast */
	    cfg_get_fixed3(n, "cpu_speed", 1000, 1, 1000000, &p->cpu_speed_milli, e) < 0 ||
	    cfg_get_bool(n, "user_rmw", true, &p->user_rmw, e) < 0)
		return -1;
	if (p->placement == PLACE_RECORDED && !p->tr.cpus_recorded)
		return fs_fail_at(e, &yt_get(n, "placement")->mark,
				  "placement: recorded, but the trace has no CPUs (its tracer could not tell them: use spread)");
	/* the tracer's own time in each gap and call: the trace's calibration (auto), none, or a duration */
	if (!ovh || (ovh->kind == YT_SCALAR && !strcmp(ovh->scalar, "auto"))) {
		p->gap_overhead_ns = p->tr.has_overhead ? p->tr.overhead_gap_ns : 0;
		p->call_overhead_ns = p->tr.has_overhead ? p->tr.overhead_call_ns : 0;
	} else if (ovh->kind == YT_SCALAR && !strcmp(ovh->scalar, "none")) {
		p->gap_overhead_ns = p->call_overhead_ns = 0;
	} else {
		uint64_t ps;

		if (cfg_parse_duration(ovh, "tracer_overhead (auto, none or a duration)", 0, PS_PER_S, &ps, e) < 0)
			return -1;
		p->gap_overhead_ns = ps / 1000;
		p->call_overhead_ns = p->tr.has_overhead ? p->tr.overhead_call_ns : 0;
	}
	return 0;
}

static void free_params(void *params)
{
	struct trace_params *p = params;

	if (!p)
		return;
	trace_free(&p->tr);
	free(p->cpus);
	free(p);
}

static uint32_t ntasks(const void *params)
{
	return ((const struct trace_params *)params)->tr.nthreads;
}

/* --- setup --- */

static void free_state(void *state)
{
	struct replay *w = state;

	if (!w)
		return;
	usync_free(&w->upriv);
	usync_free(&w->ushared);
	procset_free(&w->ps);
	for (int k = 0; k < RK_NKINDS; k++)
		for (int r = 0; r < 2; r++)
			if (w->lat[k][r])
				gsl_histogram_free(w->lat[k][r]);
	free(w->pp.cpus);
	free(w->proc_threads);
	free(w->task_of);
	free(w->rt);
	free(w->key_obj);
	free(w->cls_obj);
	free(w->limbo);
	free(w->cls);
	free(w->pending);
	free(w->reloc);
	free(w->start_ps);
	free(w->end_ps);
	free(w->parked);
	free(w);
}

/* A thread's place among the tasks: by process, then creation. */
struct task_order {
	uint32_t process;
	uint64_t start;
	uint32_t thread;
};

static int cmp_order(const void *a, const void *b)
{
	const struct task_order *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* Tasks: each process's threads together (procset's blocks), its main thread first,
 * then in order of creation; each on its CPU. */
static int place_tasks(struct replay *w, struct fs_error *e)
{
	const struct trace *tr = w->tr;
	const struct trace_params *p = w->p;
	struct task_order *order = malloc(tr->nthreads * sizeof(*order));

	w->task_of = malloc(tr->nthreads * sizeof(*w->task_of));
	w->pp.cpus = malloc(tr->nthreads * sizeof(*w->pp.cpus));
	w->proc_threads = calloc(tr->nprocs, sizeof(*w->proc_threads));
	if (!order || !w->task_of || !w->pp.cpus || !w->proc_threads) {
		free(order);
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	for (uint32_t i = 0; i < tr->nthreads; i++)
		order[i] = (struct task_order){ tr->threads[i].process, tr->threads[i].start, i };
	/* main threads start at 0 with no creator: first of their process */
	qsort(order, tr->nthreads, sizeof(*order), cmp_order);
	for (uint32_t k = 0; k < tr->nthreads; k++) {
		const struct trace_thread *th = &tr->threads[order[k].thread];
		int32_t cpu = th->cpu;

		w->task_of[order[k].thread] = k;
		w->rt[k].th = order[k].thread;
		w->proc_threads[th->process]++;
		/* a thread with no event of a known CPU runs where its creator did */
		for (uint32_t a = th->parent; cpu < 0 && a != TRACE_NONE; a = tr->threads[a].parent)
			cpu = tr->threads[a].cpu;
		w->pp.cpus[k] = p->placement == PLACE_RECORDED ? p->cpus[(uint32_t)(cpu < 0 ? 0 : cpu) % p->ncpus]
							      : p->cpus[k % p->ncpus];
	}
	free(order);
	w->pp.threads = tr->nthreads;
	w->pp.processes = tr->nprocs;
	w->pp.ncpus = tr->nthreads;
	w->pp.process_threads = w->proc_threads;
	/* created one at a time, as the trace's clones create them */
	w->pp.staggered = true;
	return 0;
}

static struct usync *instance(struct replay *w, bool shared)
{
	return shared ? &w->ushared : &w->upriv;
}

/* Every futex word a ghost object, every class and every wait that never returned
 * an object of its own on the same word (same_as: hashed once). */
static int place_words(struct replay *w, struct fs_error *e)
{
	static const char *const no_fields[] = { NULL };
	const struct trace_link *lk = &w->tr->link;
	struct memmap *mem = w->world->mem;
	uint32_t n[2] = { 0, 0 }, obj[2];

	for (uint32_t k = 0; k < lk->nkeys; k++)
		w->key_obj[k] = &instance(w, lk->keys[k].shared)->mutexes[n[lk->keys[k].shared]++].f;
	for (uint32_t c = 0; c < lk->nclasses; c++)
		w->cls_obj[c] = &instance(w, lk->keys[lk->classes[c].key].shared)->mutexes[n[lk->keys[lk->classes[c].key].shared]++].f;
	for (uint32_t i = 0; i < w->tr->nevents; i++)
		if (lk->calls[i].fate == TF_WAIT_LIMBO)
			w->limbo[i] = &instance(w, lk->keys[lk->calls[i].key].shared)->mutexes[n[lk->keys[lk->calls[i].key].shared]++].f;
	obj[0] = memmap_object(mem, "traced private futex words", "word", no_fields);
	obj[1] = memmap_object(mem, "traced shared futex words", "word", no_fields);
	w->ushared.page_object = memmap_object(mem, "struct page of the traced shared words", "page", no_fields);
	if (obj[0] == MEMMAP_NONE || obj[1] == MEMMAP_NONE || w->ushared.page_object == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	/* a shared word is keyed by its address as a file offset [A: the trace does not
	 * tell the mapping's inode and offset; page and in-page offset are kept] */
	w->ushared.shm_base = 0;
	for (uint32_t k = 0; k < lk->nkeys; k++) {
		const struct trace_key *key = &lk->keys[k];
		uint32_t q = 0;

		while (q < w->tr->nprocs && w->tr->procs[q].pid != key->pid)
			q++;
		if (usync_place(instance(w, key->shared), w->key_obj[k], q, key->uaddr + w->reloc[q], obj[key->shared], k, e) < 0)
			return -1;
	}
	for (uint32_t c = 0; c < lk->nclasses; c++) {
		const struct usync_futex *ghost = w->key_obj[lk->classes[c].key];

		*w->cls_obj[c] = *ghost;
		w->cls_obj[c]->same_as = ghost;
	}
	for (uint32_t i = 0; i < w->tr->nevents; i++)
		if (w->limbo[i]) {
			const struct usync_futex *ghost = w->key_obj[lk->calls[i].key];

			*w->limbo[i] = *ghost;
			w->limbo[i]->same_as = ghost;
		}
	return 0;
}

static void thread_started(void *ctx, struct task *t);
static bool publish(void *ctx, uint32_t pid);
static void slept(void *ctx, struct task *t);
static void advance(struct replay *w, struct task *t);
static void on_kill(void *ctx, uint32_t killer);

/* A root thread starts (or a forked process's main thread, at its fork). */
static void start_thread(struct replay *w, struct task *t, simtime_t at)
{
	w->rt[t->id].status = RS_RUNNING;
	t->clock = at;
	advance(w, t);
	if (w->rt[t->id].status == RS_RUNNING)
		task_start(w->world->tasks, t, at);
}

static void on_start(void *ctx, uint32_t task)
{
	struct replay *w = ctx;

	start_thread(w, &w->world->tasks->v[task], w->world->eng->now);
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct trace_params *p = params;
	const struct trace *tr = &p->tr;
	const struct trace_link *lk = &tr->link;
	struct replay *w = calloc(1, sizeof(*w));
	struct usync_params up = p->up;
	uint32_t nobj[2] = { 0, 0 };

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	w->tr = tr;
	for (uint32_t k = 0; k < lk->nkeys; k++)
		nobj[lk->keys[k].shared]++;
	for (uint32_t c = 0; c < lk->nclasses; c++)
		nobj[lk->keys[lk->classes[c].key].shared]++;
	for (uint32_t i = 0; i < tr->nevents; i++)
		if (lk->calls[i].fate == TF_WAIT_LIMBO)
			nobj[lk->keys[lk->calls[i].key].shared]++;
	w->rt = calloc(tr->nthreads, sizeof(*w->rt));
	w->key_obj = calloc(lk->nkeys + 1, sizeof(*w->key_obj));
	w->cls_obj = calloc(lk->nclasses + 1, sizeof(*w->cls_obj));
	w->limbo = calloc(tr->nevents + 1, sizeof(*w->limbo));
	w->cls = calloc(lk->nclasses + 1, sizeof(*w->cls));
	w->pending = malloc((lk->nrank_entries + 1) * sizeof(*w->pending));
	w->reloc = calloc(tr->nprocs, sizeof(*w->reloc));
	w->start_ps = calloc(tr->nevents + 1, sizeof(*w->start_ps));
	w->end_ps = malloc((tr->nevents + 1) * sizeof(*w->end_ps));
	w->parked = malloc(tr->nthreads * sizeof(*w->parked));
	if (!w->rt || !w->key_obj || !w->cls_obj || !w->limbo || !w->cls || !w->pending || !w->reloc || !w->start_ps ||
	    !w->end_ps || !w->parked)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	memcpy(w->pending, lk->rank_entries, lk->nrank_entries * sizeof(*w->pending));
	for (uint32_t i = 0; i <= tr->nevents; i++)
		w->end_ps[i] = SIMTIME_MAX; /* not replayed (yet) */
	for (int k = 0; k < RK_NKINDS; k++)
		for (int r = 0; r < 2; r++)
			if (!(w->lat[k][r] = usync_latency_histogram()))
				return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	{
		static const char *const no_fields[] = { NULL };
		uint32_t object = memmap_object(world->mem, "replay: time-slice boundary (no data)", NULL, no_fields);
		uint32_t line = object == MEMMAP_NONE ? MEMMAP_NONE
						      : memmap_line(world->mem, memmap_alloc(world->mem, MEM_KERNEL_NODE, 0, 64, 64),
								    object, 0, -1);

		if (line == MEMMAP_NONE)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
		w->slice_prog[0] = work_prog;
		w->slice_prog[1] = (struct uop){ .kind = UOP_ACCESS, .operand = OPND_LINE, .access = ACCESS_READ, .line = line };
	}
	if (p->relocate == RELOCATE_ASLR)
		for (uint32_t q = 0; q < tr->nprocs; q++) /* whole pages: every in-page offset kept */
			w->reloc[q] = (uint64_t)gsl_rng_uniform_int(world->rng, 1ul << 28) << 12;
	if (place_tasks(w, e) < 0 || procset_init(&w->ps, world, &w->pp, true, &ops, w, e) < 0)
		return -1;
	up.shared = false;
	if (usync_init(&w->upriv, world, &w->ps, nobj[0], 0, false, &up, e) < 0)
		return -1;
	up.shared = true;
	if (usync_init(&w->ushared, world, &w->ps, nobj[1], 0, false, &up, e) < 0 || place_words(w, e) < 0)
		return -1;
	for (uint32_t q = 0; q < w->ps.nprocs; q++)
		if (usync_build_programs(&w->upriv, q, e) < 0 || usync_build_programs(&w->ushared, q, e) < 0)
			return -1;
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		struct task *t = &world->tasks->v[i];

		usync_note_lines(&w->ushared, t);
		usync_note_lines(&w->upriv, t);
		t->uncounted = true; /* an op is a replayed futex call, counted at its return */
	}
	tasks_set_slept(world->tasks, slept, w);
	/* the roots begin with the trace, each its process's main thread: from an event,
	 * so that until the run starts every task holds a program of the path (the
	 * event estimate reads them) */
	w->start_kind = engine_register(world->eng, on_start, w);
	w->kill_kind = engine_register(world->eng, on_kill, w);
	for (uint32_t i = 0; i < tr->nthreads; i++)
		if (tr->threads[w->rt[i].th].parent == TRACE_NONE) {
			w->rt[i].status = RS_CREATING;
			engine_schedule(world->eng, 0, w->start_kind, i);
		}
	return 0;
}

/* --- the replay --- */

static const struct trace_event *current(const struct replay *w, const struct task *t)
{
	const struct rp_thread *rt = &w->rt[t->id];
	const struct trace_thread *th = &w->tr->threads[rt->th];

	return &w->tr->events[w->tr->thread_events[th->first + rt->next]];
}

static uint32_t event_index(const struct replay *w, const struct trace_event *ev)
{
	return (uint32_t)(ev - w->tr->events);
}

static simtime_t less(uint64_t ns, uint64_t minus)
{
	return ns > minus ? ns - minus : 0;
}

/* The user-space time before the thread's current event (docs/trace.md, "Replay"):
 * the time since its previous event less what it spent off its CPU (preempted or
 * asleep elsewhere, when the tracer tells) and the tracer's own share, scaled. */
static simtime_t gap_ps(const struct replay *w, const struct task *t)
{
	const struct rp_thread *rt = &w->rt[t->id];
	const struct trace_thread *th = &w->tr->threads[rt->th];
	const struct trace_event *ev = current(w, t);
	uint64_t prev_end = th->start, on_cpu;

	if (rt->next) {
		const struct trace_event *prev = &w->tr->events[w->tr->thread_events[th->first + rt->next - 1]];

		prev_end = prev->t + prev->dur;
	}
	on_cpu = less(less(less(ev->t, prev_end), ev->preempted), ev->slept);
	return simtime_scale_milli(less(on_cpu, w->p->gap_overhead_ns) * 1000, 1000000 / w->p->cpu_speed_milli);
}

static simtime_t recorded_ps(const struct replay *w, uint64_t dur_ns)
{
	return less(dur_ns, w->p->call_overhead_ns) * 1000;
}

static void set_work(struct task *t, const struct uop *prog, simtime_t ps)
{
	t->prog = prog;
	t->nuops = 1;
	t->call.work_ps = ps;
}

/* Local work of `ps` in programs of at most a time slice each. The model's
 * scheduler lets a thread another one waits for keep its CPU to the end of its
 * program (models/task_cpu.h), and user-space time between two calls may be
 * seconds; and a thread doing local work alone runs ahead of the engine, its CPU
 * taken until its clock. So every slice but the last ends with a read of a line
 * nobody is declared to use, which brings the engine to the thread's clock first:
 * a thread woken onto the CPU meanwhile queues for it, and gets it at the slice's
 * end [A: a time slice, not CFS's wake-up preemption]. */
static void set_user_work(struct replay *w, struct task *t, simtime_t ps)
{
	simtime_t slice = w->world->tasks->fair.slice;

	if (ps <= slice) {
		w->rt[t->id].left = 0;
		set_work(t, &work_prog, ps);
		return;
	}
	w->rt[t->id].left = ps - slice;
	set_work(t, w->slice_prog, slice);
	t->nuops = 2;
}

static bool take_ready(const struct replay *w, const struct trace_take *tk)
{
	return tk->cls == TRACE_NONE || (w->cls[tk->cls].next_op == tk->ordinal && w->cls[tk->cls].full > tk->rank_hi);
}

/* Whether the event may start: its waiters queued and its turn in its classes. */
static bool ready(const struct replay *w, const struct trace_event *ev)
{
	const struct trace_call *c = &w->tr->link.calls[event_index(w, ev)];

	if (ev->kind == TEV_EXIT)
		return take_ready(w, &c->take);
	if (ev->kind != TEV_FUTEX)
		return true;
	switch (c->fate) {
	case TF_WAIT_BLOCK:
		return w->cls[c->cls].full >= c->rank;
	case TF_WAKE:
	case TF_WAKE_OP:
		return take_ready(w, &c->take) && take_ready(w, &c->take2);
	case TF_REQUEUE:
		return take_ready(w, &c->take) && (!c->moved || w->cls[c->ycls].full >= c->yrank);
	default:
		return true;
	}
}

/* `n` waiters of class k at ranks from `rank` are queued. */
static void queued(struct replay *w, uint32_t k, uint32_t rank, uint32_t n)
{
	const struct trace_class *cl = &w->tr->link.classes[k];
	struct rp_class *rc = &w->cls[k];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = cl->nranks == 1 ? 0 : rank + i;

		if (w->pending[cl->first_rank + r])
			w->pending[cl->first_rank + r]--;
	}
	while (rc->full < cl->nranks && !w->pending[cl->first_rank + rc->full])
		rc->full++;
}

static void release(struct replay *w, uint32_t k, simtime_t at, bool broken)
{
	struct task *t = &w->world->tasks->v[w->parked[k]];
	struct rp_thread *rt = &w->rt[t->id];

	w->parked[k] = w->parked[--w->nparked];
	rt->status = RS_RUNNING;
	if (at < rt->parked_at)
		at = rt->parked_at;
	/* a hold that cost nothing (the waker ran ahead of the engine, the waiter was
	 * queued by its clock) is no hold */
	w->holds += at > rt->parked_at || broken;
	w->hold_ps += at - rt->parked_at;
	w->holds_broken += broken;
	rt->forced = broken;
	t->clock = at;
	advance(w, t);
	if (rt->status == RS_RUNNING)
		task_start(w->world->tasks, t, at);
}

/* Something a hold may wait for happened at `at`: the parked threads whose events
 * may now start go on. */
static void release_ready(struct replay *w, simtime_t at)
{
	for (uint32_t k = 0; k < w->nparked;) {
		struct task *t = &w->world->tasks->v[w->parked[k]];

		if (ready(w, current(w, t)))
			release(w, k, at, false);
		else
			k++;
	}
}

static void end_run(struct replay *w)
{
	struct tasks *ts = w->world->tasks;

	ts->finished = true;
	engine_stop(ts->eng);
}

/* Nothing can run: every live thread is held or waits for a wake that will not
 * come. Break the hold of the earliest recorded event, or end the run. */
static void check_stall(struct replay *w, simtime_t at)
{
	const struct tasks *ts = w->world->tasks;
	uint32_t earliest = TRACE_NONE;
	uint64_t live = 0;

	if (w->kills_pending)
		return; /* an exit_group to come ends some */
	for (uint32_t i = 0; i < ts->n; i++) {
		const struct rp_thread *rt = &w->rt[i];
		const struct task *t = &ts->v[i];

		if (rt->status == RS_CREATING || (rt->status == RS_RUNNING && !(t->state == TS_SLEEP && t->wait.word)))
			return; /* it can go on */
		live += rt->status == RS_RUNNING || rt->status == RS_PARKED;
	}
	for (uint32_t k = 0; k < w->nparked; k++)
		if (earliest == TRACE_NONE ||
		    current(w, &ts->v[w->parked[k]])->t < current(w, &ts->v[w->parked[earliest]])->t)
			earliest = k;
	if (earliest != TRACE_NONE) {
		release(w, earliest, at, true);
		return;
	}
	if (live) {
		w->stuck = live;
		end_run(w);
	}
}

/* A task leaves its CPU for good or for a hold (unless it never got one). */
static void stop_task(struct replay *w, struct task *t)
{
	if (t->state != TS_IDLE)
		task_stop(w->world->tasks, t);
}

static void park(struct replay *w, struct task *t)
{
	struct rp_thread *rt = &w->rt[t->id];

	rt->status = RS_PARKED;
	rt->parked_at = t->clock;
	w->parked[w->nparked++] = t->id;
	stop_task(w, t);
	check_stall(w, t->clock);
}

static void thread_done(struct replay *w, struct task *t, bool stop)
{
	struct rp_thread *rt = &w->rt[t->id];

	if (rt->status == RS_DONE)
		return;
	if (stop)
		stop_task(w, t);
	rt->status = RS_DONE;
	if (t->clock > w->end_clock)
		w->end_clock = t->clock;
	if (w->world->ft->procs[t->process].live)
		w->world->ft->procs[t->process].live--;
	if (++w->ndone == w->tr->nthreads)
		end_run(w);
}

/* exit_group: at its time (an event: the killer's clock may be ahead of the
 * engine, and the others may still reach it), the process's other threads end:
 * at once, or at the end of the program they are in. */
static void on_kill(void *ctx, uint32_t killer)
{
	struct replay *w = ctx;
	const struct task *t = &w->world->tasks->v[killer];
	const struct process *proc = &w->world->ft->procs[t->process];

	w->kills_pending--;
	for (uint32_t i = proc->first_task; i < proc->first_task + proc->ntasks; i++) {
		struct rp_thread *rt = &w->rt[i];
		struct task *o = &w->world->tasks->v[i];

		if (i == t->id || rt->status == RS_DONE)
			continue;
		rt->killed = true;
		if (rt->status == RS_CREATING)
			continue; /* it ends when its creation comes (thread_started) */
		if (rt->status == RS_PARKED) {
			for (uint32_t k = 0; k < w->nparked; k++)
				if (w->parked[k] == i)
					w->parked[k] = w->parked[--w->nparked];
			thread_done(w, o, false);
		} else if (rt->status == RS_NEW || (o->state == TS_SLEEP && o->wait.word)) {
			/* not created yet, or asleep in a wait (it stays on its chain [A]) */
			if (o->clock < w->world->eng->now)
				o->clock = w->world->eng->now;
			thread_done(w, o, false);
		}
	}
}

static enum rp_kind kind_of(uint8_t fate)
{
	switch (fate) {
	case TF_WAIT_BLOCK:
	case TF_WAIT_LIMBO:
		return RK_WAIT;
	case TF_WAIT_EAGAIN:
		return RK_EAGAIN;
	case TF_WAIT_TIMEOUT:
	case TF_WAIT_INTR:
	case TF_WAIT_UNMATCHED:
		return RK_TIMED;
	case TF_WAKE:
	case TF_WAKE_OP:
		return RK_WAKE;
	case TF_REQUEUE:
	case TF_REQUEUE_EAGAIN:
		return RK_REQUEUE;
	default:
		return RK_OTHER;
	}
}

static bool blocking(uint8_t fate)
{
	return fate == TF_WAIT_BLOCK || fate == TF_WAIT_TIMEOUT || fate == TF_WAIT_INTR || fate == TF_WAIT_UNMATCHED;
}

static struct usync_futex *object_of(struct replay *w, uint32_t cls, uint32_t key)
{
	return cls != TRACE_NONE ? w->cls_obj[cls] : w->key_obj[key];
}

/* The word the current call acts on first (its user RMW's word). */
static struct usync_futex *first_word(struct replay *w, const struct trace_event *ev)
{
	const struct trace_call *c = &w->tr->link.calls[event_index(w, ev)];

	switch (c->fate) {
	case TF_WAIT_BLOCK:
		return w->cls_obj[c->cls];
	case TF_WAIT_LIMBO:
		return w->limbo[event_index(w, ev)];
	case TF_WAKE:
	case TF_WAKE_OP:
	case TF_REQUEUE:
		return object_of(w, c->take.cls, c->key);
	case TF_UNSUPPORTED:
	case TF_FAILED:
		return NULL;
	default:
		return c->key == TRACE_NONE ? NULL : w->key_obj[c->key];
	}
}

/* Sets the current event's call (or its first part); false when it has none and
 * the event is over. */
static bool issue(struct replay *w, struct task *t, const struct trace_event *ev)
{
	const struct trace_call *c = &w->tr->link.calls[event_index(w, ev)];
	struct usync *u = c->key == TRACE_NONE ? NULL : instance(w, w->tr->link.keys[c->key].shared);
	simtime_t part;

	switch (ev->kind) {
	case TEV_CLONE:
		/* the clone's time up to the child's start (its return, or sooner when the
		 * child ran before it returned); the rest after it (PH_CALL2) */
		part = recorded_ps(w, w->tr->threads[ev->child].start - ev->t);
		if (!part)
			return false;
		set_work(t, &work_prog, part);
		return true;
	case TEV_SLEEP:
		set_work(t, &nap_prog, ev->dur * 1000);
		return true;
	case TEV_EXIT:
		if (c->key == TRACE_NONE)
			return false;
		/* mm_release(): FUTEX_WAKE(clear_child_tid, 1), shared */
		usync_futex_wake(u, t, object_of(w, c->take.cls, c->key), 1);
		w->exit_wakes++;
		return true;
	case TEV_EXIT_GROUP:
		return false;
	default:
		break;
	}
	switch (c->fate) {
	case TF_WAIT_BLOCK:
		usync_futex_wait(u, t, w->cls_obj[c->cls], w->cls_obj[c->cls]->w.value);
		break;
	case TF_WAIT_LIMBO:
		usync_futex_wait(u, t, w->limbo[event_index(w, ev)], w->limbo[event_index(w, ev)]->w.value);
		break;
	case TF_WAIT_EAGAIN:
	case TF_WAIT_TIMEOUT:
	case TF_WAIT_INTR:
	case TF_WAIT_UNMATCHED:
		/* a value that does not match: the EAGAIN path */
		usync_futex_wait(u, t, w->key_obj[c->key], w->key_obj[c->key]->w.value + 1);
		break;
	case TF_WAKE:
	case TF_WAKE_OP:
		usync_futex_wake(u, t, object_of(w, c->take.cls, c->key), c->take.cls != TRACE_NONE ? c->take.n : 1);
		break;
	case TF_REQUEUE:
	case TF_REQUEUE_EAGAIN: {
		struct usync_futex *f = object_of(w, c->take.cls, c->key);
		struct usync_futex *f2 = object_of(w, c->moved ? c->ycls : TRACE_NONE, c->key2);

		usync_futex_requeue(u, t, f, c->fate == TF_REQUEUE ? f->w.value : f->w.value + 1, f2, c->woken, c->moved);
		break;
	}
	default: /* not replayed: its recorded time as local work */
		if (!recorded_ps(w, ev->dur))
			return false;
		set_user_work(w, t, recorded_ps(w, ev->dur));
		return true;
	}
	w->rt[t->id].calls++;
	w->calls_replayed++;
	return true;
}

/* The child of the current clone is created (procset: its process's hash may grow). */
static void spawn(struct replay *w, struct task *t, const struct trace_event *ev)
{
	uint32_t child = w->task_of[ev->child];
	struct task *c = &w->world->tasks->v[child];

	if (w->rt[child].status != RS_NEW)
		return;
	if (c->process != t->process) {
		/* a fork: its process's main thread, started directly (no hash to grow) */
		start_thread(w, c, t->clock);
		return;
	}
	w->rt[child].status = RS_CREATING;
	procset_create_at(&w->ps, child, t->clock);
}

/* The current call returned: what it did to the classes, its figures. */
static void call_done(struct replay *w, struct task *t, const struct trace_event *ev)
{
	uint32_t i = event_index(w, ev);
	const struct trace_call *c = &w->tr->link.calls[i];
	struct rp_thread *rt = &w->rt[t->id];

	if (ev->kind == TEV_FUTEX && c->fate == TF_WAIT_BLOCK && !rt->enqueued) {
		/* woken before it went to sleep: it was queued */
		rt->enqueued = true;
		queued(w, c->cls, c->rank, 1);
	}
	if (c->take.cls != TRACE_NONE)
		w->cls[c->take.cls].next_op++;
	if (c->take2.cls != TRACE_NONE && c->fate != TF_WAKE_OP)
		w->cls[c->take2.cls].next_op++;
	if (ev->kind == TEV_FUTEX && c->fate == TF_REQUEUE && c->moved)
		queued(w, c->ycls, c->yrank, c->moved);
	release_ready(w, t->clock);
}

/* Its event is over: figures, then the next. */
static void event_done(struct replay *w, struct task *t, const struct trace_event *ev)
{
	uint32_t i = event_index(w, ev);
	uint8_t fate = w->tr->link.calls[i].fate;
	struct rp_thread *rt = &w->rt[t->id];

	w->end_ps[i] = t->clock;
	if (ev->kind == TEV_FUTEX) {
		enum rp_kind k = kind_of(fate);
		double replayed = (double)(t->clock - w->start_ps[i]), recorded = (double)ev->dur * 1000;

		if (fate != TF_WAIT_LIMBO) {
			gsl_histogram_increment(w->lat[k][0], replayed);
			gsl_histogram_increment(w->lat[k][1], recorded);
			w->lat_sum[k][0] += replayed;
			w->lat_sum[k][1] += recorded;
			w->lat_n[k]++;
		}
		if (blocking(fate))
			rt->blocked_ps += t->clock - w->start_ps[i];
		if (fate != TF_UNSUPPORTED && fate != TF_FAILED)
			task_count_op(w->world->tasks, t);
	}
	rt->next++;
	rt->phase = PH_START;
	rt->enqueued = rt->forced = false;
}

/* Runs the thread's events from where it is until a program is set (it runs it),
 * it is held (parked) or it is done. */
static void advance(struct replay *w, struct task *t)
{
	struct rp_thread *rt = &w->rt[t->id];
	const struct trace_thread *th = &w->tr->threads[rt->th];

	for (;;) {
		const struct trace_event *ev;
		const struct trace_call *c;
		uint32_t i;
		simtime_t ps;

		if (rt->left && !rt->killed) { /* the phase's next slice */
			set_user_work(w, t, rt->left);
			return;
		}
		if (rt->killed || rt->next == th->n) {
			thread_done(w, t, rt->status == RS_RUNNING);
			return;
		}
		ev = current(w, t);
		i = event_index(w, ev);
		c = &w->tr->link.calls[i];
		switch (rt->phase) {
		case PH_START:
			/* asleep off its CPU in the gap (another syscall): a sleep, the wake-up latency in it */
			rt->phase = PH_SLEPT;
			if (ev->slept > 0) {
				set_work(t, &nap_prog, ev->slept * 1000);
				return;
			}
			/* fall through */
		case PH_SLEPT:
			rt->phase = PH_GAP;
			if ((ps = gap_ps(w, t)) > 0) {
				set_user_work(w, t, ps);
				return;
			}
			/* fall through */
		case PH_GAP:
			if (!rt->forced && !ready(w, ev)) {
				park(w, t);
				return;
			}
			rt->phase = PH_RMW;
			if (w->p->user_rmw && ev->kind == TEV_FUTEX && first_word(w, ev)) {
				usync_user_atomic(instance(w, w->tr->link.keys[c->key].shared), t, UP_XCHG, first_word(w, ev),
						  0, first_word(w, ev)->w.value, 0);
				return;
			}
			/* fall through */
		case PH_RMW:
			rt->phase = PH_CALL;
			w->start_ps[i] = t->clock;
			if (issue(w, t, ev))
				return;
			/* fall through */
		case PH_CALL:
			if (ev->kind == TEV_CLONE) {
				spawn(w, t, ev);
				rt->phase = PH_CALL2;
				if ((ps = recorded_ps(w, ev->t + ev->dur - w->tr->threads[ev->child].start)) > 0) {
					set_work(t, &work_prog, ps);
					return;
				}
				event_done(w, t, ev);
				continue;
			}
			call_done(w, t, ev);
			if (ev->kind == TEV_EXIT_GROUP || ev->kind == TEV_EXIT) {
				event_done(w, t, ev);
				if (ev->kind == TEV_EXIT_GROUP) {
					w->kills_pending++;
					engine_schedule(w->world->eng, t->clock, w->kill_kind, t->id);
				}
				thread_done(w, t, true);
				return;
			}
			if (c->fate == TF_WAIT_TIMEOUT || c->fate == TF_WAIT_INTR || c->fate == TF_WAIT_UNMATCHED) {
				/* asleep for the rest of its recorded time (the wake-up latency comes on top) */
				rt->phase = PH_NAP;
				set_work(t, &nap_prog, recorded_ps(w, ev->dur));
				return;
			}
			if (c->fate == TF_WAKE_OP) {
				rt->phase = PH_CALL2;
				usync_futex_wake(instance(w, w->tr->link.keys[c->key].shared), t,
						 object_of(w, c->take2.cls, c->key2), c->take2.cls != TRACE_NONE ? c->take2.n : 1);
				return;
			}
			event_done(w, t, ev);
			continue;
		case PH_CALL2:
			if (c->fate == TF_WAKE_OP && c->take2.cls != TRACE_NONE) {
				w->cls[c->take2.cls].next_op++;
				release_ready(w, t->clock);
			}
			/* fall through */
		default: /* PH_NAP */
			event_done(w, t, ev);
			continue;
		}
	}
}

static void program_done(void *state, struct task *t)
{
	struct replay *w = state;

	advance(w, t);
}

/* A thread of the trace went to sleep: in a blocking wait it is now queued. */
static void slept(void *ctx, struct task *t)
{
	struct replay *w = ctx;
	struct rp_thread *rt = &w->rt[t->id];
	const struct trace_event *ev;
	const struct trace_call *c;

	if (rt->status != RS_RUNNING || rt->next == w->tr->threads[rt->th].n || rt->phase != PH_CALL)
		return;
	ev = current(w, t);
	c = &w->tr->link.calls[event_index(w, ev)];
	if (ev->kind != TEV_FUTEX || !t->wait.word)
		return;
	if (rt->killed) {
		thread_done(w, t, false);
		return;
	}
	if (c->fate == TF_WAIT_BLOCK && !rt->enqueued) {
		rt->enqueued = true;
		queued(w, c->cls, c->rank, 1);
		release_ready(w, t->clock);
	}
	check_stall(w, t->clock);
}

/* procset created a thread at its clone: it starts its events. */
static void thread_started(void *ctx, struct task *t)
{
	struct replay *w = ctx;
	struct rp_thread *rt = &w->rt[t->id];

	if (rt->status == RS_DONE) /* its process ended meanwhile */
		return;
	if (rt->killed) { /* ... while it was being created */
		thread_done(w, t, false);
		return;
	}
	rt->status = RS_RUNNING;
	advance(w, t);
	if (rt->status == RS_RUNNING)
		task_start(w->world->tasks, t, t->clock);
}

/* A resized private hash is published: private words re-resolved, waiters moved. */
static bool publish(void *ctx, uint32_t pid)
{
	struct replay *w = ctx;
	struct fs_error e = { 0 };

	if (!usync_publish(&w->upriv, pid))
		return false;
	/* the layout was accepted when the programs were first built: this cannot fail */
	if (usync_build_programs(&w->ushared, pid, &e) < 0)
		abort();
	return true;
}

/* --- reports --- */

static double recorded_blocked_ps(const struct trace *tr)
{
	double sum = 0;

	for (uint32_t i = 0; i < tr->nevents; i++)
		if (tr->events[i].kind == TEV_FUTEX && blocking(tr->link.calls[i].fate))
			sum += (double)tr->events[i].dur * 1000;
	return sum;
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct replay *w = state;
	const struct trace *tr = w->tr;
	const struct trace_link *lk = &tr->link;
	double blocked = 0;
	uint64_t recorded = 0;

	for (uint32_t i = 0; i < tr->nthreads; i++)
		blocked += (double)w->rt[i].blocked_ps;
	for (int f = TF_WAIT_BLOCK; f < TF_NFATES; f++)
		recorded += lk->fates[f];
	workload_figure_add(out, "calls_recorded", "count", (double)recorded);
	workload_figure_add(out, "calls_replayed", "count", (double)w->calls_replayed);
	workload_figure_add(out, "run_time", "ps", (double)w->end_clock);
	workload_figure_add(out, "run_time_recorded", "ps", (double)tr->end_ns * 1000);
	workload_figure_add(out, "blocked_time", "ps", blocked);
	workload_figure_add(out, "blocked_time_recorded", "ps", recorded_blocked_ps(tr));
	workload_figure_add(out, "waits_woken", "count", lk->fates[TF_WAIT_BLOCK]);
	workload_figure_add(out, "waits_eagain", "count", lk->fates[TF_WAIT_EAGAIN]);
	workload_figure_add(out, "wakes", "count", lk->fates[TF_WAKE]);
	workload_figure_add(out, "requeues", "count", lk->fates[TF_REQUEUE] + lk->fates[TF_REQUEUE_EAGAIN]);
	workload_figure_add(out, "wait_latency_mean", "ps", w->lat_n[RK_WAIT] ? w->lat_sum[RK_WAIT][0] / (double)w->lat_n[RK_WAIT] : 0);
	workload_figure_add(out, "wait_latency_mean_recorded", "ps",
			    w->lat_n[RK_WAIT] ? w->lat_sum[RK_WAIT][1] / (double)w->lat_n[RK_WAIT] : 0);
	workload_figure_add(out, "wake_latency_mean", "ps", w->lat_n[RK_WAKE] ? w->lat_sum[RK_WAKE][0] / (double)w->lat_n[RK_WAKE] : 0);
	workload_figure_add(out, "wake_latency_mean_recorded", "ps",
			    w->lat_n[RK_WAKE] ? w->lat_sum[RK_WAKE][1] / (double)w->lat_n[RK_WAKE] : 0);
	workload_figure_add(out, "eagain_latency_mean", "ps",
			    w->lat_n[RK_EAGAIN] ? w->lat_sum[RK_EAGAIN][0] / (double)w->lat_n[RK_EAGAIN] : 0);
	workload_figure_add(out, "eagain_latency_mean_recorded", "ps",
			    w->lat_n[RK_EAGAIN] ? w->lat_sum[RK_EAGAIN][1] / (double)w->lat_n[RK_EAGAIN] : 0);
	/* what the replay could not honour */
	workload_figure_add(out, "timeouts", "count", lk->fates[TF_WAIT_TIMEOUT]);
	workload_figure_add(out, "waits_interrupted", "count", lk->fates[TF_WAIT_INTR]);
	workload_figure_add(out, "woken_without_wake", "count", lk->fates[TF_WAIT_UNMATCHED]);
	workload_figure_add(out, "woken_without_waiter", "count", (double)lk->unmatched_woken);
	workload_figure_add(out, "requeued_without_waiter", "count", (double)lk->unmatched_moved);
	workload_figure_add(out, "unsupported_calls", "count", lk->fates[TF_UNSUPPORTED] + lk->fates[TF_FAILED]);
	workload_figure_add(out, "wake_ops_as_two_wakes", "count", lk->fates[TF_WAKE_OP]);
	workload_figure_add(out, "unfinished_calls", "count", lk->fates[TF_WAIT_LIMBO]);
	workload_figure_add(out, "causal_holds", "count", (double)w->holds);
	workload_figure_add(out, "causal_hold_time", "ps", (double)w->hold_ps);
	workload_figure_add(out, "holds_broken", "count", (double)w->holds_broken);
	workload_figure_add(out, "threads_stuck", "count", (double)w->stuck);
	workload_figure_add(out, "exit_wakes", "count", (double)w->exit_wakes);
	workload_figure_add(out, "threads", "count", tr->nthreads);
	{
		double preempted = 0, slept = 0;

		for (uint32_t i = 0; i < tr->nevents; i++) {
			preempted += (double)tr->events[i].preempted * 1000;
			slept += (double)tr->events[i].slept * 1000;
		}
		/* the recorded gaps' time off the CPU: the preempted part is not replayed */
		workload_figure_add(out, "preempted_recorded", "ps", preempted);
		workload_figure_add(out, "slept_recorded", "ps", slept);
	}
	/* the histogram of the result file: woken waits' replayed latency */
	out->nbins = (uint32_t)gsl_histogram_bins(w->lat[RK_WAIT][0]);
	out->edges = w->lat[RK_WAIT][0]->range;
	out->counts = w->lat[RK_WAIT][0]->bin;
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	const struct trace_params *p = params;
	const struct trace *tr = &p->tr;
	uint32_t calls = 0;

	(void)state;
	(void)secs;
	for (int f = TF_WAIT_BLOCK; f < TF_NFATES; f++)
		calls += tr->link.fates[f];
	fprintf(out,
		"Run summary: replaying %s (%s, CPUs %s): %u threads in %u processes, %u futex calls recorded "
		"over %.6g s; placement %s, cpu_speed %.3g\n\n",
		p->path, tr->tracer[0] ? tr->tracer : "unknown tracer", tr->cpus_recorded ? "recorded" : "absent",
		tr->nthreads, tr->nprocs, calls, (double)tr->end_ns / 1e9, placement_names[p->placement],
		(double)p->cpu_speed_milli / 1000);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	const struct replay *w = state;
	const struct rp_thread *rt = &w->rt[t->id];

	(void)ops_per_sec;
	fprintf(out, "[thread %2u] tid %u cpu %u: %llu futex calls, blocked %.6g s\n", t->id, w->tr->threads[rt->th].tid,
		t->cpu, (unsigned long long)rt->calls, (double)rt->blocked_ps / 1e12);
}

/* Per thread (with --per-thread), or the calls by kind, replayed against recorded. */
static void print_perf(const void *state, bool summary, FILE *out)
{
	const struct replay *w = state;
	const struct tasks *ts = w->world->tasks;

	if (!summary) {
		for (uint32_t i = 0; i < w->tr->nthreads; i++)
			print_thread(w, &ts->v[i], 0, out);
		return;
	}
	fprintf(out, "%-24s %9s   %-38s   %s\n", "calls by kind", "calls", "replayed p50 / p99 / mean (us)",
		"recorded p50 / p99 / mean (us)");
	for (int k = 0; k < RK_NKINDS; k++) {
		double n = (double)w->lat_n[k];

		if (!w->lat_n[k])
			continue;
		fprintf(out, "  %-22s %9.0f   %10.3f / %10.3f / %10.3f   %10.3f / %10.3f / %10.3f\n", kind_labels[k], n,
			usync_histogram_quantile(w->lat[k][0], 0.5) / 1e6, usync_histogram_quantile(w->lat[k][0], 0.99) / 1e6,
			w->lat_sum[k][0] / n / 1e6, usync_histogram_quantile(w->lat[k][1], 0.5) / 1e6,
			usync_histogram_quantile(w->lat[k][1], 0.99) / 1e6, w->lat_sum[k][1] / n / 1e6);
	}
}

static void size(const void *params, struct workload_size *out)
{
	const struct trace_params *p = params;
	const struct trace *tr = &p->tr;
	const struct trace_link *lk = &tr->link;
	uint32_t most = 1;
	uint64_t objects = (uint64_t)lk->nkeys + lk->nclasses + lk->fates[TF_WAIT_LIMBO];

	for (uint32_t q = 0; q < tr->nprocs; q++)
		if (tr->procs[q].nthreads > most)
			most = tr->procs[q].nthreads;
	out->processes = tr->nprocs;
	out->max_process_threads = most + 1;
	out->user_lines = 2ull * lk->nkeys; /* the words' lines and, for shared ones, their struct pages */
	out->targets = objects;
	out->bytes = trace_bytes(tr->nevents, tr->nthreads) + 2 * usync_bytes(tr->nthreads, (uint32_t)objects, 0, false) +
		     (uint64_t)tr->nevents * (2 * sizeof(simtime_t) + sizeof(void *)) +
		     (uint64_t)lk->nrank_entries * sizeof(uint32_t) + (uint64_t)lk->nclasses * (sizeof(struct rp_class) + sizeof(void *));
	/* the recorded time per event: what a thread spends between programs, roughly */
	out->step_work_ps = tr->nevents ? (tr->end_ns * 1000) / (tr->nevents + 1) : 0;
}

const struct trace *trace_replay_trace(const void *state)
{
	return ((const struct replay *)state)->tr;
}

bool trace_replay_times(const void *state, uint32_t event, simtime_t *start, simtime_t *end)
{
	const struct replay *w = state;

	if (event >= w->tr->nevents || w->end_ps[event] == SIMTIME_MAX)
		return false;
	*start = w->start_ps[event];
	*end = w->end_ps[event];
	return true;
}

static const char *input_file(const void *params)
{
	return ((const struct trace_params *)params)->path;
}

const struct workload_type workload_trace = {
	.name = "trace",
	.description = "a recorded futex trace (futexsim record) replayed causally: docs/trace.md",
	.parse = parse,
	.ntasks = ntasks,
	.nthreads = ntasks,
	.setup = setup,
	.program_done = program_done,
	.print_header = print_header,
	.print_thread = print_thread,
	.print_perf = print_perf,
	.figures = figures,
	.free_state = free_state,
	.free_params = free_params,
	.input_file = input_file,
	.size = size,
};
