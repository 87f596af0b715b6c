/*
 * ntt_memory.h: what an NTT or LDE needs of the memory budget (host/core/memory_budget.h),
 * host/ntt/ntt_memory.c.
 */
#ifndef HOST_NTT_NTT_MEMORY_H
#define HOST_NTT_NTT_MEMORY_H

#include "host/ntt/ntt_internal.h"

#include <stddef.h>

/* An NTT of columns x n elements (ops: its field on ctx's tier): the work copy when copy, the
 * scan's first-bad slots, the twiddle table (the tier's own too), and the copies of dev
 * ("cl:P.D") or of "all" (all: the devices that join), with POCL's buffers. */
size_t ntt_mem_bytes(hpr_ctx *ctx, const ntt_field_ops *ops, size_t n, size_t columns, int copy, cl_dev *dev, int all);

/* The peak working memory of the transform of pl (make_plan's, lde_log_rate set for an LDE):
 * a canonical hpr_ntt's work copy, the twiddle tables, a device's copies. */
size_t mem_ntt_need(hpr_ctx *ctx, const ntt_plan *pl);
/* HPR_OK when mem_ntt_need fits, else HPR_ERR_OUT_OF_MEMORY naming need and limit. */
RT_MUST_CHECK hpr_status mem_ntt_check(hpr_ctx *ctx, const ntt_plan *pl);

#endif
