/* SPDX-License-Identifier: MIT */
#include "models/futex_path.h"

#include <stdlib.h>
#include <string.h>

#include "models/memmap.h"
#include "models/rwsem.h"

bool uop_same(const struct uop *a, const struct uop *b)
{
	if (a->kind != b->kind || a->operand != b->operand || a->work_ps != b->work_ps)
		return false;
	switch (a->kind) {
	case UOP_WORK:
		return a->parts == b->parts;
	case UOP_ACCESS:
		return a->access == b->access &&
		       (a->operand == OPND_LINE ? a->line == b->line
			: a->operand == OPND_BUCKET_FIELD || a->operand == OPND_BUCKET2_FIELD ? a->field == b->field
												 : true);
	case UOP_RWSEM:
		return a->rwsem_op == b->rwsem_op && a->sem == b->sem;
	case UOP_USER:
		return a->user_op == b->user_op;
	case UOP_BRANCH:
		return a->cond == b->cond && a->to == b->to;
	case UOP_JUMP:
		return a->to == b->to;
	case UOP_WAITERS:
		return a->inc == b->inc;
	case UOP_WALK:
		return a->requeue == b->requeue;
	case UOP_PI:
		return a->pi_op == b->pi_op;
	default:
		return true; /* kind, operand and work_ps are all there is */
	}
}

void path_emit(struct path_builder *b, struct uop u)
{
	if (b->n == b->cap) {
		b->overflow = true;
		return;
	}
	b->uops[b->n++] = u;
}

void work_parts_free(struct work_part_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* The index + 1 of composition p in the table (added if new), 0 when out of memory. */
static uint32_t work_parts_intern(struct work_part_table *t, const struct work_parts *p)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].n == p->n && !memcmp(t->v[i].step, p->step, p->n) &&
		    !memcmp(t->v[i].ps, p->ps, p->n * sizeof(p->ps[0])))
			return i + 1;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 64;
		struct work_parts *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return 0;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = *p;
	return ++t->n;
}

/* Work micro-op u takes on `ps` of the current step's work. */
static void add_part(struct path_builder *b, struct uop *u, simtime_t ps)
{
	struct work_parts p = { 0 };
	uint8_t i;

	if (!b->parts || !ps)
		return;
	if (u->parts)
		p = b->parts->v[u->parts - 1];
	for (i = 0; i < p.n && p.step[i] != b->step; i++)
		;
	if (i == p.n && p.n < WORK_MAX_PARTS)
		p.step[p.n++] = b->step;
	else if (i == p.n)
		i = (uint8_t)(p.n - 1); /* more steps than parts: the last one takes it */
	p.ps[i] += ps;
	u->parts = work_parts_intern(b->parts, &p);
}

void path_emit_work(struct path_builder *b, simtime_t ps)
{
	/* consecutive local work is one micro-op: fewer steps on the hot path (a
	 * random duration's work_ps is its mean: nothing adds to it) */
	if (b->n && b->uops[b->n - 1].kind == UOP_WORK && b->uops[b->n - 1].operand != OPND_RANDOM_EXP) {
		b->uops[b->n - 1].work_ps += ps;
		add_part(b, &b->uops[b->n - 1], ps);
		return;
	}
	if (ps) {
		path_emit(b, (struct uop){ .kind = UOP_WORK, .operand = OPND_NONE, .work_ps = ps });
		if (!b->overflow)
			add_part(b, &b->uops[b->n - 1], ps);
	}
}

