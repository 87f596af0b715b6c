/*
 * commit.c: hpr_commit, the Merkle commitment of a trace's low-degree extension (or of a
 * matrix as given), as Plonky3's two-adic PCS commits: LDE in bit-reversed row order, a leaf
 * per row (host/commit/merkle.c), the whole tree kept for openings.
 *
 * What: input column c holds f_c on <w_n> in natural order. At rate r and shift s, the
 * committed row i holds f_c(s w_rn^bitrev(i)) for every column; rate 1 commits the input.
 * Method, per column, on the pool, the canonical elements transformed as they are (the LDE
 * is linear and multiplies only by internal-form constants: host/ntt/ntt_pipeline.c):
 * splitting row i = t n + j (t < r, j < n), bitrev(i) = r bitrev_n(j) + bitrev_r(t), so block
 * t of the column is f on the coset s w_rn^bitrev_r(t) <w_n> in bit-reversed order: one
 * forward transform of size n (scale the coefficients by that factor^i, DIF, whose output is
 * bit-reversed) per block. The coefficients come once per column: the input bit-reversed,
 * then DIT with w_n^-1 (bit-reversed in, natural out), the 1/n folded into each block's
 * scaling. Rate 2 and s = 1 take a shortcut: block 0 is f on <w_n> bit-reversed, i.e. the
 * input itself bit-reversed; only block 1 is transformed (2 transforms of size n per column
 * instead of 3). The committed matrix is kept column-major with its rows in that order, so
 * the leaf kernels (hash_rows) read each column's rows contiguously, and the leaf digests go
 * straight into the tree's level 0.
 * Devices: "cpu" hashes the leaves on the pool; "cl:P.D" on that device (the CPU redoes them
 * if it fails, with a notice); "all" deals row ranges to the CPU and every usable OpenCL
 * device through the scheduler (runtime/sched), a failed tile redone by another device. The
 * LDE and the levels above the leaves run on the CPU. Every kernel gives the same bits, so
 * the root is the same for every split.
 * Memory: the peak is the matrix, the tree (64 bytes a row) and the twiddle tables (and the
 * host devices' buffers under "all"); the input is read in place, never copied. When that
 * does not fit the budget but the tree does, the commitment is streamed: blocks of columns
 * (multiples of 8, the sponge's rate, so that a row's chunks are the same) are extended, the
 * sponge of every row continued over them (the kernels' absorb: one state of 64 bytes a row)
 * and written to an unlinked temporary file (TMPDIR, else /tmp) that hpr_merkle_open reads.
 * Same root, same openings; the leaves then run on the CPU.
 * Cost: 2 (rate 2, s = 1) or 1 + r size-n transforms per column, rows (ceil(columns / 8)
 * permutations) sponges, rows - 1 compressions.
 * Why check everything first: a refused call allocates nothing and names the first element
 * >= p by column and row.
 */
#define _XOPEN_SOURCE 700 /* pwrite, mkstemp */
#include "host/commit/merkle.h"
#include "host/core/decimal.h"
#include "host/core/devices.h"
#include "host/core/deal.h"
#include "host/core/memory_budget.h"
#include "host/ntt/ntt_internal.h"
#include "host/commit/commit_calls.h"
#include "runtime/base/rt_mem.h"
#include "runtime/opencl/cl_poseidon2.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_ROWS_MAX_RATE1 32                 /* rate 1: the largest log_n */
#define SPLIT_MIN_ROWS 4096                   /* "all": below, the CPU hashes alone */
#define SPLIT_MIN_TILE 1024                   /* rows: the scheduler's tail tiles */
#define SPLIT_PROBE_TILE 4096                 /* rows: a device's first tile */
#define SPLIT_ALIGN 64                        /* rows: tiles of whole SIMD groups */
#define SPONGE_RATE 8                         /* the sponge's chunk: blocks are multiples of it */
#define SPONGE_WIDTH 16                       /* elements of a sponge state */
#define MEM_COMMIT_SLACK ((size_t)256 << 10)  /* small allocations beside the blocks */

/* ---- the plan ---- */

