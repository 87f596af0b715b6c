/*
 * calibrate.c: device calibration (running it; the lookups are in speeds.c): MSM throughput per device, curve and size, and NTT
 * throughput per device, field and size, kept in the profile (runtime/sched/profile.h) that the
 * scheduler starts from (the MSM records under the curve's name, the NTT's under the
 * field's). Without a profile the scheduler probes each device with its first tile instead.
 *
 * Measurement: random inputs of the largest size asked; for each size 2^k, a warm-up and
 * three timed runs of the first 2^k points on that device alone; the median gives points/s
 * (transfers included for OpenCL devices, as the scheduler sees them). The NTT: columns of
 * 2^k elements, as many as make 2^16 elements (one above), forward, natural orders.
 * Each calibration is one tracked call for progress and cancellation (host/core/progress.h).
 */
#include "host/msm/msm_engine.h"
#include "host/core/devices.h"
#include "host/core/speeds.h"
#include "host/calibrate/calibrate_calls.h"
#include "host/msm/msm_calls.h"
#include "host/ntt/ntt_calls.h"
#include "runtime/sched/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIBRATION_SEED 0xca1ull
#define CALIBRATION_RUNS 3
#define MAX_CALIBRATION_LOG_N 24

/* The median of CALIBRATION_RUNS seconds, sorted in place. */
static double median_seconds(double *s)
{
    for (int i = 1; i < CALIBRATION_RUNS; i++) /* insertion sort of three */
        for (int j = i; j > 0 && s[j] < s[j - 1]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    return s[CALIBRATION_RUNS / 2];
}

/* What one calibration measures: the throughput at 2^log_n on device, from inputs made once
 * for the largest size (max_log). */
typedef struct {
    const char *label; /* the profile's name for it: the curve or the field */
    hpr_status (*prepare)(hpr_ctx *ctx, void *self, unsigned max_log);
    hpr_status (*measure)(hpr_ctx *ctx, void *self, const char *device, unsigned log_n, double *per_s);
    void (*release)(void *self);
} calibration;

/* Times run() once as a warm-up and CALIBRATION_RUNS times; items / the median seconds. A
 * notice (a device fell back to the CPU) fails the calibration: its figure would be the CPU's. */
static hpr_status timed_median(hpr_ctx *ctx, hpr_status (*run)(hpr_ctx *ctx, void *self), void *self, double items,
                               double *per_s)
{
    double s[CALIBRATION_RUNS];
    hpr_status st = HPR_OK;
    for (int r = -1; r < CALIBRATION_RUNS && st == HPR_OK; r++) { /* r = -1: the warm-up */
        double t0 = rt_now_seconds();
        st = run(ctx, self);
        if (r >= 0)
            s[r] = rt_now_seconds() - t0;
        if (st == HPR_OK && ctx->notice[0])
            st = ctx_fail(ctx, HPR_ERR_DEVICE, "%s", ctx->notice);
    }
    if (st == HPR_OK)
        *per_s = items / median_seconds(s);
    return st;
}

/* The progress units of a calibration (host/core/progress.h: one tracked call whose MSMs or NTTs
 * add into it): a warm-up and CALIBRATION_RUNS runs of each size (sizes above the maximum
 * are refused before any run). */
static uint64_t calibration_units(const unsigned *log_n, size_t count, uint64_t (*size_units)(unsigned log_n))
{
    uint64_t units = 0;
    for (size_t i = 0; i < count; i++)
        if (log_n[i] <= MAX_CALIBRATION_LOG_N)
            units += (CALIBRATION_RUNS + 1) * size_units(log_n[i]);
    return units;
}

/* The shared steps: arguments, the device's key, the inputs, each size measured and stored in
 * the profile (written once, atomically). */
static hpr_status calibrate_sizes(hpr_ctx *ctx, const char *device, calibration *cal, void *self,
                                  const unsigned *log_n, size_t count, unsigned max_allowed, double *per_s)
{
    char key[PROFILE_KEY_LEN];
    const char *dir = ctx->knobs.cl.cache_dir;
    unsigned max_log = 0;
    profile *prof = NULL;
    hpr_status st;
    if (strcmp(device, "all") == 0)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "calibrate one device at a time (cpu or cl:P.D), not all");
    for (size_t i = 0; i < count; i++) {
        if (log_n[i] > max_allowed)
            return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "calibration size 2^%u is above 2^%u for %s", log_n[i],
                            max_allowed, cal->label);
        max_log = log_n[i] > max_log ? log_n[i] : max_log;
    }
    if ((st = dev_profile_key(ctx, device, key, sizeof key)) != HPR_OK)
        return st;
    if (!dir[0])
        return ctx_fail(ctx, HPR_ERR_IO, "no directory for the profile (set HPR_CACHE_DIR or HOME)");
    if (!(prof = malloc(sizeof *prof)))
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "no memory for the calibration profile");
    if ((st = cal->prepare(ctx, self, max_log)) != HPR_OK)
        goto out;
    profile_load(prof, dir);
    for (size_t i = 0; i < count; i++) {
        double speed;
        if ((st = cal->measure(ctx, self, device, log_n[i], &speed)) != HPR_OK)
            goto out;
        profile_set(prof, key, cal->label, log_n[i], speed);
        if (per_s)
            per_s[i] = speed;
    }
    if (prof->malformed) /* set after the measurements, whose calls clear the notice */
        snprintf(ctx->notice, sizeof ctx->notice,
                 "calibration profile: %u malformed line(s) dropped when it was rewritten, the first: %.400s",
                 prof->malformed, prof->first_error);
    if (profile_store(prof, dir) != 0)
        st = ctx_fail(ctx, HPR_ERR_IO, "cannot write the profile %s/" PROFILE_FILE, dir);
