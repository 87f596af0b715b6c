/*
 * msm_hybrid.c: one MSM over every usable device ("all"), through the scheduler (runtime/sched/sched.h).
 *
 * The grid: the CPU prepares the whole MSM once (scalars checked and sorted, every point
 * validated, the window size c chosen for all n points, its digits), and the job is the grid
 * of W windows x B blocks of points; item j is window j / B, block j % B. A tile (a range of
 * items) is a few whole windows over all points, or some blocks of one window; a device turns
 * each piece into sum_w 2^(c w) * sum_i d_w(k_i) * P_i over its windows and points (the CPU
 * with msm_cpu_job_run, an OpenCL device with cl_msm_slice, each with its own window size)
 * and returns the tile's sum as a point; the host adds them in grid order. Any partition
 * covers every (window, point) once, so it changes no bit of the affine output.
 * Why windows rather than point ranges: Pippenger's throughput grows with the number of
 * points (wider windows, bucket reduction amortised), so a device given a range of points
 * works at the speed of a smaller MSM and the split loses what it gains; a window over all
 * points costs the same wherever it runs. Measured (BN254 2^18, CPU avx512 1 thread + POCL
 * 1 thread): point-range tiles ran the CPU at 340-550k points/s against 630k alone, hybrid
 * efficiency 0.41-0.72.
 * Each device at its own window size: the grid's windows are the CPU's (its c, chosen for all
 * n points), but an OpenCL device computes a piece of windows [w0, w1) as the bit slice
 * [w0 c, w1 c) of the scalars in windows of its own size (cl_msm_slice): Booth digits over
 * any tiling of a slice telescope to the same value (msm_booth_digit_at), so a GPU runs at
 * its c near 16 beside a CPU at 12 or 13, and the bits do not change.
 * Points on the devices: an OpenCL device receives the points once per call (once for all
 * calls where they have a key: hpr_bases, a Groth16 key's sections) and reads every tile's
 * points from that copy (runtime/opencl/cl_resident.c), so its tiles send only scalars.
 * Blocks: B = 8. Partial windows let the tail end evenly, but a piece pays a whole bucket
 * reduction (about 1.5 * 2^c additions) however few its points, so the scheduler aligns
 * tiles of B items or more to whole windows (sched_tiling.align) and blocks are left to
 * small tiles: the probes, a slow device's tiles and the tail.
 * Devices: the CPU (its thread pool), and each OpenCL device that passes its self-test. An
 * OpenCL CPU device (POCL) runs on the native pool's cores: it joins only if the pool's
 * threads plus its compute units fit the machine's cores; otherwise it is left out, since
 * the native kernels are faster per core (docs/performance.md: 2-3x), and the report says so.
 * Speeds: from the calibration profile (hpr_calibrate) at the size of an even share, else
 * probed by each device's first tile.
 * Below HYBRID_MIN_POINTS points the CPU runs alone.
 * Cancellation: each device checks before each piece of its tiles (the CPU's pieces also
 * before each of their tasks) and stops the job as an input error would; the OpenCL pieces
 * add their progress units when they return, the CPU's as their tasks end.
 * Ranges of the grid: msm_grid_run runs any item range of a prepared grid over the devices
 * (tiles then count from the range's first item), so that the processes of a cluster call
 * (host/cluster/cluster_msm.c) each prepare the same grid and run the ranges rank 0 deals them.
 * HPR_SCHED_TILES=MIN,PROBE[,BLOCKS[,C]] (items; for tests) sets the tile sizes, the blocks per
 * window and the window bits, and lifts that threshold.
 */
#define _POSIX_C_SOURCE 200809L
#include "host/msm/resident.h"
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/msm/msm_engine.h"
#include "host/core/core_calls.h"
#include "host/core/deal.h"
#include "runtime/opencl/cl_msm.h"
#include "runtime/sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HYBRID_MIN_POINTS 32768
#define BLOCKS_PER_WINDOW 8

/* The tile grid of one hybrid MSM. */
typedef struct {
    size_t n;
    unsigned c, windows, blocks;
} tile_grid;

/* Windows [w0, w1) over points [p0, p1). */
typedef struct {
    unsigned w0, w1;
    size_t p0, p1;
} grid_piece;

