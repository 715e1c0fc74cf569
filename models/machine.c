/* SPDX-License-Identifier: MIT */
/* The machine model: reads a machine YAML (docs/machine.md) and precomputes the
 * per-CPU topology and per-pair costs the simulator looks up on its hot path. */
#include "models/machine.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/config.h"

/* ACPI SLIT: 10 is a node's distance to itself; 255 means "unreachable", which a
 * machine we can simulate cannot have. */
#define SLIT_LOCAL 10u
#define SLIT_MAX 254u

/* No single cost of a machine is anywhere near a millisecond; a larger value is
 * a typo (a unit forgotten) and would put sums of simulated time at risk. */
#define MACHINE_MAX_COST_PS PS_PER_MS

/* A clock outside 1 MHz..100 GHz makes "N cycles" meaningless (and at the high
 * end rounds a cycle to 0 ps). */
#define MACHINE_MIN_FREQ_KHZ 1000u
#define MACHINE_MAX_FREQ_KHZ 100000000u

#define MACHINE_MAX_THREADS_PER_CORE 8u
#define SMT_SLOWDOWN_NONE_MILLI 1000u
#define SMT_SLOWDOWN_MAX_MILLI 10000u
/* costs.core_clock: from half the given frequency to four times it */
#define CORE_CLOCK_MIN_MILLI 500u
#define CORE_CLOCK_MAX_MILLI 4000u

/* `calibration` (written by make calibrate) and `uncertainty` (the ranges of a
 * machine without a fit) are not the model's: futexsim run --band reads them
 * (sim/band.c) */
static const char *const machine_keys[] = {
	"name", "description", "topology", "frequency", "distance", "costs", "coherence", "mitigations",
	"sched", "calibration", "uncertainty", NULL,
};
static const char *const mitigation_keys[] = { "pti", "spectre_v2", "return_thunk", NULL };
const char *const mitigation_state_names[] = { "unknown", "off", "on", NULL };
const char *const spectre_v2_mode_names[] = { "unknown", "off", "retpoline", "ibrs", "eibrs", NULL };
static const char *const sched_keys[] = { "governor", "halt_poll", "idle_states", "wake_up", "ipi_send", "ipi", "wake_to_run", "context_switch",
					    "thread_exit", NULL };
const char *const idle_governor_names[] = { "menu", "haltpoll", NULL };
static const char *const idle_state_keys[] = { "name", "exit_latency", "target_residency", "polls", NULL };
static const char *const coherence_keys[] = {
	"local_handoffs", "snoop", "directory_cache_lines", "directory_cache_ways", "adjacent_line_prefetch", NULL,
};
static const char *const snoop_names[] = { "source", "home", NULL };
static const char *const topology_keys[] = {
	"nodes", "cores_per_node", "threads_per_core", "numbering", "cores_per_cluster", NULL,
};
static const char *const cost_keys[] = {
	"line_hit", "atomic_hit", "transfer_smt", "transfer_cluster", "transfer_node", "transfer_remote",
	"memory_local", "memory_remote", "syscall", "line_hold", "smt_slowdown", "transfer_occupancy",
	"directory_read",
	"transfer_contended", "invalidation", "core_clock", "call_return", "key_shared", NULL,
};
/* Indexed by enum cpu_numbering. */
static const char *const numbering_names[] = { "cores-first", "smt-adjacent", NULL };

/* A cost that may depend on the SLIT distance between two nodes, indexed by
 * distance; `given` marks the distances that have a cost. */
struct distance_costs {
	simtime_t ps[SLIT_MAX + 1];
	bool given[SLIT_MAX + 1];
};

struct remote_costs {
	struct distance_costs transfer; /* line from a cache on another node */
	struct distance_costs memory;   /* fill from another node's DRAM */
};

static uint32_t distance_of(const struct machine *m, uint32_t from_node, uint32_t to_node)
{
	return m->distance[(uint64_t)from_node * m->nodes + to_node];
}

static int out_of_memory(struct fs_error *e, const char *what)
{
	return fs_fail(e, FS_ERR_RUNTIME, "machine: out of memory for %s", what);
}

/* ---- reading the YAML ---------------------------------------------------- */

static int read_names(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const char *name, *description;

	if (cfg_require(root, "name", "machine", e) ||
	    cfg_get_string(root, "name", NULL, &name, e) ||
	    cfg_get_string(root, "description", "", &description, e))
		return -1;
	if (name[0] == '\0')
		return fs_fail_at(e, &yt_get(root, "name")->mark, "name: must not be empty");
	/* The machine outlives the YAML document it was read from. */
	m->name = strdup(name);
	m->description = strdup(description);
	if (!m->name || !m->description)
		return out_of_memory(e, "its name");
	return 0;
}

