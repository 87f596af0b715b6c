/*
 * device_registry.c: the OpenCL devices of a context: the runtime opened on first need
 * (devices discovered, no contexts yet), names resolved, devices listed for the API.
 */
#include "devices.h"

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

static unsigned device_count_call(hpr_ctx *ctx)
{
    if (!ctx || dev_runtime(ctx) != HPR_OK)
        return 0;
    return ctx->cl->ndevs;
}

unsigned hpr_device_count(hpr_ctx *ctx)
{
    ctx_enter(ctx);
    unsigned r = device_count_call(ctx);
    ctx_leave(ctx, HPR_OK);
    return r;
}

static const char *opencl_notice_call(hpr_ctx *ctx)
{
    if (!ctx || dev_runtime(ctx) != HPR_OK)
        return "OpenCL is not available";
    return ctx->cl->notice;
}

const char *hpr_opencl_notice(hpr_ctx *ctx)
{
    ctx_enter(ctx);
    const char * r = opencl_notice_call(ctx);
    ctx_leave(ctx, HPR_OK);
    return r;
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

static hpr_status device_get_info_call(hpr_ctx *ctx, unsigned index, hpr_device_info *info)
{
    if (!ctx || !info)
        return HPR_ERR_INVALID_ARGUMENT;
    if (index >= hpr_device_count(ctx))
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

hpr_status hpr_device_get_info(hpr_ctx *ctx, unsigned index, hpr_device_info *info)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, device_get_info_call(ctx, index, info));
}
