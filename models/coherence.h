/* SPDX-License-Identifier: MIT */
/* Cache lines and their coherence: who holds each line, what moving it costs,
 * and the queue of requests waiting for it.
 *
 * Each line is Modified by one CPU, Shared by a set of CPUs, or in memory only.
 * A read needs a copy, a write or atomic needs the only copy. An access the
 * state already allows is a hit (line_hit or atomic_hit). Anything else is a
 * transfer: from the owner, from the nearest sharer (reads), after invalidating
 * every other sharer (writes: costed by the farthest one), or from the line's
 * home DRAM; COH_PROTOCOL below is the table of these transitions, and
 * coherence.c follows it. A line serves one transfer at a time, in request order (unless the
 * machine's local_handoffs lets requests of the holder's node go first:
 * next_request in coherence.c); that queue is where contention comes from. A CPU that receives a line keeps it for the
 * machine's line_hold before the next queued request takes it, so back-to-back
 * accesses (waiters++ then lock) need not lose it in between. The machine's
 * transfer_occupancy stretches that: the next hand-off of a line cannot start
 * before transfer cost x occupancy (the coherence home serialises hand-offs of
 * one address; a contended line moves slower than point-to-point latency), and
 * transfer_contended multiplies the cost of a transfer requested while the line
 * was already moving or others were waiting for it. On a home-snoop machine a
 * transfer between the caches of two nodes that misses the home's directory
 * cache first waits for the directory read (models/dircache.h).
 *
 * Requesters are the simulated tasks (0..nrequesters-1); each has at most one
 * request outstanding. On a machine with adjacent_line_prefetch, a task's demand
 * miss also queues a read of the other line of the 128-byte pair for its CPU's
 * prefetcher (one outstanding per CPU; requesters nrequesters + cpu, never
 * granted), unless that line is one task's alone. When a queued request completes, the engine calls the
 * `grant` callback at the completion time. A requester may also *watch* a line
 * it holds (a spinner): when another CPU writes the line, the watcher's copy is
 * invalidated and a re-read is queued for it automatically; its completion is
 * granted like any other request. Transfers are counted per line by distance
 * class (SMT sibling, same node, other node) and per node pair.
 *
 * The state stored for a line is the state after the transfer in flight, if
 * any; the previous holder's hold window is kept separately (grace_*). A line's
 * sharers are kept in the line while there are at most two (most lines), in a
 * bitset of a shared pool beyond that: memory per line does not grow with CPUs.
 * Machines of at most 256 nodes and 65535 CPUs fit the packed fields.
 */
#ifndef FUTEXSIM_COHERENCE_H
#define FUTEXSIM_COHERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/dircache.h"
#include "models/machine.h"
#include "sim/core/engine.h"

#define COH_NONE UINT32_MAX
#define COH_UNUSED (UINT32_MAX - 1) /* solo: no requester declared yet */

enum access_kind {
	ACCESS_READ,     /* load */
	ACCESS_WRITE,    /* plain store (hit costs line_hit) */
	ACCESS_RMW,      /* locked read-modify-write (hit costs atomic_hit) */
	ACCESS_PREFETCH, /* the adjacent-line prefetcher's read: issued by the coherence
			    model itself, never by a task (coh_access does not take it) */
	ACCESS_NKINDS
};

/* --- the protocol ---
 *
 * A line's state as the CPU asking for it sees it: M/S/I from the line's owner and
 * sharers, and whether this CPU is among them. */
enum coh_state {
	COH_MODIFIED_HERE,      /* M (or E) in this CPU's cache */
	COH_MODIFIED_ELSEWHERE, /* M in another CPU's cache; Invalid here */
	COH_SHARED_ONLY_HERE,   /* S, this CPU the only sharer (a read from an owner leaves two
				   sharers, so the shipped transitions never reach it) */
	COH_SHARED_HERE,        /* S in this CPU's cache and others' */
	COH_SHARED_ELSEWHERE,   /* S in other CPUs' caches; Invalid here */
	COH_INVALID,            /* in no cache: only in its home node's DRAM */
	COH_MOVING,             /* transient: a transfer in flight or requests queued. The state
				   kept is the one after that transfer, so a copy this CPU holds
				   still serves its reads; any other access finds MOVING and
				   waits its turn (served in the state it then finds) */
	COH_NSTATES
};

