/*
 * call.c: the state of one public call, kept in the context: the failure detail, the notice
 * (a device failed and the CPU made good) and the run report. Every entry point starts with
 * ctx_call_begin; the helpers below are the only writers of notes and device failures.
 *
 * The call lock (see context.h): taken by host/api/ alone, around one engine entry; inside
 * the library an engine calls another engine's entry directly (calibration's MSMs, a proof's
 * blinding sums), never an hpr_ function, so the lock is a plain mutex. The one public call
 * that nests is made from a callback the API allows to use the context (prove-batch's
 * write_proof, on the calling thread): ctx_callback_begin marks it, and the holding thread,
 * known by its tag in call_owner, then nests instead of waiting for itself. Why a lock
 * and not per-call state: one context owns one thread pool and one set of OpenCL queues;
 * two calls at once would only share the same cores and queues, so running them one after
 * the other costs nothing in throughput and keeps every cache simple. Parallel proofs take
 * one context each (a prover handle serves any number of contexts).
 * Why a per-thread record of the last call: with the lock alone, another thread's call could
 * clear or overwrite the detail between a failing call's return and its caller's
 * hpr_ctx_error_detail. calls_done tells whether the record is still the context's latest:
 * if so, the context's own fields are read (internal calls made since, as tests make,
 * included).
 */
#include "host/core/context.h"
#include "host/core/core_calls.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *status_text(hpr_status status)
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
    case HPR_ERR_RANK: return "another rank of the cluster call failed";
    case HPR_ERR_INTERNAL: return "internal error";
    case HPR_ERR_CANCELLED: return "cancelled by the caller";
    }
    return "unknown status";
}

typedef struct {
    uint64_t serial;     /* the context of the thread's last outermost call; 0 none */
    uint64_t calls_done; /* that context's calls_done when the call ended */
    char detail[CL_DETAIL_LEN];
    char notice[CL_DETAIL_LEN];
    hpr_run_report report;
    int have_report;
} call_record;

static _Thread_local call_record thread_record;

/* The calling thread's tag: the address of a thread-local byte, unique among live threads
 * and never 0. */
static uintptr_t thread_tag(void)
{
    static _Thread_local char tag;
    return (uintptr_t)&tag;
}

/* Whether the calling thread holds ctx's call lock (only the holder stores its own tag, so
 * another thread never reads its own tag there). */
static int held_here(const hpr_ctx *ctx)
{
    return atomic_load_explicit(&((hpr_ctx *)ctx)->call_owner, memory_order_relaxed) == thread_tag();
}

int ctx_lock_init(hpr_ctx *ctx)
{
    static _Atomic uint64_t next_serial = 1;
    atomic_init(&ctx->call_owner, 0);
    ctx->serial = atomic_fetch_add(&next_serial, 1);
    return pthread_mutex_init(&ctx->call_lock, NULL);
}

void ctx_lock_destroy(hpr_ctx *ctx)
{
    pthread_mutex_destroy(&ctx->call_lock);
}

void ctx_enter(hpr_ctx *ctx)
{
    if (!ctx)
        return;
    if (held_here(ctx)) { /* a public call inside this thread's call: only from a callback */
        RT_INVARIANT(ctx->in_callback > 0);
        ctx->call_depth++;
        return;
    }
    pthread_mutex_lock(&ctx->call_lock);
    atomic_store_explicit(&ctx->call_owner, thread_tag(), memory_order_relaxed);
    ctx->call_depth = 1;
}

void ctx_callback_begin(hpr_ctx *ctx)
{
    RT_INVARIANT(held_here(ctx));
    ctx->in_callback++;
}

void ctx_callback_end(hpr_ctx *ctx)
{
    RT_INVARIANT(ctx->in_callback > 0);
    ctx->in_callback--;
}

static void record_take(call_record *r, const hpr_ctx *ctx)
{
    memcpy(r->detail, ctx->detail, sizeof r->detail);
    memcpy(r->notice, ctx->notice, sizeof r->notice);
    r->report = ctx->report;
    r->have_report = ctx->have_report;
}

hpr_status ctx_leave(hpr_ctx *ctx, hpr_status st)
{
    if (!ctx)
        return st;
    RT_INVARIANT(ctx->call_depth > 0 && held_here(ctx));
    if (--ctx->call_depth > 0)
        return st; /* a nested call (from a callback): the outer call goes on holding the lock */
    thread_record.serial = ctx->serial;
    thread_record.calls_done = ++ctx->calls_done;
    record_take(&thread_record, ctx);
    atomic_store_explicit(&ctx->call_owner, 0, memory_order_relaxed);
    pthread_mutex_unlock(&ctx->call_lock);
    return st;
}

/* The calling thread's record, brought up to date with ctx unless another thread's call
 * has ended since this thread's last one. Lock taken inside (const: the lock is not part
 * of the context's value). */
static const call_record *thread_view(const hpr_ctx *ctx)
{
    hpr_ctx *c = (hpr_ctx *)ctx;
    call_record *r = &thread_record;
    int holder = held_here(c); /* asked from a callback inside this thread's call: no wait */
    if (!holder)
        pthread_mutex_lock(&c->call_lock);
    if (r->serial != c->serial || r->calls_done == c->calls_done)
        record_take(r, c);
    if (r->serial != c->serial) {
        r->serial = c->serial;
        r->calls_done = c->calls_done;
    }
    if (!holder)
        pthread_mutex_unlock(&c->call_lock);
    return r;
}

