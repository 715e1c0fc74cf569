/* SPDX-License-Identifier: MIT */
/* Errors as values.
 *
 * A function that can fail takes a `struct fs_error *`, fills it at the point of
 * failure (with FILE:LINE:COL when the cause is in an input file) and returns -1.
 * Only the command line (sim/main.c) prints errors and chooses the exit status.
 */
#ifndef FUTEXSIM_ERROR_H
#define FUTEXSIM_ERROR_H

#include <stdarg.h>

/* Exit statuses of bin/futexsim; documented in `futexsim --help` and the README. */
enum fs_status {
	FS_OK = 0,
	FS_ERR_RUNTIME = 1,  /* a run failed for a reason other than the ones below */
	FS_ERR_USAGE = 2,    /* bad command line */
	FS_ERR_INPUT = 3,    /* bad scenario, machine or kernel YAML, or a bad --set */
	FS_ERR_OUTPUT = 4,   /* result file could not be written */
	FS_ERR_LIMIT = 5,    /* scenario refused: it would exceed a resource limit */
	FS_ERR_INTERRUPTED = 130,
};

/* Where something is in an input: 1-based line and column. `file` is owned by
 * whoever loaded the input (see sim/core/yamltree.h) and outlives the error. */
struct fs_mark {
	const char *file;
	unsigned line;
	unsigned col;
};

struct fs_error {
	int status;     /* an enum fs_status; 0 while no error was recorded */
	char msg[1024]; /* one line, no trailing newline */
};

/* Records "fmt..." with `status`; returns -1 so callers can `return fs_fail(...)`. */
int fs_fail(struct fs_error *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records "FILE:LINE:COL: fmt..." with FS_ERR_INPUT; returns -1. `at` may be NULL. */
int fs_fail_at(struct fs_error *e, const struct fs_mark *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
