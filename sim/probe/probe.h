/* SPDX-License-Identifier: MIT */
/* `futexsim probe`: models the machine it runs on (docs/probe.md).
 *
 * Three steps, each usable alone (the tests drive the first and the last on fake
 * sysfs trees and made-up measurements):
 *   1. probe_topology_read: the topology from sysfs under a root directory ("/" on
 *      the real machine): online CPUs, their cores (thread sibling lists), NUMA
 *      nodes and distances, last-level cache groups, caches, clock, CPU model,
 *      kernel release and the CPU vulnerabilities the kernel reports. It derives
 *      the machine schema's topology (docs/machine.md) or refuses one the schema
 *      cannot express.
 *   2. probe_measure: micro-benchmarks pinned with sched_setaffinity (syscall, hits,
 *      line hand-offs per distance class, DRAM by node, SMT slowdown). A latency is
 *      the low tail (p10) of many short rounds, as noise only adds time, checked for
 *      spread and drift and retried when unstable (probe_stats_of below); the SMT
 *      slowdown, a ratio, is the median of its trials.
 *   3. probe_render + probe_write: the machine YAML, every constant with its source
 *      comment, checked with machine_from_yaml and written atomically.
 *
 * Model CPU numbers are the online CPUs in Linux order, renumbered densely
 * (identical to Linux's numbers unless a CPU in the middle is offline).
 */
#ifndef FUTEXSIM_PROBE_H
#define FUTEXSIM_PROBE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "models/machine.h"
#include "sim/core/error.h"

#define PROBE_MAX_NOTES 16
#define PROBE_NOTE_LEN 320
#define PROBE_MAX_VULNS 64
#define PROBE_VULN_LEN 256 /* "name: text" of one cpu/vulnerabilities file */
#define PROBE_MAX_DISTANCES 16 /* distinct SLIT distances between nodes */

struct probe_topology;

/* One cpuidle state of a CPU (sysfs cpuN/cpuidle/stateK), as the idle driver
 * tabulates it. */
#define PROBE_MAX_IDLE MACHINE_MAX_IDLE_STATES
struct probe_idle_state {
	uint32_t index;         /* K of stateK */
	char name[IDLE_STATE_NAME_MAX]; /* stateK/name ("POLL", "C1E", "haltpoll idle") */
	char desc[96];          /* stateK/desc ("MWAIT 0x01", "ACPI HLT") */
	long latency_us;        /* stateK/latency: the exit latency */
	long residency_us;      /* stateK/residency: the target residency */
	bool disabled;          /* stateK/disable is 1: the governor never picks it */
	bool polls;             /* a CPU resting in it watches its need-resched flag (probe_idle_polls) */
	char why[200];          /* why it polls or not, for the comment */
};

/* The idle states of the first online CPU and who picks among them. */
struct probe_idle {
	bool present;           /* cpuN/cpuidle has readable states */
	uint32_t cpu;           /* the Linux CPU read */
	char driver[64];        /* cpu/cpuidle/current_driver ("" unknown) */
	char governor[64];      /* cpu/cpuidle/current_governor_ro, else current_governor */
	uint32_t n;             /* states read, in sysfs order (shallowest first) */
	struct probe_idle_state s[PROBE_MAX_IDLE];
};

/* Whether a CPU resting in this state polls TIF_POLLING_NRFLAG, so that a remote
 * wake-up needs no reschedule IPI (docs/probe.md): the POLL state; every state of
 * intel_idle and any state entered by MWAIT ("MWAIT" or "FFH" in its description:
 * mwait_idle_with_hints monitors the thread flags); not HLT (haltpoll's and
 * acpi_idle's "ACPI HLT"), an I/O-port C-state ("ACPI IOPORT") or a state not known
 * to poll (an IPI assumed). `why` says which rule decided. */
bool probe_idle_polls(const char *driver, const char *name, const char *desc, char *why, size_t size);
/* The usage counters (stateK/usage: entries so far) of Linux CPU `cpu`'s states in
 * t->idle's order into usage[0..t->idle.n). -1 when one cannot be read. */
int probe_idle_usage(const struct probe_topology *t, uint32_t cpu, uint64_t *usage);
/* The state entered most often by the change of two usage snapshots (after - before,
 * summed over `ncpus` CPUs, each `n` counters); -1 when none was entered. */
int probe_idle_dominant(const uint64_t *before, const uint64_t *after, uint32_t ncpus, uint32_t n);

/* The idle states on one line ("idle states of CPU 0 (cpuidle driver ..., governor
 * ...): POLL 0/0 us (polls), ..."), exit latency / target residency each. */
void probe_idle_print(const struct probe_topology *t, const char *prefix, FILE *f);

