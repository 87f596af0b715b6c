/*
 * fixed_base.c: many multiples k_i * B of one base point B (fixed_base.h): the development
 * setup's millions of [x]_1 and [x]_2 from the generators, and hpr_fixed_base_mul for anyone
 * with many multiples of one base (Pedersen and IPA committers, setups).
 *
 * Method: signed windows of w bits. The table holds, for every window j, the affine points
 * d * 2^(w j) * B for d = 1 .. 2^(w-1); a scalar is recoded into digits in (-2^(w-1), 2^(w-1)]
 * (a digit above half borrows from the next window), and its multiple is the sum of one table
 * point (negated for a negative digit) per non-zero digit: ceil((bits + 1) / w) mixed
 * additions in XYZZ form, no doubling. The sums of a block of BLOCK scalars are normalised
 * with one shared inversion and written as interchange bytes (Montgomery affine; zeros for
 * infinity). Blocks are independent: they run on the context's pool, and the bytes do not
 * depend on the thread count.
 * Why these windows: the table (windows * 2^(w-1) points) should stay in the L2 cache while
 * every scalar reads one random entry per window; w grows with n until the table's build (one
 * addition per entry) stops paying for itself, at most W_MAX (1.5 MiB of affine points for
 * BN254 G1 at w = 11, 4.5 MiB for BLS12-381 G2).
 * Where the additions run: the table is built once with the portable field code of arith/,
 * then kept in the point form of the context's CPU tier, and a block's sums are that tier's
 * kernel (msm_cpu_kernel.fixed_base_sums): on avx512 eight scalars in the IFMA lanes (the
 * SALT seed's technique: eight multiplications per vector register), on adx the mulx/adcx/adox
 * field code, on portable the C. The digits are recoded here, the sums normalised here, so the
 * bytes are the same on every tier. Measured (2-core Xeon with AVX-512 IFMA, the 2^20 setup,
 * 98% of it these sums before): 4.4x faster on avx512 and 1.6x on adx than the portable code
 * that every tier ran before (docs/groth16.md).
 */
#include "host/msm/fixed_base.h"
#include "host/msm/msm_engine.h"
#include "runtime/base/rt_pool.h"

#include "arith/curves.h"

#include <stdlib.h>
#include <string.h>

#define W_MIN 4
#define W_MAX 11
#define BLOCK 256 /* scalars normalised together (per-worker heap scratch: 168 KiB for BLS12-381 G2) */

typedef struct {
    void (*build)(void *table, const unsigned char *base, unsigned w, unsigned windows, void *scratch);
    void (*finish)(void *sums, size_t n, unsigned char *out, void *scratch);
    size_t affine_size, xyzz_size, field_size;
    unsigned bits;
} fb_ops;

struct fixed_base {
    const fb_ops *ops;
    const msm_cpu_kernel *kernel; /* the context's tier: its fixed_base_sums */
    unsigned w, windows;
    void *table; /* in the kernel's point form */
    size_t point_size;
};

/* Digit j of k in signed windows of w bits: (raw window + carry in), minus 2^w when above
 * half (the carry out is then 1). */
static int signed_digit(const uint64_t *k, unsigned j, unsigned w, unsigned *carry)
{
    unsigned bit = j * w, limb = bit / 64, shift = bit % 64;
    uint64_t raw = limb < 4 ? k[limb] >> shift : 0;
    if (shift + w > 64 && limb + 1 < 4)
        raw |= k[limb + 1] << (64 - shift);
    int d = (int)(raw & ((1u << w) - 1)) + (int)*carry;
    *carry = d > (1 << (w - 1));
    return *carry ? d - (1 << w) : d;
}

