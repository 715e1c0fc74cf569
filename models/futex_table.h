/* SPDX-License-Identifier: MIT */
/* The futex hash tables of a kernel design, placed in memory.
 *
 * Global tables: one (3.14-6.15 style, optionally interleaved over nodes) or one
 * per node (6.16+), each of kernel_global_buckets() buckets. Private hashes: one
 * per process when the design has them, sized by kernel_private_buckets() and
 * allocated on the design's home node, header first, buckets after it. Every
 * bucket field and header/mm field is registered with models/memmap.h, so each
 * maps to a cache line; each bucket owns one spinlock (models/spinlock.h).
 *
 * futex_tables_resolve() maps a futex (process, user address, shared or not) to
 * its table and bucket exactly as the design hashes it; workloads call it at
 * setup and keep the result, so no hashing happens on the hot path.
 */
#ifndef FUTEXSIM_FUTEX_TABLE_H
#define FUTEXSIM_FUTEX_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/futex_path.h"
#include "models/kernel.h"
#include "models/machine.h"
#include "models/memmap.h"
#include "models/rwsem.h"
#include "models/spinlock.h"
#include "sim/core/error.h"

struct futex_table {
	uint32_t id;
	const char *name;        /* as in reports: "global node 0", "private hash of process 0" */
	uint32_t size;           /* buckets, a power of two */
	uint32_t node;           /* home node (per-node and private tables) */
	uint64_t base;           /* address of bucket 0 */
	const struct hashfn *hash;
	enum key_scope scope;
	uint32_t *field_lines;   /* [bucket * BF_NFIELDS + field], MEMMAP_NONE when absent */
	/* The usual case: the table's lines were created in address order, so a
	 * field's line is arithmetic (no lookup, no host cache miss on the hot path). */
	bool contiguous;
	uint32_t first_line;     /* id of the line holding byte (base & ~63) */
	uint32_t bucket_size;
	uint32_t skew;           /* base & 63 */
	int32_t off[BF_NFIELDS];
	uint32_t lock0;          /* bucket b's spinlock is lock0 + b */
	uint32_t *hashed;        /* futexes resolved to each bucket (occupancy, setup-time) */
	/* runtime state of each bucket: its chain of waiting tasks (linked through
	 * task.chain_next, FUTEX_CHAIN_END terminated) and its waiters count */
	uint32_t *chain_head, *chain_tail;
	uint32_t *waiters;
};

/* A simulated process: its mm and private hash (the kernel's side), and the
 * tasks that are its threads (the workload's side, models/procset.h). */
struct process {
	uint32_t id;
	uint32_t nthreads;                /* threads, main included, when the kernel last sized its hash */
	uint32_t first_task, ntasks;      /* its threads: tasks first_task .. first_task + ntasks - 1 */
	uint32_t live;                    /* of those, threads alive now */
	bool publish_due;                 /* a replaced private hash waits to be published */
	uint32_t home_node;               /* where it was forked: its mm, private hash, first-touched memory */
	uint32_t resizes;                 /* private hash replacements so far */
	simtime_t ref_atomic_until;       /* per-CPU refcount in atomic mode until then (a resize) */
	uint64_t mm;                      /* address of its mm_struct (also the key's ptr) */
	uint32_t mm_lines[MMF_NFIELDS];
	uint32_t mmap_sem;                /* its rwsem (RWSEM_NONE without an mmap_lock field) */
	struct futex_table *phash;        /* NULL: private futexes use the global hash */
	uint32_t phash_lines[PHF_NFIELDS];
	uint32_t *percpu_ref_lines;       /* per CPU: its futex reference counter */
};

/* A private hash replacement: from the thread creation that grew it to its
 * publication (end = SIMTIME_MAX while pending). */
struct futex_resize {
	uint32_t pid;
	uint32_t from, to;        /* buckets */
	simtime_t start, end;
};

#define FUTEX_MAX_TABLES 4096u
#define FUTEX_CHAIN_END UINT32_MAX

struct futex_tables {
	const struct kernel_design *k;
	const struct machine *m;
	struct memmap *mem;
	struct spinlocks *locks;
	struct rwsems *rwsems;

	uint32_t nglobal;                  /* 1, or one per node */
	uint32_t global_buckets;           /* per global table */
	struct futex_table *tables[FUTEX_MAX_TABLES]; /* global ones first, then private */
	uint32_t ntables;

	uint32_t nprocs;
	struct process *procs;
	uint32_t nresizes;
	struct futex_resize *resizes;     /* in order of start */

	uint32_t *qnode_lines;             /* per CPU: its MCS queue node */
};

int futex_tables_init(struct futex_tables *ft, const struct kernel_design *k, const struct machine *m,
		      struct memmap *mem, struct spinlocks *locks, struct rwsems *rwsems, struct fs_error *e);
void futex_tables_free(struct futex_tables *ft);

/* Creates a process of `nthreads` threads living on `home_node`: its mm and, if
 * the design gives it one, its private hash. Stores the process id. */
int futex_tables_add_process(struct futex_tables *ft, uint32_t nthreads, uint32_t home_node, uint32_t *pid,
			     struct fs_error *e);

/* The process now has `nthreads` threads (at time `now`): where the design
 * auto-sizes the private hash and the new size is larger, a new hash replaces it
 * (the old one stays for ops that still use it), a resize is logged and *grew is
 * set. Callers re-resolve the process's futexes and end the resize when the new
 * hash is in use: futex_tables_resize_done ends every pending resize of `pid` (one
 * publication may cover several growths). */
int futex_tables_thread_created(struct futex_tables *ft, uint32_t pid, uint32_t nthreads, simtime_t now,
				bool *grew, struct fs_error *e);
void futex_tables_resize_done(struct futex_tables *ft, uint32_t pid, simtime_t now);

/* Table and bucket of the futex at `uaddr` of process `pid`; counts it in the
 * bucket's occupancy. `numa_node` >= 0 is a FUTEX2_NUMA futex's node: that node's
 * global table, bypassing the private hash. The line fields are left to the caller. */
struct op_target futex_tables_resolve(struct futex_tables *ft, uint32_t pid, uint64_t uaddr, bool shared,
				      int numa_node);
/* A futex in a shared file mapping: keyed by the inode (its i_seq) and the offset
 * in the file, so every process mapping it finds the same global bucket. */
struct op_target futex_tables_resolve_inode(struct futex_tables *ft, uint64_t inode_seq, uint64_t file_offset);

/* What the tables will hold for `processes` processes of at most `max_threads`
 * threads each (main included), from the design alone (nothing is built): the
 * buckets over every table and the lines of kernel objects (tables, private
 * hash headers, MCS nodes, per-CPU refcounts, mms). An auto-sized private hash
 * counts twice: as threads are created it may be replaced, and the old one stays. */
void futex_tables_size(const struct kernel_design *k, const struct machine *m, uint64_t processes,
		       uint32_t max_threads, uint64_t *lines, uint64_t *buckets);
/* Bytes of the per-bucket arrays of `buckets` buckets (their spinlocks aside). */
uint64_t futex_tables_bytes(uint64_t buckets);

static inline uint32_t futex_table_line(const struct futex_table *t, uint32_t bucket, enum bucket_field f)
{
	if (t->contiguous && t->off[f] != LAYOUT_ABSENT)
		return t->first_line + (uint32_t)((t->skew + (uint64_t)bucket * t->bucket_size + (uint64_t)t->off[f]) >> 6);
	return t->field_lines[(uint64_t)bucket * BF_NFIELDS + f];
}

#endif