/* One online CPU; cpus[i] is model CPU i. */
struct probe_cpu {
	uint32_t linux_id;  /* Linux CPU number */
	int32_t core_id;    /* topology/core_id, -1 when absent */
	int32_t package_id; /* topology/physical_package_id, -1 when absent */
	uint32_t core_key;  /* the lowest online CPU among its thread siblings: identifies the core */
	uint32_t llc_key;   /* the lowest online CPU sharing its last-level cache; UINT32_MAX unknown */
	uint32_t node;      /* dense node index (nodes in sysfs order) */
	uint32_t core;      /* the model's core number of this CPU (docs/machine.md numbering) */
};

struct probe_topology {
	char root[512];       /* where sysfs and /proc were read ("/" on the real machine) */
	uint32_t ncpus;       /* online CPUs */
	struct probe_cpu *cpus;
	char offline[128];    /* the contents of cpu/offline ("" when none) */

	uint32_t nodes, cores_per_node, threads_per_core, ncores;
	uint32_t cores_per_cluster; /* = cores_per_node unless the LLC groups split nodes */
	bool clusters;              /* last-level cache groups smaller than a node, written */
	enum cpu_numbering numbering;
	bool node_dirs;             /* sysfs has node directories (else: one node assumed) */
	bool siblings_known;        /* every online CPU has topology/thread_siblings_list */
	uint32_t node_ids[MACHINE_MAX_NODES]; /* sysfs node number of each dense node */
	uint32_t distance[MACHINE_MAX_NODES * MACHINE_MAX_NODES];
	uint32_t packages;          /* distinct physical_package_id values (0 unknown) */

	uint64_t l1d_bytes, l2_bytes, llc_bytes; /* of the first online CPU; 0 unknown */
	uint32_t llc_level;

	uint64_t freq_khz;
	bool freq_assumed;          /* the kernel reports no clock: 2.0 GHz assumed */
	char freq_source[200];      /* where freq_khz came from, for the comment */
	char model[160];            /* CPU model name */
	char release[128];          /* kernel release (uname -r) */
	char hostname[64];

	/* "name: text" of each file of cpu/vulnerabilities, sorted by name */
	uint32_t nvulns;
	char vulns[PROBE_MAX_VULNS][PROBE_VULN_LEN];

	struct probe_idle idle;     /* the first online CPU's cpuidle states */

	/* facts worth saying in the file and on the terminal (CPU-less nodes skipped,
	 * offline CPUs renumbered, ...) */
	uint32_t nnotes;
	char notes[PROBE_MAX_NOTES][PROBE_NOTE_LEN];
};

/* Reads the topology under `root` ("/" for this machine; a fake tree in the tests:
 * ROOT/sys/devices/system/{cpu,node}/..., ROOT/proc/cpuinfo,
 * ROOT/proc/sys/kernel/osrelease). On a topology the machine schema cannot express
 * (unequal cores per node or threads per core, a numbering neither cores-first nor
 * smt-adjacent, more than 64 nodes or 4096 CPUs, a bad distance matrix) or an
 * unreadable tree, fails with FS_ERR_INPUT and says why; `t` keeps what was read
 * (probe_topology_free it either way). */
int probe_topology_read(struct probe_topology *t, const char *root, struct fs_error *e);
void probe_topology_free(struct probe_topology *t);
/* One paragraph per topology fact, for the terminal. */
void probe_topology_print(const struct probe_topology *t, FILE *f);
/* The vulnerabilities the kernel reports other than "Not affected", one per line
 * with `prefix` before each; "none reported" when there are none. */
void probe_mitigations_print(const struct probe_topology *t, const char *prefix, FILE *f);
/* The text of cpu/vulnerabilities/NAME as read ("Mitigation: PTI"); NULL when the
 * file is missing. */
const char *probe_vuln_text(const struct probe_topology *t, const char *name);

/* The machine file's `mitigations:` block: each sysfs text mapped to one word
 * (docs/probe.md). A missing file (NULL) or a text not recognised gives "unknown".
 *   pti, from meltdown: "Mitigation: PTI" -> "on"; "Not affected", "Vulnerable..." -> "off".
 *   spectre_v2, from its first clause (before ';'): "Not affected" -> "off"; a
 *     retpoline or LFENCE thunk on indirect calls ("Retpolines", "Full generic
 *     retpoline", "Enhanced / Automatic IBRS + Retpolines", "LFENCE") -> "retpoline";
 *     "Enhanced / Automatic IBRS", "Enhanced IBRS", "eIBRS" -> "eibrs"; "IBRS" ->
 *     "ibrs"; "Vulnerable" otherwise -> "off".
 *   return_thunk, from retbleed and spec_rstack_overflow: "on" when either uses a
 *     return thunk ("untrained return", "return thunk", "Safe RET" but not "no safe
 *     RET", "Stuffing", "call depth tracking"); "off" when both files say "Not
 *     affected", "Vulnerable..." or "Mitigation: ..." without one; else "unknown". */
