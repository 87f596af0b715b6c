/*
 * context.c: the public context handle: creation (the configuration and the environment
 * knobs read once, the CPU tier chosen, the default device resolved, the thread pool
 * started), destruction and accessors. The per-call state helpers are in call.c.
 */
#include "resident.h"
#include "context.h"
#include "cpu_tiers.h"
#include "devices.h"
#include "ntt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hpr_config_default(hpr_config *cfg)
{
    cfg->threads = 0;
    cfg->devices = NULL;
    cfg->cpu_tier = NULL;
    cfg->progress = NULL;
    cfg->progress_user = NULL;
    cfg->progress_interval_s = 0;
    cfg->cancel = NULL;
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
    knobs_read(&ctx->knobs);
    progress_init(&ctx->progress, cfg);
    if ((st = cpu_tier_choose(cfg->cpu_tier ? cfg->cpu_tier : ctx->knobs.cpu_tier, &ctx->cpu_tier)) != HPR_OK)
        goto out;
    snprintf(ctx->device, sizeof ctx->device, "%s", devices);
    if (!is_cpu_name(devices) && (dev_resolve(ctx, devices, &dev) != HPR_OK || strlen(devices) >= sizeof ctx->device)) {
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
    bases_detach_all(ctx);
    cl_runtime_close(ctx->cl); /* with the bases every device holds */
    ntt_twiddle_cache_free(ctx->ntt_cache);
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

hpr_status hpr_ctx_last_report(const hpr_ctx *ctx, hpr_run_report *report)
{
    if (!ctx || !report || !ctx->have_report)
        return HPR_ERR_INVALID_ARGUMENT;
    *report = ctx->report;
    return HPR_OK;
}
