/*
 * bases.c: resident bases (hpr_bases_*, hpr_msm_bases): point sets that the OpenCL devices
 * keep between calls under a key (host/msm/resident.c, runtime/opencl/cl_resident.c), optionally
 * precomputed.
 *
 * Why: a prover's MSMs reuse the same points; a key names a set for the life of the process,
 * so a device that has it sends only scalars afterwards. hpr_bases holds its own copy of the
 * points (the caller's buffer may go), validated once here; the devices receive them lazily,
 * on their first MSM over them, so a device that never computes one holds nothing.
 * Life: the bases belong to their context, which lists them; hpr_bases_destroy releases what
 * every device holds under their key; hpr_ctx_destroy detaches the live ones (resident.c; the
 * runtime then releases every device's sets), after which only hpr_bases_destroy is valid.
 *
 * Precomputation (factor f >= 2): the set keeps Q_ij = 2^(j s) P_i for j < f, with
 * s = ceil((bits(r) + 2) / f), at i * f + j. An MSM over it writes each scalar k in signed
 * slices, k = sum_j t_j 2^(j s) with t_j in [-2^(s-1), 2^(s-1)) (carried upwards: a slice
 * whose top bit is set is negative and adds one to the next; f s >= bits(r) + 2 leaves the
 * last slice non-negative), and runs one MSM of f n points with those slices as s-bit two's
 * complement scalars (msm_top_digit: every device reads digits below bit s, bit s - 1 as the
 * sign). Its windows cover s bits instead of bits(r) + 1: the same point-window additions (the
 * windows of the slices add up to those of the whole scalars), f times fewer bucket
 * reductions and window combinations, and the window size is chosen for f n points as for
 * any MSM, so any device may pick its own (no c is baked into the points, unlike ICICLE's
 * 2^(j c W / f)). It pays where reductions weigh: large windows (GPUs), small n. It costs f
 * times the points' memory on the host and on every device that keeps them, about
 * n (f - 1) s doublings at creation (on the CPU pool), and 32 f n bytes of slices per MSM.
 * The slices are exact, so the result is the same bits as hpr_msm over the original points.
 */
#include "host/msm/msm_engine.h"
#include "host/msm/resident.h"
#include "host/msm/msm_calls.h"
#include "runtime/base/rt_mem.h"

#include <stdlib.h>
#include <string.h>

#define SLICE_BLOCK 4096

hpr_status bases_validate(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *points, size_t n)
{
    uint64_t affine[24]; /* the largest affine point: two BLS12-381 Fq2 coordinates */
    for (size_t i = 0; i < n; i++) {
        msm_point_check r = ops->decode_point(affine, points + i * ops->affine_size);
        if (r != MSM_POINT_OK)
            return msm_point_error(ctx, ops, i, r);
    }
    return HPR_OK;
}

unsigned bases_slice_bits(const msm_curve_ops *ops, unsigned f)
{
    return (ops->scalar_bits + 2 + f - 1) / f;
}

msm_curve_ops bases_sliced_ops(const msm_curve_ops *ops, unsigned f)
{
    msm_curve_ops sliced = *ops;
    sliced.scalar_bits = bases_slice_bits(ops, f) - 1;
    return sliced;
}

/* The precomputation's work: blocks of SHIFT points, each point's multiples in turn. */
typedef struct {
    const msm_curve_ops *ops;
    /* the doublings of the context's tier (msm_kernel_for) */
    void (*shift)(unsigned char *out, const unsigned char *in, size_t stride, size_t count, unsigned shift);
    unsigned char *points; /* [i * f + j], j = 0 filled */
    size_t n;
    unsigned f, s;
} expand_work;

#define EXPAND_BLOCK 256

static void expand_task(void *arg, size_t block, unsigned worker)
{
    const expand_work *w = arg;
    size_t begin = block * EXPAND_BLOCK, end = begin + EXPAND_BLOCK < w->n ? begin + EXPAND_BLOCK : w->n;
    size_t size = w->ops->affine_size, stride = size * w->f;
    (void)worker;
    for (unsigned j = 1; j < w->f; j++) /* Q_i,j = 2^s Q_i,j-1 */
        w->shift(w->points + begin * stride + j * size, w->points + begin * stride + (j - 1) * size, stride,
                             end - begin, w->s);
}

