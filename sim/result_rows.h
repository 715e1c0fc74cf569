/* SPDX-License-Identifier: MIT */
/* The rows of a run's tables (threads, lines, tables, buckets): what sim/results.h
 * gathers, the result file stores a column of each member of (sim/h5common.h) and
 * the views print. On their own, without the gathering, so that what they take can
 * be counted before a run is built (sim/estimate.h) by a module below the run.
 */
#ifndef FUTEXSIM_RESULT_ROWS_H
#define FUTEXSIM_RESULT_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "models/machine.h"
#include "models/task.h"
#include "sim/core/bytes.h"
#include "sim/core/simtime.h"

struct thread_result {
	uint32_t id, cpu, node;
	const char *role;       /* what it does where threads differ ("message", "worker"), in the
				   text arena; NULL where all are alike (threads/role absent) */
	uint64_t ops;           /* completed inside the measuring window */
	uint64_t ops_per_sec;   /* perf_ops_per_sec(ops, window) */
	char *perf_line;        /* perf's "[thread  N] ..." line, with newline */
	/* blocking: in the window (all 0 for workloads that never block) */
	uint64_t futex_calls, wakeups, chain_walked, requeued, switches;
	simtime_t blocked_ps;   /* asleep in futex waits */
	simtime_t time_ps[TC_NCLASSES]; /* its time in the window by what it did (models/task.h) */
	bool has_time;          /* time_ps known (files of earlier versions lack it) */
};

/* A line that saw traffic (lines/). */
struct line_result {
	uint32_t line, home_node;
	uint32_t first, last;   /* the elements of its object on it (models/memmap.h) */
	uint8_t mixed;          /* objects of several kinds share it */
	uint64_t address, reads, writes, fills;
	uint64_t transfers[XFER_NCLASSES];
	uint64_t total_transfers;
	simtime_t queued_ps;
	char *what;             /* memmap_describe(); in the results' text arena */
	char *fields;           /* "waiters,lock": its object's fields on it; in the arena, shared
				   by consecutive lines with the same text */
	const char *object, *element; /* its object's names, borrowed from the run's memory map
					 (NULL when read back from a file) */
};

/* A futex hash table (tables/). */
struct table_result {
	char *name, *hash;      /* hash "" when the table has no function */
	uint32_t size, node;
	uint64_t first_bucket;  /* its first row in buckets */
	uint64_t futexes;       /* futexes hashed to it */
	uint64_t collisions;    /* futexes that found their bucket already taken */
};

/* A bucket of a table (buckets/), in table order. */
struct bucket_result {
	uint32_t table, bucket;
	uint64_t hashed;        /* futexes hashed to it */
	uint64_t acquisitions, contended;
	simtime_t wait_ps;      /* total time waiters queued for its lock */
};

/* Bytes the gathered results take for `lines` lines with traffic and `buckets`
 * buckets (a row each, a line's description and fields strings), and what the
 * result file's writer gathers beside them. */
static inline uint64_t result_rows_bytes(uint64_t lines, uint64_t buckets)
{
	/* a line's two strings with their malloc headers take about 96 bytes; the
	 * writer copies a column at a time (at most 64 bytes a row) */
	uint64_t per_line = sizeof(struct line_result) + 96 + 64, per_bucket = sizeof(struct bucket_result) + 24;

	return bytes_add(bytes_mul(lines, per_line), bytes_mul(buckets, per_bucket));
}

#endif
