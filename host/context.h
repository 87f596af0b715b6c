/*
 * context.h: the context behind the public hpr_ctx handle, and the per-call helpers every
 * entry point uses (the lowest layer of host/: it calls nothing above the runtime).
 *
 * A call's state lives in the context: detail (why the call failed), notice (a device failed
 * and the CPU made good), the run report. ctx_call_begin clears all three once per public
 * call; nothing else resets them by hand.
 */
#ifndef HOST_CONTEXT_H
#define HOST_CONTEXT_H

#include "hyprove.h"
#include "progress.h"
#include "runtime/base/cpu_features.h"
#include "runtime/base/rt_check.h"
#include "runtime/base/rt_pool.h"
#include "runtime/opencl/cl_device.h"
#include "runtime/sched/sched.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hyprove assumes a little-endian host: structs of 64-bit limbs are the interchange bytes"
#endif

typedef struct ntt_twiddle_cache ntt_twiddle_cache; /* host/ntt_twiddles.c */

/* The environment knobs, read once when a context is created (host/knobs.c). */
typedef struct {
    char cpu_tier[16];         /* HPR_CPU: the CPU kernel tier forced ("" none) */
    int ntt_four_step;         /* HPR_NTT_FOUR_STEP=1: one large NTT runs four-step under "all" */
    char sched_fault[64];      /* HPR_SCHED_INJECT_FAULT=cl:P.D@K: that device's K-th tile fails */
    char sched_tiles[64];      /* HPR_SCHED_TILES=min,probe,blocks,c: the MSM grid forced (tests) */
    int sched_every_device;    /* HPR_SCHED_EVERY_DEVICE=1: every device gets a probe tile */
    int sched_trace;           /* HPR_SCHED_TRACE: tiles printed on stderr */
    cl_options cl;             /* HPR_OPENCL_LIBRARY, HPR_CL_WORDS, HPR_CL_INJECT_FAULT,
                                * HPR_CL_MAX_ALLOC, HPR_CACHE_DIR (else XDG_CACHE_HOME, HOME) */
} ctx_knobs;

struct hpr_ctx {
    rt_pool *pool;
    unsigned threads;
    rt_cpu_tier cpu_tier;
    char device[16];  /* default device: "cpu", "all" or "cl:P.D" */
    cl_runtime *cl;   /* opened on first need; NULL before */
    ctx_knobs knobs;
    char detail[CL_DETAIL_LEN];
    char notice[CL_DETAIL_LEN];
    hpr_run_report report;
    int have_report;
    ntt_twiddle_cache *ntt_cache; /* NULL until the first NTT */
    hpr_bases *bases;             /* the live bases made with this context (host/resident.h) */
    uint64_t g16_owner;           /* the prover whose bases the devices hold (host/groth16_prove.c) */
    progress_state progress;      /* the running call's progress and cancellation (host/progress.h) */
};

/* Fills k from the environment (host/knobs.c). */
void knobs_read(ctx_knobs *k);

/* Starts a public call: detail, notice and report cleared. */
void ctx_call_begin(hpr_ctx *ctx);

/* Records a printf-style detail on ctx (if not NULL) and returns status unchanged. */
RT_MUST_CHECK hpr_status ctx_fail(hpr_ctx *ctx, hpr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Sets the notice: "<what failed>; the <op> was computed on the CPU instead" (op: "MSM",
 * "NTT") from the detail, which is cleared (the call itself succeeds). */
void ctx_notice_cpu_redid(hpr_ctx *ctx, const char *op);

/* Marks dev unusable for the rest of the context's life, with the reason. */
void ctx_device_failed(cl_dev *dev, const char *why);

/* ctx_device_failed, then HPR_ERR_DEVICE with the detail "<id>: <why>". */
RT_MUST_CHECK hpr_status ctx_device_error(hpr_ctx *ctx, cl_dev *dev, const char *why);

/* Appends "<device>: <text>" (text cut at 400 characters) to the run report's notes, and
 * note_append to a notes buffer of len bytes; with device NULL, note_append joins text alone
 * (cut at 200 characters; nothing for an empty text), as a proof joins its phases' notices.
 * Notes are separated by "; "; a full buffer takes no more. */
void report_note(hpr_ctx *ctx, const char *device, const char *text);
void note_append(char *notes, size_t len, const char *device, const char *text);

/* Starts a one-device report for device name. */
void report_single(hpr_ctx *ctx, const char *device, size_t n, double seconds);

/* The run report of a scheduled job: per device (devs[d] NULL for the CPU) its tiles, items
 * as points (items * points_per_item), times and failures; a device dropped by the scheduler
 * is marked failed. */
void report_fill(hpr_ctx *ctx, cl_dev *const *devs, unsigned ndev, const sched_device_report *reps,
                 double points_per_item, double seconds);

/* The scheduler's tiling knobs of ctx (every_device, trace) on top of the given sizes. */
sched_tiling ctx_tiling(const hpr_ctx *ctx, size_t min_tile, size_t probe_tile, size_t align);

#endif
