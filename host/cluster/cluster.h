/*
 * cluster.h: what the cluster calls share (host/cluster/cluster.c): the rank link kept on the
 * context, agreement and dealing with the context's detail, the call's report, and the
 * MSM pieces both MSM jobs share (the sums of tiles, the common window size). Used by
 * cluster_msm.c (hpr_cluster_msm) and cluster_groth16.c (hpr_cluster_groth16_prove: the
 * five MSMs as one job; hpr_cluster_groth16_prove_batch).
 */
#ifndef HOST_CLUSTER_H
#define HOST_CLUSTER_H

#include "host/core/context.h"
#include "host/msm/msm_engine.h"

/* One cluster call on this rank. */
typedef struct {
    hpr_ctx *ctx;
    ranks_link *link; /* NULL: one process (no cluster, or a cluster of one rank) */
    int rank, size;
    double t0;
    uint64_t bytes0, messages0;
    unsigned runs;    /* ranks_run steps so far (the report's shares average over them) */
    hpr_status refused; /* an argument the public entry refused (ctx->cluster_refused): agreed on */
} cluster_call;

/* st, else the refusal of the public entry (its detail set on the context): the status this
 * rank brings to the call's first agreement. */
hpr_status cluster_arguments_status(cluster_call *call, hpr_status st);

/* The start of a cluster call: report (may be NULL) zeroed, the call begun on ctx
 * (ctx_call_begin), the cluster checked (rank in [0, size), at most HPR_CLUSTER_MAX_RANKS,
 * both functions set; NULL or one rank: local) and the context's link to it (kept between
 * calls, renewed for another transport). */
RT_MUST_CHECK hpr_status cluster_call_begin(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_cluster_report *report,
                                            cluster_call *call);

/* ranks_agree with this rank's status (its detail: the context's), a digest of what must be
 * equal (what names it), its speed, rank 0's payload. On failure the context's detail is the
 * verdict (every rank the same) and *payload is NULL. speeds: rank 0's view of each rank's. */
RT_MUST_CHECK hpr_status cluster_agree(cluster_call *call, hpr_status status, uint64_t digest, double speed,
                                       const char *what, const void *payload0, size_t len0, void **payload,
                                       size_t *len, double *speeds);

/* ranks_run with the context's detail set on failure; rep (rank 0) is added to report. */
RT_MUST_CHECK hpr_status cluster_run(cluster_call *call, size_t n, const double *speeds, const sched_tiling *tiling,
                                     const ranks_job *job, hpr_cluster_report *report);

/* A compute callback's return for an hpr status: 0, -1 for a fault that another rank may
 * not have (memory, a device, the transport, an internal check), else the status itself. */
int cluster_tile_status(hpr_status st);

/* The report's totals at the end of the call (bytes, messages, seconds, shares averaged). */
void cluster_report_end(const cluster_call *call, hpr_cluster_report *report);

/* A tile's sum in a job of one MSM or several (a proof's): which MSM, its item range, the
 * point (interchange form). */
typedef struct {
    sched_range range;
    unsigned msm;
    unsigned char point[MSM_MAX_AFFINE_BYTES];
} cluster_point;

/* Appends a point (size bytes) to *list (count used, cap allocated). 0, or -1 without memory. */
RT_MUST_CHECK int cluster_keep_point(cluster_point **list, size_t *count, size_t *cap, unsigned msm, sched_range range,
                                     const unsigned char *point, size_t size);

/* Rank 0: out = msm's points among pts[0..count) (reordered by MSM and range) added in range
 * order: the same bits however the ranks split the grid. */
RT_MUST_CHECK hpr_status cluster_sum_points(hpr_ctx *ctx, const msm_curve_ops *ops, cluster_point *pts, size_t count,
                                            unsigned msm, unsigned char *out);

/* The window bits of a grid the ranks share: what the CPU job of tier on threads threads
 * chooses for the general terms among n (a scalar neither 0 nor 1, a finite point: what the
 * buckets cost, as msm_cpu_job_prepare counts them); a scan, no preparation, so rank 0 can
 * send it before any rank prepares. scalars NULL: not known yet, each counted as general.
 * infinity (may be NULL: the points are read): the points at infinity, bit i of word i / 64. */
unsigned cluster_window_bits(const msm_curve_ops *ops, rt_cpu_tier tier, unsigned threads, const unsigned char *points,
                             const uint64_t *infinity, const unsigned char *scalars, size_t n);

#endif