static int read_topology(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const struct yt_node *t;
	uint64_t ncpus;
	int numbering;

	if (cfg_require(root, "topology", "machine", e))
		return -1;
	t = yt_get(root, "topology");
	if (cfg_expect(t, YT_MAP, "topology", e) || cfg_check_keys(t, "topology", topology_keys, e) ||
	    cfg_require(t, "nodes", "topology", e) || cfg_require(t, "cores_per_node", "topology", e) ||
	    cfg_require(t, "threads_per_core", "topology", e) ||
	    cfg_get_u32(t, "nodes", 1, 1, MACHINE_MAX_NODES, &m->nodes, e) ||
	    cfg_get_u32(t, "cores_per_node", 1, 1, MACHINE_MAX_CPUS, &m->cores_per_node, e) ||
	    cfg_get_u32(t, "threads_per_core", 1, 1, MACHINE_MAX_THREADS_PER_CORE,
			&m->threads_per_core, e) ||
	    cfg_get_enum(t, "numbering", numbering_names, NUMBERING_CORES_FIRST, &numbering, e))
		return -1;
	/* Each factor is bounded above, so the product fits in 64 bits. */
	ncpus = (uint64_t)m->nodes * m->cores_per_node * m->threads_per_core;
	if (ncpus > MACHINE_MAX_CPUS)
		return fs_fail_at(e, &t->mark,
				  "topology: %" PRIu32 " nodes x %" PRIu32 " cores x %" PRIu32
				  " threads = %" PRIu64 " CPUs (at most %u supported)",
				  m->nodes, m->cores_per_node, m->threads_per_core, ncpus,
				  MACHINE_MAX_CPUS);
	m->ncores = m->nodes * m->cores_per_node;
	m->ncpus = (uint32_t)ncpus;
	/* cores sharing a last-level cache (an AMD CCX); default: the whole node */
	if (cfg_get_u32(t, "cores_per_cluster", m->cores_per_node, 1, m->cores_per_node, &m->cores_per_cluster, e))
		return -1;
	if (m->cores_per_node % m->cores_per_cluster)
		return fs_fail_at(e, &yt_get(t, "cores_per_cluster")->mark,
				  "cores_per_cluster: %" PRIu32 " does not divide cores_per_node %" PRIu32
				  " (expected equal clusters)",
				  m->cores_per_cluster, m->cores_per_node);
	m->numbering = (enum cpu_numbering)numbering;
	return 0;
}

static int read_frequency(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const struct yt_node *f;

	if (cfg_require(root, "frequency", "machine", e))
		return -1;
	f = yt_get(root, "frequency");
	if (cfg_parse_frequency(f, "frequency", &m->freq_khz, e))
		return -1;
	if (m->freq_khz < MACHINE_MIN_FREQ_KHZ || m->freq_khz > MACHINE_MAX_FREQ_KHZ)
		return fs_fail_at(e, &f->mark, "frequency: %" PRIu64 " kHz is outside 1MHz..100GHz",
				  m->freq_khz);
	/* The clock under load (all-core turbo) converts every cost given in cycles: the
	 * cores' own work, not the ns figures of transfers and DRAM. */
	if (cfg_get_fixed3(yt_get(root, "costs"), "core_clock", 1000, CORE_CLOCK_MIN_MILLI, CORE_CLOCK_MAX_MILLI,
			   &m->core_clock_milli, e))
		return -1;
	m->base_freq_khz = m->freq_khz;
	m->freq_khz = m->freq_khz * m->core_clock_milli / 1000;
	if (m->freq_khz > MACHINE_MAX_FREQ_KHZ)
		return fs_fail_at(e, &f->mark, "frequency x costs.core_clock: %" PRIu64 " kHz is above 100GHz",
				  m->freq_khz);
	return 0;
}

static int read_mitigations(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const struct yt_node *n = yt_get(root, "mitigations");
	int pti, spv2, thunk;

	if (n && (cfg_expect(n, YT_MAP, "mitigations", e) || cfg_check_keys(n, "mitigations", mitigation_keys, e)))
		return -1;
	if (cfg_get_enum(n, "pti", mitigation_state_names, MIT_UNKNOWN, &pti, e) ||
	    cfg_get_enum(n, "spectre_v2", spectre_v2_mode_names, SPV2_UNKNOWN, &spv2, e) ||
	    cfg_get_enum(n, "return_thunk", mitigation_state_names, MIT_UNKNOWN, &thunk, e))
		return -1;
	m->mitigations = (struct machine_mitigations){ .pti = (enum mitigation_state)pti,
						      .spectre_v2 = (enum spectre_v2_mode)spv2,
						      .return_thunk = (enum mitigation_state)thunk };
	return 0;
}

