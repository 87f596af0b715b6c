/*
 * progress.c: the progress report and the cancellation of one public call (see progress.h
 * for the model: a tracked call, units added as work completes, checks before each unit).
 *
 * Reports: an add reads the clock only when a callback is set, and reports when the interval
 * has passed and no report is running (atomic_flag: the loser skips, it does not wait). The
 * fraction is done / total, kept below 1 and never below the last one reported (units of
 * concurrent tiles arrive in any order, and a nested call's units are estimates of its share
 * of the outer total); the final report at a successful end is exactly 1.
 * Cancellation: the caller's flag (a plain int that a signal handler may set, read through
 * its volatile pointer) and the context's atomic flag (hpr_ctx_cancel) are read with relaxed
 * loads; the first check that sees either latches `stopped`, which the end of the call clears.
 * Nothing here takes a lock.
 */
#include "host/core/context.h"
#include "host/core/core_calls.h"

#include <stdio.h>

#define DEFAULT_INTERVAL_S 0.1
#define MAX_FRACTION_BEFORE_END 0.999
#define MSM_UNITS_PER_POINT 64
#define G2_UNITS_RATIO 3
#define NTT_STAGES_BESIDE_BUTTERFLIES 4 /* conversions in and out, before and after */
#define MAX_UNITS ((double)((uint64_t)1 << 62))

void progress_init(progress_state *p, const hpr_config *cfg)
{
    p->fn = cfg->progress;
    p->user = cfg->progress_user;
    p->interval = cfg->progress_interval_s > 0 ? cfg->progress_interval_s : DEFAULT_INTERVAL_S;
    p->cancel = cfg->cancel;
    atomic_init(&p->cancel_flag, 0);
    atomic_init(&p->active, 0);
    atomic_init(&p->stopped, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->phase, "");
    atomic_init(&p->next_at, 0.0);
    atomic_flag_clear(&p->reporting);
    p->depth = 0;
    p->call = "";
    p->total = 0;
}

void progress_cancel(hpr_ctx *ctx)
{
    if (ctx)
        atomic_store_explicit(&ctx->progress.cancel_flag, 1, memory_order_relaxed);
}

void progress_begin(hpr_ctx *ctx, const char *call, uint64_t total)
{
    progress_state *p = &ctx->progress;
    if (p->depth++ > 0)
        return;
    atomic_store(&p->cancel_flag, 0);
    atomic_store(&p->stopped, 0);
    atomic_store(&p->done, 0);
    atomic_store(&p->phase, "");
    p->call = call;
    p->total = total;
    p->t0 = rt_now_seconds();
    p->last_fraction = 0;
    atomic_store(&p->next_at, p->t0 + p->interval);
    atomic_store(&p->active, 1);
}

/* Calls the callback (the reporting guard held, or no work running) with phase. */
static void report(progress_state *p, const char *phase, double fraction, double now)
{
    hpr_progress r = {sizeof r, p->call, phase, fraction, now - p->t0};
    p->fn(&r, p->user);
}

hpr_status progress_end(hpr_ctx *ctx, hpr_status st)
{
    progress_state *p = &ctx->progress;
    RT_INVARIANT(p->depth > 0);
    if (--p->depth > 0)
        return st;
    if (st == HPR_OK && p->fn) /* the whole call: no phase */
        report(p, "", 1.0, rt_now_seconds());
    atomic_store(&p->active, 0);
    atomic_store(&p->stopped, 0);
    p->total = 0;
    return st;
}

/* done / total, below 1, not below the last report (the guard held). */
static double fraction_now(progress_state *p)
{
    double f = (double)atomic_load_explicit(&p->done, memory_order_relaxed) / (double)p->total;
    if (f > MAX_FRACTION_BEFORE_END)
        f = MAX_FRACTION_BEFORE_END;
    if (f < p->last_fraction)
        f = p->last_fraction;
    p->last_fraction = f;
    return f;
}

void progress_add(hpr_ctx *ctx, uint64_t units)
{
    progress_state *p = &ctx->progress;
    atomic_fetch_add_explicit(&p->done, units, memory_order_relaxed);
    if (!p->fn || !atomic_load_explicit(&p->active, memory_order_relaxed) || p->total == 0)
        return;
    double now = rt_now_seconds();
    if (now < atomic_load_explicit(&p->next_at, memory_order_relaxed) ||
        atomic_flag_test_and_set_explicit(&p->reporting, memory_order_acquire))
        return;
    if (now >= atomic_load_explicit(&p->next_at, memory_order_relaxed)) { /* not taken by the report before */
        report(p, atomic_load_explicit(&p->phase, memory_order_relaxed), fraction_now(p), now);
        atomic_store_explicit(&p->next_at, rt_now_seconds() + p->interval, memory_order_relaxed);
    }
    atomic_flag_clear_explicit(&p->reporting, memory_order_release);
}

void progress_phase(hpr_ctx *ctx, const char *phase)
{
    atomic_store_explicit(&ctx->progress.phase, phase, memory_order_relaxed);
}

int progress_cancelled(hpr_ctx *ctx)
{
    progress_state *p = &ctx->progress;
    if (!atomic_load_explicit(&p->active, memory_order_relaxed))
        return 0;
    if (atomic_load_explicit(&p->stopped, memory_order_relaxed))
        return 1;
    if (!(p->cancel && __atomic_load_n(p->cancel, __ATOMIC_RELAXED)) && !atomic_load_explicit(&p->cancel_flag, memory_order_relaxed))
        return 0;
    atomic_store_explicit(&p->stopped, 1, memory_order_relaxed);
    return 1;
}

hpr_status progress_fail(hpr_ctx *ctx)
{
    progress_state *p = &ctx->progress;
    const char *phase = atomic_load_explicit(&p->phase, memory_order_relaxed);
    double f = p->total ? (double)atomic_load_explicit(&p->done, memory_order_relaxed) / (double)p->total : 0;
    return ctx_fail(ctx, HPR_ERR_CANCELLED, "cancelled after %.0f%% of the %s%s%s%s", 100 * (f < 1 ? f : 1),
                    p->call ? p->call : "call", phase[0] ? " (" : "", phase, phase[0] ? ")" : "");
}

hpr_status progress_check(hpr_ctx *ctx)
{
    return progress_cancelled(ctx) ? progress_fail(ctx) : HPR_OK;
}

uint64_t progress_msm_units(size_t n, unsigned degree)
{
    double u = (double)n * MSM_UNITS_PER_POINT * (degree == 2 ? G2_UNITS_RATIO : 1);
    return (uint64_t)(u < MAX_UNITS ? u : MAX_UNITS);
}

uint64_t progress_ntt_units(size_t columns, unsigned log_n)
{
    double u = (double)columns * (double)((uint64_t)1 << (log_n < 62 ? log_n : 62)) *
               (log_n + NTT_STAGES_BESIDE_BUTTERFLIES);
    return (uint64_t)(u < MAX_UNITS ? u : MAX_UNITS);
}
