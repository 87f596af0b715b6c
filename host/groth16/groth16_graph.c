/*
 * groth16_graph.c: the work of one Groth16 proof as a task graph over the CPU and the
 * OpenCL devices (g16_graph_run, called by host/groth16/groth16_prove.c when the context's device is
 * "all" and an OpenCL device can join). Its tasks are those of host/groth16/groth16_work.c.
 *
 * Tasks: h (the QAP evaluations and NTTs, CPU), the H MSM (G1, after h), the G2 MSM B2 and
 * the G1 MSMs A, B1, C (with h's device, below, h's NTTs go with the H MSM). Workers: the calling thread drives the CPU pool; one thread per
 * OpenCL device (each ready for both groups: host/groth16/groth16_prove.c). A worker takes the next
 * task it may run:
 *   - the CPU takes h first (it unlocks the largest MSM), then (without a calibrated speed)
 *     its smallest G1 MSM, which measures it, then B2, then any ready MSM, smallest first,
 *     so that the devices keep the large ones;
 *   - an OpenCL device takes the largest ready MSM (B2 too: the G1 kernels over Fq2) that it
 *     would finish before the CPU finishes everything left (estimated from the throughputs
 *     in G1-addition equivalents, a G2 point counting G2_COST_RATIO: calibrated, then
 *     measured on this proof's G1 MSMs; unknown: it takes it), and waits while only the H
 *     MSM remains and h is not done.
 *   - h's device (the first GPU that g16_h_device_for takes; HPR_G16_H_DEVICE=1: any OpenCL
 *     device, 0: none): the CPU's h task is then the evaluations alone (g->abc), and that
 *     device takes the H MSM before any other task, with h's NTTs and its combination
 *     (g16_h_msm_on_device: h never leaves the device); no one else takes the H MSM while the
 *     device may. If it fails, the CPU computes h from the evaluations, then the H MSM.
 * So with a GPU the CPU cores run the other MSMs while the GPU takes h's NTTs, the H MSM and
 * the MSMs it finishes sooner, B2 among them when the measured speeds say it pays, and with a
 * slow device the CPU picks up what the device has not started. A device that
 * fails puts its task back for the CPU (the device is marked unusable, the notice and the
 * report's faults name it; HPR_SCHED_INJECT_FAULT fails a device's tasks for the tests):
 * the proof never changes, since every device gives the same bits for an MSM. Invalid points
 * found by a device fail the proof as on the CPU.
 * Cancellation: each worker checks before it takes a task (an MSM already on a device runs to
 * its end); the CPU's tasks check again (g16_run_task) and its MSMs per tile.
 * Why whole MSMs and not tiles: the five MSMs are independent and similar in size, so whole
 * tasks keep every device busy without splitting a window grid five ways; the one-MSM
 * hybrid split (host/msm/msm_hybrid.c) is what "all" gives a single MSM.
 */
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/groth16/groth16.h"
#include "host/groth16/groth16_h.h"
#include "host/msm/msm_engine.h"
#include "host/core/core_calls.h"
#include "host/msm/msm_calls.h"

#include "runtime/opencl/cl_msm.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PENDING, RUNNING, DONE };

typedef struct {
    int state;
    int cpu_only;  /* h, empty MSMs, and tasks a device gave back */
    int reserved;  /* the H MSM while h's device (graph.h_runner) may take it: no one else does */
    int runner;    /* while RUNNING: 0 the CPU, 1 + d device d */
    double work;   /* G1-addition equivalents: points with a scalar other than 0 and 1 and a finite
                    * point (those are what Pippenger's buckets cost), times 3 for G2 */
    double started;
    double seconds;
    char device[32]; /* "cpu", a device id, or "cpu, " and one (h: evaluations, NTTs) */
} task;

