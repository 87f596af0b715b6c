/*
 * random.c: deterministic random MSM inputs (hpr_random_msm_inputs).
 *
 * Points: the input is cut into blocks of BLOCK points; block b starts at s_b * G with s_b
 * drawn from a generator seeded by (seed, b) and continues by adding a second random
 * multiple t_b * G, so one block costs two scalar multiplications and one mixed addition per
 * point, normalised with one shared inversion. Blocks are independent, hence parallel and
 * identical for any thread count. Scalars: uniform in [0, r) by rejection, from (seed, ~0).
 * The generator is xoshiro256** seeded through splitmix64.
 */
#include "host/msm/msm_engine.h"
#include "host/msm/msm_calls.h"

#include "arith/curves.h"

#include <string.h>

#define BLOCK 1024 /* keeps the per-block arrays (BLS12-381: 350 KiB) well inside a thread stack */

typedef struct {
    uint64_t s[4];
} rng_state;

uint64_t msm_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng_state *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = msm_splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng_state *r)
{
    uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform 4-limb integer in [0, order), order of bit length bits. */
static void random_below(uint64_t *k, rng_state *r, const uint64_t *order, unsigned bits)
{
    for (;;) {
        for (int i = 0; i < 4; i++)
            k[i] = rng_next(r);
        if (bits < 256)
            k[bits / 64] &= (((uint64_t)1) << (bits % 64)) - 1;
        for (unsigned i = bits / 64 + 1; i < 4; i++)
            k[i] = 0;
        int below = 0;
        for (int i = 3; i >= 0; i--)
            if (k[i] != order[i]) {
                below = k[i] < order[i];
                break;
            }
        if (below)
            return;
    }
}

#define RANDOM_BLOCK_FN(EC, F, ORDER_CONST, BITS)                                                              \
    static void EC##_random_block(unsigned char *out, size_t count, uint64_t seed, uint64_t block)            \
    {                                                                                                        \
        const uint64_t order[4] = ORDER_CONST;                                                               \
        EC##_xyzz xs[BLOCK];                                                                                 \
        EC##_affine as[BLOCK];                                                                               \
        F scratch[BLOCK];                                                                                    \
        EC##_affine g, step;                                                                                 \
        EC##_jac j;                                                                                          \
        uint64_t k[4];                                                                                       \
        rng_state r;                                                                                         \
        rng_seed(&r, seed, block);                                                                           \
        EC##_affine_generator(&g);                                                                           \
        random_below(k, &r, order, BITS);                                                                    \
        EC##_jac_mul_var(&j, &g, k);                                                                         \
        EC##_jac_to_affine(&step, &j);                                                                       \
        random_below(k, &r, order, BITS);                                                                    \
        EC##_jac_mul_var(&j, &g, k);                                                                         \
        EC##_jac_to_affine(&as[0], &j);                                                                      \
        EC##_xyzz_from_affine(&xs[0], &as[0]);                                                               \
        for (size_t i = 1; i < count; i++)                                                                   \
            EC##_xyzz_add_affine(&xs[i], &xs[i - 1], &step);                                                 \
        EC##_xyzz_batch_to_affine(as, xs, count, scratch);                                                   \
        memcpy(out, as, count * sizeof(EC##_affine));                                                        \
    }

RANDOM_BLOCK_FN(bn254_g1, bn254_fp, BN254_G1_ORDER, BN254_FR_BITS)
RANDOM_BLOCK_FN(bls12_381_g1, bls12_381_fp, BLS12_381_G1_ORDER, BLS12_381_FR_BITS)
RANDOM_BLOCK_FN(bn254_g2, bn254_fq2, BN254_G1_ORDER, BN254_FR_BITS)
RANDOM_BLOCK_FN(bls12_381_g2, bls12_381_fq2, BLS12_381_G1_ORDER, BLS12_381_FR_BITS)

typedef struct {
    hpr_curve curve;
    hpr_group group;
    size_t n, point_size;
    uint64_t seed;
    unsigned char *points;
} random_job;

static void random_points_task(void *arg, size_t block, unsigned worker)
{
    random_job *job = arg;
    size_t begin = block * BLOCK, count = job->n - begin < BLOCK ? job->n - begin : BLOCK;
    unsigned char *out = job->points + begin * job->point_size;
    (void)worker;
    if (job->curve == HPR_CURVE_BN254 && job->group == HPR_G1)
        bn254_g1_random_block(out, count, job->seed, block);
    else if (job->curve == HPR_CURVE_BN254)
        bn254_g2_random_block(out, count, job->seed, block);
    else if (job->group == HPR_G1)
        bls12_381_g1_random_block(out, count, job->seed, block);
    else
        bls12_381_g2_random_block(out, count, job->seed, block);
}

hpr_status random_msm_inputs_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, size_t n, unsigned long long seed,
                                  void *points, void *scalars)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (n > UINT32_MAX) /* as hpr_msm: more could not be used, and n * the point size could wrap */
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu is too large (at most 2^32 - 1 points)", n);
    if (points) {
        random_job job = {curve, group, n, ops->affine_size, seed, points};
        rt_pool_run(ctx->pool, (n + BLOCK - 1) / BLOCK, random_points_task, &job);
    }
    if (scalars) {
        rng_state r;
        unsigned char *out = scalars;
        rng_seed(&r, seed, ~(uint64_t)0);
        for (size_t i = 0; i < n; i++) {
            msm_scalar k;
            random_below(k.l, &r, ops->order, ops->scalar_bits);
            msm_scalar_to_bytes(out + 32 * i, &k);
        }
    }
    return HPR_OK;
}
