/*
 * hybrid.c: one MSM over every usable device ("all"), through the scheduler (runtime/sched.h).
 *
 * Tiles are ranges of points; every device computes the whole MSM of its range (its own
 * window size, bucket layout and validation) and returns the sum as a point, so results of
 * any split add up to the same affine answer: a partition changes no bit of the output. The
 * host adds the tile sums in range order.
 * Why ranges with all windows rather than (points x windows) tiles: a shared window size
 * would force one bucket layout on devices that want very different ones (2^c buckets per
 * work-item on a GPU against per-thread buckets on the CPU), and splitting windows adds
 * nothing to balancing once ranges can be cut anywhere.
 * Devices: the CPU (its thread pool), and each OpenCL device that passes its self-test. An
 * OpenCL CPU device (POCL) runs on the native pool's cores: it joins only if the pool's
 * threads plus its compute units fit the machine's cores; otherwise it is left out, since
 * the native kernels are faster per core (README: 2-3x), and the report says so.
 * Speeds: from the calibration profile (hpr_calibrate) at the size of an even share, else
 * probed by each device's first tile.
 * Tiles: min_tile = max(n/32, 16384) points, probe = max(n/64, 8192) (HPR_SCHED_TILES=MIN,PROBE
 * overrides them for tests). Below 2 * min_tile points the CPU runs alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "../runtime/cl_msm.h"
#include "../runtime/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_TILE_FLOOR 16384
#define PROBE_FLOOR 8192

typedef struct {
    hpr_ctx *ctx;
    hpr_curve curve;
    const msm_curve_ops *ops;
    const unsigned char *points, *scalars;
    cl_dev *dev; /* NULL for the CPU */
    unsigned tiles_started;
} tile_device;

/* HPR_SCHED_INJECT_FAULT=cl:P.D@K fails that device's K-th tile (1-based); cl:P.D alone fails
 * every tile. For the tests of fault handling. */
static int injected_fault(tile_device *td)
{
    const char *f = getenv("HPR_SCHED_INJECT_FAULT");
    size_t idlen;
    if (!f || !td->dev)
        return 0;
    idlen = strlen(td->dev->id);
    if (strncmp(f, td->dev->id, idlen) != 0)
        return 0;
    if (f[idlen] == '\0')
        return 1;
    return f[idlen] == '@' && strtoul(f + idlen + 1, NULL, 10) == td->tiles_started;
}

static int run_tile(void *impl, sched_range r, void *result, char *detail, size_t detail_len)
{
    tile_device *td = impl;
    const msm_curve_ops *ops = td->ops;
    size_t n = r.end - r.begin, bad_index;
    msm_point_check bad_kind;
    char why[CL_DETAIL_LEN];
    td->tiles_started++;
    if (!td->dev) {
        hpr_status st = hpr_msm_cpu(td->ctx, ops, td->points + r.begin * ops->affine_size, td->scalars + r.begin * 32,
                                    n, result, NULL);
        if (st == HPR_OK)
            return 0;
        snprintf(detail, detail_len, "cpu: %s", hpr_ctx_error_detail(td->ctx));
        return 1; /* invalid input (the scalars were checked before) */
    }
    if (injected_fault(td)) {
        snprintf(detail, detail_len, "%s: fault injected by HPR_SCHED_INJECT_FAULT on tile %u", td->dev->id,
                 td->tiles_started);
        return -1;
    }
    switch (cl_msm(td->ctx->cl, td->dev, (int)td->curve, ops, td->points + r.begin * ops->affine_size,
                   td->scalars + r.begin * 32, n, 0, result, &bad_index, &bad_kind, NULL, why)) {
    case CL_MSM_OK: return 0;
    case CL_MSM_BAD_POINT:
        snprintf(detail, detail_len, "%s: invalid point %zu", td->dev->id, r.begin + bad_index);
        return 1;
    default: snprintf(detail, detail_len, "%s: %s", td->dev->id, why); return -1;
    }
}

static void add_note(hpr_ctx *ctx, const char *a, const char *b)
{
    size_t used = strlen(ctx->report.notes);
    if (used + 2 < sizeof ctx->report.notes)
        snprintf(ctx->report.notes + used, sizeof ctx->report.notes - used, "%s%.16s: %.400s", used ? "; " : "", a, b);
}