const char *probe_mitigation_pti(const char *meltdown);
const char *probe_mitigation_spectre_v2(const char *spectre_v2);
const char *probe_mitigation_return_thunk(const char *retbleed, const char *spec_rstack_overflow);
/* Whether one of retbleed or spec_rstack_overflow's texts names a return thunk. */
bool probe_uses_return_thunk(const char *text);

/* The kernel design preset (configs/kernels/) nearest to a kernel release such as
 * "6.18.3-arch1": linux-6.18 from 6.18 on, linux-6.17, linux-6.16-dev for 6.16,
 * linux-6.15 for 5.6..6.15, linux-3.14 for 3.14..5.5, linux-2.6.22 for
 * 2.6.22..3.13, linux-2.6.18 before. NULL when the release has no MAJOR.MINOR. */
const char *probe_kernel_preset(const char *release);

/* A measured value. A latency is the low tail of `n` short rounds: `estimate` the
 * p10 of the rounds (their minimum below 10; with several CPU pairs or buffers the
 * median of each one's p10), since noise (other load, a hypervisor descheduling
 * a virtual CPU, ...) only ever adds time; smt_slowdown, a ratio, is the median of
 * its trials. The spread lo-hi is p10-p90 from 10 rounds on, min-max below. Times
 * in ns; smt_slowdown a ratio. */
struct probe_value {
	bool measured;
	uint32_t n;           /* rounds (trials of smt_slowdown) */
	double estimate;      /* the value written: the low tail, or smt_slowdown's median */
	double median, lo, hi;
	bool percentiles;     /* lo-hi is p10-p90 (else min-max) */
	bool low_tail;        /* estimate is the low tail (else the median) */
	uint32_t attempts;    /* attempts made: 1 + the retries of an unstable measurement */
	bool unstable;        /* still unstable after PROBE_RETRIES retries: `warning` says how */
	char warning[480];
	char how[320];        /* the method, for the comment: "CAS ping-pong, 3 same-node pairs; ..." */
	/* filled by probe_results_finish: the value as written ("45.1ns", "10 cycles",
	 * "1.000"), its label ('M' measured; 'A' or 'D' when not) and, when not
	 * measured, why and what was written instead */
	char value[32];
	char label;
	char why_not[240];
};

/* ---- low-tail estimates and their stability (sim/probe/bench.c) ----
 *
 * A measurement is unstable when its rounds spread too far (p90 above
 * PROBE_SPREAD_LIMIT x p10) or drift (the low tails of the first and the second
 * half of the rounds, in the order measured, differ by more than
 * PROBE_DRIFT_LIMIT of the smaller). It is then measured again, up to
 * PROBE_RETRIES times, each retry on 1/PROBE_RETRIES of the first attempt's time. */
#define PROBE_SPREAD_LIMIT 2.0
#define PROBE_DRIFT_LIMIT 0.20
#define PROBE_RETRIES 3u
#define PROBE_MIN_ROUNDS 10u

struct probe_stats {
	uint32_t n;           /* rounds */
	bool percentiles;     /* n >= 10: lo-hi is p10-p90, else min-max */
	double estimate;      /* the low tail: p10 (the minimum below 10 rounds); NAN with none */
	double median, lo, hi;
	double first, second; /* the low tail of each half of the rounds; NAN below 4 rounds */
	bool unstable;
	char why[240];        /* how it is unstable: spread, drift or both */
};

/* The low tail, spread and drift of `n` rounds in the order measured (not changed). */
void probe_stats_of(const double *rounds, uint32_t n, struct probe_stats *s);

/* Of `n` attempts at one measurement, in the order made: the last one is accepted
 * when it is stable and its estimate is within PROBE_DRIFT_LIMIT of the lowest
 * estimate of all of them (an earlier attempt that reached lower shows the later
 * one was slowed); else the attempt with the lowest estimate is kept, not accepted,
 * and `why` says why. Returns the index of the attempt kept. */
uint32_t probe_pick_attempt(const struct probe_stats *a, uint32_t n, bool *accepted, char *why, size_t size);

/* One pair of CPUs or one buffer: the rounds of the attempt kept. */
struct probe_series {
	const double *rounds;
	uint32_t n;
	struct probe_stats stats; /* of those rounds */
	uint32_t attempts;
	bool accepted;
	char why[400];            /* when not accepted */
	char where[64];           /* "CPUs 0-1", "CPU 0 -> node 1" */
};

