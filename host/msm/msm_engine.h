/*
 * msm_engine.h: the MSM below the public entry point (host/msm/msm.c): the curve operation
 * tables (curve_ops.c), the CPU's MSM as a job that a scheduler deals in tiles
 * (msm_cpu_job.c), and the MSM over every usable device (msm_hybrid.c).
 */
#ifndef HOST_MSM_ENGINE_H
#define HOST_MSM_ENGINE_H

#include "host/core/context.h"
#include "kernels_cpu/msm_cpu.h"
#include "runtime/opencl/cl_msm.h"

/* The G1 operation table of a curve, or NULL. */
const msm_curve_ops *msm_g1_ops(hpr_curve curve);
/* The operation table of (curve, group), or NULL when either is not supported. */
const msm_curve_ops *msm_ops(hpr_curve curve, hpr_group group);

/* The message of an invalid point (range or curve) at index, as every device reports it. */
RT_MUST_CHECK hpr_status msm_point_error(hpr_ctx *ctx, const msm_curve_ops *ops, size_t index, msm_point_check kind);

/* HPR_ERR_SCALAR_OUT_OF_RANGE (naming the first) when a scalar of n (canonical bytes) is >= r:
 * checked on the host before a device sees the scalars. */
RT_MUST_CHECK hpr_status msm_check_scalars(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *scalars,
                                           size_t n);

/* The MSM on the CPU thread pool (arguments already checked by the caller; validated: the
 * points were validated before, msm_points.validated). */
RT_MUST_CHECK hpr_status msm_on_cpu(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, int validated,
                                    const void *scalars, size_t n, void *out, const hpr_msm_opts *opts);

/*
 * The CPU's MSM in two steps, so that a scheduler can deal it in tiles: prepare once (scalars
 * checked and sorted, points validated, the window size c chosen, the points in the kernel's
 * form), then run any number of pieces (windows x point ranges) on the pool, one at a time
 * (a piece forms the digits of the windows no piece needed before). Pieces that cover every
 * (window, point) once add up to the MSM.
 */
typedef struct msm_cpu_job msm_cpu_job;

/* Fails like msm_on_cpu on a scalar >= r or an invalid point (the first one named; points
 * the caller validated before, validated 1, are not checked again). The window size is
 * opts->window_bits if set (opts may be NULL), else chosen for the pool. */
RT_MUST_CHECK hpr_status msm_cpu_job_prepare(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points,
                                             int validated, const void *scalars, size_t n,
                                             const hpr_msm_opts *opts, msm_cpu_job **job);
/* The window size msm_cpu_job_prepare chooses for m general scalars on threads workers of
 * tier, without a caller's window_bits (the memory budget's estimate, host/core/memory_budget.c). */
unsigned msm_cpu_window_bits(const msm_curve_ops *ops, rt_cpu_tier tier, size_t m, unsigned threads);
unsigned msm_cpu_job_window_bits(const msm_cpu_job *job);
unsigned msm_cpu_job_windows(const msm_cpu_job *job);
/* result (XYZZ of ops) = sum over windows w in [w0, w1) of 2^(c w) * sum over points i in
 * [p0, p1) of d_w(k_i) * P_i, d_w the Booth digit of window w (msm_impl.h). Contracts
 * (checked in Debug): w0 < w1 <= windows, p0 <= p1 <= n. Fails for memory, or with
 * HPR_ERR_CANCELLED when the call is cancelled (host/core/progress.h: its tiles then do nothing). */
RT_MUST_CHECK hpr_status msm_cpu_job_run(hpr_ctx *ctx, msm_cpu_job *job, unsigned w0, unsigned w1, size_t p0,
                                         size_t p1, void *result);
/* Adds to the call's progress the units of windows [w0, w1) over points [p0, p1) of job that
 * another device computed (msm_cpu_job_run adds its own). Same contracts as msm_cpu_job_run. */
void msm_cpu_job_progress(msm_cpu_job *job, unsigned w0, unsigned w1, size_t p0, size_t p1);
/* The digits of windows [w0, w1) (w0 < w1 <= windows) formed now, in one pass over the
 * scalars, where the job keeps digits (else nothing): a caller that knows which windows its
 * later pieces take forms them at once (each pass reads every scalar: at 2^20 points a pass
 * costs about as much as forming two windows). msm_cpu_job_run forms only those missing. */
