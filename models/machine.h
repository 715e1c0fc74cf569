/* SPDX-License-Identifier: MIT */
/* The machine: NUMA nodes, cores, SMT threads, Linux CPU numbering, and what
 * moving a cache line or doing work costs between any two CPUs.
 *
 * Built once from a machine YAML (configs/machines/, schema in docs/machine.md)
 * and read-only afterwards; per-pair costs are precomputed so the simulator's
 * hot path does a table lookup. All times are picoseconds.
 *
 * CPU numbering "cores-first" (Linux on the Intel machines modelled): CPU c is
 * core (c % ncores), SMT thread (c / ncores); core k is on node
 * (k / cores_per_node). So all physical cores come first, socket 0 then socket 1,
 * then their siblings in the same order. "smt-adjacent": siblings are
 * consecutive (CPU c is core c / threads_per_core).
 */
#ifndef FUTEXSIM_MACHINE_H
#define FUTEXSIM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/simtime.h"
#include "sim/core/yamltree.h"

/* How far a cache line moves between two CPUs; transfers are counted by class. */
enum xfer_class {
	XFER_SMT = 0,    /* between SMT siblings of one core */
	XFER_NODE = 1,   /* between cores of one node */
	XFER_REMOTE = 2, /* between nodes */
	XFER_NCLASSES
};

enum cpu_numbering { NUMBERING_CORES_FIRST, NUMBERING_SMT_ADJACENT };

/* How a request for a line another node's cache holds finds it: broadcast by the
 * requester (source snooping: the transfer costs transfer_remote), or through the
 * line's home node, whose directory state lives in DRAM behind a small directory
 * cache (home snooping: models/dircache.h). */
enum snoop_mode { SNOOP_SOURCE, SNOOP_HOME };

/* What the machine's syscall and call_return costs assume of the kernel's
 * mitigations (its `mitigations:` block): a record, with sources, of the
 * configuration the costs belong to; the costs, not these words, are the model. */
enum mitigation_state { MIT_UNKNOWN, MIT_OFF, MIT_ON };
enum spectre_v2_mode { SPV2_UNKNOWN, SPV2_OFF, SPV2_RETPOLINE, SPV2_IBRS, SPV2_EIBRS };
struct machine_mitigations {
	enum mitigation_state pti;          /* page-table isolation (Meltdown): CR3 writes at entry and exit */
	enum spectre_v2_mode spectre_v2;    /* indirect branches: retpolines, IBRS on entry, or eIBRS */
	enum mitigation_state return_thunk; /* every kernel return through a thunk (retbleed, SRSO safe-RET) */
};
extern const char *const mitigation_state_names[]; /* "unknown", "off", "on" */
extern const char *const spectre_v2_mode_names[];  /* "unknown", "off", "retpoline", "ibrs", "eibrs" */

/* Sleeping and waking on this machine (its `sched:` block, docs/machine.md): the
 * cpuidle states a CPU can rest in and what telling a CPU of a wake-up costs.
 * The scheduler's model (models/sched/) reads them. */
#define MACHINE_MAX_IDLE_STATES 10u
#define IDLE_STATE_NAME_MAX 32u
struct idle_state {
	char name[IDLE_STATE_NAME_MAX];
	simtime_t exit_latency_ps;     /* from a wake-up reaching the CPU to it running again */
	simtime_t target_residency_ps; /* the shortest stay for which the state pays off */
	bool polls;                    /* the CPU watches its need-resched flag: no IPI needed */
};
/* The cpuidle governor that picks the state (models/sched/idle.h). */
enum idle_governor_kind { IDLE_GOV_MENU, IDLE_GOV_HALTPOLL, IDLE_GOV_NKINDS };
extern const char *const idle_governor_names[]; /* "menu", "haltpoll" */

struct machine_sched {
	enum idle_governor_kind governor;
	simtime_t halt_poll_ps;        /* haltpoll: how long an idle CPU polls before it halts */
	uint32_t nidle;                /* >= 1; shallowest first */
	struct idle_state idle[MACHINE_MAX_IDLE_STATES];
	simtime_t wake_up_ps;          /* the waker's CPU time for one try_to_wake_up of a sleeper */
	simtime_t ipi_send_ps;         /* the waker's own extra time when its wake-up sends an IPI */
	simtime_t ipi_ps;              /* a reschedule IPI, from sending to the target's handler */
	simtime_t thread_exit_ps;      /* a thread's exit on its CPU: pthread_exit to do_exit's last switch */
	simtime_t wake_to_run_ps;      /* the woken CPU's own work: idle-loop exit, enqueue, pick, switch in */
	simtime_t context_switch_ps;   /* a busy CPU going from one task to another */
	bool given;                    /* the file has a sched: block (else the defaults of docs/machine.md) */
};

#define MACHINE_MAX_CPUS 4096u
#define MACHINE_MAX_NODES 64u

struct machine {
	const char *name;          /* owned by the machine */
	const char *description;   /* owned; may be "" */
	uint32_t nodes, cores_per_node, threads_per_core;
	uint32_t cores_per_cluster; /* cores sharing a last-level cache (AMD: a CCX); = cores_per_node on Intel */
	uint32_t ncores, ncpus;
	enum cpu_numbering numbering;
	uint64_t freq_khz;         /* converts costs given in cycles: `frequency` x costs.core_clock */
	uint64_t base_freq_khz;    /* `frequency` as the file gives it (the part's base clock) */
	uint64_t core_clock_milli; /* the clock the cores run at under load, x 1/1000 of `frequency` */
	uint32_t *distance;        /* nodes x nodes, SLIT (10 = local) */

