/*
 * groth16_work.c: the work items of one Groth16 proof, shared by the phases in order (here)
 * and the task graph (host/groth16/groth16_graph.c): h (host/groth16/groth16_h.c) and one MSM, and the
 * phases' bookkeeping (time, devices, notices per phase, hpr_groth16_report).
 *
 * Method: the five large MSMs go through msm_keyed (hpr_msm_ex with the prover's keys, so
 * that the devices keep the bases) on the context's device (split by the hybrid scheduler
 * under "all"); over a prover's precomputed sections, each MSM runs over the f slices of its
 * scalars (host/msm/bases.c), h's sliced by the h task once it has them. In order, the phases run one
 * after another; each records its time and the devices that took its points, from the run
 * report the MSM or NTT call left on the context.
 * Progress (host/core/progress.h): a proof is one tracked call whose total is the sum of its
 * phases' units (g16_progress_units); each task names its phase and checks for a cancel
 * before it starts, and its MSMs and NTTs add their own units.
 * Why a file of its own: the graph runs on the CPU the same tasks as the phases in order,
 * and must not call the file that chooses between the two (host/groth16/groth16_prove.c); both take
 * them from here.
 */
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/groth16/groth16.h"
#include "host/groth16/groth16_h.h"
#include "host/msm/msm_engine.h"
#include "host/msm/resident.h"
#include "host/msm/msm_calls.h"

#include "runtime/base/rt_mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hpr_groth16_phase g16_task_phase(const g16_work *work, int t)
{
    return t == G16_TASK_H ? HPR_G16_H : work->msm[t].phase;
}

const char *g16_phase_name(hpr_groth16_phase phase)
{
    static const char *names[HPR_G16_PHASES] = {"witness", "h", "msm A", "msm B1", "msm B2", "msm C", "msm H", "assemble"};
    return (unsigned)phase < HPR_G16_PHASES ? names[phase] : "";
}

/* Progress weights beside the NTTs' and MSMs' own units (per witness value, per row of the
 * domain), rough shares of a proof's time: reading and checking the witness, and h's
 * evaluations (every coefficient entry scanned), products and final combination. */
#define G16_WITNESS_UNITS 4
#define G16_H_UNITS_PER_ROW 16

uint64_t g16_witness_units(const zkey_file *zk)
{
    return (uint64_t)zk->n_vars * G16_WITNESS_UNITS;
}

uint64_t g16_h_extra_units(const zkey_file *zk)
{
    return (uint64_t)zk->domain_size * G16_H_UNITS_PER_ROW;
}

uint64_t g16_progress_units(const zkey_file *zk, unsigned f)
{
    uint64_t h = 2 * progress_ntt_units(3, zkey_log_domain(zk)) + g16_h_extra_units(zk); /* g16_h: two batches of a, b, c */
    size_t nv = (size_t)f * zk->n_vars, npriv = (size_t)f * (zk->n_vars - zk->n_public - 1);
    uint64_t msms = 2 * progress_msm_units(nv, 1) + progress_msm_units(nv, 2) + progress_msm_units(npriv, 1) +
                    progress_msm_units((size_t)f * zk->domain_size, 1);
    uint64_t blinding = 2 * progress_msm_units(3, 1) + progress_msm_units(3, 2) + progress_msm_units(5, 1);
    return g16_witness_units(zk) + h + msms + blinding;
}

/* "cpu 62%, cl:0.0 38%" from the context's report of the last call ("cpu" without one); a
 * device that computed nothing (it failed, or was left out) is not named, and one device
 * alone is named without its share. */
