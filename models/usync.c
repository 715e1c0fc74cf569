/* SPDX-License-Identifier: MIT */
#include "models/usync.h"

#include <gsl/gsl_histogram.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/futex_queue.h"
#include "models/futex_table.h"
#include "models/task_lock.h"
#include "models/world.h"
#include "sim/core/config.h"

/* The phases of a protocol: what the task's current program is doing. */
enum phase {
	PH_IDLE,
	PH_LOCK_CAS,     /* lock: the first CAS 0->1 (0->2 for a cond lock) */
	PH_LOCK_LOAD,    /* __lll_lock_wait: is it 2 already? */
	PH_LOCK_XCHG,    /* exchange 2 in */
	PH_LOCK_WAIT,    /* FUTEX_WAIT(word, 2) */
	PH_UNLOCK_XCHG,  /* unlock: exchange 0 in */
	PH_UNLOCK_WAKE,  /* FUTEX_WAKE(word, 1) */
	PH_CW_READ,      /* cond wait: read seq (and count ourselves a waiter) */
	PH_CW_UNLOCK,    /* ... the mutex's unlock (its phases run first) */
	PH_CW_WAIT,      /* FUTEX_WAIT(seq, value read) */
	PH_CW_RELOCK,    /* ... the mutex's cond lock */
	PH_CS_INC,       /* signal/broadcast: seq++ */
	PH_CS_WAKE,      /* FUTEX_WAKE(seq, 1 or all) */
	PH_CS_REQUEUE    /* FUTEX_CMP_REQUEUE(seq, 1, all, mutex) */
};

/* A protocol nested in another (the mutex inside a cond wait) returns here. */
#define PH_RETURN_SHIFT 4

/* Latency histogram: 1 ns .. 10 s, 20 bins a decade (bins about 12% wide). */
#define LAT_MIN_PS 1e3
#define LAT_DECADES 10
#define LAT_BINS_PER_DECADE 20

/* i_seq of the shared file [A: any value; it only feeds the hash] */
#define SHM_INODE_SEQ 1000

int usync_parse(const struct yt_node *n, struct usync_params *p, struct fs_error *e)
{
	return cfg_get_bool(n, "shared", false, &p->shared, e) < 0 ||
			       /* pthread_mutex_lock/unlock around the atomic: type checks, owner and
				* __nusers stores on the mutex's own line [A] */
			       cfg_get_cost(n, "lock_call", fs_cost_of_cycles(20), &p->lock_call, e) < 0 ||
			       /* the libc syscall wrapper (errno, cancellation check) [A] */
			       cfg_get_cost(n, "syscall_wrap", fs_cost_of_cycles(10), &p->syscall_wrap, e) < 0
		       ? -1
		       : 0;
}

gsl_histogram *usync_latency_histogram(void)
{
	size_t nbins = LAT_DECADES * LAT_BINS_PER_DECADE;
	gsl_histogram *h = gsl_histogram_alloc(nbins);
	double *ranges = malloc((nbins + 1) * sizeof(*ranges));

	if (!h || !ranges) {
		if (h)
			gsl_histogram_free(h);
		free(ranges);
		return NULL;
	}
	for (size_t i = 0; i <= nbins; i++)
		ranges[i] = LAT_MIN_PS * pow(10.0, (double)i / LAT_BINS_PER_DECADE);
	ranges[0] = 0; /* the first bin takes everything below 1.12 ns */
	gsl_histogram_set_ranges(h, ranges, nbins + 1);
	free(ranges);
	return h;
}

