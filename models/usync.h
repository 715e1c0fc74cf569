/* SPDX-License-Identifier: MIT */
/* User-space synchronisation on futexes as glibc builds it: a mutex (lowlevellock)
 * and a condition variable, run by simulated tasks as sequences of small programs.
 *
 * Mutex (glibc lll_lock / lll_unlock; 0 free, 1 locked, 2 locked with waiters):
 *   lock:   CAS 0->1; if it was taken: load, and unless it reads 2, exchange 2 in
 *           (getting 0 means acquired); otherwise FUTEX_WAIT(word, 2) and exchange again.
 *   unlock: exchange 0 in; if it was 2, FUTEX_WAKE(word, 1).
 * A lock after a condition wait (lll_cond_lock) puts 2 in instead of 1: other
 * waiters may have been requeued onto the mutex.
 * Condition variable (the pre-2.25 NPTL design, with requeue): a sequence word.
 *   wait:      read seq, unlock the mutex, FUTEX_WAIT(seq, the value read), lock again.
 *   signal:    seq++; FUTEX_WAKE(seq, 1) if anybody waits.
 *   broadcast: seq++; FUTEX_WAKE(seq, all), or FUTEX_CMP_REQUEUE(seq, 1, all, mutex):
 *              wake one and move the others onto the mutex's futex.
 * The caller holds the mutex around signal and broadcast; the condition's
 * waiter count is protected by it (glibc's internal lock is not modelled).
 * Every user atomic is an access to the word's cache line; futex calls run the
 * kernel design's paths (models/futex_path.h).
 *
 * A workload starts a protocol on a task (usync_lock, ...) and, from its program_done
 * hook, calls usync_step after each of the task's programs: each call sets the
 * task's next program, until the protocol is done. The module checks mutual exclusion
 * (a second owner counts as a violation and, in FUTEXSIM_DEBUG builds, aborts).
 */
#ifndef FUTEXSIM_USYNC_H
#define FUTEXSIM_USYNC_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_histogram.h>

#include "models/futex_path.h"
#include "models/procset.h"
#include "models/task.h"
#include "models/workload.h"
#include "sim/core/error.h"

#define USYNC_NONE UINT32_MAX

/* A futex word in user memory and where the kernel hashes it. */
struct usync_futex {
	struct futex_word w;    /* first: a task's wait.word points here */
	struct op_target target;
	/* NULL, or another object of the same word placed before it (a replayed trace
	 * gives each group of waiters its own object of one word): it is resolved as
	 * that one is, counted once in the buckets' occupancy, its lines noted once */
	const struct usync_futex *same_as;
};

struct usync_mutex {
	struct usync_futex f;
	uint32_t owner;         /* task holding it, USYNC_NONE */
};

struct usync_cond {
	struct usync_futex seq;
	uint32_t waiters;       /* tasks between reading seq and waking (user-level count) */
};

/* Per-task state of the protocol in progress and counters for reports. */
struct usync_task {
	uint8_t phase;          /* enum in usync.c; 0 = idle */
	bool in_kernel;         /* its program is a futex call */
	uint32_t mutex, cond;
	uint32_t cond_seq;      /* the condition's sequence value a wait read */
	simtime_t lock_started; /* when the lock call began (acquisition latency) */
	uint64_t acquisitions, futex_calls, waits, wakes, requeues;
	uint64_t woken;         /* waiters its wakes and requeues woke */
	uint64_t moved;         /* waiters its requeues moved */
	simtime_t call_start;   /* when its futex call in progress began */
	simtime_t wake_ps;      /* time spent in FUTEX_WAKE calls (and CMP_REQUEUE) */
	uint64_t wake_calls;
};

/* The paths' micro-op programs of a task: kernel programs per variant. */
enum usync_prog {
	UP_CAS, UP_XCHG, UP_LOAD, UP_WAIT, UP_WAKE, UP_REQUEUE,
	UP_LOCK_PI, UP_UNLOCK_PI, UP_WAIT_REQUEUE_PI, UP_CMP_REQUEUE_PI, UP_NPROGS
};
/* Without PI futexes (usync_init's `pi`), only the programs before UP_LOCK_PI exist. */
#define UP_NPROGS_PLAIN UP_LOCK_PI

