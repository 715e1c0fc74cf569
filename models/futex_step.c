/* SPDX-License-Identifier: MIT */
#include "models/futex_step.h"

#include <stddef.h>

const char *const futex_step_names[] = {
	"syscall", "get_key", "hash_lookup", "wait_setup", "waiters_inc",
	"lock", "read_uval", "waiters_dec", "unlock", "hash_put",
	"mmap_read_lock", "mmap_read_unlock", "find_vma", "key_ref_get", "key_ref_put",
	"queue", "sleep", "waiters_pending", "wake_walk",
	"get_key2", "hash_lookup2", "waiters_inc2", "waiters_dec2", "double_lock", "cmp_uval", "requeue_walk",
	"double_unlock", "hash_put2", "pi_lock_atomic", "pi_attach", "pi_fixup", "pi_unqueue", "pi_unlock",
	"pi_proxy_lock", "pi_requeue_done", "lock2", "pi_fixup2", "unlock2", NULL,
};

/* syscall: do_syscall_64, x64_sys_call, __x64_sys_futex, do_futex, syscall_exit_to_user_mode;
 * get_key: get_futex_key (shared: + get_user_pages_fast_only, gup_fast_fallback, gup_fast,
 * try_grab_folio_fast, folio_put: counted in the shared key's path, below); hash_lookup:
 * futex_hash, __futex_hash; wait_setup: futex_wait, __futex_wait, futex_wait_setup; lock:
 * futex_q_lock, _raw_spin_lock; read_uval: futex_get_value_locked; unlock: futex_q_unlock;
 * hash_put: futex_hash_put; the waiters counts are inline. The sleep's own path is the
 * scheduler's, priced by the kernel design's sleep costs. */
const uint8_t futex_step_calls[STEP_NSTEPS] = {
	[STEP_SYSCALL] = 5,	     [STEP_GET_KEY] = 1,	 [STEP_HASH_LOOKUP] = 2,
	[STEP_WAIT_SETUP] = 3,	     [STEP_LOCK] = 2,		 [STEP_READ_UVAL] = 1,
	[STEP_UNLOCK] = 1,	     [STEP_HASH_PUT] = 1,	 [STEP_MMAP_READ_LOCK] = 1,
	[STEP_MMAP_READ_UNLOCK] = 1, [STEP_FIND_VMA] = 1,	 [STEP_KEY_REF_GET] = 1,
	[STEP_KEY_REF_PUT] = 1,	     [STEP_QUEUE] = 2,		 [STEP_WAKE_WALK] = 2,
	[STEP_GET_KEY2] = 1,	     [STEP_HASH_LOOKUP2] = 2,	 [STEP_DOUBLE_LOCK] = 3,
	[STEP_CMP_UVAL] = 1,	     [STEP_REQUEUE_WALK] = 1,	 [STEP_DOUBLE_UNLOCK] = 2,
	[STEP_HASH_PUT2] = 1,	     [STEP_PI_LOCK_ATOMIC] = 2,	 [STEP_PI_ATTACH] = 3,
	[STEP_PI_FIXUP] = 2,	     [STEP_PI_UNQUEUE] = 1,	 [STEP_PI_UNLOCK] = 3,
	[STEP_PI_PROXY_LOCK] = 2,    [STEP_PI_REQUEUE_DONE] = 1, [STEP_LOCK2] = 2,
	[STEP_PI_FIXUP2] = 2,	     [STEP_UNLOCK2] = 1,
};
/* get_user_pages_fast_only, gup_fast_fallback, gup_fast, try_grab_folio_fast, folio_put */
const uint8_t futex_shared_key_calls = 5;

const char *const bucket_field_names[] = { "waiters", "lock", "chain", "priv", NULL };
const char *const phash_field_names[] = { "users", "hash_mask", "immutable", NULL };
const char *const mm_field_names[] = { "mm_count",     "mmap_lock", "futex_phash", "futex_ref",
				       "mmap_cache",   "futex_atomic", NULL };
const char *const futex_op_kind_names[] = { "wait_eagain", "wait_block", "wake", "requeue",
					    "lock_pi", "lock_pi_block", "unlock_pi", "wait_requeue_pi_block",
					    "cmp_requeue_pi", NULL };

#define PATH(...) { .steps = { __VA_ARGS__ }, .nsteps = sizeof((const uint8_t[]){ __VA_ARGS__ }) }

/* The paths a design need not spell out: those of 6.x kernels (kernel/futex/waitwake.c and requeue.c:
 * futex_wait_setup/futex_queue, futex_wake, futex_requeue). wait_eagain has none. */
