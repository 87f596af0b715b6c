/*
 * msm_cpu_job.c: the MSM on the CPU thread pool, as a job that is prepared once and run in
 * pieces (windows x point ranges): msm_on_cpu runs it whole, the hybrid scheduler in tiles
 * (msm_hybrid.c). The public entry point is msm.c; OpenCL devices: runtime/opencl/cl_msm.c.
 *
 * Steps: (1) read the scalars (in place when aligned: the interchange form is the limb struct
 * on little-endian hosts), reject any >= r, and sort indices into zeros (dropped), ones (summed
 * directly by the tier's sum_points: one mixed addition each, eight at once with IFMA) and the
 * rest, the list; (2) validate the points in parallel (in place, or decoded into a copy), with
 * the tier's check where it has one, and drop points at infinity from the list; (3) in parallel
 * over the list: the points in the tier's own form (list order); the Booth digits of a window
 * are formed when a piece first needs that window (a cluster's rank that runs half the windows
 * forms half the digits, and touches half of their pages); (4) cut the list into tiles (point
 * chunks x window groups, see msm_cpu.h) and run them with the ones-sums on the pool; (5) add
 * the partial window sums in tile order, combine the windows (Horner), add the ones, normalise.
 * Large arrays are on huge pages (runtime/base/rt_mem.h).
 * Progress and cancellation (host/core/progress.h): each decode block adds its share of an eighth
 * of the MSM's units, each tile its cells' share of the rest; a tile that finds the call
 * cancelled does nothing, and the run then fails with HPR_ERR_CANCELLED.
 * Every sum is formed in a fixed order and the output is affine, so the result is identical
 * for every thread count and every tiling.
 *
 * Window size: c minimises passes(c) * window_cost(c, m), W(c) = floor(bits/c) + 1 windows
 * dealt to the threads, m the general scalars, window_cost the tier kernel's model (portable:
 * one mixed addition per point against two full additions, about 1.5 mixed each, per bucket;
 * avx512: see msm_ifma_impl.h). Capped at 15: beyond, the buckets of one thread (2 MiB for
 * BN254 at c = 15) spill out of L2 and random bucket updates miss. Measured on the 2-core
 * Zen 4, portable tier (BN254, 2^20 points, 2 threads, median of 3): c = 13: 3127 ms,
 * 14: 3001 ms, 15: 2950 ms, 16: 3403 ms.
 */
#include "host/msm/msm_engine.h"
#include "runtime/base/rt_mem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DECODE_BLOCK 4096
#define MAX_AUTO_WINDOW_BITS 15
/* Digits of every window are precomputed (2 bytes each instead of reading the 32-byte scalar
 * in every window pass) up to c = 15 (|d| <= 2^14 fits int16) and 2^28 digits (512 MiB). */
#define MAX_DIGIT_WINDOW_BITS 15
#define MAX_DIGITS ((size_t)1 << 28)

struct msm_cpu_job {
    hpr_ctx *ctx;                 /* progress and cancellation (host/core/progress.h) */
    uint64_t units;               /* the MSM's progress units: 1/8 decoding, the rest the tiles */
    double cell_units;            /* units of one (list point, window) of a tile */
    const msm_curve_ops *ops;
    const msm_cpu_kernel *kernel; /* the tile kernel of the context's CPU tier */
    const unsigned char *in_points;
    int validated;                /* the caller validated the points before: decode, no check */
    const unsigned char *points; /* decoded affine, n of them: the input itself or decoded */
    unsigned char *decoded;      /* the decoded copy, when the input cannot serve (NULL if not) */
    size_t n;
    size_t *first_bad;             /* per decode block: first failing index or SIZE_MAX */
    msm_point_check *bad_kind;     /* per decode block */
    const msm_scalar *scalars;
    msm_scalar *scalar_copy;       /* the decoded scalars, when the input cannot serve (NULL if not) */
    uint32_t *general, *ones;      /* the list (point indices of general scalars, finite points), the ones */
    size_t ngeneral, nones;
    unsigned c, nwindows;
    hpr_msm_opts opts;            /* the caller's tile shape (zeros: chosen) */
    unsigned threads;
    unsigned char *prepared;      /* the listed points in the kernel's form, list order (NULL if none) */
    int16_t *digits;              /* [window][list position] Booth digits, or NULL (computed on the fly) */
    unsigned char *digits_ready;  /* [window]: 1 once that window's digits are formed */
    unsigned digit_w0, digit_w1;  /* the windows list_task forms now */
    msm_tile_input input;         /* what the tiles read */
    unsigned char *scratch;       /* [worker] scratch_bytes */
    size_t scratch_bytes;
};
typedef struct msm_cpu_job msm_job;

