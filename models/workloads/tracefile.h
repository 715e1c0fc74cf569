/* SPDX-License-Identifier: MIT */
/* A recorded futex trace: the format (docs/trace.md), its reader and writer, and
 * the causal links a replay follows (models/workloads/trace.h replays it).
 *
 * A trace is line-oriented text, versioned by its first line ("futexsim-trace 1"):
 * header lines (tracer, cpus, command, overhead, reference), one `thread` line per
 * thread (TID, PID, parent, clear_child_tid), then one line per event in time
 * order: `TIME TID KIND ...` with TIME in nanoseconds since the trace began and
 * KIND one of futex, clone, sleep, exit, exit_group. The reader refuses anything
 * it cannot vouch for (a damaged or hostile file: bad tokens, out-of-range
 * numbers, time going back, overlapping or impossible results, a thread used
 * before its creation, too many lines or events) with FILE:LINE:COL and a
 * message; it never crashes, loops or allocates without bound.
 *
 * trace_link() (models/workloads/tracelink.h) derives the causal links a replay follows.
 */
#ifndef FUTEXSIM_TRACEFILE_H
#define FUTEXSIM_TRACEFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "models/workloads/tracelink.h"
#include "sim/core/error.h"

#define TRACE_FORMAT "futexsim-trace"
#define TRACE_VERSION 1u
#define TRACE_NONE UINT32_MAX
/* Limits of what the reader accepts (docs/trace.md): a line of at most 4 KiB, at
 * most 2^24 events (about 1.3 GiB of them in memory) and 2^16 threads (a task
 * each: procset's limit), times and durations up to an hour (the longest run a
 * scenario may simulate). */
#define TRACE_MAX_LINE 4096u
#define TRACE_MAX_EVENTS (1u << 24)
#define TRACE_MAX_THREADS (1u << 16)
#define TRACE_MAX_NS (3600ull * 1000000000ull)
#define TRACE_RET_UNFINISHED INT64_MIN /* `ret=?`: the call had not returned when the trace ended */

/* futex(2)'s commands and flags (include/uapi/linux/futex.h). */
enum {
	FX_WAIT = 0, FX_WAKE = 1, FX_FD = 2, FX_REQUEUE = 3, FX_CMP_REQUEUE = 4, FX_WAKE_OP = 5, FX_LOCK_PI = 6,
	FX_UNLOCK_PI = 7, FX_TRYLOCK_PI = 8, FX_WAIT_BITSET = 9, FX_WAKE_BITSET = 10, FX_WAIT_REQUEUE_PI = 11,
	FX_CMP_REQUEUE_PI = 12, FX_LOCK_PI2 = 13, FX_NCMDS
};
#define FX_PRIVATE_FLAG 128u
#define FX_CLOCK_REALTIME 256u
#define FX_CMD_MASK (~(FX_PRIVATE_FLAG | FX_CLOCK_REALTIME))
#define FX_BITSET_MATCH_ANY 0xffffffffu
/* The futex2 system calls (futex_waitv since 5.16; futex_wake, futex_wait and
 * futex_requeue since 6.7): recorded, not replayed. Stored in trace_event.op. */
enum { TRACE_OP_WAITV = 0x10000, TRACE_OP_FUTEX2_WAKE, TRACE_OP_FUTEX2_WAIT, TRACE_OP_FUTEX2_REQUEUE };

enum trace_kind { TEV_FUTEX, TEV_CLONE, TEV_SLEEP, TEV_EXIT, TEV_EXIT_GROUP };

struct trace_event {
	uint64_t t;             /* ns since the trace began: the call's entry */
	uint64_t dur;           /* ns, entry to return (0 for exits; unknown for ret=?) */
	uint64_t uaddr, uaddr2; /* futex: the word, and the second one of requeues and WAKE_OP */
	/* of the time since the thread's previous event (its user-space time), what it
	 * spent off its CPU (perf's switch events tell; 0 when the tracer cannot):
	 * runnable but preempted, and asleep outside the traced calls (read, poll, ...) */
	uint64_t preempted, slept;
	int64_t ret;            /* >= 0 the result, < 0 -errno, TRACE_RET_UNFINISHED */
	uint32_t thread;        /* index into trace.threads */
	uint32_t line;          /* its line in the file (messages) */
	uint32_t op;            /* futex: the raw futex(2) op (command | flags), or TRACE_OP_* */
	uint32_t val, val2, val3; /* futex's val, val2 (nr_requeue, WAKE_OP's nr_wake2), val3 */
	uint32_t child;         /* clone: the thread it created */
	int32_t cpu;            /* the CPU it ran on, -1 when the tracer could not tell */
	uint8_t kind;           /* enum trace_kind */
	bool timeout;           /* futex: a timeout was given */
	bool has_val2, has_val3, has_uaddr2;
};