/* The value of `n` series of one kind: the median of their estimates (the mean of
 * two), the median and spread of all their rounds, unstable when any series is
 * (`warning` names it). `how` is not touched. -1 when out of memory. */
int probe_value_combine(const struct probe_series *s, uint32_t n, struct probe_value *v);

/* A value derived by arithmetic from measured ones (sim/probe/sched.c): written as
 * `value` with label 'M' (every input measured on this machine) or, when it could
 * not be derived, a fallback with label 'A'; `how` is its comment after the label,
 * `warning` the inputs' instability ("" when none). */
struct probe_derived {
	bool derived;
	double ns;
	char label;
	char value[32];
	char how[1400];
	char warning[1000];
};

/* Sleeping and waking (sim/probe/sched.c, docs/probe.md "Sleeping and waking"):
 * what probe_measure_sched measures, one way unless said, in ns. */
struct probe_sched {
	struct probe_value futex_wake;  /* FUTEX_WAKE that finds no waiter, on CPU cpu_a */
	struct probe_value futex_wait;  /* FUTEX_WAIT that returns EAGAIN (the word differs) */
	struct probe_value handoff;     /* a futex ping-pong of two threads on CPU cpu_a: round trip / 2 */
	struct probe_value wake_spin;   /* the same across cpu_a-cpu_b, each waiter spinning first: no sleep */
	struct probe_value wake_idle;   /* across, each waiter sleeping at once: the target CPU idle */
	struct probe_value wake_poll;   /* the same with /dev/cpu_dma_latency held at 0: the target polls */
	struct probe_value wake_call_idle; /* wake_idle again, timing only the waker's FUTEX_WAKE call (one call) */
	struct probe_value exit_cold;   /* perf's wake suites: the waker's FUTEX_WAKE of a thread asleep 0.1 s on
					   its own CPU, which preempts it and exits, until the waker runs again
					   (the median of PROBE_EXIT_SAMPLES) */
	double exit_preempted;          /* share of exit_cold's samples whose wakee ran before the call returned */
	struct probe_value pipe_same, pipe_cross; /* a pipe ping-pong's round trip (perf bench sched pipe's op) */
	double perf_pipe_us;            /* `perf bench sched pipe`'s usecs/op; NAN not run */
	char perf_pipe_why[320];        /* why not, or its command */
	uint32_t cpu_a, cpu_b;          /* Linux CPUs */
	bool cross;                     /* the machine has a second CPU: the cross-CPU values */
	int idle_state, poll_state;     /* index in probe_topology.idle.s of the state the two CPUs entered
					   most during wake_idle, wake_poll; -1 unknown */
	double slept_idle, slept_poll, slept_spin, slept_same; /* share of the main thread's waits that slept (NAN unknown) */
	uint64_t sleeps_idle, sleeps_poll;  /* both threads' waits that slept during wake_idle, wake_poll */
	uint64_t entries_idle, entries_poll; /* both CPUs' idle-state entries meanwhile (usage counters) */
	char poll_why[200];             /* why wake_poll was not measured ("" when it was) */
	struct probe_derived context_switch, wake_to_run, ipi, ipi_send, thread_exit;
};
#define PROBE_EXIT_SAMPLES 10

/* The sched block's three costs from s's measured values and the idle states
 * (docs/probe.md gives the arithmetic):
 *   context_switch = handoff - futex_wake - futex_wait;
 *   with wake_poll's target in a polling state and wake_idle's in one that does not
 *   (both cases idle: probe_sched_was_idle):
 *     wake_to_run = wake_poll - wake_spin - exit latency (poll state),
 *     ipi = wake_idle - wake_poll - (exit latency (idle state) - exit latency (poll state));
 *   otherwise ipi is not separable (0, said why) and wake_to_run = wake_idle - wake_spin -
 *   exit latency (idle state), the IPI included when one was sent;
 *   ipi_send = wake_call_idle - futex_wake when wake_idle's target did not poll (its
 *   wake-ups sent the IPI), else 0 (none sent, or not known);
 *   thread_exit = exit_cold - futex_wake - 2 x context_switch when the wakee preempted
 *   the waker in at least half of the samples, else 0 (not measured).
 * Negative results (noise) are written as 0, above 1 ms as 1 ms, saying so; what
 * was not measured falls back to the schema's defaults [A]. `stamp` ends each
 * measured comment (date, CPU, kernel). */
void probe_sched_derive(const struct probe_idle *idle, struct probe_sched *s, const char *stamp);
/* Whether a wake-up case ran on idle CPUs: they entered an idle state at least half
 * as often as the waiters slept (else other work kept them busy, and the state
 * entered most is not the wake-ups'; probe_sched_derive then separates nothing
 * and warns). */
bool probe_sched_was_idle(uint64_t entries, uint64_t sleeps);