void path_emit_access(struct path_builder *b, enum access_kind kind, enum uop_operand operand, uint32_t where)
{
	struct uop u = { .kind = UOP_ACCESS, .access = (uint8_t)kind, .operand = (uint8_t)operand };
	struct uop *prev = b->n ? &b->uops[b->n - 1] : NULL;
	struct uop as_read;

	if (operand == OPND_LINE && where == COH_NONE) {
		b->missing_line = true;
		return;
	}
	if (operand == OPND_LINE)
		u.line = where;
	else if (operand == OPND_BUCKET_FIELD || operand == OPND_BUCKET2_FIELD)
		u.field = where;
	/* A load and, next in the path, a write or locked RMW of the same line (the
	 * private hash's immutable flag, then its reference count): the out-of-order
	 * core has the store's address before the load's miss returns, and asks for the
	 * line once, for ownership [A] (docs/model.md). The load becomes that request. */
	as_read = u;
	as_read.access = ACCESS_READ;
	if (kind != ACCESS_READ && prev && uop_same(prev, &as_read))
		prev->access = (uint8_t)ACCESS_WRITE;
	path_emit(b, u);
}

/* --- steps --- */

static void step_syscall(struct path_builder *b)
{
	path_emit_work(b, b->m->syscall_ps);
}

static void step_get_key(struct path_builder *b)
{
	if (!b->shared) {
		path_emit_work(b, b->costs_ps[KC_KEY_PRIVATE]);
		return;
	}
	/* get_user_pages_fast takes a page reference, get_futex_key drops it */
	path_emit_work(b, b->costs_ps[KC_KEY_SHARED]);
	path_emit_access(b, ACCESS_RMW, OPND_PAGE_LINE, 0);
	path_emit_access(b, ACCESS_RMW, OPND_PAGE_LINE, 0);
}

static bool uses_private_hash(const struct path_builder *b)
{
	return b->private_hash && !b->shared;
}

static bool has_phash_field(const struct path_builder *b, enum phash_field f)
{
	return b->k->phash_header.off[f] != LAYOUT_ABSENT;
}

/* fph->immutable, checked by the private hash's get and put (6.16 development):
 * a read of the header line, when the design's header has the flag. */
static void emit_immutable_check(struct path_builder *b)
{
	if (uses_private_hash(b) && has_phash_field(b, PHF_IMMUTABLE))
		path_emit_access(b, ACCESS_READ, OPND_LINE, b->phash_lines[PHF_IMMUTABLE]);
}

/* futex_hash() in the kernel's order (kernel/futex/core.c of 6.16-6.18, commit 63e8595c060a): find the table (the
 * mm's pointer to its private hash and the header's hash_mask, where the design
 * keeps them apart), hash, then read hb->priv from the bucket (6.16+: every
 * bucket has it), then take the private hash's reference: the bucket line is
 * read before waiters++ writes it. */
static void emit_hash_lookup(struct path_builder *b, enum uop_operand bucket)
{
	if (!uses_private_hash(b)) {
		simtime_t node = 0; /* picking the node's table, 6.16+: the kernel computes it on one node too */

		if (b->k->global.per_node && b->k->global.node_select == NODE_SELECT_HASH)
			node = b->costs_ps[KC_NODE_SELECT_DIV];
		else if (b->k->global.per_node && b->k->global.node_select == NODE_SELECT_MULSHIFT)
			node = b->costs_ps[KC_NODE_SELECT_MULSHIFT];
		path_emit_work(b, b->costs_ps[KC_HASH_GLOBAL] + node);
	} else {
		path_emit_access(b, ACCESS_READ, OPND_LINE, b->mm_lines[MMF_FUTEX_PHASH]);
		path_emit_work(b, b->costs_ps[KC_HASH_PRIVATE]);
		if (has_phash_field(b, PHF_HASH_MASK))
			path_emit_access(b, ACCESS_READ, OPND_LINE, b->phash_lines[PHF_HASH_MASK]);
	}
	if (b->k->bucket.off[BF_PRIV] != LAYOUT_ABSENT)
		path_emit_access(b, ACCESS_READ, bucket, BF_PRIV);
	if (uses_private_hash(b)) {
		emit_immutable_check(b);
		b->k->private_hash.refcount->emit_get(b);
	}
}