/* YAML keys of the workloads built on it: shared (false), lock_call, syscall_wrap. */
struct usync_params {
	bool shared;            /* process-shared objects in a shared file mapping */
	struct fs_cost lock_call;    /* the library call's own work around each user atomic */
	struct fs_cost syscall_wrap; /* the libc futex wrapper around the syscall */
};
#define USYNC_KEYS "shared", "lock_call", "syscall_wrap"
int usync_parse(const struct yt_node *n, struct usync_params *p, struct fs_error *e);

struct usync {
	const struct world *world;
	const struct procset *ps;
	simtime_t lock_call_ps, syscall_wrap_ps;
	bool shared;            /* futex ops without FUTEX_PRIVATE_FLAG, on a shared file mapping */
	uint64_t shm_base;      /* that mapping's address (the same in every process) */
	uint32_t page_object;   /* memmap object of its struct pages */
	uint32_t nmutexes, nconds;
	struct usync_mutex *mutexes;
	struct usync_cond *conds;
	struct usync_task *tasks;   /* per task */
	uint32_t nprogs;            /* programs per task and variant: UP_NPROGS, or UP_NPROGS_PLAIN */
	struct uop *progs;          /* [((task * NPROG_VARIANTS + v) * nprogs + p) * USYNC_MAX_UOPS] */
	uint32_t *nuops;
	uint32_t ntasks;
	uint64_t violations;        /* a lock acquired while another task held it (must stay 0) */
	gsl_histogram *latency;    /* acquisition latency, ps, log-spaced bins */
};

#define USYNC_MAX_UOPS 96u

/* `pi`: the workload makes PI futex calls (usync_futex_lock_pi, _unlock_pi). */
int usync_init(struct usync *u, const struct world *world, const struct procset *ps, uint32_t nmutexes, uint32_t nconds,
	       bool pi, const struct usync_params *p, struct fs_error *e);
void usync_free(struct usync *u);

/* Builds the programs of process pid's tasks (all variants it needs). */
int usync_build_programs(struct usync *u, uint32_t pid, struct fs_error *e);
/* procset's publish for workloads built on usync: rehash, then rebuild programs. */
bool usync_publish(struct usync *u, uint32_t pid);
/* Once the futexes are placed: builds every thread's programs, declares the
 * lines each may touch (for the coherence model's run-ahead) and starts the
 * threads (procset_start). */
int usync_start(struct usync *u, struct procset *ps, struct fs_error *e);
/* What usync_start does for one task without starting it: declares the lines its
 * programs may touch on every futex of its process and every shared one. */
void usync_note_lines(struct usync *u, struct task *t);

/* Start a protocol: the task's next program is set; `work` is local work done
 * first (think time before a lock, the critical section before an unlock). */
void usync_lock(struct usync *u, struct task *t, uint32_t mutex, simtime_t work);
void usync_unlock(struct usync *u, struct task *t, simtime_t work);
void usync_cond_wait(struct usync *u, struct task *t, uint32_t cond, uint32_t mutex, simtime_t work);
void usync_cond_signal(struct usync *u, struct task *t, uint32_t cond, simtime_t work);
void usync_cond_broadcast(struct usync *u, struct task *t, uint32_t cond, uint32_t mutex, bool requeue,
			  simtime_t work);

/* A bare user atomic on word f (p: UP_CAS, UP_XCHG or UP_LOAD) after `work` of local
 * work: t->call.old_value is the value it found. */
void usync_user_atomic(struct usync *u, struct task *t, enum usync_prog p, struct usync_futex *f, uint32_t expected,
		       uint32_t newval, simtime_t work);

/* Bare futex calls, for workloads that drive the kernel directly (perf bench's
 * suites): task t's next program is FUTEX_WAIT(f, val), FUTEX_WAKE(f, nwake) or
 * FUTEX_CMP_REQUEUE(f, cmpval, f2, nwake, nrequeue). The workload reads the
 * outcome (t->walk.woken, t->walk.moved) in its program_done, without usync_step. */
void usync_futex_wait(struct usync *u, struct task *t, struct usync_futex *f, uint32_t val);
void usync_futex_wake(struct usync *u, struct task *t, struct usync_futex *f, uint32_t nwake);
void usync_futex_requeue(struct usync *u, struct task *t, struct usync_futex *f, uint32_t cmpval,
			 struct usync_futex *f2, uint32_t nwake, uint32_t nrequeue);