typedef struct {
    hpr_ctx *ctx;
    g16_work *work;
    task tasks[G16_TASKS];
    pthread_mutex_t lock;
    pthread_cond_t changed;
    hpr_status error;       /* the first failure: every worker stops */
    size_t bad_index;       /* a device's invalid point: the task and index */
    msm_point_check bad_kind;
    int bad_task;
    char *notices;
    size_t notices_len;
    hpr_groth16_report *report; /* the proof's: faults recorded as they happen */
    double speed[HPR_REPORT_MAX_DEVICES]; /* work/s: [0] the CPU, [1 + d] device d; 0 unknown */
    int h_runner;           /* 1 + d: device d takes h's NTTs with the H MSM (g16_h_msm_on_device); 0 none */
    unsigned char *abc;     /* with h_runner: h's evaluations, the CPU's h task's result */
} graph;

/* G2 costs about three G1 additions per point (Fq2 products); h is short beside the MSMs. */
#define G2_COST_RATIO 3.0

/* Seconds the CPU needs for what is left to it if no device helps: every pending MSM and
 * the rest of the one it runs. */
static double cpu_backlog(const graph *g)
{
    double s = 0, now = rt_now_seconds();
    for (int t = 0; t < G16_MSMS; t++) {
        const task *k = &g->tasks[t];
        if (k->state == PENDING)
            s += k->work / g->speed[0];
        else if (k->state == RUNNING && k->runner == 0 && k->work / g->speed[0] > now - k->started)
            s += k->work / g->speed[0] - (now - k->started);
    }
    return s;
}

/* Whether device runner (1 + d) should take MSM t: it finishes t before the CPU would finish
 * everything left, or a speed is unknown. */
static int device_should_take(const graph *g, int runner, int t)
{
    if (g->speed[0] <= 0 || g->speed[runner] <= 0)
        return 1;
    return g->tasks[t].work / g->speed[runner] <= cpu_backlog(g);
}

/* The work of MSM m (see task.work). */
static double msm_work(const g16_msm *m, size_t point_size)
{
    static const unsigned char zero[MSM_MAX_AFFINE_BYTES];
    size_t count = 0;
    for (size_t i = 0; i < m->n; i++) {
        const unsigned char *k = m->scalars + 32 * i;
        int small = k[0] <= 1 && memcmp(k + 1, zero, 31) == 0;
        if (!small && memcmp(m->points + i * point_size, zero, point_size) != 0)
            count++;
    }
    return (double)count * (m->group == HPR_G2 ? G2_COST_RATIO : 1.0);
}

typedef struct {
    graph *g;
    cl_dev *dev;
    int runner; /* 1 + its index */
    pthread_t thread;
    int started;
    unsigned tasks; /* tasks taken (HPR_SCHED_INJECT_FAULT counts them) */
} device_worker;

static int task_ready(const graph *g, int t)
{
    if (g->tasks[t].state != PENDING)
        return 0;
    return t != HPR_G16_MSM_H - HPR_G16_MSM_A || g->tasks[G16_TASK_H].state == DONE;
}

static int all_done(const graph *g)
{
    for (int t = 0; t < G16_TASKS; t++)
        if (g->tasks[t].state != DONE)
            return 0;
    return 1;
}

/* The largest (largest = 1) or smallest ready MSM a worker (runner: 0 the CPU, 1 + d
 * device d) may take, or -1. */
static int pick_msm(const graph *g, int largest, int runner)
{
    int best = -1;
    for (int t = 0; t < G16_MSMS; t++) {
        if (!task_ready(g, t) || (g->tasks[t].reserved && runner != g->h_runner) ||
            (runner && (g->tasks[t].cpu_only || !device_should_take(g, runner, t))))
            continue;
        size_t n = g->work->msm[t].n, bn = best < 0 ? 0 : g->work->msm[best].n;
        if (best < 0 || (largest ? n > bn : n < bn))
            best = t;
    }
    return best;
}

/* h first; then, until the CPU's G1 speed is known, its smallest G1 MSM (which measures it);
 * then B2; then the smallest G1 MSM left. */
static int pick_for_cpu(const graph *g)
{
    int b2 = HPR_G16_MSM_B2 - HPR_G16_MSM_A, small = pick_msm(g, 0, 0);
    if (task_ready(g, G16_TASK_H))
        return G16_TASK_H;
    if (g->speed[0] <= 0 && small >= 0)
        return small;
    return task_ready(g, b2) ? b2 : small;
}