static void step_hash_lookup(struct path_builder *b)
{
	emit_hash_lookup(b, OPND_BUCKET_FIELD);
}

static void step_hash_lookup2(struct path_builder *b)
{
	emit_hash_lookup(b, OPND_BUCKET2_FIELD);
}

static void step_wait_setup(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_WAIT_SETUP]);
}

/* waiters++ / waiters--: an RMW on the field's line that also keeps the count a
 * waker reads (futex_hb_waiters_pending) */
static void emit_waiters(struct path_builder *b, enum uop_operand bucket, bool inc)
{
	path_emit(b, (struct uop){ .kind = UOP_WAITERS, .operand = (uint8_t)bucket, .inc = inc });
}

static void step_waiters_inc(struct path_builder *b)
{
	emit_waiters(b, OPND_BUCKET_FIELD, true);
}

static void step_waiters_dec(struct path_builder *b)
{
	emit_waiters(b, OPND_BUCKET_FIELD, false);
}

static void step_waiters_inc2(struct path_builder *b)
{
	emit_waiters(b, OPND_BUCKET2_FIELD, true);
}

static void step_waiters_dec2(struct path_builder *b)
{
	emit_waiters(b, OPND_BUCKET2_FIELD, false);
}

/* The local work of the lock's slow path, spent only when it is contended: the
 * queued spinlock's MCS node, or PREEMPT_RT's rtlock waiter. */
static simtime_t lock_slowpath_ps(const struct path_builder *b)
{
	return b->costs_ps[b->k->preempt_rt ? KC_RTLOCK_SLOWPATH : KC_LOCK_SLOWPATH];
}

/* PREEMPT_RT's spin_lock()/spin_unlock() do work of their own around the lock
 * word (rt_spin_lock() in kernel/locking/spinlock_rt.c) */
static void emit_rtlock_fast(struct path_builder *b)
{
	if (b->k->preempt_rt)
		path_emit_work(b, b->costs_ps[KC_RTLOCK_FAST]);
}

static void step_lock(struct path_builder *b)
{
	emit_rtlock_fast(b);
	path_emit(b, (struct uop){ .kind = UOP_LOCK, .operand = OPND_BUCKET_LOCK, .work_ps = lock_slowpath_ps(b) });
}

static void step_read_uval(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_UVAL_READ]);
	path_emit_access(b, ACCESS_READ, OPND_WORD_LINE, 0);
}

static void step_unlock(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_UNLOCK, .operand = OPND_BUCKET_LOCK });
	emit_rtlock_fast(b);
}

static void emit_hash_put(struct path_builder *b, enum uop_operand bucket)
{
	if (b->k->bucket.off[BF_PRIV] != LAYOUT_ABSENT)
		path_emit_access(b, ACCESS_READ, bucket, BF_PRIV);
	if (uses_private_hash(b)) {
		emit_immutable_check(b);
		b->k->private_hash.refcount->emit_put(b);
	}
}

static void step_hash_put(struct path_builder *b)
{
	emit_hash_put(b, OPND_BUCKET_FIELD);
}

static void step_hash_put2(struct path_builder *b)
{
	emit_hash_put(b, OPND_BUCKET2_FIELD);
}

/* futex_queue: link our futex_q into the bucket's chain (a write of the chain's line) */
static void step_queue(struct path_builder *b)
{
	path_emit_access(b, ACCESS_WRITE, OPND_BUCKET_FIELD, BF_CHAIN);
	path_emit(b, (struct uop){ .kind = UOP_QUEUE, .operand = OPND_NONE });
}

static void step_sleep(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_SCHEDULE]);
	path_emit(b, (struct uop){ .kind = UOP_SLEEP, .operand = OPND_NONE });
}

/* futex_hb_waiters_pending: nobody waits, skip to after the unlock (patched) */
static void step_waiters_pending(struct path_builder *b)
{
	path_emit_access(b, ACCESS_READ, OPND_BUCKET_FIELD, BF_WAITERS);
	path_emit(b, (struct uop){ .kind = UOP_BRANCH, .cond = BR_NO_WAITERS, .operand = OPND_NONE });
}

