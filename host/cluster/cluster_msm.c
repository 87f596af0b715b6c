/*
 * cluster_msm.c: one MSM across the ranks of a cluster (hpr_cluster_msm), and what a proof's
 * five-MSM job shares with it (host/cluster/cluster.h: the tiles' sums, the common window size).
 *
 * Method: the hybrid MSM's grid (host/msm/msm_hybrid.c: windows x blocks of points) one level
 * up. Rank 0 chooses the window size c (the CPU job's model, for the threads of all ranks),
 * every rank prepares the same grid with that c at the same time (its own devices behind
 * it), and rank 0 deals item ranges of the grid to the ranks (runtime/sched/ranks.c), its
 * own from the end of the grid and the others' from the start (sched_tiling.from_end: so a
 * rank can foresee its windows, expect_windows), whole windows until the end game, whose
 * last window or two are shared in blocks by what each rank still has to do
 * (sched_tiling.whole_min), so that the ranks end together. Each rank sums its range over
 * its own devices (msm_grid_run) and returns one point; rank 0 adds the points in range order
 * (msm_add_tile_sums). Any partition covers every (window, point) once, and the result is
 * the affine point, so every rank count and split gives the same bits as one process.
 * Why windows rather than point ranges: as on one machine (msm_hybrid.c), Pippenger's
 * throughput grows with the points a window sees, so a rank given a range of points would
 * run at the speed of a smaller MSM.
 * Data: nothing but tiles and points travel: every rank holds the points and scalars (the
 * caller's; a proof's points are the zkey each rank maps). Per MSM: two agreements (a few
 * hundred bytes per rank), and per tile an ask (~500 B) and a point (64-192 B) back.
 * Cost on each rank: one pass over the inputs (their digest; rank 0 counts the general
 * terms in it), the check of its share of the points, and the grid's preparation (the
 * scalars sorted, the points in the kernel's form), which every rank repeats, then the
 * digits of the windows it runs: together about a tenth of the rank's time at 2^20 on two
 * ranks (docs/cluster.md, "Measured").
 */
#define _POSIX_C_SOURCE 200809L
#include "host/cluster/cluster.h"
#include "host/cluster/cluster_calls.h"
#include "host/core/devices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    hpr_ctx *ctx;
    msm_grid *grid;
    const msm_curve_ops *ops;
    cluster_point *results; /* rank 0: one point per tile */
    size_t count, cap;
    int rank, size;
    int expected;           /* this rank's expected windows have their digits */
} msm_job;

/* At a rank's first tile: the digits of the windows it expects to take formed in one pass
 * (msm_grid_expect) rather than one pass per tile, each of which reads every scalar (at 2^20
 * points such a pass cost about 5 ms, as much as forming two windows). Rank 0 takes its tiles
 * from the end of the grid, the others from the start, so with two ranks each expects its
 * half, rounded up to whole windows (an odd count's middle window is expected by both: the
 * end game shares it in blocks); with more, the others' tiles interleave and only rank 0's
 * share is foreseen. A window expected but dealt elsewhere costs its digits only; one not
 * expected is formed at its tile as before. */
static void expect_windows(msm_job *j)
{
    size_t items = msm_grid_items(j->grid), blocks = msm_grid_blocks(j->grid), windows = items / blocks;
    size_t share = (windows + (size_t)j->size - 1) / (size_t)j->size * blocks;
    j->expected = 1;
    if (share >= items)
        return;
    if (j->rank == 0)
        msm_grid_expect(j->grid, items - share, items);
    else if (j->size == 2)
        msm_grid_expect(j->grid, 0, share);
}

static int msm_compute(void *user, sched_range tile, void *in, size_t in_len, void **out, size_t *out_len,
                       char *detail, size_t dlen)
{
    msm_job *j = user;
    (void)in;
    (void)in_len;
    if (!j->grid) {
        snprintf(detail, dlen, "its MSM grid was not prepared");
        return -1;
    }
    unsigned char *point = malloc(j->ops->affine_size);
    if (!point) {
        snprintf(detail, dlen, "no memory for a point");
        return -1;
    }
    if (!j->expected)
        expect_windows(j);
    hpr_status st = msm_grid_run(j->grid, tile.begin, tile.end, point);
    if (st != HPR_OK) {
        snprintf(detail, dlen, "items [%zu, %zu): %s", tile.begin, tile.end, j->ctx->detail);
        free(point);
        return cluster_tile_status(st);
    }
    *out = point;
    *out_len = j->ops->affine_size;
    return 0;
}