/* Whether a device may still get work: an MSM it may take is pending. */
static int device_work_left(const graph *g)
{
    for (int t = 0; t < G16_MSMS; t++)
        if (g->tasks[t].state == PENDING && !g->tasks[t].cpu_only)
            return 1;
    return 0;
}

static void finish_task(graph *g, int t, int runner, const char *device, double seconds)
{
    if (t < G16_MSMS && g->work->msm[t].group == HPR_G1 && seconds > 0 && g->tasks[t].work > 0)
        g->speed[runner] = g->tasks[t].work / seconds;
    g->tasks[t].state = DONE;
    g->tasks[t].seconds = seconds;
    snprintf(g->tasks[t].device, sizeof g->tasks[t].device, "%s", device);
    pthread_cond_broadcast(&g->changed);
}

/* Under the lock: a device found the invalid point `bad` of MSM t; the proof fails with it
 * (the first failure kept), every worker stops. */
static void fail_on_bad_point(graph *g, int t, size_t bad, msm_point_check kind)
{
    g->tasks[t].state = DONE;
    if (g->error == HPR_OK) {
        g->error = HPR_ERR_POINT_NOT_ON_CURVE;
        g->bad_task = t, g->bad_index = bad, g->bad_kind = kind;
    }
    pthread_cond_broadcast(&g->changed);
}

/* One MSM on the device, outside the lock. 0, or -1 when the device failed (detail in why). */
static int device_msm(graph *g, cl_dev *dev, int runner, int t, char *why)
{
    const g16_msm *m = &g->work->msm[t];
    const msm_curve_ops *ops = m->sliced ? m->sliced : msm_ops(g->work->zk->curve, m->group);
    size_t bad = 0;
    msm_point_check kind = MSM_POINT_OK;
    double t0 = rt_now_seconds();
    msm_points pts = {m->points, m->n, m->key, m->owner, m->validated};
    cl_msm_result r = cl_msm(g->ctx->cl, dev, dev_msm_variant(g->work->zk->curve, m->group), ops, &pts, 0, m->scalars,
                             m->n, 0, m->out, &bad, &kind, NULL, why);
    if (r == CL_MSM_OK)
        progress_add(g->ctx, progress_msm_units(m->n, ops->degree));
    pthread_mutex_lock(&g->lock);
    if (r == CL_MSM_OK) {
        finish_task(g, t, runner, dev->id, rt_now_seconds() - t0);
    } else if (r == CL_MSM_BAD_POINT) {
        fail_on_bad_point(g, t, bad, kind);
    }
    pthread_mutex_unlock(&g->lock);
    return r == CL_MSM_DEVICE_ERROR ? -1 : 0;
}

/* h's NTTs and the H MSM hm on h's device, outside the lock (g16_h_msm_on_device over the
 * CPU's evaluations): the MSM's time measures the device, the NTTs' is added to h's. 0, or
 * -1 when the device failed or could not run it (why): the CPU then does both. */
static int device_h_msm(graph *g, cl_dev *dev, int runner, int hm, char *why)
{
    const g16_msm *m = &g->work->msm[hm];
    size_t bad = 0;
    msm_point_check kind = MSM_POINT_OK;
    double msm_seconds = 0, t0 = rt_now_seconds();
    hpr_status st = g16_h_msm_on_device(g->ctx, g->work->zk, g->abc, dev, m, &msm_seconds, &bad, &kind, why);
    if (st == HPR_OK)
        g16_h_msm_device_done(g->ctx, g->work);
    pthread_mutex_lock(&g->lock);
    if (st == HPR_OK) {
        task *h = &g->tasks[G16_TASK_H];
        h->seconds += rt_now_seconds() - t0 - msm_seconds;
        snprintf(h->device, sizeof h->device, "cpu, %s", dev->id);
        finish_task(g, hm, runner, dev->id, msm_seconds);
    } else if (st == HPR_ERR_POINT_NOT_ON_CURVE) {
        fail_on_bad_point(g, hm, bad, kind);
    }
    pthread_mutex_unlock(&g->lock);
    return st == HPR_OK || st == HPR_ERR_POINT_NOT_ON_CURVE ? 0 : -1;
}