typedef struct {
    hpr_ctx *ctx;
    hpr_curve curve;
    int variant; /* the devices' MSM program (dev_msm_variant) */
    const msm_curve_ops *ops;
    const msm_points *pts;
    const unsigned char *scalars;
    const tile_grid *grid;
    msm_cpu_job *job; /* the CPU's prepared MSM */
    cl_dev *dev;      /* NULL for the CPU */
    unsigned tiles_started;
    size_t base;      /* the first item of the range being run: tiles count from it */
} tile_device;

/* The next piece of items [*j, end): the whole windows it holds from a window's start, else
 * the blocks of one window. Advances *j. */
static grid_piece next_piece(const tile_grid *g, size_t *j, size_t end)
{
    size_t nb = g->blocks, w = *j / nb, b = *j % nb;
    grid_piece pc;
    if (b == 0 && end - *j >= nb) {
        size_t k = (end - *j) / nb;
        pc = (grid_piece){(unsigned)w, (unsigned)(w + k), 0, g->n};
        *j += k * nb;
    } else {
        size_t e = end < (w + 1) * nb ? end : (w + 1) * nb;
        pc = (grid_piece){(unsigned)w, (unsigned)w + 1, g->n * b / nb, g->n * (e - w * nb) / nb};
        *j = e;
    }
    return pc;
}

/* HPR_SCHED_INJECT_FAULT=cl:P.D@K fails that device's K-th tile (1-based); cl:P.D alone fails
 * every tile, cl:P.D@rand:SEED:P each with probability P (ctx_sched_fault). For the tests of
 * fault handling and the soak's fault runs. */
static int injected_fault(tile_device *td)
{
    return td->dev && ctx_sched_fault(td->ctx, td->dev->id, td->tiles_started); /* @rand: too (context.h) */
}

/* acc (XYZZ) = the piece on the OpenCL device: the bit slice of the CPU's windows [w0, w1),
 * in windows of the device's own size (cl_msm_slice), up to bit `bits` (k < 2^bits: the rest
 * is zero and carries nothing). -1 for a device fault (detail). */
static int opencl_piece(tile_device *td, grid_piece pc, void *acc, char *detail, size_t detail_len)
{
    const msm_curve_ops *ops = td->ops;
    unsigned c = td->grid->c, b1 = pc.w1 * c < ops->scalar_bits + 1 ? pc.w1 * c : ops->scalar_bits + 1;
    unsigned char bytes[MSM_MAX_AFFINE_BYTES];
    uint64_t affine[MSM_MAX_AFFINE_BYTES / 8];
    uint32_t first = 0;
    size_t bad_index;
    msm_point_check bad_kind;
    char why[CL_DETAIL_LEN];
    switch (cl_msm_slice(td->ctx->cl, td->dev, td->variant, ops, td->pts, pc.p0, td->scalars + pc.p0 * 32,
                         pc.p1 - pc.p0, pc.w0 * c, b1, bytes, &bad_index, &bad_kind, why)) {
    case CL_MSM_OK: break;
    case CL_MSM_BAD_POINT:
        snprintf(detail, detail_len, "%s: reported point %zu invalid, which the CPU accepted", td->dev->id,
                 pc.p0 + bad_index);
        return -1;
    default: snprintf(detail, detail_len, "%s: %s", td->dev->id, why); return -1;
    }
    if (ops->decode_point(affine, bytes) != MSM_POINT_OK) {
        snprintf(detail, detail_len, "%s: returned a sum off the curve", td->dev->id);
        return -1;
    }
    ops->sum_points(acc, affine, &first, 0, 1);
    return 0;
}

