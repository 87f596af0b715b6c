/*
 * cluster.c: calls shared by the processes (ranks) of a job: the common part of every
 * cluster call (the link kept on the context, agreement, dealing, the report), and the two
 * small calls hpr_cluster_agree and hpr_cluster_ntt. The MSM is in cluster_msm.c, the proofs
 * in cluster_groth16.c; the protocol in runtime/sched/ranks.c.
 *
 * Why the link lives on the context: a rank that finishes a call first starts the next one
 * and may send its first message before rank 0 has left the last step of the previous call;
 * the link parks such messages until their step, so it must outlive the call.
 * The NTT across ranks: the columns of a batch are independent, so rank 0 deals column ranges
 * and sends each rank the columns of its tile, which come back transformed (2 x the tile's
 * bytes on the wire); rank 0's own tiles are transformed in place. A single column is not
 * split (rank 0 computes it). Row-major batches are refused (a tile's columns would be
 * strided through the whole buffer).
 */
#define _POSIX_C_SOURCE 200809L
#include "host/cluster/cluster.h"
#include "host/ntt/ntt_internal.h"
#include "host/cluster/cluster_calls.h"
#include "host/core/core_calls.h"
#include "host/ntt/ntt_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_transport(const ranks_link *l, const hpr_cluster *c)
{
    return l->rank == c->rank && l->size == c->size && l->user == c->user && l->send == c->send &&
           l->poll == c->poll;
}

hpr_status cluster_call_begin(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_cluster_report *report,
                              cluster_call *call)
{
    if (report)
        memset(report, 0, sizeof *report);
    ctx_call_begin(ctx);
    memset(call, 0, sizeof *call);
    call->refused = ctx->cluster_refused;
    ctx->cluster_refused = HPR_OK;
    call->ctx = ctx;
    call->size = 1;
    call->t0 = rt_now_seconds();
    if (!cluster || cluster->size == 1) {
        if (cluster && cluster->rank != 0)
            return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "cluster rank %d of 1 rank: must be 0", cluster->rank);
        return HPR_OK;
    }
    if (cluster->size < 1 || cluster->size > HPR_CLUSTER_MAX_RANKS)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "cluster of %d ranks: 1..%d", cluster->size,
                        HPR_CLUSTER_MAX_RANKS);
    if (cluster->rank < 0 || cluster->rank >= cluster->size)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "cluster rank %d is not in 0..%d", cluster->rank,
                        cluster->size - 1);
    if (!cluster->send || !cluster->poll)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "the cluster's send and poll must not be NULL");
    if (ctx->cluster && !same_transport(ctx->cluster, cluster)) {
        ranks_link_release(ctx->cluster);
        free(ctx->cluster);
        ctx->cluster = NULL;
    }
    if (!ctx->cluster) {
        ctx->cluster = malloc(sizeof *ctx->cluster);
        if (!ctx->cluster)
            return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "no memory for the cluster link");
        ranks_link_init(ctx->cluster, cluster->rank, cluster->size, cluster->user, cluster->send, cluster->poll,
                        HPR_ERR_RANK, HPR_ERR_INVALID_ARGUMENT);
    }
    call->link = ctx->cluster;
    call->rank = cluster->rank;
    call->size = cluster->size;
    call->bytes0 = call->link->bytes;
    call->messages0 = call->link->messages;
    return HPR_OK;
}

hpr_status cluster_agree(cluster_call *call, hpr_status status, uint64_t digest, double speed, const char *what,
                         const void *payload0, size_t len0, void **payload, size_t *len, double *speeds)
{
    char verdict[RANKS_DETAIL_LEN];
    if (payload)
        *payload = NULL;
    if (!call->link) {
        if (speeds)
            speeds[0] = speed;
        return status;
    }
    int st = ranks_agree(call->link, (int)status, call->ctx->detail, digest, speed, what, payload0, len0, payload, len,
                         speeds, verdict, sizeof verdict);
    if (st == 0)
        return HPR_OK;
    return ctx_fail(call->ctx, (hpr_status)st, "%s", verdict);
}

/* Adds one run's per-rank figures to the report (shares: that run's items over n). */
static void report_add(cluster_call *call, const ranks_report *rep, size_t n, hpr_cluster_report *report)
{
    call->runs++;
    if (!report)
        return;
    for (int r = 0; r < call->size && r < HPR_CLUSTER_MAX_RANKS; r++) {
        report->tiles[r] += rep->tiles[r];
        report->failures[r] += rep->failures[r];
        report->busy_s[r] += rep->busy_s[r];
        report->dropped[r] |= rep->dropped[r];
        report->share[r] += n ? (double)rep->items[r] / (double)n : 0;
    }
}

/* A job with HPR_SCHED_INJECT_FAULT=rank:R[@K] in front of its compute (the tests of a
 * rank's faults: its K-th tile, or every one, fails and goes to another rank). */
typedef struct {
    const ranks_job *job;
    cluster_call *call;
    unsigned started;
} fault_injector;