int usync_init(struct usync *u, const struct world *world, const struct procset *ps, uint32_t nmutexes, uint32_t nconds,
	       bool pi, const struct usync_params *p, struct fs_error *e)
{
	memset(u, 0, sizeof(*u));
	u->world = world;
	u->ps = ps;
	u->shared = p->shared;
	u->lock_call_ps = fs_cost_ps(p->lock_call, world->m->freq_khz);
	u->syscall_wrap_ps = fs_cost_ps(p->syscall_wrap, world->m->freq_khz);
	u->page_object = MEMMAP_NONE;
	u->nmutexes = nmutexes;
	u->nconds = nconds;
	u->ntasks = world->tasks->n;
	u->mutexes = calloc(nmutexes ? nmutexes : 1, sizeof(*u->mutexes));
	u->conds = calloc(nconds ? nconds : 1, sizeof(*u->conds));
	u->tasks = calloc(u->ntasks ? u->ntasks : 1, sizeof(*u->tasks));
	u->nprogs = pi ? UP_NPROGS : UP_NPROGS_PLAIN;
	u->progs = calloc((size_t)u->ntasks * NPROG_VARIANTS * u->nprogs * USYNC_MAX_UOPS, sizeof(*u->progs));
	u->nuops = calloc((size_t)u->ntasks * NPROG_VARIANTS * u->nprogs, sizeof(*u->nuops));
	u->latency = usync_latency_histogram();
	if (!u->mutexes || !u->conds || !u->tasks || !u->progs || !u->nuops || !u->latency)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t i = 0; i < nmutexes; i++)
		u->mutexes[i].owner = USYNC_NONE;
	return 0;
}

void usync_free(struct usync *u)
{
	free(u->mutexes);
	free(u->conds);
	free(u->tasks);
	free(u->progs);
	free(u->nuops);
	if (u->latency)
		gsl_histogram_free(u->latency);
	memset(u, 0, sizeof(*u));
}

static size_t prog_index(const struct usync *u, uint32_t task, enum prog_variant v, enum usync_prog p)
{
	return ((size_t)task * NPROG_VARIANTS + (size_t)v) * u->nprogs + (size_t)p;
}

/* --- programs --- */

static const enum futex_op_kind kernel_op[UP_NPROGS] = {
	[UP_WAIT] = FOP_WAIT, [UP_WAKE] = FOP_WAKE, [UP_REQUEUE] = FOP_REQUEUE,
	[UP_LOCK_PI] = FOP_LOCK_PI_ANY, [UP_UNLOCK_PI] = FOP_UNLOCK_PI,
	[UP_WAIT_REQUEUE_PI] = FOP_WAIT_REQUEUE_PI_ANY, [UP_CMP_REQUEUE_PI] = FOP_CMP_REQUEUE_PI,
};
static const uint8_t user_op[UP_NPROGS] = { [UP_CAS] = USER_CAS, [UP_XCHG] = USER_XCHG, [UP_LOAD] = USER_LOAD };

static int build_one(struct usync *u, const struct task *t, enum prog_variant v, enum usync_prog p,
		     struct fs_error *e)
{
	size_t i = prog_index(u, t->id, v, p);
	struct path_builder b = procset_builder(u->ps, t, v, u->shared, &u->progs[i * USYNC_MAX_UOPS], USYNC_MAX_UOPS);

	/* the work before: think time, a critical section (the task's draw) */
	path_emit(&b, (struct uop){ .kind = UOP_WORK, .operand = OPND_TASK_WORK });
	if (p <= UP_LOAD) {
		path_emit_work(&b, u->lock_call_ps);
		path_emit(&b, (struct uop){ .kind = UOP_USER, .user_op = user_op[p], .operand = OPND_WORD_LINE });
	} else {
		path_emit_work(&b, u->syscall_wrap_ps);
		if (futex_path_build(&b, kernel_op[p], e) < 0)
			return -1;
	}
	u->nuops[i] = b.n;
	return 0;
}

int usync_build_programs(struct usync *u, uint32_t pid, struct fs_error *e)
{
	const struct process *proc = &u->world->ft->procs[pid];

	for (uint32_t i = proc->first_task; i < proc->first_task + proc->ntasks; i++)
		for (int v = 0; v < NPROG_VARIANTS; v++) {
			if (v != PROG_NORMAL && !procset_uses_atomic_mode(u->ps, pid))
				continue;
			for (uint32_t p = 0; p < u->nprogs; p++)
				if (build_one(u, &u->world->tasks->v[i], (enum prog_variant)v, (enum usync_prog)p, e) < 0)
					return -1;
		}
	return 0;
}

