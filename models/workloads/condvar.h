/* SPDX-License-Identifier: MIT */
/* Threads coordinating through a glibc mutex and condition variables
 * (models/usync.h): a barrier or a bounded producer/consumer queue.
 *
 * barrier: N threads per group loop: work (`work`), lock, count++; the last one
 *   to arrive resets the count, advances the generation and broadcasts (wake-all,
 *   or FUTEX_CMP_REQUEUE onto the mutex with `broadcast: requeue`); the others
 *   wait on the condition until the generation changes. Unlock. One op = one
 *   barrier passed.
 * producer-consumer: per group, `producers` threads put items into a queue of
 *   `capacity` and the others take them out: lock; while full (empty) wait on
 *   not_full (not_empty); put (take); signal the other condition; unlock; work.
 *   One op = one item put or taken.
 * Threads are split into `groups` round-robin, each with its own mutex and
 * conditions (one 128-byte struct per group: mutex, conditions, count).
 *
 * YAML (workload:): type: condvar, pattern (barrier | producer-consumer), the
 * procset keys, groups (1), broadcast (wake-all | requeue), producers (half of
 * each group), capacity (16), work and critical (distributions), shared, rounds
 * (ops per thread, then it exits; 0 = no limit), lock_call, syscall_wrap.
 */
#ifndef FUTEXSIM_WORKLOADS_CONDVAR_H
#define FUTEXSIM_WORKLOADS_CONDVAR_H

#include "models/workload.h"

extern const struct workload_type workload_condvar;

#endif
