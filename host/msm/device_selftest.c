/*
 * device_selftest.c: a device made ready before its first MSM, and the devices picked for an
 * MSM run across devices (dev_pick_opencl's rule, with this readiness).
 *
 * Self-test (once per device, curve and group: each is its own program): 16 base-field
 * multiplications against the host's products, and an MSM of 64 random points of the group
 * against the CPU's result, bit for bit. A device
 * that fails it, or fails later, is marked unusable with the reason and never used again by
 * this context: calls meant for it run on the CPU and say so (hpr_ctx_notice).
 */
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/msm/msm_engine.h"
#include "host/msm/msm_calls.h"
#include "runtime/opencl/cl_msm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SELFTEST_POINTS 64
#define SELFTEST_MULS 16
#define SELFTEST_SEED 0x5e1f7e57ull

int dev_msm_variant(hpr_curve curve, hpr_group group)
{
    return (int)curve + (group == HPR_G2 ? 2 : 0);
}

/* Base-field products of the points' first coordinates: x_i (x_i.c0 on G2) times y_i
 * (y_i.c0), against the base field's host multiplication (the G1 table's). */
static int selftest_muls(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, const msm_curve_ops *ops,
                         const unsigned char *points, int variant, char *why)
{
    const msm_curve_ops *base = msm_g1_ops(curve);
    size_t fs = base->field_bytes;
    unsigned char a[SELFTEST_MULS * 48], b[SELFTEST_MULS * 48], expected[SELFTEST_MULS * 48];
    for (size_t i = 0; i < SELFTEST_MULS; i++) {
        memcpy(a + i * fs, points + i * ops->affine_size, fs);
        memcpy(b + i * fs, points + i * ops->affine_size + ops->affine_size / 2, fs);
        base->fp_mul(expected + i * fs, a + i * fs, b + i * fs);
    }
    return cl_selftest_fp_mul(ctx->cl, dev, variant, a, b, expected, SELFTEST_MULS, fs, why);
}

static hpr_status run_selftest(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, hpr_group group, const msm_curve_ops *ops)
{
    unsigned char *points = malloc(SELFTEST_POINTS * ops->affine_size), *scalars = malloc(SELFTEST_POINTS * 32);
    unsigned char want[MSM_MAX_AFFINE_BYTES], got[MSM_MAX_AFFINE_BYTES];
    int variant = dev_msm_variant(curve, group);
    char why[CL_DETAIL_LEN];
    size_t bad_index;
    msm_point_check bad_kind;
    hpr_status st = HPR_OK;
    if (!points || !scalars) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "self-test inputs");
        goto out;
    }
    if ((st = random_msm_inputs_call(ctx, curve, group, SELFTEST_POINTS, SELFTEST_SEED, points, scalars)) != HPR_OK ||
        (st = msm_on_cpu(ctx, ops, points, 0, scalars, SELFTEST_POINTS, want, NULL)) != HPR_OK)
        goto out;
    if (selftest_muls(ctx, dev, curve, ops, points, variant, why) != 0) {
        st = ctx_device_error(ctx, dev, why);
        goto out;
    }
    msm_points pts = {points, SELFTEST_POINTS, 0, 0, 0};
    cl_msm_result r = cl_msm(ctx->cl, dev, variant, ops, &pts, 0, scalars, SELFTEST_POINTS, 0, got, &bad_index,
                             &bad_kind, NULL, why);
    if (r == CL_MSM_DEVICE_ERROR) {
        st = ctx_device_error(ctx, dev, why);
    } else if (r != CL_MSM_OK || memcmp(got, want, ops->affine_size) != 0) {
        snprintf(why, sizeof why, "self-test: a %s MSM of %d points differs from the CPU's result", ops->name,
                 SELFTEST_POINTS);
        st = ctx_device_error(ctx, dev, why);
    }
out:
    free(points);
    free(scalars);
    return st;
}

hpr_status dev_ready(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, hpr_group group)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    int variant = dev_msm_variant(curve, group);
    cl_program prog;
    char why[CL_DETAIL_LEN];
    hpr_status st;
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d, group %d is not supported", (int)curve, (int)group);
    if (dev->failed)
        return ctx_fail(ctx, HPR_ERR_DEVICE, "%s is unusable: %s", dev->id, dev->failure);
    if (dev->selftest[variant] == 1)
        return HPR_OK;
    if (cl_dev_program(ctx->cl, dev, CL_PROG_MSM, variant, cl_dev_default_words(dev), &prog, why) != 0)
        return ctx_device_error(ctx, dev, why);
    st = run_selftest(ctx, dev, curve, group, ops);
    dev->selftest[variant] = st == HPR_OK ? 1 : -1;
    return st;
}

hpr_status device_prepare_call(hpr_ctx *ctx, const char *device, hpr_curve curve, hpr_device_report *report)
{
    cl_dev *dev;
    hpr_status st;
    if (!ctx || !device)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if ((st = dev_resolve(ctx, device, &dev)) != HPR_OK)
        return st;
    if (!dev)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "'%s' is not an OpenCL device", device);
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    st = dev_ready(ctx, dev, curve, HPR_G1);
    if (report) {
        const cl_build_report *r = NULL;
        for (int w = 0; w < CL_WORDS_VARIANTS; w++)
            if (dev->programs[CL_PROG_MSM][curve][w])
                r = &dev->reports[CL_PROG_MSM][curve][w];
        memset(report, 0, sizeof *report);
        if (r) {
            report->cache_hit = r->cache_hit;
            report->cache_rebuilt = r->cache_rebuilt;
            report->cache_written = r->cache_written;
            report->seconds = r->seconds;
            snprintf(report->words, sizeof report->words, "%s", cl_words_name(r->words));
        }
    }
    return st;
}

/* dev_pick_opencl's readiness for MSMs of one (curve, group). */
typedef struct {
    hpr_curve curve;
    hpr_group group;
} msm_kind;

static hpr_status ready_for_msm(hpr_ctx *ctx, cl_dev *dev, const void *what)
{
    const msm_kind *k = what;
    return dev_ready(ctx, dev, k->curve, k->group);
}

unsigned msm_pick_devices(hpr_ctx *ctx, hpr_curve curve, hpr_group group, cl_dev **picked, unsigned max)
{
    const msm_kind kind = {curve, group};
    return dev_pick_opencl(ctx, ready_for_msm, &kind, picked, max);
}