static int read_distance_entry(const struct yt_node *n, uint32_t from, uint32_t to, uint32_t *out,
			       struct fs_error *e)
{
	char what[48];
	uint64_t d;

	snprintf(what, sizeof(what), "distance[%" PRIu32 "][%" PRIu32 "]", from, to);
	if (cfg_parse_u64(n, what, SLIT_LOCAL, SLIT_MAX, &d, e))
		return -1;
	if (from == to && d != SLIT_LOCAL)
		return fs_fail_at(e, &n->mark,
				  "%s: %" PRIu64 " on the diagonal (a node's distance to itself is 10)",
				  what, d);
	if (from != to && d == SLIT_LOCAL)
		return fs_fail_at(e, &n->mark,
				  "%s: 10 between two nodes (expected more than 10, the local distance)",
				  what);
	*out = (uint32_t)d;
	return 0;
}

static int read_distance_row(const struct yt_node *row, struct machine *m, uint32_t from,
			     struct fs_error *e)
{
	char what[32];

	snprintf(what, sizeof(what), "distance[%" PRIu32 "]", from);
	if (cfg_expect(row, YT_SEQ, what, e))
		return -1;
	if (row->len != m->nodes)
		return fs_fail_at(e, &row->mark,
				  "%s: %zu entries for %" PRIu32 " nodes (expected one per node)", what,
				  row->len, m->nodes);
	for (uint32_t to = 0; to < m->nodes; to++)
		if (read_distance_entry(row->items[to], from, to,
					&m->distance[(uint64_t)from * m->nodes + to], e))
			return -1;
	return 0;
}

/* The SLIT matrix; a one-node machine may leave it out ([[10]]). */
static int read_distance(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const struct yt_node *d = yt_get(root, "distance");

	m->distance = calloc((size_t)m->nodes * m->nodes, sizeof(*m->distance));
	if (!m->distance)
		return out_of_memory(e, "the distance matrix");
	if (!d) {
		if (m->nodes > 1)
			return fs_fail_at(e, &root->mark,
					  "missing key 'distance' in machine (required with more than one node)");
		m->distance[0] = SLIT_LOCAL;
		return 0;
	}
	if (cfg_expect(d, YT_SEQ, "distance", e))
		return -1;
	if (d->len != m->nodes)
		return fs_fail_at(e, &d->mark,
				  "distance: %zu rows for %" PRIu32 " nodes (expected a %" PRIu32 "x%" PRIu32
				  " matrix)",
				  d->len, m->nodes, m->nodes, m->nodes);
	for (uint32_t from = 0; from < m->nodes; from++)
		if (read_distance_row(d->items[from], m, from, e))
			return -1;
	return 0;
}

/* One cost node in ps at the machine's clock, at least `min_ps`. */
static int cost_ps(const struct yt_node *n, const char *what, uint64_t min_ps, uint64_t freq_khz,
		   simtime_t *out, struct fs_error *e)
{
	struct fs_cost c;
	uint64_t ps;

	if (cfg_parse_cost(n, what, &c, e))
		return -1;
	ps = fs_cost_ps(c, freq_khz);
	if (ps < min_ps)
		return fs_fail_at(e, &n->mark, "%s: '%s' is too small (expected more than 0)", what,
				  n->scalar);
	if (ps > MACHINE_MAX_COST_PS)
		return fs_fail_at(e, &n->mark, "%s: '%s' is %" PRIu64 " ps (expected at most 1ms)",
				  what, n->scalar, ps);
	*out = ps;
	return 0;
}

/* costs.KEY, required; `min_ps` is 0 for costs that may be zero. */
static int read_cost(const struct yt_node *costs, const char *key, uint64_t min_ps,
		     uint64_t freq_khz, simtime_t *out, struct fs_error *e)
{
	char what[48];

	snprintf(what, sizeof(what), "costs.%s", key);
	if (cfg_require(costs, key, "costs", e))
		return -1;
	return cost_ps(yt_get(costs, key), what, min_ps, freq_khz, out, e);
}

/* costs.KEY when given, else `dflt` (a cost derived from another key). */
static int read_optional_cost(const struct yt_node *costs, const char *key, simtime_t dflt, uint64_t freq_khz,
			      simtime_t *out, struct fs_error *e)
{
	if (!yt_get(costs, key)) {
		*out = dflt;
		return 0;
	}
	return read_cost(costs, key, 1, freq_khz, out, e);
}

/* The map form {distance: cost}: every off-diagonal distance of the matrix
 * needs an entry; entries for distances the matrix does not use are harmless. */
