/* SPDX-License-Identifier: MIT */
/* What the result file's writer (sim/h5out.h) and reader (sim/h5read.h) share:
 * HDF5's error text, string types, and the names fixed by the format
 * (docs/results-format.md).
 */
#ifndef FUTEXSIM_H5COMMON_H
#define FUTEXSIM_H5COMMON_H

#include <hdf5.h>
#include <stddef.h>

/* The attribute every dataset carries, and its values. */
#define H5_UNITS "units"
#define H5_U_COUNT "count"
#define H5_U_OPS_PER_SEC "ops/s"
#define H5_U_PS "ps"
#define H5_U_PERCENT "percent"
#define H5_U_ID "id"           /* an index or identifier (thread, CPU, node, line, table) */
#define H5_U_ADDRESS "address" /* a simulated byte address */
#define H5_U_BOOL "bool"       /* 0 or 1 */
#define H5_U_TEXT "text"
#define H5_U_RATIO "ratio"     /* a quotient of two counts (per op, per wake) */
#define H5_U_AS_SET "as set"   /* a --set value: in the units the scenario key takes */

/* Switches off HDF5's printing of error stacks to stderr (errors are reported
 * through struct fs_error instead) and, when called before any other HDF5
 * call, its exit handler. Process-wide library state; idempotent. */
void h5_quiet(void);

/* The most specific message on HDF5's current error stack ("unable to open
 * file: name = ..., errno = 2, error message = 'No such file or directory'"),
 * or "unknown HDF5 error"; clears the stack. Returns buf. */
const char *h5_error_text(char *buf, size_t size);

/* A string type: fixed length `len` (NUL-padded, for columns of many short
 * strings, which compress) or variable length (len 0, for attributes, which
 * h5py returns as str). UTF-8. The caller closes it. */
hid_t h5_str_type(size_t len);

/* A column of a table whose rows are structs of the results (sim/results.h):
 * its dataset's name and units, and the uint8_t, uint32_t or uint64_t field it holds.
 * The writer and the reader share these lists, so they cannot disagree on a
 * name, a unit or a type. */
struct h5_col {
	const char *name, *units;
	size_t offset, size; /* of the field in its struct; size 1, 4 or 8 */
};
/* threads/ (struct thread_result): id, cpu, node, ops, ops_per_sec; then the
 * figures of blocking workloads (futex_calls, wakeups, chain_walked, requeued,
 * context_switches, blocked), which files written before them lack. */
#define H5_THREAD_COLS 5
#define H5_THREAD_BLOCKING_COLS 6
extern const struct h5_col h5_thread_cols[H5_THREAD_COLS];
extern const struct h5_col h5_thread_blocking_cols[H5_THREAD_BLOCKING_COLS];
/* resizes/ (struct futex_resize): process, from_buckets, to_buckets, start, end. */
#define H5_RESIZE_COLS 5
extern const struct h5_col h5_resize_cols[H5_RESIZE_COLS];

/* lines/ (struct line_result): line, address, home_node, first, last, mixed,
 * reads, writes, fills, queued; beside them the text columns description,
 * object, element, fields and the transfers by class (rank 2). */
#define H5_LINE_COLS 10
extern const struct h5_col h5_line_cols[H5_LINE_COLS];
/* tables/ (struct table_result): size, node, first_bucket, futexes, collisions;
 * beside them the text columns name and hash. */
#define H5_TABLE_COLS 5
extern const struct h5_col h5_table_cols[H5_TABLE_COLS];
/* buckets/ (struct bucket_result): table, bucket, hashed, acquisitions, contended, wait. */
#define H5_BUCKET_COLS 6
extern const struct h5_col h5_bucket_cols[H5_BUCKET_COLS];

/* The native type of a column's field. */
hid_t h5_col_type(const struct h5_col *c);

#endif