static void step_wake_walk(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_WALK, .operand = OPND_NONE, .requeue = 0,
				   .work_ps = b->costs_ps[KC_CHAIN_ENTRY] });
}

static void step_requeue_walk(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_WALK, .operand = OPND_NONE, .requeue = 1,
				   .work_ps = b->costs_ps[KC_CHAIN_ENTRY] });
}

/* double_lock_hb: the lower-addressed bucket first, then the other if it differs */
static void step_double_lock(struct path_builder *b)
{
	emit_rtlock_fast(b);
	path_emit(b, (struct uop){ .kind = UOP_LOCK, .operand = OPND_LOCK_FIRST, .work_ps = lock_slowpath_ps(b) });
	emit_rtlock_fast(b);
	path_emit(b, (struct uop){ .kind = UOP_LOCK, .operand = OPND_LOCK_SECOND, .work_ps = lock_slowpath_ps(b) });
}

static void step_double_unlock(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_UNLOCK, .operand = OPND_LOCK_FIRST });
	emit_rtlock_fast(b);
	path_emit(b, (struct uop){ .kind = UOP_UNLOCK, .operand = OPND_LOCK_SECOND });
	emit_rtlock_fast(b);
}

/* the requeue's value check: a changed value ends it (patched to the double unlock) */
static void step_cmp_uval(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_UVAL_READ]);
	path_emit_access(b, ACCESS_READ, OPND_WORD_LINE, 0);
	path_emit(b, (struct uop){ .kind = UOP_BRANCH, .cond = BR_VALUE_NE, .operand = OPND_NONE });
}

/* futex_lock_pi_atomic(): futex_top_waiter() reads the chain, then the word's
 * cmpxchg under the bucket lock (get_futex_value_locked, lock_pi_update_atomic) */
static void step_pi_lock_atomic(struct path_builder *b)
{
	path_emit_access(b, ACCESS_READ, OPND_BUCKET_FIELD, BF_CHAIN);
	path_emit_work(b, b->costs_ps[KC_UVAL_READ]);
	path_emit(b, (struct uop){ .kind = UOP_PI, .pi_op = PI_LOCK_ATOMIC, .operand = OPND_WORD_LINE });
}

/* attach_to_pi_owner()/attach_to_pi_state() and __rt_mutex_start_proxy_lock(): the
 * pi_state's refcount and its rt_mutex's wait_lock, and the waiter's setup */
static void step_pi_attach(struct path_builder *b)
{
	path_emit_work(b, b->costs_ps[KC_PI_STATE]);
	path_emit_access(b, ACCESS_RMW, OPND_PI_STATE, 0);
}

/* fixup_pi_owner(): the new owner checks pi_state->owner */
static void step_pi_fixup(struct path_builder *b)
{
	path_emit_access(b, ACCESS_READ, OPND_PI_STATE, 0);
}

/* futex_unqueue_pi(): unlink from the chain (the waiters count is waiters_dec's) */
static void step_pi_unqueue(struct path_builder *b)
{
	path_emit_access(b, ACCESS_WRITE, OPND_BUCKET_FIELD, BF_CHAIN);
	path_emit(b, (struct uop){ .kind = UOP_PI, .pi_op = PI_UNQUEUE, .operand = OPND_NONE });
}

/* futex_unlock_pi() under the bucket lock: futex_top_waiter() reads the chain; with
 * a waiter, wake_futex_pi() takes the pi_state's wait_lock, moves the word to the
 * waiter (cmpxchg) and wakes it; without, the word is cleared (cmpxchg to 0) */
