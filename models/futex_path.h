/* SPDX-License-Identifier: MIT */
/* The kernel's futex path as a program of micro-operations.
 *
 * A kernel design lists the steps of each futex operation by name (YAML
 * `path.wait_eagain: [syscall, get_key, ...]`). Each step has an emitter that
 * appends micro-operations to a task's program: local work (a duration), an
 * access to a cache line, or taking/releasing a spinlock. Lines that depend on
 * which futex an op touches (its bucket's fields and lock, its user word and the
 * word's struct page) are named symbolically and resolved when the op runs from
 * the op's target (struct op_target), so a task's program is built once.
 *
 * The steps (docs/model.md has the kernel functions each one stands for):
 *   syscall      entry + exit, with the machine's mitigations (machine.costs.syscall)
 *   get_key      private: local work; shared: page lookup + get/put of the page's
 *                refcount (two RMWs on the struct page line)
 *   hash_lookup  private hash in use: read mm->futex_phash, refcount get, hash,
 *                read the header's hash_mask; global table: hash
 *   wait_setup   local bookkeeping of futex_wait_setup
 *   waiters_inc  RMW on the bucket's waiters field
 *   lock         the bucket spinlock (models/spinlock.h)
 *   read_uval    read the futex word (user line) under the lock
 *   waiters_dec  RMW on the bucket's waiters field
 *   unlock       release the bucket spinlock
 *   hash_put     read the bucket's back-pointer (if the layout has one) and, with
 *                a private hash, the refcount put
 * and the steps of kernels before FUTEX_PRIVATE_FLAG (2.6.22), done by every op
 * there and by shared ops after it:
 *   mmap_read_lock / mmap_read_unlock   down_read/up_read of the mm's mmap_sem
 *   find_vma     local work and a read of the mm's VMA cache line
 *   key_ref_get / key_ref_put           atomic inc/dec of the mm's mm_count
 * and the steps of blocking ops (queue, sleep, waiters_pending, wake_walk; requeue's
 * get_key2, hash_lookup2, waiters_inc2/dec2, double_lock/unlock, cmp_uval,
 * requeue_walk, hash_put2) and of PI futexes (pi_lock_atomic, pi_attach, pi_fixup,
 * pi_unqueue, pi_unlock; requeue-PI's pi_proxy_lock, pi_requeue_done, lock2,
 * pi_fixup2, unlock2): docs/kernel.md.
 */
#ifndef FUTEXSIM_FUTEX_PATH_H
#define FUTEXSIM_FUTEX_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "models/coherence.h"
#include "models/kernel.h"
#include "models/machine.h"
#include "sim/core/error.h"

enum uop_kind {
	UOP_WORK,    /* local work: work_ps (operand OPND_RANDOM_EXP: exponential with that mean;
			OPND_TASK_WORK: the task's work_ps plus work_ps); parts: its work_parts + 1, or 0 */
	UOP_ACCESS,  /* a line access: access on the operand's line (line, or field) */
	UOP_LOCK,    /* take the operand's spinlock (work_ps: the contended slow path's local work) */
	UOP_UNLOCK,
	UOP_RWSEM,   /* rwsem_op on the semaphore sem */
	UOP_USER,    /* user_op on the task's futex word (its value and its line) */
	UOP_BRANCH,  /* when cond holds, jump to micro-op `to` */
	UOP_JUMP,    /* continue at micro-op `to` */
	UOP_WAITERS, /* RMW of the operand bucket's waiters field: +1 (inc) or -1 */
	UOP_QUEUE,   /* put the task on its target bucket's chain, waiting on its word */
	UOP_SLEEP,   /* leave the CPU until woken (at once if already woken) */
	UOP_WALK,    /* walk the target bucket's chain: wake up to nwake waiters of the word;
			with requeue, then move up to nrequeue more to the second target */
	UOP_PI,      /* a PI futex step (pi_op): an RMW of the futex word under the bucket
			lock, or the waiter's unqueue */
	UOP_NAP,     /* leave the CPU for the task's work_ps plus work_ps (a timed sleep,
			e.g. usleep), then run again after the wake-up latency */
	UOP_NKINDS
};

/* UOP_PI: what a PI futex step does (kernel/futex/pi.c). The word holds the
 * owner's TID (task id + 1) and FUTEX_WAITERS. */
