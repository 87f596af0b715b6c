/*
 * devices.c: OpenCL devices behind the public API: lazy discovery, name resolution,
 * program preparation and the self-test each device passes before its first MSM.
 *
 * Self-test (once per device and curve): 16 base-field multiplications against the host's
 * products, and an MSM of 64 random points against the CPU's result, bit for bit. A device
 * that fails it, or fails later, is marked unusable with the reason and never used again by
 * this context: calls meant for it run on the CPU and say so (hpr_ctx_notice).
 */
#include "internal.h"
#include "../runtime/cl_msm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SELFTEST_POINTS 64
#define SELFTEST_MULS 16
#define SELFTEST_SEED 0x5e1f7e57ull

hpr_status hpr_ctx_opencl(hpr_ctx *ctx)
{
    if (ctx->cl)
        return HPR_OK;
    if (cl_runtime_open(&ctx->cl) != 0)
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "cannot allocate the OpenCL device list");
    return HPR_OK;
}

hpr_status hpr_resolve_device(hpr_ctx *ctx, const char *name, cl_dev **dev)
{
    hpr_status st;
    *dev = NULL;
    if (strcmp(name, "cpu") == 0 || strcmp(name, "all") == 0)
        return HPR_OK;
    if (strncmp(name, "cl:", 3) != 0)
        return hpr_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "unknown device '%s' (expected cpu, all or cl:P.D)", name);
    if ((st = hpr_ctx_opencl(ctx)) != HPR_OK)
        return st;
    *dev = cl_runtime_find(ctx->cl, name);
    if (!*dev) {
        if (ctx->cl->ndevs == 0)
            return hpr_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "device '%s': %s", name, ctx->cl->notice);
        return hpr_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "no OpenCL device '%s' (%u found: cl:0.0 .. see 'hyprove devices')",
                        name, ctx->cl->ndevs);
    }
    return HPR_OK;
}

static hpr_status mark_failed(hpr_ctx *ctx, cl_dev *dev, const char *why)
{
    dev->failed = 1;
    snprintf(dev->failure, sizeof dev->failure, "%s", why);
    return hpr_fail(ctx, HPR_ERR_DEVICE, "%s: %s", dev->id, why);
}

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
        st = hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "self-test inputs");
        goto out;
    }
    if ((st = hpr_random_msm_inputs(ctx, curve, HPR_G1, SELFTEST_POINTS, SELFTEST_SEED, points, scalars)) != HPR_OK ||
        (st = hpr_msm_cpu(ctx, ops, points, scalars, SELFTEST_POINTS, want, NULL)) != HPR_OK)
        goto out;
    if (selftest_muls(ctx, dev, curve, ops, points, why) != 0) {
        st = mark_failed(ctx, dev, why);
        goto out;
    }
    cl_msm_result r = cl_msm(ctx->cl, dev, (int)curve, ops, points, scalars, SELFTEST_POINTS, 0, got, &bad_index,
                             &bad_kind, NULL, why);
    if (r == CL_MSM_DEVICE_ERROR) {
        st = mark_failed(ctx, dev, why);
    } else if (r != CL_MSM_OK || memcmp(got, want, ops->affine_size) != 0) {
        snprintf(why, sizeof why, "self-test: a %s MSM of %d points differs from the CPU's result", ops->name,
                 SELFTEST_POINTS);
        st = mark_failed(ctx, dev, why);
    }
out:
    free(points);
    free(scalars);
    return st;
}

hpr_status hpr_device_ready(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve)
{
    const msm_curve_ops *ops = hpr_g1_ops(curve);
    cl_program prog;
    char why[CL_DETAIL_LEN];
    hpr_status st;
    if (!ops)
        return hpr_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    if (dev->failed)
        return hpr_fail(ctx, HPR_ERR_DEVICE, "%s is unusable: %s", dev->id, dev->failure);
    if (dev->selftest[curve] == 1)
        return HPR_OK;
    if (cl_dev_program(ctx->cl, dev, CL_PROG_MSM, (int)curve, cl_dev_default_words(dev), &prog, why) != 0)
        return mark_failed(ctx, dev, why);
    st = run_selftest(ctx, dev, curve, ops);
    dev->selftest[curve] = st == HPR_OK ? 1 : -1;
    return st;
}

unsigned hpr_device_count(hpr_ctx *ctx)
{
    if (!ctx || hpr_ctx_opencl(ctx) != HPR_OK)
        return 0;
    return ctx->cl->ndevs;
}

const char *hpr_opencl_notice(hpr_ctx *ctx)
{
    if (!ctx || hpr_ctx_opencl(ctx) != HPR_OK)
        return "OpenCL is not available";
    return ctx->cl->notice;
}

