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

static const struct workload_type *const types[] = { &workload_hashbench, &workload_mutex, &workload_condvar,
							 &workload_wake, &workload_wake_parallel, &workload_requeue, &workload_lockpi,
							 &workload_schbench, &workload_locktorture };
#define NTYPES (sizeof(types) / sizeof(types[0]))
_Static_assert(NTYPES <= WORKLOAD_MAX_TYPES, "raise WORKLOAD_MAX_TYPES");

const struct workload_type *workload_find(const char *name)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (strcmp(types[i]->name, name) == 0)
			return types[i];
	return NULL;
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
	return i < NTYPES ? types[i] : NULL;
}

const char *const *workload_names(const char *out[WORKLOAD_MAX_TYPES + 1])
{
	size_t i;

	for (i = 0; i < NTYPES; i++)
		out[i] = types[i]->name;
	out[i] = NULL;
	return out;
}
