/*
 * device_selftest.c: a device made ready before its first MSM, and the devices picked for a
 * hybrid run.
 *
 * Self-test (once per device and curve): 16 base-field multiplications against the host's
 * products, and an MSM of 64 random points against the CPU's result, bit for bit. A device
 * that fails it, or fails later, is marked unusable with the reason and never used again by
 * this context: calls meant for it run on the CPU and say so (hpr_ctx_notice).
 */
#include "devices.h"
#include "msm_engine.h"
#include "runtime/opencl/cl_msm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SELFTEST_POINTS 64
#define SELFTEST_MULS 16
#define SELFTEST_SEED 0x5e1f7e57ull

static int selftest_muls(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, const msm_curve_ops *ops,
                         const unsigned char *points, char *why)
{
    size_t fs = ops->field_bytes;
    unsigned char a[SELFTEST_MULS * 48], b[SELFTEST_MULS * 48], expected[SELFTEST_MULS * 48];
    (void)ctx;
    for (size_t i = 0; i < SELFTEST_MULS; i++) {
        memcpy(a + i * fs, points + i * ops->affine_size, fs);          /* x_i */
        memcpy(b + i * fs, points + i * ops->affine_size + fs, fs);     /* y_i */
        ops->fp_mul(expected + i * fs, a + i * fs, b + i * fs);
    }
    return cl_selftest_fp_mul(ctx->cl, dev, (int)curve, a, b, expected, SELFTEST_MULS, fs, why);
}

static hpr_status run_selftest(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, const msm_curve_ops *ops)
{
    unsigned char *points = malloc(SELFTEST_POINTS * ops->affine_size), *scalars = malloc(SELFTEST_POINTS * 32);
    unsigned char want[96], got[96];
    char why[CL_DETAIL_LEN];
    size_t bad_index;
    msm_point_check bad_kind;
    hpr_status st = HPR_OK;
    if (!points || !scalars) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "self-test inputs");
        goto out;
    }
    if ((st = hpr_random_msm_inputs(ctx, curve, HPR_G1, SELFTEST_POINTS, SELFTEST_SEED, points, scalars)) != HPR_OK ||
        (st = msm_on_cpu(ctx, ops, points, scalars, SELFTEST_POINTS, want, NULL)) != HPR_OK)
        goto out;
    if (selftest_muls(ctx, dev, curve, ops, points, why) != 0) {
        st = ctx_device_error(ctx, dev, why);
        goto out;
    }
    cl_msm_result r = cl_msm(ctx->cl, dev, (int)curve, ops, points, scalars, SELFTEST_POINTS, 0, got, &bad_index,
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

hpr_status dev_ready(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve)
{
    const msm_curve_ops *ops = msm_g1_ops(curve);
    cl_program prog;
    char why[CL_DETAIL_LEN];
    hpr_status st;
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    if (dev->failed)
        return ctx_fail(ctx, HPR_ERR_DEVICE, "%s is unusable: %s", dev->id, dev->failure);
    if (dev->selftest[curve] == 1)
        return HPR_OK;
    if (cl_dev_program(ctx->cl, dev, CL_PROG_MSM, (int)curve, cl_dev_default_words(dev), &prog, why) != 0)
        return ctx_device_error(ctx, dev, why);
    st = run_selftest(ctx, dev, curve, ops);
    dev->selftest[curve] = st == HPR_OK ? 1 : -1;
    return st;
}

hpr_status hpr_device_prepare(hpr_ctx *ctx, const char *device, hpr_curve curve, hpr_device_report *report)
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
    st = dev_ready(ctx, dev, curve);
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

unsigned dev_pick_opencl(hpr_ctx *ctx, hpr_curve curve, cl_dev **picked, unsigned max)
{
    unsigned count = 0, cores = rt_online_cpus();
    char why[CL_DETAIL_LEN];
    if (dev_runtime(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs && count < max; i++) {
        cl_dev *dev = &ctx->cl->devs[i];
        if (dev->failed) {
            report_note(ctx, dev->id, "left out: unusable");
            continue;
        }
        if ((dev->type & CL_DEVICE_TYPE_CPU) && ctx->threads + dev->compute_units > cores) {
            snprintf(why, sizeof why,
                     "left out: it runs on the same %u cores as the native pool (%u threads), which is faster per "
                     "core; limit both (threads, POCL_MAX_PTHREAD_COUNT) to combine them",
                     cores, ctx->threads);
            report_note(ctx, dev->id, why);
            continue;
        }
        if (curve && dev_ready(ctx, dev, curve) != HPR_OK) {
            report_note(ctx, dev->id, ctx->detail);
            ctx->detail[0] = '\0';
            continue;
        }
        picked[count++] = dev;
    }
    return count;
}