struct probe_results;
/* The sched: block of the machine file (after costs:), every value with its source. */
void probe_sched_render(FILE *f, const struct probe_topology *t, const struct probe_results *r);
/* The sched measurements and the values written, for the terminal. */
void probe_sched_print(const struct probe_topology *t, const struct probe_results *r, FILE *f);
/* `perf bench sched pipe -l 20000`'s usecs/op into s->perf_pipe_us (NAN, with the
 * reason in perf_pipe_why, when perf is missing or fails). */
void probe_sched_perf_pipe(struct probe_sched *s);

struct probe_results {
	struct probe_value syscall, line_hit, atomic_hit;
	struct probe_value transfer_smt, transfer_cluster, transfer_node;
	uint32_t ndistances;                          /* distinct off-diagonal SLIT distances */
	uint32_t distances[PROBE_MAX_DISTANCES];
	struct probe_value transfer_remote[PROBE_MAX_DISTANCES];
	struct probe_value memory_local;
	struct probe_value memory_remote[PROBE_MAX_DISTANCES];
	struct probe_value smt_slowdown;
	struct probe_sched sched;
	char date[32];       /* UTC YYYY-MM-DD */
	char when[32];       /* UTC YYYY-MM-DDTHH:MM:SSZ */
	double seconds;      /* wall time of the measurements */
	double budget;       /* the --seconds asked for */
	uint64_t dram_buffer_bytes;
	char dram_note[240]; /* how the DRAM buffers were placed */
};

struct probe_options {
	double seconds;      /* budget; trials scale with it (at least 5 per value) */
	FILE *progress;      /* a line per value measured; NULL: quiet */
};

/* The distinct off-diagonal distances of t, ascending, into r (also done by
 * probe_measure). */
void probe_results_init(struct probe_results *r, const struct probe_topology *t);

/* Fills every value: the measured ones formatted, the others with a stated
 * fallback and reason (no SMT: transfer_smt unused and smt_slowdown 1.0; one CPU:
 * transfers unused; memory not placeable on a node: memory_local x distance / 10;
 * ...). probe_measure calls it; the tests call it on made-up measurements. */
void probe_results_finish(struct probe_results *r, const struct probe_topology *t);

/* Pins the calling thread to Linux CPU `cpu` (sched_setaffinity); 0 or an errno. */
int probe_pin_self(uint32_t cpu);
/* The error of a pin that failed with errno `err`: FS_ERR_RUNTIME, saying why the
 * probe pins (`why`, e.g. "futexsim probe runs its benchmarks on chosen CPUs") and
 * where to run it instead. Returns -1. */
int probe_pin_failed(struct fs_error *e, uint32_t cpu, int err, const char *why);

/* Runs the micro-benchmarks on this machine for about o->seconds. Fails (status
 * FS_ERR_RUNTIME) when a thread cannot be pinned to an online CPU. */

int probe_measure(const struct probe_topology *t, const struct probe_options *o, struct probe_results *r,
		  struct fs_error *e);
/* "futexsim probe: warning: WHAT is unstable: ..." on `f` when v is (the probe
 * writes it on standard error as each value is measured). */
void probe_warn_unstable(FILE *f, const char *what, const struct probe_value *v);
/* The measured values, one per line, for the terminal. */
void probe_results_print(const struct probe_topology *t, const struct probe_results *r, FILE *f);

/* The machine YAML (docs/machine.md) named `name`, every constant with a source
 * comment (tests/config_sources.py). malloc'd; NULL with `e` set on failure. */
char *probe_render(const struct probe_topology *t, const struct probe_results *r, const char *name,
		   struct fs_error *e);
/* Loads `text` as the config loader does (yt_load_string + machine_from_yaml) and
 * checks that it has t's topology (nodes, cores, threads, numbering, distances,
 * each model CPU's core, node and cluster). `file` names it in messages. */
int probe_verify(const char *text, const char *file, const struct probe_topology *t, struct fs_error *e);
/* Writes `text` to `path` atomically: a temporary file beside it, flushed, loaded
 * and verified (probe_verify), then renamed over `path`. On failure nothing is
 * left behind and `path` is untouched (FS_ERR_OUTPUT, or the verify error). */
int probe_write(const char *path, const char *text, const struct probe_topology *t, struct fs_error *e);

/* The machine name for an output path: its file name without .yaml, made of
 * [A-Za-z0-9._-] ("probed" when nothing is left). */
void probe_name_from_path(const char *path, char *out, size_t size);

/* `futexsim probe ...` after the command name has been checked (argv[1] is
 * "probe"; -h is handled by the caller). Prints progress on stderr and the summary
 * on stdout; returns an exit status with `e` set when it is not 0. With --check it
 * runs probe_check_command's comparison instead (below). */