typedef struct {
    hpr_field field;
    const ntt_field_ops *ops; /* the field's NTT kernels on ctx's tier */
    const p2_kernels *k;      /* the tier's Poseidon2 kernels */
    const p2_params *prm;     /* the field's width-16 Poseidon2 */
    unsigned log_n, log_rate;
    size_t n, rows, columns;
    const uint32_t *in; /* the caller's columns, canonical (checked) */
    uint64_t shift_limbs[4];
    int shortcut; /* rate 2, shift 1: block 0 is the input bit-reversed */
    const char *device;
    cl_dev *dev; /* "cl:P.D" */
    int all;
    /* the LDE's constants (rate > 1), internal form */
    ntt_elem n_inv, factor[8]; /* factor[t]: shift * w_rn^bitrev_r(t), block t's coset */
    ntt_tables fwd, inv;       /* twiddles of w_n and w_n^-1 (n > 1) */
} commit_plan;

static size_t reverse_bits(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++)
        r |= ((i >> b) & 1) << (bits - 1 - b);
    return r;
}

/* The shift (NULL: 1) into cp->shift_limbs: a nonzero decimal below p, and 1 at rate 1. */
static hpr_status parse_shift(hpr_ctx *ctx, commit_plan *cp, const char *shift)
{
    const uint64_t *p = cp->ops->modulus;
    memset(cp->shift_limbs, 0, sizeof cp->shift_limbs);
    cp->shift_limbs[0] = 1;
    if (!shift)
        return HPR_OK;
    uint64_t *s = cp->shift_limbs;
    if (dec_to_limbs(s, 4, shift) != 0 || (s[1] | s[2] | s[3]) || s[0] == 0 || s[0] >= p[0])
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "coset shift '%.80s' is not a nonzero decimal element of %s (below p)", shift, cp->ops->name);
    if (cp->log_rate == 0 && s[0] != 1)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "coset shift %.80s at rate 1: without an LDE the matrix is committed as given (shift 1)",
                        shift);
    return HPR_OK;
}

/* The plan of one call, checked: field, rate, columns, sizes, shift, device. */
static hpr_status make_plan(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, size_t columns,
                            const void *in, const hpr_commit_opts *opts, commit_plan *cp)
{
    hpr_status st;
    memset(cp, 0, sizeof *cp);
    if (merkle_instance(field) == P2_INSTANCES)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_FIELD,
                        "field %d cannot be committed (babybear 4, koalabear 5: the fields of Poseidon2)", (int)field);
    cp->field = field;
    cp->ops = ntt_field_ops_for((int)field, ctx->cpu_tier);
    cp->k = p2_kernels_for(ctx->cpu_tier);
    cp->prm = p2_params_get(merkle_instance(field));
    if (rate != 1 && rate != 2 && rate != 4 && rate != 8)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "rate %u is not 1 (no LDE), 2, 4 or 8", rate);
    cp->log_rate = rate == 8 ? 3 : rate == 4 ? 2 : rate == 2 ? 1 : 0;
    if (!in)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "in must not be NULL");
    if (columns == 0)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "columns is 0: a commitment needs at least one column");
    if (cp->log_rate && (uint64_t)log_n + cp->log_rate > cp->ops->two_adicity)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "log_n = %u at rate %u: an LDE of 2^%u rows exceeds the two-adicity of %s (%u)", log_n, rate,
                        log_n + cp->log_rate, cp->ops->name, cp->ops->two_adicity);
    if (!cp->log_rate && (log_n > LOG_ROWS_MAX_RATE1 || log_n > 8 * sizeof(size_t) - 8))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "log_n = %u exceeds %u (rate 1)", log_n, LOG_ROWS_MAX_RATE1);
    cp->log_n = log_n;
    cp->n = (size_t)1 << log_n;
    cp->rows = cp->n << cp->log_rate;
    if (columns > SIZE_MAX / 2 / sizeof(uint32_t) / cp->rows)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%zu columns of 2^%u rows overflow the address space", columns,
                        log_n + cp->log_rate);
    cp->columns = columns;
    cp->in = in;
    if ((st = parse_shift(ctx, cp, opts ? opts->shift : NULL)) != HPR_OK)
        return st;
    cp->shortcut = rate == 2 && cp->shift_limbs[0] == 1;
    cp->device = dev_of_call(ctx, opts ? opts->device : NULL);
    cp->all = strcmp(cp->device, "all") == 0;
    return dev_resolve(ctx, cp->device, &cp->dev);
}