static int run_tile(void *impl, sched_range r, void *result, char *detail, size_t detail_len)
{
    tile_device *td = impl;
    const msm_curve_ops *ops = td->ops;
    uint64_t acc[MSM_MAX_XYZZ_BYTES / 8], piece[MSM_MAX_XYZZ_BYTES / 8];
    td->tiles_started++;
    if (injected_fault(td)) {
        snprintf(detail, detail_len, "%s: fault injected by HPR_SCHED_INJECT_FAULT on tile %u", td->dev->id,
                 td->tiles_started);
        return -1;
    }
    ops->xyzz_set_inf(acc);
    r.begin += td->base;
    r.end += td->base;
    for (size_t j = r.begin; j < r.end;) {
        grid_piece pc = next_piece(td->grid, &j, r.end);
        if (pc.p0 == pc.p1)
            continue;
        if (progress_cancelled(td->ctx)) {
            snprintf(detail, detail_len, "cancelled");
            return 1; /* the job stops; run_grid says why */
        }
        if (!td->dev) {
            if (msm_cpu_job_run(td->ctx, td->job, pc.w0, pc.w1, pc.p0, pc.p1, piece) != HPR_OK) {
                snprintf(detail, detail_len, "cpu: %s", td->ctx->detail);
                return 1; /* out of memory: the job stops */
            }
        } else if (opencl_piece(td, pc, piece, detail, detail_len) != 0) {
            return -1;
        } else {
            msm_cpu_job_progress(td->job, pc.w0, pc.w1, pc.p0, pc.p1);
        }
        ops->xyzz_add(acc, acc, piece);
    }
    ops->encode_xyzz(result, acc);
    return 0;
}

/* Tile sizes (items), blocks per window and the forced window bits (0: chosen): defaults, or
 * HPR_SCHED_TILES. Returns 1 when forced. */
static int forced_grid(const hpr_ctx *ctx, size_t *min_tile, size_t *probe, unsigned *blocks, unsigned *c)
{
    const char *forced = ctx->knobs.sched_tiles;
    unsigned long v[4] = {0, 0, 0, 0};
    *min_tile = 1;
    *probe = 1;
    *blocks = 0;
    *c = 0;
    if (!forced[0] || sscanf(forced, "%lu,%lu,%lu,%lu", &v[0], &v[1], &v[2], &v[3]) < 2 || !v[0] || !v[1])
        return 0;
    *min_tile = v[0];
    *probe = v[1];
    *blocks = v[2] > 0 && v[2] <= 64 ? (unsigned)v[2] : 0;
    *c = v[3] > 0 && v[3] <= MSM_MAX_WINDOW_BITS ? (unsigned)v[3] : 0;
    return 1;
}

hpr_status msm_add_tile_sums(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *results, size_t ntiles,
                                unsigned char *out)
{
    unsigned char *affine = malloc(ntiles * ops->affine_size);
    uint32_t *index = malloc(ntiles * sizeof *index);
    uint64_t acc[MSM_MAX_XYZZ_BYTES / 8];
    hpr_status st = HPR_OK;
    if (!affine || !index) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "adding %zu tile results", ntiles);
        goto out;
    }
    for (size_t i = 0; i < ntiles; i++) {
        index[i] = (uint32_t)i;
        if (ops->decode_point(affine + i * ops->affine_size, results + i * ops->affine_size) != MSM_POINT_OK) {
            st = ctx_fail(ctx, HPR_ERR_INTERNAL, "tile %zu returned a point off the curve", i);
            goto out;
        }
    }
    ops->sum_points(acc, affine, index, 0, ntiles);
    ops->encode_xyzz(out, acc);
out:
    free(affine);
    free(index);
    return st;
}

/* The CPU alone over the prepared job: one piece, no tiles. */
static hpr_status cpu_alone(hpr_ctx *ctx, const msm_curve_ops *ops, msm_cpu_job *job, size_t n, unsigned char *out,
                            double t0)
{
    char notes[sizeof ctx->report.notes];
    uint64_t acc[MSM_MAX_XYZZ_BYTES / 8];
    memcpy(notes, ctx->report.notes, sizeof notes);
    hpr_status st = msm_cpu_job_run(ctx, job, 0, msm_cpu_job_windows(job), 0, n, acc);
    if (st == HPR_OK)
        ops->encode_xyzz(out, acc);
    report_single(ctx, "cpu", n, rt_now_seconds() - t0);
    memcpy(ctx->report.notes, notes, sizeof notes);
    return st;
}