int probe_command(int argc, char **argv, struct fs_error *e);

/* ---- futexsim probe --check: the real futex hash loop beside the simulated one ----
 *
 * For each scenario (probe_check_scenarios): futexsim's own copy of perf bench futex
 * hash's loop run on this machine a few times (sim/probe/futex.c), `perf bench futex
 * hash` once when perf is installed, and the same workload simulated on the probed
 * machine file with the kernel preset nearest to the running kernel; a table of the
 * three and the simulation's error, printed and written as CSV. docs/probe.md. */

#define PROBE_CHECK_FUTEXES 1024u  /* futexes per thread: perf's default -f */
#define PROBE_BUCKETS_AUTO (-1)    /* the private hash the kernel sizes itself (no prctl) */
#define PROBE_CHECK_SCENARIO_LEN 64
#define PROBE_CHECK_NOTE_LEN 480

/* One scenario: perf bench futex hash -t THREADS [-S] [-b BUCKETS], thread i pinned
 * to model CPU cpus[i]. */
struct probe_check_scenario {
	char name[PROBE_CHECK_SCENARIO_LEN]; /* "1 thread", "all CPUs (8) -S", "all CPUs (8) -b 16" */
	uint32_t threads;
	bool shared;
	int32_t buckets;        /* PROBE_BUCKETS_AUTO, 0 (the global hash) or a power of two >= 2 */
	uint32_t *cpus;         /* [threads]: model CPU (= index in probe_topology.cpus) of thread i */
	bool perf_placement;    /* perf bench pins its threads the same way: thread i on online CPU i */
	char skip[240];         /* why it is not run; "" when it is */
};

/* The scenarios for topology t, in table order: 1 thread, one thread on the first
 * CPU of each core, one on every CPU (each thread count once: on a 1-CPU machine
 * only "1 thread", without SMT "1/core" is "all CPUs"), each with private and shared
 * futexes; then, at the largest count, private futexes with the private hash set by
 * PR_FUTEX_HASH to 2, 16 and 128 slots and 0 (the global hash). When the kernel has
 * no PR_FUTEX_HASH (`private_hash` false, `hash_why` the reason) those four are listed
 * with `skip` set. Fails only when out of memory. */
int probe_check_scenarios(const struct probe_topology *t, bool private_hash, const char *hash_why,
			  struct probe_check_scenario **out, uint32_t *n, struct fs_error *e);
void probe_check_scenarios_free(struct probe_check_scenario *s, uint32_t n);
/* "0-3,8": ascending CPU ids as a CPU list (machine.md): a scenario's CPUs for the
 * simulation, a node's CPUs in the machine file. */
void probe_cpulist(const uint32_t *cpus, uint32_t n, char *out, size_t size);

/* A row of the table; NAN where there is no value. */
struct probe_check_row {
	char scenario[PROBE_CHECK_SCENARIO_LEN];
	char suite[16];         /* "hash", or a blocking row's: "wake", "wake-parallel", "requeue", "lock-pi", "schbench" */
	char unit[16];          /* of real, perf and sim: "ops/s", "ms" (perf's time of a run), "requests/s" */
	uint32_t threads;
	bool shared;
	int32_t buckets;        /* PROBE_BUCKETS_AUTO ("auto" in the CSV), 0, or N */
	uint32_t repeats;       /* real runs made */
	double real, real_min, real_max;  /* perf's Averaged of futexsim's loop: median, min, max over the repeats */
	double real_stderr_pct;           /* its standard error (threads), median over the repeats */
	double perf, perf_stderr_pct;     /* perf bench futex hash's Averaged, one run */
	double sim, sim_min, sim_max;     /* simulated Averaged: median, min, max over seeds */
	double error_pct;                 /* 100 (sim / real - 1) */
	char note[PROBE_CHECK_NOTE_LEN];  /* skips, slot counts */
};

struct probe_check_table {
	struct probe_check_row *rows;
	uint32_t n;
	double median_abs_error; /* median of |error_pct| over the hash rows that have one; NAN none */
	double blocking_median, blocking_max; /* of |error_pct| over the blocking rows; NAN none */
};

/* The median |error| over t's hash rows (stored in t->median_abs_error too), and
 * the median and max over its blocking rows (t->blocking_median, blocking_max). */
double probe_check_median_abs_error(struct probe_check_table *t);
/* The table for the terminal, the median |error| last. */
void probe_check_print(const struct probe_check_table *t, FILE *f);
/* The table as CSV (RFC 4180): a header line, a line per row, then the lines
 * "median |error|" (the hash rows), "blocking median |error|" and "blocking max
 * |error|" with only error_pct. malloc'd; NULL when out of memory. */
