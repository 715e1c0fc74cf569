/* SPDX-License-Identifier: MIT */
#include "sim/core/registry.h"

#include <string.h>

const void *registry_at(const struct registry *r, size_t i)
{
	const char *slot;

	if (i >= r->n)
		return NULL;
	slot = (const char *)r->base + i * r->stride;
	return r->pointers ? *(const void *const *)(const void *)slot : (const void *)slot;
}

static const char *name_of(const struct registry *r, const void *entry)
{
	return *(const char *const *)(const void *)((const char *)entry + r->name_offset);
}

const void *registry_find(const struct registry *r, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < r->n; i++) {
		const void *e = registry_at(r, i);

		if (!strcmp(name_of(r, e), name))
			return e;
	}
	return NULL;
}

const char *const *registry_names(const struct registry *r, const char **out)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		out[i] = name_of(r, registry_at(r, i));
	out[i] = NULL;
	return out;
}
