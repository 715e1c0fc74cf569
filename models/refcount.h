/* SPDX-License-Identifier: MIT */
/* How a futex op keeps the process-private hash alive while it uses it.
 *
 * A mode is data plus two emitters that add the get and the put to an op's
 * program (models/futex_path.h): nothing (immutable hash), one shared atomic
 * (rcuref: an RMW on the private hash header's `users` field for get and for
 * put), or per-CPU counters (6.17; 6.18 with a cheaper fast path): a read of the
 * mm's futex_ref state, local work, and a plain increment of this CPU's counter.
 * While a resize is in progress (path_builder.ref_atomic), per-CPU modes bump the
 * mm's shared futex_atomic instead: the programs of that window are built apart.
 */
#ifndef FUTEXSIM_REFCOUNT_H
#define FUTEXSIM_REFCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct path_builder;

struct refcount_mode {
	const char *name;         /* as written in YAML */
	const char *description;
	uint32_t get_cycles;      /* default local work of a get [A] */
	uint32_t put_cycles;      /* default local work of a put [A] */
	bool switches_to_atomic;  /* a resize puts it in atomic mode for two grace periods */
	void (*emit_get)(struct path_builder *b);
	void (*emit_put)(struct path_builder *b);
};

/* Room for the names of every mode of the table and a NULL. */
#define REFCOUNT_MAX_MODES 8u
const struct refcount_mode *refcount_mode_find(const char *name);
/* The i-th mode of the table, or NULL past its end. */
const struct refcount_mode *refcount_mode_at(size_t i);
/* The names of every mode, in table order, NULL-terminated, into out; returns out. */
const char *const *refcount_mode_names(const char *out[REFCOUNT_MAX_MODES + 1]);

#endif