/* One piece of the MSM: windows [w0, w0 + nw) over a range of the list and of the ones, cut
 * into tasks (point chunks x window groups) for the pool. */
typedef struct {
    msm_job *job;
    size_t l0, l1, o0, o1;
    unsigned w0, nw, point_chunks, window_groups, ones_chunks;
    unsigned char *partials;      /* [point_chunks][nw] XYZZ */
    unsigned char *ones_partials; /* [ones_chunks] XYZZ */
} msm_piece;

/* The bit length of the group order of ops (4 limbs). */
static unsigned order_bits(const msm_curve_ops *ops)
{
    for (unsigned l = 4; l-- > 0;)
        if (ops->order[l])
            return 64 * l + 64 - (unsigned)__builtin_clzll(ops->order[l]);
    return 0;
}

/* Whether c leaves the top window of scalars of ops too narrow to share their buckets: under
 * half of c bits wide, so its digits crowd into a few buckets (the conflict paths of the
 * batch-affine kernels, a sort among them). Only the slices of precomputed bases are held to
 * it (their scalar_bits is below the order's, host/msm/bases.c): every slice has such a top
 * window, whereas a whole scalar's top window is one of many. Measured on the 2-core Zen 4
 * (a build running beside), BN254 2^16 precomputed twice (s = 128), avx512 tier: c = 13 (top
 * window 11 bits) 1227 ns/point, c = 14 (2 bits) 1982. */
static int narrow_top_window(const msm_curve_ops *ops, unsigned c)
{
    unsigned top = ops->scalar_bits + 1, windows = msm_window_count(ops->scalar_bits, c);
    return ops->scalar_bits < order_bits(ops) && c > 1 && 2 * (top - (windows - 1) * c) < c;
}

/* The c with the least time on threads workers: windows are the tiles when there are at
 * least two per thread (plan_tiles), so the time is ceil(windows / threads) window passes
 * (19 windows on 2 threads take 10 passes: c giving 20 windows can win). */