/* FUTEX_LOCK_PI(f) and FUTEX_UNLOCK_PI(f) (usync_init with `pi`); f needs a pi_state line
 * (usync_place_pi_state). */
void usync_futex_lock_pi(struct usync *u, struct task *t, struct usync_futex *f);
void usync_futex_unlock_pi(struct usync *u, struct task *t, struct usync_futex *f);
/* FUTEX_WAIT_REQUEUE_PI(f, val, f2): back (t->wait.word NULL) owning PI futex f2;
 * FUTEX_CMP_REQUEUE_PI(f, cmpval, f2, 1, nrequeue): t->call.proxy_woken waiters it woke owning
 * f2 (0 or 1), t->walk.moved those it requeued onto f2. */
void usync_futex_wait_requeue_pi(struct usync *u, struct task *t, struct usync_futex *f, uint32_t val,
				 struct usync_futex *f2);
void usync_futex_cmp_requeue_pi(struct usync *u, struct task *t, struct usync_futex *f, uint32_t cmpval,
				struct usync_futex *f2, uint32_t nrequeue);

/* From program_done, after each program of a protocol: advances the protocol and
 * sets the next program. True when the protocol has finished (a lock is then
 * held: usync_holds; its latency is recorded). */
bool usync_step(struct usync *u, struct task *t);

/* Whether task t holds the mutex of its last lock or unlock. */
static inline bool usync_holds(const struct usync *u, const struct task *t)
{
	return u->mutexes[u->tasks[t->id].mutex].owner == t->id;
}

/* Re-resolves every futex of process `pid` (a new private hash) and moves its
 * sleeping waiters to the new buckets. False, changing nothing, while one of the
 * process's tasks is inside a futex op on the old hash. */
bool usync_rehash(struct usync *u, uint32_t pid);

/* Latency percentile q (0..1) of acquisitions in the window, in ps (0 when none). */
double usync_latency_quantile(const struct usync *u, double q);
/* A latency histogram as usync's (ps, 1 ns .. 10 s, 20 log-spaced bins a decade;
 * NULL when out of memory), and percentile q of any histogram (linear in a bin). */
gsl_histogram *usync_latency_histogram(void);
double usync_histogram_quantile(const gsl_histogram *h, double q);

/* The window's figures: acquisitions, latency percentiles, futex calls per
 * acquisition, waits, wakes, requeues, waiters woken and moved, and the
 * mutual-exclusion violations (always 0 unless the model is wrong). */
void usync_figures(const struct usync *u, struct workload_figures *out);

/* Bytes usync_init and the programs take for this many tasks, mutexes and conds. */
uint64_t usync_bytes(uint32_t ntasks, uint32_t nmutexes, uint32_t nconds, bool pi);

/* The futex's target: resolved from its address for process `pid`, or by inode
 * when shared. */
void usync_resolve(struct usync *u, struct usync_futex *f, uint32_t pid);

/* Memory for `bytes` of objects: in process pid's heap (malloc'd by its main
 * thread on its home node) or, when shared, the shared mapping (mmap of one file,
 * page aligned, first touched by process 0; call once). Its base address, and a
 * memmap object named `name` whose elements are `element`s. */
int usync_alloc(struct usync *u, uint32_t pid, uint64_t bytes, const char *name, const char *element,
		uint64_t *base, uint32_t *object, struct fs_error *e);

/* Places futex f at `uaddr` (element `index` of memmap object `object`) for
 * process `pid` and resolves it; shared futexes also get their struct page's line. */
int usync_place(struct usync *u, struct usync_futex *f, uint32_t pid, uint64_t uaddr, uint32_t object,
		uint32_t index, struct fs_error *e);
/* Gives PI futex f its pi_state: element `index` of the kernel memmap object
 * `object`, in process pid's home node [A: one pi_state per futex for the whole
 * run; the kernel allocates one per contended episode from a per-task cache]. */
int usync_place_pi_state(struct usync *u, struct usync_futex *f, uint32_t pid, uint32_t object, uint32_t index,
			 struct fs_error *e);

#endif