static int read_distance_cost_map(const struct yt_node *map, const char *what,
				  const struct machine *m, struct distance_costs *out,
				  struct fs_error *e)
{
	char key_what[64], value_what[64];

	snprintf(key_what, sizeof(key_what), "%s distance", what);
	for (size_t i = 0; i < map->len; i++) {
		/* Keys are plain strings in the tree; wrap one in a scalar node so the
		 * integer reader reports errors at the key. */
		const struct yt_node key = {
			.kind = YT_SCALAR, .mark = map->key_marks[i], .scalar = map->keys[i],
		};
		uint64_t d;

		if (cfg_parse_u64(&key, key_what, SLIT_LOCAL + 1, SLIT_MAX, &d, e))
			return -1;
		if (out->given[d])
			return fs_fail_at(e, &key.mark, "%s: distance %" PRIu64 " given twice", what, d);
		snprintf(value_what, sizeof(value_what), "%s[%" PRIu64 "]", what, d);
		if (cost_ps(map->items[i], value_what, 1, m->freq_khz, &out->ps[d], e))
			return -1;
		out->given[d] = true;
	}
	for (uint32_t a = 0; a < m->nodes; a++)
		for (uint32_t b = 0; b < m->nodes; b++)
			if (a != b && !out->given[distance_of(m, a, b)])
				return fs_fail_at(e, &map->mark,
						  "%s: no cost for distance %" PRIu32 " (node%" PRIu32
						  " to node%" PRIu32 "; every distance in the matrix needs one)",
						  what, distance_of(m, a, b), a, b);
	return 0;
}

/* costs.KEY as one cost for every distance or a map {distance: cost}. Required
 * when there is more than one node; unused (and optional) on one node. */
static int read_distance_cost(const struct yt_node *costs, const char *key,
			      const struct machine *m, struct distance_costs *out,
			      struct fs_error *e)
{
	const struct yt_node *n = yt_get(costs, key);
	char what[48];
	simtime_t ps;

	snprintf(what, sizeof(what), "costs.%s", key);
	if (!n)
		return m->nodes > 1 ? cfg_require(costs, key, "costs", e) : 0;
	if (n->kind == YT_MAP)
		return read_distance_cost_map(n, what, m, out, e);
	if (cost_ps(n, what, 1, m->freq_khz, &ps, e))
		return -1;
	for (uint32_t d = SLIT_LOCAL + 1; d <= SLIT_MAX; d++) {
		out->ps[d] = ps;
		out->given[d] = true;
	}
	return 0;
}

static int read_costs(const struct yt_node *root, struct machine *m, struct remote_costs *remote,
		      struct fs_error *e)
{
	const struct yt_node *c;
	const uint64_t f = m->freq_khz;

	if (cfg_require(root, "costs", "machine", e))
		return -1;
	c = yt_get(root, "costs");
	if (cfg_expect(c, YT_MAP, "costs", e) || cfg_check_keys(c, "costs", cost_keys, e))
		return -1;
	/* Hits and the hold window may be 0; moving a line or a syscall may not:
	 * a zero-time handoff would let two CPUs ping-pong without time passing. */
	if (read_cost(c, "line_hit", 0, f, &m->line_hit_ps, e) ||
	    read_cost(c, "atomic_hit", 0, f, &m->atomic_hit_ps, e) ||
	    read_cost(c, "transfer_smt", 1, f, &m->transfer_smt_ps, e) ||
	    read_cost(c, "transfer_node", 1, f, &m->transfer_node_ps, e) ||
	    read_optional_cost(c, "transfer_cluster", m->transfer_node_ps, f, &m->transfer_cluster_ps, e) ||
	    read_distance_cost(c, "transfer_remote", m, &remote->transfer, e) ||
	    read_cost(c, "memory_local", 1, f, &m->memory_local_ps, e) ||
	    read_distance_cost(c, "memory_remote", m, &remote->memory, e) ||
	    read_cost(c, "syscall", 1, f, &m->syscall_ps, e) ||
	    read_cost(c, "line_hold", 0, f, &m->line_hold_ps, e))
		return -1;
	if (yt_get(c, "call_return") && read_cost(c, "call_return", 0, f, &m->call_return_ps, e))
		return -1;
	m->has_key_shared = yt_get(c, "key_shared") != NULL;
	if (m->has_key_shared && cfg_parse_cost(yt_get(c, "key_shared"), "costs.key_shared", &m->key_shared, e))
		return -1;
	if (cfg_require(c, "smt_slowdown", "costs", e) ||
	    cfg_parse_fixed3(yt_get(c, "smt_slowdown"), "costs.smt_slowdown", SMT_SLOWDOWN_NONE_MILLI,
			     SMT_SLOWDOWN_MAX_MILLI, &m->smt_slowdown_milli, e))
		return -1;
	/* optional factors; the default 1.0 leaves the point-to-point figures as they are
	 * (a line moves on as soon as its data has arrived); calibration fits them */
	if (cfg_get_fixed3(c, "transfer_occupancy", 1000, 1000, 10000, &m->transfer_occupancy_milli, e) ||
	    cfg_get_fixed3(c, "transfer_contended", 1000, 1000, 10000, &m->transfer_contended_milli, e) ||
	    cfg_get_fixed3(c, "invalidation", 1000, 1000, 10000, &m->invalidation_milli, e))
		return -1;
	return 0;
}

