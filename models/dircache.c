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
	/* aligned so that a set of 8 ways is one host cache line */
	size_t bytes = ((n ? n : 1) * sizeof(*d->tag) + 63) / 64 * 64;
	d->tag = aligned_alloc(64, bytes);
	if (!d->tag)
		return -1;
	memset(d->tag, 0, bytes);
	return 0;
}

void dircache_free(struct dircache *d)
{
	free(d->tag);
	memset(d, 0, sizeof(*d));
}

bool dircache_lookup(struct dircache *d, uint32_t home, uint64_t addr)
{
	uint64_t key = addr / 64 + 1;
	uint64_t *set = d->tag + ((size_t)home * d->sets + (size_t)(addr / 64 % d->sets)) * d->ways;
	uint64_t *way = set, *last = set + d->ways - 1;

	/* found, or the last way: the least recently used, or empty (empty ways are last,
	 * so a miss that passes them moves empties down onto empties: the same set as
	 * stopping at the first; the loop is shorter without that test) */
	while (way < last && *way != key)
		way++;
	bool hit = *way == key;
	/* the entry moves to the front, the more recent ones one way down */
	for (; way > set; way--)
		way[0] = way[-1];
	set[0] = key;
	d->misses += !hit;
	return hit;
}

void dircache_reset_stats(struct dircache *d)
{
	d->misses = 0;
}

uint64_t dircache_bytes(uint32_t nodes, uint32_t lines)
{
	return (uint64_t)nodes * lines * sizeof(uint64_t);
}
