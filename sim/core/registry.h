/* SPDX-License-Identifier: MIT */
/* A registry of named variants, as the models keep their hash functions, reference
 * counting modes, spinlocks and workload types: a static array of entries (or of
 * pointers to entries), each with a `const char *` name, selected by name from YAML.
 * One lookup for all of them: find by name, the i-th, the names in order. */
#ifndef FUTEXSIM_REGISTRY_H
#define FUTEXSIM_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

struct registry {
	const void *base;   /* the array */
	size_t n;           /* its entries (without a terminating sentinel) */
	size_t stride;      /* sizeof one element of the array */
	size_t name_offset; /* offsetof the entry's name */
	bool pointers;      /* the array holds pointers to the entries */
};

/* A registry over ARRAY of TYPE (N entries), named by TYPE's member NAME. */
#define REGISTRY(array, n_, type, name)                                                                     \
	((struct registry){ .base = (array), .n = (n_), .stride = sizeof(type), .name_offset = offsetof(type, name), \
			    .pointers = false })
/* The same over an array of N pointers to TYPE. */
#define REGISTRY_OF_POINTERS(array, n_, type, name)                                                          \
	((struct registry){ .base = (array), .n = (n_), .stride = sizeof(const type *),                         \
			    .name_offset = offsetof(type, name), .pointers = true })

/* The entry named `name` (NULL name or none: NULL). */
const void *registry_find(const struct registry *r, const char *name);
/* The i-th entry, NULL past the end. */
const void *registry_at(const struct registry *r, size_t i);
/* The names in order into out (room for r->n + 1), NULL-terminated; returns out. */
const char *const *registry_names(const struct registry *r, const char **out);

#endif
