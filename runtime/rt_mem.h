/*
 * rt_mem.h: allocation of the large working arrays of a kernel (decoded points, bucket
 * scratch). Blocks of 8 MiB and more are aligned to 2 MiB and marked for transparent huge
 * pages: on this project's machines a page fault of a fresh 4 KiB page costs about as much
 * as the IFMA kernel's work on it (measured: 137 ms of a 2^20-point MSM went to first
 * touches of an 80 MiB array), and huge pages cut the faults 512-fold.
 */
#ifndef HPR_RT_MEM_H
#define HPR_RT_MEM_H

#include <stddef.h>

/* Like malloc (release with free); NULL on failure. */
void *rt_alloc_large(size_t bytes);

#endif