bool usync_publish(struct usync *u, uint32_t pid)
{
	struct fs_error e = { 0 };

	if (!usync_rehash(u, pid))
		return false;
	/* the layout was accepted when the programs were first built: this cannot fail */
	if (usync_build_programs(u, pid, &e) < 0)
		abort();
	return true;
}

static void note_futex(struct usync *u, struct task *t, const struct usync_futex *f)
{
	for (int v = 0; v < NPROG_VARIANTS; v++) {
		if (v != PROG_NORMAL && !procset_uses_atomic_mode(u->ps, t->process))
			continue;
		for (uint32_t p = 0; p < u->nprogs; p++) {
			size_t i = prog_index(u, t->id, (enum prog_variant)v, (enum usync_prog)p);

			t->prog = &u->progs[i * USYNC_MAX_UOPS];
			t->nuops = u->nuops[i];
			task_note_lines(u->world->tasks, t, &f->target, 1);
		}
	}
}

void usync_note_lines(struct usync *u, struct task *t)
{
	for (uint32_t i = 0; i < u->nmutexes; i++)
		if (!u->mutexes[i].f.same_as && (u->mutexes[i].f.w.shared || u->mutexes[i].f.w.pid == t->process))
			note_futex(u, t, &u->mutexes[i].f);
	for (uint32_t i = 0; i < u->nconds; i++)
		if (u->conds[i].seq.w.shared || u->conds[i].seq.w.pid == t->process)
			note_futex(u, t, &u->conds[i].seq);
	/* until it starts: the first program it runs (a lock's CAS), for estimates */
	t->prog = &u->progs[prog_index(u, t->id, PROG_NORMAL, UP_CAS) * USYNC_MAX_UOPS];
	t->nuops = u->nuops[prog_index(u, t->id, PROG_NORMAL, UP_CAS)];
}

int usync_start(struct usync *u, struct procset *ps, struct fs_error *e)
{
	for (uint32_t q = 0; q < ps->nprocs; q++)
		if (usync_build_programs(u, q, e) < 0)
			return -1;
	for (uint32_t q = 0; q < ps->nprocs; q++)
		for (uint32_t i = ps->world->ft->procs[q].first_task; i < ps->world->ft->procs[q].first_task + ps->world->ft->procs[q].ntasks; i++)
			usync_note_lines(u, &u->world->tasks->v[i]);
	procset_start(ps);
	return 0;
}

void usync_resolve(struct usync *u, struct usync_futex *f, uint32_t pid)
{
	struct op_target r;

	f->w.pid = pid;
	f->w.shared = u->shared;
	if (f->same_as) { /* another object of the same word: hashed once */
		f->target.table = f->same_as->target.table;
		f->target.bucket = f->same_as->target.bucket;
		return;
	}
	/* a shared mapping of one file at one address in every process: offset = address - base */
	r = u->shared ? futex_tables_resolve_inode(u->world->ft, SHM_INODE_SEQ, f->w.uaddr - u->shm_base)
		      : futex_tables_resolve(u->world->ft, pid, f->w.uaddr, false, -1);
	f->target.table = r.table;
	f->target.bucket = r.bucket;
}

int usync_alloc(struct usync *u, uint32_t pid, uint64_t bytes, const char *name, const char *element,
		uint64_t *base, uint32_t *object, struct fs_error *e)
{
	static const char *const no_fields[] = { NULL };
	const struct world *world = u->world;

	if (u->shared) {
		u->shm_base = *base = memmap_alloc(world->mem, MEM_USER, world->ft->procs[0].home_node, bytes, 4096);
		u->page_object = memmap_object(world->mem, "struct page of the shared mapping", "page", no_fields);
	} else {
		*base = memmap_alloc(world->mem, MEM_USER, world->ft->procs[pid].home_node, bytes + MALLOC_HEADER, MALLOC_ALIGN) +
			MALLOC_HEADER;
	}
	*object = memmap_object(world->mem, name, element, no_fields);
	if (*object == MEMMAP_NONE || (u->shared && u->page_object == MEMMAP_NONE))
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	return 0;
}

