/*
 * calibrate.c: device calibration: MSM throughput per device, curve and size, kept in the
 * profile (runtime/profile.h) that the hybrid scheduler starts from. Without a profile the
 * scheduler probes each device with its first tile instead.
 *
 * Measurement: random inputs of the largest size asked; for each size 2^k, a warm-up and
 * three timed runs of the first 2^k points on that device alone; the median gives points/s
 * (transfers included for OpenCL devices, as the scheduler sees them).
 */
#include "internal.h"
#include "../runtime/cpu_features.h"
#include "../runtime/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIBRATION_SEED 0xca1ull
#define CALIBRATION_RUNS 3
#define MAX_CALIBRATION_LOG_N 24

/* The identity under which a device's figures are stored (the CPU's includes its kernel
 * tier: the tiers differ up to fivefold). */
static hpr_status device_key(hpr_ctx *ctx, const char *device, char *key, size_t len)
{
    cl_dev *dev;
    hpr_status st = hpr_resolve_device(ctx, device, &dev);
    if (st != HPR_OK)
        return st;
    if (!dev) {
        rt_cpu_features f;
        rt_cpu_features_detect(&f);
        snprintf(key, len, "cpu|%s|threads=%u|tier=%s", f.brand, ctx->threads, rt_cpu_tier_name(ctx->cpu_tier));
    } else {
        snprintf(key, len, "cl|%.100s|%.60s|%.60s|cu=%u", dev->name, dev->vendor, dev->driver, dev->compute_units);
    }
    return HPR_OK;
}

static const char *curve_label(hpr_curve curve)
{
    return curve == HPR_CURVE_BN254 ? "bn254" : "bls12-381";
}

static hpr_status time_size(hpr_ctx *ctx, const char *device, hpr_curve curve, const unsigned char *points,
                            const unsigned char *scalars, size_t n, double *points_per_s)
{
    hpr_msm_opts opts = {0, 0, 0, device};
    unsigned char out[96];
    double ms[CALIBRATION_RUNS];
    hpr_status st = hpr_msm_ex(ctx, curve, HPR_G1, points, scalars, n, out, &opts);
    for (int r = 0; r < CALIBRATION_RUNS && st == HPR_OK; r++) {
        double t0 = rt_now_seconds();
        st = hpr_msm_ex(ctx, curve, HPR_G1, points, scalars, n, out, &opts);
        ms[r] = rt_now_seconds() - t0;
        if (st == HPR_OK && ctx->notice[0])
            st = hpr_fail(ctx, HPR_ERR_DEVICE, "%s", ctx->notice);
    }
    if (st != HPR_OK)
        return st;
    for (int i = 1; i < CALIBRATION_RUNS; i++) /* insertion sort of three */
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            double t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    *points_per_s = (double)n / ms[CALIBRATION_RUNS / 2];
    return HPR_OK;
}

hpr_status hpr_calibrate(hpr_ctx *ctx, const char *device, hpr_curve curve, const unsigned *log_n, size_t count,
                         double *points_per_s)
{
    char key[PROFILE_KEY_LEN], dir[4096];
    unsigned max_log = 0;
    unsigned char *points = NULL, *scalars = NULL;
    profile *prof = NULL;
    hpr_status st;
    if (!ctx || !device || !log_n || count == 0)
        return HPR_ERR_INVALID_ARGUMENT;
    if (strcmp(device, "all") == 0)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "calibrate one device at a time (cpu or cl:P.D), not all");
    if (!hpr_g1_ops(curve))
        return hpr_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    for (size_t i = 0; i < count; i++) {
        if (log_n[i] > MAX_CALIBRATION_LOG_N)
            return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "calibration size 2^%u is above 2^%d", log_n[i],
                            MAX_CALIBRATION_LOG_N);
        max_log = log_n[i] > max_log ? log_n[i] : max_log;
    }
    if ((st = device_key(ctx, device, key, sizeof key)) != HPR_OK)
        return st;
    if (cl_cache_dir(dir, sizeof dir) != 0)
        return hpr_fail(ctx, HPR_ERR_IO, "no directory for the profile (set HPR_CACHE_DIR or HOME)");
    size_t n = (size_t)1 << max_log, ps = hpr_point_size(curve, HPR_G1);
    points = malloc(n * ps);
    scalars = malloc(n * HPR_SCALAR_SIZE);
    prof = malloc(sizeof *prof);
    if (!points || !scalars || !prof) {
        st = hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "calibration inputs of 2^%u points", max_log);
        goto out;
    }
    if ((st = hpr_random_msm_inputs(ctx, curve, HPR_G1, n, CALIBRATION_SEED, points, scalars)) != HPR_OK)
        goto out;
    profile_load(prof, dir);
    for (size_t i = 0; i < count; i++) {
        double speed;
        if ((st = time_size(ctx, device, curve, points, scalars, (size_t)1 << log_n[i], &speed)) != HPR_OK)
            goto out;
        profile_set(prof, key, curve_label(curve), log_n[i], speed);
        if (points_per_s)
            points_per_s[i] = speed;
    }
    if (profile_store(prof, dir) != 0)
        st = hpr_fail(ctx, HPR_ERR_IO, "cannot write the profile %s/profile.json", dir);
out:
    free(points);
    free(scalars);
    free(prof);
    return st;
}

double hpr_calibrated_speed(hpr_ctx *ctx, const char *device, hpr_curve curve, unsigned log_n)
{
    char key[PROFILE_KEY_LEN], dir[4096];
    double speed = 0;
    profile *prof;
    if (!ctx || !device || device_key(ctx, device, key, sizeof key) != HPR_OK || cl_cache_dir(dir, sizeof dir) != 0)
        return 0;
    prof = malloc(sizeof *prof);
    if (!prof)
        return 0;
    profile_load(prof, dir);
    speed = profile_speed(prof, key, curve_label(curve), log_n);
    free(prof);
    return speed;
}