/* The roots, the factors of the blocks and the twiddle tables (rate > 1). */
static hpr_status prepare_lde(hpr_ctx *ctx, commit_plan *cp)
{
    const ntt_field_ops *ops = cp->ops;
    uint64_t g_limbs[4] = {ops->generator, 0, 0, 0};
    ntt_elem g, w_rn, w_n, w_n_inv, shift;
    ops->from_canonical(&g, g_limbs);
    ops->from_canonical(&shift, cp->shift_limbs);
    if (ntt_primitive_root(ops, &g, cp->log_n + cp->log_rate, &w_rn) != 0 ||
        ntt_primitive_root(ops, &g, cp->log_n, &w_n) != 0)
        return ctx_fail(ctx, HPR_ERR_INTERNAL, "no root of order 2^%u in %s", cp->log_n + cp->log_rate, ops->name);
    ntt_invert(ops, &w_n_inv, &w_n);
    ntt_set_small(ops, &cp->n_inv, cp->n);
    ntt_invert(ops, &cp->n_inv, &cp->n_inv);
    for (size_t t = 0; t < ((size_t)1 << cp->log_rate); t++) {
        uint64_t e[4] = {reverse_bits(t, cp->log_rate), 0, 0, 0};
        ops->pow(&cp->factor[t], &w_rn, e);
        ops->mul(&cp->factor[t], &cp->factor[t], &shift);
    }
    if (cp->n > 1 && (ntt_twiddles(ctx, ops, g_limbs, &w_n, 0, cp->log_n, &cp->fwd) != 0 ||
                      ntt_twiddles(ctx, ops, g_limbs, &w_n_inv, 1, cp->log_n, &cp->inv) != 0))
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "commitment: no memory for the twiddle tables of 2^%u", cp->log_n);
    return HPR_OK;
}

/* ---- the LDE of one column ---- */

/* a (n elements, the evaluations on <w_n> bit-reversed) -> n * the coefficients, natural
 * order. */
static void coefficients(rt_pool *pool, const commit_plan *cp, uint32_t *a)
{
    if (cp->n > 1)
        cp->ops->dit(pool, a, cp->n, cp->inv.cpu);
}

/* Block a (n elements holding n * the coefficients) -> f on block t's coset, bit-reversed. */
static void coset_block(rt_pool *pool, const commit_plan *cp, uint32_t *a, size_t t)
{
    cp->ops->scale(pool, a, cp->n, &cp->n_inv, &cp->factor[t]);
    if (cp->n > 1)
        cp->ops->dif(pool, a, cp->n, cp->fwd.cpu);
}

/* Column c of the committed matrix (rows canonical elements, rows in bit-reversed order)
 * into out, the transforms on pool. */
static void commit_column(rt_pool *pool, const commit_plan *cp, size_t c, uint32_t *out)
{
    const ntt_field_ops *ops = cp->ops;
    const uint32_t *src = cp->in + c * cp->n;
    size_t n = cp->n, blocks = (size_t)1 << cp->log_rate;
    if (cp->shortcut) {
        memcpy(out, src, n * sizeof *out);
        ops->bitrev(pool, out, n); /* block 0, canonical: done */
        memcpy(out + n, out, n * sizeof *out);
        coefficients(pool, cp, out + n);
        coset_block(pool, cp, out + n, 1);
    } else if (cp->log_rate == 0) {
        memcpy(out, src, n * sizeof *out);
    } else {
        memcpy(out, src, n * sizeof *out);
        ops->bitrev(pool, out, n);
        coefficients(pool, cp, out);
        for (size_t t = blocks - 1; t >= 1; t--) { /* block 0 holds the coefficients until last */
            memcpy(out + t * n, out, n * sizeof *out);
            coset_block(pool, cp, out + t * n, t);
        }
        coset_block(pool, cp, out, 0);
    }
}