/* The OpenCL devices that join: usable, self-tested, and not oversubscribing the cores. */
static unsigned pick_opencl_devices(hpr_ctx *ctx, hpr_curve curve, cl_dev **picked, unsigned max)
{
    unsigned count = 0, cores = rt_online_cpus();
    char why[CL_DETAIL_LEN];
    if (hpr_ctx_opencl(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs && count < max; i++) {
        cl_dev *dev = &ctx->cl->devs[i];
        if (dev->failed) {
            add_note(ctx, dev->id, "left out: unusable");
            continue;
        }
        if ((dev->type & CL_DEVICE_TYPE_CPU) && ctx->threads + dev->compute_units > cores) {
            snprintf(why, sizeof why,
                     "left out: it runs on the same %u cores as the native pool (%u threads), which is faster per "
                     "core; limit both (threads, POCL_MAX_PTHREAD_COUNT) to combine them",
                     cores, ctx->threads);
            add_note(ctx, dev->id, why);
            continue;
        }
        if (hpr_device_ready(ctx, dev, curve) != HPR_OK) {
            add_note(ctx, dev->id, ctx->detail);
            ctx->detail[0] = '\0';
            continue;
        }
        picked[count++] = dev;
    }
    return count;
}

static void tile_sizes(size_t n, size_t *min_tile, size_t *probe)
{
    const char *forced = getenv("HPR_SCHED_TILES");
    unsigned long a, b;
    *min_tile = n / 32 > MIN_TILE_FLOOR ? n / 32 : MIN_TILE_FLOOR;
    *probe = n / 64 > PROBE_FLOOR ? n / 64 : PROBE_FLOOR;
    if (forced && sscanf(forced, "%lu,%lu", &a, &b) == 2 && a > 0 && b > 0) {
        *min_tile = a;
        *probe = b;
    }
}

/* out = sum of the tile results (affine interchange points), in range order. */
static hpr_status add_tile_sums(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *results, size_t ntiles,
                                unsigned char *out)
{
    unsigned char *affine = malloc(ntiles * ops->affine_size);
    uint32_t *index = malloc(ntiles * sizeof *index);
    uint64_t acc[4 * 6];
    hpr_status st = HPR_OK;
    if (!affine || !index) {
        st = hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "adding %zu tile results", ntiles);
        goto out;
    }
    for (size_t i = 0; i < ntiles; i++) {
        index[i] = (uint32_t)i;
        if (ops->decode_point(affine + i * ops->affine_size, results + i * ops->affine_size) != MSM_POINT_OK) {
            st = hpr_fail(ctx, HPR_ERR_INTERNAL, "tile %zu returned a point off the curve", i);
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

static void fill_report(hpr_ctx *ctx, tile_device *tds, unsigned ndev, const sched_device_report *reps, double secs)
{
    hpr_run_report *r = &ctx->report;
    r->ndevices = ndev;
    r->seconds = secs;
    for (unsigned d = 0; d < ndev; d++) {
        hpr_device_run *o = &r->devices[d];
        snprintf(o->device, sizeof o->device, "%s", tds[d].dev ? tds[d].dev->id : "cpu");
        o->tiles = reps[d].tiles;
        o->failures = reps[d].failures;
        o->points = reps[d].items;
        o->busy_s = reps[d].busy_s;
        o->wait_s = reps[d].wait_s;
        o->points_per_s = reps[d].busy_s > 0 ? (double)reps[d].items / reps[d].busy_s : 0;
        o->dropped = reps[d].dropped;
        snprintf(o->failure, sizeof o->failure, "%s", reps[d].failure);
        if (reps[d].failures)
            add_note(ctx, o->device, "failed tiles were redone by the other devices");
        if (tds[d].dev && reps[d].dropped) {
            tds[d].dev->failed = 1;
            snprintf(tds[d].dev->failure, sizeof tds[d].dev->failure, "%s", reps[d].failure);
        }
    }
    ctx->have_report = 1;
}

hpr_status hpr_msm_hybrid(hpr_ctx *ctx, hpr_curve curve, const msm_curve_ops *ops, const unsigned char *points,
                          const unsigned char *scalars, size_t n, unsigned char *out)
{
    cl_dev *cl_devs[HPR_REPORT_MAX_DEVICES - 1];
    tile_device tds[HPR_REPORT_MAX_DEVICES];
    sched_device devs[HPR_REPORT_MAX_DEVICES];
    sched_device_report reps[HPR_REPORT_MAX_DEVICES];
    sched_tile_record *tiles = NULL;
    void *results = NULL;
    size_t ntiles = 0, min_tile, probe;
    char why[512] = "";
    double t0 = rt_now_seconds();
    hpr_status st;
    unsigned ndev = 1;
    memset(&ctx->report, 0, sizeof ctx->report);
    tile_sizes(n, &min_tile, &probe);
    if ((st = hpr_check_scalars(ctx, ops, scalars, n)) != HPR_OK)
        return st;
    if (n >= 2 * min_tile)
        ndev += pick_opencl_devices(ctx, curve, cl_devs, HPR_REPORT_MAX_DEVICES - 1);
    if (ndev == 1) { /* the CPU alone: one MSM, no tiles (smaller tiles would cost it speed) */
        char notes[sizeof ctx->report.notes];
        memcpy(notes, ctx->report.notes, sizeof notes);
        st = hpr_msm_cpu(ctx, ops, points, scalars, n, out, NULL);
        hpr_report_single(ctx, "cpu", n, rt_now_seconds() - t0);
        memcpy(ctx->report.notes, notes, sizeof notes);
        return st;
    }
    unsigned log_share = 0; /* log2 of an even share: the size class of the first tiles */
    while (log_share < 40 && ((size_t)2 << log_share) <= n / ndev)
        log_share++;
    for (unsigned d = 0; d < ndev; d++) {
        const char *id = d ? cl_devs[d - 1]->id : "cpu";
        tds[d] = (tile_device){ctx, curve, ops, points, scalars, d ? cl_devs[d - 1] : NULL, 0};
        devs[d] = (sched_device){id, &tds[d], run_tile, ndev > 1 ? hpr_calibrated_speed(ctx, id, curve, log_share) : 0};
    }
    int rc = sched_run(devs, ndev, n, min_tile, probe, ops->affine_size, &results, &tiles, &ntiles, reps, why, sizeof why);
    fill_report(ctx, tds, ndev, reps, rt_now_seconds() - t0);
    if (rc > 0) /* an invalid point: name the first one, whichever device met which */
        st = hpr_validate_points(ctx, ops, points, n);
    else if (rc < 0)
        st = hpr_fail(ctx, HPR_ERR_DEVICE, "%s", why);
    else
        st = add_tile_sums(ctx, ops, results, ntiles, out);
    if (rc > 0 && st == HPR_OK)
        st = hpr_fail(ctx, HPR_ERR_INTERNAL, "a device reported an invalid point that the CPU accepts: %s", why);
    ctx->report.seconds = rt_now_seconds() - t0;
    free(results);
    free(tiles);
    return st;
}
