/* SPDX-License-Identifier: MIT */
/* A kernel design: the futex hash tables, their sizes, hash functions, bucket
 * and object layouts, reference counting, the costs of the futex path's local
 * work, and the path itself as an ordered list of steps.
 *
 * Read from a kernel preset (configs/kernels/NAME.yaml, possibly inheriting from
 * another) merged with the scenario's overrides; schema in docs/kernel.md.
 * Read-only once built.
 */
#ifndef FUTEXSIM_KERNEL_H
#define FUTEXSIM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "models/futex_key.h"
#include "models/futex_step.h"
#include "models/hashfn.h"
#include "models/spinlock.h"
#include "models/refcount.h"
#include "models/sched/fair.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/simtime.h"
#include "sim/core/yamltree.h"


#define LAYOUT_ABSENT (-1)

/* Byte offsets of fields inside an object; LAYOUT_ABSENT when the design has none. */
struct object_layout {
	uint32_t size, align;
	int32_t off[8];
};

/* Named costs of local work in the futex path (cycles or time, see sim/core/config.h). */
enum kernel_cost {
	KC_KEY_PRIVATE,  /* get_futex_key for a private futex */
	KC_KEY_SHARED,   /* get_futex_key for a shared one, besides the page refcount atomics */
	KC_HASH_GLOBAL,  /* one hash for the global table */
	KC_HASH_PRIVATE, /* one hash for the private hash */
	KC_WAIT_SETUP,   /* futex_wait_setup bookkeeping around the bucket lock */
	KC_UVAL_READ,    /* reading the user word under the lock (user-access fixup) */
	KC_REF_GET,      /* refcount get, local part */
	KC_REF_PUT,      /* refcount put, local part */
	KC_LOCK_SLOWPATH,/* queued spinlock slow path: setting up the per-CPU MCS node */
	KC_FIND_VMA,     /* find_vma: walking the VMA tree (2.6 key lookup) */
	KC_CHAIN_ENTRY,  /* per entry of a bucket's chain walked (key compare) */
	KC_SCHEDULE,     /* a waiter scheduling out (the switch away from it) */
	KC_RTLOCK_FAST,  /* PREEMPT_RT: rt_spin_lock()/rt_spin_unlock()'s own work around the cmpxchg */
	KC_RTLOCK_SLOWPATH, /* PREEMPT_RT: the rtlock slow path's local work (waiter setup, state) */
	KC_PI_STATE,     /* a PI futex's pi_state and rt_mutex work: attach and block, or hand off */
	KC_NODE_SELECT_DIV,      /* per-node global tables: the node as (hash >> shift) % nodes, a DIV */
	KC_NODE_SELECT_MULSHIFT, /* ... or as reciprocal_scale(hash, nodes), a multiply and a shift */
	KC_NCOSTS
};
extern const char *const kernel_cost_names[]; /* NULL-terminated, in enum order */

enum node_select {
	NODE_SELECT_HASH,   /* 6.16+: (hash >> log2(size)) % nodes */
	NODE_SELECT_MEMORY, /* 2006 RFC: a private futex's memory node; shared: hash % nodes */
	NODE_SELECT_MULSHIFT /* what-if: reciprocal_scale(hash, nodes) = (hash x nodes) >> 32, no DIV */
};

struct kernel_design {
	const char *name;          /* borrowed from the YAML doc */
	const char *description;

	struct {
		bool per_node;         /* 6.16+: one table per node */
		uint32_t buckets;      /* per table; 0 = auto */
		uint32_t buckets_per_cpu, min_buckets;
		const struct hashfn *hash;
		bool interleave;       /* pages spread over nodes (hashdist) instead of node-local */
		int node_select;       /* enum node_select: which per-node table a key uses */
	} global;

	struct {
		bool enabled;          /* the design has process-private hashes */
		int64_t buckets;       /* -1 auto, 0 = use the global hash, else a power of two */
		uint32_t per_thread, min_buckets;
		uint32_t max_buckets;  /* 0 = one node's global table size */
		const struct hashfn *hash;
		enum key_scope key;    /* address words only (6.16+) or the whole key (2024 RFC) */
		const struct refcount_mode *refcount;
	} private_hash;

	enum key_order key_order;
	struct object_layout bucket, phash_header, mm;
	struct fs_cost costs[KC_NCOSTS];
	simtime_t rcu_grace_period_ps; /* one RCU grace period (resizes under per-CPU refcounts) */
	struct fair_params scheduler;  /* its fair class (models/sched/fair.h); .slice unscaled */
	simtime_t timeslice_ps;        /* `timeslice`: the slice as given, unscaled; 0: the base
					  slice scaled by the machine's CPUs (kernel_slice) */
	bool private_flag;             /* FUTEX_PRIVATE_FLAG (2.6.22+): private ops skip the mm lookup */
	bool preempt_rt;               /* CONFIG_PREEMPT_RT: the bucket lock is a sleeping rtlock */
	const struct spin_variant *spinlock; /* the bucket lock's queued spinlock (models/spinlock.h) */
	struct kernel_path paths[FOP_NKINDS];
};

/* Builds a design from a resolved kernel tree (presets already merged). */
int kernel_from_yaml(struct kernel_design *k, const struct yt_node *root, struct fs_error *e);

/* The design's scheduler on a machine of `ncpus` CPUs: its slice scaled as the
 * kernel scales it (or `timeslice` as given). */
struct fair_params kernel_scheduler(const struct kernel_design *k, uint32_t ncpus);

/* roundup_pow_of_two(v), v >= 1; 0 when it would not fit in 32 bits. */
uint32_t roundup_pow2(uint64_t v);

/* Global table size per table for `ncpus` CPUs over `ntables` tables. */
uint32_t kernel_global_buckets(const struct kernel_design *k, uint32_t ncpus, uint32_t ntables);

/* Private hash size for a process with `threads` threads on a machine with
 * `ncpus` online CPUs whose per-node global table has `node_table` buckets;
 * 0 = the process uses the global hash. */
uint32_t kernel_private_buckets(const struct kernel_design *k, uint32_t threads, uint32_t ncpus,
				uint32_t node_table);

#endif
