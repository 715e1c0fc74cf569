/* SPDX-License-Identifier: MIT */
#include "models/kernel.h"

#include <string.h>


const char *const kernel_cost_names[] = {
	"key_private", "key_shared", "hash_global", "hash_private",
	"wait_setup", "uval_read", "ref_get", "ref_put", "lock_slowpath", "find_vma", "chain_entry",
	"schedule", "rtlock_fast", "rtlock_slowpath", "pi_state", "node_select_div", "node_select_mulshift", NULL,
};
/* Defaults of local-work costs, all assumptions [A] until calibrated (docs/kernel.md).
 * Hash and refcount costs default to the chosen function's and mode's own figures. */
static const uint32_t default_cost_cycles[KC_NCOSTS] = {
	[KC_KEY_PRIVATE] = 20,  /* a few checks and stores into the key */
	[KC_KEY_SHARED] = 250,  /* get_user_pages_fast walk and folio checks */
	[KC_WAIT_SETUP] = 40,   /* futex_q setup, calls around the bucket lock */
	[KC_UVAL_READ] = 30,    /* STAC/CLAC and the exception-table-safe load */
	[KC_LOCK_SLOWPATH] = 30, /* per-CPU node index, init, encode the tail, barriers */
	[KC_FIND_VMA] = 60,      /* the mmap_cache check, or a short walk of the VMA rbtree */
	[KC_CHAIN_ENTRY] = 15,   /* futex_match: compare a queued key with ours, follow the list */
	[KC_SCHEDULE] = 2000,    /* schedule() away from a waiter to idle, with mitigations (~1 us) */
	[KC_RTLOCK_FAST] = 20,   /* rcu_read_lock() and migrate_disable() around the lock, their undo at unlock */
	[KC_RTLOCK_SLOWPATH] = 300, /* irq-off wait_lock section, waiter init and rbtree insert, state changes */
	[KC_PI_STATE] = 600,     /* attach_to_pi_owner/state and task_blocks_on_rt_mutex's PI chain walk, or
				    wake_futex_pi's owner update and mark_wakeup_next_waiter */
	/* nr_node_ids is a run-time value, so `% nr_node_ids` is a 32-bit DIV on the path to
	 * the bucket's address: its latency, 20-28 cycles on Sandy Bridge and 26 on Skylake in
	 * Agner Fog's instruction tables (https://www.agner.org/optimize/instruction_tables.pdf;
	 * figures as recalled, not rechecked here), less on Ice Lake and Zen 3 */
	[KC_NODE_SELECT_DIV] = 26,
	[KC_NODE_SELECT_MULSHIFT] = 4, /* a 64-bit multiply (3 cycles on these cores) and a shift */
};

uint32_t roundup_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p > UINT32_MAX ? 0 : (uint32_t)p;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

uint32_t kernel_global_buckets(const struct kernel_design *k, uint32_t ncpus, uint32_t ntables)
{
	uint64_t want;

	if (k->global.buckets)
		return k->global.buckets;
	want = (uint64_t)k->global.buckets_per_cpu * ncpus / (ntables ? ntables : 1);
	if (want < k->global.min_buckets)
		want = k->global.min_buckets;
	return roundup_pow2(want);
}

uint32_t kernel_private_buckets(const struct kernel_design *k, uint32_t threads, uint32_t ncpus,
				uint32_t node_table)
{
	uint64_t want, max;

	if (!k->private_hash.enabled || k->private_hash.buckets == 0)
		return 0;
	if (k->private_hash.buckets > 0)
		return (uint32_t)k->private_hash.buckets;
	want = roundup_pow2((uint64_t)k->private_hash.per_thread * (threads < ncpus ? threads : ncpus));
	max = k->private_hash.max_buckets ? k->private_hash.max_buckets : node_table;
	if (want < k->private_hash.min_buckets)
		want = k->private_hash.min_buckets;
	if (want > max)
		want = max;
	return (uint32_t)want;
}

/* Whether `n` is the plain (unquoted) word `word`, such as auto or none. */
static bool is_word(const struct yt_node *n, const char *word)
{
	return n->kind == YT_SCALAR && !n->quoted && strcmp(n->scalar, word) == 0;
}

