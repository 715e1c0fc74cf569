/* SPDX-License-Identifier: MIT */
/* The vocabulary of the kernel's futex path: the steps a kernel design lists
 * for each futex operation (YAML `path.wait_eagain: [syscall, get_key, ...]`),
 * the operations, the paths of 6.x kernels a design need not spell out, the
 * fields of the objects the steps touch (a bucket, the private hash's header, the
 * mm), and the calls each step makes.
 *
 * Kernel designs (models/kernel.h) read paths in these words; the path compiler
 * (models/futex_path.h) turns each step into micro-operations; docs/kernel.md
 * lists the kernel functions each step stands for.
 */
#ifndef FUTEXSIM_FUTEX_STEP_H
#define FUTEXSIM_FUTEX_STEP_H

#include <stdint.h>

enum futex_step {
	STEP_SYSCALL,
	STEP_GET_KEY,
	STEP_HASH_LOOKUP,
	STEP_WAIT_SETUP,
	STEP_WAITERS_INC,
	STEP_LOCK,
	STEP_READ_UVAL,
	STEP_WAITERS_DEC,
	STEP_UNLOCK,
	STEP_HASH_PUT,
	STEP_MMAP_READ_LOCK,
	STEP_MMAP_READ_UNLOCK,
	STEP_FIND_VMA,
	STEP_KEY_REF_GET,
	STEP_KEY_REF_PUT,
	STEP_QUEUE,
	STEP_SLEEP,
	STEP_WAITERS_PENDING,
	STEP_WAKE_WALK,
	STEP_GET_KEY2,
	STEP_HASH_LOOKUP2,
	STEP_WAITERS_INC2,
	STEP_WAITERS_DEC2,
	STEP_DOUBLE_LOCK,
	STEP_CMP_UVAL,
	STEP_REQUEUE_WALK,
	STEP_DOUBLE_UNLOCK,
	STEP_HASH_PUT2,
	STEP_PI_LOCK_ATOMIC,
	STEP_PI_ATTACH,
	STEP_PI_FIXUP,
	STEP_PI_UNQUEUE,
	STEP_PI_UNLOCK,
	STEP_PI_PROXY_LOCK,
	STEP_PI_REQUEUE_DONE,
	STEP_LOCK2,
	STEP_PI_FIXUP2,
	STEP_UNLOCK2,
	STEP_NSTEPS
};
extern const char *const futex_step_names[]; /* NULL-terminated, in enum order */
/* The out-of-line kernel functions each step calls (each a call and a return), by
 * enum futex_step: what the machine's costs.call_return is paid for. Counted from
 * kernel/futex of 6.x with the usual x86-64 inlining [A] (docs/kernel.md). */
extern const uint8_t futex_step_calls[STEP_NSTEPS];
extern const uint8_t futex_shared_key_calls; /* a shared key's get_key makes these more */

/* Fields of a hash bucket that the path touches. */
enum bucket_field { BF_WAITERS, BF_LOCK, BF_CHAIN, BF_PRIV, BF_NFIELDS };
/* Fields of the private hash header. */
enum phash_field { PHF_USERS, PHF_HASH_MASK, PHF_IMMUTABLE, PHF_NFIELDS };
/* Fields of the mm (struct mm_struct) that futex ops touch. */
enum mm_field {
	MMF_MM_COUNT,     /* the mm's reference count (2.6 key references) */
	MMF_MMAP_LOCK,    /* mmap_sem / mmap_lock */
	MMF_FUTEX_PHASH,  /* pointer to the private hash */
	MMF_FUTEX_REF,    /* per-CPU refcount pointer and mode (6.17+) */
	MMF_MMAP_CACHE,   /* what find_vma reads first (2.6: mmap_cache) */
	MMF_FUTEX_ATOMIC, /* the atomic the per-CPU refcount switches to during a resize */
	MMF_NFIELDS
};

extern const char *const bucket_field_names[];  /* NULL-terminated, in enum order */
extern const char *const phash_field_names[];
extern const char *const mm_field_names[];

#define KERNEL_MAX_STEPS 32u

/* Which futex operation a path describes. */
enum futex_op_kind {
	FOP_WAIT_EAGAIN, /* FUTEX_WAIT on a value that does not match */
	FOP_WAIT_BLOCK,  /* what FUTEX_WAIT does instead after the value check when it matches */
	FOP_WAKE,        /* FUTEX_WAKE */
	FOP_REQUEUE,     /* FUTEX_CMP_REQUEUE */
	FOP_LOCK_PI,     /* FUTEX_LOCK_PI that takes the word (or finds it taken, up to the check) */
	FOP_LOCK_PI_BLOCK, /* what FUTEX_LOCK_PI does instead when the word is taken: block on the rt_mutex */
	FOP_UNLOCK_PI,   /* FUTEX_UNLOCK_PI */
	FOP_WAIT_REQUEUE_PI_BLOCK, /* what FUTEX_WAIT_REQUEUE_PI does after the value check when it
				      matches: queue, sleep, and own the PI futex when woken */
	FOP_CMP_REQUEUE_PI, /* FUTEX_CMP_REQUEUE_PI */
	FOP_NKINDS,
	FOP_WAIT = FOP_NKINDS, /* for futex_path_build: wait_eagain + wait_block with the branch */
	FOP_LOCK_PI_ANY,       /* for futex_path_build: lock_pi + lock_pi_block with the branch */
	FOP_WAIT_REQUEUE_PI_ANY /* ... wait_eagain + wait_requeue_pi_block with the branch */
};
extern const char *const futex_op_kind_names[];

struct kernel_path {
	uint8_t steps[KERNEL_MAX_STEPS]; /* enum futex_step */
	uint32_t nsteps;
};

/* The path of operation `op` of a 6.x kernel (futex_wait_setup/futex_queue,
 * futex_wake, futex_requeue, futex_lock_pi, futex_unlock_pi), or NULL for
 * wait_eagain, which every design spells out. */
const struct kernel_path *futex_step_default_path(enum futex_op_kind op);

#endif
