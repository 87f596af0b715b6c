/*
 * progress.h: the progress report and the cancellation of one public call (host/core/progress.c),
 * kept in the context (hpr_ctx.progress).
 *
 * A call is tracked from progress_begin to progress_end on the caller's thread; nested calls
 * (a proof's MSMs, the NTTs of its h, a calibration's MSMs) do not restart it: their begin
 * and end only count the depth, and their work adds into the outer call's units. So every
 * entry point measures its work in the same units (progress_msm_units, progress_ntt_units)
 * and the outer call's total is the sum of what its inner calls will add.
 * Work adds its units as it completes (progress_add, from any thread); the callback runs on
 * the thread whose add finds the interval passed and no other report running (an atomic
 * guard, so never two at once and never a lock in the hot path). Cancellation is a check
 * before each unit of work (progress_cancelled); once seen it stays seen until the call ends,
 * so every check after the first agrees and the work skipped is always reported.
 * Cost: an add is one relaxed atomic add, and with a callback a monotonic clock read (tens of
 * nanoseconds); a check is two or three relaxed loads. Both run per MSM tile, NTT stage or
 * conversion chunk (at least tens of microseconds of work each): unmeasurable.
 */
#ifndef HOST_PROGRESS_H
#define HOST_PROGRESS_H

#include "hyprove.h"
#include "runtime/base/rt_check.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    /* from hpr_config, fixed for the context's life */
    hpr_progress_fn fn;
    void *user;
    double interval;
    const volatile int *cancel;
    atomic_int cancel_flag; /* hpr_ctx_cancel; cleared by the next outermost progress_begin */
    /* the tracked call: written by the caller's thread while no work of the call runs */
    unsigned depth; /* nested begins (the caller's thread only) */
    const char *call;
    uint64_t total; /* the units the call will add; 0: nothing reported */
    double t0;
    atomic_int active;  /* a call is tracked: cancellation applies */
    atomic_int stopped; /* a check saw the cancel (latched until the call ends) */
    atomic_uint_least64_t done;
    _Atomic(const char *) phase;
    _Atomic double next_at;  /* the earliest time of the next report */
    atomic_flag reporting;   /* a report is running */
    double last_fraction;    /* the last reported (under reporting) */
} progress_state;

/* The state of a new context from its configuration (cfg not NULL). */
void progress_init(progress_state *p, const hpr_config *cfg);

/* Starts tracking call (a static name: "msm", "ntt", ...) of total units, unless a call is
 * tracked already (then only the depth grows). The caller's thread, no work running. */
void progress_begin(hpr_ctx *ctx, const char *call, uint64_t total);

/* Ends what progress_begin started: at the outermost level, the final report (fraction 1)
 * when st is HPR_OK and a callback is set, then the call is no longer tracked. Returns st. */
RT_MUST_CHECK hpr_status progress_end(hpr_ctx *ctx, hpr_status st);

/* units of the tracked call's work done (any thread); may report. Outside a tracked call it
 * only counts (reset by the next begin). */
void progress_add(hpr_ctx *ctx, uint64_t units);

/* The phase that is running now (a static name, "" none), shown with the next report. */
void progress_phase(hpr_ctx *ctx, const char *phase);

/* Whether the tracked call is to stop (the caller's flag or hpr_ctx_cancel); latched: once 1,
 * 1 until the call ends. Always 0 outside a tracked call. Any thread. */
int progress_cancelled(hpr_ctx *ctx);

/* HPR_ERR_CANCELLED with the detail "cancelled after 37% of the msm" (and the phase). */
RT_MUST_CHECK hpr_status progress_fail(hpr_ctx *ctx);

/* progress_fail when progress_cancelled, else HPR_OK: the check before a step. */
RT_MUST_CHECK hpr_status progress_check(hpr_ctx *ctx);

/* The units of an MSM of n points (degree 1: G1; 2: G2, three times a G1 point's) and of an
 * NTT of columns x 2^log_n elements: the scale every call shares, so that a proof's phases
 * weigh roughly as their time. Contract: the MSM adds 1/8 of its units as the points are
 * validated and the rest over its tiles (msm_cpu_job.c), the NTT one unit per element and
 * stage (conversions in and out, before, log_n for the butterflies, after: ntt_pipeline.c). */
uint64_t progress_msm_units(size_t n, unsigned degree);
uint64_t progress_ntt_units(size_t columns, unsigned log_n);

#endif