static void *device_main(void *arg)
{
    device_worker *dw = arg;
    graph *g = dw->g;
    char why[CL_DETAIL_LEN];
    pthread_mutex_lock(&g->lock);
    while (g->error == HPR_OK && device_work_left(g) && !progress_cancelled(g->ctx)) { /* cancel: the CPU reports it */
        int hm = HPR_G16_MSM_H - HPR_G16_MSM_A, t = pick_msm(g, 1, dw->runner);
        int fused = dw->runner == g->h_runner && g->tasks[hm].reserved && task_ready(g, hm);
        if (fused)
            t = hm; /* before anything else: the CPU may not take it */
        if (t < 0) {
            pthread_cond_wait(&g->changed, &g->lock);
            continue;
        }
        g->tasks[t].state = RUNNING;
        g->tasks[t].runner = dw->runner;
        g->tasks[t].started = rt_now_seconds();
        progress_phase(g->ctx, g16_phase_name(g16_task_phase(g->work, t)));
        pthread_mutex_unlock(&g->lock);
        int failed = 1;
        if (ctx_sched_fault(g->ctx, dw->dev->id, ++dw->tasks))
            snprintf(why, sizeof why, "fault injected by HPR_SCHED_INJECT_FAULT on task %u", dw->tasks);
        else if (fused)
            failed = device_h_msm(g, dw->dev, dw->runner, t, why) != 0;
        else
            failed = device_msm(g, dw->dev, dw->runner, t, why) != 0;
        pthread_mutex_lock(&g->lock);
        if (failed) { /* the CPU redoes it (and the H MSM it kept); this device gets no more work */
            char text[CL_DETAIL_LEN];
            g->tasks[t].state = PENDING;
            g->tasks[t].cpu_only = 1;
            if (g->tasks[hm].reserved && dw->runner == g->h_runner)
                g->tasks[hm].reserved = 0, g->tasks[hm].cpu_only = 1;
            ctx_device_failed(dw->dev, why);
            snprintf(text, sizeof text, "%.300s; its MSM was computed on the CPU instead", why);
            note_append(g->notices, g->notices_len, dw->dev->id, text);
            g16_add_fault(g->report, (int)g16_task_phase(g->work, t), dw->dev->id, 1, 1, why);
            pthread_cond_broadcast(&g->changed);
            break;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* Task t on the CPU (outside the lock). With h's device: the h task is the evaluations
 * (g->abc, for the device), and an H MSM the device gave back first computes h from them. */
static hpr_status cpu_task(graph *g, int t)
{
    hpr_ctx *ctx = g->ctx;
    hpr_status st;
    if (g->h_runner && t == G16_TASK_H) {
        progress_phase(ctx, g16_phase_name(HPR_G16_H));
        if ((st = progress_check(ctx)) != HPR_OK)
            return st;
        return g16_h_evaluations(ctx, g->work->zk, g->work->w, &g->abc);
    }
    if (g->abc && g->work->msm[t].phase == HPR_G16_MSM_H) {
        progress_phase(ctx, g16_phase_name(HPR_G16_H));
        if ((st = g16_h_on_cpu_from(ctx, g->work, g->abc)) != HPR_OK)
            return st;
    }
    return g16_run_task(ctx, g->work, t, "cpu");
}

/* The device that takes h's NTTs with the H MSM (1 + d), or 0: the first of devs that
 * g16_h_device_for takes, a GPU (any OpenCL device with HPR_G16_H_DEVICE=1). */
static int pick_h_runner(hpr_ctx *ctx, const g16_work *work, cl_dev **devs, unsigned ndev)
{
    for (unsigned d = 0; d < ndev; d++) {
        int kind_ok = ctx->knobs.g16_h_device == 1 || !(devs[d]->type & CL_DEVICE_TYPE_CPU);
        if (kind_ok && g16_h_device_for(ctx, work, devs[d]))
            return (int)d + 1;
    }
    return 0;
}

/* The calling thread: the CPU's tasks until every task is done or one failed. */
static void cpu_worker(graph *g)
{
    pthread_mutex_lock(&g->lock);
    while (g->error == HPR_OK && !all_done(g)) {
        if (progress_cancelled(g->ctx)) { /* the devices stop before their next task */
            g->error = progress_fail(g->ctx);
            g->bad_task = -1;
            pthread_cond_broadcast(&g->changed);
            break;
        }
        int t = pick_for_cpu(g);
        if (t < 0) {
            pthread_cond_wait(&g->changed, &g->lock);
            continue;
        }
        g->tasks[t].state = RUNNING;
        g->tasks[t].runner = 0;
        g->tasks[t].started = rt_now_seconds();
        pthread_mutex_unlock(&g->lock);
        double t0 = rt_now_seconds();
        hpr_status st = cpu_task(g, t); /* outside the lock */
        pthread_mutex_lock(&g->lock);
        if (st != HPR_OK) {
            g->tasks[t].state = DONE;
            if (g->error == HPR_OK)
                g->error = st;
            g->bad_task = -1;
            pthread_cond_broadcast(&g->changed);
        } else {
            finish_task(g, t, 0, "cpu", rt_now_seconds() - t0);
        }
    }
    pthread_mutex_unlock(&g->lock);
}

static void fill_report(const graph *g, hpr_groth16_report *report)
{
    for (int t = 0; t < G16_TASKS; t++) {
        hpr_groth16_phase phase = g16_task_phase(g->work, t);
        report->seconds[phase] = g->tasks[t].seconds;
        snprintf(report->devices[phase], sizeof report->devices[phase], "%s", g->tasks[t].device);
    }
}

hpr_status g16_graph_run(hpr_ctx *ctx, g16_work *work, cl_dev **devs, unsigned ndev, hpr_groth16_report *report,
                         char *notices, size_t len)
{
    graph g;
    device_worker workers[HPR_REPORT_MAX_DEVICES];
    memset(&g, 0, sizeof g);
    g.ctx = ctx, g.work = work, g.notices = notices, g.notices_len = len, g.report = report, g.bad_task = -1;
    for (int t = 0; t < G16_MSMS; t++) {
        g.tasks[t].cpu_only = work->msm[t].n == 0;
        /* h is not computed yet: its scalars count as dense (they are, in practice) */
        g.tasks[t].work = work->msm[t].phase == HPR_G16_MSM_H
                              ? (double)work->msm[t].n
                              : msm_work(&work->msm[t], msm_point_size(work->zk->curve, work->msm[t].group));
    }
    g.tasks[G16_TASK_H].cpu_only = 1;
    g.h_runner = pick_h_runner(ctx, work, devs, ndev);
    g.tasks[HPR_G16_MSM_H - HPR_G16_MSM_A].reserved = g.h_runner != 0;
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.changed, NULL);
    unsigned log_n = zkey_log_domain(work->zk);
    g.speed[0] = calibrated_speed_call(ctx, "cpu", work->zk->curve, log_n);
    for (unsigned d = 0; d < ndev; d++) {
        g.speed[1 + d] = calibrated_speed_call(ctx, devs[d]->id, work->zk->curve, log_n);
        workers[d] = (device_worker){&g, devs[d], (int)d + 1, 0, 0, 0};
        workers[d].started = pthread_create(&workers[d].thread, NULL, device_main, &workers[d]) == 0;
    }
    cpu_worker(&g);
    for (unsigned d = 0; d < ndev; d++)
        if (workers[d].started)
            pthread_join(workers[d].thread, NULL);
    pthread_mutex_destroy(&g.lock);
    pthread_cond_destroy(&g.changed);
    free(g.abc);
    fill_report(&g, report);
    if (g.error != HPR_OK && g.bad_task >= 0)
        return msm_point_error(ctx, msm_ops(work->zk->curve, HPR_G1), g.bad_index, g.bad_kind);
    return g.error;
}
