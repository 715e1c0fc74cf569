/* SPDX-License-Identifier: MIT */
/* Saturating arithmetic for memory estimates: sizes that would overflow 64
 * bits stay at UINT64_MAX (and so exceed any limit) instead of wrapping. Each
 * model's estimate of what it will allocate (coh_bytes, memmap_bytes, ...)
 * lives beside its allocator and is built from these.
 */
#ifndef FUTEXSIM_BYTES_H
#define FUTEXSIM_BYTES_H

#include <stdint.h>

static inline uint64_t bytes_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t bytes_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The capacity an array that doubles from `first` reaches to hold n. */
static inline uint64_t bytes_doubled(uint64_t n, uint64_t first)
{
	uint64_t cap = first;

	while (cap < n && cap < (UINT64_MAX >> 1))
		cap <<= 1;
	return cap;
}

#endif
