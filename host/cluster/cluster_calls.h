/*
 * cluster_calls.h: the entries of the cluster (MSM, NTT and proofs across ranks)
 * that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_CLUSTER_CLUSTER_CALLS_H
#define HOST_CLUSTER_CLUSTER_CALLS_H

#include "host/cluster/cluster.h"

hpr_status agree_call(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_status status, const char *detail);
hpr_status cluster_batch_call(hpr_ctx *ctx, const hpr_cluster *cluster, const hpr_groth16_prover *prover,
                              size_t count, hpr_witness_reader read_witness, hpr_proof_writer write_proof, void *user,
                              size_t *failed, hpr_cluster_report *report);
hpr_status cluster_msm_call(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_curve curve, hpr_group group,
                            const void *points, const void *scalars, size_t n, void *out, const hpr_msm_opts *opts,
                            hpr_cluster_report *report);
hpr_status cluster_ntt_call(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_field field, unsigned log_n, void *data,
                            const hpr_ntt_opts *opts, hpr_cluster_report *report);
hpr_status cluster_prove_call(hpr_ctx *ctx, const hpr_cluster *cluster, const hpr_groth16_prover *prover,
                              const void *wtns, size_t wtns_len, hpr_groth16_proof *proof,
                              hpr_cluster_report *report);

#endif
