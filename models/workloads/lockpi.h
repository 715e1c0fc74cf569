/* SPDX-License-Identifier: MIT */
/* perf bench futex lock-pi (tools/perf/bench/futex-lock-pi.c): each thread loops
 * FUTEX_LOCK_PI, usleep(1), FUTEX_UNLOCK_PI on one global futex word, or with
 * `multi` (perf -M) on a word of its own; perf calls both syscalls every time (no
 * user-space fast path). The PI paths are the kernel design's lock_pi,
 * lock_pi_block and unlock_pi (models/futex_step.h): a taken word makes the locker
 * queue and sleep on the pi_state's rt_mutex; the unlock hands the word to the
 * first waiter and wakes it.
 *
 * usleep(1) sleeps `usleep` plus the task's timer slack (`timer_slack`, 50 us by
 * default: prctl(2) PR_SET_TIMERSLACK), then the wake-up latency. One op = one
 * lock/unlock pair. Per-thread words (-M) are separate callocs, 688 bytes apart as
 * perf's are (pthread_create's allocations come between), so none share a line.
 *
 * YAML (workload:): type: lock-pi, threads, cpus, multi (false), usleep (1us),
 * timer_slack (50us), shared, lock_call, syscall_wrap. Figures: lock/unlock pairs,
 * the hand-offs (unlocks that woke a waiter), the time from a lock call to owning
 * the word (histogram and percentiles), mutual-exclusion violations (0 unless the
 * model is wrong).
 */
#ifndef FUTEXSIM_WORKLOADS_LOCKPI_H
#define FUTEXSIM_WORKLOADS_LOCKPI_H

#include "models/workload.h"

extern const struct workload_type workload_lockpi;

#endif
