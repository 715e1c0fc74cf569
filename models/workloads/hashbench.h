/* SPDX-License-Identifier: MIT */
/* `perf bench futex hash` (tools/perf/bench/futex-hash.c), simulated.
 *
 * T threads of one process, thread i pinned to the i-th CPU of a CPU list. Each
 * has its own calloc'd array of F 32-bit futex words (all 0); the arrays are
 * consecutive glibc heap chunks, allocated by the main thread before the workers
 * start. Each thread loops over its array calling FUTEX_WAIT(&futex[j], 1234),
 * which returns EAGAIN at once (the kernel's wait path up to the value check),
 * counting one op per call. Threads start together, within `start_skew`.
 *
 * YAML (workload:): type: hash-bench, threads (default: every CPU of the list),
 * futexes (1024), shared (false: FUTEX_PRIVATE_FLAG ops), cpus ("all", "node0",
 * "0-7,16-23"), loop_cost (user-space work per op besides the syscall, [A]),
 * start_skew. See docs/scenario.md.
 */
#ifndef FUTEXSIM_WORKLOADS_HASHBENCH_H
#define FUTEXSIM_WORKLOADS_HASHBENCH_H

#include "models/workload.h"

extern const struct workload_type workload_hashbench;

#endif
