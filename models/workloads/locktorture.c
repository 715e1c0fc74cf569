/* SPDX-License-Identifier: MIT */
#include "models/workloads/locktorture.h"

#include <stdlib.h>
#include <string.h>

#include "models/futex_table.h"
#include "models/procset.h"
#include "models/world.h"
#include "sim/core/config.h"

#define MAX_UOPS 16u

/* torture_spin_lock_write_delay() (kernel/locking/locktorture.c, 5.12) */
#define SHORTDELAY_US 2u   /* udelay(shortdelay_us), odds 1 in n * 2 * shortdelay_us */
#define LONGDELAY_MS 100u  /* mdelay(longdelay_ms), odds 1 in n * 2000 * longdelay_ms */
/* lock_torture_writer(): schedule_timeout_uninterruptible(1) when
 * (torture_random() & 0xfffff) == 0 */
#define SLEEP_ODDS (1u << 20)

enum delay_mode { DELAY_RANDOM, DELAY_MEAN, DELAY_OFF };
static const char *const delay_modes[] = { "random", "mean", "off", NULL };

struct locktorture_params {
	struct procset_params pp;
	struct fs_cost loop_work, cs_work;
	int short_mode, long_mode;
	simtime_t jiffy_ps;
	uint32_t stats_stride;
};

enum lt_phase { LT_LOOP, LT_SLEEP };

struct locktorture {
	const struct world *world;
	const struct locktorture_params *p;
	struct procset ps;
	struct futex_table lock_table;   /* torture_spinlock as a one-bucket table: the lock
					    micro-ops find a lock and its line through a table */
	uint32_t lock_fields[BF_NFIELDS];
	uint32_t lock, lock_line, held_line;
	uint32_t *stats_lines;           /* per writer: the line of its lock_stress_stats */
	struct uop prog[MAX_UOPS];       /* one loop pass, the same for every writer */
	uint32_t nuops;
	struct uop nap;                  /* schedule_timeout_uninterruptible(1) */
	uint8_t *phase;                  /* per task: enum lt_phase of the program it runs */
	uint32_t short_odds, long_odds;  /* 1 in this many ops */
	simtime_t short_ps, long_ps;     /* the delays */
	uint64_t short_delays, long_delays, sleeps; /* drawn in the window */
};

static int parse(const struct yt_node *n, const struct machine *m, void **params, struct fs_error *e)
{
	static const char *const keys[] = { "type",	  PROCSET_KEYS, "loop_work", "cs_work", "short_delay",
					    "long_delay", "jiffy",	"stats_stride", NULL };
	struct locktorture_params *p = calloc(1, sizeof(*p));

	*params = p;
	if (!p)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	if (cfg_check_keys(n, "workload", keys, e) < 0 || procset_parse(n, m, &p->pp, e) < 0)
		return -1;
	if (/* [A] the loop outside the lock: torture_random(), the indirect calls of
	       cur_ops (task_boost, writelock, writeunlock, write_delay), stutter_wait()'s
	       cond_resched and torture_must_stop() */
	    cfg_get_cost(n, "loop_work", fs_cost_of_cycles(100), &p->loop_work, e) < 0 ||
	    /* [A] under the lock besides its line accesses: three torture_random() and
	       three '%' by a run-time value (64-bit DIVs, 32-96 cycles each on Haswell:
	       docs/sources.md: agner-instruction-tables), the WARN_ON_ONCE tests */
	    cfg_get_cost(n, "cs_work", fs_cost_of_cycles(150), &p->cs_work, e) < 0 ||
	    cfg_get_enum(n, "short_delay", delay_modes, DELAY_RANDOM, &p->short_mode, e) < 0 ||
	    cfg_get_enum(n, "long_delay", delay_modes, DELAY_MEAN, &p->long_mode, e) < 0 ||
	    /* [A] HZ=250, the Kconfig default */
	    cfg_get_duration(n, "jiffy", 4 * PS_PER_MS, 0, PS_PER_S, &p->jiffy_ps, e) < 0 ||
	    /* sizeof(struct lock_stress_stats): two longs */
	    cfg_get_u32(n, "stats_stride", 16, 8, 4096, &p->stats_stride, e) < 0)
		return -1;
	if (p->stats_stride % 8) {
		const struct yt_node *s = yt_get(n, "stats_stride");

		return fs_fail_at(e, &s->mark, "stats_stride: %u is not a multiple of 8 (the counters are longs)",
				  p->stats_stride);
	}
	if (p->pp.processes != 1)
		return fs_fail_at(e, &yt_get(n, "processes")->mark,
				  "processes: locktorture's writers are kernel threads of one module");
	if ((uint64_t)p->pp.threads * 2000 * LONGDELAY_MS > UINT32_MAX)
		return fs_fail_at(e, &n->mark, "threads: %u writers, at most %u", p->pp.threads,
				  (unsigned)(UINT32_MAX / (2000ull * LONGDELAY_MS)));
	return 0;
}

