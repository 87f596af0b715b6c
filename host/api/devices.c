/*
 * host/api/devices.c: the public entries for devices, CPU tiers, device preparation and calibration.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/calibrate/calibrate_calls.h"
#include "host/core/core_calls.h"
#include "host/core/sized.h"
#include "host/msm/msm_calls.h"

#include <string.h>

hpr_status hpr_cpu_tier_check(const char *name, const char **why)
{
    return cpu_tier_check(name, why);
}

hpr_status hpr_cpu_info_get(hpr_cpu_info *info)
{
    hpr_cpu_info full;
    size_t bytes;
    if (!info || SIZED_CHECK_OUT(NULL, hpr_cpu_info, info, &bytes) != HPR_OK)
        return HPR_ERR_INVALID_ARGUMENT;
    cpu_info_get(&full);
    sized_write(info, &full, bytes);
    return HPR_OK;
}

unsigned hpr_cpu_tier_count(void)
{
    return cpu_tier_count();
}

const char * hpr_cpu_tier_name(unsigned index)
{
    return cpu_tier_name(index);
}

unsigned hpr_device_count(hpr_ctx *ctx)
{
    ctx_enter(ctx);
    unsigned r = device_count_call(ctx);
    ctx_leave(ctx, HPR_OK);
    return r;
}

const char *hpr_opencl_notice(hpr_ctx *ctx)
{
    ctx_enter(ctx);
    const char * r = opencl_notice_call(ctx);
    ctx_leave(ctx, HPR_OK);
    return r;
}

hpr_status hpr_device_get_info(hpr_ctx *ctx, unsigned index, hpr_device_info *info)
{
    hpr_device_info full;
    size_t bytes = 0;
    ctx_enter(ctx);
    hpr_status st = info ? SIZED_CHECK_OUT(ctx, hpr_device_info, info, &bytes) : HPR_OK;
    if (st == HPR_OK && (st = device_get_info_call(ctx, index, info ? &full : NULL)) == HPR_OK)
        sized_write(info, &full, bytes);
    return ctx_leave(ctx, st);
}

double hpr_calibrated_speed(hpr_ctx *ctx, const char *device, hpr_curve curve, unsigned log_n)
{
    ctx_enter(ctx);
    double r = calibrated_speed_call(ctx, device, curve, log_n);
    ctx_leave(ctx, HPR_OK);
    return r;
}

double hpr_calibrated_ntt_speed(hpr_ctx *ctx, const char *device, hpr_field field, unsigned log_n)
{
    ctx_enter(ctx);
    double r = calibrated_ntt_speed_call(ctx, device, field, log_n);
    ctx_leave(ctx, HPR_OK);
    return r;
}

hpr_status hpr_device_prepare(hpr_ctx *ctx, const char *device, hpr_curve curve, hpr_device_report *report)
{
    hpr_device_report full;
    size_t bytes = 0;
    ctx_enter(ctx);
    hpr_status st = report ? SIZED_CHECK_OUT(ctx, hpr_device_report, report, &bytes) : HPR_OK;
    if (st != HPR_OK)
        return ctx_leave(ctx, st);
    memset(&full, 0, sizeof full);
    st = device_prepare_call(ctx, device, curve, report ? &full : NULL);
    if (report)
        sized_write(report, &full, bytes);
    return ctx_leave(ctx, st);
}

hpr_status hpr_calibrate(hpr_ctx *ctx, const char *device, hpr_curve curve, const unsigned *log_n, size_t count,
                         double *points_per_s)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, calibrate_call(ctx, device, curve, log_n, count, points_per_s));
}

hpr_status hpr_calibrate_ntt(hpr_ctx *ctx, const char *device, hpr_field field, const unsigned *log_n, size_t count,
                             double *elements_per_s)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, calibrate_ntt_call(ctx, device, field, log_n, count, elements_per_s));
}