static void step_pi_unlock(struct path_builder *b)
{
	uint32_t branch, jump;

	path_emit_access(b, ACCESS_READ, OPND_BUCKET_FIELD, BF_CHAIN);
	branch = b->n;
	path_emit(b, (struct uop){ .kind = UOP_BRANCH, .cond = BR_NO_PI_WAITER, .operand = OPND_NONE });
	path_emit_work(b, b->costs_ps[KC_PI_STATE]);
	path_emit_access(b, ACCESS_RMW, OPND_PI_STATE, 0);
	path_emit(b, (struct uop){ .kind = UOP_PI, .pi_op = PI_HANDOFF, .operand = OPND_WORD_LINE });
	jump = b->n;
	path_emit(b, (struct uop){ .kind = UOP_JUMP, .operand = OPND_NONE });
	if (!b->overflow)
		b->uops[branch].to = b->n;
	path_emit(b, (struct uop){ .kind = UOP_PI, .pi_op = PI_RELEASE, .operand = OPND_WORD_LINE });
	if (!b->overflow)
		b->uops[jump].to = b->n;
}

/* futex_proxy_trylock_atomic() under both bucket locks: the first futex's top
 * waiter (a chain read), futex_lock_pi_atomic() on the second futex's word on its
 * behalf, and the pi_state the requeued waiters will block on */
static void step_pi_proxy_lock(struct path_builder *b)
{
	path_emit_access(b, ACCESS_READ, OPND_BUCKET_FIELD, BF_CHAIN);
	path_emit_work(b, b->costs_ps[KC_UVAL_READ]);
	path_emit(b, (struct uop){ .kind = UOP_PI, .pi_op = PI_PROXY_LOCK, .operand = OPND_WORD2_LINE });
	path_emit_work(b, b->costs_ps[KC_PI_STATE]);
	path_emit_access(b, ACCESS_RMW, OPND_PI_STATE2, 0);
}

/* woken owning the second futex without having been requeued (the proxy took it
 * for us and unqueued us): nothing left but the hash put (patched past unlock2) */
static void step_pi_requeue_done(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_BRANCH, .cond = BR_NOT_QUEUED, .operand = OPND_NONE });
}

static void step_lock2(struct path_builder *b)
{
	emit_rtlock_fast(b);
	path_emit(b, (struct uop){ .kind = UOP_LOCK, .operand = OPND_BUCKET2_LOCK, .work_ps = lock_slowpath_ps(b) });
}

static void step_pi_fixup2(struct path_builder *b)
{
	path_emit_access(b, ACCESS_READ, OPND_PI_STATE2, 0);
}

static void step_unlock2(struct path_builder *b)
{
	path_emit(b, (struct uop){ .kind = UOP_UNLOCK, .operand = OPND_BUCKET2_LOCK });
	emit_rtlock_fast(b);
}

/* Before 2.6.22 every futex op looked the futex up through the mm; afterwards only
 * ops without FUTEX_PRIVATE_FLAG do. */
static bool legacy_key(const struct path_builder *b)
{
	return b->shared || !b->k->private_flag;
}

static void step_mmap_rwsem(struct path_builder *b, enum rwsem_op op)
{
	if (legacy_key(b))
		path_emit(b, (struct uop){ .kind = UOP_RWSEM, .rwsem_op = (uint8_t)op, .operand = OPND_NONE,
					   .sem = b->mmap_sem });
}

static void step_mmap_read_lock(struct path_builder *b)
{
	step_mmap_rwsem(b, RWSEM_DOWN_READ);
}

static void step_mmap_read_unlock(struct path_builder *b)
{
	step_mmap_rwsem(b, RWSEM_UP_READ);
}

static void step_find_vma(struct path_builder *b)
{
	if (!legacy_key(b))
		return;
	path_emit_work(b, b->costs_ps[KC_FIND_VMA]);
	path_emit_access(b, ACCESS_READ, OPND_LINE, b->mm_lines[MMF_MMAP_CACHE]);
}