struct trace_thread {
	uint32_t tid, pid;
	uint32_t process;       /* index into trace.procs */
	uint32_t parent;        /* thread index of its creator, TRACE_NONE (a root) */
	uint64_t cleartid;      /* clear_child_tid: the word the kernel wakes at its exit, 0 unknown */
	bool cleartid_inferred; /* guessed from a wait whose value is its TID (pthread_join) */
	uint32_t line;          /* its `thread` line */
	uint32_t first, n;      /* its events: trace.thread_events[first .. first + n) */
	uint64_t start;         /* ns: its creator's clone returned (0 for roots) */
	int32_t cpu;            /* where it ran: its `cpu=` (the CPU it spent most of its time on, by
				   perf's switch events), else the CPU most of its events ran on; -1 */
	int32_t cpu_given;      /* its thread line's cpu=, -1 none */
};

struct trace_process {
	uint32_t pid;
	uint32_t nthreads;
	uint32_t main;          /* its first thread */
};

struct trace {
	char tracer[64];        /* "strace 6.1", "perf 6.1.187", "hand" */
	char command[1024];     /* what was recorded */
	bool cpus_recorded;     /* the tracer told each event's CPU */
	bool has_overhead;
	uint64_t overhead_gap_ns;  /* the tracer's addition to each gap between calls (record's calibration) */
	uint64_t overhead_call_ns; /* ... and to each call's recorded duration */
	uint64_t reference_run_ns; /* the program's run time without the tracer, 0 unknown */
	uint32_t nthreads, nprocs, nevents;
	struct trace_thread *threads;
	struct trace_process *procs;
	struct trace_event *events;   /* in time order (ties in file order) */
	uint32_t *thread_events;      /* per thread, its events in order (trace_thread.first, .n) */
	uint64_t end_ns;              /* the last event's end: the recorded run time */
	struct trace_link link;       /* filled by trace_link() */
	void *building;               /* the builder's own state until trace_finish (tracefile.c) */
};

/* Reads a trace from `in`; `name` is the file name for messages. The trace is
 * checked, its threads' event lists built and trace_link() run. On failure the
 * trace is freed and e says FILE:LINE:COL and why (FS_ERR_INPUT, or FS_ERR_LIMIT
 * when out of memory). */
int trace_read(FILE *in, const char *name, struct trace *t, struct fs_error *e);
int trace_read_file(const char *path, struct trace *t, struct fs_error *e);
/* The same from memory (the fuzz target). */
int trace_read_mem(const char *buf, size_t len, const char *name, struct trace *t, struct fs_error *e);
void trace_free(struct trace *t);

/* Writes `t` in the format trace_read reads (a round trip gives the same trace). */
int trace_write(const struct trace *t, FILE *out);

/* Builds a trace from parts, as a recorder does: threads are added first (their
 * TIDs unique), events after, in any order; trace_finish sorts the events by
 * time, checks the whole as trace_read does (messages name `name` and the event's
 * line, which a recorder sets to its source line) and links it. */
int trace_add_thread(struct trace *t, uint32_t tid, uint32_t pid, uint32_t parent_tid, uint64_t cleartid,
		     struct fs_error *e);
/* Index of the thread of TID `tid`, TRACE_NONE when there is none. */
uint32_t trace_thread_of(const struct trace *t, uint32_t tid);
int trace_add_event(struct trace *t, const struct trace_event *ev, struct fs_error *e);
int trace_finish(struct trace *t, const char *name, struct fs_error *e);

/* The futex op's name as the format writes it ("WAIT_BITSET|PRIVATE"), into buf. */
const char *trace_op_name(uint32_t op, char *buf, size_t len);
/* Parses an op name (or 0x hex); false when it is not one. */
bool trace_op_parse(const char *s, uint32_t *op);
/* "EAGAIN" for 11, NULL for an errno the format has no name for. */
const char *trace_errno_name(int err);
int trace_errno_parse(const char *s);   /* 0 when unknown */

/* The recorded result of a futex event as a blocking wait would read it. */
static inline bool trace_is_wait(uint32_t op)
{
	return op < TRACE_OP_WAITV && ((op & FX_CMD_MASK) == FX_WAIT || (op & FX_CMD_MASK) == FX_WAIT_BITSET);
}

/* Records "NAME:LINE:1: fmt..." (FS_ERR_INPUT), as every trace and tracer-output
 * reader reports; returns -1. */
int trace_fail_line(struct fs_error *e, const char *name, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* realloc of *v to hold `need` elements of `size` bytes, doubling its capacity *cap;
 * -1 when out of memory (v unchanged). */
int trace_grow(void **v, uint32_t *cap, uint32_t need, size_t size);

/* Bytes trace_read takes for a trace of `nevents` events and `nthreads` threads
 * (the estimate of sim/estimate.h). */
uint64_t trace_bytes(uint64_t nevents, uint64_t nthreads);

#endif