/* coherence: how the hardware arbitrates a contended line and finds a line in
 * another node's cache (optional map). */
/* sched: without the block, one polling state and the flat costs the model used
 * before it knew idle states [A] (docs/machine.md "Sleeping and waking"). */
#define SCHED_DEFAULT_WAKE_TO_RUN_PS (5 * PS_PER_US)
#define SCHED_DEFAULT_CONTEXT_SWITCH_PS (1500 * PS_PER_US / 1000)

static int read_idle_state(const struct yt_node *n, uint32_t i, struct idle_state *s, struct fs_error *e)
{
	char what[48];
	const char *name;

	snprintf(what, sizeof(what), "sched.idle_states[%u]", i);
	if (cfg_expect(n, YT_MAP, what, e) || cfg_check_keys(n, what, idle_state_keys, e) ||
	    cfg_require(n, "name", what, e) || cfg_require(n, "exit_latency", what, e) ||
	    cfg_require(n, "target_residency", what, e) || cfg_get_string(n, "name", NULL, &name, e) ||
	    cfg_get_duration(n, "exit_latency", 0, 0, PS_PER_S, &s->exit_latency_ps, e) ||
	    cfg_get_duration(n, "target_residency", 0, 0, PS_PER_S, &s->target_residency_ps, e) ||
	    cfg_get_bool(n, "polls", false, &s->polls, e))
		return -1;
	if (name[0] == '\0' || strlen(name) >= sizeof(s->name))
		return fs_fail_at(e, &yt_get(n, "name")->mark, "%s.name: 1 to %u characters", what,
				  IDLE_STATE_NAME_MAX - 1);
	memcpy(s->name, name, strlen(name) + 1);
	return 0;
}

static int read_sched(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const struct yt_node *n = yt_get(root, "sched"), *states;
	struct machine_sched *s = &m->sched;
	int governor;

	*s = (struct machine_sched){ .nidle = 1, .idle[0] = { .name = "POLL", .polls = true } };
	if (n && (cfg_expect(n, YT_MAP, "sched", e) || cfg_check_keys(n, "sched", sched_keys, e)))
		return -1;
	s->given = n != NULL;
	/* haltpoll's window: guest_halt_poll_ns's default, 200 us (Documentation/virt/guest-halt-polling.rst) */
	if (cfg_get_enum(n, "governor", idle_governor_names, IDLE_GOV_MENU, &governor, e) ||
	    cfg_get_duration(n, "halt_poll", 200 * PS_PER_US, 0, PS_PER_S, &s->halt_poll_ps, e) ||
	    cfg_get_duration(n, "wake_up", 0, 0, PS_PER_MS, &s->wake_up_ps, e) ||
	    cfg_get_duration(n, "ipi_send", 0, 0, PS_PER_MS, &s->ipi_send_ps, e) ||
	    cfg_get_duration(n, "ipi", 0, 0, PS_PER_MS, &s->ipi_ps, e) ||
	    cfg_get_duration(n, "thread_exit", 0, 0, PS_PER_MS, &s->thread_exit_ps, e) ||
	    cfg_get_duration(n, "wake_to_run", SCHED_DEFAULT_WAKE_TO_RUN_PS, 0, PS_PER_MS, &s->wake_to_run_ps, e) ||
	    cfg_get_duration(n, "context_switch", SCHED_DEFAULT_CONTEXT_SWITCH_PS, 0, PS_PER_MS,
			     &s->context_switch_ps, e))
		return -1;
	s->governor = (enum idle_governor_kind)governor;
	states = yt_get(n, "idle_states");
	if (!states)
		return 0;
	if (cfg_expect(states, YT_SEQ, "sched.idle_states", e))
		return -1;
	if (states->len < 1 || states->len > MACHINE_MAX_IDLE_STATES)
		return fs_fail_at(e, &states->mark, "sched.idle_states: 1 to %u states", MACHINE_MAX_IDLE_STATES);
	s->nidle = (uint32_t)states->len;
	for (uint32_t i = 0; i < s->nidle; i++) {
		if (read_idle_state(states->items[i], i, &s->idle[i], e))
			return -1;
		/* the governor walks them in this order (models/sched/idle.h) */
		if (i > 0 && (s->idle[i].target_residency_ps < s->idle[i - 1].target_residency_ps ||
			      s->idle[i].exit_latency_ps < s->idle[i - 1].exit_latency_ps))
			return fs_fail_at(e, &states->items[i]->mark,
					  "sched.idle_states[%u] (%s): states go shallowest first, their exit "
					  "latency and target residency never decreasing",
					  i, s->idle[i].name);
	}
	return 0;
}

