/*
 * rt_mem.c: see rt_mem.h.
 */
#define _DEFAULT_SOURCE /* madvise */
#define _GNU_SOURCE     /* RTLD_DEFAULT, RTLD_NOLOAD */
#include "rt_mem.h"

#include <stdlib.h>

#if defined(__GLIBC__)
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#endif

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

#if defined(__GLIBC__)
static int glibc_malloc_in_use;
static pthread_once_t malloc_probe = PTHREAD_ONCE_INIT;

/* Whether the malloc the process resolves is libc.so.6's own. */
static void probe_malloc(void)
{
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (!libc)
        return;
    void *own = dlsym(libc, "malloc"), *used = dlsym(RTLD_DEFAULT, "malloc");
    glibc_malloc_in_use = own && own == used;
    dlclose(libc);
}
#endif

void rt_release_free_memory(void)
{
#if defined(__GLIBC__)
    if (pthread_once(&malloc_probe, probe_malloc) == 0 && glibc_malloc_in_use)
        (void)malloc_trim(0);
#endif
}
