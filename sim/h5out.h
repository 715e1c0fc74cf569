/* SPDX-License-Identifier: MIT */
/* The result file of a run: one HDF5 file that holds everything needed to plot
 * and to reproduce the run (layout: docs/results-format.md).
 *
 * The file is written under a temporary name in the target's directory and
 * renamed into place only when it is complete and flushed to disk, so a crash,
 * a full disk or a failed run never leaves a truncated file under the final
 * name. h5out_open creates it before the run (an unwritable path fails at once,
 * not after a long simulation) with the provenance and the empty time series;
 * h5out_append is the time series' sink (sim/timeseries.h) while the run goes
 * on; h5out_finish writes the summary, threads, lines, buckets and the run's
 * figures, then renames; h5out_abort removes the temporary file after a failure.
 *
 * Errors are returned as FS_ERR_OUTPUT with the path and the innermost HDF5 or
 * system message. HDF5's automatic error printing is switched off (library
 * state, set on every open).
 */
#ifndef FUTEXSIM_H5OUT_H
#define FUTEXSIM_H5OUT_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "sim/core/error.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/timeseries.h"

#define H5OUT_FORMAT "futexsim-results"
#define H5OUT_FORMAT_VERSION 1

struct h5out {
	char *path;             /* final name */
	char *tmp;              /* temporary name in the same directory, NULL when none */
	hid_t file;
	hid_t series_time, series_ops, series_transfers; /* time series datasets, appended to during the run */
	char published[4096];   /* where h5out_finish put the file: the path, or for an interrupted
				   run over an existing file NAME.incomplete.h5 beside it */
};

/* How the run was started, for the provenance. */
struct h5out_origin {
	int argc;
	char *const *argv;
	time_t start;           /* wall-clock start (UTC) */
};

/* Creates the temporary file for `path` and writes the provenance (the
 * scenario) and the empty time series (its shape from `series`, initialised
 * but not run). */
int h5out_open(struct h5out *o, const char *path, const struct scenario *sc, const struct timeseries *series,
	       const struct h5out_origin *origin, struct fs_error *e);

/* The time series sink: ctx is the struct h5out. */
int h5out_append(void *ctx, const struct series_rows *rows, struct fs_error *e);

/* Writes the rest from the gathered results (results_from_sim), closes, syncs
 * and renames the file into place (o->published), keeping the permissions of a
 * file it replaces; an interrupted run (r->incomplete) never replaces an
 * existing file: it goes to NAME.incomplete.h5. On failure the temporary file
 * is removed. */
int h5out_finish(struct h5out *o, const struct scenario *sc, const struct results *r, struct fs_error *e);

/* Closes and removes the temporary file; safe after any failure (or none). */
void h5out_abort(struct h5out *o);

/* results/<scenario>-<seed>-<YYYYmmddTHHMMSSZ>.h5 (then -2, -3, ... when taken),
 * creating results/ in the working directory when missing. Characters of the
 * name other than [A-Za-z0-9._-] become '_'. */
int h5out_default_path(char *buf, size_t size, const char *scenario, uint64_t seed, time_t now,
		       struct fs_error *e);

/* Whether `path` may receive a result file: a new name, or an existing regular
 * file that is none of the run's `inputs` (NULL-terminated; the same file under
 * any name). Devices, FIFOs, sockets and directories are refused always, a
 * symbolic link unless `force` (then the link itself is replaced, not its
 * target). FS_ERR_OUTPUT with the reason otherwise. */
int h5out_check_path(const char *path, bool force, const char *const *inputs, struct fs_error *e);

#endif