#define FIXED_BASE_FNS(EC, F)                                                                                  \
    /* scratch: windows * 2^(w-1) XYZZ points and as many field elements */                                  \
    static void EC##_fb_build(void *table_v, const unsigned char *base, unsigned w, unsigned windows,         \
                              void *scratch_v)                                                                 \
    {                                                                                                          \
        EC##_affine *table = table_v, p;                                                                       \
        size_t half = (size_t)1 << (w - 1), n = half * windows;                                                \
        EC##_xyzz *row = scratch_v;                                                                            \
        F *inv = (F *)(row + n);                                                                               \
        if (base)                                                                                              \
            memcpy(&p, base, sizeof p);                                                                        \
        else                                                                                                   \
            EC##_affine_generator(&p);                                                                         \
        for (unsigned j = 0; j < windows; j++) {                                                               \
            EC##_xyzz *r = row + j * half;                                                                     \
            EC##_xyzz_from_affine(&r[0], &p); /* p = 2^(w j) B */                                              \
            for (size_t d = 1; d < half; d++)                                                                  \
                EC##_xyzz_add_affine(&r[d], &r[d - 1], &p);                                                    \
            EC##_xyzz next;                                                                                    \
            EC##_xyzz_dbl(&next, &r[half - 1]);                                                                \
            EC##_xyzz_to_affine(&p, &next);                                                                    \
        }                                                                                                      \
        EC##_xyzz_batch_to_affine(table, row, n, inv);                                                         \
    }                                                                                                          \
    /* out = sums as interchange bytes; scratch: n affine points and n field elements */                      \
    static void EC##_fb_finish(void *sums_v, size_t n, unsigned char *out, void *scratch_v)                    \
    {                                                                                                          \
        EC##_affine *res = scratch_v;                                                                          \
        EC##_xyzz_batch_to_affine(res, sums_v, n, (F *)(res + n));                                             \
        for (size_t i = 0; i < n; i++)                                                                         \
            EC##_affine_to_mont_bytes(out + i * sizeof(EC##_affine), &res[i]);                                 \
    }

FIXED_BASE_FNS(bn254_g1, bn254_fp)
FIXED_BASE_FNS(bn254_g2, bn254_fq2)
FIXED_BASE_FNS(bls12_381_g1, bls12_381_fp)
FIXED_BASE_FNS(bls12_381_g2, bls12_381_fq2)

static const fb_ops fb_table[2][2] = {
#define FB_OPS(EC, F, BITS) {EC##_fb_build, EC##_fb_finish, sizeof(EC##_affine), sizeof(EC##_xyzz), sizeof(F), BITS}
    {FB_OPS(bn254_g1, bn254_fp, BN254_FR_BITS), FB_OPS(bn254_g2, bn254_fq2, BN254_FR_BITS)},
    {FB_OPS(bls12_381_g1, bls12_381_fp, BLS12_381_FR_BITS), FB_OPS(bls12_381_g2, bls12_381_fq2, BLS12_381_FR_BITS)},
#undef FB_OPS
};

static const fb_ops *ops_of(hpr_curve curve, hpr_group group)
{
    if ((curve != HPR_CURVE_BN254 && curve != HPR_CURVE_BLS12_381) || (group != HPR_G1 && group != HPR_G2))
        return NULL;
    return &fb_table[curve == HPR_CURVE_BLS12_381][group == HPR_G2];
}

static unsigned windows_of(unsigned bits, unsigned w)
{
    return (bits + 1 + w - 1) / w; /* the top window cannot carry out */
}

/* The w that minimises table entries plus additions for n scalars, within [W_MIN, W_MAX]. */
static unsigned width_for(unsigned bits, size_t n)
{
    unsigned best = W_MIN;
    double best_cost = 0;
    for (unsigned w = W_MIN; w <= W_MAX; w++) {
        double cost = (double)windows_of(bits, w) * ((double)n + (double)((size_t)1 << (w - 1)));
        if (w == W_MIN || cost < best_cost) {
            best = w;
            best_cost = cost;
        }
    }
    return best;
}

/* The kernel's form of the affine table (prepare_points of every entry, in order), or NULL
 * where the affine points serve or memory ran out (*fail then set). */
