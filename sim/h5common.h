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

/* threads/ columns of blocking workloads (futex_calls, wakeups, chain_walked,
 * requeued, context_switches, blocked), moved to and from a thread's results. */
struct thread_result;
#define THREAD_BLOCKING_COLS 6
struct h5_col {
	const char *name, *units;
};
extern const struct h5_col h5_thread_blocking_cols[THREAD_BLOCKING_COLS];
void h5_thread_blocking(const struct thread_result *t, uint64_t out[THREAD_BLOCKING_COLS]);
void h5_thread_blocking_set(struct thread_result *t, const uint64_t in[THREAD_BLOCKING_COLS]);

#endif
