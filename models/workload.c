#include "models/workload.h"

#include <string.h>

#include "models/workload_hashbench.h"

static const struct workload_type *const types[] = { &workload_hashbench };
static const char *const names[] = { "hash-bench", NULL };

const struct workload_type *workload_find(const char *name)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i]->name, name) == 0)
			return types[i];
	return NULL;
}

const char *const *workload_names(void)
{
	return names;
}
