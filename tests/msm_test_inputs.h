/*
 * msm_test_inputs.h: what the MSM suites share: the curves with a naive double-and-add
 * reference, random inputs with the edge matrix laid over them (zero scalars, 1, r-1,
 * all-equal points, P beside -P, infinity), and a checked comparison of one MSM call.
 * Include after test_support.h.
 */
#ifndef TESTS_MSM_TEST_INPUTS_H
#define TESTS_MSM_TEST_INPUTS_H

#include "arith/curves.h"
#include "hyprove.h"
#include "kernels_cpu/msm_cpu.h"

#include <string.h>

#define MAXP 192 /* the largest point: BLS12-381 G2 */

typedef struct {
    const char *name;
    hpr_curve curve;
    hpr_group group;
    size_t point_size;
    const uint64_t *order;
    void (*naive)(unsigned char *out, const unsigned char *points, const unsigned char *scalars, size_t n);
} curve_t;

/* The reference: sum of k_i * P_i, each by double-and-add in Jacobian form. */
#define NAIVE(EC, K)                                                                                          \
    static const uint64_t EC##_order[] = K##_ORDER;                                                          \
    static void EC##_naive(unsigned char *out, const unsigned char *points, const unsigned char *scalars, size_t n) \
    {                                                                                                        \
        EC##_jac acc, t;                                                                                     \
        EC##_affine a;                                                                                       \
        EC##_jac_set_inf(&acc);                                                                              \
        for (size_t i = 0; i < n; i++) {                                                                     \
            msm_scalar k;                                                                                    \
            memcpy(&a, points + i * sizeof a, sizeof a);                                                     \
            msm_scalar_from_bytes(&k, scalars + 32 * i);                                                     \
            EC##_jac_mul_var(&t, &a, k.l);                                                                   \
            EC##_jac_add(&acc, &acc, &t);                                                                    \
        }                                                                                                    \
        EC##_jac_to_affine(&a, &acc);                                                                        \
        memcpy(out, &a, sizeof a);                                                                           \
    }

NAIVE(bn254_g1, BN254_G1)
NAIVE(bls12_381_g1, BLS12_381_G1)
NAIVE(bn254_g2, BN254_G1) /* G2 has the order of G1 */
NAIVE(bls12_381_g2, BLS12_381_G1)

/* G1 first (suites that test G1 only index the first two), then G2. */
static const curve_t curves[] = {
    {"bn254", HPR_CURVE_BN254, HPR_G1, 64, bn254_g1_order, bn254_g1_naive},
    {"bls12-381", HPR_CURVE_BLS12_381, HPR_G1, 96, bls12_381_g1_order, bls12_381_g1_naive},
    {"bn254 G2", HPR_CURVE_BN254, HPR_G2, 128, bn254_g2_order, bn254_g2_naive},
    {"bls12-381 G2", HPR_CURVE_BLS12_381, HPR_G2, 192, bls12_381_g2_order, bls12_381_g2_naive},
};

typedef struct {
    unsigned char *points, *scalars;
    size_t n;
} inputs;

static void set_scalar(unsigned char *s, const uint64_t *k)
{
    msm_scalar m = {{k[0], k[1], k[2], k[3]}};
    msm_scalar_to_bytes(s, &m);
}

static void set_small_scalar(unsigned char *s, uint64_t v)
{
    uint64_t k[4] = {v, 0, 0, 0};
    set_scalar(s, k);
}

static void negate_point(const curve_t *c, unsigned char *out, const unsigned char *in)
{
    if (c->curve == HPR_CURVE_BN254 && c->group == HPR_G1)
        bn254_g1_affine_neg((bn254_g1_affine *)(void *)out, (const bn254_g1_affine *)(const void *)in);
    else if (c->curve == HPR_CURVE_BN254)
        bn254_g2_affine_neg((bn254_g2_affine *)(void *)out, (const bn254_g2_affine *)(const void *)in);
    else if (c->group == HPR_G1)
        bls12_381_g1_affine_neg((bls12_381_g1_affine *)(void *)out, (const bls12_381_g1_affine *)(const void *)in);
    else
        bls12_381_g2_affine_neg((bls12_381_g2_affine *)(void *)out, (const bls12_381_g2_affine *)(const void *)in);
}

/* Random inputs, then the edge matrix laid over them according to pattern bits. */
enum { EDGE_ZEROS = 1, EDGE_ONES = 2, EDGE_R_MINUS_1 = 4, EDGE_EQUAL_POINTS = 8, EDGE_NEG_PAIRS = 16, EDGE_INFINITY = 32 };

/* The edge sets the MSM suites run over: none, pairs of edges, then all of them. */
static const unsigned edge_sets[] = {0, EDGE_ZEROS | EDGE_ONES | EDGE_R_MINUS_1, EDGE_EQUAL_POINTS | EDGE_R_MINUS_1,
                                     EDGE_NEG_PAIRS | EDGE_ONES, EDGE_INFINITY | EDGE_ZEROS, 63};

static inputs make_inputs(hpr_ctx *ctx, const curve_t *c, size_t n, uint64_t seed, unsigned edges)
{
    inputs in = {malloc(n * c->point_size + 1), malloc(n * 32 + 1), n};
    test_rng rng;
    test_rng_init(&rng, seed);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, c->curve, c->group, n, test_seed ^ seed, in.points, in.scalars), HPR_OK);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = in.points + i * c->point_size, *s = in.scalars + 32 * i;
        unsigned pick = (unsigned)(test_rng_next(&rng) % 6);
        if ((edges & EDGE_ZEROS) && pick == 0)
            set_small_scalar(s, 0);
        if ((edges & EDGE_ONES) && pick == 1)
            set_small_scalar(s, 1);
        if ((edges & EDGE_R_MINUS_1) && pick == 2) {
            uint64_t k[4];
            memcpy(k, c->order, sizeof k);
            k[0] -= 1;
            set_scalar(s, k);
        }
        if ((edges & EDGE_EQUAL_POINTS) && i > 0)
            memcpy(p, in.points, c->point_size);
        if ((edges & EDGE_NEG_PAIRS) && (i & 1))
            negate_point(c, p, p - c->point_size);
        if ((edges & EDGE_INFINITY) && pick == 3)
            memset(p, 0, c->point_size);
    }
    return in;
}

static void free_inputs(inputs *in)
{
    free(in->points);
    free(in->scalars);
}

static void expect_msm(hpr_ctx *ctx, const curve_t *c, const inputs *in, const unsigned char *want,
                       const hpr_msm_opts *opts, const char *what)
{
    unsigned char got[MAXP];
    hpr_status st = hpr_msm_ex(ctx, c->curve, c->group, in->points, in->scalars, in->n, got, opts);
    assert_seeded(st == HPR_OK, "%s n=%zu %s: %s (%s)", c->name, in->n, what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    assert_seeded(memcmp(got, want, c->point_size) == 0, "%s n=%zu %s: result differs from the reference (c=%u chunks=%u wpt=%u)",
                  c->name, in->n, what, opts ? opts->window_bits : 0, opts ? opts->point_chunks : 0,
                  opts ? opts->windows_per_tile : 0);
}

#endif