out:
    cal->release(self);
    free(prof);
    return st;
}

/* ---- the MSM ---- */

typedef struct {
    calibration cal;
    hpr_curve curve;
    unsigned char *points, *scalars;
    size_t n;           /* the size being measured */
    const char *device; /* the device being measured */
} msm_calibration;

static hpr_status msm_prepare(hpr_ctx *ctx, void *self, unsigned max_log)
{
    msm_calibration *mc = self;
    size_t n = (size_t)1 << max_log;
    mc->points = malloc(n * msm_point_size(mc->curve, HPR_G1));
    mc->scalars = malloc(n * HPR_SCALAR_SIZE);
    if (!mc->points || !mc->scalars)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "calibration inputs of 2^%u points", max_log);
    return random_msm_inputs_call(ctx, mc->curve, HPR_G1, n, CALIBRATION_SEED, mc->points, mc->scalars);
}

static hpr_status msm_run(hpr_ctx *ctx, void *self)
{
    msm_calibration *mc = self;
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, mc->device};
    unsigned char out[96];
    return msm_ex_call(ctx, mc->curve, HPR_G1, mc->points, mc->scalars, mc->n, out, &opts);
}

static hpr_status msm_measure(hpr_ctx *ctx, void *self, const char *device, unsigned log_n, double *per_s)
{
    msm_calibration *mc = self;
    mc->n = (size_t)1 << log_n;
    mc->device = device;
    return timed_median(ctx, msm_run, mc, (double)mc->n, per_s);
}

static void msm_release(void *self)
{
    msm_calibration *mc = self;
    free(mc->points);
    free(mc->scalars);
}

static uint64_t msm_size_units(unsigned log_n)
{
    return progress_msm_units((size_t)1 << log_n, 1);
}