hpr_status bases_expand(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *points, size_t n, unsigned f,
                        unsigned char **out)
{
    size_t size = ops->affine_size;
    unsigned char *all;
    *out = NULL;
    if (n > SIZE_MAX / size / f || !(all = rt_alloc_large(n ? n * f * size : 1)))
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "bases: no memory for %zu points precomputed %u times", n, f);
    for (size_t i = 0; i < n; i++)
        memcpy(all + i * f * size, points + i * size, size);
    const msm_cpu_kernel *kernel = msm_kernel_for(ops, ctx->cpu_tier);
    expand_work w = {ops, kernel->shift_points, all, n, f, bases_slice_bits(ops, f)};
    if (f > 1)
        rt_pool_run(ctx->pool, (n + EXPAND_BLOCK - 1) / EXPAND_BLOCK, expand_task, &w);
    *out = all;
    return HPR_OK;
}

hpr_status bases_create_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, size_t n,
                             unsigned precompute, hpr_bases **out)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    hpr_bases *b = NULL;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!out || (n > 0 && !points))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "points and out must not be NULL");
    *out = NULL;
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported (bn254 = 1, bls12-381 = 2)", (int)curve);
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (precompute > BASES_MAX_PRECOMPUTE)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "precompute = %u is out of range (0 or 1: none, at most %d)",
                        precompute, BASES_MAX_PRECOMPUTE);
    if (precompute < 1)
        precompute = 1;
    if (n > UINT32_MAX / precompute)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu is too large (at most 2^32 - 1 points, precomputed ones included)",
                        n);
    if ((st = bases_validate(ctx, ops, points, n)) != HPR_OK)
        return st;
    if (!(b = calloc(1, sizeof *b)))
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "bases: no memory for %zu points", n);
    b->n = n;
    b->precompute = precompute;
    b->slice_bits = bases_slice_bits(ops, precompute);
    b->sliced = bases_sliced_ops(ops, precompute);
    if ((st = bases_expand(ctx, ops, points, n, precompute, &b->points)) != HPR_OK) {
        free(b);
        return st;
    }
    b->ctx = ctx;
    b->curve = curve;
    b->group = group;
    b->key = ctx_new_resident_keys(1);
    b->next = ctx->bases;
    ctx->bases = b;
    *out = b;
    return HPR_OK;
}

void bases_destroy(hpr_bases *bases)
{
    if (!bases)
        return;
    hpr_ctx *ctx = bases->ctx;
    if (ctx) { /* under the context's call lock: its list and its devices' memory change */
        ctx_enter(ctx);
        hpr_bases **link = &ctx->bases;
        while (*link != bases)
            link = &(*link)->next;
        *link = bases->next;
        ctx_drop_resident(ctx, bases->key);
        ctx_leave(ctx, HPR_OK);
    }
    free(bases->points);
    free(bases);
}

size_t bases_count(const hpr_bases *bases)
{
    return bases ? bases->n : 0;
}

unsigned bases_precompute_factor(const hpr_bases *bases)
{
    return bases ? bases->precompute : 0;
}

size_t bases_bytes(const hpr_bases *bases)
{
    return bases ? bases->n * bases->precompute * msm_point_size(bases->curve, bases->group) : 0;
}

/* The slicing's work: scalars [block * SLICE_BLOCK, ...) of n into f slices each. */
typedef struct {
    const unsigned char *scalars;
    unsigned char *slices; /* [i * f + j], 32 bytes each */
    size_t n;
    unsigned f, s;
} slice_work;

