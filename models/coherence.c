/* SPDX-License-Identifier: MIT */
#include "models/coherence.h"

#include "sim/core/bytes.h"
#include "sim/core/hugemem.h"

#include <stdlib.h>
#include <string.h>

static void on_transfer_done(void *ctx, uint32_t line);

/* The protocol table, from its one declaration (coherence.h). The compiler checks
 * it: a row for every state and kind (a second row for one is a warning:
 * -Woverride-init, -Winitializer-overrides), and each row leaves the requester
 * Modified, Shared, or where it was (set_state knows no other end). */
#define COH_ROW(state, kind, cost, next, counter) \
	[COH_##state][ACCESS_##kind] = { COH_COST_##cost, COH_##next, COH_CNT_##counter },
const struct coh_transition coh_protocol[COH_NSTATES][ACCESS_NKINDS] = { COH_PROTOCOL(COH_ROW) };
#undef COH_ROW
#define COH_ONE(state, kind, cost, next, counter) +1
_Static_assert(0 COH_PROTOCOL(COH_ONE) == COH_NSTATES * ACCESS_NKINDS, "coherence.h: one row per state and kind");
#undef COH_ONE
#define COH_END(state, kind, cost, next, counter)                                                             \
	_Static_assert(COH_##next == COH_##state || COH_##next == COH_MODIFIED_HERE || COH_##next == COH_SHARED_HERE, \
		       "coherence.h: " #state " x " #kind " must end MODIFIED_HERE, SHARED_HERE or stay");
COH_PROTOCOL(COH_END)
#undef COH_END

/* The table's HIT rows as a bit each (state x kind): the checks on the hit path
 * (coh_holds, access_state) are a shift and a mask, folded at compile time where
 * the state is known, instead of a load of the row. */
#define COH_HIT_BIT(state, kind, cost, next, counter) \
	| (COH_COST_##cost == COH_COST_HIT ? UINT32_C(1) << (COH_##state * ACCESS_NKINDS + ACCESS_##kind) : 0)
static const uint32_t hit_rows = 0 COH_PROTOCOL(COH_HIT_BIT);
#undef COH_HIT_BIT
_Static_assert(COH_NSTATES * ACCESS_NKINDS <= 32, "hit_rows: a bit per row");

/* The engine's prefetch hook for a transfer's completion: the line's state, both halves. */
static void prefetch_done(void *ctx, uint32_t line)
{
	const struct coherence *c = ctx;

	__builtin_prefetch(&c->lines[line]);
	__builtin_prefetch(&c->lines[line].stats);
}

int coh_init(struct coherence *c, const struct machine *m, struct engine *eng, uint32_t nrequesters,
	     coh_grant_fn grant, void *grant_ctx)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->eng = eng;
	c->grant = grant;
	c->grant_ctx = grant_ctx;
	c->words = (m->ncpus + 63) / 64;
	c->sh_free = COH_NONE;
	c->nrequesters = nrequesters;
	c->req = calloc((size_t)nrequesters + m->ncpus, sizeof(*c->req));
	c->prefetch_line = malloc(m->ncpus * sizeof(*c->prefetch_line));
	c->prefetch_done_at = calloc(m->ncpus, sizeof(*c->prefetch_done_at));
	c->node_transfers = calloc((size_t)m->nodes * m->nodes, sizeof(*c->node_transfers));
	if (!c->req || !c->prefetch_line || !c->prefetch_done_at || !c->node_transfers ||
	    (m->snoop == SNOOP_HOME && dircache_init(&c->dir, m->nodes, m->directory_cache_lines,
						     m->directory_cache_ways))) {
		coh_free(c);
		return -1;
	}
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++)
		c->prefetch_line[cpu] = COH_NONE;
	c->done_kind = engine_register(eng, on_transfer_done, c);
	engine_set_prefetch(eng, c->done_kind, prefetch_done);
	return 0;
}

void coh_free(struct coherence *c)
{
	free(c->lines);
	free(c->solo_bits);
	free(c->sh_pool);
	free(c->req);
	free(c->prefetch_line);
	free(c->prefetch_done_at);
	free(c->buddy);
	free(c->node_transfers);
	dircache_free(&c->dir);
	memset(c, 0, sizeof(*c));
}

uint32_t coh_add_line(struct coherence *c, uint64_t addr, uint32_t home_node)
{
	uint32_t id;

	if (c->nlines == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 1024;
		struct line *lines;
		uint64_t *bits;
		uint32_t *buddy;

		if (cap < c->cap || cap >= COH_NONE)
			return COH_NONE;
		/* aligned so that each line's state starts a host cache line pair */
		lines = huge_realloc(c->lines, (size_t)c->nlines * sizeof(*lines), _Alignof(struct line),
				     (size_t)cap * sizeof(*lines));
		if (!lines)
			return COH_NONE;
		c->lines = lines;
		bits = realloc(c->solo_bits, (size_t)cap / 64 * sizeof(*bits));
		if (!bits)
			return COH_NONE;
		memset(bits + c->cap / 64, 0, (size_t)(cap - c->cap) / 64 * sizeof(*bits));
		c->solo_bits = bits;
		if (c->m->adjacent_line_prefetch) {
			buddy = realloc(c->buddy, (size_t)cap * sizeof(*buddy));
			if (!buddy)
				return COH_NONE;
			c->buddy = buddy;
		}
		c->cap = cap;
	}
	id = c->nlines++;
	c->lines[id] = (struct line){
		.owner = COH_NONE,
		.inflight = COH_NONE,
		.qhead = COH_NONE,
		.qtail = COH_NONE,
		.watchers = COH_NONE,
		.grace_cpu = COH_NONE,
		.solo = COH_UNUSED,
		.home_node = (uint8_t)home_node,
		.addr = addr,
	};
	if (c->buddy)
		c->buddy[id] = COH_NONE;
	return id;
}

void coh_pair_lines(struct coherence *c, uint32_t a, uint32_t b)
{
	if (!c->buddy) /* no prefetcher: nothing to remember */
		return;
	c->buddy[a] = b;
	c->buddy[b] = a;
}

/* --- sharer sets: up to 2 in the line (ascending), then a bitset of the pool --- */

#define LINE_INLINE_SHARERS 2

static inline uint64_t *set_words(const struct coherence *c, uint32_t set)
{
	return &c->sh_pool[(size_t)set * c->words];
}

static inline bool is_sharer(const struct coherence *c, uint32_t line, uint32_t cpu)
{
	const struct line *l = &c->lines[line];

	if (l->nsharers <= LINE_INLINE_SHARERS)
		return (l->nsharers > 0 && l->sh[0] == cpu) || (l->nsharers > 1 && l->sh[1] == cpu);
	return (set_words(c, l->sh_set)[cpu / 64] >> (cpu % 64)) & 1u;
}

/* A zeroed bitset of the pool; COH_NONE when out of memory. */
static uint32_t alloc_set(struct coherence *c)
{
	uint32_t s = c->sh_free;

	if (s != COH_NONE) {
		c->sh_free = (uint32_t)set_words(c, s)[0];
	} else {
		if (c->sh_n == c->sh_cap) {
			uint32_t cap = c->sh_cap ? c->sh_cap * 2 : 64;
			uint64_t *pool = cap > c->sh_cap ? realloc(c->sh_pool, (size_t)cap * c->words * sizeof(*pool))
							 : NULL;

			if (!pool)
				return COH_NONE;
			c->sh_pool = pool;
			c->sh_cap = cap;
		}
		s = c->sh_n++;
	}
	memset(set_words(c, s), 0, c->words * sizeof(uint64_t));
	return s;
}

static inline void set_bit(uint64_t *w, uint32_t cpu)
{
	w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static void add_sharer(struct coherence *c, uint32_t line, uint32_t cpu)
{
	struct line *l = &c->lines[line];

	if (is_sharer(c, line, cpu))
		return;
	if (l->nsharers < LINE_INLINE_SHARERS) {
		if (l->nsharers == 1 && cpu < l->sh[0]) {
			l->sh[1] = l->sh[0];
			l->sh[0] = (uint16_t)cpu;
		} else {
			l->sh[l->nsharers] = (uint16_t)cpu;
		}
	} else {
		if (l->nsharers == LINE_INLINE_SHARERS) {
			uint32_t s = alloc_set(c);

			if (s == COH_NONE) {
				/* out of memory mid-run: stop; sim_run reports it */
				engine_out_of_memory(c->eng);
				return;
			}
			l->sh_set = s;
			set_bit(set_words(c, s), l->sh[0]);
			set_bit(set_words(c, s), l->sh[1]);
		}
		set_bit(set_words(c, l->sh_set), cpu);
	}
	l->nsharers++;
}

static inline void clear_sharers(struct coherence *c, uint32_t line)
{
	struct line *l = &c->lines[line];

	if (l->nsharers > LINE_INLINE_SHARERS) {
		set_words(c, l->sh_set)[0] = c->sh_free;
		c->sh_free = l->sh_set;
	}
	l->nsharers = 0;
}

static inline void consider_sharer(const struct coherence *c, uint32_t s, uint32_t cpu, bool farthest, uint32_t *best,
				   simtime_t *best_cost)
{
	simtime_t cost;

	if (s == cpu)
		return;
	cost = machine_xfer_ps(c->m, s, cpu);
	if (*best == COH_NONE || (farthest ? cost > *best_cost : cost < *best_cost)) {
		*best = s;
		*best_cost = cost;
	}
}

/* The sharer other than `cpu` that is nearest to (farthest from) `cpu`; among
 * equals the lowest-numbered (sharers are visited in CPU order). */
static uint32_t sharer_by_cost(const struct coherence *c, uint32_t line, uint32_t cpu, bool farthest)
{
	const struct line *l = &c->lines[line];
	uint32_t best = COH_NONE;
	simtime_t best_cost = 0;

	if (l->nsharers <= LINE_INLINE_SHARERS) {
		for (uint32_t i = 0; i < l->nsharers; i++)
			consider_sharer(c, l->sh[i], cpu, farthest, &best, &best_cost);
		return best;
	}
	for (uint32_t i = 0; i < c->words; i++)
		for (uint64_t bits = set_words(c, l->sh_set)[i]; bits; bits &= bits - 1)
			consider_sharer(c, i * 64 + (uint32_t)__builtin_ctzll(bits), cpu, farthest, &best, &best_cost);
	return best;
}

/* --- states and transitions (coherence.h: COH_PROTOCOL) --- */

static inline enum coh_state line_state(const struct coherence *c, uint32_t line, uint32_t cpu)
{
	const struct line *l = &c->lines[line];

	if (l->owner == cpu) /* first: the hit path's usual case */
		return COH_MODIFIED_HERE;
	if (l->owner != COH_NONE)
		return COH_MODIFIED_ELSEWHERE;
	if (l->nsharers == 0)
		return COH_INVALID;
	if (!is_sharer(c, line, cpu))
		return COH_SHARED_ELSEWHERE;
	return l->nsharers == 1 ? COH_SHARED_ONLY_HERE : COH_SHARED_HERE;
}

enum coh_state coh_state(const struct coherence *c, uint32_t line, uint32_t cpu)
{
	return line_state(c, line, cpu);
}

static inline const struct coh_transition *row(enum coh_state st, enum access_kind kind)
{
	return &coh_protocol[st][kind];
}

/* Whether row(st, kind) is a HIT (hit_rows). */
static inline bool is_hit(enum coh_state st, enum access_kind kind)
{
	return hit_rows >> (st * ACCESS_NKINDS + kind) & 1;
}

/* Stores and RMWs: they need the only copy and invalidate the line's watchers. */
static inline bool is_write(enum access_kind kind)
{
	return kind == ACCESS_WRITE || kind == ACCESS_RMW;
}

/* A transfer in flight or requests queued: an access now would have to wait. */
static inline bool line_busy(const struct line *l)
{
	return l->inflight != COH_NONE || l->qhead != COH_NONE;
}

/* The state an access of `kind` by `cpu` finds now: while the line is busy, the
 * state kept is the one after the transfer in flight, so a copy this CPU holds in
 * it still serves a read (or makes a prefetch pointless); anything else is MOVING. */
static inline enum coh_state access_state(const struct coherence *c, uint32_t line, uint32_t cpu,
					  enum access_kind kind)
{
	enum coh_state st = line_state(c, line, cpu);

	if (line_busy(&c->lines[line]) && (is_write(kind) || !is_hit(st, kind)))
		return COH_MOVING;
	return st;
}

/* Does `cpu` hold a copy of `line` that allows `kind`, in the current state? */
static inline bool coh_holds(const struct coherence *c, uint32_t line, uint32_t cpu, enum access_kind kind)
{
	return is_hit(line_state(c, line, cpu), kind);
}

static inline simtime_t hit_cost(const struct machine *m, enum access_kind kind)
{
	return kind == ACCESS_RMW ? m->atomic_hit_ps : m->line_hit_ps;
}

static inline void count_access(struct line *l, enum access_kind kind)
{
	if (kind == ACCESS_READ)
		l->reads++;
	else
		l->writes++;
}

/* --- queueing --- */

/* The transfer in flight on `line` completed at `at`: the line is free, its new
 * holder keeps it until its hold window ends (not a prefetch's: nobody waits to
 * complete an access). Returns the requester it served. */
static uint32_t transfer_completed(struct coherence *c, uint32_t line, simtime_t at)
{
	struct line *l = &c->lines[line];
	uint32_t r = l->inflight;

	l->inflight = COH_NONE;
	l->grace_cpu = c->req[r].cpu;
	l->grace_until = at + (r < c->nrequesters ? c->m->line_hold_ps : 0);
	if (l->grace_until < l->free_at)
		l->grace_until = l->free_at;
	l->grace_write = is_write((enum access_kind)c->req[r].kind);
	return r;
}

/* A quiet prefetch (struct line) completes when it would have as an event: its
 * effects are applied once whatever runs now would have seen them (an event at the
 * same time runs before or after by the engine's order of ties, which does not
 * depend on when it is scheduled). Every reader of a line's flight and hold state
 * settles the line first. */
static __attribute__((noinline, cold)) void settle_quiet(struct coherence *c, uint32_t line)
{
	struct line *l = &c->lines[line];
	uint32_t cpu = c->req[l->inflight].cpu;

	if (!engine_would_have_run(c->eng, c->prefetch_done_at[cpu], c->done_kind, line))
		return;
	l->quiet_prefetch = 0;
	transfer_completed(c, line, c->prefetch_done_at[cpu]);
	c->prefetch_line[cpu] = COH_NONE; /* the CPU holds a copy now, nobody waits */
}

static inline void settle(struct coherence *c, uint32_t line)
{
	if (c->lines[line].quiet_prefetch)
		settle_quiet(c, line);
}

static void enqueue(struct coherence *c, uint32_t line, uint32_t r)
{
	struct line *l = &c->lines[line];

	if (l->quiet_prefetch) {
		/* someone will wait for the prefetch in flight (its callers have settled the
		 * line: it is still in flight): its completion is an event, at its time */
		l->quiet_prefetch = 0;
		engine_schedule(c->eng, c->prefetch_done_at[c->req[l->inflight].cpu], c->done_kind, line);
	}
	c->req[r].next = COH_NONE;
	if (l->qtail == COH_NONE)
		l->qhead = r;
	else
		c->req[l->qtail].next = r;
	l->qtail = r;
}

static uint32_t dequeue(struct coherence *c, uint32_t line)
{
	struct line *l = &c->lines[line];
	uint32_t r = l->qhead;

	l->qhead = c->req[r].next;
	if (l->qhead == COH_NONE)
		l->qtail = COH_NONE;
	return r;
}

/* A move of `line` from `from`'s cache to `to`'s, of kind `counter`: in the line's
 * and the totals' transfers by distance, the node matrix, and the kind's own count. */
static void count_transfer(struct coherence *c, uint32_t line, enum coh_counter counter, uint32_t from, uint32_t to)
{
	enum xfer_class cls = machine_xfer_class(c->m, from, to);

	c->lines[line].stats.transfers[cls]++;
	c->total_transfers[cls]++;
	c->node_transfers[c->m->cpu_node[from] * c->m->nodes + c->m->cpu_node[to]]++;
	c->traffic[counter][cls]++;
}

/* Counts what a transition's row names; `from` is the cache the line came from
 * (COH_NONE when it came from none: DRAM, or nowhere). A line that came from a
 * cache is a transfer, by distance, whatever its kind; the rows that name a
 * cache-to-cache kind are those whose cost class names a source, and their states
 * guarantee one (a copy elsewhere). */
static inline void count(struct coherence *c, uint32_t line, enum coh_counter counter, uint32_t from, uint32_t to)
{
	if (counter == COH_CNT_NONE) /* a hit: the common case, one compare */
		return;
	if (from != COH_NONE) {
		/* it came from a cache (a transfer row's cost class named it) */
		count_transfer(c, line, counter, from, to);
		return;
	}
	if (counter == COH_CNT_FILL || counter == COH_CNT_PREFETCH_FILL) {
		c->lines[line].stats.fills++;
		c->total_fills++;
	}
	c->traffic[counter][0]++; /* no source cache: fills, upgrades */
}

/* Leaves `cpu` in state `next` (a row's next state, set_state's only callers
 * guarantee it differs from the current one): the only copy, or a Shared copy
 * beside the previous holders (a Modified owner becomes a sharer). */
static inline void set_state(struct coherence *c, uint32_t line, uint32_t cpu, enum coh_state next)
{
	struct line *l = &c->lines[line];

	if (next == COH_MODIFIED_HERE) {
		if (l->nsharers > 0)
			clear_sharers(c, line);
		l->owner = cpu;
		return;
	}
	/* COH_SHARED_HERE (coh_protocol's checks allow nothing else) */
	if (l->owner != COH_NONE) {
		add_sharer(c, line, l->owner);
		l->owner = COH_NONE;
	}
	add_sharer(c, line, cpu);
}

/* Applies row `t` to `cpu`'s access found in state `st`: its next state, its counter. */
static inline void transition(struct coherence *c, uint32_t line, uint32_t cpu, enum coh_state st,
			      const struct coh_transition *t, uint32_t from)
{
	count(c, line, (enum coh_counter)t->counter, from, cpu);
	if (t->next != st)
		set_state(c, line, cpu, (enum coh_state)t->next);
}

simtime_t coh_posted_store(struct coherence *c, uint32_t line, uint32_t from, uint32_t to)
{
	if (from == to)
		return 0;
	count_transfer(c, line, COH_CNT_POSTED, from, to);
	return machine_xfer_ps(c->m, from, to);
}

/* Writers invalidate every watcher's copy; each watcher re-reads, behind the writer. */
static void invalidate_watchers(struct coherence *c, uint32_t line, uint32_t writer_cpu, simtime_t when)
{
	struct line *l = &c->lines[line];
	uint32_t w = l->watchers, keep = COH_NONE;

	l->watchers = COH_NONE;
	while (w != COH_NONE) {
		uint32_t next = c->req[w].next;

		if (c->req[w].cpu == writer_cpu) {
			/* same CPU: its copy is the writer's copy */
			c->req[w].next = keep;
			keep = w;
		} else {
			c->req[w].kind = ACCESS_READ;
			c->req[w].contended = 1; /* the line is being written right now */
			c->req[w].issued = when;
			enqueue(c, line, w);
		}
		w = next;
	}
	l->watchers = keep;
}

/* A hand-off the line's home had to queue behind others costs more [A, fitted]. */
static inline simtime_t contended_cost(const struct machine *m, const struct coh_request *q, simtime_t cost)
{
	return q->contended ? simtime_scale_milli(cost, m->transfer_contended_milli) : cost;
}

/* What moving `line` from `from`'s cache to `to`'s adds to the point-to-point
 * figure: on a home-snoop machine a transfer between two nodes goes through the
 * line's home, which reads the directory from DRAM unless its directory cache
 * has the line. */
static inline simtime_t directory_ps(struct coherence *c, uint32_t line, uint32_t from, uint32_t to)
{
	const struct machine *m = c->m;

	if (m->snoop != SNOOP_HOME || m->cpu_node[from] == m->cpu_node[to] ||
	    dircache_lookup(&c->dir, c->lines[line].home_node, c->lines[line].addr))
		return 0;
	return m->directory_read_ps;
}

/* The price of cost class `cost` for `q`'s access of `line`, and in *from the cache
 * the line comes from (COH_NONE: none). A transfer asked for while the line was busy
 * costs transfer_contended more; between nodes of a home-snoop machine it first
 * waits for the directory read when the home's directory cache lacks the line. */
static simtime_t transition_cost(struct coherence *c, uint32_t line, const struct coh_request *q, enum coh_cost cost,
				 uint32_t *from)
{
	const struct machine *m = c->m;
	const struct line *l = &c->lines[line];
	simtime_t ps;

	*from = COH_NONE;
	switch (cost) {
	case COH_COST_FROM_OWNER:
		*from = l->owner;
		break;
	case COH_COST_FROM_NEAREST:
	case COH_COST_INVALIDATE:
		*from = sharer_by_cost(c, line, q->cpu, cost == COH_COST_INVALIDATE);
		break;
	case COH_COST_FILL:
		return machine_mem_ps(m, q->cpu, l->home_node);
	default: /* a hit or an upgrade */
		break;
	}
	if (*from == COH_NONE) /* nobody else has it: nothing moves */
		return hit_cost(m, (enum access_kind)q->kind);
	ps = contended_cost(m, q, machine_xfer_ps(m, *from, q->cpu));
	if (cost == COH_COST_INVALIDATE) /* every sharer's acknowledgement */
		ps = simtime_scale_milli(ps, m->invalidation_milli);
	return ps + directory_ps(c, line, *from, q->cpu);
}

/* Serves requester r's access starting at `start`: its row of the protocol in the
 * state it finds (the line is its turn now, so never MOVING) gives the cost and
 * the new state, applied now (the state kept is the one after this transfer); the
 * completion is scheduled. */
static void start_transfer(struct coherence *c, uint32_t line, uint32_t r, simtime_t start)
{
	struct line *l = &c->lines[line];
	struct coh_request *q = &c->req[r];
	uint32_t cpu = q->cpu, from;
	enum access_kind kind = (enum access_kind)q->kind;
	enum coh_state st = line_state(c, line, cpu);
	const struct coh_transition *t = row(st, kind);
	simtime_t cost = transition_cost(c, line, q, (enum coh_cost)t->cost, &from);

	transition(c, line, cpu, st, t, from);
	l->stats.queued_ps += start - q->issued;
	l->inflight = r;
	l->free_at = start + simtime_scale_milli(cost, c->m->transfer_occupancy_milli);
	if (is_write(kind))
		invalidate_watchers(c, line, cpu, start);
	if (r >= c->nrequesters && l->qhead == COH_NONE && !c->prefetch_events) {
		/* a prefetch nobody waits behind: no event unless someone queues (enqueue) */
		l->quiet_prefetch = 1;
		c->prefetch_done_at[cpu] = start + cost;
		return;
	}
	engine_schedule(c->eng, start + cost, c->done_kind, line);
}

/* The request the line serves next: the queue's head, unless the machine
 * arbitrates with locality and the head is on another node than the line's last
 * holder: then the first queued request of the holder's node, up to
 * local_handoffs times in a row (the line serves its socket's requests before it
 * crosses; nobody waits forever). Taken out of the queue. */
static uint32_t next_request(struct coherence *c, uint32_t line)
{
	struct line *l = &c->lines[line];
	const struct machine *m = c->m;
	uint32_t head = l->qhead, prev = head, r;

	if (l->local_run < m->local_handoffs && l->grace_cpu != COH_NONE &&
	    m->cpu_node[c->req[head].cpu] != m->cpu_node[l->grace_cpu])
		for (r = c->req[head].next; r != COH_NONE; prev = r, r = c->req[r].next)
			if (m->cpu_node[c->req[r].cpu] == m->cpu_node[l->grace_cpu]) {
				c->req[prev].next = c->req[r].next;
				if (l->qtail == r)
					l->qtail = prev;
				l->local_run++;
				return r;
			}
	l->local_run = 0;
	return dequeue(c, line);
}

/* Starts serving the next request (next_request) if nothing is in flight; the
 * previous holder keeps the line until its hold window ends. */
static void kick(struct coherence *c, uint32_t line)
{
	struct line *l = &c->lines[line];
	simtime_t now = c->eng->now;
	uint32_t r;

	if (l->inflight != COH_NONE || l->qhead == COH_NONE)
		return;
	r = next_request(c, line);
	if (l->grace_cpu != c->req[r].cpu && now < l->grace_until)
		now = l->grace_until;
	start_transfer(c, line, r, now);
}

static void on_transfer_done(void *ctx, uint32_t line)
{
	struct coherence *c = ctx;
	uint32_t r = transfer_completed(c, line, c->eng->now);

	kick(c, line);
	if (r >= c->nrequesters) /* a prefetch: the CPU holds a copy now, nobody waits */
		c->prefetch_line[r - c->nrequesters] = COH_NONE;
	else
		c->grant(c->grant_ctx, r, line);
}

/* The adjacent-line prefetcher of `cpu`, on its demand miss of `line`: a read of
 * the pair's other line, queued like any request, unless the CPU has a copy, its
 * prefetcher is busy, or the line is one task's alone (running ahead relies on
 * nobody else touching it). */
static void prefetch_buddy(struct coherence *c, uint32_t line, uint32_t cpu)
{
	uint32_t b = c->buddy[line], p = c->nrequesters + cpu;

	if (b == COH_NONE || coh_is_solo(c, b))
		return;
	if (c->prefetch_line[cpu] != COH_NONE)
		settle(c, c->prefetch_line[cpu]);
	if (c->prefetch_line[cpu] != COH_NONE)
		return;
	settle(c, b);
	if (is_hit(access_state(c, b, cpu, ACCESS_PREFETCH), ACCESS_PREFETCH))
		return; /* it has a copy */
	c->prefetch_line[cpu] = b;
	c->req[p] = (struct coh_request){
		.cpu = cpu, .next = COH_NONE, .kind = ACCESS_PREFETCH, .contended = line_busy(&c->lines[b]),
		.issued = c->eng->now,
	};
	enqueue(c, b, p);
	kick(c, b);
}

/* Queues requester r (whose request is filled in) for the line. */
static void issue(struct coherence *c, uint32_t line, uint32_t r)
{
	const struct line *l = &c->lines[line];

	c->req[r].contended = line_busy(l);
	enqueue(c, line, r);
	kick(c, line);
	if (c->m->adjacent_line_prefetch)
		prefetch_buddy(c, line, c->req[r].cpu);
}

enum coh_result coh_access(struct coherence *c, uint32_t line, uint32_t requester, uint32_t cpu,
			   enum access_kind kind, simtime_t *cost)
{
	struct line *l = &c->lines[line];
	simtime_t now = c->eng->now;
	enum coh_state st;
	const struct coh_transition *t;

	settle(c, line);
	count_access(l, kind);
	st = access_state(c, line, cpu, kind);
	t = row(st, kind);
	if (t->cost != COH_COST_HIT && cpu == l->grace_cpu && now < l->grace_until &&
	    (kind == ACCESS_READ || l->grace_write)) {
		/* the hold window: the CPU the line last came to keeps it a while, as it had
		 * it (whatever the state kept, which may already be the next holder's) */
	} else if (t->cost == COH_COST_HIT || t->cost == COH_COST_UPGRADE) {
		transition(c, line, cpu, st, t, COH_NONE); /* nothing moves */
	} else {
		/* a transfer, or MOVING: wait for the line's turn (start_transfer) */
		c->req[requester] = (struct coh_request){
			.cpu = cpu, .next = COH_NONE, .kind = (uint8_t)kind, .issued = now,
		};
		issue(c, line, requester);
		return COH_WAIT;
	}
	if (is_write(kind) && l->watchers != COH_NONE) {
		invalidate_watchers(c, line, cpu, now);
		kick(c, line);
	}
	*cost = hit_cost(c->m, kind);
	return COH_HIT;
}

void coh_note_user(struct coherence *c, uint32_t line, uint32_t requester)
{
	struct line *l = &c->lines[line];

	if (l->solo == COH_UNUSED)
		l->solo = requester;
	else if (l->solo != requester)
		l->solo = COH_NONE;
	if (l->solo == COH_NONE)
		c->solo_bits[line / 64] &= ~(UINT64_C(1) << (line % 64));
	else
		c->solo_bits[line / 64] |= UINT64_C(1) << (line % 64);
}

uint32_t coh_shared_lines(const struct coherence *c)
{
	uint32_t n = 0;

	for (uint32_t l = 0; l < c->nlines; l++)
		n += c->lines[l].solo == COH_NONE;
	return n;
}

bool coh_access_ahead(struct coherence *c, uint32_t line, uint32_t requester, uint32_t cpu,
		      enum access_kind kind, simtime_t start, bool burst, simtime_t *cost)
{
	struct line *l = &c->lines[line];
	simtime_t now = c->eng->now;
	bool solo = l->solo == requester;

	settle(c, line);
	if (!coh_holds(c, line, cpu, kind))
		return false;
	if (!solo && (!burst || line_busy(l) || (l->grace_cpu != cpu && now < l->grace_until)))
		return false;
	count_access(l, kind);
	*cost = hit_cost(c->m, kind);
	if (!solo) {
		/* nobody else may take it before this access is over */
		l->grace_cpu = cpu;
		l->grace_write = l->owner == cpu;
		if (l->grace_until < start + *cost)
			l->grace_until = start + *cost;
	}
	return true;
}

void coh_watch(struct coherence *c, uint32_t line, uint32_t requester, uint32_t cpu)
{
	struct line *l = &c->lines[line];
	struct coh_request *q = &c->req[requester];

	settle(c, line);
	*q = (struct coh_request){
		.cpu = cpu, .next = COH_NONE, .kind = ACCESS_READ, .issued = c->eng->now,
	};
	if (coh_holds(c, line, cpu, ACCESS_READ)) {
		q->next = l->watchers;
		l->watchers = requester;
	} else {
		l->reads++;
		issue(c, line, requester);
	}
}

void coh_reset_stats(struct coherence *c)
{
	for (uint32_t l = 0; l < c->nlines; l++) {
		c->lines[l].reads = c->lines[l].writes = 0;
		memset(&c->lines[l].stats, 0, sizeof(c->lines[l].stats));
	}
	memset(c->total_transfers, 0, sizeof(c->total_transfers));
	c->total_fills = 0;
	memset(c->traffic, 0, sizeof(c->traffic));
	dircache_reset_stats(&c->dir);
	memset(c->node_transfers, 0, (size_t)c->m->nodes * c->m->nodes * sizeof(*c->node_transfers));
}

uint64_t coh_bytes(uint64_t nlines, const struct machine *m)
{
	/* its state (address included), the other line of its pair (with the prefetcher),
	 * sharer bitset (when it has more than two) and solo bit (a byte, rounded up) */
	uint64_t per_line = sizeof(struct line) + (m->adjacent_line_prefetch ? sizeof(uint32_t) : 0) +
			    ((uint64_t)m->ncpus + 63) / 64 * sizeof(uint64_t) + 1;
	uint64_t dir = m->snoop == SNOOP_HOME ? dircache_bytes(m->nodes, m->directory_cache_lines) : 0;
	uint64_t prefetchers = (uint64_t)m->ncpus * (sizeof(struct coh_request) + sizeof(uint32_t) + sizeof(simtime_t));

	return bytes_add(bytes_add(bytes_mul(bytes_doubled(nlines, 1024), per_line), dir), prefetchers);
}