/* The items [base, base + items) of the grid (tds[*].base) dealt to the devices. */
static hpr_status run_grid(hpr_ctx *ctx, tile_device *tds, unsigned ndev, cl_dev **cl_devs, size_t items,
                           size_t min_tile, size_t probe, unsigned char *out, double t0)
{
    const tile_grid *g = tds[0].grid;
    const msm_curve_ops *ops = tds[0].ops;
    sched_device devs[HPR_REPORT_MAX_DEVICES];
    size_t all_items = (size_t)g->windows * g->blocks;
    unsigned log_share = 0; /* log2 of an even share: the size class of the calibration figure */
    while (log_share < 40 && ((size_t)2 << log_share) <= g->n / ndev)
        log_share++;
    for (unsigned d = 0; d < ndev; d++) {
        const char *id = d ? cl_devs[d - 1]->id : "cpu";
        /* the profile holds G1 figures: a G2 grid probes instead */
        double points_per_s = tds[0].ops == msm_g1_ops(tds[0].curve) ? calibrated_speed_call(ctx, id, tds[0].curve, log_share) : 0;
        devs[d] = (sched_device){id, &tds[d], run_tile, points_per_s * (double)all_items / (double)g->n};
    }
    sched_tiling tiling = ctx_tiling(ctx, min_tile, probe, g->blocks); /* whole windows where tiles are large */
    cl_dev *run_devs[HPR_REPORT_MAX_DEVICES];
    for (unsigned d = 0; d < ndev; d++)
        run_devs[d] = tds[d].dev;
    /* the report counts a device's items as the points they are worth; a tile stops the job
     * only for a cancel or the CPU's memory */
    const deal_op op = {NULL, HPR_ERR_OUT_OF_MEMORY, (double)g->n / (double)all_items};
    deal_results r = {NULL, NULL, 0};
    hpr_status st = deal_run(ctx, &op, devs, run_devs, ndev, items, &tiling, ops->affine_size, t0, &r);
    if (st == HPR_OK)
        st = msm_add_tile_sums(ctx, ops, r.results, r.ntiles, out);
    ctx->report.seconds = rt_now_seconds() - t0;
    deal_results_free(&r);
    return st;
}

/* One MSM prepared as a grid (msm_engine.h): the CPU's job and the devices that take part. */
struct msm_grid {
    hpr_ctx *ctx;
    const msm_curve_ops *ops;
    const msm_points *pts; /* the caller's */
    msm_points kept;       /* the points as the devices key them */
    msm_cpu_job *job;
    tile_grid grid;
    cl_dev *cl_devs[HPR_REPORT_MAX_DEVICES - 1];
    tile_device tds[HPR_REPORT_MAX_DEVICES];
    unsigned ndev;
    size_t min_tile, probe;
};

hpr_status msm_grid_prepare(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                            const msm_points *pts, const unsigned char *scalars, size_t n, unsigned c, int devices,
                            msm_grid **out)
{
    msm_grid *g = calloc(1, sizeof *g);
    hpr_msm_opts opts = {.struct_size = sizeof opts};
    unsigned blocks;
    *out = NULL;
    if (!g)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "no memory for an MSM grid");
    g->ctx = ctx;
    g->ops = ops;
    g->pts = pts;
    g->kept = *pts;
    g->ndev = 1;
    int forced = forced_grid(ctx, &g->min_tile, &g->probe, &blocks, &opts.window_bits);
    if (c)
        opts.window_bits = c;
    if (devices && (forced || n >= HYBRID_MIN_POINTS))
        g->ndev += msm_pick_devices(ctx, curve, group, g->cl_devs, HPR_REPORT_MAX_DEVICES - 1);
    hpr_status st = msm_cpu_job_prepare(ctx, ops, pts->host, pts->validated, scalars, n, &opts, &g->job);
    if (st != HPR_OK) {
        free(g);
        return st;
    }
    /* points without a key are kept on the devices for this grid's tiles only */
    if (g->ndev > 1 && !g->kept.key)
        g->kept.key = g->kept.owner = ctx_new_resident_keys(1);
    blocks = blocks ? blocks : BLOCKS_PER_WINDOW;
    g->grid = (tile_grid){n, msm_cpu_job_window_bits(g->job), msm_cpu_job_windows(g->job),
                          blocks < n ? blocks : (unsigned)(n ? n : 1)};
    for (unsigned d = 0; d < g->ndev; d++)
        g->tds[d] = (tile_device){ctx, curve, dev_msm_variant(curve, group), ops, &g->kept, scalars, &g->grid, g->job,
                                  d ? g->cl_devs[d - 1] : NULL, 0, 0};
    *out = g;
    return HPR_OK;
}

