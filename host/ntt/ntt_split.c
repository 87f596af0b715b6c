/*
 * ntt_split.c: the NTT's butterflies dealt across devices under "all": the columns of a batch
 * over the hybrid scheduler, and one large column by four steps.
 *
 * Columns: the CPU and every usable OpenCL device take tiles of columns through the scheduler
 * (runtime/sched/sched.h; a column per item, the devices' speeds from the NTT calibration
 * when the profile has them, else probed); a device works on a copy, so a failed tile is
 * redone elsewhere from the columns as they were; the run report names the devices. Each
 * device runs the same butterfly stage on the same twiddles as the CPU, so the result is the
 * CPU's bit for bit.
 * Four-step, for one large column: n = n1 n2, index i = n2 i1 + i2 (a: n1 rows of n2).
 * X[k1 + n1 k2] = sum_i2 w^(i2 k1) w_n2^(i2 k2) sum_i1 a[n2 i1 + i2] w_n1^(i1 k1), so:
 * transpose (n2 rows of n1), n2 NTTs of n1 (natural orders), scale row i2 by w^(i2 k1),
 * transpose (n1 rows of n2), n1 NTTs of n2, transpose into natural order. Each set of
 * sub-NTTs is a batch of columns dealt as above (calibrated, probed, a failed tile redone
 * elsewhere); the sub-NTTs use the plan's twiddle table (a table serves every smaller size).
 * Exact arithmetic: the same field elements, so the same bits as one device.
 * Progress and cancellation: each tile checks first (a cancel stops the scheduler's job) and
 * adds its columns' butterfly units when done (host/core/progress.h).
 * Cost and why: the three transposes and the twist are host work on the pool added to the
 * transform; they pay only when a device other than the CPU's cores takes part (below
 * 2^FOUR_STEP_MIN_LOG one device is faster than three transposes; see ntt_four_step_pays).
 */
#include "host/ntt/ntt_internal.h"
#include "host/core/devices.h"
#include "host/core/core_calls.h"
#include "host/core/deal.h"
#include "runtime/base/rt_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- "all": columns dealt by the scheduler (runtime/sched/sched.h), one item per column ---- */

typedef struct {
    hpr_ctx *ctx;
    const ntt_plan *pl;
    unsigned char *work;
    const ntt_tables *tw;
    cl_dev *dev; /* NULL for the CPU */
} column_device;

/* Columns [begin, end) on one device. A device works on a copy, so that a failed tile leaves
 * the columns as they were for the device that redoes it. */
static int column_tile(void *impl, sched_range r, void *result, char *detail, size_t detail_len)
{
    column_device *cd = impl;
    size_t col_bytes = cd->pl->n * cd->pl->ops->elem_bytes, bytes = (r.end - r.begin) * col_bytes;
    unsigned char *cols = cd->work + r.begin * col_bytes;
    char why[CL_DETAIL_LEN];
    (void)result;
    if (progress_cancelled(cd->ctx)) {
        snprintf(detail, detail_len, "cancelled");
        return 1; /* the job stops; ntt_columns_on_every_device says why */
    }
    if (!cd->dev) {
        for (size_t c = 0; c < r.end - r.begin; c++)
            ntt_butterflies_on_cpu(cd->ctx, cd->pl, cols + c * col_bytes, cd->tw);
        return 0;
    }
    cl_ntt_job job = ntt_butterfly_stage(cd->pl);
    unsigned char *copy = rt_alloc_large(bytes);
    int rc = -1;
    if (!copy)
        snprintf(why, sizeof why, "no host memory for a copy of %zu columns", r.end - r.begin);
    else
        memcpy(copy, cols, bytes);
    if (copy && (rc = cl_ntt_columns(cd->ctx->cl, cd->dev, &job, copy, r.end - r.begin, cd->tw->tw, why)) == 0) {
        memcpy(cols, copy, bytes);
        progress_add(cd->ctx, (uint64_t)(r.end - r.begin) * cd->pl->n * cd->pl->log_n);
    } else {
        snprintf(detail, detail_len, "%s: %s", cd->dev->id, why);
    }
    free(copy);
    return rc == 0 ? 0 : -1;
}

