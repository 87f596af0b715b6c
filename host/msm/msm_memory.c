/*
 * msm_memory.c: what an MSM needs of the memory budget (host/core/memory_budget.h), next to
 * the MSM engine's allocations, and the MSM run in pieces of its points when it does not fit.
 *
 * Method: the estimate mirrors the allocations, in rt_alloc_large's rounding (mem_round):
 * the CPU job (msm_cpu_job.c): the two index lists (8 bytes a point), the decoded copies of
 * points and scalars when they are not 8-byte aligned, the kernel's point form
 * (prepared_size a point), the Booth digits (2 bytes a point and window, c <= 15), one
 * scratch per worker (the kernel's scratch_size: buckets and batch-affine buffers), the
 * window sums of the tiles. The window size is the one the job will choose
 * (msm_cpu_window_bits) for all n scalars general: zeros and ones only shrink the job.
 * OpenCL devices of type CPU (POCL) keep their buffers in host memory: two chunk buffer
 * sets of cl_msm_make_plan's plan (points, scalars, buckets) and, where the points are
 * kept (a key, or a hybrid call), the points. A GPU's own memory is not counted; the
 * CPU's fallback after a device fault is. Under "all" the CPU job and the host devices
 * add up; on one device the larger of the device and the fallback counts.
 * In pieces: the Pippenger sums of disjoint point ranges add up to the MSM, and the output
 * is affine, so an MSM in pieces gives the same bytes.
 */
#include "host/msm/msm_memory.h"
#include "host/core/devices.h"
#include "host/core/memory_budget.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MEM_MSM_MIN_PIECE 4096
#define HYBRID_MIN_POINTS 32768   /* msm_hybrid.c: below it the CPU runs alone */
#define DIGIT_MAX_BITS 15         /* msm_cpu_job.c: digits precomputed up to c = 15 ... */
#define DIGIT_MAX ((size_t)1 << 28) /* ... and 2^28 digits */
#define DECODE_BLOCK 4096         /* msm_cpu_job.c */

/* Host bytes of an MSM of n points on a POCL device: two chunk buffer sets (points, scalars,
 * buckets, partial and window sums) and the points when kept. */
size_t msm_mem_cl_host_bytes(const cl_dev *dev, const msm_curve_ops *ops, size_t n, int kept)
{
    cl_msm_plan plan;
    cl_msm_make_plan(&plan, dev, ops, n, 0, 0, ops->scalar_bits);
    size_t sums = mem_sat_mul((size_t)plan.nseg * plan.nwin + plan.nwin, ops->xyzz_size);
    size_t buckets = mem_sat_mul(mem_sat_mul((size_t)plan.nseg, plan.nwin), ops->xyzz_size << (plan.c ? plan.c - 1 : 0));
    size_t set = mem_sat_add(mem_sat_add(mem_sat_mul(plan.chunk_points, ops->affine_size + 32), buckets), sums);
    size_t b = mem_sat_add(mem_sat_mul(set, 2), mem_sat_mul((size_t)plan.chunks * plan.nwin, ops->xyzz_size));
    return kept ? mem_sat_add(b, mem_sat_mul(n, ops->affine_size)) : b;
}

static int aligned8(const void *p)
{
    return ((uintptr_t)p & 7) == 0; /* NULL: an aligned buffer of the library's */
}

/* A block of bytes (rt_alloc_large's rounding) into a job's total and its largest block. */
static void add_block(size_t *total, size_t *largest, size_t bytes)
{
    bytes = mem_round(bytes);
    *total = mem_sat_add(*total, bytes);
    if (largest && bytes > *largest)
        *largest = bytes;
}

/* The CPU job of msm_cpu_job.c for n points (see the top of this file); *largest (may be
 * NULL): its largest block. */
size_t msm_mem_cpu_job_bytes(const hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, const void *scalars,
                            size_t n, const hpr_msm_opts *opts, size_t *largest)
{
    const msm_cpu_kernel *k = msm_kernel_for(ops, ctx->cpu_tier);
    size_t b = 0;
    if (largest)
        *largest = 0;
    if (n == 0 || !k)
        return 0;
    unsigned c = opts && opts->window_bits ? opts->window_bits
                                           : msm_cpu_window_bits(ops, ctx->cpu_tier, n, ctx->threads);
    size_t nw = msm_window_count(ops->scalar_bits, c), blocks = n / DECODE_BLOCK + 1;
    size_t chunks = opts && opts->point_chunks ? opts->point_chunks : 2 * (size_t)ctx->threads;
    add_block(&b, largest, n * sizeof(uint32_t)); /* the list and the ones */
    add_block(&b, largest, n * sizeof(uint32_t));
    add_block(&b, largest, blocks * (sizeof(size_t) + sizeof(msm_point_check)));
    if (!aligned8(scalars))
        add_block(&b, largest, n * sizeof(msm_scalar));
    if (!aligned8(points))
        add_block(&b, largest, mem_sat_mul(n, ops->affine_size));
    add_block(&b, largest, mem_sat_mul(ctx->threads, (k->scratch_size(c, n) + 63) & ~(size_t)63));
    if (k->prepared_size)
        add_block(&b, largest, mem_sat_mul(n, k->prepared_size));
    if (c <= DIGIT_MAX_BITS && mem_sat_mul(nw, n) <= DIGIT_MAX)
        add_block(&b, largest, nw * n * sizeof(int16_t));
    return mem_sat_add(b, mem_sat_mul(mem_sat_mul(chunks + 2, nw) + ctx->threads, ops->xyzz_size)); /* window sums */
}

