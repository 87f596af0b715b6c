/*
 * call.c: the state of one public call, kept in the context: the failure detail, the notice
 * (a device failed and the CPU made good) and the run report. Every entry point starts with
 * ctx_call_begin; the helpers below are the only writers of notes and device failures.
 */
#include "context.h"

#include <stdarg.h>
#include <stdio.h>
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
    switch (status) {
    case HPR_OK: return "ok";
    case HPR_ERR_INVALID_ARGUMENT: return "invalid argument";
    case HPR_ERR_UNSUPPORTED_CURVE: return "unsupported curve";
    case HPR_ERR_UNSUPPORTED_GROUP: return "unsupported group";
    case HPR_ERR_SCALAR_OUT_OF_RANGE: return "scalar out of range (>= group order r)";
    case HPR_ERR_COORDINATE_OUT_OF_RANGE: return "point coordinate out of range (>= field modulus p)";
    case HPR_ERR_POINT_NOT_ON_CURVE: return "point not on the curve";
    case HPR_ERR_POINT_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case HPR_ERR_UNKNOWN_DEVICE: return "unknown or unavailable device";
    case HPR_ERR_CPU_TIER: return "CPU kernel tier not available on this processor or build";
    case HPR_ERR_UNSUPPORTED_FIELD: return "unsupported field";
    case HPR_ERR_ELEMENT_OUT_OF_RANGE: return "field element out of range (>= modulus p)";
    case HPR_ERR_PROOF_INVALID: return "the proof does not verify";
    case HPR_ERR_FORMAT: return "malformed input";
    case HPR_ERR_IO: return "input/output error";
    case HPR_ERR_WITNESS_LENGTH: return "witness length differs from the circuit's";
    case HPR_ERR_OUT_OF_MEMORY: return "out of memory";
    case HPR_ERR_THREADS: return "could not start threads";
    case HPR_ERR_DEVICE: return "device error";
    case HPR_ERR_INTERNAL: return "internal error";
    case HPR_ERR_CANCELLED: return "cancelled by the caller";
    }
    return "unknown status";
}

void ctx_call_begin(hpr_ctx *ctx)
{
    ctx->detail[0] = '\0';
    ctx->notice[0] = '\0';
    memset(&ctx->report, 0, sizeof ctx->report);
    ctx->have_report = 0;
}

hpr_status ctx_fail(hpr_ctx *ctx, hpr_status status, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->detail, sizeof ctx->detail, fmt, ap);
        va_end(ap);
    }
    return status;
}

void ctx_notice_cpu_redid(hpr_ctx *ctx, const char *op)
{
    snprintf(ctx->notice, sizeof ctx->notice, "%.400s; the %s was computed on the CPU instead", ctx->detail, op);
    ctx->detail[0] = '\0';
}

void ctx_device_failed(cl_dev *dev, const char *why)
{
    dev->failed = 1;
    if (why != dev->failure)
        snprintf(dev->failure, sizeof dev->failure, "%s", why);
}

hpr_status ctx_device_error(hpr_ctx *ctx, cl_dev *dev, const char *why)
{
    ctx_device_failed(dev, why);
    return ctx_fail(ctx, HPR_ERR_DEVICE, "%s: %s", dev->id, dev->failure);
}

void note_append(char *notes, size_t len, const char *device, const char *text)
{
    size_t used = strlen(notes);
    if (used + 2 >= len)
        return;
    if (device)
        snprintf(notes + used, len - used, "%s%.16s: %.400s", used ? "; " : "", device, text);
    else if (text[0])
        snprintf(notes + used, len - used, "%s%.200s", used ? "; " : "", text);
}

void report_note(hpr_ctx *ctx, const char *device, const char *text)
{
    note_append(ctx->report.notes, sizeof ctx->report.notes, device, text);
}

void report_single(hpr_ctx *ctx, const char *device, size_t n, double seconds)
{
    hpr_run_report *r = &ctx->report;
    memset(r, 0, sizeof *r);
    r->ndevices = 1;
    snprintf(r->devices[0].device, sizeof r->devices[0].device, "%s", device);
    r->devices[0].tiles = 1;
    r->devices[0].points = n;
    r->devices[0].busy_s = seconds;
    r->devices[0].points_per_s = seconds > 0 ? (double)n / seconds : 0;
    r->seconds = seconds;
    ctx->have_report = 1;
}

void report_fill(hpr_ctx *ctx, cl_dev *const *devs, unsigned ndev, const sched_device_report *reps,
                 double points_per_item, double seconds)
{
    hpr_run_report *r = &ctx->report;
    RT_INVARIANT(ndev <= HPR_REPORT_MAX_DEVICES);
    r->ndevices = ndev;
    r->seconds = seconds;
    for (unsigned d = 0; d < ndev; d++) {
        hpr_device_run *o = &r->devices[d];
        snprintf(o->device, sizeof o->device, "%s", devs[d] ? devs[d]->id : "cpu");
        o->tiles = reps[d].tiles;
        o->failures = reps[d].failures;
        o->points = (unsigned long long)((double)reps[d].items * points_per_item + 0.5);
        o->busy_s = reps[d].busy_s;
        o->wait_s = reps[d].wait_s;
        o->points_per_s = reps[d].busy_s > 0 ? (double)o->points / reps[d].busy_s : 0;
        o->dropped = reps[d].dropped;
        snprintf(o->failure, sizeof o->failure, "%s", reps[d].failure);
        if (reps[d].failures)
            report_note(ctx, o->device, "failed tiles were redone by the other devices");
        if (devs[d] && reps[d].dropped)
            ctx_device_failed(devs[d], reps[d].failure);
    }
    ctx->have_report = 1;
}

sched_tiling ctx_tiling(const hpr_ctx *ctx, size_t min_tile, size_t probe_tile, size_t align)
{
    sched_tiling t;
    memset(&t, 0, sizeof t);
    t.min_tile = min_tile;
    t.probe_tile = probe_tile;
    t.align = align;
    t.every_device = ctx->knobs.sched_every_device;
    t.trace = ctx->knobs.sched_trace;
    return t;
}
