/*
 * rt_mem.h: allocation of the large working arrays of a kernel (decoded points, bucket
 * scratch, NTT columns and twiddles). Blocks of 1 MiB and more are rounded up to 2 MiB
 * multiples, aligned to 2 MiB and marked for transparent huge pages: on this project's
 * machines a page fault of a fresh 4 KiB page costs about as much as the IFMA kernel's work
 * on it (measured: 137 ms of a 2^20-point MSM went to first touches of an 80 MiB array;
 * touching 64 MiB: 176 ms in 4 KiB pages, 27-90 ms in huge pages), and huge pages cut the
 * faults 512-fold. Smaller blocks are aligned to 64 bytes (a cache line, an AVX-512 vector).
 */
#ifndef RUNTIME_BASE_RT_MEM_H
#define RUNTIME_BASE_RT_MEM_H

#include <stddef.h>

/* Like malloc (release with free), aligned to at least 64 bytes; NULL on failure. */
void *rt_alloc_large(size_t bytes);

/* Hands the free pages of the process's heap back to the system (glibc's malloc_trim), where
 * glibc's allocator is the process's malloc; nothing where another one is (a sanitizer's,
 * jemalloc or tcmalloc preloaded): there glibc's malloc_trim, first called from a worker
 * thread, initialises glibc's unused arenas as that thread's, and glibc aborts when it exits
 * ("malloc assertion failure in __malloc_arena_thread_freeres", seen under ThreadSanitizer). */
void rt_release_free_memory(void);

#endif