/* "auto" -> *out = auto_value; otherwise a power of two in [min, max] (or 0 when allow_zero). */
static int parse_buckets(const struct yt_node *map, const char *key, int64_t dflt, int64_t auto_value,
			 uint64_t min, bool allow_zero, int64_t *out, struct fs_error *e)
{
	const struct yt_node *n = yt_get(map, key);
	uint64_t v;

	*out = dflt;
	if (!n)
		return 0;
	if (is_word(n, "auto")) {
		*out = auto_value;
		return 0;
	}
	if (cfg_parse_u64(n, key, 0, UINT32_C(1) << 30, &v, e) < 0)
		return -1;
	if (v == 0 && allow_zero) {
		*out = 0;
		return 0;
	}
	if (v < min || !is_pow2(v))
		return fs_fail_at(e, &n->mark, "%s: %llu is not a power of two >= %llu%s", key,
				  (unsigned long long)v, (unsigned long long)min,
				  allow_zero ? " (or 0 for the global hash, or auto)" : " (or auto)");
	*out = (int64_t)v;
	return 0;
}

static int parse_hashfn(const struct yt_node *map, const char *key, const struct hashfn **out,
			struct fs_error *e)
{
	const char *names[HASHFN_MAX + 1];
	int idx;

	if (cfg_get_enum(map, key, hashfn_names(names), -1, &idx, e) < 0)
		return -1;
	*out = idx >= 0 ? hashfn_at((size_t)idx) : hashfn_find("jhash2");
	return 0;
}

static int parse_global(struct kernel_design *k, const struct yt_node *n, struct fs_error *e)
{
	static const char *const keys[] = { "per_node", "buckets", "buckets_per_cpu", "min_buckets",
					     "hash", "placement", "node_select", NULL };
	static const char *const placements[] = { "node", "interleave", NULL };
	static const char *const selects[] = { "hash", "memory", "mulshift", NULL }; /* enum node_select */
	int64_t buckets;
	int placement;

	if (n && (cfg_expect(n, YT_MAP, "global_hash", e) < 0 ||
		  cfg_check_keys(n, "global_hash", keys, e) < 0))
		return -1;
	/* defaults: 6.16+ futex_init(), roundup_pow_of_two(max(4, 256 x CPUs / nodes)) per
	 * node (futex_init(), futex_hash_allocate_default() in kernel/futex/core.c) */
	if (cfg_get_bool(n, "per_node", true, &k->global.per_node, e) < 0 ||
	    parse_buckets(n, "buckets", 0, 0, 1, false, &buckets, e) < 0 ||
	    cfg_get_u32(n, "buckets_per_cpu", 256, 1, 1u << 20, &k->global.buckets_per_cpu, e) < 0 ||
	    cfg_get_u32(n, "min_buckets", 4, 1, 1u << 30, &k->global.min_buckets, e) < 0 ||
	    parse_hashfn(n, "hash", &k->global.hash, e) < 0 ||
	    cfg_get_enum(n, "placement", placements, 0, &placement, e) < 0 ||
	    cfg_get_enum(n, "node_select", selects, NODE_SELECT_HASH, &k->global.node_select, e) < 0)
		return -1;
	k->global.buckets = (uint32_t)buckets;
	k->global.interleave = placement == 1;
	return 0;
}

static int parse_private(struct kernel_design *k, const struct yt_node *n, struct fs_error *e)
{
	static const char *const keys[] = { "enabled", "buckets", "per_thread", "min_buckets",
					    "max_buckets", "hash", "key", "refcount", NULL };
	static const char *const scopes[] = { "full", "address", NULL };
	int scope;
	const struct yt_node *max = yt_get(n, "max_buckets");
	const char *modes[REFCOUNT_MAX_MODES + 1];
	int refcount;

	if (n && (cfg_expect(n, YT_MAP, "private_hash", e) < 0 ||
		  cfg_check_keys(n, "private_hash", keys, e) < 0))
		return -1;
	/* defaults: 6.16+, roundup_pow_of_two(4 x min(threads, CPUs)) clamped to [16, one
	 * node's table] (futex_init(), futex_hash_allocate_default() in kernel/futex/core.c) */
	if (cfg_get_bool(n, "enabled", false, &k->private_hash.enabled, e) < 0 ||
	    parse_buckets(n, "buckets", -1, -1, 2, true, &k->private_hash.buckets, e) < 0 ||
	    cfg_get_u32(n, "per_thread", 4, 1, 1u << 16, &k->private_hash.per_thread, e) < 0 ||
	    cfg_get_u32(n, "min_buckets", 16, 1, 1u << 30, &k->private_hash.min_buckets, e) < 0 ||
	    parse_hashfn(n, "hash", &k->private_hash.hash, e) < 0 ||
	    cfg_get_enum(n, "key", scopes, KEY_SCOPE_ADDRESS, &scope, e) < 0 ||
	    cfg_get_enum(n, "refcount", refcount_mode_names(modes), 0, &refcount, e) < 0)
		return -1;
	k->private_hash.refcount = refcount_mode_at((size_t)refcount);
	k->private_hash.key = (enum key_scope)scope;
	k->private_hash.max_buckets = 0;
	if (max && !is_word(max, "node-table")) {
		uint64_t v;

		if (cfg_parse_u64(max, "max_buckets", 1, UINT32_C(1) << 30, &v, e) < 0)
			return -1;
		if (!is_pow2(v))
			return fs_fail_at(e, &max->mark, "max_buckets: %llu is not a power of two (or node-table)",
					  (unsigned long long)v);
		k->private_hash.max_buckets = (uint32_t)v;
	}
	return 0;
}