static int injected_payload(void *user, sched_range tile, int rank, void **in, size_t *in_len, int *owned,
                            char *detail, size_t dlen)
{
    fault_injector *f = user;
    return f->job->payload(f->job->user, tile, rank, in, in_len, owned, detail, dlen);
}

static int injected_compute(void *user, sched_range tile, void *in, size_t in_len, void **out, size_t *out_len,
                            char *detail, size_t dlen)
{
    fault_injector *f = user;
    char id[24];
    snprintf(id, sizeof id, "rank:%d", f->call->rank);
    if (ctx_sched_fault(f->call->ctx, id, ++f->started)) {
        snprintf(detail, dlen, "fault injected by HPR_SCHED_INJECT_FAULT on tile %u", f->started);
        return -1;
    }
    return f->job->compute(f->job->user, tile, in, in_len, out, out_len, detail, dlen);
}

static int injected_accept(void *user, sched_range tile, int rank, void *out, size_t out_len, char *detail,
                           size_t dlen)
{
    fault_injector *f = user;
    return f->job->accept(f->job->user, tile, rank, out, out_len, detail, dlen);
}

static void injected_idle(void *user)
{
    fault_injector *f = user;
    f->job->idle(f->job->user);
}

static int injected_start(void *user, char *detail, size_t dlen)
{
    fault_injector *f = user;
    return f->job->start(f->job->user, detail, dlen);
}

hpr_status cluster_run(cluster_call *call, size_t n, const double *speeds, const sched_tiling *tiling,
                       const ranks_job *job, hpr_cluster_report *report)
{
    ranks_report rep;
    char detail[RANKS_DETAIL_LEN];
    ranks_link single;
    ranks_link *l = call->link;
    fault_injector f = {job, call, 0};
    ranks_job injected = {&f,
                          job->payload ? injected_payload : NULL,
                          injected_compute,
                          injected_accept,
                          job->idle ? injected_idle : NULL,
                          job->start ? injected_start : NULL};
    if (!l) /* one process: the same dealing, to rank 0's worker alone */
        ranks_link_init(l = &single, 0, 1, NULL, NULL, NULL, HPR_ERR_RANK, HPR_ERR_INVALID_ARGUMENT);
    int st = ranks_run(l, n, speeds, tiling, call->ctx->knobs.sched_fault[0] ? &injected : job, &rep, detail,
                       sizeof detail);
    report_add(call, &rep, n, report);
    if (st == 0)
        return HPR_OK;
    return ctx_fail(call->ctx, (hpr_status)st, "%s", detail);
}

int cluster_tile_status(hpr_status st)
{
    switch (st) {
    case HPR_OK: return 0;
    case HPR_ERR_OUT_OF_MEMORY:
    case HPR_ERR_THREADS:
    case HPR_ERR_DEVICE:
    case HPR_ERR_RANK:
    case HPR_ERR_INTERNAL: return -1;
    default: return (int)st;
    }
}

hpr_status cluster_arguments_status(cluster_call *call, hpr_status st)
{
    if (st != HPR_OK || call->refused == HPR_OK)
        return st;
    return ctx_fail(call->ctx, call->refused, "%s", call->ctx->cluster_refused_why);
}

void cluster_report_end(const cluster_call *call, hpr_cluster_report *report)
{
    if (!report)
        return;
    report->ranks = (unsigned)call->size;
    report->seconds = rt_now_seconds() - call->t0;
    if (call->runs > 1)
        for (int r = 0; r < call->size && r < HPR_CLUSTER_MAX_RANKS; r++)
            report->share[r] /= call->runs;
    if (!call->link && call->runs == 0) { /* one process, run by the local call: all of it */
        report->tiles[0] = 1;
        report->share[0] = 1;
        report->busy_s[0] = report->seconds;
    }
    if (call->link) {
        report->bytes_sent = call->link->bytes - call->bytes0;
        report->messages = call->link->messages - call->messages0;
    }
}

/* ---- hpr_cluster_agree ---- */

hpr_status agree_call(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_status status, const char *detail)
{
    cluster_call call;
    char mine[CL_DETAIL_LEN];
    snprintf(mine, sizeof mine, "%s", detail ? detail : ctx->detail);
    hpr_status st = cluster_call_begin(ctx, cluster, NULL, &call);
    if (st != HPR_OK)
        return st;
    if (status != HPR_OK)
        snprintf(ctx->detail, sizeof ctx->detail, "%s", mine[0] ? mine : status_text(status));
    return cluster_agree(&call, status, 0, 0, "inputs", NULL, 0, NULL, NULL, NULL);
}

/* ---- hpr_cluster_ntt ---- */

typedef struct {
    hpr_ctx *ctx;
    hpr_field field;
    unsigned log_n;
    hpr_ntt_opts opts;
    unsigned char *data; /* rank 0's */
    size_t column_bytes;
} ntt_job;

static int ntt_payload(void *user, sched_range tile, int rank, void **in, size_t *in_len, int *owned, char *detail,
                       size_t dlen)
{
    ntt_job *j = user;
    (void)rank;
    (void)detail;
    (void)dlen;
    *in = j->data + tile.begin * j->column_bytes;
    *in_len = (tile.end - tile.begin) * j->column_bytes;
    *owned = 0;
    return 0;
}

