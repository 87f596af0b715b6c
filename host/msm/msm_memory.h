/*
 * msm_memory.h: what an MSM needs of the memory budget (host/core/memory_budget.h), and the
 * MSM in pieces of its points when the whole does not fit (host/msm/msm_memory.c).
 */
#ifndef HOST_MSM_MSM_MEMORY_H
#define HOST_MSM_MSM_MEMORY_H

#include "host/msm/msm_engine.h"

#include <stddef.h>

/* The peak working memory of the MSM msm_keyed runs for these arguments (checked by
 * check_msm_args): the CPU job (msm_cpu_job.c), the per-call host memory of the OpenCL
 * devices that run on the CPU (a GPU's memory is its own), the CPU's fallback. */
size_t mem_msm_need(hpr_ctx *ctx, const msm_curve_ops *ops, const msm_points *pts, const void *scalars, size_t n,
                    const hpr_msm_opts *opts);

/* An MSM as msm_dispatch runs it (host/msm/msm.c); the budget's pieces go through it too. */
typedef hpr_status (*mem_msm_fn)(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                 const msm_points *pts, const void *scalars, size_t n, void *out,
                                 const hpr_msm_opts *opts);

/* run over the MSM when its need fits the budget; else in pieces of the points (each run
 * through run, the results added: the same point, the same bytes) when a piece of at least
 * 4096 points fits; else HPR_ERR_OUT_OF_MEMORY naming the need and the limit, out untouched.
 * Arguments checked by check_msm_args. */
RT_MUST_CHECK hpr_status mem_msm(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                 const msm_points *pts, const void *scalars, size_t n, void *out,
                                 const hpr_msm_opts *opts, mem_msm_fn run);

/* The CPU job of msm_cpu_job.c for n points (scalars and points: their alignment decides the
 * decoded copies; NULL: the library's aligned buffers); *largest (may be NULL): its largest block. */
size_t msm_mem_cpu_job_bytes(const hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, const void *scalars,
                             size_t n, const hpr_msm_opts *opts, size_t *largest);

/* Host bytes of an MSM of n points on a POCL device: two chunk buffer sets (points, scalars,
 * buckets, partial and window sums) and the points when kept. */
size_t msm_mem_cl_host_bytes(const cl_dev *dev, const msm_curve_ops *ops, size_t n, int kept);

/* The smallest piece mem_msm tries for n points (halving while a half keeps the minimum). */
size_t msm_mem_smallest_piece(size_t n);

#endif
