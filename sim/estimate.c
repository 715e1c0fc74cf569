#include "sim/estimate.h"

#include <stdarg.h>
#include <stdio.h>

#include "models/coherence.h"
#include "models/futex_path.h"
#include "models/futex_table.h"
#include "models/memmap.h"
#include "models/spinlock.h"
#include "sim/core/engine.h"
#include "sim/sim.h"

/* What the result file's writer gathers per line with traffic (sim/h5out.c:
 * a dozen columns and a description string) and per bucket. */
#define RESULT_BYTES_PER_LINE 192u
#define RESULT_BYTES_PER_BUCKET 64u
/* Engine queue, task state, coherence requests, time series ring and the like,
 * per task: measured at 19 KiB with 65536 blocking threads, so 4 KiB on top of
 * what the workload reports. */
#define BYTES_PER_TASK 4096u
/* Everything of fixed size: the YAML docs, the table directory, libraries' own. */
#define FIXED_BYTES (8ull << 20)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The capacity an array that doubles from `first` reaches to hold n. */
static uint64_t doubled(uint64_t n, uint64_t first)
{
	uint64_t cap = first;

	while (cap < n && cap < (UINT64_MAX >> 1))
		cap <<= 1;
	return cap;
}

static uint64_t lines_of(uint64_t bytes)
{
	return bytes / LINE_SIZE + 2; /* a misaligned start touches one more on each side */
}

void estimate_memory(const struct scenario *sc, struct estimate *est)
{
	const struct machine *m = &sc->machine;
	const struct kernel_design *k = &sc->kernel;
	struct workload_size w = { .processes = 1, .max_process_threads = 2 };
	uint32_t nglobal = k->global.per_node ? m->nodes : 1;
	uint64_t gbuckets = kernel_global_buckets(k, m->ncpus, nglobal), pbuckets, lines, buckets, bytes, per_line, phashes;
	uint32_t ntasks = sc->wl_type->ntasks(sc->wl_params);

	/* a workload type without the hook counts with its tasks alone */
	if (sc->wl_type->size)
		sc->wl_type->size(sc->wl_params, &w);
	pbuckets = kernel_private_buckets(k, w.max_process_threads, m->ncpus, (uint32_t)gbuckets);
	/* an auto-sized private hash may be replaced as threads are created: the
	 * old ones stay (their lines too), and the sizes double, so 2x the last */
	phashes = sat_mul(w.processes, k->private_hash.buckets < 0 ? 2 : 1);
	buckets = sat_add(sat_mul(nglobal, gbuckets), sat_mul(phashes, pbuckets));
	lines = sat_mul(nglobal, lines_of(sat_mul(gbuckets, k->bucket.size)));
	lines = sat_add(lines, sat_mul(phashes,
				       sat_add(lines_of(sat_mul(pbuckets, k->bucket.size)),
					       lines_of(k->phash_header.size))));
	/* per CPU: an MCS queue node, and per process a futex_ref counter; the mm */
	lines = sat_add(lines, m->ncpus);
	lines = sat_add(lines, sat_mul(w.processes, sat_add(m->ncpus, lines_of(k->mm.size))));
	lines = sat_add(lines, w.user_lines);

	/* coherence state, address and sharer set per line, the memory map's label,
	 * and its address map (kept under 3/4 full); arrays at doubled capacity */
	per_line = sizeof(struct line) + sizeof(uint64_t) + ((uint64_t)m->ncpus + 63) / 64 * sizeof(uint64_t) +
		   sizeof(struct line_label);
	bytes = sat_mul(doubled(lines, 1024), per_line);
	bytes = sat_add(bytes, sat_mul(doubled(sat_mul(lines, 2), 1024), sizeof(uint64_t) + sizeof(uint32_t)));
	bytes = sat_add(bytes, sat_mul(lines, RESULT_BYTES_PER_LINE));
	/* per bucket: a spinlock (doubling array), its field lines and occupancy */
	bytes = sat_add(bytes, sat_mul(doubled(buckets, 1024), sizeof(struct spinlock)));
	bytes = sat_add(bytes, sat_mul(buckets, BF_NFIELDS * sizeof(uint32_t) + sizeof(uint32_t) +
						   RESULT_BYTES_PER_BUCKET));
	bytes = sat_add(bytes, w.bytes);
	/* the time series: a ring of future intervals per task (it starts small and
	 * grows only when a task runs far ahead) and a buffered chunk of rows */
	bytes = sat_add(bytes, sat_mul(ntasks, 64 * sizeof(uint64_t)) + (64u << 10));
	bytes = sat_add(bytes, sat_mul(ntasks, BYTES_PER_TASK));
	/* the machine's per-pair tables */
	bytes = sat_add(bytes, sat_mul(sat_mul(m->ncpus, m->nodes), 2 * sizeof(simtime_t)));
	bytes = sat_add(bytes, FIXED_BYTES);

	est->bytes = bytes;
	est->lines = lines;
	est->buckets = buckets;
	est->targets = w.targets;
}

