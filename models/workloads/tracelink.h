/* SPDX-License-Identifier: MIT */
/* The causal links of a recorded futex trace (models/workloads/tracefile.h): which
 * wake woke each wait, derived from the recorded facts alone.
 *
 * trace_link() derives what a causal replay needs from the recorded facts alone
 * (docs/trace.md, "Causal links"): each futex word's kernel queue is simulated in
 * the recorded order, FIFO as the kernel's plist of equal priorities is, so that
 * every FUTEX_WAIT that returned 0 is matched to the FUTEX_WAKE, requeue or
 * thread exit (clear_child_tid) that woke it, and every wake to the waiters it
 * woke. Waiters woken by one call form a class that shares one simulated futex
 * word object; within a class whose waiters leave by several calls (or by a
 * requeue, which splits woken from moved) the waiters are ranked in their queueing
 * order, which the replay keeps, so that the simulated kernel's own FIFO walk
 * wakes exactly the waiters the real one did. What cannot be matched is counted.
 */
#ifndef FUTEXSIM_TRACELINK_H
#define FUTEXSIM_TRACELINK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/error.h"

struct trace;

/* How the replay honours a recorded call (trace_link; docs/trace.md, "Replay"). */
enum trace_fate {
	TF_NONE,            /* not a futex call */
	TF_WAIT_BLOCK,      /* woken, and the wake was found: blocks until the replay reaches it */
	TF_WAIT_EAGAIN,     /* returned EAGAIN: replayed with a value that does not match */
	TF_WAIT_TIMEOUT,    /* timed out: the EAGAIN path, then asleep for its recorded time */
	TF_WAIT_INTR,       /* another error (EINTR, ...): as a timeout */
	TF_WAIT_UNMATCHED,  /* returned 0 but no wake was found: as a timeout */
	TF_WAIT_LIMBO,      /* had not returned when the trace ended: blocks, never woken */
	TF_WAKE,            /* FUTEX_WAKE(_BITSET): wakes the waiters it woke */
	TF_REQUEUE,         /* (CMP_)REQUEUE that succeeded: wakes and moves the waiters it did */
	TF_REQUEUE_EAGAIN,  /* CMP_REQUEUE that returned EAGAIN: replayed with a value that does not match */
	TF_WAKE_OP,         /* FUTEX_WAKE_OP: two FUTEX_WAKEs, one per word (its atomic op not modelled) */
	TF_UNSUPPORTED,     /* PI ops, futex2, FUTEX_FD, unknown: their recorded time as local work */
	TF_FAILED,          /* a wake or requeue that failed (EINVAL, EFAULT): its recorded time as work */
	TF_NFATES
};
extern const char *const trace_fate_names[]; /* by enum trace_fate */

/* A futex word as the hash sees it: process, address (page and offset), private or not. */
struct trace_key {
	uint32_t pid;           /* the process (a shared word is still told apart by process [A]) */
	uint64_t uaddr;
	bool shared;            /* the op had no FUTEX_PRIVATE_FLAG */
	uint32_t calls;         /* recorded calls on it */
};

/* Waiters that share one simulated futex word object (see above). */
struct trace_class {
	uint32_t key;
	uint32_t nranks;        /* 1 (unordered: one wake takes them all) or one per waiter */
	uint32_t first_rank;    /* its ranks' entry counts: trace_link.rank_entries[first_rank ...] */
	uint32_t nops;          /* the calls that take waiters from it, in recorded order */
};

/* A dequeueing call's part: the waiters it takes from one class. */
struct trace_take {
	uint32_t cls;           /* TRACE_NONE: it took none (the replay uses the word's ghost) */
	uint32_t ordinal;       /* its turn among the class's calls */
	uint32_t rank_hi;       /* the highest rank it takes: it waits until ranks <= this are queued */
	uint32_t n;             /* waiters it takes (nwake; a requeue's woken and moved together) */
};

/* Per event: what the replay does. */
struct trace_call {
	uint8_t fate;           /* enum trace_fate */
	uint32_t key, key2;     /* futex words (TRACE_NONE when none) */
	uint32_t cls, rank;     /* a blocking wait: its class and rank */
	struct trace_take take; /* wakes, requeues, WAKE_OP's first word, an exit's clear_child_tid wake */
	struct trace_take take2;/* WAKE_OP's second word */
	uint32_t woken, moved;  /* of take.n: woken, requeued (a requeue's nr_wake and nr_requeue) */
	uint32_t ycls, yrank;   /* a requeue's moved waiters: their class on the second word, first rank */
	uint32_t unmatched;     /* woken or requeued in the trace, no waiter found */
};

struct trace_link {
	struct trace_call *calls;     /* per event */
	uint32_t nkeys, nclasses;
	struct trace_key *keys;
	struct trace_class *classes;
	uint32_t *rank_entries;       /* per class and rank: waiters at that rank */
	uint32_t nrank_entries;
	uint32_t fates[TF_NFATES];    /* futex calls by fate */
	uint64_t unmatched_woken;     /* woken counts of wakes with no waiter found */
	uint64_t unmatched_moved;     /* requeued counts with no waiter found (or never woken after) */
	uint32_t exit_wakes;          /* exits whose clear_child_tid wake the replay makes */
	uint32_t cleartid_inferred;   /* threads whose clear_child_tid was inferred */
};

/* Derives the causal links (trace.link) from the events, which are in time order
 * with their threads' lists built; trace_read and trace_finish call it. Fails
 * only when out of memory (FS_ERR_LIMIT). */
int trace_link(struct trace *t, struct fs_error *e);

#endif