const char *ctx_result_detail(const hpr_ctx *ctx)
{
    return thread_view(ctx)->detail;
}

const char *ctx_result_notice(const hpr_ctx *ctx)
{
    return thread_view(ctx)->notice;
}

int ctx_result_report(const hpr_ctx *ctx, hpr_run_report *report)
{
    const call_record *r = thread_view(ctx);
    if (r->have_report)
        *report = r->report;
    return r->have_report;
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

/* The entries of ctx's report that record a device fault of this call (failures or dropped),
 * into kept (their number returned), before the report is filled afresh. */
static unsigned faults_kept(const hpr_ctx *ctx, hpr_device_run *kept)
{
    unsigned n = 0;
    for (unsigned d = 0; ctx->have_report && d < ctx->report.ndevices; d++)
        if (ctx->report.devices[d].failures || ctx->report.devices[d].dropped)
            kept[n++] = ctx->report.devices[d];
    return n;
}

/* The device's entry in r: found by name, else added (NULL when r is full). */
static hpr_device_run *report_entry(hpr_run_report *r, const char *device)
{
    for (unsigned d = 0; d < r->ndevices; d++)
        if (strcmp(r->devices[d].device, device) == 0)
            return &r->devices[d];
    if (r->ndevices == HPR_REPORT_MAX_DEVICES)
        return NULL;
    hpr_device_run *o = &r->devices[r->ndevices++];
    memset(o, 0, sizeof *o);
    snprintf(o->device, sizeof o->device, "%s", device);
    return o;
}

/* Puts back the fault entries kept[0..n) that the fresh report does not hold. */
static void faults_restore(hpr_ctx *ctx, const hpr_device_run *kept, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        hpr_device_run *o = report_entry(&ctx->report, kept[k].device);
        if (o && !o->failures && !o->dropped) {
            o->failures = kept[k].failures;
            o->dropped = kept[k].dropped;
            snprintf(o->failure, sizeof o->failure, "%s", kept[k].failure);
        }
    }
}

const char *fault_text(const char *failure, const char *device)
{
    size_t len = strlen(device);
    if (strncmp(failure, device, len) == 0 && failure[len] == ':' && failure[len + 1] == ' ')
        return failure + len + 2;
    return failure;
}

/* The notice names each device of the report that failed in this call (once). */
static void notice_faults(hpr_ctx *ctx)
{
    for (unsigned d = 0; d < ctx->report.ndevices; d++) {
        const hpr_device_run *o = &ctx->report.devices[d];
        char text[CL_DETAIL_LEN];
        if ((!o->failures && !o->dropped) || strstr(ctx->notice, o->device))
            continue;
        snprintf(text, sizeof text, "%.300s; its work was redone by the other devices",
                 fault_text(o->failure, o->device));
        note_append(ctx->notice, sizeof ctx->notice, o->device, text);
    }
}

void report_single(hpr_ctx *ctx, const char *device, size_t n, double seconds)
{
    hpr_run_report *r = &ctx->report;
    hpr_device_run kept[HPR_REPORT_MAX_DEVICES];
    unsigned nkept = faults_kept(ctx, kept);
    memset(r, 0, sizeof *r);
    r->ndevices = 1;
    snprintf(r->devices[0].device, sizeof r->devices[0].device, "%s", device);
    r->devices[0].tiles = 1;
    r->devices[0].points = n;
    r->devices[0].busy_s = seconds;
    r->devices[0].points_per_s = seconds > 0 ? (double)n / seconds : 0;
    r->seconds = seconds;
    ctx->have_report = 1;
    faults_restore(ctx, kept, nkept);
}

void report_device_fault(hpr_ctx *ctx, const char *device, unsigned failed, const char *why)
{
    if (!ctx->have_report) {
        memset(&ctx->report, 0, sizeof ctx->report);
        ctx->have_report = 1;
    }
    hpr_device_run *o = report_entry(&ctx->report, device);
    if (!o)
        return;
    o->failures += failed;
    o->dropped = 1;
    if (!o->failure[0])
        snprintf(o->failure, sizeof o->failure, "%.255s", fault_text(why, device));
    notice_faults(ctx);
}

void report_fill(hpr_ctx *ctx, cl_dev *const *devs, unsigned ndev, const sched_device_report *reps,
                 double points_per_item, double seconds)
{
    hpr_run_report *r = &ctx->report;
    hpr_device_run kept[HPR_REPORT_MAX_DEVICES];
    unsigned nkept = faults_kept(ctx, kept);
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
    faults_restore(ctx, kept, nkept);
    notice_faults(ctx);
}

/* "SEED:P": one draw of the sequence of SEED (splitmix64 over a process-wide count) below P. */
static int random_fault(const char *spec)
{
    static _Atomic uint64_t draws;
    char *end;
    uint64_t z = strtoull(spec, &end, 10);
    double p = *end == ':' ? strtod(end + 1, NULL) : 0;
    z += 0x9e3779b97f4a7c15ull * (atomic_fetch_add(&draws, 1) + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-53 < p;
}

int ctx_sched_fault(const hpr_ctx *ctx, const char *device, unsigned k)
{
    const char *f = ctx->knobs.sched_fault;
    size_t idlen = strlen(device);
    if (!f[0] || strncmp(f, device, idlen) != 0)
        return 0;
    if (f[idlen] == '\0')
        return 1;
    if (strncmp(f + idlen, "@rand:", 6) == 0)
        return random_fault(f + idlen + 6);
    return f[idlen] == '@' && strtoul(f + idlen + 1, NULL, 10) == k;
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