void msm_cpu_job_form_digits(msm_cpu_job *job, unsigned w0, unsigned w1);
void msm_cpu_job_free(msm_cpu_job *job);
/* Points [begin, end) of points (interchange form) checked as msm_cpu_job_prepare checks
 * them, on the pool: the first invalid one named by its index. A cluster's ranks each check a
 * share and then prepare with msm_points.validated. */
RT_MUST_CHECK hpr_status msm_cpu_check_points(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points,
                                              size_t begin, size_t end);

/* The MSM over every usable device (hybrid scheduler), points [0, n) of pts. Arguments
 * checked by the caller. */
RT_MUST_CHECK hpr_status msm_hybrid(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                    const msm_points *pts, const unsigned char *scalars, size_t n, unsigned char *out);

/*
 * The hybrid MSM as a grid that can be run in pieces (host/msm/msm_hybrid.c): prepared once (the
 * CPU's job, the devices that take part), then any item ranges [i0, i1) of its windows x
 * blocks grid, each summed over the devices into out (ops->affine_size bytes, the
 * interchange form); ranges that cover [0, items) once add up to the MSM, whatever the split,
 * so several processes can share one grid (host/cluster/cluster_msm.c). c: the window bits (0:
 * chosen here; processes sharing a grid must use the same); devices: 1 for the OpenCL devices
 * that can join (device "all"), 0 for the CPU alone. The grid reads pts and scalars
 * until it is freed. msm_grid_speed: the calibrated items/s of its devices together, 0 when
 * one of them has no figure (G2: always 0).
 */
typedef struct msm_grid msm_grid;
RT_MUST_CHECK hpr_status msm_grid_prepare(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                          const msm_points *pts, const unsigned char *scalars, size_t n, unsigned c,
                                          int devices, msm_grid **out);
size_t msm_grid_items(const msm_grid *g);
/* The items and blocks per window that msm_grid_prepare gives n points at window bits c,
 * without preparing (processes that prepare their grids lazily agree on the items first). */
void msm_grid_shape(const hpr_ctx *ctx, const msm_curve_ops *ops, size_t n, unsigned c, size_t *items,
                    unsigned *blocks);
unsigned msm_grid_blocks(const msm_grid *g);
unsigned msm_grid_window_bits(const msm_grid *g);
double msm_grid_speed(const msm_grid *g);
/* The CPU's digits of the windows of items [i0, i1) formed now (msm_cpu_job_form_digits),
 * for a caller that expects to run those items in several pieces. i0 < i1 <= items. */
void msm_grid_expect(msm_grid *g, size_t i0, size_t i1);
/* Contract (checked by the caller): i0 < i1 <= msm_grid_items(g). */
RT_MUST_CHECK hpr_status msm_grid_run(msm_grid *g, size_t i0, size_t i1, unsigned char *out);
void msm_grid_free(msm_grid *g);
/* out (interchange form) = the sum of ntiles points (ops->affine_size bytes each, the
 * interchange form) in their order: the tiles of a grid added the same way wherever they ran. */
RT_MUST_CHECK hpr_status msm_add_tile_sums(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *results,
                                           size_t ntiles, unsigned char *out);

/* hpr_msm_ex over points [0, n) of pts (host/msm/msm.c), whose key (0: none) lets the OpenCL
 * devices keep them between calls (runtime/opencl/cl_resident.c). */
RT_MUST_CHECK hpr_status msm_keyed(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_points *pts,
                                   const void *scalars, size_t n, void *out, const hpr_msm_opts *opts);
/* msm_keyed with sliced (not NULL) for the table of (curve, group): a copy whose scalar_bits
 * is that of the slices of precomputed bases (host/msm/bases.c), whose scalars are two's
 * complement numbers of scalar_bits + 1 bits (msm_top_digit). */
RT_MUST_CHECK hpr_status msm_keyed_ops(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *sliced,
                                       const msm_points *pts, const void *scalars, size_t n, void *out,
                                       const hpr_msm_opts *opts);

#endif
