/* SPDX-License-Identifier: MIT */
/* perf bench futex's wake, wake-parallel and requeue suites (tools/perf/bench/
 * futex-wake.c, futex-wake-parallel.c, futex-requeue.c): `threads` threads block
 * in FUTEX_WAIT on one futex word, then are woken, `runs` times over.
 *
 * wake:          one waker (perf's main thread) calls FUTEX_WAKE(futex1, nwake)
 *                until all are woken; a run's time is that loop's.
 * wake-parallel: `wakers` threads each call FUTEX_WAKE(futex1, threads / wakers)
 *                once, at the same time; a run's figure is their mean call time.
 * requeue:       one waker calls FUTEX_CMP_REQUEUE(futex1, 0, futex2, 0, nrequeue)
 *                until all are on futex2 (timed), then FUTEX_WAKE(futex2, all).
 * A run starts once every blocked thread sleeps (perf waits for them, then
 * sleeps 100 ms; the model starts at once). A woken thread returns from its wait
 * and stays idle until the next run (perf joins it and creates a new one). After
 * the last run the simulation ends. futex1 and futex2 are adjacent words, as
 * perf's two static u_int32_t are. Threads run on cpus[i % len(cpus)], wakers
 * after the blocked threads (waker k on cpus[(threads + k) % len(cpus)]); the
 * process's thread count for the private hash counts both.
 *
 * YAML (workload:): type (wake | wake-parallel | requeue), threads, cpus, shared
 * (perf -S), runs (perf -r, 10), nwake (wake: perf -w, 1), wakers (wake-parallel:
 * perf -w, 2; it must divide threads), nrequeue (requeue: perf -q, 1), broadcast
 * (requeue: perf -B, every waiter at once), lock_call, syscall_wrap.
 * One op = one blocked thread back from its wait. Figures: the runs' times (the
 * perf figure), woken and requeued counts, and the wake-up latency histogram
 * (from a run's start to each thread's return).
 */
#ifndef FUTEXSIM_WORKLOADS_PERFWAKE_H
#define FUTEXSIM_WORKLOADS_PERFWAKE_H

#include "models/workload.h"

extern const struct workload_type workload_wake, workload_wake_parallel, workload_requeue;

#endif
