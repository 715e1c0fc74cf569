/* SPDX-License-Identifier: MIT */
/* workload.type: trace: a recorded futex trace (models/workloads/tracefile.h)
 * replayed causally on the simulated machine and kernel design (docs/trace.md).
 *
 * Each traced thread is a task; its recorded events run in order: the user-space
 * time before each (scaled by cpu_speed, less the tracer's own share), then the
 * call. A FUTEX_WAIT the trace shows woken blocks on its class's word object
 * until the replay reaches the wake the trace matched to it; a call that needs
 * waiters queued first (a wake, a requeue, an exit's clear_child_tid wake) or a
 * turn in its class (tracelink.h) waits for it: a *causal hold*, counted. EAGAIN
 * waits run with a value that does not match; timeouts and waits whose wake was
 * not found run the EAGAIN path, then sleep their recorded time; unsupported ops
 * take their recorded time as local work. Threads are created at their clones
 * (the private hash grows as the kernel grows it) and end at their exits; an
 * exit_group ends its process. The run ends when every thread has ended, or,
 * should the replay's holds ever deadlock, a hold is broken (counted) or the
 * stuck threads are counted and the run ends.
 */
#ifndef FUTEXSIM_WORKLOAD_TRACE_H
#define FUTEXSIM_WORKLOAD_TRACE_H

#include <stdbool.h>
#include <stdio.h>

#include "models/workload.h"
#include "models/workloads/tracefile.h"

extern const struct workload_type workload_trace;

/* For tests and reports: the replayed trace, and recorded event i's replay: when
 * its call began (after its user-space time and any causal hold) and returned,
 * in ps; false when it was not replayed. */
const struct trace *trace_replay_trace(const void *state);
bool trace_replay_times(const void *state, uint32_t event, simtime_t *start, simtime_t *end);

#endif
