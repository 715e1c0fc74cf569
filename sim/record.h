/* SPDX-License-Identifier: MIT */
/* futexsim record: a program run under a tracer, its futex traffic written as a
 * futexsim trace (models/workloads/tracefile.h; docs/trace.md).
 *
 * Two tracers, both Debian's: strace (ptrace: any user may trace their own
 * children; every call stops the traced thread twice, tens of microseconds a call)
 * and perf's syscall tracepoints (in-kernel timestamps, a few microseconds a call,
 * each call's CPU; needs perf_event_paranoid <= -1 or CAP_PERFMON). `auto` takes
 * perf when it can open the tracepoints, else strace. Each tracer's raw output is
 * parsed into a trace: threads from their clones (CLONE_THREAD: same process;
 * clear_child_tid from CLONE_CHILD_CLEARTID when strace shows it), futex calls
 * with their arguments and results, sleeps, exits; times from the root's exec.
 * A calibration (a loop of FUTEX_WAKE calls nobody waits on, run with and without
 * the tracer) measures what the tracer adds to each gap between calls and to each
 * call, written as the trace's `overhead` line for the replay to take off.
 *
 * The parsers take the tracer's text and refuse what they cannot read with
 * FILE:LINE and a message, like the trace reader.
 */
#ifndef FUTEXSIM_RECORD_H
#define FUTEXSIM_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "models/workloads/tracefile.h"
#include "sim/core/error.h"

enum record_tracer { REC_AUTO, REC_STRACE, REC_PERF };

struct record_opts {
	const char *output;        /* the trace file written */
	enum record_tracer tracer;
	bool calibrate;            /* measure the tracer's overhead (the trace's `overhead` line) */
	bool reference;            /* run the program once untraced first: `reference run=NS` */
	const char *keep_raw;      /* keep the tracer's text output here (NULL: not) */
	bool quiet;                /* no summary on stderr */
	char *const *argv;         /* the program and its arguments, NULL-terminated */
	const char *self;          /* this futexsim (for the calibration loop) */
};

/* Runs o->argv under the tracer and writes the trace. Errors: FS_ERR_USAGE (no
 * program, no tracer), FS_ERR_RUNTIME (the tracer failed or recorded nothing:
 * ptrace or perf not permitted), FS_ERR_INPUT (its output unreadable), FS_ERR_OUTPUT. */
int record_run(const struct record_opts *o, struct fs_error *e);

/* The tracers' text into a trace (threads and events; trace_finish not yet run).
 * strace: `strace -f -ttt -T -e raw=futex` lines; perf: `perf script -F
 * pid,tid,cpu,time,event,trace --ns` lines of the events record_run asks for. */
int record_parse_strace(FILE *in, const char *name, struct trace *t, struct fs_error *e);
int record_parse_perf(FILE *in, const char *name, struct trace *t, struct fs_error *e);

/* The calibration loop: n FUTEX_WAKE(1) calls on a private word nobody waits on;
 * prints the loop's time in ns on stdout. */
int record_futex_loop(uint64_t n);

#endif