	/* per CPU */
	uint32_t *cpu_core;        /* physical core id, 0..ncores-1 */
	uint32_t *cpu_node;
	uint32_t *cpu_cluster;     /* global cluster id: core / cores_per_cluster */

	/* costs (ps) */
	simtime_t line_hit_ps;     /* load/store hitting a line this CPU already holds */
	simtime_t atomic_hit_ps;   /* locked RMW on a line held in M by this CPU */
	simtime_t transfer_smt_ps; /* line from the SMT sibling */
	simtime_t transfer_cluster_ps; /* line from another core of the same cluster (shared L3) */
	simtime_t transfer_node_ps;/* line from another core of the node, in another cluster */
	simtime_t memory_local_ps; /* line from DRAM on the requester's node */
	simtime_t syscall_ps;      /* syscall entry + exit with the mitigations of the era */
	simtime_t call_return_ps;  /* each call and return pair of the kernel's futex path pays this
				      beyond the call itself under the kernel's mitigations (return
				      thunks, retpolines); 0: none (docs/machine.md) */
	bool has_key_shared;       /* costs.key_shared given: this machine's shared-key path */
	struct fs_cost key_shared; /* ... replacing the kernel design's costs.key_shared */
	struct machine_mitigations mitigations;
	struct machine_sched sched;
	simtime_t line_hold_ps;    /* a CPU that just received a line keeps it this long
				      before a queued request can take it */
	uint64_t smt_slowdown_milli; /* local work takes this x 1/1000 longer while the
					sibling hardware thread is busy (1000 = none) */
	uint64_t invalidation_milli;       /* a write to a line other CPUs share costs this x
					      1/1000 of the transfer from the farthest sharer */
	uint64_t transfer_contended_milli; /* a transfer requested while the line was busy
					      costs this x 1/1000 of the point-to-point figure */
	uint32_t local_handoffs;   /* a contended line goes to up to this many requesters of its
				      holder's node ahead of an earlier one of another node (0: FIFO) */
	bool adjacent_line_prefetch; /* a demand miss also fetches, as a read, the other line of
					its 128-byte pair (Intel's L2 spatial prefetcher) */
	enum snoop_mode snoop;
	uint32_t directory_cache_lines, directory_cache_ways; /* per home node (SNOOP_HOME) */
	simtime_t directory_read_ps; /* a cross-node transfer missing the directory cache
					first waits for this read of the home's DRAM */
	uint64_t transfer_occupancy_milli; /* a transferred line cannot move on before
					      transfer cost x this / 1000 (1000: as soon as it
					      arrives); the coherence home serialises hand-offs */

	/* precomputed, indexed [from_node * nodes + to_node] and [cpu * nodes + node];
	 * per-node rather than per-CPU-pair so the tables stay in the host's L1 */
	simtime_t *remote_ps;      /* line moving between caches of two nodes (0 on the diagonal) */
	simtime_t *mem_ps;         /* cost of a fill from node's DRAM into cpu's cache */
};

/* Builds `m` from a machine YAML map (keys in docs/machine.md). On error
 * returns -1 with FILE:LINE:COL in `e` and leaves `m` empty (machine_free-able). */
int machine_from_yaml(struct machine *m, const struct yt_node *root, struct fs_error *e);
void machine_free(struct machine *m);

/* Distance class of a line moving between two different CPUs. */
static inline enum xfer_class machine_xfer_class(const struct machine *m, uint32_t from, uint32_t to)
{
	if (m->cpu_core[from] == m->cpu_core[to])
		return XFER_SMT;
	return m->cpu_node[from] == m->cpu_node[to] ? XFER_NODE : XFER_REMOTE;
}
/* Cost of moving a line from one CPU's cache to another's (0 from a CPU to itself). */
static inline simtime_t machine_xfer_ps(const struct machine *m, uint32_t from, uint32_t to)
{
	if (from == to)
		return 0;
	switch (machine_xfer_class(m, from, to)) {
	case XFER_SMT:
		return m->transfer_smt_ps;
	case XFER_NODE:
		/* one cluster per node (Intel): no cluster lookups */
		if (m->cores_per_cluster == m->cores_per_node || m->cpu_cluster[from] != m->cpu_cluster[to])
			return m->transfer_node_ps;
		return m->transfer_cluster_ps;
	default:
		return m->remote_ps[m->cpu_node[from] * m->nodes + m->cpu_node[to]];
	}
}
static inline simtime_t machine_mem_ps(const struct machine *m, uint32_t cpu, uint32_t node)
{
	return m->mem_ps[(uint64_t)cpu * m->nodes + node];
}

/* The CPU of core `core`, SMT thread `smt`, under the machine's numbering. */
uint32_t machine_cpu_of(const struct machine *m, uint32_t core, uint32_t smt);

/* Parses a CPU list: "all" (every CPU in CPU-number order), "nodeN" (node N's
 * CPUs in CPU-number order: its cores, then their siblings), "nodeN,nodeM", or a
 * Linux cpulist "0-7,16-23" (kept in the order given). Stores a malloc'd array.
 * `at` locates the text for error messages (may be NULL). */
int machine_parse_cpulist(const struct machine *m, const char *spec, const struct fs_mark *at,
			  uint32_t **cpus, uint32_t *ncpus, struct fs_error *e);

/* Name of a transfer class for reports: "smt", "node", "remote". */
const char *xfer_class_name(enum xfer_class c);

/* Bytes of the machine's per CPU x node tables (transfer and DRAM costs). */
uint64_t machine_bytes(const struct machine *m);

#endif
