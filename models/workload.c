#include "models/workload.h"

#include <stdio.h>
#include <string.h>

#include "models/workload_condvar.h"
#include "models/workload_hashbench.h"
#include "models/workload_mutex.h"

static const struct workload_type *const types[] = { &workload_hashbench, &workload_mutex, &workload_condvar };
static const char *const names[] = { "hash-bench", "mutex", "condvar", NULL };

const struct workload_type *workload_find(const char *name)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
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

const char *const *workload_names(void)
{
	return names;
}
