/*
 * msm.c: hpr_msm and hpr_msm_ex, the multi-scalar multiplication entry points: the arguments
 * checked, the device chosen ("cpu", "cl:P.D", or "all" through the hybrid scheduler,
 * msm_hybrid.c), and a failing OpenCL device's MSM redone on the CPU (msm_cpu_job.c) with a
 * notice, so that the answer never changes silently. G1 and G2 alike: an OpenCL device runs
 * G2 with the G1 kernels over Fq2 (kernels_cl/curve_select.h). Each call is tracked for
 * progress and cancellation (host/core/progress.h), unless a proof or calibration tracks it.
 */
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/core/memory_budget.h"
#include "host/msm/msm_memory.h"
#include "host/msm/msm_engine.h"
#include "host/msm/msm_calls.h"
#include "runtime/opencl/cl_msm.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The most point chunks a caller may ask for: each holds a bucket sum per window. */
#define MSM_MAX_POINT_CHUNKS 65536u

/* The caller's tiling, refused before anything is allocated when absurd: point_chunks at most
 * n (1 for n = 0) and MSM_MAX_POINT_CHUNKS, windows_per_tile at most the windows of the MSM
 * (of window_bits, or of 1-bit windows when chosen). */
static hpr_status check_tiling(hpr_ctx *ctx, const msm_curve_ops *ops, size_t n, const hpr_msm_opts *opts)
{
    size_t max_chunks = n < 1 ? 1 : n < MSM_MAX_POINT_CHUNKS ? n : MSM_MAX_POINT_CHUNKS;
    unsigned max_windows = msm_window_count(ops->scalar_bits, opts && opts->window_bits ? opts->window_bits : 1);
    if (opts && opts->point_chunks > max_chunks)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "point_chunks = %u is out of range (1..%zu for n = %zu, at most %u; 0 = auto)",
                        opts->point_chunks, max_chunks, n, MSM_MAX_POINT_CHUNKS);
    if (opts && opts->windows_per_tile > max_windows)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "windows_per_tile = %u is out of range (1..%u, the windows of %u-bit windows; 0 = auto)",
                        opts->windows_per_tile, max_windows, opts->window_bits ? opts->window_bits : 1);
    return HPR_OK;
}

static hpr_status check_msm_args(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *sliced,
                                 const void *points, const void *scalars, size_t n, void *out,
                                 const hpr_msm_opts *opts, const msm_curve_ops **ops)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    *ops = msm_ops(curve, group);
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported (bn254 = 1, bls12-381 = 2)", (int)curve);
    if (!*ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (!out || (n > 0 && (!points || !scalars)))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "points, scalars and out must not be NULL");
    if (n > UINT32_MAX || n > SIZE_MAX / (*ops)->xyzz_size)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu is too large (at most 2^32 - 1 points)", n);
    if (opts && opts->window_bits > MSM_MAX_WINDOW_BITS)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "window_bits = %u is out of range (1..%d, 0 = auto)",
                        opts->window_bits, MSM_MAX_WINDOW_BITS);
    if (sliced)
        *ops = sliced;
    return check_tiling(ctx, *ops, n, opts);
}

/* The MSM on an OpenCL device. HPR_ERR_DEVICE (with detail) asks the caller to fall back. */
static hpr_status msm_on_device(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                const msm_points *pts, const void *scalars, size_t n, void *out, const hpr_msm_opts *opts)
{
    char why[CL_DETAIL_LEN];
    size_t bad_index = 0;
    msm_point_check bad_kind = MSM_POINT_OK;
    hpr_status st;
    if ((st = msm_check_scalars(ctx, ops, scalars, n)) != HPR_OK || (st = dev_ready(ctx, dev, curve, group)) != HPR_OK)
        return st;
    switch (cl_msm(ctx->cl, dev, dev_msm_variant(curve, group), ops, pts, 0, scalars, n, opts ? opts->window_bits : 0, out, &bad_index,
                   &bad_kind, NULL, why)) {
    case CL_MSM_OK: return HPR_OK;
    case CL_MSM_BAD_POINT: return msm_point_error(ctx, ops, bad_index, bad_kind);
    default: return ctx_device_error(ctx, dev, why);
    }
}

static hpr_status msm_single_device(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, hpr_group group,
                                    const msm_curve_ops *ops, const msm_points *pts, const void *scalars, size_t n, void *out,
                                    const hpr_msm_opts *opts)
{
    const void *points = pts->host;
    double t0 = rt_now_seconds();
    int was_unusable = dev && dev->failed; /* not tried: no new failure */
    hpr_status st;
    if (dev && n > 0) {
        st = msm_on_device(ctx, dev, curve, group, ops, pts, scalars, n, out, opts);
        if (st == HPR_OK) /* one kernel run: its units at once */
            progress_add(ctx, progress_msm_units(n, ops->degree));
        if (st != HPR_ERR_DEVICE) {
            report_single(ctx, dev->id, n, rt_now_seconds() - t0);
            return st;
        }
        ctx_notice_cpu_redid(ctx, "MSM");
    }
    st = msm_on_cpu(ctx, ops, points, pts->validated, scalars, n, out, opts);
    report_single(ctx, "cpu", n, rt_now_seconds() - t0);
    if (dev) {
        snprintf(ctx->report.notes, sizeof ctx->report.notes, "%s", ctx->notice);
        if (n > 0)
            report_device_fault(ctx, dev->id, !was_unusable, dev->failure);
    }
    return st;
}

/* After check_msm_args: the device chosen, the MSM run there. */
static hpr_status msm_dispatch(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                               const msm_points *pts, const void *scalars, size_t n, void *out,
                               const hpr_msm_opts *opts)
{
    cl_dev *dev = NULL;
    const char *device = dev_of_call(ctx, opts ? opts->device : NULL);
    hpr_status st;
    if ((st = dev_resolve(ctx, device, &dev)) != HPR_OK)
        return st;
    /* the hybrid scheduler for "all", unless the caller shapes the CPU's tiles by hand */
    if (strcmp(device, "all") == 0 && n > 0 && !(opts && (opts->window_bits || opts->point_chunks || opts->windows_per_tile)))
        return msm_hybrid(ctx, curve, group, ops, pts, scalars, n, out);
    return msm_single_device(ctx, dev, curve, group, ops, pts, scalars, n, out, opts);
}

hpr_status msm_keyed_ops(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *sliced,
                         const msm_points *pts, const void *scalars, size_t n, void *out, const hpr_msm_opts *opts)
{
    const msm_curve_ops *ops;
    hpr_status st = check_msm_args(ctx, curve, group, sliced, pts->host, scalars, n, out, opts, &ops);
    if (st != HPR_OK)
        return st;
    progress_begin(ctx, "msm", progress_msm_units(n, ops->degree)); /* within a proof: its units */
    if ((st = progress_check(ctx)) == HPR_OK) /* whole, or in pieces within the memory limit */
        st = mem_msm(ctx, curve, group, ops, pts, scalars, n, out, opts, msm_dispatch);
    return progress_end(ctx, st);
}

hpr_status msm_keyed(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_points *pts, const void *scalars,
                     size_t n, void *out, const hpr_msm_opts *opts)
{
    return msm_keyed_ops(ctx, curve, group, NULL, pts, scalars, n, out, opts);
}

hpr_status msm_ex_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, const void *scalars,
                       size_t n, void *out, const hpr_msm_opts *opts)
{
    msm_points pts = {points, n, 0, 0, 0};
    return msm_keyed(ctx, curve, group, &pts, scalars, n, out, opts);
}