static void *prepare_table(const msm_cpu_kernel *kernel, const void *affine, size_t entries, int *fail)
{
    uint32_t *index = NULL;
    void *prepared = NULL;
    *fail = 0;
    if (!kernel->prepared_size)
        return NULL;
    if (!(index = malloc(entries * sizeof *index)) || !(prepared = malloc(entries * kernel->prepared_size))) {
        *fail = 1;
        goto cleanup;
    }
    for (size_t i = 0; i < entries; i++)
        index[i] = (uint32_t)i;
    kernel->prepare_points(prepared, affine, index, 0, entries);
cleanup:
    free(index);
    return prepared;
}

hpr_status fixed_base_create(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const unsigned char *base,
                             size_t n_hint, fixed_base **out)
{
    const fb_ops *ops = ops_of(curve, group);
    fixed_base *fb = NULL;
    void *scratch = NULL, *prepared = NULL;
    hpr_status st = HPR_OK;
    int fail = 0;
    *out = NULL;
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "fixed-base multiplication: curve %d, group %d unsupported",
                        (int)curve, (int)group);
    unsigned w = width_for(ops->bits, n_hint), windows = windows_of(ops->bits, w);
    size_t entries = (size_t)windows << (w - 1);
    if (!(fb = calloc(1, sizeof *fb)) || !(fb->table = malloc(entries * ops->affine_size)) ||
        !(scratch = malloc(entries * (ops->xyzz_size + ops->field_size)))) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "fixed-base multiplication: no memory for the window table (%zu "
                      "points)", entries);
        goto cleanup;
    }
    fb->ops = ops;
    fb->kernel = msm_kernel_for(msm_ops(curve, group), ctx->cpu_tier);
    fb->w = w;
    fb->windows = windows;
    fb->point_size = ops->affine_size;
    ops->build(fb->table, base, w, windows, scratch);
    if ((prepared = prepare_table(fb->kernel, fb->table, entries, &fail)) != NULL) {
        free(fb->table);
        fb->table = prepared;
        fb->point_size = fb->kernel->prepared_size;
    } else if (fail) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "fixed-base multiplication: no memory for the %s tier's window "
                      "table (%zu points)", fb->kernel->tier, entries);
        goto cleanup;
    }
    *out = fb;
    fb = NULL;
cleanup:
    free(scratch);
    fixed_base_destroy(fb);
    return st;
}

void fixed_base_destroy(fixed_base *fb)
{
    if (!fb)
        return;
    free(fb->table);
    free(fb);
}

size_t fixed_base_table_bytes(const fixed_base *fb)
{
    return ((size_t)fb->windows << (fb->w - 1)) * fb->point_size;
}

typedef struct {
    const fixed_base *fb;
    const uint64_t (*scalars)[4];
    size_t n;
    unsigned char *out;
    unsigned char *scratch; /* per worker: one block's digits, sums, affine points and inverses */
    size_t scratch_bytes;
} fb_job;

/* Scratch of one worker: BLOCK scalars' digits, then BLOCK XYZZ sums, affine points and field
 * elements (fb_ops.finish's), each part aligned for its points. */
static size_t digits_bytes(const fixed_base *fb)
{
    size_t bytes = (size_t)BLOCK * fb->windows * sizeof(int16_t);
    return (bytes + 63) & ~(size_t)63;
}

static size_t block_scratch_bytes(const fixed_base *fb)
{
    const fb_ops *ops = fb->ops;
    return digits_bytes(fb) + BLOCK * (ops->xyzz_size + ops->affine_size + ops->field_size);
}