hpr_status ntt_columns_on_every_device(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *work, const ntt_tables *tw)
{
    cl_dev *cl_devs[HPR_REPORT_MAX_DEVICES - 1], *run_devs[HPR_REPORT_MAX_DEVICES];
    column_device cds[HPR_REPORT_MAX_DEVICES];
    sched_device devs[HPR_REPORT_MAX_DEVICES];
    /* tiles of 2^12 elements or more (many small columns, as four-step makes: a tile per
     * column would cost more in dispatch than in work), yet at least four tiles; a column of
     * 2^12 or more is a tile (a slow device's probe must stay short) */
    size_t per_tile = ((size_t)1 << 12) / pl->n;
    if (per_tile > pl->columns / 4)
        per_tile = pl->columns / 4;
    sched_tiling tiling = ctx_tiling(ctx, per_tile ? per_tile : 1, per_tile ? per_tile : 1, 0);
    double t0 = rt_now_seconds();
    /* the report is filled afresh (report_fill appends to its notes; four-step runs two
     * batches and merges their reports) */
    memset(&ctx->report, 0, sizeof ctx->report);
    unsigned ndev = 1 + dev_pick_opencl(ctx, NULL, NULL, cl_devs, HPR_REPORT_MAX_DEVICES - 1);
    for (unsigned d = 0; d < ndev; d++) {
        run_devs[d] = d ? cl_devs[d - 1] : NULL;
        cds[d] = (column_device){ctx, pl, work, tw, run_devs[d]};
        /* calibrated elements/s (hpr_calibrate_ntt) as columns/s, or 0: probed */
        double speed = calibrated_ntt_speed_call(ctx, d ? cl_devs[d - 1]->id : "cpu", pl->field, pl->log_n);
        devs[d] = (sched_device){d ? cl_devs[d - 1]->id : "cpu", &cds[d], column_tile, speed / (double)pl->n};
    }
    /* a tile stops the job only for a cancel; the report counts columns as their elements */
    const deal_op op = {"NTT columns", HPR_ERR_INTERNAL, (double)pl->n};
    return deal_run(ctx, &op, devs, run_devs, ndev, pl->columns, &tiling, 1, t0, NULL);
}

/* ---- one large NTT split across devices: four-step (see the top) ---- */
#define FOUR_STEP_MIN_LOG 10 /* below, one device is faster than three transposes */
#define TRANSPOSE_TILE 32

typedef struct {
    const unsigned char *src;
    unsigned char *dst;
    size_t rows, cols, es;
} transpose_job;

#define TRANSPOSE_TILE_OF(T)                                                                         \
    for (size_t r = r0; r < r1; r++)                                                                 \
        for (size_t c = c0; c < c1; c++)                                                             \
    ((T *)tj->dst)[c * tj->rows + r] = ((const T *)tj->src)[r * tj->cols + c]

/* Rows [t TILE, ...) of src into the columns of dst, tile by tile. */
static void transpose_task(void *arg, size_t t, unsigned worker)
{
    const transpose_job *tj = arg;
    size_t r0 = t * TRANSPOSE_TILE, r1 = r0 + TRANSPOSE_TILE < tj->rows ? r0 + TRANSPOSE_TILE : tj->rows;
    (void)worker;
    for (size_t c0 = 0; c0 < tj->cols; c0 += TRANSPOSE_TILE) {
        size_t c1 = c0 + TRANSPOSE_TILE < tj->cols ? c0 + TRANSPOSE_TILE : tj->cols;
        if (tj->es == 4)
            TRANSPOSE_TILE_OF(uint32_t);
        else if (tj->es == 8)
            TRANSPOSE_TILE_OF(uint64_t);
        else
            TRANSPOSE_TILE_OF(ntt_elem);
    }
}

