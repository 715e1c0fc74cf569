#include "sim/timeseries.h"

#include <stdlib.h>
#include <string.h>

/* About 64 KiB per chunk of the ops dataset: inside HDF5's recommended 10 KiB
 * to 1 MiB, and small enough that a chunk's worth of rows costs little memory. */
#define TS_CHUNK_BYTES 65536u

uint32_t ts_chunk_rows(uint32_t nthreads)
{
	uint64_t rows = TS_CHUNK_BYTES / ((uint64_t)(nthreads ? nthreads : 1) * sizeof(uint64_t));

	return rows ? (uint32_t)rows : 1;
}

static void fail(struct timeseries *ts, int status, const char *msg)
{
	if (!ts->failed)
		fs_fail(&ts->err, status, "%s", msg);
	ts->failed = true;
	ts->eng->stop = true;
}

static uint64_t *slot(const struct timeseries *ts, uint64_t interval)
{
	return &ts->ring[(interval & (ts->ring_slots - 1)) * ts->nthreads];
}

static int flush(struct timeseries *ts)
{
	struct ts_rows rows = { ts->nrows, ts->nthreads, ts->row_time, ts->row_ops,
				(const uint64_t(*)[XFER_NCLASSES])ts->row_transfers };
	struct fs_error e = { 0 };

	if (!ts->nrows || !ts->sink)
		return 0;
	ts->nrows = 0;
	if (ts->sink(ts->sink_ctx, &rows, &e) < 0) {
		fail(ts, e.status ? e.status : FS_ERR_OUTPUT, e.msg);
		return -1;
	}
	return 0;
}

/* The open interval is over: its row takes the ops waiting in its slot and the
 * transfers counted since the last close. */
static void close_interval(struct timeseries *ts)
{
	uint64_t *ops = slot(ts, ts->open);

	if (ts->sink) {
		uint32_t r = ts->nrows++;

		ts->row_time[r] = ts->open_end - ts->interval;
		memcpy(&ts->row_ops[(size_t)r * ts->nthreads], ops, ts->nthreads * sizeof(*ops));
		for (int k = 0; k < XFER_NCLASSES; k++)
			ts->row_transfers[r][k] = ts->coh->total_transfers[k] - ts->seen[k];
	}
	memcpy(ts->seen, ts->coh->total_transfers, sizeof(ts->seen));
	memset(ops, 0, ts->nthreads * sizeof(*ops));
	ts->open++;
	ts->open_end += ts->interval;
	if (ts->nrows == ts->chunk_rows)
		flush(ts);
}

static void on_close(void *ctx, uint32_t target)
{
	struct timeseries *ts = ctx;

	(void)target;
	close_interval(ts);
	if (ts->open_end < ts->end)
		engine_schedule(ts->eng, ts->open_end, ts->kind, 0);
}

int ts_init(struct timeseries *ts, struct engine *eng, const struct coherence *coh, uint32_t nthreads,
	    simtime_t start, simtime_t end, simtime_t interval)
{
	memset(ts, 0, sizeof(*ts));
	ts->eng = eng;
	ts->coh = coh;
	ts->nthreads = nthreads;
	ts->start = start;
	ts->end = end;
	ts->interval = interval;
	ts->open_end = start + interval;
	ts->nintervals = end > start ? (end - start + interval - 1) / interval : 0;
	ts->chunk_rows = ts_chunk_rows(nthreads);
	ts->ring_slots = 4;
	ts->ring = calloc(ts->ring_slots * (nthreads ? nthreads : 1), sizeof(*ts->ring));
	ts->kind = engine_register(eng, on_close, ts);
	return ts->ring ? 0 : -1;
}

void ts_free(struct timeseries *ts)
{
	free(ts->ring);
	free(ts->row_time);
	free(ts->row_ops);
	free(ts->row_transfers);
	memset(ts, 0, sizeof(*ts));
}

void ts_set_sink(struct timeseries *ts, ts_sink_fn sink, void *ctx)
{
	ts->sink = sink;
	ts->sink_ctx = ctx;
	if (!sink || ts->row_time)
		return;
	ts->row_time = malloc(ts->chunk_rows * sizeof(*ts->row_time));
	ts->row_ops = malloc((size_t)ts->chunk_rows * (ts->nthreads ? ts->nthreads : 1) * sizeof(*ts->row_ops));
	ts->row_transfers = malloc(ts->chunk_rows * sizeof(*ts->row_transfers));
	if (!ts->row_time || !ts->row_ops || !ts->row_transfers)
		fail(ts, FS_ERR_LIMIT, "out of memory for the time series");
}

void ts_start(struct timeseries *ts)
{
	if (ts->nintervals > 1)
		engine_schedule(ts->eng, ts->open_end, ts->kind, 0);
}

/* Makes the ring hold the interval `ahead` slots past the open one, or as
 * many as TS_MAX_AHEAD_BYTES allows; false when it still cannot (or memory
 * ran out). */
static bool grow(struct timeseries *ts, uint64_t ahead)
{
	const uint64_t n = ts->nthreads, limit = TS_MAX_AHEAD_BYTES / (n * sizeof(uint64_t));
	uint64_t slots = ts->ring_slots, max_slots = ts->ring_slots, *ring;

	while (max_slots * 2 <= limit)
		max_slots *= 2;
	while (slots <= ahead && slots < max_slots)
		slots *= 2;
	if (slots == ts->ring_slots)
		return false;
	ring = calloc(slots * n, sizeof(*ring));
	if (!ring) {
		fail(ts, FS_ERR_LIMIT, "out of memory for the time series");
		return false;
	}
	for (uint64_t i = ts->open; i < ts->open + ts->ring_slots; i++)
		memcpy(&ring[(i & (slots - 1)) * n], slot(ts, i), n * sizeof(*ring));
	free(ts->ring);
	ts->ring = ring;
	ts->ring_slots = slots;
	return ahead < slots;
}

void ts_note_op(struct timeseries *ts, uint32_t task, simtime_t when)
{
	/* nearly every op lands in the open interval: no division for those (and
	 * one earlier, which cannot happen as ops complete at or after the engine's
	 * now, would land there too, keeping sums exact) */
	uint64_t j = when < ts->open_end ? ts->open : (when - ts->start) / ts->interval;

	if (j - ts->open >= ts->ring_slots && !grow(ts, j - ts->open)) {
		if (ts->failed)
			return;
		j = ts->open + ts->ring_slots - 1;
		ts->ops_clamped++;
	}
	slot(ts, j)[task]++;
}

/* One past the last interval whose ops wait in the ring; ts->open when none do. */
static uint64_t pending_end(const struct timeseries *ts)
{
	for (uint64_t i = ts->open + ts->ring_slots; i > ts->open; i--) {
		const uint64_t *ops = slot(ts, i - 1);

		for (uint32_t t = 0; t < ts->nthreads; t++)
			if (ops[t])
				return i;
	}
	return ts->open;
}

int ts_finish(struct timeseries *ts, bool interrupted, struct fs_error *e)
{
	uint64_t rows = ts->nintervals;

	if (interrupted) {
		simtime_t now = ts->eng->now;
		uint64_t pending = pending_end(ts);

		rows = now >= ts->start ? (now - ts->start) / ts->interval + 1 : 0;
		if (rows < pending)
			rows = pending;
		if (rows > ts->nintervals)
			rows = ts->nintervals;
	}
	while (!ts->failed && ts->open < rows)
		close_interval(ts);
	if (!ts->failed)
		flush(ts);
	if (ts->failed) {
		*e = ts->err;
		return -1;
	}
	return 0;
}