char *probe_check_csv(const struct probe_check_table *t);
/* Writes it to `path` atomically (a temporary file beside it, renamed into place). */
int probe_check_csv_write(const char *path, const struct probe_check_table *t, struct fs_error *e);
/* Reads a file probe_check_csv_write wrote back into `t` (probe_check_table_free). */
int probe_check_csv_read(const char *path, struct probe_check_table *t, struct fs_error *e);
void probe_check_table_free(struct probe_check_table *t);

/* Simulates scenario s for one seed on `machine` (a machine file path) with kernel
 * preset `kernel`: hash-bench, PROBE_CHECK_FUTEXES futexes, a few ms; perf's Averaged
 * into *averaged and the private hash's buckets into *slots (0: none or global). */
int probe_check_simulate(const char *machine, const char *kernel, const struct probe_check_scenario *s,
			 uint64_t seed, double *averaged, int32_t *slots, struct fs_error *e);

/* sim/probe/futex.c: one run of the real loop, in a child process of its own (a
 * fresh mm, as each perf run has): `threads` threads, thread i pinned to Linux CPU
 * cpus[i], each on its own calloc'd array of `futexes` words, FUTEX_WAIT with a
 * value that never matches (EAGAIN), a full pass between looks at the stop flag. */
struct probe_futex_run {
	uint32_t threads;
	const uint32_t *cpus;   /* [threads], Linux CPU numbers */
	uint32_t futexes;
	bool shared;            /* no FUTEX_PRIVATE_FLAG (perf -S) */
	int32_t buckets;        /* PROBE_BUCKETS_AUTO: no prctl; else PR_FUTEX_HASH_SET_SLOTS first */
	double seconds;
};

struct probe_futex_result {
	double averaged;        /* mean over threads of floor(ops / the thread's own seconds) */
	double stderr_pct;      /* standard error of that mean, % (perfstat.h) */
	double seconds;         /* the longest thread's time */
	uint64_t ops;
	uint64_t unexpected;    /* futex calls that did not fail with EAGAIN */
	int32_t slots;          /* PR_FUTEX_HASH_GET_SLOTS with every thread started; -1 no PR_FUTEX_HASH */
};

/* 0 ran; 1 skipped, `why` says why (prctl refused the slot count); -1 failed with
 * `e` (FS_ERR_RUNTIME; "sched_setaffinity" in the message when pinning was refused). */
int probe_futex_run(const struct probe_futex_run *r, struct probe_futex_result *out, char *why, size_t why_size,
		    struct fs_error *e);
/* Whether this process may run on every online CPU of t; fails with the reason. */
int probe_futex_check_affinity(const struct probe_topology *t, struct fs_error *e);
/* Whether this kernel has prctl(PR_FUTEX_HASH) (asked in a child process); else why. */
bool probe_futex_hash_supported(char *why, size_t size);

/* perf bench futex hash: found as $FUTEXSIM_PERF (a path, or "none" to skip it), else
 * perf on PATH. */
struct probe_perf {
	char path[512];         /* "" when not found */
	bool usable;            /* found, and not failed yet */
	bool buckets;           /* its futex hash takes -b (perf 6.16+) */
	char why[320];          /* why not usable, or why no -b */
};
void probe_perf_find(struct probe_perf *p);
/* `perf bench futex hash -r 1 -t THREADS [-S] [-b BUCKETS]`: its Averaged figure. 0
 * ran; 1 not run or failed, `why` says why (a failure without -b marks perf unusable). */
int probe_perf_run(struct probe_perf *p, uint32_t threads, bool shared, int32_t buckets, double *averaged,
		   double *stderr_pct, char *why, size_t why_size);
/* `cmd` through the shell; the number that starts the first line of its output
 * holding `unit` ("usecs/op": "11.8 usecs/op") into *v. 0; -1 with `why` set
 * when it failed or printed no such line. */
int probe_perf_figure(const char *cmd, const char *unit, double *v, char *why, size_t why_size);
/* The last "Averaged N operations/sec (+- X%), total secs = T" line of perf's output:
 * 0 with N (and X, T when given: else NAN), -1 when there is none. */
int probe_perf_parse(const char *text, double *averaged, double *stderr_pct, double *secs);

/* ---- --check's blocking rows (docs/probe.md, "The blocking rows") ----
 *
 * perf's blocking suites, run by perf itself when it has the suite and its options,
 * and futexsim's own copy of schbench -L's loop (sim/probe/blocking.c), each beside
 * the same workload simulated on the machine file. */