static int read_coherence(const struct yt_node *root, struct machine *m, struct fs_error *e)
{
	const struct yt_node *c = yt_get(root, "coherence");
	int snoop;

	if (c && (cfg_expect(c, YT_MAP, "coherence", e) || cfg_check_keys(c, "coherence", coherence_keys, e)))
		return -1;
	if (cfg_get_u32(c, "local_handoffs", 0, 0, 64, &m->local_handoffs, e) ||
	    cfg_get_bool(c, "adjacent_line_prefetch", false, &m->adjacent_line_prefetch, e) ||
	    cfg_get_enum(c, "snoop", snoop_names, SNOOP_SOURCE, &snoop, e))
		return -1;
	m->snoop = (enum snoop_mode)snoop;
	if (m->snoop != SNOOP_HOME) {
		const struct yt_node *n = yt_get(c, "directory_cache_lines");

		if (!n)
			n = yt_get(c, "directory_cache_ways");
		if (!n)
			n = yt_get(yt_get(root, "costs"), "directory_read");
		return n ? fs_fail_at(e, &n->mark, "the directory cache and costs.directory_read apply only with "
				      "coherence.snoop: home") : 0;
	}
	if (cfg_require(c, "directory_cache_lines", "coherence", e) ||
	    cfg_require(c, "directory_cache_ways", "coherence", e) ||
	    cfg_get_u32(c, "directory_cache_lines", 0, 1, 1u << 20, &m->directory_cache_lines, e) ||
	    cfg_get_u32(c, "directory_cache_ways", 0, 1, 64, &m->directory_cache_ways, e) ||
	    read_cost(yt_get(root, "costs"), "directory_read", 1, m->freq_khz, &m->directory_read_ps, e))
		return -1;
	if (m->directory_cache_lines % m->directory_cache_ways)
		return fs_fail_at(e, &yt_get(c, "directory_cache_lines")->mark,
				  "coherence.directory_cache_lines (%u) must be a multiple of directory_cache_ways (%u)",
				  m->directory_cache_lines, m->directory_cache_ways);
	return 0;
}

/* ---- precomputed tables --------------------------------------------------- */

static int alloc_tables(struct machine *m, struct fs_error *e)
{
	/* at most 64 x 64 node pairs and 4096 x 64 (CPU, node) pairs: 2 MiB */
	m->cpu_core = calloc(m->ncpus, sizeof(*m->cpu_core));
	m->cpu_node = calloc(m->ncpus, sizeof(*m->cpu_node));
	m->cpu_cluster = calloc(m->ncpus, sizeof(*m->cpu_cluster));
	m->remote_ps = calloc((size_t)m->nodes * m->nodes, sizeof(*m->remote_ps));
	m->mem_ps = calloc((size_t)m->ncpus * m->nodes, sizeof(*m->mem_ps));
	if (!m->cpu_core || !m->cpu_node || !m->cpu_cluster || !m->remote_ps || !m->mem_ps)
		return out_of_memory(e, "its per-CPU tables");
	return 0;
}

static void number_cpus(struct machine *m)
{
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		uint32_t core = m->numbering == NUMBERING_CORES_FIRST ? cpu % m->ncores
								       : cpu / m->threads_per_core;

		m->cpu_core[cpu] = core;
		m->cpu_node[cpu] = core / m->cores_per_node;
		m->cpu_cluster[cpu] = core / m->cores_per_cluster;
	}
}

static void fill_transfers(struct machine *m, const struct distance_costs *remote)
{
	for (uint32_t a = 0; a < m->nodes; a++)
		for (uint32_t b = 0; b < m->nodes; b++)
			m->remote_ps[a * m->nodes + b] = a == b ? 0 : remote->ps[distance_of(m, a, b)];
}