/* What a transition costs the requester (with the line's extras: transfer_contended
 * when it was asked for while busy, the directory read of a home-snoop machine
 * between nodes, transfer_occupancy before the line moves on). */
enum coh_cost {
	COH_COST_HIT,          /* line_hit (load, store, prefetch) or atomic_hit (RMW) */
	COH_COST_UPGRADE,      /* the only Shared copy made Modified: a hit's cost, nothing moves [A] */
	COH_COST_FROM_OWNER,   /* cache to cache from the Modified owner */
	COH_COST_FROM_NEAREST, /* cache to cache from the nearest sharer (lowest-numbered of equals) */
	COH_COST_INVALIDATE,   /* from the farthest other sharer x invalidation: a write waits for
				  every sharer's acknowledgement */
	COH_COST_FILL,         /* from the home node's DRAM */
	COH_COST_WAIT          /* nothing yet: queued behind the line's transfer in flight */
};

/* What a transition counts: each counter one kind of traffic (coherence.traffic;
 * the lines' transfers by distance and fills are their sums). */
enum coh_counter {
	COH_CNT_NONE,          /* nothing moved */
	COH_CNT_C2C,           /* a demand read or write served cache to cache, by distance */
	COH_CNT_INVALIDATE,    /* a write served by the farthest sharer, the others invalidated */
	COH_CNT_UPGRADE,       /* the only Shared copy made Modified in place */
	COH_CNT_FILL,          /* a demand miss filled from DRAM */
	COH_CNT_PREFETCH,      /* a prefetch served cache to cache, by distance */
	COH_CNT_PREFETCH_FILL, /* a prefetch filled from DRAM */
	COH_CNT_POSTED,        /* a posted store (coh_posted_store), by distance */
	COH_NCOUNTERS
};

struct coh_transition {
	uint8_t cost;    /* enum coh_cost */
	uint8_t next;    /* enum coh_state: the requester's after the access */
	uint8_t counter; /* enum coh_counter */
};

/* Every (state x access kind) -> (cost, next state, counter), one row each, as
 * gem5's Ruby declares a protocol's transitions. A read leaves the requester and
 * the previous holders Shared (SHARED_HERE); a write leaves it the only copy
 * (MODIFIED_HERE); a lone reader from DRAM gets it Exclusive, kept as
 * MODIFIED_HERE. A hit leaves the state as it was. A request that finds the line
 * MOVING is queued; the row of the state it finds when served applies then.
 * Writes (not reads, not prefetches) also invalidate the line's watchers.
 * coh_protocol[] is built from this list (coherence.c); the hold window (struct
 * line's grace_*: the last receiver keeps hitting a while) is checked between a
 * row's HIT and its UPGRADE or transfer (coh_access).
 *
 *	state               access    cost          next state      counter */