static unsigned choose_window_bits(size_t m, const msm_curve_ops *ops, const msm_cpu_kernel *kernel, unsigned threads)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= MAX_AUTO_WINDOW_BITS; c++) {
        unsigned windows = msm_window_count(ops->scalar_bits, c);
        double passes = windows >= 2 * threads ? (double)((windows + threads - 1) / threads) : (double)windows / threads;
        double cost = passes * kernel->window_cost(c, m);
        if (!narrow_top_window(ops, c) && (c == 1 || cost < best_cost)) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

unsigned msm_cpu_window_bits(const msm_curve_ops *ops, rt_cpu_tier tier, size_t m, unsigned threads)
{
    return choose_window_bits(m, ops, msm_kernel_for(ops, tier), threads);
}

/* Splits [0, total) into parts nearly equal ranges; part i is [begin, end). */
static void split_range(size_t total, unsigned parts, unsigned i, size_t *begin, size_t *end)
{
    *begin = total * i / parts;
    *end = total * (i + 1) / parts;
}

/* Whether n items of the interchange bytes at p can be read in place as the limb structs:
 * little-endian host (the interchange form is little-endian limbs) and 8-byte alignment. */
static int usable_in_place(const void *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return ((uintptr_t)p & 7) == 0;
#else
    (void)p;
    return 0;
#endif
}

/* Block block of DECODE_BLOCK items among total: [*begin, *end). */
static void block_range(size_t block, size_t total, size_t *begin, size_t *end)
{
    *begin = block * DECODE_BLOCK;
    *end = *begin + DECODE_BLOCK < total ? *begin + DECODE_BLOCK : total;
}

/* Points [begin, end): checked in place with the tier's check where it has one, else decoded
 * one by one into decoded (NULL: the check alone). The first invalid index and its kind
 * (*kind), or SIZE_MAX. */
static size_t check_block(const msm_curve_ops *ops, const msm_cpu_kernel *kernel, const unsigned char *points,
                          size_t begin, size_t end, unsigned char *decoded, msm_point_check *kind)
{
    if (!decoded && kernel && kernel->check_points && usable_in_place(points)) {
        size_t bad = kernel->check_points(points, begin, end, kind);
        return bad < end ? bad : SIZE_MAX;
    }
    for (size_t i = begin; i < end; i++) {
        uint64_t scratch[MSM_MAX_AFFINE_BYTES / 8]; /* the check alone when the input serves */
        void *dst = decoded ? decoded + i * ops->affine_size : (void *)scratch;
        msm_point_check r = ops->decode_point(dst, points + i * ops->affine_size);
        if (r != MSM_POINT_OK) {
            *kind = r;
            return i;
        }
    }
    return SIZE_MAX;
}

static void decode_task(void *arg, size_t block, unsigned worker)
{
    msm_job *job = arg;
    size_t begin, end;
    (void)worker;
    block_range(block, job->n, &begin, &end);
    progress_add(job->ctx, (uint64_t)((double)job->units / 8 * (double)(end - begin) / (double)job->n));
    if (job->validated) { /* the input bytes are the decoded form (little-endian limbs) */
        job->first_bad[block] = SIZE_MAX;
        if (job->decoded)
            memcpy(job->decoded + begin * job->ops->affine_size, job->in_points + begin * job->ops->affine_size,
                   (end - begin) * job->ops->affine_size);
        return;
    }
    job->first_bad[block] = check_block(job->ops, job->kernel, job->in_points, begin, end, job->decoded,
                                        &job->bad_kind[block]);
}

static void tile_task(void *arg, size_t t, unsigned worker)
{
    msm_piece *pc = arg;
    msm_job *job = pc->job;
    const msm_curve_ops *ops = job->ops;
    unsigned ntiles = pc->point_chunks * pc->window_groups;
    size_t b, e;
    if (progress_cancelled(job->ctx)) /* msm_cpu_job_run fails */
        return;
    if (t >= ntiles) {
        unsigned i = (unsigned)(t - ntiles);
        split_range(pc->o1 - pc->o0, pc->ones_chunks, i, &b, &e);
        job->kernel->sum_points(pc->ones_partials + i * ops->xyzz_size, job->points, job->ones, pc->o0 + b,
                                pc->o0 + e);
        return;
    }
    unsigned chunk = (unsigned)(t / pc->window_groups), group = (unsigned)(t % pc->window_groups);
    msm_tile tile;
    split_range(pc->l1 - pc->l0, pc->point_chunks, chunk, &b, &e);
    tile.begin = pc->l0 + b;
    tile.end = pc->l0 + e;
    split_range(pc->nw, pc->window_groups, group, &b, &e);
    tile.w_begin = pc->w0 + (unsigned)b;
    tile.w_end = pc->w0 + (unsigned)e;
    job->kernel->tile(pc->partials + ((size_t)chunk * pc->nw + b) * ops->xyzz_size, &job->input, &tile, job->c,
                      job->scratch + (size_t)worker * job->scratch_bytes);
    progress_add(job->ctx, (uint64_t)(job->cell_units * (double)(tile.end - tile.begin) * (tile.w_end - tile.w_begin)));
}

/* One block of the list: its points in the kernel's form (digit_w0 == digit_w1), or its
 * digits of windows [digit_w0, digit_w1). */
static void list_task(void *arg, size_t block, unsigned worker)
{
    msm_job *job = arg;
    size_t begin, end;
    (void)worker;
    block_range(block, job->ngeneral, &begin, &end);
    if (job->digit_w0 < job->digit_w1)
        msm_digits(job->digits, job->ngeneral, job->scalars, job->general, begin, end, job->digit_w0, job->digit_w1,
                   job->c, job->ops->scalar_bits + 1);
    else
        job->kernel->prepare_points(job->prepared, job->points, job->general, begin, end);
}

/* The digits of windows [w0, w1) that no piece has needed before, formed on the pool. */
static void form_digits(msm_job *job, unsigned w0, unsigned w1)
{
    if (!job->digits)
        return;
    while (w0 < w1) {
        while (w0 < w1 && job->digits_ready[w0])
            w0++;
        unsigned e = w0;
        while (e < w1 && !job->digits_ready[e])
            e++;
        if (w0 == e)
            break;
        job->digit_w0 = w0;
        job->digit_w1 = e;
        rt_pool_run(job->ctx->pool, (job->ngeneral + DECODE_BLOCK - 1) / DECODE_BLOCK, list_task, job);
        memset(job->digits_ready + w0, 1, e - w0);
        job->digit_w0 = job->digit_w1 = 0;
        w0 = e;
    }
}

/* Drops the points at infinity from the list (they add nothing; kernels may then assume
 * finite points). Infinity is all zero in the decoded form as in the interchange form. */
static void drop_infinity(msm_job *job, uint32_t *general)
{
    static const unsigned char zero[MSM_MAX_AFFINE_BYTES];
    size_t kept = 0, size = job->ops->affine_size;
    for (size_t i = 0; i < job->ngeneral; i++)
        if (memcmp(job->points + (size_t)general[i] * size, zero, size) != 0)
            general[kept++] = general[i];
    job->ngeneral = kept;
}

static int scalar_is_one(const msm_scalar *k)
{
    return k->l[0] == 1 && (k->l[1] | k->l[2] | k->l[3]) == 0;
}

static int scalar_is_zero(const msm_scalar *k)
{
    return (k->l[0] | k->l[1] | k->l[2] | k->l[3]) == 0;
}

static int scalar_below(const msm_scalar *k, const uint64_t *order)
{
    for (int i = 3; i >= 0; i--)
        if (k->l[i] != order[i])
            return k->l[i] < order[i];
    return 0;
}

static hpr_status scalar_error(hpr_ctx *ctx, const msm_curve_ops *ops, size_t index)
{
    return ctx_fail(ctx, HPR_ERR_SCALAR_OUT_OF_RANGE,
                    "scalar %zu is not below the group order r of %s (scalars are canonical little-endian)", index,
                    ops->name);
}

/* Classifies the scalars (decoded into copy when given, else read in place). Fails on the
 * first scalar >= r. */
static hpr_status prepare_scalars(hpr_ctx *ctx, msm_job *job, const unsigned char *in, msm_scalar *copy,
                                  uint32_t *general, uint32_t *ones)
{
    job->scalars = copy ? copy : (const msm_scalar *)(const void *)in;
    job->ngeneral = job->nones = 0;
    for (size_t i = 0; i < job->n; i++) {
        const msm_scalar *k = &job->scalars[i];
        if (copy)
            msm_scalar_from_bytes(&copy[i], in + 32 * i);
        if (!scalar_below(k, job->ops->order))
            return scalar_error(ctx, job->ops, i);
        if (scalar_is_zero(k))
            continue;
        if (scalar_is_one(k))
            ones[job->nones++] = (uint32_t)i;
        else
            general[job->ngeneral++] = (uint32_t)i;
    }
    return HPR_OK;
}

hpr_status msm_point_error(hpr_ctx *ctx, const msm_curve_ops *ops, size_t index, msm_point_check kind)
{
    if (kind == MSM_POINT_COORD_RANGE)
        return ctx_fail(ctx, HPR_ERR_COORDINATE_OUT_OF_RANGE,
                        "point %zu has a coordinate >= p of %s (expected Montgomery form, little-endian)", index,
                        ops->name);
    return ctx_fail(ctx, HPR_ERR_POINT_NOT_ON_CURVE, "point %zu is not on the %s curve", index, ops->name);
}

static hpr_status prepare_points(hpr_ctx *ctx, msm_job *job)
{
    size_t blocks = (job->n + DECODE_BLOCK - 1) / DECODE_BLOCK;
    rt_pool_run(ctx->pool, blocks, decode_task, job);
    for (size_t b = 0; b < blocks; b++)
        if (job->first_bad[b] != SIZE_MAX)
            return msm_point_error(ctx, job->ops, job->first_bad[b], job->bad_kind[b]);
    return HPR_OK;
}

/* Points [begin, end) checked on the pool, as prepare_points checks them (without a copy). */
typedef struct {
    const msm_curve_ops *ops;
    const msm_cpu_kernel *kernel;
    const unsigned char *points;
    size_t begin, end;
    size_t *first_bad;         /* per block: first failing index or SIZE_MAX */
    msm_point_check *bad_kind; /* per block */
} point_range;

static void check_range_task(void *arg, size_t block, unsigned worker)
{
    point_range *r = arg;
    size_t begin = r->begin + block * DECODE_BLOCK, end = begin + DECODE_BLOCK < r->end ? begin + DECODE_BLOCK : r->end;
    (void)worker;
    r->first_bad[block] = check_block(r->ops, r->kernel, r->points, begin, end, NULL, &r->bad_kind[block]);
}

hpr_status msm_cpu_check_points(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, size_t begin, size_t end)
{
    size_t blocks = (end - begin + DECODE_BLOCK - 1) / DECODE_BLOCK;
    point_range r = {ops, msm_kernel_for(ops, ctx->cpu_tier), points, begin, end, NULL, NULL};
    hpr_status st = HPR_OK;
    if (begin >= end)
        return HPR_OK;
    r.first_bad = malloc(blocks * sizeof *r.first_bad);
    r.bad_kind = malloc(blocks * sizeof *r.bad_kind);
    if (!r.first_bad || !r.bad_kind) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "no memory to check %zu points", end - begin);
        goto out;
    }
    rt_pool_run(ctx->pool, blocks, check_range_task, &r);
    for (size_t b = 0; b < blocks && st == HPR_OK; b++)
        if (r.first_bad[b] != SIZE_MAX)
            st = msm_point_error(ctx, ops, r.first_bad[b], r.bad_kind[b]);