static void fill_memory(struct machine *m, const struct distance_costs *remote)
{
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		for (uint32_t node = 0; node < m->nodes; node++) {
			const uint32_t own = m->cpu_node[cpu];

			m->mem_ps[(uint64_t)cpu * m->nodes + node] =
				node == own ? m->memory_local_ps : remote->ps[distance_of(m, own, node)];
		}
	}
}

static int build_tables(struct machine *m, const struct remote_costs *remote, struct fs_error *e)
{
	if (alloc_tables(m, e))
		return -1;
	number_cpus(m);
	fill_transfers(m, &remote->transfer);
	fill_memory(m, &remote->memory);
	return 0;
}

/* ---- public API ----------------------------------------------------------- */

int machine_from_yaml(struct machine *m, const struct yt_node *root, struct fs_error *e)
{
	struct machine built = { 0 };
	struct remote_costs *remote;

	memset(m, 0, sizeof(*m));
	if (!root)
		return fs_fail(e, FS_ERR_INPUT, "machine: no YAML document");
	if (cfg_expect(root, YT_MAP, "machine", e) || cfg_check_keys(root, "machine", machine_keys, e))
		return -1;
	/* ~5 KiB of per-distance costs: keep them off the stack. */
	remote = calloc(1, sizeof(*remote));
	if (!remote)
		return out_of_memory(e, "its costs");
	if (read_names(root, &built, e) || read_topology(root, &built, e) ||
	    read_frequency(root, &built, e) || read_distance(root, &built, e) ||
	    read_costs(root, &built, remote, e) || read_coherence(root, &built, e) ||
	    read_mitigations(root, &built, e) || read_sched(root, &built, e) ||
	    build_tables(&built, remote, e)) {
		free(remote);
		machine_free(&built);
		return -1;
	}
	free(remote);
	*m = built;
	return 0;
}

void machine_free(struct machine *m)
{
	if (!m)
		return;
	free((char *)m->name);
	free((char *)m->description);
	free(m->distance);
	free(m->cpu_core);
	free(m->cpu_node);
	free(m->cpu_cluster);
	free(m->remote_ps);
	free(m->mem_ps);
	memset(m, 0, sizeof(*m));
}

uint32_t machine_cpu_of(const struct machine *m, uint32_t core, uint32_t smt)
{
	if (m->numbering == NUMBERING_CORES_FIRST)
		return smt * m->ncores + core;
	return core * m->threads_per_core + smt;
}

const char *xfer_class_name(enum xfer_class c)
{
	switch (c) {
	case XFER_SMT:
		return "smt";
	case XFER_NODE:
		return "node";
	case XFER_REMOTE:
		return "remote";
	case XFER_NCLASSES:
		break;
	}
	return "?";
}

/* ---- CPU lists ------------------------------------------------------------ */

/* A CPU list being built: at most one entry per CPU, since duplicates are refused. */
struct cpulist {
	const struct machine *m;
	const char *spec;
	const struct fs_mark *at;
	uint32_t *cpus;
	uint32_t n;
	bool *seen;
};

/* One item of the list, [start, end) of the spec. */
struct cpulist_item {
	const char *start;
	size_t len;
};

static int cpulist_add(struct cpulist *l, uint32_t cpu, struct fs_error *e)
{
	if (l->seen[cpu])
		return fs_fail_at(e, l->at, "CPU list '%s': CPU %" PRIu32 " listed twice", l->spec,
				  cpu);
	l->seen[cpu] = true;
	l->cpus[l->n++] = cpu;
	return 0;
}

static int cpulist_add_node(struct cpulist *l, uint64_t node, struct fs_error *e)
{
	if (node >= l->m->nodes)
		return fs_fail_at(e, l->at,
				  "CPU list '%s': no node %" PRIu64 " (machine '%s' has %" PRIu32
				  " nodes, node0-node%" PRIu32 ")",
				  l->spec, node, l->m->name, l->m->nodes, l->m->nodes - 1);
	/* CPU-number order: under cores-first, the node's cores then their siblings. */
	for (uint32_t cpu = 0; cpu < l->m->ncpus; cpu++)
		if (l->m->cpu_node[cpu] == node && cpulist_add(l, cpu, e))
			return -1;
	return 0;
}

static int cpulist_check_cpu(const struct cpulist *l, uint64_t cpu, struct fs_error *e)
{
	if (cpu < l->m->ncpus)
		return 0;
	if (cpu > UINT32_MAX)
		return fs_fail_at(e, l->at,
				  "CPU list '%s': CPU number out of range (machine '%s' has %" PRIu32
				  " CPUs, 0-%" PRIu32 ")",
				  l->spec, l->m->name, l->m->ncpus, l->m->ncpus - 1);
	return fs_fail_at(e, l->at,
			  "CPU list '%s': CPU %" PRIu64 " out of range (machine '%s' has %" PRIu32
			  " CPUs, 0-%" PRIu32 ")",
			  l->spec, cpu, l->m->name, l->m->ncpus, l->m->ncpus - 1);
}