#define COH_PROTOCOL(ROW) \
	ROW(MODIFIED_HERE,      READ,     HIT,          MODIFIED_HERE,    NONE)          \
	ROW(MODIFIED_HERE,      WRITE,    HIT,          MODIFIED_HERE,    NONE)          \
	ROW(MODIFIED_HERE,      RMW,      HIT,          MODIFIED_HERE,    NONE)          \
	ROW(MODIFIED_HERE,      PREFETCH, HIT,          MODIFIED_HERE,    NONE)          \
	ROW(MODIFIED_ELSEWHERE, READ,     FROM_OWNER,   SHARED_HERE,      C2C)           \
	ROW(MODIFIED_ELSEWHERE, WRITE,    FROM_OWNER,   MODIFIED_HERE,    C2C)           \
	ROW(MODIFIED_ELSEWHERE, RMW,      FROM_OWNER,   MODIFIED_HERE,    C2C)           \
	ROW(MODIFIED_ELSEWHERE, PREFETCH, FROM_OWNER,   SHARED_HERE,      PREFETCH)      \
	ROW(SHARED_ONLY_HERE,   READ,     HIT,          SHARED_ONLY_HERE, NONE)          \
	ROW(SHARED_ONLY_HERE,   WRITE,    UPGRADE,      MODIFIED_HERE,    UPGRADE)       \
	ROW(SHARED_ONLY_HERE,   RMW,      UPGRADE,      MODIFIED_HERE,    UPGRADE)       \
	ROW(SHARED_ONLY_HERE,   PREFETCH, HIT,          SHARED_ONLY_HERE, NONE)          \
	ROW(SHARED_HERE,        READ,     HIT,          SHARED_HERE,      NONE)          \
	ROW(SHARED_HERE,        WRITE,    INVALIDATE,   MODIFIED_HERE,    INVALIDATE)    \
	ROW(SHARED_HERE,        RMW,      INVALIDATE,   MODIFIED_HERE,    INVALIDATE)    \
	ROW(SHARED_HERE,        PREFETCH, HIT,          SHARED_HERE,      NONE)          \
	ROW(SHARED_ELSEWHERE,   READ,     FROM_NEAREST, SHARED_HERE,      C2C)           \
	ROW(SHARED_ELSEWHERE,   WRITE,    INVALIDATE,   MODIFIED_HERE,    INVALIDATE)    \
	ROW(SHARED_ELSEWHERE,   RMW,      INVALIDATE,   MODIFIED_HERE,    INVALIDATE)    \
	ROW(SHARED_ELSEWHERE,   PREFETCH, FROM_NEAREST, SHARED_HERE,      PREFETCH)      \
	ROW(INVALID,            READ,     FILL,         MODIFIED_HERE,    FILL)          \
	ROW(INVALID,            WRITE,    FILL,         MODIFIED_HERE,    FILL)          \
	ROW(INVALID,            RMW,      FILL,         MODIFIED_HERE,    FILL)          \
	ROW(INVALID,            PREFETCH, FILL,         MODIFIED_HERE,    PREFETCH_FILL) \
	ROW(MOVING,             READ,     WAIT,         MOVING,           NONE)          \
	ROW(MOVING,             WRITE,    WAIT,         MOVING,           NONE)          \
	ROW(MOVING,             RMW,      WAIT,         MOVING,           NONE)          \
	ROW(MOVING,             PREFETCH, WAIT,         MOVING,           NONE)

extern const struct coh_transition coh_protocol[COH_NSTATES][ACCESS_NKINDS];

enum coh_result { COH_HIT, COH_WAIT };

typedef void (*coh_grant_fn)(void *ctx, uint32_t requester, uint32_t line);

/* Counters touched only when a line moves. */
struct line_stats {
	uint64_t transfers[XFER_NCLASSES];     /* cache-to-cache moves, by distance */
	uint64_t fills;                        /* fills from DRAM */
	simtime_t queued_ps;                   /* time requests waited before service */
};

/* One line's state and counters, in two adjacent 64-byte host cache lines: the
 * simulator's speed on large tables is bound by host cache misses, and the first
 * half is all an access that hits reads. */