typedef struct {
    hpr_ctx *ctx;
    const commit_plan *cp;
    size_t c0;
    uint32_t *out;
    rt_pool **solo; /* per worker: a pool of the worker alone */
} column_job;

/* Column c0 + task on the worker's own pool (the columns in parallel, each on one thread). */
static void column_task(void *arg, size_t task, unsigned worker)
{
    const column_job *cj = arg;
    if (progress_cancelled(cj->ctx))
        return;
    commit_column(cj->solo[worker], cj->cp, cj->c0 + task, cj->out + task * cj->cp->rows);
    if (cj->cp->log_rate)
        progress_add(cj->ctx, cj->cp->rows);
}

/* Whether count columns run one per thread at once rather than one after the other on the
 * whole pool: when they share the threads evenly or are many (each column's transforms then
 * run on one core, without the pool's handovers between their stages). */
static int columns_in_parallel(const hpr_ctx *ctx, size_t count)
{
    return ctx->threads > 1 && (count % ctx->threads == 0 || count >= 4 * (size_t)ctx->threads);
}

/* Columns [c0, c0 + count) of the committed matrix into out (column-major, stride rows), each
 * adding rows progress units (rate > 1); HPR_ERR_CANCELLED when the call is cancelled. */
static hpr_status commit_columns(hpr_ctx *ctx, const commit_plan *cp, size_t c0, size_t count, uint32_t *out)
{
    hpr_status st = HPR_OK;
    rt_pool **solo = columns_in_parallel(ctx, count) ? calloc(ctx->threads, sizeof *solo) : NULL;
    unsigned made = 0;
    while (solo && made < ctx->threads && rt_pool_create(&solo[made], 1) == 0)
        made++;
    if (solo && made == ctx->threads) {
        column_job cj = {ctx, cp, c0, out, solo};
        rt_pool_run(ctx->pool, count, column_task, &cj);
        st = progress_check(ctx);
    } else {
        for (size_t i = 0; i < count && (st = progress_check(ctx)) == HPR_OK; i++) {
            commit_column(ctx->pool, cp, c0 + i, out + i * cp->rows);
            if (cp->log_rate)
                progress_add(ctx, cp->rows);
        }
    }
    while (made > 0)
        rt_pool_destroy(solo[--made]);
    free(solo);
    return st;
}

/* ---- the leaves on the devices ---- */

typedef struct {
    hpr_ctx *ctx;
    const commit_plan *cp;
    hpr_merkle_tree *t;
    const uint32_t *cols; /* the committed matrix, column-major */
    cl_dev *dev;          /* NULL: the CPU */
    unsigned tiles;       /* started on dev (HPR_SCHED_INJECT_FAULT counts them) */
} leaf_device;

/* Rows [begin, end) of the leaves on one device, straight into level 0 (a failed tile is
 * redone whole by another device, overwriting what it left). */
static int leaf_tile(void *impl, sched_range r, void *result, char *detail, size_t detail_len)
{
    leaf_device *ld = impl;
    const commit_plan *cp = ld->cp;
    char why[CL_DETAIL_LEN];
    (void)result;
    if (progress_cancelled(ld->ctx)) {
        snprintf(detail, detail_len, "cancelled");
        return 1; /* the job stops; leaves_on_every_device says why */
    }
    if (!ld->dev) {
        merkle_hash_rows_on_pool(ld->ctx, cp->k, ld->t, ld->cols, cp->rows, cp->columns, r.begin, r.end - r.begin);
        return 0;
    }
    if (ctx_sched_fault(ld->ctx, ld->dev->id, ++ld->tiles)) {
        snprintf(detail, detail_len, "%s: fault injected by HPR_SCHED_INJECT_FAULT", ld->dev->id);
        return -1;
    }
    if (cl_p2_hash_rows(ld->ctx->cl, ld->dev, ld->t->prm, ld->cols, cp->rows, cp->columns, r.begin, r.end - r.begin,
                        merkle_level(ld->t, 0) + r.begin * P2_DIGEST, why) != 0) {
        snprintf(detail, detail_len, "%s: %s", ld->dev->id, why);
        return -1;
    }
    progress_add(ld->ctx, (uint64_t)(r.end - r.begin) * cp->columns);
    return 0;
}

