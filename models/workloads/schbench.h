/* SPDX-License-Identifier: MIT */
/* schbench (Chris Mason's scheduler benchmark, masoncl/schbench, June 2025) as run
 * in the 6.16 private-hash regression report (`-L -m M -t T -n 0 -s 0`): M message
 * threads each hand requests to T worker threads through per-thread futex words
 * used as binary semaphores.
 *
 * post(w): CAS w 0 -> 1; only if it succeeded, FUTEX_WAKE(w, 1).
 * wait(w): loop { CAS w 1 -> 0, done on success; else FUTEX_WAIT(w, 0) }.
 * Worker, per request: store 0 to its word, push itself on its message thread's
 * lock-free list (one RMW of the list head), post(message thread's word), wait(own
 * word); back, it records the wake-up latency (from the message thread's pass
 * timestamp) and does the request (`request`, two gettimeofday calls by default).
 * Message thread: store 0 to its word, take the whole list (one RMW), stamp the
 * pass, post() each listed worker (most recent first: a LIFO), wait(own word).
 * Only private FUTEX_WAIT and FUTEX_WAKE; -L (no per-CPU mutex; without it glibc's
 * trylock spin makes no futex call either). Message thread i runs on cpus[i], the
 * workers after them round-robin over all of cpus (schbench -M auto of that time
 * left CPUs 0..M-1 in the workers' mask). Every thread's record is 1 MiB apart with
 * its futex word 64 bytes in (each word on its own page); a message thread's list
 * head sits 128 bytes into its record [A: its offset is not taken from the source].
 *
 * YAML (workload:): type: schbench, message_threads (4), workers (per message
 * thread, 256), cpus, request (50ns [A]: two vDSO gettimeofday calls), lock_call,
 * syscall_wrap. One op = one request. It prints schbench's wake-up latency
 * percentiles and `average rps`, and reports requests per second, wake-up latency
 * percentiles and futex calls per request. Source: the protocol as described with
 * the report (LKML 3ad05298-351e-4d61-9972-ca45a0a50e33@meta.com) and the schbench
 * tree of that time; docs/scenario.md.
 */
#ifndef FUTEXSIM_WORKLOADS_SCHBENCH_H
#define FUTEXSIM_WORKLOADS_SCHBENCH_H

#include "models/workload.h"

extern const struct workload_type workload_schbench;

#endif