struct line {
	uint32_t owner;        /* CPU holding it Modified (or Exclusive), else COH_NONE */
	uint32_t inflight;     /* requester being served, COH_NONE when idle */
	uint32_t qhead, qtail; /* waiting requesters in arrival order */
	uint32_t watchers;     /* requesters waiting for an invalidation */
	uint32_t grace_cpu;    /* previous holder, allowed hits until grace_until */
	uint32_t solo;         /* the only requester that ever uses the line, COH_NONE when
				  several do, COH_UNUSED before coh_note_user */
	uint16_t nsharers;     /* CPUs holding it Shared (0 when owned) */
	uint16_t sh[2];        /* those CPUs while there are at most 2, ascending */
	uint32_t sh_set;       /* beyond 2: their bitset in the coherence's sh_pool */
	uint8_t home_node;     /* whose DRAM backs it */
	uint8_t grace_write;   /* the previous holder had it writable */
	uint8_t local_run;     /* hand-offs in a row that stayed in the holder's node ahead of
				  the queue's head from another node (machine.local_handoffs) */
	uint8_t quiet_prefetch; /* the transfer in flight is a prefetch nobody queued behind: its
				   completion is not an event until someone would see it (settle) */
	simtime_t grace_until;
	simtime_t free_at;     /* the transfer in flight lets the line move on from then */
	uint64_t reads, writes; /* accesses, hits and misses */
	struct line_stats stats;
	uint64_t addr;          /* its first byte's address (a directory cache's set and tag) */
} __attribute__((aligned(128)));

/* The first half (what a hit reads) and the whole in two host cache lines. */
_Static_assert(offsetof(struct line, reads) == 64 && sizeof(struct line) == 128,
	       "struct line: two host cache lines, the hit path's fields in the first");

struct coh_request {
	uint32_t cpu;
	uint32_t next;         /* next requester in the line's queue or watcher list */
	uint8_t kind;          /* enum access_kind */
	uint8_t contended;     /* the line was busy when it was asked for */
	simtime_t issued;
};

struct coherence {
	const struct machine *m;
	struct engine *eng;
	uint32_t done_kind;    /* engine event: the transfer in flight on line `target` completed */
	coh_grant_fn grant;
	void *grant_ctx;

	uint32_t nlines, cap;
	struct line *lines;
	/* per line, a bit: solo to some requester. Checked before the line's own
	 * state: a task about to touch a shared line (most often a bucket it has just
	 * picked) learns it is not solo without a host cache miss on the line */
	uint64_t *solo_bits;
	uint64_t *sh_pool;     /* sh_cap bitsets of `words` words: the sharers of lines with
				  more than 2; a free one holds the next free index in word 0 */
	uint32_t sh_n, sh_cap, sh_free;
	uint32_t words;

	uint32_t nrequesters;
	struct coh_request *req;  /* nrequesters, then one per CPU for its prefetcher */
	/* per line: the other line of its 128-byte pair, COH_NONE when it is not
	 * simulated; NULL without machine.adjacent_line_prefetch */
	uint32_t *buddy;
	/* per CPU: the line its prefetcher has a request outstanding for (COH_NONE:
	 * none), and when that request completes if its line is quiet_prefetch */
	uint32_t *prefetch_line;
	simtime_t *prefetch_done_at;
	bool prefetch_events;     /* every prefetch's completion an event, quiet or not (the
				     same results, more events: for tests) */

	/* running totals since the last reset (for summaries and time series) */
	uint64_t total_transfers[XFER_NCLASSES];
	uint64_t total_fills;
	/* the same traffic by kind (enum coh_counter), by distance for the kinds that move
	 * a line between caches (fills and upgrades have no source cache: column 0) */
	uint64_t traffic[COH_NCOUNTERS][XFER_NCLASSES];
	struct dircache dir;      /* home-snoop machines only (dir.misses: directory reads) */
	uint64_t *node_transfers; /* nodes x nodes, [from * nodes + to] */
};

int coh_init(struct coherence *c, const struct machine *m, struct engine *eng, uint32_t nrequesters,
	     coh_grant_fn grant, void *grant_ctx);
void coh_free(struct coherence *c);

/* Whether one requester alone is declared to use `line` (coh_note_user). */
static inline bool coh_is_solo(const struct coherence *c, uint32_t line)
{
	return c->solo_bits[line / 64] >> (line % 64) & 1;
}