out:
    free(r.first_bad);
    free(r.bad_kind);
    return st;
}

/* The window size of the whole MSM (the caller's, or the least time on the pool). */
static void plan_windows(msm_job *job)
{
    job->c = job->opts.window_bits ? job->opts.window_bits
                                   : choose_window_bits(job->ngeneral, job->ops, job->kernel, job->threads);
    job->nwindows = msm_window_count(job->ops->scalar_bits, job->c);
}

/* The tasks of a piece: one window per group (or the caller's windows_per_tile), and enough
 * point chunks for every thread, but chunks no smaller than the bucket count. */
static void plan_piece(msm_piece *pc)
{
    const msm_job *job = pc->job;
    unsigned per_tile = job->opts.windows_per_tile;
    size_t m = pc->l1 - pc->l0;
    pc->window_groups = per_tile ? (pc->nw + per_tile - 1) / per_tile : pc->nw;
    if (pc->window_groups > pc->nw)
        pc->window_groups = pc->nw;
    if (job->opts.point_chunks) {
        pc->point_chunks = job->opts.point_chunks;
    } else {
        /* two tasks per thread balance the pool; one thread wants one chunk (each chunk pays
         * its own bucket reduction) */
        size_t tasks = job->threads > 1 ? 2 * (size_t)job->threads : 1;
        size_t want = (tasks + pc->window_groups - 1) / pc->window_groups;
        size_t max_useful = m >> job->c;
        pc->point_chunks = (unsigned)(want < max_useful ? want : (max_useful ? max_useful : 1));
    }
    if (pc->point_chunks == 0)
        pc->point_chunks = 1;
    pc->ones_chunks = pc->o1 - pc->o0 >= 4096 ? job->threads : 1;
}