int cluster_keep_point(cluster_point **list, size_t *count, size_t *cap, unsigned msm, sched_range range,
                       const unsigned char *point, size_t size)
{
    if (*count == *cap) {
        size_t more_cap = *cap ? 2 * *cap : 64;
        cluster_point *more = realloc(*list, more_cap * sizeof *more);
        if (!more)
            return -1;
        *list = more;
        *cap = more_cap;
    }
    cluster_point *p = &(*list)[(*count)++];
    p->range = range;
    p->msm = msm;
    memcpy(p->point, point, size);
    return 0;
}

static int msm_accept(void *user, sched_range tile, int rank, void *out, size_t out_len, char *detail, size_t dlen)
{
    msm_job *j = user;
    if (out_len != j->ops->affine_size) {
        snprintf(detail, dlen, "rank %d returned %zu bytes for a point of %zu", rank, out_len, j->ops->affine_size);
        return HPR_ERR_RANK;
    }
    if (cluster_keep_point(&j->results, &j->count, &j->cap, 0, tile, out, out_len) != 0) {
        snprintf(detail, dlen, "rank 0: no memory for %zu tile results", j->count + 1);
        return HPR_ERR_OUT_OF_MEMORY;
    }
    return 0;
}

/* By MSM, then range. */
static int by_msm_and_range(const void *a, const void *b)
{
    const cluster_point *x = a, *y = b;
    if (x->msm != y->msm)
        return x->msm < y->msm ? -1 : 1;
    return x->range.begin < y->range.begin ? -1 : x->range.begin > y->range.begin;
}

hpr_status cluster_sum_points(hpr_ctx *ctx, const msm_curve_ops *ops, cluster_point *pts, size_t count, unsigned msm,
                              unsigned char *out)
{
    unsigned char *points = malloc((count ? count : 1) * ops->affine_size);
    size_t k = 0;
    if (!points)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "no memory to add %zu tile results", count);
    qsort(pts, count, sizeof *pts, by_msm_and_range);
    for (size_t i = 0; i < count; i++)
        if (pts[i].msm == msm)
            memcpy(points + k++ * ops->affine_size, pts[i].point, ops->affine_size);
    hpr_status st = HPR_OK;
    if (k == 0) /* an MSM of no points: infinity, all zero */
        memset(out, 0, ops->affine_size);
    else
        st = msm_add_tile_sums(ctx, ops, points, k, out);
    free(points);
    return st;
}

/* 1 when the point (size bytes, interchange form: a multiple of 8) is infinity: all zero. */
static int is_infinity(const unsigned char *point, size_t size)
{
    uint64_t any = 0, w;
    for (size_t i = 0; i < size; i += 8) {
        memcpy(&w, point + i, 8);
        any |= w;
    }
    return any == 0;
}

/* 1 when the 32-byte scalar is neither 0 nor 1 (NULL: not known, general). */
static int scalar_is_general(const unsigned char *k)
{
    uint64_t w[4];
    if (!k)
        return 1;
    memcpy(w, k, sizeof w);
    return w[0] > 1 || (w[1] | w[2] | w[3]) != 0;
}

/* The general terms among [begin, end): a scalar neither 0 nor 1 (NULL: each general) with a
 * finite point (infinity: the bitmap, else the point read). */
static size_t general_terms(const msm_curve_ops *ops, const unsigned char *points, const uint64_t *infinity,
                            const unsigned char *scalars, size_t begin, size_t end)
{
    size_t general = 0;
    for (size_t i = begin; i < end; i++) /* the scalar first: a point is read only for a general one */
        general += scalar_is_general(scalars ? scalars + 32 * i : NULL) &&
                   !(infinity ? (int)(infinity[i / 64] >> (i % 64) & 1)
                              : is_infinity(points + i * ops->affine_size, ops->affine_size));
    return general;
}