static void step_key_ref(struct path_builder *b)
{
	if (legacy_key(b))
		path_emit_access(b, ACCESS_RMW, OPND_LINE, b->mm_lines[MMF_MM_COUNT]);
}

struct step_def {
	void (*emit)(struct path_builder *b);
	int needs_field; /* bucket field the step cannot do without, or -1 */
};

static const struct step_def step_defs[STEP_NSTEPS] = {
	[STEP_SYSCALL] = { step_syscall, -1 },
	[STEP_GET_KEY] = { step_get_key, -1 },
	[STEP_HASH_LOOKUP] = { step_hash_lookup, -1 },
	[STEP_WAIT_SETUP] = { step_wait_setup, -1 },
	[STEP_WAITERS_INC] = { step_waiters_inc, BF_WAITERS },
	[STEP_LOCK] = { step_lock, BF_LOCK },
	[STEP_READ_UVAL] = { step_read_uval, -1 },
	[STEP_WAITERS_DEC] = { step_waiters_dec, BF_WAITERS },
	[STEP_UNLOCK] = { step_unlock, BF_LOCK },
	[STEP_HASH_PUT] = { step_hash_put, -1 },
	[STEP_MMAP_READ_LOCK] = { step_mmap_read_lock, -1 },
	[STEP_MMAP_READ_UNLOCK] = { step_mmap_read_unlock, -1 },
	[STEP_FIND_VMA] = { step_find_vma, -1 },
	[STEP_KEY_REF_GET] = { step_key_ref, -1 },
	[STEP_KEY_REF_PUT] = { step_key_ref, -1 },
	[STEP_QUEUE] = { step_queue, BF_CHAIN },
	[STEP_SLEEP] = { step_sleep, -1 },
	[STEP_WAITERS_PENDING] = { step_waiters_pending, BF_WAITERS },
	[STEP_WAKE_WALK] = { step_wake_walk, BF_CHAIN },
	[STEP_GET_KEY2] = { step_get_key, -1 },
	[STEP_HASH_LOOKUP2] = { step_hash_lookup2, -1 },
	[STEP_WAITERS_INC2] = { step_waiters_inc2, BF_WAITERS },
	[STEP_WAITERS_DEC2] = { step_waiters_dec2, BF_WAITERS },
	[STEP_DOUBLE_LOCK] = { step_double_lock, BF_LOCK },
	[STEP_CMP_UVAL] = { step_cmp_uval, -1 },
	[STEP_REQUEUE_WALK] = { step_requeue_walk, BF_CHAIN },
	[STEP_DOUBLE_UNLOCK] = { step_double_unlock, BF_LOCK },
	[STEP_HASH_PUT2] = { step_hash_put2, -1 },
	[STEP_PI_LOCK_ATOMIC] = { step_pi_lock_atomic, BF_CHAIN },
	[STEP_PI_ATTACH] = { step_pi_attach, -1 },
	[STEP_PI_FIXUP] = { step_pi_fixup, -1 },
	[STEP_PI_UNQUEUE] = { step_pi_unqueue, BF_CHAIN },
	[STEP_PI_UNLOCK] = { step_pi_unlock, BF_CHAIN },
	[STEP_PI_PROXY_LOCK] = { step_pi_proxy_lock, BF_CHAIN },
	[STEP_PI_REQUEUE_DONE] = { step_pi_requeue_done, -1 },
	[STEP_LOCK2] = { step_lock2, BF_LOCK },
	[STEP_PI_FIXUP2] = { step_pi_fixup2, -1 },
	[STEP_UNLOCK2] = { step_unlock2, BF_LOCK },
};

/* A path must leave the buckets unlocked: each lock (double_lock) is followed by one
 * unlock (double_unlock). */