/* "all": the leaves dealt by row ranges to the CPU and every usable OpenCL device; the run
 * report names them. HPR_ERR_DEVICE when every device is dropped. */
static hpr_status leaves_on_every_device(hpr_ctx *ctx, const commit_plan *cp, hpr_merkle_tree *t,
                                         const uint32_t *cols)
{
    cl_dev *cl_devs[HPR_REPORT_MAX_DEVICES - 1], *run_devs[HPR_REPORT_MAX_DEVICES];
    leaf_device lds[HPR_REPORT_MAX_DEVICES];
    sched_device devs[HPR_REPORT_MAX_DEVICES];
    sched_tiling tiling = ctx_tiling(ctx, SPLIT_MIN_TILE, SPLIT_PROBE_TILE, SPLIT_ALIGN);
    double t0 = rt_now_seconds();
    memset(&ctx->report, 0, sizeof ctx->report);
    unsigned ndev = 1 + dev_pick_opencl(ctx, NULL, NULL, cl_devs, HPR_REPORT_MAX_DEVICES - 1);
    for (unsigned d = 0; d < ndev; d++) {
        run_devs[d] = d ? cl_devs[d - 1] : NULL;
        lds[d] = (leaf_device){ctx, cp, t, cols, run_devs[d], 0};
        devs[d] = (sched_device){d ? cl_devs[d - 1]->id : "cpu", &lds[d], leaf_tile, 0};
    }
    /* a tile stops the job only for a cancel; the report counts rows */
    const deal_op op = {"commitment's leaves", HPR_ERR_INTERNAL, 1.0};
    return deal_run(ctx, &op, devs, run_devs, ndev, cp->rows, &tiling, 1, t0, NULL);
}

/* "cl:P.D": the leaves on that device; if it fails (or failed before), on the CPU, with the
 * notice and the run report saying so. */
static hpr_status leaves_on_device(hpr_ctx *ctx, const commit_plan *cp, hpr_merkle_tree *t, const uint32_t *cols)
{
    cl_dev *dev = cp->dev;
    char why[CL_DETAIL_LEN];
    unsigned tried = 0;
    double t0 = rt_now_seconds();
    if (!dev->failed) {
        tried = 1;
        if (cl_p2_hash_rows(ctx->cl, dev, t->prm, cols, cp->rows, cp->columns, 0, cp->rows, merkle_level(t, 0),
                            why) == 0) {
            progress_add(ctx, (uint64_t)cp->rows * cp->columns);
            return HPR_OK;
        }
        ctx_device_failed(dev, why);
        snprintf(ctx->notice, sizeof ctx->notice, "%s: %.400s; the leaves were hashed on the CPU instead", dev->id,
                 why);
    } else {
        snprintf(ctx->notice, sizeof ctx->notice, "%s is unusable (%.400s); the leaves were hashed on the CPU instead",
                 dev->id, dev->failure);
    }
    merkle_hash_rows_on_pool(ctx, cp->k, t, cols, cp->rows, cp->columns, 0, cp->rows);
    report_single(ctx, "cpu", cp->rows, rt_now_seconds() - t0);
    report_device_fault(ctx, dev->id, tried, dev->failure);
    return progress_check(ctx);
}

/* The leaves of the matrix cols (column-major, stride rows) into level 0 of t, on the
 * plan's devices. */
static hpr_status hash_leaves(hpr_ctx *ctx, const commit_plan *cp, hpr_merkle_tree *t, const uint32_t *cols)
{
    if (cp->all && cp->rows >= SPLIT_MIN_ROWS)
        return leaves_on_every_device(ctx, cp, t, cols);
    if (cp->dev)
        return leaves_on_device(ctx, cp, t, cols);
    merkle_hash_rows_on_pool(ctx, cp->k, t, cols, cp->rows, cp->columns, 0, cp->rows);
    return progress_check(ctx);
}

/* ---- memory ---- */