/* {size, align, fields: {name: offset}} with `names` the valid field names; size at
 * least min_size (0: an object that may be absent, which then has no fields). */
static int parse_layout(struct object_layout *o, const struct yt_node *n, const char *what,
			const char *const names[], uint32_t min_size, struct fs_error *e)
{
	static const char *const keys[] = { "size", "align", "fields", NULL };
	const struct yt_node *fields;

	if (!n)
		return 0;
	if (cfg_expect(n, YT_MAP, what, e) < 0 || cfg_check_keys(n, what, keys, e) < 0 ||
	    cfg_get_u32(n, "size", o->size, min_size, 1u << 20, &o->size, e) < 0 ||
	    cfg_get_u32(n, "align", o->align, 1, 1u << 20, &o->align, e) < 0)
		return -1;
	if (!is_pow2(o->align))
		return fs_fail_at(e, &yt_get(n, "align")->mark, "%s.align: %u is not a power of two", what,
				  o->align);
	fields = yt_get(n, "fields");
	if (fields &&
	    (cfg_expect(fields, YT_MAP, "fields", e) < 0 || cfg_check_keys(fields, "fields", names, e) < 0))
		return -1;
	for (unsigned i = 0; fields && names[i]; i++) {
		const struct yt_node *f = yt_get(fields, names[i]);
		uint64_t off;

		if (!f)
			continue;
		if (is_word(f, "none")) {
			o->off[i] = LAYOUT_ABSENT;
			continue;
		}
		if (cfg_parse_u64(f, names[i], 0, o->size - 1, &off, e) < 0)
			return -1;
		o->off[i] = (int32_t)off;
	}
	if (o->size > 0)
		return 0;
	/* none of its own, and none inherited */
	for (unsigned i = 0; names[i]; i++)
		if (o->off[i] != LAYOUT_ABSENT)
			return fs_fail_at(e, &n->mark, "%s: an object of size 0 has no fields, but %s is at %d", what,
					  names[i], o->off[i]);
	return 0;
}

static int parse_layouts(struct kernel_design *k, const struct yt_node *n, struct fs_error *e)
{
	static const char *const keys[] = { "bucket", "private_hash_header", "mm", NULL };

	if (!n)
		return 0;
	if (cfg_expect(n, YT_MAP, "layout", e) < 0 || cfg_check_keys(n, "layout", keys, e) < 0)
		return -1;
	/* a private hash without a header (size 0) is a bare bucket array of its own */
	return parse_layout(&k->bucket, yt_get(n, "bucket"), "bucket", bucket_field_names, 1, e) < 0 ||
			       parse_layout(&k->phash_header, yt_get(n, "private_hash_header"),
					    "private_hash_header", phash_field_names, 0, e) < 0 ||
			       parse_layout(&k->mm, yt_get(n, "mm"), "mm", mm_field_names, 1, e) < 0
		       ? -1
		       : 0;
}

/* The cost of one hash with `fn`: hash_costs.NAME if given, else the function's own default. */
static int hash_cost(const struct yt_node *hash_costs, const struct hashfn *fn, struct fs_cost *out,
		     struct fs_error *e)
{
	return cfg_get_cost(hash_costs, fn->name, fs_cost_of_cycles(fn->cost_cycles), out, e);
}

static int parse_costs(struct kernel_design *k, const struct yt_node *n, const struct yt_node *hash_costs,
		       struct fs_error *e)
{
	const char *names[HASHFN_MAX + 1];

