/*
 * rt_mem.c: see rt_mem.h.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "rt_mem.h"

#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)
#define LARGE_BLOCK ((size_t)1 << 20)
#define LINE 64

void *rt_alloc_large(size_t bytes)
{
    if (bytes < LARGE_BLOCK)
        return aligned_alloc(LINE, bytes ? (bytes + LINE - 1) & ~(size_t)(LINE - 1) : LINE);
    size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p = aligned_alloc(HUGE_PAGE, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p)
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: without THP the pages stay small */
#endif
    return p;
}