/* What both ways hold: the tree's levels, the twiddle tables (both directions, and the
 * tier's own tables), the slack. */
static size_t common_bytes(const commit_plan *cp)
{
    size_t b = mem_sat_add(mem_round(merkle_nodes_bytes(cp->rows)), MEM_COMMIT_SLACK);
    size_t col = cp->n * sizeof(uint32_t);
    if (cp->log_rate && cp->n > 1)
        b = mem_sat_add(b, 2 * (mem_round(col) + mem_round(cp->n * cp->ops->kernel_twiddle_bytes)));
    return b;
}

/* In memory: the matrix, and under "all" or "cl:P.D" the buffers of the OpenCL devices that
 * run on the host's memory (POCL): a staging copy and the device's buffer of the rows they
 * take, counted as the whole matrix's. */
static size_t in_memory_bytes(hpr_ctx *ctx, const commit_plan *cp)
{
    size_t matrix = mem_round(cp->rows * cp->columns * sizeof(uint32_t)), b = mem_sat_add(common_bytes(cp), matrix);
    size_t per_device = 2 * (matrix + mem_round(cp->rows * P2_DIGEST * sizeof(uint32_t)));
    cl_dev *devs[HPR_REPORT_MAX_DEVICES - 1];
    unsigned ndev = 0;
    if (cp->dev && !cp->dev->failed && (cp->dev->type & CL_DEVICE_TYPE_CPU))
        ndev = 1;
    else if (cp->all && cp->rows >= SPLIT_MIN_ROWS)
        for (unsigned d = 0, m = dev_pick_opencl(ctx, NULL, NULL, devs, HPR_REPORT_MAX_DEVICES - 1); d < m; d++)
            ndev += (devs[d]->type & CL_DEVICE_TYPE_CPU) != 0;
    for (unsigned d = 0; d < ndev; d++)
        b = mem_sat_add(b, per_device);
    return b;
}

/* Streamed, blocks of block columns: the sponge states (64 bytes a row) and one block (rate
 * 1: neither; the input is hashed where it is). */
static size_t streamed_bytes(const commit_plan *cp, size_t block)
{
    if (!cp->log_rate)
        return common_bytes(cp);
    return mem_sat_add(common_bytes(cp), mem_round(cp->rows * SPONGE_WIDTH * sizeof(uint32_t)) +
                                          mem_round(cp->rows * block * sizeof(uint32_t)));
}

/* How the commitment runs: *block = 0 in memory, else streamed in blocks of *block columns
 * (a multiple of 8, or all the columns when fewer). HPR_ERR_OUT_OF_MEMORY when neither
 * fits. sw may force the stream and its block. */
static hpr_status plan_memory(hpr_ctx *ctx, const commit_plan *cp, const commit_switches *sw, size_t *block)
{
    size_t need = in_memory_bytes(ctx, cp), least = 0;
    char what[128];
    *block = 0;
    if (sw && sw->stream) {
        *block = sw->block_cols ? sw->block_cols : SPONGE_RATE;
        return HPR_OK;
    }
    if (mem_fits(ctx, need))
        return HPR_OK;
    if (!cp->log_rate) { /* rate 1: the input hashed where it is, written to the file */
        least = streamed_bytes(cp, 0);
        if (mem_fits(ctx, least)) {
            *block = cp->columns;
            return HPR_OK;
        }
    } else if (cp->columns > SPONGE_RATE) {
        /* the largest block that fits, halving from the columns (multiples of 8, fewer than
         * the columns: a block of every column is the matrix in memory) */
        size_t b = cp->columns / SPONGE_RATE * SPONGE_RATE;
        for (; b >= SPONGE_RATE; b = b / 2 / SPONGE_RATE * SPONGE_RATE)
            if (b < cp->columns && mem_fits(ctx, streamed_bytes(cp, b))) {
                *block = b;
                return HPR_OK;
            }
        least = streamed_bytes(cp, SPONGE_RATE);
    }
    snprintf(what, sizeof what, "the commitment of %zu x 2^%u elements at rate %u", cp->columns, cp->log_n,
             1u << cp->log_rate);
    return mem_check(ctx, what, need, least < need ? least : 0, "streamed through a temporary file");
}