struct probe_block_scenario {
	char name[PROBE_CHECK_SCENARIO_LEN]; /* "wake -t 2", "schbench -m 1 -t 2" */
	char suite[16];
	char unit[16];          /* "ms", "ops/s", "requests/s" */
	uint32_t threads;       /* perf -t, or schbench's m x (t + 1) */
	char real[160];         /* perf's command line as typed ("" for schbench) */
	char sim[160];          /* the same for futexsim's parser (lock-pi's -r in simulated seconds) */
	uint32_t m, t;          /* schbench -m, -t */
};
/* The blocking rows for topology t (N = online CPUs, at most 8): wake -t N, wake -t
 * 4N, wake-parallel -t 2N -w N, requeue -t 2N, lock-pi -t N (and -M), schbench -m 1
 * -t N and -m N -t 2N (N = 2: -m 1 -t 2, -m 2 -t 4). malloc'd. */
int probe_block_scenarios(const struct probe_topology *t, struct probe_block_scenario **out, uint32_t *n,
			  struct fs_error *e);

/* schbench -L's protocol on a word used as a binary semaphore (blocking.c):
 * post = CAS 0 -> 1, then FUTEX_WAKE(1) only if it succeeded (true; `calls`
 * counted); try_wait = CAS 1 -> 0; wait = try_wait, else FUTEX_WAIT(w, 0) (with a
 * timeout) and again, 1 when `stop` was seen set instead. A worker's node goes on
 * its message thread's list with push (a CAS of the head); take empties the list
 * with one exchange, most recent first. */
struct probe_sb_node {
	_Atomic uint32_t word;
	struct probe_sb_node *next;
};
bool probe_sb_post(_Atomic uint32_t *w, uint64_t *calls);
bool probe_sb_try_wait(_Atomic uint32_t *w);
int probe_sb_wait(_Atomic uint32_t *w, _Atomic int *stop, uint64_t *calls);
void probe_sb_push(struct probe_sb_node *_Atomic *head, struct probe_sb_node *n);
struct probe_sb_node *probe_sb_take(struct probe_sb_node *_Atomic *head);

/* One run of the loop in a child process: m message threads with t workers each,
 * message thread i on Linux CPU cpus[i mod ncpus], the workers on any CPU of cpus
 * (schbench -M auto), counted for `seconds` after 0.1 s. */
struct probe_schbench_run {
	uint32_t m, t;
	const uint32_t *cpus;
	uint32_t ncpus;
	double seconds;
};
struct probe_schbench_result {
	uint64_t requests, futex_calls;
	double seconds;         /* counted */
	double rps;             /* requests / seconds, as schbench's average rps */
	double p50_us, p99_us;  /* the workers' wake-up latency (from their message thread's pass) */
};
int probe_schbench_run(const struct probe_schbench_run *r, struct probe_schbench_result *out, struct fs_error *e);

/* futexsim's own loop of one of perf's blocking suites (blocking.c), where perf
 * has no such suite: perf's protocol (tools/perf/bench/futex-wake.c,
 * futex-wake-parallel.c, futex-requeue.c, futex-lock-pi.c) in a child process.
 * wake, wake-parallel, requeue: `threads` threads pinned to cpus[i mod ncpus]
 * block in FUTEX_WAIT(futex1, 0); 0.1 s later (perf's usleep) the timing: FUTEX_WAKE
 * (futex1, nwake) until all are woken; `wakers` unpinned threads each FUTEX_WAKE
 * (futex1, threads / wakers) once from a barrier (each timed); FUTEX_CMP_REQUEUE
 * (futex1, 0, futex2, nrequeue) until all are requeued, then FUTEX_WAKE(futex2);
 * `runs` runs, the figure their mean time in ms. lock-pi: FUTEX_LOCK_PI, usleep(1),
 * FUTEX_UNLOCK_PI for `seconds`, on one word or (multi) one each; the figure perf's
 * Averaged ops/s. */
struct probe_suite_run {
	char suite[16];
	uint32_t threads, runs, nwake, wakers, nrequeue;
	bool shared, multi;
	double seconds;
	const uint32_t *cpus;
	uint32_t ncpus;
};
/* The run perf's command line stands for (read by futexsim bench's parser); -B
 * and -p are refused. cpus are left for the caller. 0, or -1 with `msg`. */
int probe_suite_from_line(const char *line, uint32_t ncpus, struct probe_suite_run *r, char *msg, size_t size);
int probe_suite_run(const struct probe_suite_run *r, double *figure, struct fs_error *e);

/* Whether perf's `perf bench futex SUITE -h` lists every option of `line` (perf's
 * command line as typed); else why not. */
bool probe_perf_has(const struct probe_perf *p, const char *line, char *why, size_t size);
/* `line` run by this perf (its "perf" replaced by the path): its whole output into
 * *text (malloc'd). 0 ran; -1 failed, `why` says why (perf's first line). */
int probe_perf_line(const struct probe_perf *p, const char *line, char **text, char *why, size_t size);

#endif