unsigned cluster_window_bits(const msm_curve_ops *ops, rt_cpu_tier tier, unsigned threads, const unsigned char *points,
                             const uint64_t *infinity, const unsigned char *scalars, size_t n)
{
    size_t general = general_terms(ops, points, infinity, scalars, 0, n);
    return msm_cpu_window_bits(ops, tier, general ? general : 1, threads);
}

/* The digest of the inputs (the scalars and points of each block of SCAN_BLOCK terms in turn)
 * and, where general is not NULL, the count of general terms, in one pass: the count reads
 * the block that the digest has just brought into the cache. Apart, the two read the 2^20
 * BN254 inputs (96 MB) twice, and rank 0 counted while the others waited for its window
 * size (about 4 ms of the MSM's start on the 2-core Zen 4). */
#define SCAN_BLOCK 4096
static uint64_t scan_inputs(const msm_curve_ops *ops, const unsigned char *points, const unsigned char *scalars,
                            size_t n, size_t *general)
{
    uint64_t digest = 0;
    size_t size = ops->affine_size;
    if (general)
        *general = 0;
    for (size_t b = 0; b < n; b += SCAN_BLOCK) {
        size_t e = n - b < SCAN_BLOCK ? n : b + SCAN_BLOCK;
        digest = ranks_digest(digest, scalars + 32 * b, 32 * (e - b));
        digest = ranks_digest(digest, points + b * size, (e - b) * size);
        if (general)
            *general += general_terms(ops, points, NULL, scalars, b, e);
    }
    return digest;
}

/* The grid on this rank: rank 0 chooses c and sends it with the first agreement, then every
 * rank checks its share of the points (rank r: [r n / N, (r + 1) n / N)) and prepares the
 * same grid at once, without checking the points again (the preparations overlap); the
 * second agreement collects every rank's preparation and speed: an invalid point is found by
 * the rank whose share holds it (the lowest failing rank's message: the first invalid point),
 * an invalid scalar by every rank (rank 0's message). */
static hpr_status prepare_grids(cluster_call *call, msm_job *j, hpr_curve curve, hpr_group group,
                                const msm_points *pts, const unsigned char *scalars, size_t n, unsigned window_bits,
                                double *speeds)
{
    int devices = strcmp(call->ctx->device, "all") == 0;
    uint32_t c = 0, *got = NULL;
    size_t len = 0, general = 0;
    hpr_status st;
    int counts = call->rank == 0 && !window_bits; /* rank 0 chooses c: it counts the general terms */
    uint64_t digest = scan_inputs(j->ops, pts->host, scalars, n, counts ? &general : NULL);
    if (call->rank == 0)
        c = window_bits ? window_bits
                        : msm_cpu_window_bits(j->ops, call->ctx->cpu_tier, general ? general : 1, call->ctx->threads);
    if ((st = cluster_agree(call, HPR_OK, digest, 0, "MSM inputs", &c, sizeof c, (void **)&got, &len, NULL)) != HPR_OK)
        return st;
    if (call->rank != 0) {
        c = got && len == sizeof c ? *got : 0;
        free(got);
    }
    msm_points checked = *pts;
    checked.validated = 1;
    st = !c              ? ctx_fail(call->ctx, HPR_ERR_RANK, "rank 0 sent no window size")
         : pts->validated ? HPR_OK
                          : msm_cpu_check_points(call->ctx, j->ops, pts->host, n * (size_t)call->rank / (size_t)call->size,
                                                 n * (size_t)(call->rank + 1) / (size_t)call->size);
    if (st == HPR_OK)
        st = msm_grid_prepare(call->ctx, curve, group, j->ops, &checked, scalars, n, c, devices, &j->grid);
    uint64_t shape[2] = {j->grid ? msm_grid_items(j->grid) : 0, j->grid ? msm_grid_blocks(j->grid) : 0};
    double speed = j->grid ? msm_grid_speed(j->grid) : 0;
    return cluster_agree(call, st, ranks_digest(0, shape, sizeof shape), speed, "MSM grid (HPR_SCHED_TILES)", NULL, 0,
                         NULL, NULL, speeds);
}

/* The MSM of points [0, n) across the ranks (every rank the same points and scalars, checked
 * by the caller and compared by digest here); out (rank 0) in the interchange form. */
