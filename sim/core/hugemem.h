/* SPDX-License-Identifier: MIT */
/* Large arrays the simulator's hot path reads at random (cache-line states,
 * spinlocks, per-futex targets): allocated 2 MiB-aligned and marked for
 * transparent huge pages, so that random accesses over tens of MiB do not also
 * miss the host's TLB. Falls back to ordinary pages where THP is unavailable. */
#ifndef FUTEXSIM_HUGEMEM_H
#define FUTEXSIM_HUGEMEM_H

#include <stddef.h>

/* `size` bytes aligned to `align` (a power of two, at most 2 MiB); NULL when out
 * of memory. Free with free(). */
void *huge_alloc(size_t align, size_t size);

/* Grows an array allocated with huge_alloc to `size` bytes, keeping `used` bytes. */
void *huge_realloc(void *old, size_t used, size_t align, size_t size);

#endif