enum pi_op {
	PI_LOCK_ATOMIC, /* futex_lock_pi_atomic(): a free word is taken; a taken one gets FUTEX_WAITERS */
	PI_HANDOFF,     /* wake_futex_pi(): the word goes to the top waiter, which is woken */
	PI_RELEASE,     /* futex_unlock_pi() without waiters: the word is cleared */
	PI_UNQUEUE,     /* futex_unqueue_pi(): the woken new owner leaves the chain */
	PI_PROXY_LOCK   /* futex_proxy_trylock_atomic(): the second futex (a free one goes to the
			   first waiter of the first, which is unqueued and woken: task.proxy_woken 1) */
};
#define FUTEX_WAITERS_BIT 0x80000000u
#define FUTEX_TID_MASK 0x3fffffffu

/* UOP_USER: what user space does to its futex word. */
enum user_op { USER_LOAD, USER_STORE, USER_XCHG, USER_CAS };

/* UOP_BRANCH conditions. */
enum branch_cond {
	BR_VALUE_NE,   /* the task's futex word no longer holds the expected value */
	BR_NO_WAITERS, /* the target bucket's waiters count is 0 */
	BR_PI_ACQUIRED,/* the task's PI_LOCK_ATOMIC found the word free (and took it) */
	BR_NO_PI_WAITER,/* nobody in the target bucket's chain waits on the task's word */
	BR_NOT_QUEUED   /* the task is on no chain (woken owning a requeue-PI target) */
};

/* Where a micro-op's line or lock comes from. */
enum uop_operand {
	OPND_NONE,
	OPND_LINE,         /* a fixed line: uop.line */
	OPND_BUCKET_FIELD, /* the target bucket's field uop.field (enum bucket_field) */
	OPND_BUCKET_LOCK,  /* the target bucket's spinlock */
	OPND_WORD_LINE,    /* the target futex word's line */
	OPND_PAGE_LINE,    /* the line of the target word's struct page */
	OPND_RANDOM_EXP,   /* UOP_WORK: a random duration */
	OPND_BUCKET2_FIELD,/* the second target's bucket field uop.field (requeue) */
	OPND_LOCK_FIRST,   /* of the two targets' bucket locks, the one at the lower address */
	OPND_LOCK_SECOND,  /* the other one (nothing when both are the same bucket) */
	OPND_TASK_WORK,    /* UOP_WORK: task.call.work_ps (a workload's draw) + the uop's work_ps */
	OPND_PI_STATE,     /* the target futex's pi_state line (the rt_mutex's wait_lock, owner) */
	OPND_PI_STATE2,    /* the second target's */
	OPND_WORD2_LINE,   /* the second target's futex word's line */
	OPND_BUCKET2_LOCK  /* the second target's bucket spinlock */
};

/* One micro-op: 16 bytes, so that a program's micro-ops pack into few host lines.
 * What it carries besides its kind and operand depends on the kind: each member of
 * the two unions has one meaning, and a kind uses at most one of each (enum
 * uop_kind says which); the others are 0. */
struct uop {
	uint8_t kind;      /* enum uop_kind */
	uint8_t operand;   /* enum uop_operand: where its line or lock comes from */
	union {            /* what it does */
		uint8_t access;   /* UOP_ACCESS: enum access_kind */
		uint8_t user_op;  /* UOP_USER: enum user_op */
		uint8_t rwsem_op; /* UOP_RWSEM: enum rwsem_op */
		uint8_t cond;     /* UOP_BRANCH: enum branch_cond */
		uint8_t pi_op;    /* UOP_PI: enum pi_op */
		uint8_t inc;      /* UOP_WAITERS: 1 for +1, 0 for -1 */
		uint8_t requeue;  /* UOP_WALK: 1 when the walk requeues after waking */
	};
	union {            /* what it works on */
		uint32_t line;    /* UOP_ACCESS with OPND_LINE: the line */
		uint32_t field;   /* UOP_ACCESS with OPND_BUCKET_FIELD or OPND_BUCKET2_FIELD: enum bucket_field */
		uint32_t to;      /* UOP_BRANCH, UOP_JUMP: the index of the micro-op jumped to */
		uint32_t parts;   /* UOP_WORK: the index + 1 of its composition (struct work_parts), or 0 */
		uint32_t sem;     /* UOP_RWSEM: the semaphore (models/rwsem.h) */
	};
	simtime_t work_ps; /* UOP_WORK: duration before any SMT slowdown; UOP_LOCK: the slow path's
			      local work; UOP_WALK: each entry's; UOP_NAP: added to the task's */
};
_Static_assert(sizeof(struct uop) == 16, "a micro-op is 16 bytes: programs are read on the hot path");

