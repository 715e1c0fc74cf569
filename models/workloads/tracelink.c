/* SPDX-License-Identifier: MIT */
#include "models/workloads/tracelink.h"

#include <stdlib.h>
#include <string.h>

#include "models/workloads/tracefile.h"

const char *const trace_fate_names[] = {
	[TF_NONE] = "none", [TF_WAIT_BLOCK] = "wait_block", [TF_WAIT_EAGAIN] = "wait_eagain",
	[TF_WAIT_TIMEOUT] = "wait_timeout", [TF_WAIT_INTR] = "wait_interrupted", [TF_WAIT_UNMATCHED] = "wait_unmatched",
	[TF_WAIT_LIMBO] = "wait_unfinished", [TF_WAKE] = "wake", [TF_REQUEUE] = "requeue",
	[TF_REQUEUE_EAGAIN] = "requeue_eagain", [TF_WAKE_OP] = "wake_op", [TF_UNSUPPORTED] = "unsupported",
	[TF_FAILED] = "failed",
};

/* --- the causal links (docs/trace.md, "Causal links") ---
 *
 * A sweep over the events in time order simulates each futex word's kernel queue:
 * a FUTEX_WAIT that returned 0 is queued at its entry (an *entry*), a wake takes the
 * first entries in queueing order whose bitset it matches (futex_wake()'s walk of a
 * plist of equal priorities), a requeue takes the woken ones and moves the next
 * ones to the second word's queue, a thread's exit wakes one waiter of its
 * clear_child_tid. An entry whose waiter returned before the wake began cannot be
 * its wake's: it is dropped (its waiter was woken by something the trace does not
 * show). A wake that finds fewer queued than it woke looks ahead at waits on the
 * word that entered while it ran (the timestamps are the calls' entries; the
 * waiter may have queued before the waker's walk). */

struct lk_entry {
	uint32_t waiter;       /* the wait event */
	uint32_t key;
	uint32_t deq;          /* the event that took it, TRACE_NONE */
	uint32_t deq_next;     /* next entry taken by the same event and part */
	uint32_t next_y;       /* moved by a requeue: its entry on the second word */
	uint32_t qnext;        /* next in its word's queue */
	uint32_t uf;           /* union-find parent */
	uint32_t cls, rank;
	uint8_t part;          /* 0: woken (a wake, a requeue's woken, an exit), 1: moved, 2: WAKE_OP's second word */
	bool dead;
};

struct lk_key {
	uint32_t qhead, qtail;
	uint32_t wfirst, wn, cursor; /* its woken waits, in order: lk.woken[wfirst ...] */
};

struct linker {
	struct trace *t;
	struct lk_entry *ent;
	uint32_t nent, ent_cap;
	struct lk_key *ks;
	uint32_t *woken;       /* per key, the waits on it that returned 0 */
	uint32_t *x_entry;     /* per event: a woken wait's first entry */
	uint32_t *head, *tail; /* per event and part (3): the entries it took, in queueing order */
	uint32_t *slots;       /* key hash: key index + 1 */
	uint32_t nslots, keys_cap;
};

static uint32_t bitset_of(const struct trace_event *ev)
{
	uint32_t cmd = ev->op & FX_CMD_MASK;

	return (cmd == FX_WAIT_BITSET || cmd == FX_WAKE_BITSET) && ev->has_val3 ? ev->val3 : FX_BITSET_MATCH_ANY;
}