/* dst (cols rows of rows) = the transpose of src (rows rows of cols). */
static void transpose(hpr_ctx *ctx, unsigned char *dst, const unsigned char *src, size_t rows, size_t cols, size_t es)
{
    transpose_job tj = {src, dst, rows, cols, es};
    rt_pool_run(ctx->pool, (rows + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE, transpose_task, &tj);
}

typedef struct {
    const ntt_field_ops *ops;
    unsigned char *a;
    size_t rows, cols; /* a: rows of cols */
    const void *w;
} twist_job;

/* Row r (< rows) times w^(r k) at column k, for the rows of task t (16 per task). */
static void twist_task(void *arg, size_t t, unsigned worker)
{
    const twist_job *tj = arg;
    const ntt_field_ops *ops = tj->ops;
    size_t es = ops->elem_bytes, r0 = t * 16, r1 = r0 + 16 < tj->rows ? r0 + 16 : tj->rows;
    uint64_t e[4] = {r0, 0, 0, 0};
    ntt_elem step, f;
    (void)worker;
    ops->pow(&step, tj->w, e); /* w^r0 */
    for (size_t r = r0; r < r1; r++, ops->mul(&step, &step, tj->w)) {
        unsigned char *row = tj->a + r * tj->cols * es;
        ntt_set_small(ops, &f, 1);
        for (size_t k = 1; k < tj->cols; k++) {
            ops->mul(&f, &f, &step);
            ops->mul(row + k * es, row + k * es, &f);
        }
    }
}

/* The report of the second batch plus the first one's work (devices matched by name). */
static void merge_reports(hpr_run_report *into, const hpr_run_report *first)
{
    for (unsigned d = 0; d < first->ndevices; d++) {
        unsigned m = 0;
        while (m < into->ndevices && strcmp(into->devices[m].device, first->devices[d].device) != 0)
            m++;
        if (m == into->ndevices) {
            if (m == HPR_REPORT_MAX_DEVICES)
                continue;
            into->devices[into->ndevices++] = first->devices[d];
            continue;
        }
        hpr_device_run *o = &into->devices[m];
        const hpr_device_run *f = &first->devices[d];
        o->tiles += f->tiles;
        o->failures += f->failures;
        o->points += f->points;
        o->busy_s += f->busy_s;
        o->wait_s += f->wait_s;
        o->points_per_s = o->busy_s > 0 ? (double)o->points / o->busy_s : 0;
        o->dropped |= f->dropped;
        if (!o->failure[0])
            snprintf(o->failure, sizeof o->failure, "%s", f->failure);
    }
    into->seconds += first->seconds;
}

/* Whether to split one column: when an OpenCL device other than a CPU can take part (an
 * OpenCL CPU device such as POCL shares the cores the CPU kernels already use, and the three
 * transposes would make the split slower than the CPU alone); the knob ntt_four_step
 * (HPR_NTT_FOUR_STEP=1) forces it (the tests, on POCL). Not for an LDE, nor below
 * 2^FOUR_STEP_MIN_LOG: the devices are not even asked for then. */
int ntt_four_step_pays(hpr_ctx *ctx, const ntt_plan *pl)
{
    cl_dev *devs[HPR_REPORT_MAX_DEVICES - 1];
    if (pl->lde_log_rate || pl->log_n < FOUR_STEP_MIN_LOG)
        return 0;
    unsigned ndev = dev_pick_opencl(ctx, NULL, NULL, devs, HPR_REPORT_MAX_DEVICES - 1);
    if (ctx->knobs.ntt_four_step)
        return ndev > 0;
    for (unsigned d = 0; d < ndev; d++)
        if (!(devs[d]->type & CL_DEVICE_TYPE_CPU))
            return 1;
    return 0;
}

hpr_status ntt_four_step(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *a, const ntt_tables *tw, const void *w)
{
    const ntt_field_ops *ops = pl->ops;
    unsigned log1 = pl->log_n / 2;
    size_t n1 = (size_t)1 << log1, n2 = pl->n / n1, es = ops->elem_bytes;
    unsigned char *b = rt_alloc_large(pl->n * es);
    hpr_run_report first;
    hpr_status st;
    if (!b)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT of 2^%u: no memory for the four-step transposes", pl->log_n);
    if (pl->inverse && ntt_input_reversed(pl))
        ops->bitrev(ctx->pool, a, pl->n);
    ntt_plan sub = *pl;
    sub.order = HPR_NTT_NN;
    sub.has_shift = 0;
    sub.lde_log_rate = 0;
    sub.log_n = log1;
    sub.n = n1;
    sub.columns = n2;
    transpose(ctx, b, a, n1, n2, es);
    if ((st = ntt_columns_on_every_device(ctx, &sub, b, tw)) != HPR_OK)
        goto out;
    first = ctx->report;
    twist_job tj = {ops, b, n2, n1, w};
    rt_pool_run(ctx->pool, (n2 + 15) / 16, twist_task, &tj);
    transpose(ctx, a, b, n2, n1, es);
    sub.log_n = pl->log_n - log1;
    sub.n = n2;
    sub.columns = n1;
    if ((st = ntt_columns_on_every_device(ctx, &sub, a, tw)) != HPR_OK)
        goto out;
    merge_reports(&ctx->report, &first);
    transpose(ctx, b, a, n1, n2, es);
    memcpy(a, b, pl->n * es);
    if (!pl->inverse && ntt_output_reversed(pl))
        ops->bitrev(ctx->pool, a, pl->n);
out:
    free(b);
    return st;
}
