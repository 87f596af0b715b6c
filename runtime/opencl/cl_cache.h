/*
 * cl_cache.h: the on-disk cache of OpenCL program binaries.
 *
 * Key: FNV-1a 64 over device name, vendor, driver version, platform version, build options
 * and the hash of the embedded sources; the file is <dir>/cl-<key>.bin. Entry layout:
 *   "HPRCLB01" | key (u64) | payload bytes (u64) | FNV-1a 64 of payload (u64) | payload.
 * A short, oversized or mismatching entry reads as corrupt; the caller rebuilds and rewrites
 * it. Writes go to a temporary file renamed into place, so readers never see half an entry.
 */
#ifndef RUNTIME_OPENCL_CL_CACHE_H
#define RUNTIME_OPENCL_CL_CACHE_H

#include "runtime/base/rt_check.h"

#include <stddef.h>
#include <stdint.h>

uint64_t cl_cache_hash(uint64_t h, const void *data, size_t len);
#define CL_CACHE_HASH_INIT UINT64_C(0xcbf29ce484222325)

typedef enum { CL_CACHE_MISS = 0, CL_CACHE_HIT = 1, CL_CACHE_CORRUPT = 2 } cl_cache_result;

/* Reads the entry for key from dir. On a hit, *payload is malloc'ed (caller frees). */
cl_cache_result cl_cache_load(const char *dir, uint64_t key, unsigned char **payload, size_t *len);

/* Stores payload under key (creating dir). Returns 0, or -1 (the cache is an optimisation:
 * callers go on without it). */
RT_MUST_CHECK int cl_cache_store(const char *dir, uint64_t key, const unsigned char *payload, size_t len);

/* The entry's path (for tests that corrupt it on purpose). */
void cl_cache_path(char *buf, size_t len, const char *dir, uint64_t key);

#endif