static uint64_t key_hash(uint32_t pid, uint64_t uaddr, bool shared)
{
	uint64_t h = (uaddr ^ ((uint64_t)pid << 1 | shared)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

static uint32_t lk_key_of(struct linker *L, uint32_t pid, uint64_t uaddr, bool shared)
{
	struct trace_link *lk = &L->t->link;
	uint32_t s, k;

	if (2 * (lk->nkeys + 1) > L->nslots) {
		uint32_t n = L->nslots ? L->nslots * 2 : 1024;
		uint32_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return TRACE_NONE;
		for (uint32_t i = 0; i < lk->nkeys; i++) {
			for (s = (uint32_t)key_hash(lk->keys[i].pid, lk->keys[i].uaddr, lk->keys[i].shared) & (n - 1); slots[s];
			     s = (s + 1) & (n - 1))
				;
			slots[s] = i + 1;
		}
		free(L->slots);
		L->slots = slots;
		L->nslots = n;
	}
	for (s = (uint32_t)key_hash(pid, uaddr, shared) & (L->nslots - 1); L->slots[s]; s = (s + 1) & (L->nslots - 1)) {
		const struct trace_key *kk = &lk->keys[L->slots[s] - 1];

		if (kk->pid == pid && kk->uaddr == uaddr && kk->shared == shared)
			return L->slots[s] - 1;
	}
	if (trace_grow((void **)&lk->keys, &L->keys_cap, lk->nkeys + 1, sizeof(*lk->keys)) < 0)
		return TRACE_NONE;
	k = lk->nkeys++;
	lk->keys[k] = (struct trace_key){ .pid = pid, .uaddr = uaddr, .shared = shared };
	L->slots[s] = k + 1;
	return k;
}

/* A new entry of `waiter` on `key`, in no queue yet. */
static uint32_t lk_new_entry(struct linker *L, uint32_t waiter, uint32_t key)
{
	uint32_t id;

	if (trace_grow((void **)&L->ent, &L->ent_cap, L->nent + 1, sizeof(*L->ent)) < 0)
		return TRACE_NONE;
	id = L->nent++;
	L->ent[id] = (struct lk_entry){ .waiter = waiter, .key = key, .deq = TRACE_NONE, .deq_next = TRACE_NONE,
					.next_y = TRACE_NONE, .qnext = TRACE_NONE, .uf = id, .cls = TRACE_NONE };
	return id;
}

/* A new entry of `waiter` at the tail of `key`'s queue. */
static uint32_t lk_enqueue(struct linker *L, uint32_t waiter, uint32_t key)
{
	uint32_t id = lk_new_entry(L, waiter, key);

	if (id == TRACE_NONE)
		return id;
	if (L->ks[key].qtail == TRACE_NONE)
		L->ks[key].qhead = id;
	else
		L->ent[L->ks[key].qtail].qnext = id;
	L->ks[key].qtail = id;
	return id;
}

static void lk_unlink(struct linker *L, uint32_t key, uint32_t prev, uint32_t cur)
{
	struct lk_key *k = &L->ks[key];

	if (prev == TRACE_NONE)
		k->qhead = L->ent[cur].qnext;
	else
		L->ent[prev].qnext = L->ent[cur].qnext;
	if (k->qtail == cur)
		k->qtail = prev;
	L->ent[cur].qnext = TRACE_NONE;
}

/* Entry `id` is taken by event `deq` (part): appended to the event's list, in
 * queueing order. */
static void lk_took(struct linker *L, uint32_t id, uint32_t deq, uint8_t part)
{
	size_t h = (size_t)deq * 3 + part;

	L->ent[id].deq = deq;
	L->ent[id].part = part;
	if (L->tail[h] == TRACE_NONE)
		L->head[h] = id;
	else
		L->ent[L->tail[h]].deq_next = id;
	L->tail[h] = id;
}

static uint64_t ret_of(const struct trace_event *ev)
{
	return ev->t + ev->dur;
}

/* Event `deq` takes up to n waiters of `key` whose bitset meets `bitset`; how many. */
static int lk_take(struct linker *L, uint32_t key, uint64_t n, uint32_t bitset, uint32_t deq, uint8_t part,
		   uint64_t *found)
{
	const struct trace_event *dq = &L->t->events[deq];
	struct lk_key *k = &L->ks[key];
	uint32_t prev = TRACE_NONE, cur = k->qhead;

	*found = 0;
	while (cur != TRACE_NONE && *found < n) {
		struct lk_entry *e = &L->ent[cur];
		const struct trace_event *w = &L->t->events[e->waiter];
		uint32_t next = e->qnext;

		if (ret_of(w) < dq->t) {
			/* returned before this wake began: woken by something unseen */
			e->dead = true;
			lk_unlink(L, key, prev, cur);
		} else if (!(bitset_of(w) & bitset)) {
			prev = cur;
		} else {
			lk_unlink(L, key, prev, cur);
			lk_took(L, cur, deq, part);
			++*found;
		}
		cur = next;
	}
	/* waits that entered while the wake ran */
	for (uint32_t j = k->cursor; j < k->wn && *found < n; j++) {
		uint32_t w = L->woken[k->wfirst + j];
		const struct trace_event *we = &L->t->events[w];
		uint32_t id;

		if (we->t > dq->t + dq->dur)
			break;
		if (L->x_entry[w] != TRACE_NONE || !(bitset_of(we) & bitset) || ret_of(we) < dq->t)
			continue;
		id = lk_new_entry(L, w, key);
		if (id == TRACE_NONE)
			return -1;
		L->x_entry[w] = id;
		lk_took(L, id, deq, part);
		++*found;
	}
	return 0;
}

static uint32_t uf_find(struct lk_entry *ent, uint32_t i)
{
	while (ent[i].uf != i) {
		ent[i].uf = ent[ent[i].uf].uf;
		i = ent[i].uf;
	}
	return i;
}

static void uf_union(struct lk_entry *ent, uint32_t a, uint32_t b)
{
	a = uf_find(ent, a);
	b = uf_find(ent, b);
	if (a != b)
		ent[a > b ? a : b].uf = a < b ? a : b;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* pthread_join waits on the joined thread's TID word for its TID (glibc's
 * __pthread_clockjoin_ex): a thread whose clear_child_tid the tracer could not
 * see gets the word of a wait whose value is its TID, in its process. */
static int infer_cleartids(struct trace *t)
{
	uint32_t *by_tid = malloc(t->nthreads * sizeof(*by_tid));

	if (!by_tid)
		return -1;
	for (uint32_t i = 0; i < t->nthreads; i++)
		by_tid[i] = t->threads[i].tid;
	qsort(by_tid, t->nthreads, sizeof(*by_tid), cmp_u32);
	for (uint32_t i = 0; i < t->nevents; i++) {
		const struct trace_event *ev = &t->events[i];
		uint32_t th;

		if (ev->kind != TEV_FUTEX || !trace_is_wait(ev->op) ||
		    !bsearch(&ev->val, by_tid, t->nthreads, sizeof(*by_tid), cmp_u32))
			continue;
		th = trace_thread_of(t, ev->val);
		if (th != TRACE_NONE && !t->threads[th].cleartid && t->threads[th].pid == t->threads[ev->thread].pid &&
		    th != ev->thread) {
			t->threads[th].cleartid = ev->uaddr;
			t->threads[th].cleartid_inferred = true;
			t->link.cleartid_inferred++;
		}
	}
	free(by_tid);
	return 0;
}

static enum trace_fate fate_of(const struct trace_event *ev)
{
	uint32_t cmd = ev->op & FX_CMD_MASK;

	if (ev->op >= TRACE_OP_WAITV)
		return TF_UNSUPPORTED;
	switch (cmd) {
	case FX_WAIT:
	case FX_WAIT_BITSET:
		if (ev->ret == TRACE_RET_UNFINISHED)
			return TF_WAIT_LIMBO;
		if (ev->ret == 0)
			return TF_WAIT_BLOCK; /* or unmatched: decided by the sweep */
		return ev->ret == -11 ? TF_WAIT_EAGAIN : ev->ret == -110 ? TF_WAIT_TIMEOUT : TF_WAIT_INTR;
	case FX_WAKE:
	case FX_WAKE_BITSET:
		return ev->ret >= 0 ? TF_WAKE : TF_FAILED;
	case FX_REQUEUE:
	case FX_CMP_REQUEUE:
		return ev->ret >= 0 ? TF_REQUEUE : ev->ret == -11 ? TF_REQUEUE_EAGAIN : TF_FAILED;
	case FX_WAKE_OP:
		return ev->ret >= 0 ? TF_WAKE_OP : TF_FAILED;
	default:
		return TF_UNSUPPORTED;
	}
}

/* Keys of every call, the woken waits per key (for the look-ahead). */
static int lk_prepare(struct linker *L)
{
	struct trace *t = L->t;
	struct trace_link *lk = &t->link;
	uint32_t *count;

	for (uint32_t i = 0; i < t->nevents; i++) {
		const struct trace_event *ev = &t->events[i];
		struct trace_call *c = &lk->calls[i];
		uint32_t pid = t->threads[ev->thread].pid;
		bool shared = !(ev->op & FX_PRIVATE_FLAG);

		c->key = c->key2 = c->cls = c->ycls = TRACE_NONE;
		c->take.cls = c->take2.cls = TRACE_NONE;
		if (ev->kind == TEV_EXIT && t->threads[ev->thread].cleartid) {
			/* mm_release(): futex_wake(clear_child_tid, FLAGS_SHARED, 1, ...) */
			c->key = lk_key_of(L, pid, t->threads[ev->thread].cleartid, true);
			if (c->key == TRACE_NONE)
				return -1;
			lk->exit_wakes++;
			continue;
		}
		if (ev->kind != TEV_FUTEX)
			continue;
		c->fate = (uint8_t)fate_of(ev);
		if (c->fate == TF_UNSUPPORTED)
			continue;
		c->key = lk_key_of(L, pid, ev->uaddr, shared);
		if (c->key == TRACE_NONE)
			return -1;
		lk->keys[c->key].calls++;
		if (c->fate == TF_REQUEUE || c->fate == TF_REQUEUE_EAGAIN || c->fate == TF_WAKE_OP) {
			c->key2 = lk_key_of(L, pid, ev->uaddr2, shared);
			if (c->key2 == TRACE_NONE)
				return -1;
		}
	}
	L->ks = malloc((lk->nkeys ? lk->nkeys : 1) * sizeof(*L->ks));
	count = calloc(lk->nkeys ? lk->nkeys : 1, sizeof(*count));
	L->woken = malloc((t->nevents ? t->nevents : 1) * sizeof(*L->woken));
	if (!L->ks || !count || !L->woken) {
		free(count);
		return -1;
	}
	for (uint32_t i = 0; i < t->nevents; i++)
		if (lk->calls[i].fate == TF_WAIT_BLOCK)
			count[lk->calls[i].key]++;
	for (uint32_t k = 0, at = 0; k < lk->nkeys; k++) {
		L->ks[k] = (struct lk_key){ TRACE_NONE, TRACE_NONE, at, 0, 0 };
		at += count[k];
	}
	free(count);
	for (uint32_t i = 0; i < t->nevents; i++)
		if (lk->calls[i].fate == TF_WAIT_BLOCK) {
			struct lk_key *k = &L->ks[lk->calls[i].key];

			L->woken[k->wfirst + k->wn++] = i;
		}
	return 0;
}

/* The sweep: queues, wakes, requeues, exits in time order. */
static int lk_sweep(struct linker *L)
{
	struct trace *t = L->t;
	struct trace_link *lk = &t->link;

	for (uint32_t i = 0; i < t->nevents; i++) {
		const struct trace_event *ev = &t->events[i];
		struct trace_call *c = &lk->calls[i];
		uint64_t want, got, got2;

		if (ev->kind == TEV_EXIT && c->key != TRACE_NONE) {
			if (lk_take(L, c->key, 1, FX_BITSET_MATCH_ANY, i, 0, &got) < 0)
				return -1;
			continue;
		}
		switch (c->fate) {
		case TF_WAIT_BLOCK:
			L->ks[c->key].cursor++;
			if (L->x_entry[i] == TRACE_NONE && (L->x_entry[i] = lk_enqueue(L, i, c->key)) == TRACE_NONE)
				return -1;
			break;
		case TF_WAKE:
			want = (uint64_t)ev->ret;
			if (lk_take(L, c->key, want, bitset_of(ev), i, 0, &got) < 0)
				return -1;
			c->unmatched = (uint32_t)(want - got);
			break;
		case TF_REQUEUE: {
			uint64_t woken = (uint64_t)ev->ret < ev->val ? (uint64_t)ev->ret : ev->val;

			if (lk_take(L, c->key, woken, FX_BITSET_MATCH_ANY, i, 0, &got) < 0 ||
			    lk_take(L, c->key, (uint64_t)ev->ret - woken, FX_BITSET_MATCH_ANY, i, 1, &got2) < 0)
				return -1;
			c->unmatched = (uint32_t)((uint64_t)ev->ret - got - got2);
			/* the moved ones join the second word's queue, in their order */
			for (uint32_t e = L->head[(size_t)i * 3 + 1]; e != TRACE_NONE; e = L->ent[e].deq_next) {
				uint32_t y = lk_enqueue(L, L->ent[e].waiter, c->key2);

				if (y == TRACE_NONE)
					return -1;
				L->ent[e].next_y = y;
			}
			break;
		}
		case TF_WAKE_OP:
			want = (uint64_t)ev->ret;
			if (lk_take(L, c->key, want < ev->val ? want : ev->val, FX_BITSET_MATCH_ANY, i, 0, &got) < 0)
				return -1;
			if (lk_take(L, c->key2, want - got < ev->val2 ? want - got : ev->val2, FX_BITSET_MATCH_ANY, i, 2, &got2) < 0)
				return -1;
			c->unmatched = (uint32_t)(want - got - got2);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* A woken wait's entries must end in a wake (through any requeues); otherwise it
 * was woken by something unseen and every entry of it is dropped. */
static void lk_check_chains(struct linker *L)
{
	struct trace *t = L->t;

	for (uint32_t i = 0; i < t->nevents; i++) {
		uint32_t e = L->x_entry[i];
		bool ok = true;

		if (t->link.calls[i].fate != TF_WAIT_BLOCK)
			continue;
		for (uint32_t hops = 0; e != TRACE_NONE && hops <= L->nent; hops++) {
			if (L->ent[e].dead || L->ent[e].deq == TRACE_NONE) {
				ok = false;
				break;
			}
			if (L->ent[e].part != 1)
				break;
			e = L->ent[e].next_y;
			if (e == TRACE_NONE)
				ok = false;
		}
		if (ok && L->x_entry[i] != TRACE_NONE)
			continue;
		t->link.calls[i].fate = TF_WAIT_UNMATCHED;
		for (e = L->x_entry[i]; e != TRACE_NONE; e = L->ent[e].part == 1 ? L->ent[e].next_y : TRACE_NONE)
			L->ent[e].dead = true;
	}
}

/* Live entries an event took in a part, and the first of them. */
static uint32_t lk_live(const struct linker *L, uint32_t ev, uint8_t part, uint32_t *first)
{
	uint32_t n = 0;

	*first = TRACE_NONE;
	for (uint32_t e = L->head[(size_t)ev * 3 + part]; e != TRACE_NONE; e = L->ent[e].deq_next)
		if (!L->ent[e].dead) {
			if (*first == TRACE_NONE)
				*first = e;
			n++;
		}
	return n;
}

/* Waiters taken by one call share its futex word object: one class. */
static void lk_unions(struct linker *L)
{
	struct trace *t = L->t;

	for (uint32_t i = 0; i < t->nevents; i++)
		for (uint8_t part = 0; part < 3; part++) {
			uint32_t first, firsty = TRACE_NONE;

			lk_live(L, i, part, &first);
			for (uint32_t e = L->head[(size_t)i * 3 + part]; e != TRACE_NONE; e = L->ent[e].deq_next) {
				if (L->ent[e].dead)
					continue;
				uf_union(L->ent, first, e);
				if (part == 1) { /* a requeue: woken and moved share its first word... */
					uint32_t w0;

					if (lk_live(L, i, 0, &w0))
						uf_union(L->ent, w0, e);
					/* ... and the moved ones its second */
					if (firsty == TRACE_NONE)
						firsty = L->ent[e].next_y;
					uf_union(L->ent, firsty, L->ent[e].next_y);
				}
			}
		}
}

/* Classes, their calls' turns and their waiters' ranks. */
static int lk_classes(struct linker *L)
{
	struct trace *t = L->t;
	struct trace_link *lk = &t->link;
	uint32_t *cls_of_root = malloc((L->nent ? L->nent : 1) * sizeof(*cls_of_root));
	uint32_t *members = NULL, *next_rank = NULL, ncls = 0, nranks = 0;
	bool *ordered = NULL;

	if (!cls_of_root)
		return -1;
	for (uint32_t e = 0; e < L->nent; e++)
		cls_of_root[e] = TRACE_NONE;
	for (uint32_t e = 0; e < L->nent; e++) {
		uint32_t r;

		if (L->ent[e].dead)
			continue;
		r = uf_find(L->ent, e);
		if (cls_of_root[r] == TRACE_NONE)
			cls_of_root[r] = ncls++;
		L->ent[e].cls = cls_of_root[r];
	}
	free(cls_of_root);
	lk->nclasses = ncls;
	lk->classes = calloc(ncls ? ncls : 1, sizeof(*lk->classes));
	members = calloc(ncls ? ncls : 1, sizeof(*members));
	next_rank = calloc(ncls ? ncls : 1, sizeof(*next_rank));
	ordered = calloc(ncls ? ncls : 1, sizeof(*ordered));
	if (!lk->classes || !members || !next_rank || !ordered)
		goto oom;
	for (uint32_t e = 0; e < L->nent; e++)
		if (!L->ent[e].dead) {
			members[L->ent[e].cls]++;
			lk->classes[L->ent[e].cls].key = L->ent[e].key;
		}
	/* each taking call's turn in its class, in time order */
	for (uint32_t i = 0; i < t->nevents; i++) {
		struct trace_call *c = &lk->calls[i];

		for (uint8_t part = 0; part < 3; part++) {
			uint32_t first, n = lk_live(L, i, part, &first), w0;
			struct trace_take *tk = part == 2 ? &c->take2 : &c->take;

			if (!n)
				continue;
			if (part == 1 && lk_live(L, i, 0, &w0)) {
				/* a requeue that wakes and moves from one class: woken first, then moved */
				ordered[L->ent[first].cls] = true;
				tk->n += n;
				continue;
			}
			tk->cls = L->ent[first].cls;
			tk->ordinal = lk->classes[tk->cls].nops++;
			tk->n = n;
		}
		if (c->take.cls == TRACE_NONE) { /* a requeue that only moves */
			uint32_t first, n = lk_live(L, i, 1, &first);

			if (n) {
				c->take.cls = L->ent[first].cls;
				c->take.ordinal = lk->classes[c->take.cls].nops++;
				c->take.n = n;
			}
		}
	}
	for (uint32_t k = 0; k < ncls; k++) {
		struct trace_class *cl = &lk->classes[k];

		ordered[k] = ordered[k] || cl->nops > 1;
		cl->nranks = ordered[k] ? members[k] : 1;
		cl->first_rank = nranks;
		nranks += cl->nranks;
	}
	lk->nrank_entries = nranks;
	lk->rank_entries = calloc(nranks ? nranks : 1, sizeof(*lk->rank_entries));
	if (!lk->rank_entries)
		goto oom;
	/* entries were created in queueing order: that is their rank */
	for (uint32_t e = 0; e < L->nent; e++) {
		struct lk_entry *en = &L->ent[e];
		struct trace_class *cl;

		if (en->dead)
			continue;
		cl = &lk->classes[en->cls];
		en->rank = ordered[en->cls] ? next_rank[en->cls]++ : 0;
		lk->rank_entries[cl->first_rank + en->rank]++;
	}
	free(members);
	free(next_rank);
	free(ordered);
	return 0;
oom:
	free(members);
	free(next_rank);
	free(ordered);
	return -1;
}

/* What each call does in the replay, from its entries. */
static void lk_calls(struct linker *L)
{
	struct trace *t = L->t;
	struct trace_link *lk = &t->link;

	for (uint32_t i = 0; i < t->nevents; i++) {
		struct trace_call *c = &lk->calls[i];
		uint32_t first;

		if (c->fate == TF_WAIT_BLOCK) {
			c->cls = L->ent[L->x_entry[i]].cls;
			c->rank = L->ent[L->x_entry[i]].rank;
		}
		for (uint8_t part = 0; part < 3; part++) {
			struct trace_take *tk = part == 2 ? &c->take2 : &c->take;

			for (uint32_t e = L->head[(size_t)i * 3 + part]; e != TRACE_NONE; e = L->ent[e].deq_next)
				if (!L->ent[e].dead && L->ent[e].rank > tk->rank_hi)
					tk->rank_hi = L->ent[e].rank;
		}
		c->woken = lk_live(L, i, 0, &first);
		c->moved = lk_live(L, i, 1, &first);
		if (c->fate == TF_REQUEUE) {
			const struct trace_event *ev = &t->events[i];
			uint64_t woken = (uint64_t)ev->ret < ev->val ? (uint64_t)ev->ret : ev->val;

			/* recorded ones not replayed: none found, or dropped after */
			lk->unmatched_woken += woken - c->woken;
			lk->unmatched_moved += (uint64_t)ev->ret - woken - c->moved;
			c->unmatched = (uint32_t)((uint64_t)ev->ret - c->woken - c->moved);
		} else if (c->fate == TF_WAKE || c->fate == TF_WAKE_OP) {
			uint32_t n2 = lk_live(L, i, 2, &first);

			c->unmatched = (uint32_t)((uint64_t)t->events[i].ret - c->woken - n2);
			lk->unmatched_woken += c->unmatched;
		}
		if (c->moved) {
			uint32_t y = L->ent[first].next_y;

			c->ycls = L->ent[y].cls;
			c->yrank = L->ent[y].rank;
			for (uint32_t e = L->head[(size_t)i * 3 + 1]; e != TRACE_NONE; e = L->ent[e].deq_next)
				if (!L->ent[e].dead && L->ent[L->ent[e].next_y].rank < c->yrank)
					c->yrank = L->ent[L->ent[e].next_y].rank;
		}
		if (t->events[i].kind == TEV_FUTEX)
			lk->fates[c->fate]++;
	}
}

int trace_link(struct trace *t, struct fs_error *e)
{
	struct linker L = { .t = t };
	size_t n = t->nevents ? t->nevents : 1;
	int rc = -1;

	free(t->link.calls);
	free(t->link.keys);
	free(t->link.classes);
	free(t->link.rank_entries);
	memset(&t->link, 0, sizeof(t->link));
	t->link.calls = calloc(n, sizeof(*t->link.calls));
	L.x_entry = malloc(n * sizeof(*L.x_entry));
	L.head = malloc(n * 3 * sizeof(*L.head));
	L.tail = malloc(n * 3 * sizeof(*L.tail));
	if (!t->link.calls || !L.x_entry || !L.head || !L.tail)
		goto out;
	for (size_t i = 0; i < n; i++)
		L.x_entry[i] = TRACE_NONE;
	for (size_t i = 0; i < n * 3; i++)
		L.head[i] = L.tail[i] = TRACE_NONE;
	if (infer_cleartids(t) < 0 || lk_prepare(&L) < 0 || lk_sweep(&L) < 0)
		goto out;
	lk_check_chains(&L);
	lk_unions(&L);
	if (lk_classes(&L) < 0)
		goto out;
	lk_calls(&L);
	rc = 0;
out:
	free(L.ent);
	free(L.ks);
	free(L.woken);
	free(L.x_entry);
	free(L.head);
	free(L.tail);
	free(L.slots);
	return rc < 0 ? fs_fail(e, FS_ERR_LIMIT, "out of memory linking the trace") : 0;
}