int usync_place(struct usync *u, struct usync_futex *f, uint32_t pid, uint64_t uaddr, uint32_t object,
		uint32_t index, struct fs_error *e)
{
	struct memmap *mem = u->world->mem;

	f->w.uaddr = uaddr;
	f->target.word_line = memmap_line(mem, uaddr, object, index, -1);
	f->target.page_line = MEMMAP_NONE;
	f->target.pi_line = MEMMAP_NONE;
	if (u->shared)
		f->target.page_line = memmap_line(mem, memmap_struct_page(uaddr), u->page_object,
					     (uint32_t)((uaddr - u->shm_base) >> 12), -1);
	if (f->target.word_line == MEMMAP_NONE || (u->shared && f->target.page_line == MEMMAP_NONE))
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	usync_resolve(u, f, pid);
	return 0;
}

int usync_place_pi_state(struct usync *u, struct usync_futex *f, uint32_t pid, uint32_t object, uint32_t index,
			 struct fs_error *e)
{
	struct memmap *mem = u->world->mem;
	/* [A] struct futex_pi_state (list, rt_mutex pi_mutex, owner, refcount, key) in 128 bytes,
	 * line-aligned: its size is not taken from a real layout */
	uint64_t addr = memmap_alloc(mem, MEM_KERNEL_NODE, u->world->ft->procs[pid].home_node, 128, 64);

