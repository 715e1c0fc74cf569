/* SPDX-License-Identifier: MIT */
#include "sim/core/hugemem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *huge_alloc(size_t align, size_t size)
{
	void *p = NULL;

	if (size < HUGE_PAGE)
		return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) ? NULL : p;
	size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (posix_memalign(&p, HUGE_PAGE, size))
		return NULL;
	/* advice only: without THP the array still works on 4 KiB pages */
	(void)madvise(p, size, MADV_HUGEPAGE);
	return p;
}

void *huge_realloc(void *old, size_t used, size_t align, size_t size)
{
	void *p = huge_alloc(align, size);

	if (p && old)
		memcpy(p, old, used < size ? used : size);
	if (p)
		free(old);
	return p;
}