/* Whether `line` is solo to `requester` (coh_note_user): only that requester uses it. */
static inline bool coh_solo_to(const struct coherence *c, uint32_t line, uint32_t requester)
{
	return coh_is_solo(c, line) && c->lines[line].solo == requester;
}

/* How many lines several requesters are declared to use (coh_note_user). */
uint32_t coh_shared_lines(const struct coherence *c);

/* Lines `a` and `b` are the two halves of one 128-byte pair (the adjacent-line
 * prefetcher fetches one when the other misses). */
void coh_pair_lines(struct coherence *c, uint32_t a, uint32_t b);

/* The state of `line` as `cpu` sees it (never COH_MOVING: that is what an access
 * finds while the line is busy, coh_access). */
enum coh_state coh_state(const struct coherence *c, uint32_t line, uint32_t cpu);

/* Adds a line (uncached, home on `home_node`); returns its id, COH_NONE when out of memory. */
uint32_t coh_add_line(struct coherence *c, uint64_t addr, uint32_t home_node);

/* `requester` on `cpu` accesses `line` at the engine's current time. On a hit
 * returns COH_HIT and stores the access cost in *cost; otherwise COH_WAIT and
 * the grant callback fires when the access completes. */
enum coh_result coh_access(struct coherence *c, uint32_t line, uint32_t requester, uint32_t cpu,
			   enum access_kind kind, simtime_t *cost);

/* `requester` on `cpu` spins on its copy of `line` until another CPU writes the
 * line; then a re-read is issued for it (granted as usual). If its copy is
 * already invalid, the re-read is issued now. */
void coh_watch(struct coherence *c, uint32_t line, uint32_t requester, uint32_t cpu);

/* Declares that `requester` may access `line` (all users must be declared for
 * coh_access_ahead to rely on a line being solo). */
void coh_note_user(struct coherence *c, uint32_t line, uint32_t requester);

/* Running ahead (models/task.c): may `cpu` do `kind` on `line` at its own clock
 * `start` (> the engine's now) within the current event, with the same result as
 * waiting for `start`? Yes when its copy allows the access and nobody can touch
 * the line first: the line is solo to `requester`, or (`burst`) the access
 * continues the CPU's back-to-back accesses to a line nobody is waiting for, in
 * which case the line stays with the CPU until start + cost (a queued request
 * waits, as in line_hold). Returns false and does nothing otherwise; on success
 * the access is done and counted and its cost stored. */
bool coh_access_ahead(struct coherence *c, uint32_t line, uint32_t requester, uint32_t cpu,
		      enum access_kind kind, simtime_t start, bool burst, simtime_t *cost);

/* A posted store by `from` to `line` held at `to` (the MCS lock's stores to another
 * waiter's per-CPU node: the link behind the previous tail, the head role handed on):
 * counted as a transfer from `from` to `to` but not queued on the line, as nobody
 * waits for the line itself [A]. Returns its price, the point-to-point transfer
 * between the two CPUs (0 on one CPU): when the store reaches `to`. */
simtime_t coh_posted_store(struct coherence *c, uint32_t line, uint32_t from, uint32_t to);

/* Zeroes every counter (the end of the warm-up). */
void coh_reset_stats(struct coherence *c);

/* Bytes that `nlines` lines of machine `m` take at most: the line state and its
 * pair, in arrays at the capacity they double to, a sharer bitset for each (the
 * most the pool can need), the directory cache of a home-snoop machine and the
 * CPUs' prefetch requests. */
uint64_t coh_bytes(uint64_t nlines, const struct machine *m);

/* Accesses, fills and transfers of `line` in the window: 0 when it saw no traffic. */
static inline uint64_t coh_line_traffic(const struct coherence *c, uint32_t line)
{
	const struct line *l = &c->lines[line];
	uint64_t n = l->reads + l->writes + l->stats.fills;

	for (int k = 0; k < XFER_NCLASSES; k++)
		n += l->stats.transfers[k];
	return n;
}

#endif
