/*
 * pool_scan.h: the first index of [0, count) that a check rejects, the pieces checked in
 * parallel on the context's thread pool (host/core/pool_scan.c). The input checks of the
 * commit and Poseidon2 (elements >= p, host/commit/merkle.c) and of the NTT (host/ntt/
 * ntt_pipeline.c) share it.
 */
#ifndef HOST_CORE_POOL_SCAN_H
#define HOST_CORE_POOL_SCAN_H

#include "host/core/context.h"

/* The first index in [begin, end) that the check rejects, or end. Called from any worker. */
typedef size_t (*pool_scan_fn)(const void *arg, size_t begin, size_t end);

/* The lowest index rejected by check over [0, count) in pieces of `piece` indices (one pool
 * task each), or count when none is; SIZE_MAX when the per-piece results cannot be allocated. */
size_t pool_first_rejected(hpr_ctx *ctx, size_t count, size_t piece, pool_scan_fn check, const void *arg);

#endif
