/*
 * internal.h: what the library's translation units share but users do not see.
 */
#ifndef HPR_INTERNAL_H
#define HPR_INTERNAL_H

#include <stdint.h>

#include "hyprove.h"
#include "../runtime/rt_pool.h"
#include "../kernels_cpu/msm_cpu.h"
#include "../runtime/cl_device.h"
#include "../runtime/sched.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hyprove assumes a little-endian host: structs of 64-bit limbs are the interchange bytes"
#endif

typedef struct hpr_ntt_cache hpr_ntt_cache; /* twiddle tables (host/ntt.c) */
void hpr_ntt_cache_free(hpr_ntt_cache *cache);
/* hpr_ntt over data (column-major) already in the internal form of a 256-bit field (reduced
 * Montgomery, as fe_impl.h's bn254_fr / bls12_381_fr), transformed in place: no range check
 * and no conversion (the Groth16 prover's h). */
hpr_status hpr_ntt_internal_form(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts);

struct hpr_ctx {
    rt_pool *pool;
    unsigned threads;
    rt_cpu_tier cpu_tier;
    char device[16];  /* default device: "cpu", "all" or "cl:P.D" */
    cl_runtime *cl;   /* opened on first need; NULL before */
    char detail[CL_DETAIL_LEN];
    char notice[CL_DETAIL_LEN];
    hpr_run_report report;
    int have_report;
    hpr_ntt_cache *ntt_cache; /* NULL until the first NTT */
};

/* The MSM over every usable device (hybrid scheduler). Arguments checked by the caller. */
hpr_status hpr_msm_hybrid(hpr_ctx *ctx, hpr_curve curve, const msm_curve_ops *ops, const unsigned char *points,
                          const unsigned char *scalars, size_t n, unsigned char *out);

/* Appends "device: text" to the run report's notes. */
void hpr_report_note(hpr_ctx *ctx, const char *device, const char *text);

/* The OpenCL devices that join a hybrid run (at most max, into picked): usable, ready for
 * curve's MSMs (program built, self-test passed; curve 0: not checked, for the NTT), and not
 * oversubscribing the cores beside the native pool; the others are named in the notes. */
unsigned hpr_pick_opencl_devices(hpr_ctx *ctx, hpr_curve curve, cl_dev **picked, unsigned max);

/* The run report of a scheduled job: per device (devs[d] NULL for the CPU) its tiles, items
 * as points (items * points_per_item), times and failures; a device dropped by the scheduler
 * is marked failed. */
void hpr_fill_report(hpr_ctx *ctx, cl_dev *const *devs, unsigned ndev, const sched_device_report *reps,
                     double points_per_item, double seconds);

/* Starts a one-device report for device name. */
void hpr_report_single(hpr_ctx *ctx, const char *device, size_t n, double seconds);

/* Opens the OpenCL runtime of ctx if not yet done (a runtime without devices when OpenCL is
 * absent). HPR_ERR_OUT_OF_MEMORY otherwise. */
hpr_status hpr_ctx_opencl(hpr_ctx *ctx);

/* Resolves a device name: *dev = NULL for the CPU ("cpu", "all"), the OpenCL device for
 * "cl:P.D"; HPR_ERR_UNKNOWN_DEVICE (with detail) for anything else. */
hpr_status hpr_resolve_device(hpr_ctx *ctx, const char *name, cl_dev **dev);

/* Makes dev ready for MSMs of curve: program built, self-test passed (once per curve).
 * HPR_ERR_DEVICE with detail if not; the device is then marked failed. */
hpr_status hpr_device_ready(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve);

/* The MSM on the CPU thread pool (arguments already checked by the caller). */
hpr_status hpr_msm_cpu(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, const void *scalars, size_t n,
                       void *out, const hpr_msm_opts *opts);

/*
 * The CPU's MSM in two steps, so that a scheduler can deal it in tiles: prepare once (scalars
 * checked and sorted, points validated, the window size c chosen, the points in the kernel's
 * form and the digits of every window), then run any number of pieces (windows x point
 * ranges) on the pool. Pieces that cover every (window, point) once add up to the MSM.
 */
typedef struct hpr_cpu_job hpr_cpu_job;

/* Fails like hpr_msm_cpu on a scalar >= r or an invalid point (the first one named). The
 * window size is opts->window_bits if set (opts may be NULL), else chosen for the pool. */
hpr_status hpr_cpu_job_prepare(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, const void *scalars,
                               size_t n, const hpr_msm_opts *opts, hpr_cpu_job **job);
unsigned hpr_cpu_job_window_bits(const hpr_cpu_job *job);
unsigned hpr_cpu_job_windows(const hpr_cpu_job *job);
/* result (XYZZ of ops) = sum over windows w in [w0, w1) of 2^(c w) * sum over points i in
 * [p0, p1) of d_w(k_i) * P_i, d_w the Booth digit of window w (msm_impl.h). Contracts:
 * w0 < w1 <= windows, p0 <= p1 <= n. Only fails for memory. */
hpr_status hpr_cpu_job_run(hpr_ctx *ctx, hpr_cpu_job *job, unsigned w0, unsigned w1, size_t p0, size_t p1,
                           void *result);
void hpr_cpu_job_free(hpr_cpu_job *job);

/* The message of an invalid point (range or curve) at index, as every device reports it. */
hpr_status hpr_point_error(hpr_ctx *ctx, const msm_curve_ops *ops, size_t index, msm_point_check kind);

/* Records a printf-style detail on ctx (if not NULL) and returns status unchanged. */
hpr_status hpr_fail(hpr_ctx *ctx, hpr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The G1 operation table of a curve, or NULL. */
const msm_curve_ops *hpr_g1_ops(hpr_curve curve);
/* The operation table of (curve, group), or NULL when either is not supported. */
const msm_curve_ops *hpr_curve_ops(hpr_curve curve, hpr_group group);

/* Decimal <-> little-endian 64-bit limbs (n limbs). to_limbs returns 0, or -1 on an empty
 * string, a non-digit or a value >= 2^(64n). from_limbs needs buflen >= 20n + 1. */
int hpr_dec_to_limbs(uint64_t *limbs, unsigned n, const char *s);
void hpr_dec_from_limbs(char *buf, const uint64_t *limbs, unsigned n);

#endif