static void describe_devices(const hpr_ctx *ctx, char *out, size_t len)
{
    const hpr_run_report *r = &ctx->report;
    unsigned long long total = 0;
    unsigned computed = 0;
    size_t used = 0;
    out[0] = '\0';
    if (!ctx->have_report || r->ndevices == 0) { /* a call without a report: its single device */
        snprintf(out, len, "%s", strncmp(ctx->device, "cl:", 3) == 0 ? ctx->device : "cpu");
        return;
    }
    for (unsigned d = 0; d < r->ndevices; d++) {
        total += r->devices[d].points;
        computed += r->devices[d].points > 0;
    }
    for (unsigned d = 0; d < r->ndevices && used < len; d++) {
        if (r->ndevices > 1 && r->devices[d].points == 0)
            continue;
        int k = r->ndevices == 1 || total == 0 || computed == 1
                    ? snprintf(out + used, len - used, "%s%s", used ? ", " : "", r->devices[d].device)
                    : snprintf(out + used, len - used, "%s%s %.0f%%", used ? ", " : "", r->devices[d].device,
                               100.0 * (double)r->devices[d].points / (double)total);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

void g16_add_fault(hpr_groth16_report *report, int phase, const char *device, unsigned failures, int dropped,
                   const char *why)
{
    char text[160];
    unsigned d = 0;
    why = fault_text(why, device);
    while (d < report->nfailed && strcmp(report->failed[d].device, device) != 0)
        d++;
    if (d == report->nfailed && d < HPR_REPORT_MAX_DEVICES) {
        hpr_device_run *o = &report->failed[report->nfailed++];
        memset(o, 0, sizeof *o);
        snprintf(o->device, sizeof o->device, "%s", device);
        snprintf(o->failure, sizeof o->failure, "%.255s", why);
    }
    if (d < report->nfailed) {
        report->failed[d].failures += failures;
        report->failed[d].dropped |= dropped;
    }
    if (phase < 0 || phase >= HPR_G16_PHASES)
        return;
    snprintf(text, sizeof text, "%.16s %s (%.100s); its work was %s elsewhere", device,
             failures ? "failed" : "unusable", why, failures ? "redone" : "done");
    note_append(report->faults[phase], sizeof report->faults[phase], NULL, text);
}

void g16_collect_faults(hpr_groth16_report *report, const hpr_ctx *ctx, int phase)
{
    for (unsigned d = 0; ctx->have_report && d < ctx->report.ndevices; d++) {
        const hpr_device_run *o = &ctx->report.devices[d];
        if (o->failures || o->dropped)
            g16_add_fault(report, phase, o->device, o->failures, o->dropped, o->failure);
    }
}

void g16_phase_end(g16_phases *ph, hpr_groth16_phase phase, int with_devices)
{
    double now = rt_now_seconds();
    ph->report->seconds[phase] = now - ph->t;
    if (with_devices) {
        describe_devices(ph->ctx, ph->report->devices[phase], sizeof ph->report->devices[phase]);
        g16_collect_faults(ph->report, ph->ctx, (int)phase);
    }
    note_append(ph->notices, sizeof ph->notices, NULL, ph->ctx->notice);
    ph->t = now;
}

/* The MSM m's failure st, its detail (the context's) prefixed with the MSM's name. */
static hpr_status msm_failed(hpr_ctx *ctx, hpr_status st, const g16_msm *m)
{
    static const char *names[HPR_G16_PHASES] = {"", "", "A", "B1", "B2", "C", "H", ""};
    char why[CL_DETAIL_LEN];
    snprintf(why, sizeof why, "%s", ctx->detail);
    return ctx_fail(ctx, st, "Groth16 MSM %s (%zu points): %.400s", names[m->phase], m->n, why);
}

/* The MSM m on the CPU, or on device (NULL: the context's default), with an error detail
 * naming the MSM. */
static hpr_status run_msm(hpr_ctx *ctx, hpr_curve curve, const g16_msm *m, const char *device)
{
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, device};
    msm_points pts = {m->points, m->n, m->key, m->owner, m->validated};
    hpr_status st = msm_keyed_ops(ctx, curve, m->group, m->sliced, &pts, m->scalars, m->n, m->out, &opts);
    return st == HPR_OK ? HPR_OK : msm_failed(ctx, st, m);
}

#define COPY_CHUNK ((size_t)4 << 20)

/* What a task freed handed back to the system. glibc keeps freed blocks in its heap, and a
 * block that is not at the heap's top stays resident (its huge pages too): measured at 2^16,
 * the anonymous memory grew by each MSM's blocks, 23 -> 69 MiB over a proof, though no phase
 * held more than 25. malloc_trim releases the free pages anywhere in the heap
 * (rt_release_free_memory: only where glibc's allocator is the process's). */
static void release_freed(void)
{
    rt_release_free_memory();
}

/* The MSM of task t over its zkey section, whose pages are resident only during it (zkey.h).
 * A section of the mapping that is not 8-byte aligned (snarkjs aligns none: it depends on the
 * sizes before it) would be decoded by the MSM into a copy beside the mapped pages; it is
 * copied here instead, chunk by chunk, each chunk's pages released once copied, so that one
 * copy of the section is resident, not two (not for an OpenCL device alone: it reads the
 * points it keeps). */
static hpr_status run_section_msm(hpr_ctx *ctx, const g16_work *work, int t, const char *device)
{
    g16_msm m = work->msm[t];
    size_t bytes = m.n * msm_point_size(work->zk->curve, m.group);
    unsigned char *copy = NULL;
    hpr_status st;
    const char *on = device ? device : ctx->device; /* an OpenCL device alone reads its resident copy */
    if (strncmp(on, "cl:", 3) != 0 && ((uintptr_t)m.points & 7) && work->zk->map && !work->zk->heap_copy &&
        m.points >= work->zk->map &&
        m.points + bytes <= work->zk->map + work->zk->map_len && (copy = rt_alloc_large(bytes)) != NULL) {
        for (size_t off = 0; off < bytes; off += COPY_CHUNK) {
            size_t len = bytes - off < COPY_CHUNK ? bytes - off : COPY_CHUNK;
            zkey_pages_hold(work->zk, m.points + off, len);
            memcpy(copy + off, m.points + off, len);
            zkey_pages_release(work->zk, m.points + off, len);
        }
        m.points = copy;
    }
    zkey_pages_hold(work->zk, m.points, bytes); /* nothing for a copy or precomputed points */
    if ((st = run_msm(ctx, work->zk->curve, &m, device)) == HPR_OK && work->prover)
        g16_prover_set_validated(work->prover, t);
    zkey_pages_release(work->zk, m.points, bytes);
    free(copy);
    release_freed();
    return st;
}

hpr_status g16_run_task(hpr_ctx *ctx, const g16_work *work, int t, const char *device)
{
    hpr_status st;
    /* the task's own report (its devices and faults): h's NTTs add to it, an MSM starts one */
    memset(&ctx->report, 0, sizeof ctx->report);
    ctx->have_report = 0;
    progress_phase(ctx, g16_phase_name(g16_task_phase(work, t)));
    if ((st = progress_check(ctx)) != HPR_OK)
        return st;
    if (t != G16_TASK_H)
        return run_section_msm(ctx, work, t, device);
    st = g16_h(ctx, work->zk, work->w, work->h, device);
    release_freed();
    if (st != HPR_OK)
        return st;
    if (work->pre) /* the H MSM's scalars: h's slices */
        bases_slice(ctx, work->h, work->zk->domain_size, work->pre->f, work->pre->s, work->h_slices);
    progress_add(ctx, g16_h_extra_units(work->zk));
    return HPR_OK;
}

cl_dev *g16_h_device_for(hpr_ctx *ctx, const g16_work *work, cl_dev *dev)
{
    const g16_msm *m = &work->msm[HPR_G16_MSM_H - HPR_G16_MSM_A];
    if (!dev || dev->failed || ctx->knobs.g16_h_device == 0 || work->pre || m->n == 0 ||
        m->n != work->zk->domain_size || !g16_h_device_fits(work->zk, dev))
        return NULL;
    return dev;
}

hpr_status g16_h_on_cpu_from(hpr_ctx *ctx, const g16_work *work, unsigned char *abc)
{
    hpr_status st = g16_h_from_evaluations(ctx, work->zk, abc, work->h, "cpu");
    if (st == HPR_OK)
        progress_add(ctx, g16_h_extra_units(work->zk));
    return st;
}

void g16_h_msm_device_done(hpr_ctx *ctx, const g16_work *work)
{
    progress_add(ctx, g16_h_extra_units(work->zk));
    if (work->prover)
        g16_prover_set_validated(work->prover, HPR_G16_MSM_H - HPR_G16_MSM_A);
}

/* The device's failure on h and the H MSM (why): dev marked failed, named in the notices and
 * in the report's faults (phase h), and h computed on the CPU from the evaluations abc. */
static hpr_status h_after_device_failure(g16_phases *ph, const g16_work *work, cl_dev *dev, unsigned char *abc,
                                         const char *why)
{
    char text[CL_DETAIL_LEN];
    ctx_device_failed(dev, why);
    snprintf(text, sizeof text, "%.300s; h and its MSM were computed without it", why);
    note_append(ph->notices, sizeof ph->notices, dev->id, text);
    g16_add_fault(ph->report, HPR_G16_H, dev->id, 1, 1, why);
    return g16_h_on_cpu_from(ph->ctx, work, abc);
}

/* h and the H MSM together on dev (g16_h_msm_on_device) as the phase h, the MSM's share of
 * its time moved to the phase msm H; the evaluations on the CPU's pool. *msm_done: whether
 * the H MSM is done (not after a device failure: h is then the CPU's). */
static hpr_status in_order_h_on_device(g16_phases *ph, const g16_work *work, cl_dev *dev, int *msm_done)
{
    hpr_ctx *ctx = ph->ctx;
    const g16_msm *m = &work->msm[HPR_G16_MSM_H - HPR_G16_MSM_A];
    hpr_groth16_report *rep = ph->report;
    unsigned char *abc = NULL;
    double msm_seconds = 0;
    size_t bad = 0;
    msm_point_check kind = MSM_POINT_OK;
    char why[CL_DETAIL_LEN];
    hpr_status st;
    memset(&ctx->report, 0, sizeof ctx->report);
    ctx->have_report = 0;
    progress_phase(ctx, g16_phase_name(HPR_G16_H));
    if ((st = progress_check(ctx)) != HPR_OK || (st = g16_h_evaluations(ctx, work->zk, work->w, &abc)) != HPR_OK)
        goto out;
    if (dev_ready(ctx, dev, work->zk->curve, HPR_G1) != HPR_OK) { /* its self-test: a failure of this task */
        snprintf(why, sizeof why, "%s", ctx->detail);
        st = HPR_ERR_DEVICE;
    } else {
        st = g16_h_msm_on_device(ctx, work->zk, abc, dev, m, &msm_seconds, &bad, &kind, why);
    }
    *msm_done = st == HPR_OK;
    if (st == HPR_ERR_DEVICE) {
        st = h_after_device_failure(ph, work, dev, abc, why);
    } else if (st == HPR_ERR_POINT_NOT_ON_CURVE) {
        st = msm_failed(ctx, msm_point_error(ctx, msm_ops(work->zk->curve, HPR_G1), bad, kind), m);
    } else if (st != HPR_OK) {
        st = ctx_fail(ctx, st, "Groth16 h on %s: %.400s", dev->id, why);
    }
    if (st != HPR_OK)
        goto out;
    if (*msm_done)
        g16_h_msm_device_done(ctx, work);
    g16_phase_end(ph, HPR_G16_H, 0);
    snprintf(rep->devices[HPR_G16_H], sizeof rep->devices[HPR_G16_H], "%s", *msm_done ? dev->id : "cpu");
    if (*msm_done) {
        rep->seconds[HPR_G16_H] -= msm_seconds;
        rep->seconds[HPR_G16_MSM_H] = msm_seconds;
        snprintf(rep->devices[HPR_G16_MSM_H], sizeof rep->devices[HPR_G16_MSM_H], "%s", dev->id);
    }
out:
    free(abc);
    return st;
}

hpr_status g16_run_in_order(g16_phases *ph, const g16_work *work)
{
    cl_dev *dev = NULL;
    int h_msm_done = 0;
    hpr_status st = strncmp(ph->ctx->device, "cl:", 3) == 0 ? dev_resolve(ph->ctx, ph->ctx->device, &dev) : HPR_OK;
    if (st != HPR_OK)
        return st;
    if ((dev = g16_h_device_for(ph->ctx, work, dev)) != NULL) {
        st = in_order_h_on_device(ph, work, dev, &h_msm_done);
    } else if ((st = g16_run_task(ph->ctx, work, G16_TASK_H, NULL)) == HPR_OK) {
        g16_phase_end(ph, HPR_G16_H, 1);
    }
    if (st != HPR_OK)
        return st;
    for (int t = 0; t < G16_MSMS; t++) {
        if (h_msm_done && work->msm[t].phase == HPR_G16_MSM_H)
            continue;
        if ((st = g16_run_task(ph->ctx, work, t, NULL)) != HPR_OK)
            return st;
        g16_phase_end(ph, g16_task_phase(work, t), 1);
    }
    return HPR_OK;
}
