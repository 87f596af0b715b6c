/*
 * speeds.c: the calibrated speeds the schedulers start from, looked up in the profile that
 * host/calibrate/calibrate.c writes (runtime/sched/profile.h, in the cache directory): per device
 * (the CPU under its model, thread count and kernel tier), curve or field, and size.
 */
#include "host/core/speeds.h"
#include "host/core/devices.h"
#include "host/core/core_calls.h"
#include "runtime/sched/profile.h"

#include <stdio.h>
#include <stdlib.h>

const char *speed_curve_label(hpr_curve curve)
{
    return curve == HPR_CURVE_BN254 ? "bn254" : "bls12-381";
}

const char *speed_field_label(hpr_field field)
{
    static const char *const names[] = {NULL, "bn254-fr", "bls12-381-fr", "goldilocks", "babybear", "koalabear"};
    return field >= 1 && field <= 5 ? names[field] : NULL;
}

/* The profile's figure for (device, label, size nearest 2^log_n), or 0. */
static double profile_lookup(hpr_ctx *ctx, const char *device, const char *label, unsigned log_n)
{
    char key[PROFILE_KEY_LEN];
    const char *dir = ctx ? ctx->knobs.cl.cache_dir : "";
    double speed = 0;
    profile *prof;
    if (!ctx || !device || !label || !dir[0] || dev_profile_key(ctx, device, key, sizeof key) != HPR_OK)
        return 0;
    prof = malloc(sizeof *prof);
    if (!prof)
        return 0;
    profile_load(prof, dir);
    if (prof->malformed)
        snprintf(ctx->notice, sizeof ctx->notice, "calibration profile: %u malformed line(s) not used, the first: %.400s",
                 prof->malformed, prof->first_error);
    speed = profile_speed(prof, key, label, log_n);
    free(prof);
    return speed;
}

double calibrated_speed_call(hpr_ctx *ctx, const char *device, hpr_curve curve, unsigned log_n)
{
    if (ctx)
        ctx->notice[0] = '\0'; /* a malformed profile line is this call's notice */
    if (curve != HPR_CURVE_BN254 && curve != HPR_CURVE_BLS12_381)
        return 0; /* speed_curve_label would name BLS12-381 for it */
    return profile_lookup(ctx, device, speed_curve_label(curve), log_n);
}

double calibrated_ntt_speed_call(hpr_ctx *ctx, const char *device, hpr_field field, unsigned log_n)
{
    if (ctx)
        ctx->notice[0] = '\0'; /* a malformed profile line is this call's notice */
    return profile_lookup(ctx, device, speed_field_label(field), log_n);
}