static void block_task(void *arg, size_t b, unsigned worker)
{
    const fb_job *job = arg;
    const fixed_base *fb = job->fb;
    size_t begin = b * BLOCK, count = job->n - begin < BLOCK ? job->n - begin : BLOCK;
    unsigned char *scratch = job->scratch + worker * job->scratch_bytes;
    int16_t *digits = (int16_t *)scratch;
    void *sums = scratch + digits_bytes(fb);
    for (size_t i = 0; i < count; i++) {
        unsigned carry = 0;
        for (unsigned j = 0; j < fb->windows; j++)
            digits[i * fb->windows + j] = (int16_t)signed_digit(job->scalars[begin + i], j, fb->w, &carry);
    }
    fb->kernel->fixed_base_sums(sums, fb->table, (size_t)1 << (fb->w - 1), digits, fb->windows, count);
    fb->ops->finish(sums, count, job->out + begin * fb->ops->affine_size,
                    (unsigned char *)sums + BLOCK * fb->ops->xyzz_size);
}

hpr_status fixed_base_mul(hpr_ctx *ctx, const fixed_base *fb, const uint64_t (*scalars)[4], size_t n,
                          unsigned char *out)
{
    size_t scratch_bytes = block_scratch_bytes(fb);
    fb_job job = {fb, scalars, n, out, malloc(rt_pool_size(ctx->pool) * scratch_bytes), scratch_bytes};
    if (n && !job.scratch)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "fixed-base multiplication: no memory for %u blocks of %d points",
                        rt_pool_size(ctx->pool), BLOCK);
    if (n)
        rt_pool_run(ctx->pool, (n + BLOCK - 1) / BLOCK, block_task, &job);
    free(job.scratch);
    return HPR_OK;
}

/* ---- hpr_fixed_base_mul ---- */

#define CALL_CHUNK 65536 /* scalars converted to limbs at a time: 2 MiB of limbs */

hpr_status fixed_base_mul_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *base, const void *scalars,
                               size_t n, void *out)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    const unsigned char *in = scalars;
    uint64_t affine[MSM_MAX_AFFINE_BYTES / 8], (*limbs)[4] = NULL;
    static const unsigned char zero[MSM_MAX_AFFINE_BYTES];
    fixed_base *fb = NULL;
    hpr_status st = HPR_OK;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (!base || (n && (!scalars || !out)))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "fixed-base multiplication: base, scalars or out is NULL");
    if ((st = msm_check_scalars(ctx, ops, in, n)) != HPR_OK) /* names the first scalar >= r */
        return st;
    if (memcmp(base, zero, ops->affine_size) == 0) { /* every multiple of infinity is infinity */
        if (n)
            memset(out, 0, n * ops->affine_size);
        return HPR_OK;
    }
    switch (ops->decode_point(affine, base)) {
    case MSM_POINT_OK: break;
    case MSM_POINT_COORD_RANGE: return ctx_fail(ctx, HPR_ERR_COORDINATE_OUT_OF_RANGE, "base: a coordinate is >= p");
    default: return ctx_fail(ctx, HPR_ERR_POINT_NOT_ON_CURVE, "base is not on the %s curve", ops->name);
    }
    if (!ops->in_subgroup(affine))
        return ctx_fail(ctx, HPR_ERR_POINT_NOT_IN_SUBGROUP, "base is not in the prime-order subgroup of %s", ops->name);
    if ((st = fixed_base_create(ctx, curve, group, base, n, &fb)) != HPR_OK)
        return st;
    limbs = malloc((n < CALL_CHUNK ? n : CALL_CHUNK) * sizeof *limbs + 1);
    if (!limbs) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "fixed-base multiplication: no memory for the scalars");
        goto cleanup;
    }
    for (size_t begin = 0; begin < n && st == HPR_OK; begin += CALL_CHUNK) {
        size_t count = n - begin < CALL_CHUNK ? n - begin : CALL_CHUNK;
        memcpy(limbs, in + 32 * begin, 32 * count);
        st = fixed_base_mul(ctx, fb, (const uint64_t(*)[4])limbs, count, (unsigned char *)out + begin * ops->affine_size);
    }
cleanup:
    free(limbs);
    fixed_base_destroy(fb);
    return st;
}
