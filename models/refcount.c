/* SPDX-License-Identifier: MIT */
#include "models/refcount.h"

#include <string.h>

#include "models/futex_path.h"
#include "sim/core/registry.h"

static void emit_nothing(struct path_builder *b)
{
	(void)b;
}

/* rcuref: one atomic on the header's users field, shared by every thread. */
static void emit_rcuref(struct path_builder *b)
{
	path_emit_access(b, ACCESS_RMW, OPND_LINE, b->phash_lines[PHF_USERS]);
}

/* per-CPU: read the mode (mm->futex_ref, read-mostly) then bump this CPU's counter;
 * in atomic mode (a resize in progress) the shared mm->futex_atomic instead. */
static void emit_percpu(struct path_builder *b, enum kernel_cost cost)
{
	path_emit_access(b, ACCESS_READ, OPND_LINE, b->mm_lines[MMF_FUTEX_REF]);
	path_emit_work(b, b->costs_ps[cost]);
	if (b->ref_atomic)
		path_emit_access(b, ACCESS_RMW, OPND_LINE, b->mm_lines[MMF_FUTEX_ATOMIC]);
	else
		path_emit_access(b, ACCESS_WRITE, OPND_LINE, b->percpu_ref_line);
}

static void emit_percpu_get(struct path_builder *b)
{
	emit_percpu(b, KC_REF_GET);
}

static void emit_percpu_put(struct path_builder *b)
{
	emit_percpu(b, KC_REF_PUT);
}

/* Local-work cycles are assumptions [A] (docs/kernel.md): an RCU read-side section
 * plus an acquire load and a this_cpu op for 6.17; 6.18 replaced the RCU section by
 * preempt-disable and the acquire by a plain load. */
static const struct refcount_mode modes[] = {
	{ "none", "no reference counting (an immutable private hash)", 0, 0, false, emit_nothing, emit_nothing },
	{ "rcuref", "6.16 development: one atomic counter, get and put per op", 0, 0, false, emit_rcuref,
	  emit_rcuref },
	{ "percpu-6.17", "6.17: per-CPU counters while the hash is live", 24, 24, true, emit_percpu_get,
	  emit_percpu_put },
	{ "percpu-6.18", "6.18: per-CPU counters with the cheaper fast path", 12, 12, true, emit_percpu_get,
	  emit_percpu_put },
};

#define NMODES (sizeof(modes) / sizeof(modes[0]))
_Static_assert(NMODES <= REFCOUNT_MAX_MODES, "raise REFCOUNT_MAX_MODES");

static const struct registry registry = REGISTRY(modes, NMODES, struct refcount_mode, name);

const struct refcount_mode *refcount_mode_find(const char *name)
{
	return registry_find(&registry, name);
}

const struct refcount_mode *refcount_mode_at(size_t i)
{
	return registry_at(&registry, i);
}

const char *const *refcount_mode_names(const char *out[REFCOUNT_MAX_MODES + 1])
{
	return registry_names(&registry, out);
}