	if (n && (cfg_expect(n, YT_MAP, "costs", e) < 0 ||
		  cfg_check_keys(n, "costs", kernel_cost_names, e) < 0))
		return -1;
	if (hash_costs && (cfg_expect(hash_costs, YT_MAP, "hash_costs", e) < 0 ||
			   cfg_check_keys(hash_costs, "hash_costs", hashfn_names(names), e) < 0))
		return -1;
	if (hash_cost(hash_costs, k->global.hash, &k->costs[KC_HASH_GLOBAL], e) < 0 ||
	    hash_cost(hash_costs, k->private_hash.hash, &k->costs[KC_HASH_PRIVATE], e) < 0)
		return -1;
	k->costs[KC_REF_GET] = fs_cost_of_cycles(k->private_hash.refcount->get_cycles);
	k->costs[KC_REF_PUT] = fs_cost_of_cycles(k->private_hash.refcount->put_cycles);
	for (unsigned i = 0; i < KC_NCOSTS; i++) {
		if (default_cost_cycles[i])
			k->costs[i] = fs_cost_of_cycles(default_cost_cycles[i]);
		if (cfg_get_cost(n, kernel_cost_names[i], k->costs[i], &k->costs[i], e) < 0)
			return -1;
	}
	return 0;
}

static int parse_paths(struct kernel_design *k, const struct yt_node *n, struct fs_error *e)
{
	if (cfg_expect(n, YT_MAP, "path", e) < 0 || cfg_check_keys(n, "path", futex_op_kind_names, e) < 0)
		return -1;
	for (unsigned op = 0; op < FOP_NKINDS; op++) {
		const struct yt_node *list = yt_get(n, futex_op_kind_names[op]);
		struct kernel_path *p = &k->paths[op];

		if (!list && futex_step_default_path(op)) {
			*p = *futex_step_default_path(op);
			continue;
		}
		if (!list)
			return fs_fail_at(e, &n->mark, "path: missing '%s' (a list of steps)",
					  futex_op_kind_names[op]);
		if (cfg_expect(list, YT_SEQ, futex_op_kind_names[op], e) < 0)
			return -1;
		if (list->len > KERNEL_MAX_STEPS)
			return fs_fail_at(e, &list->mark, "%s: %zu steps, at most %u", futex_op_kind_names[op],
					  list->len, KERNEL_MAX_STEPS);
		p->nsteps = 0;
		for (size_t i = 0; i < list->len; i++) {
			int step;

			if (cfg_parse_enum(list->items[i], "step", futex_step_names, &step, e) < 0)
				return -1;
			p->steps[p->nsteps++] = (uint8_t)step;
		}
	}
	return 0;
}

static void set_defaults(struct kernel_design *k)
{
	/* 6.16-6.18: {waiters, lock, chain, priv} in one 64-byte line (struct futex_hash_bucket, kernel/futex/futex.h) */
	static const struct object_layout bucket = { 64, 64, { 0, 4, 8, 24, -1, -1, -1, -1 } };
	/* struct futex_private_hash starts {users, hash_mask} */
	static const struct object_layout header = { 64, 64, { 0, 4, -1, -1, -1, -1, -1, -1 } };
	/* [A] each hot mm_struct field on its own line, in enum mm_field order */
	static const struct object_layout mm = { 1024, 64, { 0, 128, 640, 704, 192, 768, -1, -1 } };

	memset(k, 0, sizeof(*k));
	k->bucket = bucket;
	k->phash_header = header;
	k->mm = mm;
}

/* `spinlock`: the bucket lock's variant by name (after preempt_rt, which replaces it). */
static int parse_spinlock(struct kernel_design *k, const struct yt_node *root, struct fs_error *e)
{
	const char *names[SPIN_MAX_VARIANTS + 1];
	int idx;

	if (cfg_get_enum(root, "spinlock", spin_variant_names(names), 0, &idx, e) < 0)
		return -1;
	k->spinlock = &spin_variants[idx];
	if (k->preempt_rt && idx != 0)
		return fs_fail_at(e, &yt_get(root, "spinlock")->mark,
				  "spinlock: %s has no effect with preempt_rt: true (the bucket lock is then an rtlock)",
				  k->spinlock->name);
	return 0;
}

/* The keys that were the kernel's before sleeping and waking became the machine's. */
static int moved_key(const struct yt_node *root, struct fs_error *e)
{
	static const char *const moved[][2] = { { "wakeup_latency", "sched.wake_to_run (and its idle states, ipi)" },
						{ "context_switch", "sched.context_switch" } };

	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		const struct yt_node *n = yt_get(root, moved[i][0]);

		if (n)
			return fs_fail_at(e, &n->mark,
					  "kernel.%s: a property of the machine now: set the machine's %s "
					  "(docs/machine.md)",
					  moved[i][0], moved[i][1]);
	}
	return 0;
}

