/*
 * host/api/context.c: the public context handle (creation, destruction, accessors), the
 * library version and the status texts. Creating a context assembles the layers below: the
 * configuration and the environment knobs read once, the memory limit, the CPU tier chosen,
 * the default device resolved, the thread pool started (host/core/); destroying it releases
 * what the engines keep in it (the MSM engine's live bases, the NTT engine's twiddle cache).
 */
#include "host/core/core_calls.h"
#include "host/core/cpu_tiers.h"
#include "host/core/devices.h"
#include "host/core/memory_budget.h"
#include "host/core/sized.h"
#include "host/msm/resident.h"
#include "host/ntt/ntt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hpr_version(unsigned *major, unsigned *minor, unsigned *patch)
{
    if (major)
        *major = HPR_VERSION_MAJOR;
    if (minor)
        *minor = HPR_VERSION_MINOR;
    if (patch)
        *patch = HPR_VERSION_PATCH;
    return HPR_VERSION_STRING;
}

const char *hpr_status_str(hpr_status status)
{
    return status_text(status);
}

void hpr_ctx_cancel(hpr_ctx *ctx)
{
    progress_cancel(ctx);
}

void hpr_config_default(hpr_config *cfg)
{
    if (!cfg)
        return;
    cfg->struct_size = sizeof *cfg;
    cfg->threads = 0;
    cfg->devices = NULL;
    cfg->cpu_tier = NULL;
    cfg->progress = NULL;
    cfg->progress_user = NULL;
    cfg->progress_interval_s = 0;
    cfg->cancel = NULL;
    cfg->memory_limit = 0;
}

const char *hpr_ctx_cpu_tier(const hpr_ctx *ctx)
{
    return ctx ? rt_cpu_tier_name(ctx->cpu_tier) : "";
}

static int is_cpu_name(const char *devices)
{
    return strcmp(devices, "cpu") == 0 || strcmp(devices, "all") == 0 || strcmp(devices, "auto") == 0;
}

/* The create detail of a CPU tier that cannot be used: forced by the config (tier), else by
 * HPR_CPU, which is named with its value. Returns st. */
static hpr_status tier_fail(hpr_status st, const char *tier)
{
    const char *why = "", *name = tier ? tier : getenv("HPR_CPU");
    (void)cpu_tier_check(name, &why);
    if (tier)
        return ctx_create_fail(st, "cpu_tier '%.64s': %s", tier, why);
    return ctx_create_fail(st, "HPR_CPU='%.64s': %s", name ? name : "", why);
}

hpr_status hpr_ctx_create(const hpr_config *cfg, hpr_ctx **out)
{
    hpr_config given;
    hpr_ctx *ctx = NULL;
    hpr_status st = HPR_OK;
    cl_dev *dev;
    char why[200];
    ctx_create_clear();
    if (!out)
        return ctx_create_fail(HPR_ERR_INVALID_ARGUMENT, "out must not be NULL");
    *out = NULL;
    if (!cfg)
        hpr_config_default(&given);
    else if ((st = sized_take("hpr_config", cfg, sizeof given, sizeof given, &given, why, sizeof why)) != HPR_OK)
        return ctx_create_fail(st, "%s", why);
    cfg = &given;
    const char *devices = cfg->devices ? cfg->devices : "auto";
    if (!is_cpu_name(devices) && strncmp(devices, "cl:", 3) != 0)
        return ctx_create_fail(HPR_ERR_UNKNOWN_DEVICE, "device '%.64s': expected auto, cpu, all or cl:P.D", devices);
    if (cfg->threads > HPR_MAX_THREADS)
        return ctx_create_fail(HPR_ERR_INVALID_ARGUMENT, "threads = %u is out of range (1..%d, 0 = every core)",
                               cfg->threads, HPR_MAX_THREADS);
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return ctx_create_fail(HPR_ERR_OUT_OF_MEMORY, "no memory for a context");
    if (ctx_lock_init(ctx) != 0) {
        free(ctx);
        return ctx_create_fail(HPR_ERR_THREADS, "cannot make the context's call lock");
    }
    knobs_read(&ctx->knobs);
    progress_init(&ctx->progress, cfg);
    if ((st = knobs_check()) != HPR_OK)
        goto out;
    if ((st = mem_budget_init(ctx, cfg->memory_limit)) != HPR_OK)
        goto out;
    if ((st = cpu_tier_choose(cfg->cpu_tier ? cfg->cpu_tier : ctx->knobs.cpu_tier, &ctx->cpu_tier)) != HPR_OK) {
        st = tier_fail(st, cfg->cpu_tier);
        goto out;
    }
    snprintf(ctx->device, sizeof ctx->device, "%s", devices);
    if (!is_cpu_name(devices) && (dev_resolve(ctx, devices, &dev) != HPR_OK || strlen(devices) >= sizeof ctx->device)) {
        st = HPR_ERR_UNKNOWN_DEVICE;
        goto out;
    }
    ctx->threads = cfg->threads ? cfg->threads : rt_online_cpus();
    if (strcmp(devices, "auto") == 0) /* after the threads and the tier: the CPU's calibration key */
        dev_auto_choose(ctx);
    if (rt_pool_create(&ctx->pool, ctx->threads) != 0) {
        st = ctx_create_fail(HPR_ERR_THREADS, "cannot start %u worker threads", ctx->threads);
        goto out;
    }
    *out = ctx;
    ctx = NULL;
out:
    if (st != HPR_OK && !ctx_create_detail()[0]) /* the failure's detail, or at least its step */
        st = ctx_create_fail(st, "%s", ctx && ctx->detail[0] ? ctx->detail : "creating the context");
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
    if (ctx->cluster)
        ranks_link_release(ctx->cluster);
    free(ctx->cluster);
    ctx_lock_destroy(ctx);
    free(ctx);
}

const char *hpr_ctx_error_detail(const hpr_ctx *ctx)
{
    return ctx ? ctx_result_detail(ctx) : ctx_create_detail(); /* NULL: why hpr_ctx_create failed */
}

unsigned hpr_ctx_threads(const hpr_ctx *ctx)
{
    return ctx ? ctx->threads : 0;
}

const char *hpr_ctx_devices(const hpr_ctx *ctx)
{
    return ctx ? ctx->device : "";
}

const char *hpr_ctx_device_choice(const hpr_ctx *ctx)
{
    return ctx ? ctx->device_choice : "";
}

const char *hpr_ctx_notice(const hpr_ctx *ctx)
{
    return ctx ? ctx_result_notice(ctx) : "";
}

hpr_status hpr_ctx_last_report(const hpr_ctx *ctx, hpr_run_report *report)
{
    hpr_run_report full;
    size_t bytes;
    if (!ctx || !report || SIZED_CHECK_OUT(NULL, hpr_run_report, report, &bytes) != HPR_OK)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!ctx_result_report(ctx, &full))
        return HPR_ERR_INVALID_ARGUMENT;
    sized_cap_entries(&full.ndevices, bytes, offsetof(hpr_run_report, devices), sizeof full.devices[0]);
    sized_write(report, &full, bytes);
    return HPR_OK;
}
