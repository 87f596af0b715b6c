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
    case HPR_ERR_CPU_TIER: return "CPU kernel tier not available on this processor or build";
    case HPR_ERR_UNSUPPORTED_FIELD: return "unsupported field";
    case HPR_ERR_ELEMENT_OUT_OF_RANGE: return "field element out of range (>= modulus p)";
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
    cfg->cpu_tier = NULL;
}

/* Whether this build has the tier's kernels (the same for every curve). */
static int tier_built(rt_cpu_tier tier)
{
    return hpr_g1_ops(HPR_CURVE_BN254)->kernels[tier] != NULL;
}

hpr_status hpr_cpu_tier_check(const char *name, const char **why)
{
    const char *unused;
    rt_cpu_features f;
    int tier = name ? rt_cpu_tier_parse(name) : -1;
    if (!why)
        why = &unused;
    *why = "";
    if (tier < 0) {
        *why = "unknown CPU tier (expected portable, adx or avx512)";
        return HPR_ERR_INVALID_ARGUMENT;
    }
    rt_cpu_features_detect(&f);
    if (!rt_cpu_tier_supported(&f, (rt_cpu_tier)tier)) {
        *why = tier == RT_CPU_ADX ? "this processor lacks ADX or BMI2"
                                  : "this processor lacks AVX-512 IFMA (or ADX), or the OS does not enable the ZMM registers";
        return HPR_ERR_CPU_TIER;
    }
    if (!tier_built((rt_cpu_tier)tier)) {
        *why = tier == RT_CPU_ADX ? "this build of hyprove has no ADX kernels (not an x86-64 build)"
                                  : "this build of hyprove has no AVX-512 kernels (compiler without IFMA, or HPR_AVX512=OFF)";
        return HPR_ERR_CPU_TIER;
    }
    return HPR_OK;
}

/* The requested tier (config, else HPR_CPU) if it can run, else the fastest available. */
static hpr_status choose_cpu_tier(const hpr_config *cfg, rt_cpu_tier *tier)
{
    const char *name = cfg->cpu_tier ? cfg->cpu_tier : getenv("HPR_CPU");
    if (name && *name) {
        hpr_status st = hpr_cpu_tier_check(name, NULL);
        if (st == HPR_OK)
            *tier = (rt_cpu_tier)rt_cpu_tier_parse(name);
        return st;
    }
    rt_cpu_features f;
    rt_cpu_features_detect(&f);
    *tier = RT_CPU_PORTABLE;
    for (int t = RT_CPU_TIERS - 1; t > RT_CPU_PORTABLE; t--)
        if (rt_cpu_tier_supported(&f, (rt_cpu_tier)t) && tier_built((rt_cpu_tier)t)) {
            *tier = (rt_cpu_tier)t;
            break;
        }
    return HPR_OK;
}

const char *hpr_ctx_cpu_tier(const hpr_ctx *ctx)
{
    return rt_cpu_tier_name(ctx->cpu_tier);
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
    if ((st = choose_cpu_tier(cfg, &ctx->cpu_tier)) != HPR_OK)
        goto out;
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
    hpr_ntt_cache_free(ctx->ntt_cache);
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

const msm_curve_ops *hpr_curve_ops(hpr_curve curve, hpr_group group)
{
    if (group == HPR_G1)
        return hpr_g1_ops(curve);
    if (group != HPR_G2)
        return NULL;
    switch (curve) {
    case HPR_CURVE_BN254: return &msm_bn254_g2_ops;
    case HPR_CURVE_BLS12_381: return &msm_bls12_381_g2_ops;
    }
    return NULL;
}

size_t hpr_point_size(hpr_curve curve, hpr_group group)
{
    const msm_curve_ops *ops = hpr_curve_ops(curve, group);
    return ops ? ops->affine_size : 0;
}

hpr_status hpr_ctx_last_report(const hpr_ctx *ctx, hpr_run_report *report)
{
    if (!ctx || !report || !ctx->have_report)
        return HPR_ERR_INVALID_ARGUMENT;
    *report = ctx->report;
    return HPR_OK;
}
