/*
 * ctx.c: contexts, status strings and error details.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hpr_status_str(hpr_status status)
{
    switch (status) {
    case HPR_OK: return "ok";
    case HPR_ERR_INVALID_ARGUMENT: return "invalid argument";
    case HPR_ERR_UNSUPPORTED_CURVE: return "unsupported curve";
    case HPR_ERR_UNSUPPORTED_GROUP: return "unsupported group";
    case HPR_ERR_SCALAR_OUT_OF_RANGE: return "scalar out of range (>= group order r)";
    case HPR_ERR_COORDINATE_OUT_OF_RANGE: return "point coordinate out of range (>= field modulus p)";
    case HPR_ERR_POINT_NOT_ON_CURVE: return "point not on the curve";
    case HPR_ERR_POINT_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case HPR_ERR_UNKNOWN_DEVICE: return "unknown or unavailable device";
    case HPR_ERR_FORMAT: return "malformed input";
    case HPR_ERR_IO: return "input/output error";
    case HPR_ERR_OUT_OF_MEMORY: return "out of memory";
    case HPR_ERR_THREADS: return "could not start threads";
    case HPR_ERR_DEVICE: return "device error";
    case HPR_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

hpr_status hpr_fail(hpr_ctx *ctx, hpr_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->detail, sizeof ctx->detail, fmt, ap);
        va_end(ap);
    }
    return status;
}

void hpr_config_default(hpr_config *cfg)
{
    cfg->threads = 0;
    cfg->devices = NULL;
}

static int is_cpu_name(const char *devices)
{
    return strcmp(devices, "cpu") == 0 || strcmp(devices, "all") == 0;
}

hpr_status hpr_ctx_create(const hpr_config *cfg, hpr_ctx **out)
{
    hpr_config defaults;
    hpr_ctx *ctx = NULL;
    hpr_status st = HPR_OK;
    cl_dev *dev;
    if (!out)
        return HPR_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!cfg) {
        hpr_config_default(&defaults);
        cfg = &defaults;
    }
    const char *devices = cfg->devices ? cfg->devices : "all";
    if (!is_cpu_name(devices) && strncmp(devices, "cl:", 3) != 0)
        return HPR_ERR_UNKNOWN_DEVICE; /* no context yet to hold a detail: the status says it */
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return HPR_ERR_OUT_OF_MEMORY;
    snprintf(ctx->device, sizeof ctx->device, "%s", devices);
    if (!is_cpu_name(devices) && (hpr_resolve_device(ctx, devices, &dev) != HPR_OK || strlen(devices) >= sizeof ctx->device)) {
        st = HPR_ERR_UNKNOWN_DEVICE;
        goto out;
    }
    ctx->threads = cfg->threads ? cfg->threads : rt_online_cpus();
    if (rt_pool_create(&ctx->pool, ctx->threads) != 0) {
        st = HPR_ERR_THREADS;
        goto out;
    }
    *out = ctx;
    ctx = NULL;
out:
    hpr_ctx_destroy(ctx);
    return st;
}

void hpr_ctx_destroy(hpr_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->pool)
        rt_pool_destroy(ctx->pool);
    cl_runtime_close(ctx->cl);
    free(ctx);
}

const char *hpr_ctx_error_detail(const hpr_ctx *ctx)
{
    return ctx ? ctx->detail : "";
}

unsigned hpr_ctx_threads(const hpr_ctx *ctx)
{
    return ctx->threads;
}

const char *hpr_ctx_notice(const hpr_ctx *ctx)
{
    return ctx ? ctx->notice : "";
}

const msm_curve_ops *hpr_g1_ops(hpr_curve curve)
{
    switch (curve) {
    case HPR_CURVE_BN254: return &msm_bn254_g1_ops;
    case HPR_CURVE_BLS12_381: return &msm_bls12_381_g1_ops;
    }
    return NULL;
}

size_t hpr_point_size(hpr_curve curve, hpr_group group)
{
    const msm_curve_ops *ops = hpr_g1_ops(curve);
    if (!ops || group != HPR_G1)
        return 0;
    return ops->affine_size;
}

hpr_status hpr_ctx_last_report(const hpr_ctx *ctx, hpr_run_report *report)
{
    if (!ctx || !report || !ctx->have_report)
        return HPR_ERR_INVALID_ARGUMENT;
    *report = ctx->report;
    return HPR_OK;
}