/* result (XYZZ) = sum over the piece's windows w of 2^(c w) * (sum of its chunks' window w
 * sums), plus its ones when it holds window 0. */
static void combine_piece(const msm_piece *pc, unsigned char *sums, void *result)
{
    const msm_job *job = pc->job;
    const msm_curve_ops *ops = job->ops;
    size_t xs = ops->xyzz_size;
    for (unsigned w = 0; w < pc->w0; w++)
        ops->xyzz_set_inf(sums + w * xs);
    memcpy(sums + (size_t)pc->w0 * xs, pc->partials, pc->nw * xs);
    for (unsigned chunk = 1; chunk < pc->point_chunks; chunk++)
        for (unsigned w = 0; w < pc->nw; w++)
            ops->xyzz_add(sums + (pc->w0 + w) * xs, sums + (pc->w0 + w) * xs, pc->partials + ((size_t)chunk * pc->nw + w) * xs);
    ops->combine_windows(result, sums, pc->w0 + pc->nw, job->c);
    for (unsigned i = 0; pc->w0 == 0 && i < pc->ones_chunks; i++)
        ops->xyzz_add(result, result, pc->ones_partials + i * xs);
}

/* The first list position at or after point index p (the lists are in index order). */
static size_t list_lower_bound(const uint32_t *list, size_t count, size_t p)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (list[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void msm_cpu_job_free(msm_job *job)
{
    if (!job)
        return;
    free(job->scalar_copy);
    free(job->general);
    free(job->ones);
    free(job->decoded);
    free(job->first_bad);
    free(job->bad_kind);
    free(job->scratch);
    free(job->prepared);
    free(job->digits);
    free(job->digits_ready);
    free(job);
}

static hpr_status alloc_inputs(hpr_ctx *ctx, msm_job *job, const void *points, const void *scalars)
{
    size_t n = job->n, blocks = (n + DECODE_BLOCK - 1) / DECODE_BLOCK;
    int scalars_in_place = usable_in_place(scalars), points_in_place = usable_in_place(points);
    if (!scalars_in_place)
        job->scalar_copy = rt_alloc_large(n * sizeof(msm_scalar));
    if (!points_in_place)
        job->decoded = rt_alloc_large(n * job->ops->affine_size);
    job->points = job->decoded ? job->decoded : points;
    job->general = rt_alloc_large(n * sizeof(uint32_t));
    job->ones = rt_alloc_large(n * sizeof(uint32_t));
    job->first_bad = malloc((blocks ? blocks : 1) * sizeof(size_t));
    job->bad_kind = malloc((blocks ? blocks : 1) * sizeof(msm_point_check));
    if ((!scalars_in_place && !job->scalar_copy) || (!points_in_place && !job->decoded) || !job->general ||
        !job->ones || !job->first_bad || !job->bad_kind)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "MSM of %zu points: cannot allocate the decoded inputs", n);
    return HPR_OK;
}

/* The window plan, scratch, the points in the kernel's form and the digits of the list. */
static hpr_status prepare_list(hpr_ctx *ctx, msm_job *job)
{
    plan_windows(job);
    if (job->ngeneral) /* the tiles' share of the units (all of it at once when there are no tiles) */
        job->cell_units = (double)(job->units - job->units / 8) / ((double)job->ngeneral * job->nwindows);
    else
        progress_add(ctx, job->units - job->units / 8);
    job->scratch_bytes = (job->kernel->scratch_size(job->c, job->ngeneral) + 63) & ~(size_t)63;
    job->scratch = rt_alloc_large((size_t)job->threads * job->scratch_bytes);
    if (job->kernel->prepared_size && job->ngeneral)
        job->prepared = rt_alloc_large(job->ngeneral * job->kernel->prepared_size);
    if (job->c <= MAX_DIGIT_WINDOW_BITS && job->ngeneral && (size_t)job->nwindows * job->ngeneral <= MAX_DIGITS) {
        job->digits = rt_alloc_large((size_t)job->nwindows * job->ngeneral * sizeof(int16_t)); /* NULL: on the fly */
        job->digits_ready = calloc(job->nwindows, 1);
        if (!job->digits_ready) { /* on the fly, then */
            free(job->digits);
            job->digits = NULL;
        }
    }
    if (!job->scratch || (job->kernel->prepared_size && job->ngeneral && !job->prepared))
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "MSM of %zu points: cannot allocate buckets (c = %u)", job->n, job->c);
    job->input = (msm_tile_input){job->points, job->prepared, job->scalars, job->general, job->digits, job->ngeneral,
                                  job->ops->scalar_bits + 1};
    if (job->prepared)
        rt_pool_run(ctx->pool, (job->ngeneral + DECODE_BLOCK - 1) / DECODE_BLOCK, list_task, job);
    return HPR_OK;
}

