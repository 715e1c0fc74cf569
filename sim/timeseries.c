/* SPDX-License-Identifier: MIT */
#include "sim/timeseries.h"

#include <stdlib.h>
#include <string.h>

#include "sim/core/bytes.h"

/* About 64 KiB per chunk of the ops dataset: inside HDF5's recommended 10 KiB
 * to 1 MiB, and small enough that a chunk's worth of rows costs little memory. */
#define TS_CHUNK_BYTES 65536u

uint32_t series_chunk_rows(uint32_t nthreads)
{
	uint64_t rows = TS_CHUNK_BYTES / ((uint64_t)(nthreads ? nthreads : 1) * sizeof(uint64_t));

	return rows ? (uint32_t)rows : 1;
}

static void fail(struct timeseries *series, int status, const char *msg)
{
	if (!series->failed)
		fs_fail(&series->err, status, "%s", msg);
	series->failed = true;
	engine_stop(series->eng);
}

static uint64_t *slot(const struct timeseries *series, uint64_t interval)
{
	return &series->ring[(interval & (series->ring_slots - 1)) * series->nthreads];
}

static int flush(struct timeseries *series)
{
	struct series_rows rows = { series->nrows, series->nthreads, series->row_time, series->row_ops,
				(const uint64_t(*)[XFER_NCLASSES])series->row_transfers };
	struct fs_error e = { 0 };

	if (!series->nrows || !series->sink)
		return 0;
	series->nrows = 0;
	if (series->sink(series->sink_ctx, &rows, &e) < 0) {
		fail(series, e.status ? e.status : FS_ERR_OUTPUT, e.msg);
		return -1;
	}
	return 0;
}

/* The open interval is over: its row takes the ops waiting in its slot and the
 * transfers counted since the last close. */
static void close_interval(struct timeseries *series)
{
	uint64_t *ops = slot(series, series->open);

	if (series->sink) {
		uint32_t r = series->nrows++;

		series->row_time[r] = series->open_end - series->interval;
		memcpy(&series->row_ops[(size_t)r * series->nthreads], ops, series->nthreads * sizeof(*ops));
		for (int k = 0; k < XFER_NCLASSES; k++)
			series->row_transfers[r][k] = series->coh->total_transfers[k] - series->seen[k];
	}
	memcpy(series->seen, series->coh->total_transfers, sizeof(series->seen));
	memset(ops, 0, series->nthreads * sizeof(*ops));
	series->open++;
	series->open_end += series->interval;
	if (series->nrows == series->chunk_rows)
		flush(series);
}

static void on_close(void *ctx, uint32_t target)
{
	struct timeseries *series = ctx;

	(void)target;
	close_interval(series);
	if (series->open_end < series->end)
		engine_schedule(series->eng, series->open_end, series->kind, 0);
}

int series_init(struct timeseries *series, struct engine *eng, const struct coherence *coh, uint32_t nthreads,
	    simtime_t start, simtime_t end, simtime_t interval)
{
	memset(series, 0, sizeof(*series));
	series->eng = eng;
	series->coh = coh;
	series->nthreads = nthreads;
	series->start = start;
	series->end = end;
	series->interval = interval;
	series->open_end = start + interval;
	series->nintervals = end > start ? (end - start + interval - 1) / interval : 0;
	series->chunk_rows = series_chunk_rows(nthreads);
	series->ring_slots = 4;
	series->ring = calloc(series->ring_slots * (nthreads ? nthreads : 1), sizeof(*series->ring));
	series->kind = engine_register(eng, on_close, series);
	return series->ring ? 0 : -1;
}

void series_free(struct timeseries *series)
{
	free(series->ring);
	free(series->row_time);
	free(series->row_ops);
	free(series->row_transfers);
	memset(series, 0, sizeof(*series));
}

void series_set_sink(struct timeseries *series, series_sink_fn sink, void *ctx)
{
	series->sink = sink;
	series->sink_ctx = ctx;
	if (!sink || series->row_time)
		return;
	series->row_time = malloc(series->chunk_rows * sizeof(*series->row_time));
	series->row_ops = malloc((size_t)series->chunk_rows * (series->nthreads ? series->nthreads : 1) * sizeof(*series->row_ops));
	series->row_transfers = malloc(series->chunk_rows * sizeof(*series->row_transfers));
	if (!series->row_time || !series->row_ops || !series->row_transfers)
		fail(series, FS_ERR_LIMIT, "out of memory for the time series");
}

void series_start(struct timeseries *series)
{
	if (series->nintervals > 1)
		engine_schedule(series->eng, series->open_end, series->kind, 0);
}

/* Makes the ring hold the interval `ahead` slots past the open one, or as
 * many as TS_MAX_AHEAD_BYTES allows; false when it still cannot (or memory
 * ran out). */
static bool grow(struct timeseries *series, uint64_t ahead)
{
	const uint64_t n = series->nthreads, limit = TS_MAX_AHEAD_BYTES / (n * sizeof(uint64_t));
	uint64_t slots = series->ring_slots, max_slots = series->ring_slots, *ring;

	while (max_slots * 2 <= limit)
		max_slots *= 2;
	while (slots <= ahead && slots < max_slots)
		slots *= 2;
	if (slots == series->ring_slots)
		return false;
	ring = calloc(slots * n, sizeof(*ring));
	if (!ring) {
		fail(series, FS_ERR_LIMIT, "out of memory for the time series");
		return false;
	}
	for (uint64_t i = series->open; i < series->open + series->ring_slots; i++)
		memcpy(&ring[(i & (slots - 1)) * n], slot(series, i), n * sizeof(*ring));
	free(series->ring);
	series->ring = ring;
	series->ring_slots = slots;
	return ahead < slots;
}

void series_note_op(struct timeseries *series, uint32_t task, simtime_t when)
{
	/* nearly every op lands in the open interval: no division for those (and
	 * one earlier, which cannot happen as ops complete at or after the engine's
	 * now, would land there too, keeping sums exact) */
	uint64_t j = when < series->open_end ? series->open : (when - series->start) / series->interval;

	if (j - series->open >= series->ring_slots && !grow(series, j - series->open)) {
		if (series->failed)
			return;
		j = series->open + series->ring_slots - 1;
		series->ops_clamped++;
	}
	slot(series, j)[task]++;
}

/* One past the last interval whose ops wait in the ring; series->open when none do. */
static uint64_t pending_end(const struct timeseries *series)
{
	for (uint64_t i = series->open + series->ring_slots; i > series->open; i--) {
		const uint64_t *ops = slot(series, i - 1);

		for (uint32_t t = 0; t < series->nthreads; t++)
			if (ops[t])
				return i;
	}
	return series->open;
}

int series_finish(struct timeseries *series, bool interrupted, struct fs_error *e)
{
	uint64_t rows = series->nintervals;

	if (interrupted) {
		simtime_t now = series->eng->now;
		uint64_t pending = pending_end(series);

		rows = now >= series->start ? (now - series->start) / series->interval + 1 : 0;
		if (rows < pending)
			rows = pending;
		if (rows > series->nintervals)
			rows = series->nintervals;
	}
	while (!series->failed && series->open < rows)
		close_interval(series);
	if (!series->failed)
		flush(series);
	if (series->failed) {
		*e = series->err;
		return -1;
	}
	return 0;
}

uint64_t series_bytes(uint64_t ntasks)
{
	return bytes_add(bytes_mul(ntasks, 64 * sizeof(uint64_t)), 64u << 10);
}