void estimate_events(const struct sim *s, struct estimate *est)
{
	const struct tasks *ts = &s->tasks;
	uint32_t nthreads = s->nthreads;
	struct workload_size w = { 0 };
	simtime_t floor = 0;
	uint64_t uops = 1;

	if (s->sc->wl_type->size)
		s->sc->wl_type->size(s->sc->wl_params, &w);

	/* The cheapest thread program's fixed local work. Random work (which may be
	 * ~0) is left out; a program that branches around work would make this an
	 * over-estimate of the floor, but hash-bench's programs run straight through. */
	for (uint32_t i = 0; i < nthreads && i < ts->n; i++) {
		const struct task *t = &ts->v[i];
		simtime_t work = 0;

		for (uint32_t u = 0; u < t->nuops; u++)
			if (t->prog[u].kind == UOP_WORK && t->prog[u].operand != OPND_RANDOM_EXP)
				work = sat_add(work, t->prog[u].work_ps);
		if (i == 0 || work < floor)
			floor = work;
		if (t->nuops + 1u > uops)
			uops = t->nuops + 1u;
	}
	est->op_floor_ps = floor;
	if (floor == 0) {
		est->ops = est->events = UINT64_MAX;
		return;
	}
	/* each task at most end / (floor + the workload's least mean draw) ops
	 * (background tasks counted like threads), each at most one event per
	 * micro-op; one event per interval */
	est->ops = sat_mul(ts->n, s->end / sat_add(floor, w.step_work_ps) + 1);
	est->events = sat_add(sat_mul(est->ops, uops), s->series.nintervals + 1);
}

static double gib(uint64_t bytes)
{
	return (double)bytes / (double)(1ull << 30);
}

/* Where a refusal points: the limit's key when the scenario gives it, else
 * the workload, whose size drives the estimate. */
static const struct fs_mark *blame(const struct scenario *sc, const char *limit)
{
	const struct yt_node *n = limit ? yt_get(yt_get(sc->resolved, "run"), limit) : NULL;

	if (!n || !n->mark.line)
		n = yt_get(sc->resolved, "workload");
	return n && n->mark.line ? &n->mark : NULL;
}

/* fs_fail_at with the status of a refusal. */
static int __attribute__((format(printf, 3, 4)))
refuse(struct fs_error *e, const struct fs_mark *at, const char *fmt, ...)
{
	char msg[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fs_fail_at(e, at, "scenario refused: %s", msg);
	e->status = FS_ERR_LIMIT;
	return -1;
}

int estimate_check_memory(const struct scenario *sc, const struct estimate *est, struct fs_error *e)
{
	if (est->bytes <= sc->max_memory)
		return 0;
	return refuse(e, blame(sc, "max_memory"),
		      "its model would take about %.2f GiB of memory (%llu cache lines, %llu hash buckets, "
		      "%llu futex targets), more than run.max_memory = %.2f GiB (raise run.max_memory, or use "
		      "fewer threads, futexes or buckets)",
		      gib(est->bytes), (unsigned long long)est->lines, (unsigned long long)est->buckets,
		      (unsigned long long)est->targets, gib(sc->max_memory));
}

int estimate_check_sums(const struct scenario *sc, struct fs_error *e)
{
	uint64_t ntasks = sc->wl_type->ntasks(sc->wl_params), end = sc->warmup + sc->duration;

	if (end <= UINT64_MAX / (ntasks ? ntasks : 1))
		return 0;
	return fs_fail_at(e, blame(sc, NULL),
			  "%llu tasks x %.6g s of simulated time could overflow the 64-bit sums of waiting time "
			  "(expected tasks x (run.warmup + run.duration) below 2^64 ps: at most %.6g s with %llu "
			  "tasks)",
			  (unsigned long long)ntasks, (double)end / 1e12, (double)(UINT64_MAX / ntasks) / 1e12,
			  (unsigned long long)ntasks);
}

int estimate_check_events(const struct scenario *sc, const struct estimate *est, struct fs_error *e)
{
	if (est->op_floor_ps == 0)
		return fs_fail_at(e, blame(sc, NULL),
				  "scenario refused: an op of its workload takes no simulated time (loop_cost, the "
				  "syscall and every cost on the futex path are 0), so the run would never end "
				  "(expected a path whose local work adds up to more than 0ps)");
	if (est->events <= sc->max_events)
		return 0;
	return refuse(e, blame(sc, "max_events"),
		      "the run may need up to %.3g engine events (up to %.3g ops of at least %.3g ns each over "
		      "%.6g s simulated), more than run.max_events = %.3g (raise run.max_events, or shorten "
		      "run.duration)",
		      (double)est->events, (double)est->ops, (double)est->op_floor_ps / 1e3,
		      (double)(sc->warmup + sc->duration) / 1e12, (double)sc->max_events);
}