static const struct kernel_path default_paths[FOP_NKINDS] = {
	[FOP_WAIT_BLOCK] = PATH(STEP_QUEUE, STEP_UNLOCK, STEP_SLEEP, STEP_HASH_PUT),
	[FOP_WAKE] = PATH(STEP_SYSCALL, STEP_GET_KEY, STEP_HASH_LOOKUP, STEP_WAITERS_PENDING, STEP_LOCK,
			  STEP_WAKE_WALK, STEP_UNLOCK, STEP_HASH_PUT),
	[FOP_REQUEUE] = PATH(STEP_SYSCALL, STEP_GET_KEY, STEP_GET_KEY2, STEP_HASH_LOOKUP, STEP_HASH_LOOKUP2,
			     STEP_WAITERS_INC2, STEP_DOUBLE_LOCK, STEP_CMP_UVAL, STEP_REQUEUE_WALK,
			     STEP_DOUBLE_UNLOCK, STEP_WAITERS_DEC2, STEP_HASH_PUT, STEP_HASH_PUT2),
	/* kernel/futex/pi.c: futex_lock_pi() takes the bucket lock (futex_q_lock), then
	 * futex_lock_pi_atomic(); a free word is taken and the lock dropped; a taken one
	 * gets FUTEX_WAITERS, the task queues, attaches to the pi_state and blocks on its
	 * rt_mutex with the bucket unlocked; handed the rt_mutex it relocks, fixes the
	 * owner up and unqueues (futex_unqueue_pi, waiters--). */
	[FOP_LOCK_PI] = PATH(STEP_SYSCALL, STEP_GET_KEY, STEP_HASH_LOOKUP, STEP_WAITERS_INC, STEP_LOCK,
			     STEP_PI_LOCK_ATOMIC, STEP_WAITERS_DEC, STEP_UNLOCK, STEP_HASH_PUT),
	[FOP_LOCK_PI_BLOCK] = PATH(STEP_QUEUE, STEP_PI_ATTACH, STEP_UNLOCK, STEP_SLEEP, STEP_LOCK, STEP_PI_FIXUP,
				   STEP_PI_UNQUEUE, STEP_WAITERS_DEC, STEP_UNLOCK, STEP_HASH_PUT),
	/* futex_unlock_pi(): the word read first (get_user), then under the bucket lock
	 * the top waiter, and either the hand-off to it (wake_futex_pi) or the word cleared */
	[FOP_UNLOCK_PI] = PATH(STEP_SYSCALL, STEP_READ_UVAL, STEP_GET_KEY, STEP_HASH_LOOKUP, STEP_LOCK, STEP_PI_UNLOCK,
			       STEP_UNLOCK, STEP_HASH_PUT),
	/* kernel/futex/requeue.c: futex_wait_requeue_pi() queues on the first futex and
	 * sleeps; woken owning the second (futex_proxy_trylock_atomic took it for it: it
	 * was unqueued) it returns; requeued onto the second's rt_mutex and later handed
	 * it, it locks that bucket, fixes the owner up and unqueues */
	[FOP_WAIT_REQUEUE_PI_BLOCK] = PATH(STEP_QUEUE, STEP_UNLOCK, STEP_SLEEP, STEP_PI_REQUEUE_DONE, STEP_LOCK2,
					   STEP_PI_FIXUP2, STEP_PI_UNQUEUE, STEP_WAITERS_DEC2, STEP_UNLOCK2,
					   STEP_HASH_PUT),
	/* futex_requeue() with requeue_pi: the top waiter gets the PI futex if it is free
	 * (futex_proxy_trylock_atomic), the others move onto it as rt_mutex waiters */
	[FOP_CMP_REQUEUE_PI] = PATH(STEP_SYSCALL, STEP_GET_KEY, STEP_GET_KEY2, STEP_HASH_LOOKUP, STEP_HASH_LOOKUP2,
				    STEP_WAITERS_INC2, STEP_DOUBLE_LOCK, STEP_CMP_UVAL, STEP_PI_PROXY_LOCK,
				    STEP_REQUEUE_WALK, STEP_DOUBLE_UNLOCK, STEP_WAITERS_DEC2, STEP_HASH_PUT,
				    STEP_HASH_PUT2),
};

const struct kernel_path *futex_step_default_path(enum futex_op_kind op)
{
	return op < FOP_NKINDS && default_paths[op].nsteps ? &default_paths[op] : NULL;
}