static void free_state(void *state)
{
	struct locktorture *w = state;

	if (!w)
		return;
	procset_free(&w->ps);
	free(w->stats_lines);
	free(w->phase);
	free(w);
}

/* torture_spinlock, the two bools, the statistics array: their lines. */
static int place(struct locktorture *w, struct fs_error *e)
{
	static const char *const lock_fields[] = { "lock", NULL };
	static const char *const held_fields[] = { "lock_is_write_held", "lock_is_read_held", NULL };
	static const char *const stats_fields[] = { "n_lock_fail", "n_lock_acquired", NULL };
	struct memmap *mem = w->world->mem;
	uint32_t nthreads = w->p->pp.threads, stride = w->p->stats_stride;
	uint32_t lock_object = memmap_object(mem, "torture_spinlock", NULL, lock_fields);
	uint32_t held_object = memmap_object(mem, "lock_is_write_held", NULL, held_fields);
	uint32_t stats_object = memmap_object(mem, "lock_stress_stats", "writer", stats_fields);
	uint64_t stats;

	if (lock_object == MEMMAP_NONE || held_object == MEMMAP_NONE || stats_object == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	/* each in a 128-byte pair of its own: what shares their lines in the kernel
	 * image is not known, and nothing else the loop touches is assumed there [A] */
	w->lock_line = memmap_line(mem, memmap_alloc(mem, MEM_KERNEL_NODE, 0, 128, 128), lock_object, 0, 0);
	w->held_line = memmap_line(mem, memmap_alloc(mem, MEM_KERNEL_NODE, 0, 128, 128), held_object, 0, 0);
	/* kmalloc_array(n, 16): a power-of-two kmalloc cache aligns to its size, 128
	 * bytes at least from 8 writers on */
	stats = memmap_alloc(mem, MEM_KERNEL_NODE, 0, (uint64_t)nthreads * stride, 128);
	if (w->lock_line == MEMMAP_NONE || w->held_line == MEMMAP_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (uint32_t i = 0; i < nthreads; i++) {
		w->stats_lines[i] = memmap_line(mem, stats + (uint64_t)i * stride + 8, stats_object, i, 1);
		if (w->stats_lines[i] == MEMMAP_NONE)
			return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	}
	/* the lock as bucket 0 of a table of one: the lock micro-ops' operand */
	w->lock = spinlock_add(w->world->ft->locks);
	if (w->lock == SPIN_NONE)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	for (int f = 0; f < BF_NFIELDS; f++)
		w->lock_fields[f] = MEMMAP_NONE;
	w->lock_fields[BF_LOCK] = w->lock_line;
	w->lock_table = (struct futex_table){
		.id = UINT32_MAX, .name = "torture_spinlock", .size = 1, .field_lines = w->lock_fields,
		.contiguous = false, .lock0 = w->lock, .bucket_size = 64,
	};
	for (int f = 0; f < BF_NFIELDS; f++)
		w->lock_table.off[f] = LAYOUT_ABSENT;
	return 0;
}

/* One pass of lock_torture_writer()'s loop (the header's listing). */
static int build_program(struct locktorture *w, struct fs_error *e)
{
	const struct world *world = w->world;
	const struct kernel_design *k = world->k;
	struct path_builder b = procset_builder(&w->ps, &world->tasks->v[0], PROG_NORMAL, false, w->prog, MAX_UOPS);
	simtime_t slow = b.costs_ps[k->preempt_rt ? KC_RTLOCK_SLOWPATH : KC_LOCK_SLOWPATH];

	path_emit_work(&b, fs_cost_ps(w->p->loop_work, world->m->freq_khz));
	/* spin_lock(&torture_spinlock), as a futex bucket's lock is taken
	 * (models/futex_path.c: step_lock) */
	if (k->preempt_rt)
		path_emit_work(&b, b.costs_ps[KC_RTLOCK_FAST]);
	path_emit(&b, (struct uop){ .kind = UOP_LOCK, .operand = OPND_BUCKET_LOCK, .work_ps = slow });
	/* WARN_ON_ONCE(lock_is_write_held); lock_is_write_held = true: a load, then a
	 * store of the line, one request for ownership; WARN_ON_ONCE(lock_is_read_held) */
	path_emit_access(&b, ACCESS_READ, OPND_LINE, w->held_line);
	path_emit_access(&b, ACCESS_WRITE, OPND_LINE, w->held_line);
	path_emit_access(&b, ACCESS_READ, OPND_LINE, w->held_line);
	/* lwsp->n_lock_acquired++: this writer's line of the statistics (the op's target) */
	path_emit_access(&b, ACCESS_READ, OPND_WORD_LINE, 0);
	path_emit_access(&b, ACCESS_WRITE, OPND_WORD_LINE, 0);
	/* torture_spin_lock_write_delay(): the delays drawn for the op, then its own work */
	path_emit(&b, (struct uop){ .kind = UOP_WORK, .operand = OPND_TASK_WORK });
	path_emit_work(&b, fs_cost_ps(w->p->cs_work, world->m->freq_khz));
	/* lock_is_write_held = false; spin_unlock() */
	path_emit_access(&b, ACCESS_WRITE, OPND_LINE, w->held_line);
	path_emit(&b, (struct uop){ .kind = UOP_UNLOCK, .operand = OPND_BUCKET_LOCK });
	if (k->preempt_rt)
		path_emit_work(&b, b.costs_ps[KC_RTLOCK_FAST]);
	if (b.overflow)
		return fs_fail(e, FS_ERR_LIMIT, "locktorture: program longer than %u micro-ops", MAX_UOPS);
	w->nuops = b.n;
	return 0;
}

static struct op_target target_of(const struct locktorture *w, uint32_t thread)
{
	return (struct op_target){
		.table = &w->lock_table, .bucket = 0, .word_line = w->stats_lines[thread], .page_line = COH_NONE,
		.pi_line = COH_NONE,
	};
}

/* The delays of task t's next pass, drawn as torture_spin_lock_write_delay() draws
 * them (or their means), in TSC time: divided by the SMT slowdown the work micro-op
 * will apply when the sibling is busy. */
static void next_pass(struct locktorture *w, struct task *t)
{
	const struct locktorture_params *p = w->p;
	struct tasks *ts = w->world->tasks;
	gsl_rng *rng = w->world->rng;
	simtime_t d = 0;
	bool window = task_in_window(ts, t);

	if (p->long_mode == DELAY_MEAN)
		d += w->long_ps / w->long_odds;
	else if (p->long_mode == DELAY_RANDOM && gsl_rng_uniform_int(rng, w->long_odds) == 0) {
		d += w->long_ps;
		w->long_delays += window;
	}
	if (p->short_mode == DELAY_MEAN)
		d += w->short_ps / w->short_odds;
	else if (p->short_mode == DELAY_RANDOM && gsl_rng_uniform_int(rng, w->short_odds) == 0) {
		d += w->short_ps;
		w->short_delays += window;
	}
	if (d && ts->core_busy[t->core] > 1)
		d = simtime_scale_milli(d, 1000000 / w->world->m->smt_slowdown_milli);
	t->call.work_ps = d;
	w->phase[t->id] = LT_LOOP;
	t->prog = w->prog;
	t->nuops = w->nuops;
}

static void thread_started(void *ctx, struct task *t)
{
	struct locktorture *w = ctx;

	t->uncounted = true;
	t->target = target_of(w, t->id);
	next_pass(w, t);
	task_start(w->world->tasks, t, t->clock);
}

static bool publish(void *ctx, uint32_t pid)
{
	(void)ctx;
	(void)pid;
	return true; /* the writers make no futex calls */
}

static int setup(const struct world *world, const void *params, void **state, struct fs_error *e)
{
	static const struct procset_ops ops = { thread_started, publish };
	const struct locktorture_params *p = params;
	struct locktorture *w = calloc(1, sizeof(*w));
	uint32_t n = p->pp.threads;

	*state = w;
	if (!w)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->world = world;
	w->p = p;
	w->stats_lines = calloc(n, sizeof(*w->stats_lines));
	w->phase = calloc(world->tasks->n, sizeof(*w->phase));
	if (!w->stats_lines || !w->phase)
		return fs_fail(e, FS_ERR_LIMIT, "out of memory");
	w->short_odds = n * 2 * SHORTDELAY_US;
	w->long_odds = n * 2000 * LONGDELAY_MS;
	w->short_ps = SHORTDELAY_US * PS_PER_US;
	w->long_ps = (simtime_t)LONGDELAY_MS * PS_PER_MS;
	w->nap = (struct uop){ .kind = UOP_NAP, .operand = OPND_NONE };
	if (procset_init(&w->ps, world, &p->pp, false, &ops, w, e) < 0 || place(w, e) < 0 || build_program(w, e) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		struct task *t = &world->tasks->v[i];
		struct op_target target = target_of(w, i);

		t->prog = w->prog;
		t->nuops = w->nuops;
		task_note_lines(world->tasks, t, &target, 1);
	}
	procset_start(&w->ps);
	return 0;
}

static void program_done(void *state, struct task *t)
{
	struct locktorture *w = state;
	struct tasks *ts = w->world->tasks;

	if (w->phase[t->id] == LT_LOOP) {
		task_count_op(ts, t);
		if (procset_exiting(&w->ps, t))
			return;
		if (gsl_rng_uniform_int(w->world->rng, SLEEP_ODDS) == 0) {
			/* schedule_timeout_uninterruptible(1): off the CPU for a jiffy */
			w->sleeps += task_in_window(ts, t);
			w->phase[t->id] = LT_SLEEP;
			t->prog = &w->nap;
			t->nuops = 1;
			t->call.work_ps = w->p->jiffy_ps;
			return;
		}
	}
	next_pass(w, t);
}

static void print_header(const void *params, const void *state, double secs, FILE *out)
{
	const struct locktorture_params *p = params;
	const struct locktorture *w = state;

	fprintf(out, "Run summary: locktorture torture_type=spin_lock (%s), %u writers, 0 readers, for %.6g secs.\n\n",
		!w ? "" : w->world->k->preempt_rt ? "rtlock" : w->world->k->spinlock->name, p->pp.threads, secs);
}

static void print_thread(const void *state, const struct task *t, uint64_t ops_per_sec, FILE *out)
{
	(void)state;
	fprintf(out, "[writer %3u] cpu %3u [ %llu ops/sec ]\n", t->id, t->cpu, (unsigned long long)ops_per_sec);
}

static void figures(const void *state, struct workload_figures *out)
{
	const struct locktorture *w = state;
	const struct spinlock *l = &w->world->ft->locks->locks[w->lock];

	workload_figure_add(out, "lock_acquisitions", "count", (double)l->acquisitions);
	workload_figure_add(out, "lock_contended", "count", (double)l->contended);
	workload_figure_add(out, "lock_wait_mean", "ps", l->contended ? (double)l->wait_ps / (double)l->contended : 0);
	workload_figure_add(out, "short_delays", "count", (double)w->short_delays);
	workload_figure_add(out, "long_delays", "count", (double)w->long_delays);
	workload_figure_add(out, "sleeps", "count", (double)w->sleeps);
	procset_figures(&w->ps, out);
}

/* What setup allocates and maps (sim/estimate.h); keep in step with setup. */
static void size(const void *params, struct workload_size *out)
{
	const struct locktorture_params *p = params;

	out->processes = 1;
	out->max_process_threads = p->pp.threads + 1;
	out->user_lines = 0;
	out->targets = 0;
	out->step_work_ps = 0;
	out->bytes = (uint64_t)p->pp.threads * (sizeof(uint32_t) + 1) + sizeof(struct locktorture);
}

const struct workload_type workload_locktorture = {
	.name = "locktorture",
	.description = "locktorture's spin_lock writers: spin_lock, write delay, spin_unlock on one kernel spinlock",
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
