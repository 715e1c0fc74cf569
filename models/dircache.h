/* SPDX-License-Identifier: MIT */
/* The directory cache of a home-snoop machine (Intel's HitME on Haswell-EP/EX):
 * each home node keeps a small set-associative cache of the lines recently moved
 * between the caches of two nodes. A cross-node transfer of a line whose entry is
 * missing waits for the home to read the line's directory state from DRAM first
 * (machine.directory_read); the entry is then allocated, evicting the set's least
 * recently used one. So cross-node transfers get dearer once the set of bouncing
 * lines outgrows the cache, and stay at their point-to-point cost below that.
 * Deterministic: sets by line address; each set keeps its tags in order of last
 * use, most recent first, so a lookup reads one set's tags (one host cache line at
 * 8 ways) and the least recently used is the last.
 */
#ifndef FUTEXSIM_DIRCACHE_H
#define FUTEXSIM_DIRCACHE_H

#include <stdbool.h>
#include <stdint.h>

struct dircache {
	uint32_t nodes, sets, ways;
	uint64_t *tag;      /* [node][set][way]: line address / 64 + 1, 0 = empty; a set's
			       in order of last use, most recent first, empty ways last */
	uint64_t misses;    /* since the last dircache_reset_stats */
};

/* `lines` entries per home node in sets of `ways` (lines a multiple of ways, both
 * > 0). -1 when out of memory. */
int dircache_init(struct dircache *d, uint32_t nodes, uint32_t lines, uint32_t ways);
void dircache_free(struct dircache *d);

/* Looks the line at `addr` up in `home`'s cache: true on a hit. A miss is counted
 * and allocates the entry (evicting the set's least recently used). */
bool dircache_lookup(struct dircache *d, uint32_t home, uint64_t addr);

void dircache_reset_stats(struct dircache *d);

/* Bytes the cache of a machine of `nodes` home nodes takes. */
uint64_t dircache_bytes(uint32_t nodes, uint32_t lines);

#endif