hpr_status msm_cpu_job_prepare(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, int validated,
                               const void *scalars, size_t n, const hpr_msm_opts *opts, msm_job **out)
{
    msm_job *job = calloc(1, sizeof *job);
    hpr_status st;
    *out = NULL;
    if (!job)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "MSM of %zu points: out of memory", n);
    job->ctx = ctx;
    job->units = progress_msm_units(n, ops->degree);
    job->ops = ops;
    job->kernel = msm_kernel_for(ops, ctx->cpu_tier);
    job->n = n;
    job->in_points = points;
    job->validated = validated && usable_in_place(NULL); /* a copy is a memcpy only on little-endian hosts */
    job->threads = ctx->threads;
    if (opts)
        job->opts = *opts;
    if ((st = alloc_inputs(ctx, job, points, scalars)) == HPR_OK &&
        (st = prepare_scalars(ctx, job, scalars, job->scalar_copy, job->general, job->ones)) == HPR_OK &&
        (st = prepare_points(ctx, job)) == HPR_OK && (st = progress_check(ctx)) == HPR_OK) {
        drop_infinity(job, job->general);
        st = prepare_list(ctx, job);
    }
    if (st != HPR_OK) {
        msm_cpu_job_free(job);
        return st;
    }
    *out = job;
    return HPR_OK;
}