/* out = the low bits (< 2^bits) of t, t >>= bits (t: 5 limbs, bits < 256). */
static void take_low_bits(msm_scalar *out, uint64_t t[5], unsigned bits)
{
    unsigned q = bits / 64, r = bits % 64;
    for (unsigned l = 0; l < 4; l++)
        out->l[l] = l < q ? t[l] : l == q && r ? t[l] & ((UINT64_C(1) << r) - 1) : 0;
    for (unsigned l = 0; l < 5; l++) {
        uint64_t lo = l + q < 5 ? t[l + q] >> r : 0, hi = r && l + q + 1 < 5 ? t[l + q + 1] << (64 - r) : 0;
        t[l] = lo | hi;
    }
}

/* The signed slices of one scalar (< r), raw s-bit two's complement: see the top of the file. */
static void slice_scalar(unsigned char *out, const unsigned char *scalar, unsigned f, unsigned s)
{
    msm_scalar k, slice;
    uint64_t t[5];
    msm_scalar_from_bytes(&k, scalar);
    memcpy(t, k.l, sizeof k.l);
    t[4] = 0;
    for (unsigned j = 0; j < f; j++) {
        take_low_bits(&slice, t, s);
        if ((slice.l[(s - 1) / 64] >> ((s - 1) % 64)) & 1) /* negative: the next slice carries one */
            for (unsigned l = 0; l < 5 && ++t[l] == 0; l++)
                ;
        msm_scalar_to_bytes(out + 32 * (size_t)j, &slice);
    }
    RT_INVARIANT(!(t[0] | t[1] | t[2] | t[3] | t[4]));
}

static void slice_task(void *arg, size_t block, unsigned worker)
{
    const slice_work *w = arg;
    size_t begin = block * SLICE_BLOCK, end = begin + SLICE_BLOCK < w->n ? begin + SLICE_BLOCK : w->n;
    (void)worker;
    for (size_t i = begin; i < end; i++)
        slice_scalar(w->slices + 32 * i * w->f, w->scalars + 32 * i, w->f, w->s);
}

void bases_slice(hpr_ctx *ctx, const unsigned char *scalars, size_t n, unsigned f, unsigned s, unsigned char *slices)
{
    slice_work w = {scalars, slices, n, f, s};
    if (n > 0)
        rt_pool_run(ctx->pool, (n + SLICE_BLOCK - 1) / SLICE_BLOCK, slice_task, &w);
}

/* The MSM over precomputed bases: the scalars checked (named by their own index), sliced,
 * and the MSM of their f n slices run over the first f n points of the set. */
static hpr_status msm_precomputed(hpr_ctx *ctx, const hpr_bases *b, const unsigned char *scalars, size_t n, void *out,
                                  const hpr_msm_opts *opts)
{
    const msm_curve_ops *ops = msm_ops(b->curve, b->group);
    size_t f = b->precompute;
    unsigned char *slices = NULL;
    hpr_status st;
    if (n > 0 && !scalars)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "points, scalars and out must not be NULL");
    if ((st = msm_check_scalars(ctx, ops, scalars, n)) != HPR_OK)
        return st;
    if (n > 0 && !(slices = rt_alloc_large(32 * f * n)))
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "MSM over precomputed bases: no memory for the %zu slices", f * n);
    bases_slice(ctx, scalars, n, b->precompute, b->slice_bits, slices);
    msm_points pts = {b->points, b->n * f, b->key, b->key, 1}; /* validated when made */
    st = msm_keyed_ops(ctx, b->curve, b->group, &b->sliced, &pts, slices, f * n, out, opts);
    free(slices);
    return st;
}

hpr_status msm_bases_call(hpr_ctx *ctx, const hpr_bases *bases, const void *scalars, size_t n, void *out,
                          const hpr_msm_opts *opts)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!bases)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "bases must not be NULL");
    if (bases->ctx != ctx)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "these bases belong to another context");
    if (n > bases->n)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu exceeds the %zu bases", n, bases->n);
    if (bases->precompute > 1)
        return msm_precomputed(ctx, bases, scalars, n, out, opts);
    msm_points pts = {bases->points, bases->n, bases->key, bases->key, 1}; /* validated when made */
    return msm_keyed(ctx, bases->curve, bases->group, &pts, scalars, n, out, opts);
}