static int check_locking(const uint8_t *steps, uint32_t n, const char *op, struct fs_error *e)
{
	static const struct {
		uint8_t lock, unlock;
	} pairs[3] = { { STEP_LOCK, STEP_UNLOCK }, { STEP_DOUBLE_LOCK, STEP_DOUBLE_UNLOCK }, { STEP_LOCK2, STEP_UNLOCK2 } };

	for (int k = 0; k < 3; k++) {
		int held = 0;

		for (uint32_t i = 0; i < n; i++) {
			if (steps[i] == pairs[k].lock && held++)
				return fs_fail(e, FS_ERR_INPUT, "kernel path %s: '%s' while the bucket lock is held", op,
					       futex_step_names[pairs[k].lock]);
			if (steps[i] == pairs[k].unlock && !held--)
				return fs_fail(e, FS_ERR_INPUT, "kernel path %s: '%s' without '%s'", op,
					       futex_step_names[pairs[k].unlock], futex_step_names[pairs[k].lock]);
		}
		if (held)
			return fs_fail(e, FS_ERR_INPUT, "kernel path %s: '%s' without '%s'", op,
				       futex_step_names[pairs[k].lock], futex_step_names[pairs[k].unlock]);
	}
	return 0;
}

/* The mitigations' price of the step's calls and returns, ahead of its own work. */
static void emit_calls(struct path_builder *b, enum futex_step step)
{
	uint32_t calls = futex_step_calls[step];

	if (b->shared && (step == STEP_GET_KEY || step == STEP_GET_KEY2))
		calls += futex_shared_key_calls;
	if (calls && b->m->call_return_ps)
		path_emit_work(b, calls * b->m->call_return_ps);
}

/* Emits `n` steps. A branch a step emits (waiters_pending, cmp_uval) jumps past the
 * next unlock or to the next double_unlock: its target is patched when that step is reached. */
static int emit_steps(struct path_builder *b, const uint8_t *list, uint32_t n, const char *name, struct fs_error *e)
{
	int32_t pending = -1;  /* index of a branch waiting for its target */
	uint8_t target_step = 0, branch_step = 0;
	bool after = false;

	for (uint32_t i = 0; i < n; i++) {
		const struct step_def *s = &step_defs[list[i]];

		if (s->needs_field >= 0 && b->k->bucket.off[s->needs_field] == LAYOUT_ABSENT)
			return fs_fail(e, FS_ERR_INPUT, "kernel path %s: step '%s' needs layout.bucket.fields.%s", name,
				       futex_step_names[list[i]], bucket_field_names[s->needs_field]);
		if (pending >= 0 && list[i] == target_step && !after) {
			b->uops[pending].to = b->n;
			pending = -1;
		}
		b->step = list[i];
		emit_calls(b, list[i]);
		s->emit(b);
		b->step = WORK_STEP_USER;
		if (b->missing_line)
			return fs_fail(e, FS_ERR_INPUT,
				       "kernel path %s: step '%s' touches an mm or private-hash field the layout "
				       "does not have (layout.mm / layout.private_hash_header)",
				       name, futex_step_names[list[i]]);
		if (pending >= 0 && list[i] == target_step && after) {
			b->uops[pending].to = b->n;
			pending = -1;
		}
		if ((list[i] == STEP_WAITERS_PENDING || list[i] == STEP_CMP_UVAL || list[i] == STEP_PI_REQUEUE_DONE) &&
		    !b->overflow) {
			pending = (int32_t)b->n - 1;
			branch_step = list[i];
			target_step = list[i] == STEP_WAITERS_PENDING ? STEP_UNLOCK
				      : list[i] == STEP_CMP_UVAL     ? STEP_DOUBLE_UNLOCK
								     : STEP_UNLOCK2;
			after = list[i] != STEP_CMP_UVAL;
		}
	}
	if (pending >= 0)
		return fs_fail(e, FS_ERR_INPUT, "kernel path %s: '%s' needs a later '%s' to skip to", name,
			       futex_step_names[branch_step], futex_step_names[target_step]);
	return 0;
}