hpr_status calibrate_call(hpr_ctx *ctx, const char *device, hpr_curve curve, const unsigned *log_n, size_t count,
                          double *points_per_s)
{
    if (!ctx || !device || !log_n || count == 0)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    msm_calibration mc = {{speed_curve_label(curve), msm_prepare, msm_measure, msm_release}, curve, NULL, NULL, 0, NULL};
    progress_begin(ctx, "calibrate", calibration_units(log_n, count, msm_size_units));
    return progress_end(ctx, calibrate_sizes(ctx, device, &mc.cal, &mc, log_n, count, MAX_CALIBRATION_LOG_N,
                                             points_per_s));
}

/* ---- the NTT ---- */

#define NTT_CALIBRATION_ELEMENTS ((size_t)1 << 16)

typedef struct {
    calibration cal;
    hpr_field field;
    unsigned char *data, *work; /* canonical input; each run's copy */
    unsigned log_n;
    size_t columns;
    const char *device;
} ntt_calibration;

static hpr_status ntt_prepare(hpr_ctx *ctx, void *self, unsigned max_log)
{
    ntt_calibration *nc = self;
    size_t es = ntt_field_element_size(nc->field), elements = (size_t)1 << max_log;
    uint64_t x = CALIBRATION_SEED;
    if (elements < NTT_CALIBRATION_ELEMENTS)
        elements = NTT_CALIBRATION_ELEMENTS;
    nc->data = malloc(elements * es);
    nc->work = malloc(elements * es);
    if (!nc->data || !nc->work)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT calibration inputs of %zu elements", elements);
    for (size_t i = 0; i < elements * es; i++) { /* the top byte of each element 0: below p */
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        nc->data[i] = (i % es == es - 1) ? 0 : (unsigned char)(x >> 56);
    }
    return HPR_OK;
}

static hpr_status ntt_run(hpr_ctx *ctx, void *self)
{
    ntt_calibration *nc = self;
    hpr_ntt_opts opts = {sizeof opts, 0, HPR_NTT_NN, NULL, NULL, nc->columns, 0, nc->device};
    memcpy(nc->work, nc->data, (nc->columns << nc->log_n) * ntt_field_element_size(nc->field));
    return ntt_call(ctx, nc->field, nc->log_n, nc->work, &opts);
}

/* Columns of 2^log_n, as many as make 2^16 elements (one above). */
static hpr_status ntt_measure(hpr_ctx *ctx, void *self, const char *device, unsigned log_n, double *per_s)
{
    ntt_calibration *nc = self;
    size_t n = (size_t)1 << log_n;
    nc->log_n = log_n;
    nc->columns = n < NTT_CALIBRATION_ELEMENTS ? NTT_CALIBRATION_ELEMENTS / n : 1;
    nc->device = device;
    return timed_median(ctx, ntt_run, nc, (double)(nc->columns * n), per_s);
}

static void ntt_release(void *self)
{
    ntt_calibration *nc = self;
    free(nc->data);
    free(nc->work);
}

/* ntt_measure's batch: columns of 2^log_n, as many as make NTT_CALIBRATION_ELEMENTS. */
static uint64_t ntt_size_units(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    return progress_ntt_units(n < NTT_CALIBRATION_ELEMENTS ? NTT_CALIBRATION_ELEMENTS / n : 1, log_n);
}

hpr_status calibrate_ntt_call(hpr_ctx *ctx, const char *device, hpr_field field, const unsigned *log_n, size_t count,
                              double *elements_per_s)
{
    if (!ctx || !device || !log_n || count == 0)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!speed_field_label(field))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_FIELD, "field %d is not supported", (int)field);
    unsigned max = ntt_field_two_adicity(field) < MAX_CALIBRATION_LOG_N ? ntt_field_two_adicity(field)
                                                                         : MAX_CALIBRATION_LOG_N;
    ntt_calibration nc = {{speed_field_label(field), ntt_prepare, ntt_measure, ntt_release}, field, NULL, NULL, 0, 0, NULL};
    progress_begin(ctx, "calibrate", calibration_units(log_n, count, ntt_size_units));
    return progress_end(ctx, calibrate_sizes(ctx, device, &nc.cal, &nc, log_n, count, max, elements_per_s));
}
