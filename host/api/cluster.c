/*
 * host/api/cluster.c: the public entries for the calls across the ranks of a cluster.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/cluster/cluster_calls.h"

#include <stdio.h>

hpr_status hpr_cluster_agree(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_status status, const char *detail)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    char earlier[CL_DETAIL_LEN];
    /* the detail of this thread's last call, before this call clears it */
    snprintf(earlier, sizeof earlier, "%s", detail ? detail : ctx_result_detail(ctx));
    ctx_enter(ctx);
    return ctx_leave(ctx, agree_call(ctx, cluster, status, earlier));
}

hpr_status hpr_cluster_ntt(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_field field, unsigned log_n, void *data,
                           const hpr_ntt_opts *opts, hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_enter(ctx);
    return ctx_leave(ctx, cluster_ntt_call(ctx, cluster, field, log_n, data, opts, report));
}

hpr_status hpr_cluster_groth16_prove(hpr_ctx *ctx, const hpr_cluster *cluster, const hpr_groth16_prover *prover,
                                     const void *wtns, size_t wtns_len, hpr_groth16_proof *proof,
                                     hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_enter(ctx);
    return ctx_leave(ctx, cluster_prove_call(ctx, cluster, prover, wtns, wtns_len, proof, report));
}

hpr_status hpr_cluster_groth16_prove_batch(hpr_ctx *ctx, const hpr_cluster *cluster,
                                           const hpr_groth16_prover *prover, size_t count,
                                           hpr_witness_reader read_witness, hpr_proof_writer write_proof, void *user,
                                           size_t *failed, hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_enter(ctx);
    return ctx_leave(ctx, cluster_batch_call(ctx, cluster, prover, count, read_witness, write_proof, user, failed,
                                             report));
}

hpr_status hpr_cluster_msm(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_curve curve, hpr_group group,
                           const void *points, const void *scalars, size_t n, void *out, const hpr_msm_opts *opts,
                           hpr_cluster_report *report)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_enter(ctx);
    return ctx_leave(ctx, cluster_msm_call(ctx, cluster, curve, group, points, scalars, n, out, opts, report));
}