/* ---- the two ways ---- */

/* In memory: the matrix computed whole (or copied: rate 1), its leaves, the levels. */
static hpr_status commit_in_memory(hpr_ctx *ctx, const commit_plan *cp, hpr_merkle_tree *t)
{
    hpr_status st;
    t->matrix = rt_alloc_large(cp->rows * cp->columns * sizeof(uint32_t));
    if (!t->matrix)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "commitment: no memory for the %zu x %zu matrix", cp->rows,
                        cp->columns);
    if ((st = commit_columns(ctx, cp, 0, cp->columns, t->matrix)) != HPR_OK ||
        (st = progress_check(ctx)) != HPR_OK || (st = hash_leaves(ctx, cp, t, t->matrix)) != HPR_OK)
        return st;
    return merkle_build_levels(ctx, cp->k, t);
}

/* An unlinked temporary file for the streamed matrix into t->fd. */
static hpr_status open_temporary(hpr_ctx *ctx, hpr_merkle_tree *t)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    if (!dir || !dir[0])
        dir = "/tmp";
    snprintf(path, sizeof path, "%s/hyprove-commit-XXXXXX", dir);
    t->fd = mkstemp(path);
    if (t->fd < 0)
        return ctx_fail(ctx, HPR_ERR_IO, "commitment: cannot create a temporary file in %.200s (TMPDIR): %s", dir,
                        strerror(errno));
    unlink(path);
    fcntl(t->fd, F_SETFD, FD_CLOEXEC); /* not inherited by programs the caller starts */
    return HPR_OK;
}

/* count elements at data to t's file at element offset at. */
static hpr_status write_elements(hpr_ctx *ctx, hpr_merkle_tree *t, const uint32_t *data, size_t count, size_t at)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t left = count * sizeof *data;
    off_t off = (off_t)(at * sizeof *data);
    while (left > 0) {
        ssize_t put = pwrite(t->fd, p, left, off);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return ctx_fail(ctx, HPR_ERR_IO, "commitment: writing the temporary file (TMPDIR): %s",
                            put < 0 ? strerror(errno) : "nothing written");
        p += put;
        left -= (size_t)put;
        off += put;
    }
    return HPR_OK;
}

typedef struct {
    hpr_ctx *ctx;
    const commit_plan *cp;
    uint32_t *states;       /* rows sponge states */
    const uint32_t *block;  /* ncols columns of rows (stride rows) */
    size_t ncols, per;
    uint32_t *digests;      /* level 0, or NULL: absorb */
} sponge_job;

/* Rows [task per, ...): absorb the block's columns into their states, or (digests) take the
 * first 8 elements of each state as its leaf. */
static void sponge_task(void *arg, size_t task, unsigned worker)
{
    const sponge_job *sj = arg;
    const commit_plan *cp = sj->cp;
    size_t b = task * sj->per, e = b + sj->per < cp->rows ? b + sj->per : cp->rows;
    (void)worker;
    if (sj->digests) {
        for (size_t r = b; r < e; r++)
            memcpy(sj->digests + r * P2_DIGEST, sj->states + r * SPONGE_WIDTH, P2_DIGEST * sizeof(uint32_t));
        return;
    }
    if (progress_cancelled(sj->ctx))
        return;
    cp->k->absorb(cp->prm, sj->states + b * SPONGE_WIDTH, sj->block, cp->rows, sj->ncols, b, e - b);
    progress_add(sj->ctx, (uint64_t)(e - b) * sj->ncols);
}

/* Streamed (the rate > 1 part): blocks of block columns extended, absorbed into the rows'
 * sponges and written to the file; then the digests into level 0. */