static int ntt_compute(void *user, sched_range tile, void *in, size_t in_len, void **out, size_t *out_len,
                       char *detail, size_t dlen)
{
    ntt_job *j = user;
    hpr_ntt_opts o = j->opts;
    o.columns = tile.end - tile.begin;
    if (in_len != o.columns * j->column_bytes) {
        snprintf(detail, dlen, "columns [%zu, %zu) came as %zu bytes", tile.begin, tile.end, in_len);
        return -1;
    }
    hpr_status st = ntt_call(j->ctx, j->field, j->log_n, in, &o);
    if (st != HPR_OK) {
        snprintf(detail, dlen, "columns [%zu, %zu): %s", tile.begin, tile.end, j->ctx->detail);
        return cluster_tile_status(st);
    }
    *out = in; /* in place */
    *out_len = in_len;
    return 0;
}

static int ntt_accept(void *user, sched_range tile, int rank, void *out, size_t out_len, char *detail, size_t dlen)
{
    ntt_job *j = user;
    unsigned char *dst = j->data + tile.begin * j->column_bytes;
    (void)rank;
    if (out_len != (tile.end - tile.begin) * j->column_bytes) {
        snprintf(detail, dlen, "rank %d returned %zu bytes for columns [%zu, %zu)", rank, out_len, tile.begin, tile.end);
        return HPR_ERR_RANK;
    }
    if (out != dst)
        memcpy(dst, out, out_len);
    return 0;
}

/* What every rank must agree on: the transform and the batch's shape. */
static uint64_t ntt_digest(hpr_field field, unsigned log_n, const hpr_ntt_opts *o)
{
    uint64_t shape[5] = {(uint64_t)field, log_n, o->columns, (uint64_t)o->inverse, (uint64_t)o->order};
    uint64_t h = ranks_digest(0, shape, sizeof shape);
    h = ranks_digest(h, o->coset_shift ? o->coset_shift : "", o->coset_shift ? strlen(o->coset_shift) : 0);
    return ranks_digest(h, o->generator ? o->generator : "", o->generator ? strlen(o->generator) : 0);
}

static hpr_status ntt_check(cluster_call *call, hpr_field field, unsigned log_n, const void *data,
                            const hpr_ntt_opts *o, size_t *column_bytes)
{
    size_t elem = ntt_field_element_size(field);
    if (!elem)
        return ctx_fail(call->ctx, HPR_ERR_UNSUPPORTED_FIELD, "field %d is not supported", (int)field);
    if (log_n > ntt_field_two_adicity(field))
        return ctx_fail(call->ctx, HPR_ERR_INVALID_ARGUMENT, "log_n = %u is above the field's two-adicity %u", log_n,
                        ntt_field_two_adicity(field));
    if (o->row_major && o->columns > 1 && call->size > 1)
        return ctx_fail(call->ctx, HPR_ERR_INVALID_ARGUMENT,
                        "row-major batches are not dealt across ranks: pass the columns column-major");
    if (call->rank == 0 && !data)
        return ctx_fail(call->ctx, HPR_ERR_INVALID_ARGUMENT, "data must not be NULL on rank 0");
    *column_bytes = elem << log_n;
    return HPR_OK;
}

hpr_status cluster_ntt_call(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_field field, unsigned log_n,
                            void *data, const hpr_ntt_opts *opts, hpr_cluster_report *report)
{
    cluster_call call;
    hpr_ntt_opts o = opts ? *opts : (hpr_ntt_opts){.struct_size = sizeof(hpr_ntt_opts)};
    ntt_job job = {ctx, field, log_n, o, data, 0};
    double speeds[HPR_CLUSTER_MAX_RANKS] = {0}, speed;
    hpr_status st = cluster_call_begin(ctx, cluster, report, &call);
    if (st != HPR_OK)
        return st;
    o.columns = o.columns ? o.columns : 1;
    job.opts = o;
    st = cluster_arguments_status(&call, ntt_check(&call, field, log_n, data, &o, &job.column_bytes));
    if (call.size == 1 && st == HPR_OK) { /* one process: hpr_ntt itself */
        st = ntt_call(ctx, field, log_n, data, opts);
        cluster_report_end(&call, report);
        return st;
    }
    speed = calibrated_ntt_speed_call(ctx, "cpu", field, log_n) / (double)((size_t)1 << log_n); /* columns/s */
    if ((st = cluster_agree(&call, st, ntt_digest(field, log_n, &o), speed, "NTT options", NULL, 0, NULL, NULL,
                            speeds)) != HPR_OK)
        return st;
    sched_tiling tiling = ctx_tiling(ctx, 1, 1, 0);
    ranks_job rj = {&job, ntt_payload, ntt_compute, ntt_accept, NULL, NULL};
    st = cluster_run(&call, o.columns, speeds, &tiling, &rj, report);
    cluster_report_end(&call, report);
    return st;
}
