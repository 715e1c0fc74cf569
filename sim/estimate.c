/* SPDX-License-Identifier: MIT */
#include "sim/estimate.h"

#include <stdarg.h>
#include <stdio.h>

#include "models/coherence.h"
#include "models/futex_path.h"
#include "models/futex_table.h"
#include "models/memmap.h"
#include "models/spinlock.h"
#include "models/task.h"
#include "sim/core/bytes.h"
#include "sim/result_rows.h"
#include "sim/timeseries.h"

/* Everything of fixed size: the YAML docs, the table directory, libraries' own. */
#define FIXED_BYTES (8ull << 20)

void estimate_memory(const struct scenario *sc, struct estimate *est)
{
	const struct machine *m = &sc->machine;
	struct workload_size w = { .processes = 1, .max_process_threads = 2 };
	uint32_t ntasks = sc->wl_type->ntasks(sc->wl_params);
	uint64_t lines, buckets, bytes;

	/* a workload type without the hook counts with its tasks alone */
	if (sc->wl_type->size)
		sc->wl_type->size(sc->wl_params, &w);
	futex_tables_size(&sc->kernel, m, w.processes, w.max_process_threads, &lines, &buckets);
	lines = bytes_add(lines, w.user_lines);

	/* each model's own estimate, from the allocator it sizes */
	bytes = bytes_add(coh_bytes(lines, m), memmap_bytes(lines));
	bytes = bytes_add(bytes, result_rows_bytes(lines, buckets));
	bytes = bytes_add(bytes, bytes_add(spinlocks_bytes(buckets), futex_tables_bytes(buckets)));
	bytes = bytes_add(bytes, w.bytes);
	bytes = bytes_add(bytes, bytes_add(series_bytes(ntasks), tasks_bytes(ntasks)));
	bytes = bytes_add(bytes, machine_bytes(m));
	bytes = bytes_add(bytes, FIXED_BYTES);

	est->bytes = bytes;
	est->lines = lines;
	est->buckets = buckets;
	est->targets = w.targets;
}

void estimate_events(const struct scenario *sc, const struct tasks *ts, uint64_t intervals, struct estimate *est)
{
	uint32_t nthreads = sc->wl_type->nthreads(sc->wl_params);
	simtime_t end = sc->warmup + sc->duration;
	struct workload_size w = { 0 };
	simtime_t floor = 0;
	uint64_t uops = 1;

	if (sc->wl_type->size)
		sc->wl_type->size(sc->wl_params, &w);

	/* The cheapest thread program's fixed local work. Random work (which may be
	 * ~0) is left out; a program that branches around work would make this an
	 * over-estimate of the floor, but hash-bench's programs run straight through. */
	for (uint32_t i = 0; i < nthreads && i < ts->n; i++) {
		const struct task *t = &ts->v[i];
		simtime_t work = 0;

		for (uint32_t u = 0; u < t->nuops; u++)
			if (t->prog[u].kind == UOP_WORK && t->prog[u].operand != OPND_RANDOM_EXP)
				work = bytes_add(work, t->prog[u].work_ps);
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
	est->ops = bytes_mul(ts->n, end / bytes_add(floor, w.step_work_ps) + 1);
	est->events = bytes_add(bytes_mul(est->ops, uops), intervals + 1);
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