	f->target.pi_line = memmap_line(mem, addr, object, index, -1);
	if (f->target.pi_line == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	return 0;
}

/* --- running the protocols --- */

/* Counters of the report cover the measured window. */
static void count(const struct usync *u, const struct task *t, uint64_t *counter, uint64_t n)
{
	if (task_in_window(u->world->tasks, t))
		*counter += n;
}

/* Sets task t's next program: `p` on futex `f` after `work` of local work. */
static void set_prog(struct usync *u, struct task *t, enum usync_prog p, struct usync_futex *f, simtime_t work)
{
	size_t i = prog_index(u, t->id, procset_variant(u->ps, t), p);

	t->prog = &u->progs[i * USYNC_MAX_UOPS];
	t->nuops = u->nuops[i];
	t->call.work_ps = work;
	t->call.word = &f->w;
	t->target = f->target;
	/* a wake that finds no waiters skips its walk: nothing woken */
	t->walk.woken = t->walk.moved = 0;
	u->tasks[t->id].in_kernel = p >= UP_WAIT;
	u->tasks[t->id].call_start = t->clock;
	if (p >= UP_WAIT && task_in_window(u->world->tasks, t)) {
		u->tasks[t->id].futex_calls++;
		t->stats.futex_calls++;
	}
}

void usync_user_atomic(struct usync *u, struct task *t, enum usync_prog p, struct usync_futex *f, uint32_t expected,
		       uint32_t newval, simtime_t work)
{
	set_prog(u, t, p, f, work);
	t->call.expected = expected;
	t->call.newval = newval;
}

void usync_futex_wait(struct usync *u, struct task *t, struct usync_futex *f, uint32_t val)
{
	usync_user_atomic(u, t, UP_WAIT, f, val, 0, 0);
	count(u, t, &u->tasks[t->id].waits, 1);
}

void usync_futex_wake(struct usync *u, struct task *t, struct usync_futex *f, uint32_t nwake)
{
	set_prog(u, t, UP_WAKE, f, 0);
	t->call.nwake = nwake;
	t->call.nrequeue = 0;
	count(u, t, &u->tasks[t->id].wakes, 1);
}

void usync_futex_lock_pi(struct usync *u, struct task *t, struct usync_futex *f)
{
	set_prog(u, t, UP_LOCK_PI, f, 0);
}

void usync_futex_unlock_pi(struct usync *u, struct task *t, struct usync_futex *f)
{
	set_prog(u, t, UP_UNLOCK_PI, f, 0);
}

void usync_futex_wait_requeue_pi(struct usync *u, struct task *t, struct usync_futex *f, uint32_t val,
				 struct usync_futex *f2)
{
	usync_user_atomic(u, t, UP_WAIT_REQUEUE_PI, f, val, 0, 0);
	t->call.word2 = &f2->w;
	t->call.target2 = f2->target;
	count(u, t, &u->tasks[t->id].waits, 1);
}

void usync_futex_cmp_requeue_pi(struct usync *u, struct task *t, struct usync_futex *f, uint32_t cmpval,
				struct usync_futex *f2, uint32_t nrequeue)
{
	set_prog(u, t, UP_CMP_REQUEUE_PI, f, 0);
	t->call.word2 = &f2->w;
	t->call.target2 = f2->target;
	t->call.expected = cmpval;
	t->call.nwake = 0; /* the one woken is futex_proxy_trylock_atomic's (t->call.proxy_woken) */
	t->call.nrequeue = nrequeue;
	count(u, t, &u->tasks[t->id].requeues, 1);
}

void usync_futex_requeue(struct usync *u, struct task *t, struct usync_futex *f, uint32_t cmpval,
			 struct usync_futex *f2, uint32_t nwake, uint32_t nrequeue)
{
	set_prog(u, t, UP_REQUEUE, f, 0);
	t->call.word2 = &f2->w;
	t->call.target2 = f2->target;
	t->call.expected = cmpval;
	t->call.nwake = nwake;
	t->call.nrequeue = nrequeue;
	count(u, t, &u->tasks[t->id].requeues, 1);
}

static void acquired(struct usync *u, struct task *t)
{
	struct usync_task *ut = &u->tasks[t->id];
	struct usync_mutex *m = &u->mutexes[ut->mutex];

	if (m->owner != USYNC_NONE) {
		u->violations++;
#ifdef FUTEXSIM_DEBUG
		fprintf(stderr, "futexsim: mutex %u taken by task %u while task %u holds it\n", ut->mutex, t->id,
			m->owner);
		abort();
#endif
	}
	m->owner = t->id;
	ut->acquisitions++;
	if (task_in_window(u->world->tasks, t))
		gsl_histogram_increment(u->latency, (double)(t->clock - ut->lock_started));
}

static void begin_lock(struct usync *u, struct task *t, uint32_t mutex, bool cond_lock, simtime_t work)
{
	struct usync_task *ut = &u->tasks[t->id];

	ut->mutex = mutex;
	ut->lock_started = t->clock + work;
	ut->phase = (uint8_t)(ut->phase << PH_RETURN_SHIFT | PH_LOCK_CAS);
	usync_user_atomic(u, t, UP_CAS, &u->mutexes[mutex].f, 0, cond_lock ? 2 : 1, work);
}

static void begin_unlock(struct usync *u, struct task *t, uint32_t mutex, simtime_t work)
{
	struct usync_task *ut = &u->tasks[t->id];

	ut->mutex = mutex;
	ut->phase = (uint8_t)(ut->phase << PH_RETURN_SHIFT | PH_UNLOCK_XCHG);
	usync_user_atomic(u, t, UP_XCHG, &u->mutexes[mutex].f, 0, 0, work);
}

void usync_lock(struct usync *u, struct task *t, uint32_t mutex, simtime_t work)
{
	begin_lock(u, t, mutex, false, work);
}

void usync_unlock(struct usync *u, struct task *t, simtime_t work)
{
	begin_unlock(u, t, u->tasks[t->id].mutex, work);
}

void usync_cond_wait(struct usync *u, struct task *t, uint32_t cond, uint32_t mutex, simtime_t work)
{
	struct usync_task *ut = &u->tasks[t->id];

	ut->cond = cond;
	ut->mutex = mutex;
	ut->phase = PH_CW_READ;
	usync_user_atomic(u, t, UP_LOAD, &u->conds[cond].seq, 0, 0, work);
}

static void begin_cond_inc(struct usync *u, struct task *t, uint32_t cond, simtime_t work)
{
	struct usync_cond *c = &u->conds[cond];

	u->tasks[t->id].cond = cond;
	u->tasks[t->id].phase = PH_CS_INC;
	usync_user_atomic(u, t, UP_XCHG, &c->seq, 0, c->seq.w.value + 1, work);
}

void usync_cond_signal(struct usync *u, struct task *t, uint32_t cond, simtime_t work)
{
	begin_cond_inc(u, t, cond, work);
	t->call.nwake = 1;
	t->call.nrequeue = 0;
}

void usync_cond_broadcast(struct usync *u, struct task *t, uint32_t cond, uint32_t mutex, bool requeue,
			  simtime_t work)
{
	begin_cond_inc(u, t, cond, work);
	u->tasks[t->id].mutex = mutex;
	t->call.nwake = requeue ? 1 : UINT32_MAX;
	t->call.nrequeue = requeue ? UINT32_MAX : 0;
}

/* The current phase ended without finishing its protocol's caller: return to the
 * enclosing protocol, or finish. */
static bool phase_done(struct usync *u, struct task *t)
{
	struct usync_task *ut = &u->tasks[t->id];

	ut->phase >>= PH_RETURN_SHIFT;
	if (!ut->phase)
		return true;
	return usync_step(u, t);
}

/* A FUTEX_WAKE or CMP_REQUEUE returned: its duration, syscall to return. */
static void wake_done(struct usync *u, struct task *t)
{
	struct usync_task *ut = &u->tasks[t->id];

	count(u, t, &ut->wake_ps, t->clock - ut->call_start);
	count(u, t, &ut->wake_calls, 1);
}

/* Replaces the current phase, keeping the enclosing protocol's. */
static void set_phase(struct usync_task *ut, enum phase ph)
{
	ut->phase = (uint8_t)((ut->phase & ~((1u << PH_RETURN_SHIFT) - 1)) | ph);
}

static void lock_wait(struct usync *u, struct task *t, struct usync_mutex *m)
{
	set_phase(&u->tasks[t->id], PH_LOCK_WAIT);
	usync_user_atomic(u, t, UP_WAIT, &m->f, 2, 0, 0);
	count(u, t, &u->tasks[t->id].waits, 1);
}

static void lock_xchg(struct usync *u, struct task *t, struct usync_mutex *m)
{
	set_phase(&u->tasks[t->id], PH_LOCK_XCHG);
	usync_user_atomic(u, t, UP_XCHG, &m->f, 0, 2, 0);
}

bool usync_step(struct usync *u, struct task *t)
{
	struct usync_task *ut = &u->tasks[t->id];
	struct usync_mutex *m = &u->mutexes[ut->mutex];
	struct usync_cond *c = &u->conds[ut->cond];

	switch (ut->phase & ((1u << PH_RETURN_SHIFT) - 1)) {
	case PH_LOCK_CAS:
		if (t->call.old_value == 0)
			break;
		set_phase(ut, PH_LOCK_LOAD);
		usync_user_atomic(u, t, UP_LOAD, &m->f, 0, 0, 0);
		return false;
	case PH_LOCK_LOAD:
		if (t->call.old_value == 2)
			lock_wait(u, t, m);
		else
			lock_xchg(u, t, m);
		return false;
	case PH_LOCK_XCHG:
		if (t->call.old_value == 0)
			break;
		lock_wait(u, t, m);
		return false;
	case PH_LOCK_WAIT:
		lock_xchg(u, t, m);
		return false;
	case PH_UNLOCK_XCHG:
		/* the exchange released it: from here another task may take it */
		if (m->owner == t->id)
			m->owner = USYNC_NONE;
		if (t->call.old_value != 2)
			return phase_done(u, t);
		set_phase(ut, PH_UNLOCK_WAKE);
		set_prog(u, t, UP_WAKE, &m->f, 0);
		t->call.nwake = 1;
		t->call.nrequeue = 0;
		count(u, t, &ut->wakes, 1);
		return false;
	case PH_UNLOCK_WAKE:
		count(u, t, &ut->woken, t->walk.woken);
		wake_done(u, t);
		return phase_done(u, t);
	case PH_CW_READ:
		/* the value read is the one FUTEX_WAIT expects; we now count as a waiter */
		ut->cond_seq = t->call.old_value;
		c->waiters++;
		ut->phase = PH_CW_UNLOCK;
		begin_unlock(u, t, ut->mutex, 0);
		return false;
	case PH_CW_UNLOCK:
		ut->phase = PH_CW_WAIT;
		set_prog(u, t, UP_WAIT, &c->seq, 0);
		t->call.expected = ut->cond_seq;
		count(u, t, &ut->waits, 1);
		return false;
	case PH_CW_WAIT:
		if (c->waiters)
			c->waiters--;
		ut->phase = PH_CW_RELOCK;
		begin_lock(u, t, ut->mutex, true, 0);
		return false;
	case PH_CS_INC:
		if (!c->waiters)
			break;
		if (t->call.nrequeue) {
			ut->phase = PH_CS_REQUEUE;
			set_prog(u, t, UP_REQUEUE, &c->seq, 0);
			t->call.word2 = &m->f.w;
			t->call.target2 = m->f.target;
			/* cmpval: the value we stored; a later change means another broadcast came */
			t->call.expected = c->seq.w.value;
			count(u, t, &ut->requeues, 1);
		} else {
			ut->phase = PH_CS_WAKE;
			set_prog(u, t, UP_WAKE, &c->seq, 0);
			count(u, t, &ut->wakes, 1);
		}
		return false;
	case PH_CS_WAKE:
	case PH_CS_REQUEUE:
		wake_done(u, t);
		count(u, t, &ut->woken, t->walk.woken);
		count(u, t, &ut->moved, t->walk.moved);
		break;
	default: /* PH_CW_RELOCK: back from the lock */
		break;
	}
	if ((ut->phase & ((1u << PH_RETURN_SHIFT) - 1)) == PH_LOCK_CAS ||
	    (ut->phase & ((1u << PH_RETURN_SHIFT) - 1)) == PH_LOCK_XCHG) {
		/* a lock acquired: the CAS or an exchange found it free */
		acquired(u, t);
		return phase_done(u, t);
	}
	ut->phase = PH_IDLE;
	return true;
}

/* --- private hash replacement --- */

static struct usync_futex *futex_of(const struct futex_word *w)
{
	return (struct usync_futex *)w; /* w is a usync_futex's first member */
}

static bool old_private(const struct usync *u, const struct futex_table *tab, const struct process *proc)
{
	return tab && tab != proc->phash && tab->id >= u->world->ft->nglobal;
}

/* Whether task t holds, or is taking, a bucket lock of one of process `proc`'s
 * replaced hashes. Other ops in flight continue on the new hash. */
static bool in_old_hash(const struct usync *u, const struct task *t, const struct process *proc)
{
	return u->tasks[t->id].in_kernel && task_in_bucket_lock(t) &&
	       (old_private(u, t->target.table, proc) || old_private(u, t->call.target2.table, proc));
}

bool usync_rehash(struct usync *u, uint32_t pid)
{
	const struct world *world = u->world;
	const struct process *proc = &world->ft->procs[pid];

	for (uint32_t i = proc->first_task; i < proc->first_task + proc->ntasks; i++)
		if (in_old_hash(u, &world->tasks->v[i], proc))
			return false;
	for (uint32_t i = 0; i < u->nmutexes; i++)
		if (!u->mutexes[i].f.w.shared && u->mutexes[i].f.w.pid == pid)
			usync_resolve(u, &u->mutexes[i].f, pid);
	for (uint32_t i = 0; i < u->nconds; i++)
		if (!u->conds[i].seq.w.shared && u->conds[i].seq.w.pid == pid)
			usync_resolve(u, &u->conds[i].seq, pid);
	for (uint32_t i = proc->first_task; i < proc->first_task + proc->ntasks; i++) {
		struct task *t = &world->tasks->v[i];

		if (t->wait.word && !t->wait.word->shared) {
			const struct op_target *to = &futex_of(t->wait.word)->target;

			futexq_move(world->tasks, t, to->table, to->bucket);
		}
		if (t->call.word && !t->call.word->shared)
			t->target = futex_of(t->call.word)->target;
		if (t->call.word2 && !t->call.word2->shared)
			t->call.target2 = futex_of(t->call.word2)->target;
	}
	return true;
}

double usync_histogram_quantile(const gsl_histogram *h, double q)
{
	double total = gsl_histogram_sum(h), want = q * total, cum = 0;

	if (total <= 0)
		return 0;
	for (size_t i = 0; i < gsl_histogram_bins(h); i++) {
		double n = gsl_histogram_get(h, i), lo, hi;

		if (n > 0 && cum + n >= want) {
			gsl_histogram_get_range(h, i, &lo, &hi);
			return lo + (hi - lo) * (want - cum) / n; /* linear within the bin */
		}
		cum += n;
	}
	return gsl_histogram_max(h);
}

double usync_latency_quantile(const struct usync *u, double q)
{
	return usync_histogram_quantile(u->latency, q);
}

void usync_figures(const struct usync *u, struct workload_figures *out)
{
	uint64_t calls = 0, waits = 0, wakes = 0, requeues = 0, woken = 0, moved = 0, wake_calls = 0;
	double wake_ps = 0;
	double acq = gsl_histogram_sum(u->latency);

	for (uint32_t i = 0; i < u->ntasks; i++) {
		const struct usync_task *ut = &u->tasks[i];

		calls += ut->futex_calls;
		waits += ut->waits;
		wakes += ut->wakes;
		requeues += ut->requeues;
		woken += ut->woken;
		moved += ut->moved;
		wake_calls += ut->wake_calls;
		wake_ps += (double)ut->wake_ps;
	}
	workload_figure_add(out, "lock_acquisitions", "count", acq);
	workload_figure_add(out, "latency_p50", "ps", usync_latency_quantile(u, 0.50));
	workload_figure_add(out, "latency_p90", "ps", usync_latency_quantile(u, 0.90));
	workload_figure_add(out, "latency_p99", "ps", usync_latency_quantile(u, 0.99));
	workload_figure_add(out, "latency_p999", "ps", usync_latency_quantile(u, 0.999));
	workload_figure_add(out, "latency_mean", "ps", acq > 0 ? gsl_histogram_mean(u->latency) : 0);
	workload_figure_add(out, "futex_calls", "count", (double)calls);
	workload_figure_add(out, "futex_calls_per_acquisition", "ratio", acq > 0 ? (double)calls / acq : 0);
	workload_figure_add(out, "futex_waits", "count", (double)waits);
	workload_figure_add(out, "futex_wakes", "count", (double)wakes);
	workload_figure_add(out, "futex_requeues", "count", (double)requeues);
	workload_figure_add(out, "waiters_woken", "count", (double)woken);
	workload_figure_add(out, "waiters_requeued", "count", (double)moved);
	workload_figure_add(out, "wake_call_mean", "ps", wake_calls ? wake_ps / (double)wake_calls : 0);
	workload_figure_add(out, "mutual_exclusion_violations", "count", (double)u->violations);
	out->nbins = (uint32_t)gsl_histogram_bins(u->latency);
	out->edges = u->latency->range;
	out->counts = u->latency->bin;
}

uint64_t usync_bytes(uint32_t ntasks, uint32_t nmutexes, uint32_t nconds, bool pi)
{
	return (uint64_t)nmutexes * sizeof(struct usync_mutex) + (uint64_t)nconds * sizeof(struct usync_cond) +
	       (uint64_t)ntasks * (sizeof(struct usync_task) +
				   NPROG_VARIANTS * (pi ? UP_NPROGS : UP_NPROGS_PLAIN) * (USYNC_MAX_UOPS * sizeof(struct uop) + sizeof(uint32_t))) +
	       LAT_DECADES * LAT_BINS_PER_DECADE * 2 * sizeof(double);
}