static const char *kind_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (t & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

hpr_status hpr_device_get_info(hpr_ctx *ctx, unsigned index, hpr_device_info *info)
{
    if (!ctx || !info)
        return HPR_ERR_INVALID_ARGUMENT;
    if (index >= hpr_device_count(ctx))
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "device index %u out of range", index);
    const cl_dev *d = &ctx->cl->devs[index];
    memset(info, 0, sizeof *info);
    snprintf(info->id, sizeof info->id, "%s", d->id);
    snprintf(info->kind, sizeof info->kind, "%s", kind_name(d->type));
    snprintf(info->name, sizeof info->name, "%s", d->name);
    snprintf(info->vendor, sizeof info->vendor, "%s", d->vendor);
    snprintf(info->driver, sizeof info->driver, "%s", d->driver);
    snprintf(info->platform, sizeof info->platform, "%s", d->platform_name);
    snprintf(info->c_version, sizeof info->c_version, "%s", d->c_version);
    info->compute_units = d->compute_units;
    info->clock_mhz = d->clock_mhz;
    info->global_mem = d->global_mem;
    info->local_mem = d->local_mem;
    info->max_alloc = d->max_alloc;
    info->int64 = d->int64;
    info->usable = !d->failed;
    snprintf(info->status, sizeof info->status, "%s", d->failed ? d->failure : "");
    return HPR_OK;
}

hpr_status hpr_device_prepare(hpr_ctx *ctx, const char *device, hpr_curve curve, hpr_device_report *report)
{
    cl_dev *dev;
    hpr_status st;
    if (!ctx || !device)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx->detail[0] = '\0';
    if ((st = hpr_resolve_device(ctx, device, &dev)) != HPR_OK)
        return st;
    if (!dev)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "'%s' is not an OpenCL device", device);
    if (!hpr_g1_ops(curve))
        return hpr_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    st = hpr_device_ready(ctx, dev, curve);
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
            static const char *const names[CL_WORDS_VARIANTS] = {"standard", "int128", "limb32"};
            snprintf(report->words, sizeof report->words, "%s", names[r->words]);
        }
    }
    return st;
}

void hpr_report_note(hpr_ctx *ctx, const char *a, const char *b)
{
    size_t used = strlen(ctx->report.notes);
    if (used + 2 < sizeof ctx->report.notes)
        snprintf(ctx->report.notes + used, sizeof ctx->report.notes - used, "%s%.16s: %.400s", used ? "; " : "", a, b);
}

unsigned hpr_pick_opencl_devices(hpr_ctx *ctx, hpr_curve curve, cl_dev **picked, unsigned max)
{
    unsigned count = 0, cores = rt_online_cpus();
    char why[CL_DETAIL_LEN];
    if (hpr_ctx_opencl(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs && count < max; i++) {
        cl_dev *dev = &ctx->cl->devs[i];
        if (dev->failed) {
            hpr_report_note(ctx, dev->id, "left out: unusable");
            continue;
        }
        if ((dev->type & CL_DEVICE_TYPE_CPU) && ctx->threads + dev->compute_units > cores) {
            snprintf(why, sizeof why,
                     "left out: it runs on the same %u cores as the native pool (%u threads), which is faster per "
                     "core; limit both (threads, POCL_MAX_PTHREAD_COUNT) to combine them",
                     cores, ctx->threads);
            hpr_report_note(ctx, dev->id, why);
            continue;
        }
        if (curve && hpr_device_ready(ctx, dev, curve) != HPR_OK) {
            hpr_report_note(ctx, dev->id, ctx->detail);
            ctx->detail[0] = '\0';
            continue;
        }
        picked[count++] = dev;
    }
    return count;
}


void hpr_fill_report(hpr_ctx *ctx, cl_dev *const *devs, unsigned ndev, const sched_device_report *reps,
                     double points_per_item, double seconds)
{
    hpr_run_report *r = &ctx->report;
    r->ndevices = ndev;
    r->seconds = seconds;
    for (unsigned d = 0; d < ndev; d++) {
        hpr_device_run *o = &r->devices[d];
        snprintf(o->device, sizeof o->device, "%s", devs[d] ? devs[d]->id : "cpu");
        o->tiles = reps[d].tiles;
        o->failures = reps[d].failures;
        o->points = (unsigned long long)((double)reps[d].items * points_per_item + 0.5);
        o->busy_s = reps[d].busy_s;
        o->wait_s = reps[d].wait_s;
        o->points_per_s = reps[d].busy_s > 0 ? (double)o->points / reps[d].busy_s : 0;
        o->dropped = reps[d].dropped;
        snprintf(o->failure, sizeof o->failure, "%s", reps[d].failure);
        if (reps[d].failures)
            hpr_report_note(ctx, o->device, "failed tiles were redone by the other devices");
        if (devs[d] && reps[d].dropped) {
            devs[d]->failed = 1;
            snprintf(devs[d]->failure, sizeof devs[d]->failure, "%s", reps[d].failure);
        }
    }
    ctx->have_report = 1;
}