void msm_grid_shape(const hpr_ctx *ctx, const msm_curve_ops *ops, size_t n, unsigned c, size_t *items,
                    unsigned *blocks)
{
    size_t min_tile, probe;
    unsigned b, forced_c;
    forced_grid(ctx, &min_tile, &probe, &b, &forced_c);
    b = b ? b : BLOCKS_PER_WINDOW;
    *blocks = b < n ? b : (unsigned)(n ? n : 1);
    *items = (size_t)msm_window_count(ops->scalar_bits, c) * *blocks;
}

size_t msm_grid_items(const msm_grid *g)
{
    return (size_t)g->grid.windows * g->grid.blocks;
}

unsigned msm_grid_blocks(const msm_grid *g)
{
    return g->grid.blocks;
}

unsigned msm_grid_window_bits(const msm_grid *g)
{
    return g->grid.c;
}

double msm_grid_speed(const msm_grid *g)
{
    const msm_curve_ops *ops = g->ops;
    unsigned log_n = 0;
    double sum = 0;
    if (ops != msm_g1_ops(g->tds[0].curve)) /* the profile holds G1 figures */
        return 0;
    while (log_n < 40 && ((size_t)2 << log_n) <= g->grid.n)
        log_n++;
    for (unsigned d = 0; d < g->ndev; d++) {
        double s = calibrated_speed_call(g->ctx, d ? g->cl_devs[d - 1]->id : "cpu", g->tds[0].curve, log_n);
        if (s <= 0)
            return 0;
        sum += s;
    }
    return sum * (double)msm_grid_items(g) / (double)g->grid.n;
}

/* Items [i0, i1) on the CPU alone, piece after piece (the whole grid: one piece). */
static hpr_status cpu_range(msm_grid *g, size_t i0, size_t i1, unsigned char *out, double t0)
{
    uint64_t acc[MSM_MAX_XYZZ_BYTES / 8], piece[MSM_MAX_XYZZ_BYTES / 8];
    if (i0 == 0 && i1 == msm_grid_items(g))
        return cpu_alone(g->ctx, g->ops, g->job, g->grid.n, out, t0);
    g->ops->xyzz_set_inf(acc);
    for (size_t j = i0; j < i1;) {
        grid_piece pc = next_piece(&g->grid, &j, i1);
        if (pc.p0 == pc.p1)
            continue;
        hpr_status st = msm_cpu_job_run(g->ctx, g->job, pc.w0, pc.w1, pc.p0, pc.p1, piece);
        if (st != HPR_OK)
            return st;
        g->ops->xyzz_add(acc, acc, piece);
    }
    g->ops->encode_xyzz(out, acc);
    report_single(g->ctx, "cpu", g->grid.n * (i1 - i0) / msm_grid_items(g), rt_now_seconds() - t0);
    return HPR_OK;
}

void msm_grid_expect(msm_grid *g, size_t i0, size_t i1)
{
    RT_INVARIANT(i0 < i1 && i1 <= msm_grid_items(g));
    msm_cpu_job_form_digits(g->job, (unsigned)(i0 / g->grid.blocks), (unsigned)((i1 - 1) / g->grid.blocks + 1));
}

hpr_status msm_grid_run(msm_grid *g, size_t i0, size_t i1, unsigned char *out)
{
    double t0 = rt_now_seconds();
    if (g->ndev == 1)
        return cpu_range(g, i0, i1, out, t0);
    for (unsigned d = 0; d < g->ndev; d++)
        g->tds[d].base = i0;
    return run_grid(g->ctx, g->tds, g->ndev, g->cl_devs, i1 - i0, g->min_tile, g->probe, out, t0);
}

void msm_grid_free(msm_grid *g)
{
    if (!g)
        return;
    if (g->ndev > 1 && !g->pts->key)
        ctx_drop_resident(g->ctx, g->kept.owner);
    msm_cpu_job_free(g->job);
    free(g);
}

hpr_status msm_hybrid(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops, const msm_points *pts,
                      const unsigned char *scalars, size_t n, unsigned char *out)
{
    msm_grid *g;
    hpr_status st = msm_grid_prepare(ctx, curve, group, ops, pts, scalars, n, 0, 1, &g);
    if (st != HPR_OK)
        return st;
    st = msm_grid_run(g, 0, msm_grid_items(g), out);
    msm_grid_free(g);
    return st;
}
