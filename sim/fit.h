/* SPDX-License-Identifier: MIT */
/* `futexsim fit MEASUREMENTS.yaml -o MACHINE.yaml`: a machine fitted to what its
 * user can measure, its stock kernel's `perf bench futex` rows.
 *
 * The measurements file names a hardware-facts machine and lists runs:
 *
 *   machine: e5-2650-2s-hw
 *   runs:
 *     - {perf: "perf bench futex hash -t 28", cpus: all, kernel: linux-6.15, averaged: 2344905.8}
 *     - {perf: "perf bench futex hash -s -t 32", cpus: all, kernel: linux-6.15, output: |
 *         ...perf's whole output...}
 *
 * Each row's command line is parsed by futexsim bench's parser (sim/perfbench.h),
 * on the row's CPUs (workload.cpus syntax) and kernel preset; its figure is perf's
 * summary figure (`averaged:`, or read from `output:` as perf printed it).
 *
 * Only the CPU-side costs are fitted, each inside the range the machine file's
 * `uncertainty:` block gives it (a machine without a range for one keeps it):
 * costs.syscall, costs.call_return, costs.core_clock, costs.smt_slowdown and, with
 * shared (-S) rows, costs.key_shared. The loss is the rows' squared log errors (a
 * row's sigma FIT_ROW_SIGMA) plus each parameter's prior, its machine value with
 * the spread of a uniform draw over its range: a regularised least squares whose
 * minimum stays at the hardware facts along every direction the rows cannot see.
 * Damped Gauss-Newton (Levenberg-Marquardt) inside the bounds, finite-difference
 * Jacobians from simulations run on every host CPU (sim/runpool.h); the inverse of
 * the final normal matrix is the parameters' covariance: which the rows pin (their
 * spread much smaller than the prior's), which they cannot tell apart (strongly
 * correlated pairs), written into the machine file's calibration block for
 * `futexsim run --band`.
 */
#ifndef FUTEXSIM_FIT_H
#define FUTEXSIM_FIT_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/core/error.h"

extern const char fit_usage[];

/* One fit: the measurements file, the hardware-facts machine (NULL: the file's),
 * the machine file to write, its name (NULL: the machine's with -fit), each
 * simulated run's window and warm-up (NULL: 1ms and 500us), simulations at once (0:
 * the online CPUs), no progress on stderr when quiet, and where the written file's
 * text goes too (NULL: nowhere). */
struct fit_request {
	const char *measurements, *machine, *output, *name, *duration, *warmup;
	const char *cache_dir; /* --cache DIR: figures kept across runs (sim/runcache.h) */
	unsigned jobs;
	bool quiet;
	FILE *report;
};

/* Fits and writes req->output (atomically; never onto an input). -1 with `e` set
 * (FS_ERR_INPUT bad measurements or machine, FS_ERR_USAGE an output onto an input,
 * FS_ERR_OUTPUT cannot write, FS_ERR_RUNTIME a simulation failed). */
int fit_file(const struct fit_request *req, struct fs_error *e);

/* argv[0] "futexsim", argv[1] "fit". Prints its own errors; returns the exit
 * status (0, 2 usage, 3 bad measurements or machine, 4 output, 1 failed). */
int fit_command(int argc, char **argv);

#endif
