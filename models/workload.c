/* SPDX-License-Identifier: MIT */
#include "models/workload.h"

#include <stdio.h>
#include <string.h>

#include "models/workloads/condvar.h"
#include "models/workloads/hashbench.h"
#include "models/workloads/lockpi.h"
#include "models/workloads/locktorture.h"
#include "models/workloads/mutex.h"
#include "models/workloads/perfwake.h"
#include "models/workloads/schbench.h"
#include "models/workloads/trace.h"
#include "sim/core/registry.h"

static const struct workload_type *const types[] = { &workload_hashbench, &workload_mutex, &workload_condvar,
							 &workload_wake, &workload_wake_parallel, &workload_requeue, &workload_lockpi,
							 &workload_schbench, &workload_locktorture, &workload_trace };
#define NTYPES (sizeof(types) / sizeof(types[0]))
_Static_assert(NTYPES <= WORKLOAD_MAX_TYPES, "raise WORKLOAD_MAX_TYPES");

static const struct registry registry = REGISTRY_OF_POINTERS(types, NTYPES, struct workload_type, name);

const struct workload_type *workload_find(const char *name)
{
	return registry_find(&registry, name);
}

void workload_figure_add(struct workload_figures *f, const char *name, const char *units, double value)
{
	struct workload_figure *w;

	if (f->n == WORKLOAD_MAX_FIGURES)
		return;
	w = &f->v[f->n++];
	snprintf(w->name, sizeof(w->name), "%s", name);
	snprintf(w->units, sizeof(w->units), "%s", units);
	w->value = value;
}

const struct workload_type *workload_at(size_t i)
{
	return registry_at(&registry, i);
}

const char *const *workload_names(const char *out[WORKLOAD_MAX_TYPES + 1])
{
	return registry_names(&registry, out);
}