/* An op that branches after one of its steps: FUTEX_WAIT after read_uval (the value
 * check: wait_block, or the rest of wait_eagain), FUTEX_LOCK_PI after pi_lock_atomic
 * (taken: lock_pi_block; free, now ours: the rest of lock_pi). `first`'s steps
 * through `split`, a branch on `cond` to the rest of `first`, else `block`'s steps. */
static int build_branching(struct path_builder *b, enum futex_op_kind first_op, enum futex_op_kind block_op,
			   enum futex_step split_step, enum branch_cond cond, struct fs_error *e)
{
	const struct kernel_path *first = &b->k->paths[first_op], *block = &b->k->paths[block_op];
	const char *name = futex_op_kind_names[first_op], *block_name = futex_op_kind_names[block_op];
	uint8_t seq[2 * KERNEL_MAX_STEPS];
	char both[64];
	uint32_t split = 0, branch, jump;

	while (split < first->nsteps && first->steps[split] != split_step)
		split++;
	if (split == first->nsteps)
		return fs_fail(e, FS_ERR_INPUT, "kernel path %s: a blocking %s needs '%s' in it", name,
			       first_op == FOP_WAIT_EAGAIN ? "wait" : "lock_pi", futex_step_names[split_step]);
	split++;
	/* both ways out must leave the lock as they found it */
	memcpy(seq, first->steps, split);
	memcpy(seq + split, block->steps, block->nsteps);
	snprintf(both, sizeof(both), "%s + %s", name, block_name);
	if (check_locking(seq, split + block->nsteps, both, e) < 0 || emit_steps(b, first->steps, split, name, e) < 0)
		return -1;
	branch = b->n;
	path_emit(b, (struct uop){ .kind = UOP_BRANCH, .cond = cond, .operand = OPND_NONE });
	if (emit_steps(b, block->steps, block->nsteps, block_name, e) < 0)
		return -1;
	jump = b->n;
	path_emit(b, (struct uop){ .kind = UOP_JUMP, .operand = OPND_NONE });
	if (!b->overflow)
		b->uops[branch].to = b->n;
	if (emit_steps(b, first->steps + split, first->nsteps - split, name, e) < 0)
		return -1;
	if (!b->overflow)
		b->uops[jump].to = b->n;
	return 0;
}

int futex_path_build(struct path_builder *b, enum futex_op_kind op, struct fs_error *e)
{
	const char *name = op == FOP_WAIT		     ? "wait"
			   : op == FOP_LOCK_PI_ANY	     ? "lock_pi"
			   : op == FOP_WAIT_REQUEUE_PI_ANY ? "wait_requeue_pi"
							     : futex_op_kind_names[op];
	const struct kernel_path *p = &b->k->paths[op >= FOP_NKINDS ? FOP_WAIT_EAGAIN : op];

	if (op == FOP_WAIT) {
		if (build_branching(b, FOP_WAIT_EAGAIN, FOP_WAIT_BLOCK, STEP_READ_UVAL, BR_VALUE_NE, e) < 0)
			return -1;
	} else if (op == FOP_LOCK_PI_ANY) {
		if (build_branching(b, FOP_LOCK_PI, FOP_LOCK_PI_BLOCK, STEP_PI_LOCK_ATOMIC, BR_PI_ACQUIRED, e) < 0)
			return -1;
	} else if (op == FOP_WAIT_REQUEUE_PI_ANY) {
		if (build_branching(b, FOP_WAIT_EAGAIN, FOP_WAIT_REQUEUE_PI_BLOCK, STEP_READ_UVAL, BR_VALUE_NE, e) < 0)
			return -1;
	} else if (check_locking(p->steps, p->nsteps, name, e) < 0 || emit_steps(b, p->steps, p->nsteps, name, e) < 0) {
		return -1;
	}
	if (b->overflow)
		return fs_fail(e, FS_ERR_INPUT, "kernel path %s: more than %u micro-operations", name, b->cap);
	return 0;
}
