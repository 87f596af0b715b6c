/*
 * device_registry.c: the OpenCL devices of a context: the runtime opened on first need
 * (devices discovered, no contexts yet), names resolved, devices listed for the API.
 */
#include "host/core/devices.h"
#include "host/core/core_calls.h"

#include <stdio.h>
#include <string.h>

hpr_status dev_runtime(hpr_ctx *ctx)
{
    if (ctx->cl)
        return HPR_OK;
    if (cl_runtime_open(&ctx->cl, &ctx->knobs.cl) != 0)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "cannot allocate the OpenCL device list");
    return HPR_OK;
}

hpr_status dev_resolve(hpr_ctx *ctx, const char *name, cl_dev **dev)
{
    hpr_status st;
    *dev = NULL;
    if (strcmp(name, "cpu") == 0 || strcmp(name, "all") == 0)
        return HPR_OK;
    if (strncmp(name, "cl:", 3) != 0)
        return ctx_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "unknown device '%s' (expected cpu, all or cl:P.D)", name);
    if ((st = dev_runtime(ctx)) != HPR_OK)
        return st;
    *dev = cl_runtime_find(ctx->cl, name);
    if (!*dev) {
        if (ctx->cl->ndevs == 0)
            return ctx_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "device '%s': %s", name, ctx->cl->notice);
        return ctx_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "no OpenCL device '%s' (%u found: cl:0.0 .. see 'hyprove devices')",
                        name, ctx->cl->ndevs);
    }
    return HPR_OK;
}

unsigned device_count_call(hpr_ctx *ctx)
{
    if (!ctx || dev_runtime(ctx) != HPR_OK)
        return 0;
    return ctx->cl->ndevs;
}

const char *opencl_notice_call(hpr_ctx *ctx)
{
    if (!ctx || dev_runtime(ctx) != HPR_OK)
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

hpr_status device_get_info_call(hpr_ctx *ctx, unsigned index, hpr_device_info *info)
{
    if (!ctx || !info)
        return HPR_ERR_INVALID_ARGUMENT;
    if (index >= device_count_call(ctx))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "device index %u out of range", index);
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
    info->resident_bytes = d->resident_bytes;
    info->bytes_sent = d->bytes_sent;
    return HPR_OK;
}

/* The one rule of which usable OpenCL devices join a run beside the native pool
 * (dev_pick_opencl, dev_host_devices and so the memory estimates): a device of type CPU
 * (POCL) does not, when it and the pool together would oversubscribe the cores. */
int dev_oversubscribes(const hpr_ctx *ctx, const cl_dev *dev)
{
    return (dev->type & CL_DEVICE_TYPE_CPU) && ctx->threads + dev->compute_units > rt_online_cpus();
}

unsigned dev_pick_opencl(hpr_ctx *ctx, dev_ready_fn ready, const void *what, cl_dev **picked, unsigned max)
{
    unsigned count = 0;
    char why[CL_DETAIL_LEN];
    if (dev_runtime(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs && count < max; i++) {
        cl_dev *dev = &ctx->cl->devs[i];
        if (dev->failed) {
            report_note(ctx, dev->id, "left out: unusable");
            continue;
        }
        if (dev_oversubscribes(ctx, dev)) {
            snprintf(why, sizeof why,
                     "left out: it runs on the same %u cores as the native pool (%u threads), which is faster per "
                     "core; limit both (threads, POCL_MAX_PTHREAD_COUNT) to combine them",
                     rt_online_cpus(), ctx->threads);
            report_note(ctx, dev->id, why);
            continue;
        }
        if (ready && ready(ctx, dev, what) != HPR_OK) {
            report_note(ctx, dev->id, ctx->detail);
            ctx->detail[0] = '\0';
            if (dev->failed) /* failed its self-test now: a fault of this call */
                report_device_fault(ctx, dev->id, 1, dev->failure);
            continue;
        }
        picked[count++] = dev;
    }
    return count;
}

/* The OpenCL devices of type CPU (POCL: their buffers are host memory) that a call on device
 * may use, at most max: the one named when usable; under "all", those dev_pick_opencl would
 * pick (usable, not oversubscribing the cores beside the pool). *others (may be NULL): the
 * other devices ("all": usable ones that would join). */
unsigned dev_host_devices(hpr_ctx *ctx, const char *device, cl_dev **out, unsigned max, unsigned *others)
{
    unsigned count = 0;
    cl_dev *dev = NULL;
    if (others)
        *others = 0;
    if (strcmp(device, "cpu") == 0)
        return 0;
    if (strcmp(device, "all") != 0) {
        if (dev_resolve(ctx, device, &dev) != HPR_OK) { /* the call itself will say so */
            ctx->detail[0] = '\0';
            return 0;
        }
        if (dev && !dev->failed && (dev->type & CL_DEVICE_TYPE_CPU))
            out[count++] = dev;
        return count;
    }
    if (dev_runtime(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs; i++) {
        cl_dev *d = &ctx->cl->devs[i];
        int cpu = (d->type & CL_DEVICE_TYPE_CPU) != 0;
        if (d->failed || dev_oversubscribes(ctx, d))
            continue;
        if (cpu && count < max)
            out[count++] = d;
        else if (!cpu && others)
            ++*others;
    }
    return count;
}
