/* SPDX-License-Identifier: MIT */
/* Threads taking and releasing glibc mutexes (models/usync.h).
 *
 * Each thread loops: think (a duration drawn from `think`), pick a mutex, lock it,
 * hold it for a duration drawn from `critical`, unlock it. One op is one lock
 * acquisition. The mutexes are an array of pthread_mutex_t (`mutex_stride` bytes
 * apart, 40 = glibc's x86-64 size, so several share a cache line) in each
 * process's heap; with `shared: true` one array sits in a shared file mapping used
 * by every process (FUTEX ops without FUTEX_PRIVATE_FLAG, inode-keyed, global hash).
 *
 * YAML (workload:): type: mutex, the procset keys (threads, cpus, processes,
 * threads_start, create_interval, start_skew), mutexes (1), shared (false),
 * pick (uniform | zipf | fixed: thread i takes mutex i % mutexes), zipf_exponent
 * (1.0), think and critical (durations or distributions, models/distribution.h),
 * mutex_stride (40), acquisitions (per thread, then it exits; 0 = no limit),
 * lock_call and syscall_wrap (costs). See docs/scenario.md.
 */
#ifndef FUTEXSIM_WORKLOADS_MUTEX_H
#define FUTEXSIM_WORKLOADS_MUTEX_H

#include "models/workload.h"

extern const struct workload_type workload_mutex;

#endif
