/* SPDX-License-Identifier: MIT */
#include "models/dircache.h"

#include <stdlib.h>
#include <string.h>

int dircache_init(struct dircache *d, uint32_t nodes, uint32_t lines, uint32_t ways)
{
	size_t n = (size_t)nodes * lines;

	memset(d, 0, sizeof(*d));
	d->nodes = nodes;
	d->ways = ways;
	d->sets = lines / ways;
	d->tag = calloc(n ? n : 1, sizeof(*d->tag));
	d->used = calloc(n ? n : 1, sizeof(*d->used));
	if (!d->tag || !d->used) {
		dircache_free(d);
		return -1;
	}
	return 0;
}

void dircache_free(struct dircache *d)
{
	free(d->tag);
	free(d->used);
	memset(d, 0, sizeof(*d));
}

bool dircache_lookup(struct dircache *d, uint32_t home, uint64_t addr)
{
	uint64_t key = addr / 64 + 1;
	size_t base = ((size_t)home * d->sets + (size_t)(addr / 64 % d->sets)) * d->ways;
	size_t victim = base;

	d->clock++;
	for (size_t i = base; i < base + d->ways; i++) {
		if (d->tag[i] == key) {
			d->used[i] = d->clock;
			return true;
		}
		/* empty ways have used == 0 and go first */
		if (d->used[i] < d->used[victim])
			victim = i;
	}
	d->tag[victim] = key;
	d->used[victim] = d->clock;
	d->misses++;
	return false;
}

void dircache_reset_stats(struct dircache *d)
{
	d->misses = 0;
}

uint64_t dircache_bytes(uint32_t nodes, uint32_t lines)
{
	return (uint64_t)nodes * lines * 2 * sizeof(uint64_t);
}