static hpr_status cluster_msm_run(cluster_call *call, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                  const msm_points *pts, const unsigned char *scalars, size_t n, unsigned char *out,
                                  unsigned window_bits, hpr_cluster_report *report)
{
    msm_job j = {call->ctx, NULL, ops, NULL, 0, 0, call->rank, call->size, 0};
    double speeds[HPR_CLUSTER_MAX_RANKS] = {0};
    hpr_status st;
    if (n == 0) { /* every rank knows it: nothing to deal */
        memset(out, 0, ops->affine_size);
        return cluster_agree(call, HPR_OK, 0, 0, "MSM inputs", NULL, 0, NULL, NULL, NULL);
    }
    if ((st = prepare_grids(call, &j, curve, group, pts, scalars, n, window_bits, speeds)) != HPR_OK)
        goto out;
    unsigned blocks = msm_grid_blocks(j.grid);
    sched_tiling tiling = ctx_tiling(call->ctx, blocks, blocks, blocks); /* whole windows, */
    tiling.whole_min = 1; /* but the last ones, shared in blocks so that the ranks end together; */
    tiling.from_end = 1;  /* rank 0 from the end, the others from the start (expect_windows) */
    ranks_job rj = {&j, NULL, msm_compute, msm_accept, NULL, NULL}; /* no payload: every rank has the inputs */
    if ((st = cluster_run(call, msm_grid_items(j.grid), speeds, &tiling, &rj, report)) != HPR_OK)
        goto out;
    if (call->rank == 0)
        st = cluster_sum_points(call->ctx, ops, j.results, j.count, 0, out);
out:
    msm_grid_free(j.grid);
    free(j.results);
    return st;
}

/* ---- hpr_cluster_msm ---- */

static hpr_status check_args(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points,
                             const void *scalars, size_t n, const void *out, const hpr_msm_opts *opts,
                             const msm_curve_ops **ops)
{
    const char *device = dev_of_call(ctx, opts ? opts->device : NULL);
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported (bn254 = 1, bls12-381 = 2)",
                        (int)curve);
    if (!(*ops = msm_ops(curve, group)))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (!out || (n > 0 && (!points || !scalars)))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "points, scalars and out must not be NULL");
    if (n > UINT32_MAX)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu is too large (at most 2^32 - 1 points)", n);
    if (opts && (opts->window_bits > MSM_MAX_WINDOW_BITS || opts->point_chunks || opts->windows_per_tile))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "a cluster MSM takes window_bits (0..%d) and no point_chunks or windows_per_tile",
                        MSM_MAX_WINDOW_BITS);
    if (strcmp(device, "cpu") != 0 && strcmp(device, "all") != 0)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "a cluster MSM runs on each rank's \"cpu\" or \"all\" devices, not \"%s\"", device);
    return HPR_OK;
}

hpr_status cluster_msm_call(hpr_ctx *ctx, const hpr_cluster *cluster, hpr_curve curve, hpr_group group,
                            const void *points, const void *scalars, size_t n, void *out,
                            const hpr_msm_opts *opts, hpr_cluster_report *report)
{
    cluster_call call;
    const msm_curve_ops *ops = NULL;
    char device[sizeof ctx->device];
    hpr_status st = cluster_call_begin(ctx, cluster, report, &call);
    if (st != HPR_OK)
        return st;
    st = cluster_arguments_status(&call, check_args(ctx, curve, group, points, scalars, n, out, opts, &ops));
    if (call.size == 1) {
        if (st == HPR_OK) {
            msm_points pts = {points, n, 0, 0, 0};
            st = msm_keyed(ctx, curve, group, &pts, scalars, n, out, opts);
        }
        cluster_report_end(&call, report);
        return st;
    }
    if (st != HPR_OK) /* the others learn of it in the first agreement */
        return cluster_agree(&call, st, 0, 0, "MSM inputs", NULL, 0, NULL, NULL, NULL);
    memcpy(device, ctx->device, sizeof device);
    const char *asked = dev_of_call(ctx, opts ? opts->device : NULL);
    if (asked != ctx->device)
        snprintf(ctx->device, sizeof ctx->device, "%s", asked);
    msm_points pts = {points, n, 0, 0, 0};
    st = cluster_msm_run(&call, curve, group, ops, &pts, scalars, n, out, opts ? opts->window_bits : 0, report);
    memcpy(ctx->device, device, sizeof device);
    cluster_report_end(&call, report);
    return st;
}
