/* SPDX-License-Identifier: MIT */
/* Reading a result file back (docs/results-format.md) for `futexsim show`: the
 * figures go into the same struct results a run fills, so the summary prints
 * exactly as the run printed it.
 *
 * Errors are FS_ERR_INPUT: not an HDF5 file, not a futexsim result file, a
 * newer format version, or a missing or malformed dataset (named in the message).
 * A file is read first in a child process with a time limit: a damaged file that
 * crashes libhdf5 or makes it loop is refused, the caller never goes down.
 */
#ifndef FUTEXSIM_H5READ_H
#define FUTEXSIM_H5READ_H

#include <stdint.h>

#include "sim/core/error.h"
#include "sim/results.h"

/* What the run's summary looked like. */
struct h5read_info {
	int per_thread;          /* the run printed perf's per-thread lines */
	uint32_t hottest_lines;  /* and this many hottest lines */
};

/* Fills `r` from the file at `path`, with the `top` hottest lines and buckets
 * (0: as many lines as the run listed, and as many buckets). */
int h5read_results(const char *path, uint32_t top, struct results *r, struct h5read_info *info,
		   struct fs_error *e);

/* A text dataset (e.g. "provenance/scenario_resolved") as a malloc'd string. */
char *h5read_text(const char *path, const char *dataset, struct fs_error *e);

/* h5read_results without the child process: what the child runs. For the reader's
 * fuzz target (tests/fuzz/fuzz_results.c), which must see a crash itself. */
int h5read_results_direct(const char *path, uint32_t top, struct results *r, struct h5read_info *info,
			  struct fs_error *e);

#endif
