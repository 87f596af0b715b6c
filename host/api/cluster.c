/*
 * host/api/cluster.c: the public entries for the calls across the ranks of a cluster.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/api/proof_args.h"
#include "host/cluster/cluster_calls.h"

#include <stdio.h>

/* A cluster call's own arguments: the caller's hpr_cluster (read) and hpr_cluster_report
 * (written, may be NULL) as this library's full structs (host/core/sized.h). */
typedef struct {
    hpr_cluster cluster;
    const hpr_cluster *given;
    hpr_cluster_report report, *caller_report;
    size_t report_bytes;
} cluster_args;

static hpr_status cluster_args_begin(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_cluster_report *report,
                                     cluster_args *a)
{
    memset(a, 0, sizeof *a);
    hpr_status st = cluster ? SIZED_READ(ctx, hpr_cluster, cluster, &a->cluster) : HPR_OK;
    a->given = cluster ? &a->cluster : NULL;
    /* The report may be given on some ranks only (rank 0's): a refusal of it is agreed on in
     * the call, so the other ranks do not wait for this one (host/cluster/cluster.h). */
    if (st == HPR_OK && report &&
        sized_problem("hpr_cluster_report", report, sizeof *report, sizeof *report, 0, ctx->cluster_refused_why,
                      sizeof ctx->cluster_refused_why) != HPR_OK) {
        ctx->cluster_refused = HPR_ERR_INVALID_ARGUMENT;
        report = NULL;
    }
    a->report_bytes = report ? sized_bytes(report, sizeof a->report) : 0;
    a->caller_report = report;
    return st;
}

static hpr_cluster_report *cluster_args_report(cluster_args *a)
{
    return a->caller_report ? &a->report : NULL;
}

static hpr_status cluster_args_end(cluster_args *a, hpr_status st)
{
    if (a->caller_report)
        sized_write(a->caller_report, &a->report, a->report_bytes);
    return st;
}

hpr_status hpr_cluster_agree(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_status status, const char *detail)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    char earlier[CL_DETAIL_LEN];
    cluster_args a;
    /* the detail of this thread's last call, before this call clears it */
    snprintf(earlier, sizeof earlier, "%s", detail ? detail : ctx_result_detail(ctx));
    ctx_enter(ctx);
    hpr_status st = cluster_args_begin(ctx, cluster, NULL, &a);
    return ctx_leave(ctx, st != HPR_OK ? st : agree_call(ctx, a.given, status, earlier));
}

hpr_status hpr_cluster_ntt(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_field field, unsigned log_n, void *data,
                           const hpr_ntt_opts *opts, hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    cluster_args a;
    hpr_ntt_opts o;
    ctx_enter(ctx);
    hpr_status st = cluster_args_begin(ctx, cluster, report, &a);
    if (st == HPR_OK && opts)
        st = SIZED_READ(ctx, hpr_ntt_opts, opts, &o);
    if (st == HPR_OK)
        st = cluster_args_end(&a, cluster_ntt_call(ctx, a.given, field, log_n, data, opts ? &o : NULL,
                                                   cluster_args_report(&a)));
    return ctx_leave(ctx, st);
}

hpr_status hpr_cluster_groth16_prove(hpr_ctx *ctx, const hpr_cluster *cluster, const hpr_groth16_prover *prover,
                                     const void *wtns, size_t wtns_len, hpr_groth16_proof *proof,
                                     hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    cluster_args a;
    proof_args p;
    ctx_enter(ctx);
    hpr_status st = cluster_args_begin(ctx, cluster, report, &a);
    if (st == HPR_OK)
        st = proof_args_begin(ctx, proof, &p);
    if (st == HPR_OK)
        st = cluster_args_end(&a, proof_args_end(&p, cluster_prove_call(ctx, a.given, prover, wtns, wtns_len,
                                                                         p.proof, cluster_args_report(&a))));
    return ctx_leave(ctx, st);
}

hpr_status hpr_cluster_groth16_prove_batch(hpr_ctx *ctx, const hpr_cluster *cluster,
                                           const hpr_groth16_prover *prover, size_t count,
                                           hpr_witness_reader read_witness, hpr_proof_writer write_proof, void *user,
                                           size_t *failed, hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    cluster_args a;
    ctx_enter(ctx);
    hpr_status st = cluster_args_begin(ctx, cluster, report, &a);
    if (st == HPR_OK)
        st = cluster_args_end(&a, cluster_batch_call(ctx, a.given, prover, count, read_witness, write_proof, user,
                                                     failed, cluster_args_report(&a)));
    return ctx_leave(ctx, st);
}

hpr_status hpr_cluster_msm(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_curve curve, hpr_group group,
                           const void *points, const void *scalars, size_t n, void *out, const hpr_msm_opts *opts,
                           hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    cluster_args a;
    hpr_msm_opts o;
    ctx_enter(ctx);
    hpr_status st = cluster_args_begin(ctx, cluster, report, &a);
    if (st == HPR_OK && opts)
        st = SIZED_READ(ctx, hpr_msm_opts, opts, &o);
    if (st == HPR_OK)
        st = cluster_args_end(&a, cluster_msm_call(ctx, a.given, curve, group, points, scalars, n, out,
                                                   opts ? &o : NULL, cluster_args_report(&a)));
    return ctx_leave(ctx, st);
}