static hpr_status stream_lde(hpr_ctx *ctx, const commit_plan *cp, hpr_merkle_tree *t, size_t block)
{
    hpr_status st = HPR_OK;
    uint32_t *buf = rt_alloc_large(cp->rows * block * sizeof(uint32_t));
    uint32_t *states = rt_alloc_large(cp->rows * SPONGE_WIDTH * sizeof(uint32_t));
    sponge_job sj = {ctx, cp, states, buf, 0, 0, NULL};
    size_t tasks = (cp->rows + 1023) / 1024;
    sj.per = 1024;
    if (!buf || !states) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "commitment: no memory for a block of %zu columns", block);
        goto cleanup;
    }
    memset(states, 0, cp->rows * SPONGE_WIDTH * sizeof(uint32_t));
    for (size_t c0 = 0; c0 < cp->columns && st == HPR_OK; c0 += block) {
        sj.ncols = cp->columns - c0 < block ? cp->columns - c0 : block;
        if ((st = commit_columns(ctx, cp, c0, sj.ncols, buf)) != HPR_OK)
            break;
        rt_pool_run(ctx->pool, tasks, sponge_task, &sj);
        if ((st = progress_check(ctx)) == HPR_OK)
            st = write_elements(ctx, t, buf, cp->rows * sj.ncols, c0 * cp->rows);
    }
    if (st == HPR_OK) {
        sj.digests = merkle_level(t, 0);
        rt_pool_run(ctx->pool, tasks, sponge_task, &sj);
    }
cleanup:
    free(buf);
    free(states);
    return st;
}

/* Streamed: the matrix in t's temporary file, the leaves, the levels. */
static hpr_status commit_streamed(hpr_ctx *ctx, const commit_plan *cp, hpr_merkle_tree *t, size_t block)
{
    hpr_status st;
    if ((st = open_temporary(ctx, t)) != HPR_OK)
        return st;
    if (cp->log_rate)
        st = stream_lde(ctx, cp, t, block);
    else if ((st = write_elements(ctx, t, cp->in, cp->rows * cp->columns, 0)) == HPR_OK)
        st = hash_leaves(ctx, cp, t, cp->in); /* rate 1: the input as given */
    if (st != HPR_OK)
        return st;
    return merkle_build_levels(ctx, cp->k, t);
}

/* ---- the input's range check ---- */

/* ---- the entry points ---- */

hpr_status commit_call(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, size_t columns,
                       const void *in, const hpr_commit_opts *opts, const commit_switches *sw,
                       hpr_merkle_tree **tree)
{
    commit_plan cp;
    hpr_merkle_tree *t = NULL;
    size_t block = 0, bad;
    hpr_status st;
    if (tree)
        *tree = NULL;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!tree)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "tree must not be NULL");
    if ((st = make_plan(ctx, field, log_n, rate, columns, in, opts, &cp)) != HPR_OK)
        return st;
    if ((bad = merkle_first_out_of_range(ctx, cp.in, cp.n * cp.columns, cp.prm->p)) == SIZE_MAX)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "commitment: out of memory");
    if (bad < cp.n * cp.columns)
        return ctx_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE,
                        "element %zu (column %zu, row %zu) is %u, not below the modulus p = %u of %s", bad,
                        bad / cp.n, bad % cp.n, cp.in[bad], cp.prm->p, cp.ops->name);
    if ((st = plan_memory(ctx, &cp, sw, &block)) != HPR_OK)
        return st;
    cp.shortcut = cp.shortcut && !(sw && sw->general_lde);
    uint64_t units = (uint64_t)cp.rows * cp.columns * (cp.log_rate ? 2 : 1) + cp.rows;
    progress_begin(ctx, "commit", units);
    if ((st = progress_check(ctx)) != HPR_OK || (cp.log_rate && (st = prepare_lde(ctx, &cp)) != HPR_OK))
        goto cleanup;
    if (!(t = merkle_tree_new(field, cp.rows, cp.columns))) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "commitment: no memory for the tree of %zu leaves", cp.rows);
        goto cleanup;
    }
    st = block ? commit_streamed(ctx, &cp, t, block) : commit_in_memory(ctx, &cp, t);
cleanup:
    if (st == HPR_OK)
        *tree = t;
    else
        merkle_destroy(t);
    return progress_end(ctx, st);
}

hpr_status commit_with(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, size_t columns, const void *in,
                       const hpr_commit_opts *opts, const commit_switches *sw, hpr_merkle_tree **tree)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, commit_call(ctx, field, log_n, rate, columns, in, opts, sw, tree));
}