/* hpr_msm_ex's device for opts (NULL: the context's). */
static const char *msm_device(const hpr_ctx *ctx, const hpr_msm_opts *opts)
{
    return dev_of_call(ctx, opts ? opts->device : NULL);
}

size_t mem_msm_need(hpr_ctx *ctx, const msm_curve_ops *ops, const msm_points *pts, const void *scalars, size_t n,
                    const hpr_msm_opts *opts)
{
    const char *device = msm_device(ctx, opts);
    int shaped = opts && (opts->window_bits || opts->point_chunks || opts->windows_per_tile);
    int all = strcmp(device, "all") == 0;
    size_t cpu = msm_mem_cpu_job_bytes(ctx, ops, pts->host, scalars, n, opts, NULL), dev = 0;
    cl_dev *devs[HPR_REPORT_MAX_DEVICES];
    if (n == 0)
        return 0;
    cpu = mem_sat_add(cpu, MEM_CALL_SLACK);
    if (all && (shaped || n < HYBRID_MIN_POINTS))
        return cpu; /* the CPU alone */
    unsigned ndev = dev_host_devices(ctx, device, devs, HPR_REPORT_MAX_DEVICES - 1, NULL);
    for (unsigned d = 0; d < ndev; d++)
        dev = mem_sat_add(dev, msm_mem_cl_host_bytes(devs[d], ops, n, all || pts->key));
    return all ? mem_sat_add(cpu, dev) : mem_max(cpu, dev);
}

/* The smallest piece mem_msm tries for n points (halving while a half keeps the minimum). */
size_t msm_mem_smallest_piece(size_t n)
{
    size_t piece = n;
    while ((piece + 1) / 2 >= MEM_MSM_MIN_PIECE)
        piece = (piece + 1) / 2;
    return piece;
}

/* A piece's failure: an invalid point named by its index in the whole MSM (the piece ran
 * from point off), anything else as it is. */
static hpr_status piece_error(hpr_ctx *ctx, const msm_curve_ops *ops, hpr_status st, const unsigned char *points,
                              size_t off, size_t m)
{
    uint64_t affine[MSM_MAX_AFFINE_BYTES / 8];
    if (st != HPR_ERR_COORDINATE_OUT_OF_RANGE && st != HPR_ERR_POINT_NOT_ON_CURVE)
        return st;
    for (size_t i = 0; i < m; i++) {
        msm_point_check kind = ops->decode_point(affine, points + (off + i) * ops->affine_size);
        if (kind != MSM_POINT_OK)
            return msm_point_error(ctx, ops, off + i, kind);
    }
    return st;
}

/* out = the MSM as the sum of run over pieces of `piece` points (the last shorter). */
static hpr_status msm_in_pieces(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                const msm_points *pts, const unsigned char *scalars, size_t n, void *out,
                                const hpr_msm_opts *opts, mem_msm_fn run, size_t piece)
{
    static const unsigned char zero[MSM_MAX_AFFINE_BYTES];
    static const uint32_t first = 0;
    uint64_t acc[MSM_MAX_XYZZ_BYTES / 8], term[MSM_MAX_XYZZ_BYTES / 8], affine[MSM_MAX_AFFINE_BYTES / 8];
    unsigned char part[MSM_MAX_AFFINE_BYTES];
    size_t as = ops->affine_size;
    char note[160];
    hpr_status st = msm_check_scalars(ctx, ops, scalars, n); /* named by their index in the whole */
    if (st != HPR_OK)
        return st;
    ops->xyzz_set_inf(acc);
    for (size_t off = 0; off < n; off += piece) {
        size_t m = n - off < piece ? n - off : piece;
        msm_points sub = {pts->host + off * as, m, 0, 0, pts->validated};
        if ((st = run(ctx, curve, group, ops, &sub, scalars + off * 32, m, part, opts)) != HPR_OK)
            return piece_error(ctx, ops, st, pts->host, off, m);
        if (memcmp(part, zero, as) == 0)
            continue; /* infinity */
        if (ops->decode_point(affine, part) != MSM_POINT_OK)
            return ctx_fail(ctx, HPR_ERR_INTERNAL, "MSM in pieces: a piece's result is not a point");
        ops->sum_points(term, affine, &first, 0, 1);
        ops->xyzz_add(acc, acc, term);
    }
    ops->encode_xyzz(out, acc);
    snprintf(note, sizeof note, "the MSM ran in %zu pieces of at most %zu points (memory limit)",
             (n + piece - 1) / piece, piece);
    note_append(ctx->report.notes, sizeof ctx->report.notes, NULL, note);
    return HPR_OK;
}

hpr_status mem_msm(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops, const msm_points *pts,
                   const void *scalars, size_t n, void *out, const hpr_msm_opts *opts, mem_msm_fn run)
{
    mem_limit lim;
    char what[64];
    size_t need = mem_msm_need(ctx, ops, pts, scalars, n, opts), piece = n, piece_need = need;
    if (mem_budget_fits(ctx, need, &lim))
        return run(ctx, curve, group, ops, pts, scalars, n, out, opts);
    while ((piece + 1) / 2 >= MEM_MSM_MIN_PIECE) {
        piece = (piece + 1) / 2;
        msm_points sub = {pts->host, piece, 0, 0, 0};
        piece_need = mem_msm_need(ctx, ops, &sub, scalars, piece, opts);
        if (mem_budget_fits(ctx, piece_need, &lim))
            return msm_in_pieces(ctx, curve, group, ops, pts, scalars, n, out, opts, run, piece);
    }
    snprintf(what, sizeof what, "the MSM of %zu points", n);
    return mem_refuse(ctx, what, need, piece < n ? piece_need : 0, "in pieces of its points", &lim);
}