static int cpulist_add_range(struct cpulist *l, uint64_t lo, uint64_t hi, struct fs_error *e)
{
	if (lo > hi)
		return fs_fail_at(e, l->at,
				  "CPU list '%s': range %" PRIu64 "-%" PRIu64 " runs backwards", l->spec,
				  lo, hi);
	if (cpulist_check_cpu(l, lo, e) || cpulist_check_cpu(l, hi, e))
		return -1;
	for (uint64_t cpu = lo; cpu <= hi; cpu++)
		if (cpulist_add(l, (uint32_t)cpu, e))
			return -1;
	return 0;
}

/* Reads decimal digits at *p into *out; values that do not fit 32 bits are
 * kept as UINT32_MAX + 1 (out of range for any machine). False when no digit. */
static bool read_number(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			v = (uint64_t)UINT32_MAX + 1;
		s++;
	}
	if (s == *p)
		return false;
	*p = s;
	*out = v;
	return true;
}

static int cpulist_bad_item(const struct cpulist *l, struct cpulist_item it, struct fs_error *e)
{
	return fs_fail_at(e, l->at, "CPU list '%s': cannot read '%.*s' (expected all, nodeN, N or N-M)",
			  l->spec, (int)it.len, it.start);
}

static int cpulist_add_item(struct cpulist *l, struct cpulist_item it, struct fs_error *e)
{
	const char *p = it.start, *end = it.start + it.len;
	uint64_t lo, hi;

	if (it.len == 0)
		return fs_fail_at(e, l->at, "CPU list '%s': empty item", l->spec);
	if (it.len == 3 && memcmp(it.start, "all", 3) == 0)
		return fs_fail_at(e, l->at, "CPU list '%s': 'all' must stand alone", l->spec);
	if (it.len > 4 && memcmp(it.start, "node", 4) == 0) {
		p += 4;
		if (!read_number(&p, end, &lo) || p != end)
			return cpulist_bad_item(l, it, e);
		return cpulist_add_node(l, lo, e);
	}
	if (!read_number(&p, end, &lo))
		return cpulist_bad_item(l, it, e);
	hi = lo;
	if (p < end && *p == '-') {
		p++;
		if (!read_number(&p, end, &hi))
			return cpulist_bad_item(l, it, e);
	}
	if (p != end)
		return cpulist_bad_item(l, it, e);
	return cpulist_add_range(l, lo, hi, e);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static struct cpulist_item trimmed(const char *start, const char *end)
{
	while (start < end && is_space(*start))
		start++;
	while (end > start && is_space(end[-1]))
		end--;
	return (struct cpulist_item){ start, (size_t)(end - start) };
}

static int cpulist_add_all_items(struct cpulist *l, struct fs_error *e)
{
	const char *p = l->spec;
	const struct cpulist_item whole = trimmed(p, p + strlen(p));

	if (whole.len == 0)
		return fs_fail_at(e, l->at, "CPU list is empty (expected all, nodeN, N or N-M, ...)");
	if (whole.len == 3 && memcmp(whole.start, "all", 3) == 0) {
		for (uint32_t cpu = 0; cpu < l->m->ncpus; cpu++)
			l->cpus[l->n++] = cpu;
		return 0;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		if (cpulist_add_item(l, trimmed(p, end), e))
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int machine_parse_cpulist(const struct machine *m, const char *spec, const struct fs_mark *at,
			  uint32_t **cpus, uint32_t *ncpus, struct fs_error *e)
{
	struct cpulist l = { .m = m, .spec = spec ? spec : "", .at = at };

	*cpus = NULL;
	*ncpus = 0;
	if (m->ncpus == 0)
		return fs_fail(e, FS_ERR_RUNTIME, "CPU list: the machine has no CPUs");
	l.cpus = malloc((size_t)m->ncpus * sizeof(*l.cpus));
	l.seen = calloc(m->ncpus, sizeof(*l.seen));
	if (!l.cpus || !l.seen) {
		free(l.cpus);
		free(l.seen);
		return out_of_memory(e, "a CPU list");
	}
	if (cpulist_add_all_items(&l, e)) {
		free(l.cpus);
		free(l.seen);
		return -1;
	}
	free(l.seen);
	*cpus = l.cpus;
	*ncpus = l.n;
	return 0;
}

uint64_t machine_bytes(const struct machine *m)
{
	return (uint64_t)m->ncpus * m->nodes * 2 * sizeof(simtime_t);
}