/* scheduler: the fair class's policy and its parameters (docs/kernel.md). */
static int parse_scheduler(struct kernel_design *k, const struct yt_node *n, struct fs_error *e)
{
	static const char *const keys[] = { "policy", "base_slice", "hz", "run_to_parity", "delay_dequeue", NULL };
	struct fair_params *p = &k->scheduler;
	uint32_t hz;
	int policy;

	if (n && (cfg_expect(n, YT_MAP, "scheduler", e) < 0 || cfg_check_keys(n, "scheduler", keys, e) < 0))
		return -1;
	/* defaults: 6.12+'s EEVDF (kernel/sched/fair.c, features.h): base slice 0.75 ms,
	 * RUN_TO_PARITY and DELAY_DEQUEUE on; HZ 250, Debian's CONFIG_HZ [A for others] */
	if (cfg_get_enum(n, "policy", fair_policy_names, FAIR_EEVDF, &policy, e) < 0 ||
	    cfg_get_duration(n, "base_slice", 750 * PS_PER_US, 1, PS_PER_S, &p->slice, e) < 0 ||
	    cfg_get_u32(n, "hz", 250, 24, 10000, &hz, e) < 0 ||
	    cfg_get_bool(n, "run_to_parity", true, &p->run_to_parity, e) < 0 ||
	    cfg_get_bool(n, "delay_dequeue", true, &p->delay_dequeue, e) < 0)
		return -1;
	p->policy = (enum fair_policy_kind)policy;
	p->tick = PS_PER_S / hz;
	return 0;
}

struct fair_params kernel_scheduler(const struct kernel_design *k, uint32_t ncpus)
{
	struct fair_params p = k->scheduler;

	p.slice = k->timeslice_ps ? k->timeslice_ps : fair_base_slice(k->scheduler.slice, ncpus);
	return p;
}

int kernel_from_yaml(struct kernel_design *k, const struct yt_node *root, struct fs_error *e)
{
	static const char *const keys[] = { "name", "description", "global_hash", "private_hash",
					    "key_order", "layout", "costs", "hash_costs", "rcu_grace_period",
					    "scheduler", "timeslice", "private_flag", "preempt_rt", "spinlock",
					    "path", NULL };
	static const char *const orders[] = { "ptr-first", "word-first", NULL };
	int order;

	set_defaults(k);
	if (root && root->kind == YT_MAP && moved_key(root, e) < 0)
		return -1;
	if (cfg_expect(root, YT_MAP, "kernel", e) < 0 || cfg_check_keys(root, "kernel", keys, e) < 0 ||
	    cfg_require(root, "name", "kernel", e) < 0 || cfg_require(root, "path", "kernel", e) < 0 ||
	    cfg_get_string(root, "name", "", &k->name, e) < 0 ||
	    cfg_get_string(root, "description", "", &k->description, e) < 0 ||
	    parse_global(k, yt_get(root, "global_hash"), e) < 0 ||
	    parse_private(k, yt_get(root, "private_hash"), e) < 0 ||
	    cfg_get_enum(root, "key_order", orders, KEY_ORDER_PTR_FIRST, &order, e) < 0 ||
	    /* [A]: with busy CPUs and HZ=250..1000 a grace period takes a few ms */
	    cfg_get_duration(root, "rcu_grace_period", 2 * PS_PER_MS, 1, PS_PER_S, &k->rcu_grace_period_ps, e) < 0 ||
	    /* given (> 0): the slice itself, for what-if runs and tests; 0: the scheduler's */
	    cfg_get_duration(root, "timeslice", 0, 0, PS_PER_S, &k->timeslice_ps, e) < 0 ||
	    parse_scheduler(k, yt_get(root, "scheduler"), e) < 0 ||
	    cfg_get_bool(root, "private_flag", true, &k->private_flag, e) < 0 ||
	    cfg_get_bool(root, "preempt_rt", false, &k->preempt_rt, e) < 0 || parse_spinlock(k, root, e) < 0 ||
	    parse_layouts(k, yt_get(root, "layout"), e) < 0 ||
	    parse_costs(k, yt_get(root, "costs"), yt_get(root, "hash_costs"), e) < 0 || parse_paths(k, yt_get(root, "path"), e) < 0)
		return -1;
	k->key_order = (enum key_order)order;
	return 0;
}