/* Whether two micro-ops do the same (each member their kinds use is equal). */
bool uop_same(const struct uop *a, const struct uop *b);

/* What one local-work micro-op is made of, by path step: consecutive work is merged
 * into one micro-op (fewer steps on the hot path), and this says whose it was, so
 * that `futexsim explain` can split the kernel's work by step. */
#define WORK_MAX_PARTS 6
#define WORK_STEP_USER 0xffu /* the library's own work around a call (lock_call, syscall_wrap) */
struct work_parts {
	uint8_t n;
	uint8_t step[WORK_MAX_PARTS]; /* enum futex_step, or WORK_STEP_USER */
	simtime_t ps[WORK_MAX_PARTS];
};
/* The compositions of a run's work micro-ops, each once (UOP_WORK's parts = index + 1). */
struct work_part_table {
	struct work_parts *v;
	uint32_t n, cap;
};
void work_parts_free(struct work_part_table *t);

struct futex_table;

/* A futex word in user memory: its value, where it is, whose it is. */
struct futex_word {
	uint64_t uaddr;
	uint32_t value;
	uint32_t pid;        /* the process it belongs to (private futexes) */
	bool shared;         /* in a shared mapping: keyed by inode, always the global table */
};

/* What one futex op touches, resolved per op by the workload. */
struct op_target {
	const struct futex_table *table;
	uint32_t bucket;
	uint32_t word_line;
	uint32_t page_line;
	uint32_t pi_line;   /* its pi_state's line (PI futexes), COH_NONE when it has none */
};

/* Everything an emitter needs to know about the task it builds for. */
struct path_builder {
	const struct kernel_design *k;
	const struct machine *m;
	bool shared;               /* shared futexes (no FUTEX_PRIVATE_FLAG) */
	bool private_hash;         /* private ops of this task use its process's private hash */
	const uint32_t *mm_lines;  /* the process's mm lines, by enum mm_field */
	const uint32_t *phash_lines; /* its private hash header lines, by enum phash_field */
	uint32_t percpu_ref_line;  /* this CPU's per-CPU refcount line of the process */
	bool ref_atomic;           /* build for a resize window: per-CPU refcounts in atomic mode */
	uint32_t mmap_sem;         /* the process's mmap_sem (models/rwsem.h) */
	simtime_t costs_ps[KC_NCOSTS]; /* the design's costs at the machine's clock */
	struct work_part_table *parts; /* where work micro-ops record their steps (NULL: not) */
	uint8_t step;              /* the step being emitted (enum futex_step), or WORK_STEP_USER */

	struct uop *uops;
	uint32_t n, cap;
	bool overflow;
	bool missing_line;         /* a step needed a line the design's layout lacks */
};

/* Appends a micro-op (sets b->overflow when the program is full). */
void path_emit(struct path_builder *b, struct uop u);
void path_emit_work(struct path_builder *b, simtime_t ps);
/* A line access: `where` is the line (OPND_LINE) or the bucket field (OPND_BUCKET_FIELD,
 * OPND_BUCKET2_FIELD), 0 for the other operands. A write or RMW right after a read of
 * the same operand turns that read into the line's one request for ownership. */
void path_emit_access(struct path_builder *b, enum access_kind kind, enum uop_operand operand, uint32_t where);

/* Appends the micro-ops of operation `op` of the design to b's program. Fails when
 * the design's layout lacks a field a step needs or the program overflows.
 * FOP_WAIT is the wait_eagain path up to the value check, then either the
 * wait_block steps (the value still matches: queue and sleep) or the rest of the
 * wait_eagain path; FOP_LOCK_PI_ANY likewise the lock_pi path up to
 * pi_lock_atomic, then lock_pi_block (the word was taken) or the rest of lock_pi;
 * FOP_WAIT_REQUEUE_PI_ANY the wait_eagain path with wait_requeue_pi_block. */
int futex_path_build(struct path_builder *b, enum futex_op_kind op, struct fs_error *e);

#endif
