/* SPDX-License-Identifier: MIT */
/* The time series of a run: ops per task and line transfers per interval of
 * simulated time (output.interval), over the measuring window.
 *
 * Ops are attributed to the interval in which they complete (their task's
 * clock at completion, reported through series_note_op). Transfers are read from
 * the coherence model's running totals by an engine event at the end of each
 * interval, so each one lands in the interval in which the simulator counted it.
 *
 * A task may run ahead of the engine (models/task.h) and complete ops in
 * intervals the sampler has not closed yet; those counts wait in a ring of
 * future intervals per task, which grows while tasks run further ahead, up to
 * TS_MAX_AHEAD_BYTES. An op beyond that horizon (only a task that shares no
 * line with anything runs that far ahead) is counted in the ring's last
 * interval and in `ops_clamped`, so sums stay exact.
 *
 * Closed intervals are buffered in rows and handed to a sink (the result file)
 * a chunk at a time, so memory stays bounded however long the run is. With no
 * sink, rows are dropped. The sum of a task's ops over all rows equals its
 * task->ops; the sum of transfers equals coh->total_transfers at the end.
 */
#ifndef FUTEXSIM_TIMESERIES_H
#define FUTEXSIM_TIMESERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "models/coherence.h"
#include "sim/core/engine.h"
#include "sim/core/error.h"
#include "sim/core/simtime.h"

#define TS_MAX_AHEAD_BYTES (64u << 20)

/* Rows of closed intervals, oldest first: row i starts at time[i] (ps since the
 * start of the run) and has ops[i * nthreads + task] and transfers[i][class]. */
struct series_rows {
	uint32_t n, nthreads;
	const uint64_t *time;
	const uint64_t *ops;
	const uint64_t (*transfers)[XFER_NCLASSES];
};

/* Takes the rows (they are reused after it returns); -1 with `e` filled on failure. */
typedef int (*series_sink_fn)(void *ctx, const struct series_rows *rows, struct fs_error *e);

struct timeseries {
	struct engine *eng;
	const struct coherence *coh;
	uint32_t kind;                 /* engine event: the open interval ends */
	simtime_t start, end, interval;
	uint32_t nthreads;
	uint64_t open;                 /* index of the interval being filled */
	simtime_t open_end;            /* its end: start + (open + 1) * interval */
	uint64_t nintervals;           /* in the full window (the last may be shorter) */
	uint64_t ops_clamped;
	uint64_t seen[XFER_NCLASSES];  /* coherence totals at the last close */

	uint64_t *ring;                /* [slot * nthreads + task], slot = interval % ring_slots */
	uint64_t ring_slots;           /* a power of two */

	series_sink_fn sink;
	void *sink_ctx;
	uint32_t chunk_rows;           /* rows handed to the sink at a time */
	uint32_t nrows;
	uint64_t *row_time, *row_ops;
	uint64_t (*row_transfers)[XFER_NCLASSES];

	bool failed;                   /* the sink failed or memory ran out: the engine was stopped */
	struct fs_error err;
};

/* Rows per chunk for `nthreads` columns of 8 bytes: about 64 KiB, at least 1. */
uint32_t series_chunk_rows(uint32_t nthreads);

/* Samples [start, end) every `interval` ps. -1 when out of memory. */
int series_init(struct timeseries *series, struct engine *eng, const struct coherence *coh, uint32_t nthreads,
	    simtime_t start, simtime_t end, simtime_t interval);
void series_free(struct timeseries *series);

/* Sends closed rows to `sink` (call before the run; NULL drops them). */
void series_set_sink(struct timeseries *series, series_sink_fn sink, void *ctx);

/* Schedules the first interval's end (call once, before running the engine). */
void series_start(struct timeseries *series);

/* Task `task` completed an op at `when` (>= start, < end, >= the engine's now). */
void series_note_op(struct timeseries *series, uint32_t task, simtime_t when);

/* Closes the remaining intervals after the run stopped at the engine's now:
 * all of them after a full run; after an interrupted one, up to the interval
 * holding `now` or the last one with ops, whichever is later. Flushes the rows.
 * -1 with `e` filled when the sink fails (or failed during the run). */
int series_finish(struct timeseries *series, bool interrupted, struct fs_error *e);

/* Bytes of a time series of `ntasks` tasks: a ring of future intervals per
 * task (it starts small and grows only when a task runs far ahead) and a
 * buffered chunk of rows. */
uint64_t series_bytes(uint64_t ntasks);

#endif