unsigned msm_cpu_job_window_bits(const msm_job *job)
{
    return job->c;
}

unsigned msm_cpu_job_windows(const msm_job *job)
{
    return job->nwindows;
}

hpr_status msm_cpu_job_run(hpr_ctx *ctx, msm_job *job, unsigned w0, unsigned w1, size_t p0, size_t p1, void *result)
{
    const msm_curve_ops *ops = job->ops;
    msm_piece pc = {job, list_lower_bound(job->general, job->ngeneral, p0), list_lower_bound(job->general, job->ngeneral, p1),
                    list_lower_bound(job->ones, job->nones, p0), list_lower_bound(job->ones, job->nones, p1), w0, w1 - w0,
                    0, 0, 0, NULL, NULL};
    unsigned char *sums = NULL;
    hpr_status st = HPR_OK;
    RT_INVARIANT(w0 < w1 && w1 <= job->nwindows);
    RT_INVARIANT(p0 <= p1 && p1 <= job->n);
    if (w0 > 0) /* the ones are window 0's digits */
        pc.o0 = pc.o1 = 0;
    plan_piece(&pc);
    form_digits(job, w0, w1);
    pc.partials = malloc((size_t)pc.point_chunks * (pc.nw ? pc.nw : 1) * ops->xyzz_size);
    pc.ones_partials = malloc(pc.ones_chunks * ops->xyzz_size);
    sums = malloc((size_t)(w1 ? w1 : 1) * ops->xyzz_size);
    if (!pc.partials || !pc.ones_partials || !sums) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "MSM of %zu points: cannot allocate window sums", job->n);
        goto out;
    }
    rt_pool_run(ctx->pool, (size_t)pc.point_chunks * pc.window_groups + pc.ones_chunks, tile_task, &pc);
    if ((st = progress_check(ctx)) != HPR_OK) /* tiles were skipped */
        goto out;
    combine_piece(&pc, sums, result);
out:
    free(pc.partials);
    free(pc.ones_partials);
    free(sums);
    return st;
}

void msm_cpu_job_form_digits(msm_job *job, unsigned w0, unsigned w1)
{
    RT_INVARIANT(w0 < w1 && w1 <= job->nwindows);
    form_digits(job, w0, w1);
}

void msm_cpu_job_progress(msm_job *job, unsigned w0, unsigned w1, size_t p0, size_t p1)
{
    size_t l0 = list_lower_bound(job->general, job->ngeneral, p0), l1 = list_lower_bound(job->general, job->ngeneral, p1);
    progress_add(job->ctx, (uint64_t)(job->cell_units * (double)(l1 - l0) * (w1 - w0)));
}

hpr_status msm_on_cpu(hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, int validated, const void *scalars,
                      size_t n, void *out, const hpr_msm_opts *opts)
{
    msm_job *job;
    uint64_t result[MSM_MAX_XYZZ_BYTES / 8];
    hpr_status st = msm_cpu_job_prepare(ctx, ops, points, validated, scalars, n, opts, &job);
    if (st != HPR_OK)
        return st;
    st = msm_cpu_job_run(ctx, job, 0, job->nwindows, 0, n, result);
    if (st == HPR_OK)
        ops->encode_xyzz(out, result);
    msm_cpu_job_free(job);
    return st;
}

hpr_status msm_check_scalars(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *scalars, size_t n)
{
    msm_scalar k;
    for (size_t i = 0; i < n; i++) {
        msm_scalar_from_bytes(&k, scalars + 32 * i);
        if (!scalar_below(&k, ops->order))
            return scalar_error(ctx, ops, i);
    }
    return HPR_OK;
}

