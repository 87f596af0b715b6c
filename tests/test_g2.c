/*
 * test_g2.c: Fq2 and G2 (arith/fe2_impl.h through ec_impl.h) for BN254 and
 * BLS12-381: Fq2 identities on random elements (Karatsuba against the schoolbook product,
 * squaring, inversion, u^2 = -1); the generators on the twists and in the subgroup
 * ([r]G = O); the group laws (aG + bG = (a+b)G, doubling = adding, mixed = full, XYZZ =
 * Jacobian); and the snarkjs fixtures: gamma2 is the generator, the verification-key points
 * are on the twist and in the subgroup, and the naive B2 multi-exponentiation of the
 * witness equals snarkjs's msm_B2.
 */
#include "test_support.h"

#include "arith/curves.h"
#include "host/core/decimal.h"
#include "host/groth16/zkey.h"

#include <string.h>

/* The per-curve checks, instantiated for both curves: FQ the base field, FQ2, G2, N limbs. */
#define G2_CHECKS(FQ, FQ2, G2, N, CURVE_ID)                                                          \
    static void FQ2##_random(FQ2 *r, test_rng *rng)                                                  \
    {                                                                                                \
        uint64_t l[N];                                                                               \
        for (int c = 0; c < 2; c++) {                                                                \
            for (int i = 0; i < N; i++)                                                              \
                l[i] = test_rng_next(rng);                                                           \
            l[N - 1] >>= 4; /* below p for both moduli */                                           \
            FQ##_to_mont(c ? &r->c1 : &r->c0, l);                                                    \
        }                                                                                            \
    }                                                                                                \
    static void FQ2##_identities(test_rng *rng)                                                      \
    {                                                                                                \
        FQ2 a, b, c, t, s, one, u, m1;                                                               \
        FQ2##_set_one(&one);                                                                         \
        FQ2##_set_zero(&u);                                                                          \
        FQ##_set_one(&u.c1);                                                                         \
        FQ2##_sqr(&t, &u);                                                                           \
        FQ2##_neg(&m1, &one);                                                                        \
        ck_assert(FQ2##_eq(&t, &m1)); /* u^2 = -1 */                                                 \
        for (int k = 0; k < 200; k++) {                                                              \
            FQ2##_random(&a, rng);                                                                   \
            FQ2##_random(&b, rng);                                                                   \
            FQ2##_random(&c, rng);                                                                   \
            FQ v0, v1;                                                                               \
            FQ##_mul(&v0, &a.c0, &b.c0); /* schoolbook: a0 b0 - a1 b1, a0 b1 + a1 b0 */              \
            FQ##_mul(&v1, &a.c1, &b.c1);                                                             \
            FQ##_sub(&s.c0, &v0, &v1);                                                               \
            FQ##_mul(&v0, &a.c0, &b.c1);                                                             \
            FQ##_mul(&v1, &a.c1, &b.c0);                                                             \
            FQ##_add(&s.c1, &v0, &v1);                                                               \
            FQ2##_mul(&t, &a, &b);                                                                   \
            ck_assert_msg(FQ2##_eq(&t, &s), SEED_FMT "Karatsuba differs (round %d)", test_seed, k);   \
            FQ2##_sqr(&t, &a);                                                                       \
            FQ2##_mul(&s, &a, &a);                                                                   \
            ck_assert(FQ2##_eq(&t, &s));                                                             \
            FQ2##_mul(&t, &a, &b);                                                                   \
            FQ2##_mul(&t, &t, &c);                                                                   \
            FQ2##_mul(&s, &b, &c);                                                                   \
            FQ2##_mul(&s, &a, &s);                                                                   \
            ck_assert(FQ2##_eq(&t, &s));                                                             \
            ck_assert_int_eq(FQ2##_inv(&t, &a), 1);                                                  \
            FQ2##_mul(&t, &t, &a);                                                                   \
            ck_assert(FQ2##_eq(&t, &one));                                                           \
        }                                                                                            \
        FQ2##_set_zero(&a);                                                                          \
        ck_assert_int_eq(FQ2##_inv(&t, &a), 0);                                                      \
    }                                                                                                \
    static void G2##_laws(test_rng *rng)                                                             \
    {                                                                                                \
        G2##_affine g, pa, pb;                                                                       \
        G2##_jac ja, jb, jab, t;                                                                     \
        G2##_xyzz xa, xb;                                                                            \
        G2##_affine_generator(&g);                                                                   \
        ck_assert(G2##_affine_on_curve(&g));                                                         \
        ck_assert(G2##_affine_in_subgroup_var(&g));                                                  \
        for (int k = 0; k < 8; k++) {                                                                \
            uint64_t a[4] = {test_rng_next(rng) >> 1, 0, 0, 0}, b[4] = {test_rng_next(rng) >> 1, 0, 0, 0}; \
            uint64_t ab[4] = {a[0] + b[0], 0, 0, 0};                                                 \
            G2##_jac_mul_var(&ja, &g, a);                                                            \
            G2##_jac_mul_var(&jb, &g, b);                                                            \
            G2##_jac_mul_var(&jab, &g, ab);                                                          \
            G2##_jac_to_affine(&pa, &ja);                                                            \
            G2##_jac_to_affine(&pb, &jb);                                                            \
            ck_assert(G2##_affine_on_curve(&pa) && G2##_affine_in_subgroup_var(&pa));                \
            G2##_jac_add(&t, &ja, &jb);                                                              \
            G2##_affine_generator(&g);                                                               \
            G2##_affine r1, r2;                                                                      \
            G2##_jac_to_affine(&r1, &t);                                                             \
            G2##_jac_to_affine(&r2, &jab);                                                           \
            ck_assert_msg(G2##_affine_eq(&r1, &r2), SEED_FMT "aG + bG != (a+b)G", test_seed);         \
            G2##_jac_add_affine(&t, &ja, &pb); /* mixed = full */                                    \
            G2##_jac_to_affine(&r1, &t);                                                             \
            ck_assert(G2##_affine_eq(&r1, &r2));                                                     \
            G2##_xyzz_from_affine(&xa, &pa);                                                         \
            G2##_xyzz_from_affine(&xb, &pb);                                                         \
            G2##_xyzz_add(&xa, &xa, &xb); /* XYZZ = Jacobian */                                      \
            G2##_xyzz_to_affine(&r1, &xa);                                                           \
            ck_assert(G2##_affine_eq(&r1, &r2));                                                     \
            G2##_jac_dbl(&t, &ja); /* doubling = adding to itself */                                 \
            G2##_jac_add(&jb, &ja, &ja);                                                             \
            G2##_jac_to_affine(&r1, &t);                                                             \
            G2##_jac_to_affine(&r2, &jb);                                                            \
            ck_assert(G2##_affine_eq(&r1, &r2));                                                     \
        }                                                                                            \
    }                                                                                                \
    /* decimal Fq -> Montgomery element */                                                           \
    static void FQ##_from_dec(FQ *r, const char *dec)                                                \
    {                                                                                                \
        uint64_t l[N];                                                                               \
        ck_assert_int_eq(dec_to_limbs(l, N, dec), 0);                                            \
        FQ##_to_mont(r, l);                                                                          \
    }                                                                                                \
    static void G2##_fixture(const char *fixture)                                                    \
    {                                                                                                \
        hpr_ctx *ctx;                                                                                \
        zkey_file zk;                                                                                 \
        wtns_data w;                                                                                  \
        G2##_affine g, p, want, got;                                                                 \
        G2##_jac acc, t;                                                                             \
        char dec[4][200];                                                                            \
        file_buf z = read_fixture(fixture, "circuit.zkey"), wt = read_fixture(fixture, "witness.wtns"); \
        char *ref = read_fixture_text(fixture, "reference_r0s0.json");                               \
        ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);                                        \
        ck_assert_int_eq(zkey_parse(ctx, z.data, z.len, fixture, &zk), HPR_OK);                  \
        ck_assert_int_eq((int)zk.curve, CURVE_ID);                                                   \
        ck_assert_int_eq(wtns_parse(ctx, wt.data, wt.len, fixture, &zk, &w), HPR_OK);            \
        G2##_affine_generator(&g);                                                                   \
        ck_assert_msg(memcmp(zk.gamma2, &g, sizeof g) == 0, "%s: gamma2 is not the generator", fixture); \
        const unsigned char *vk[] = {zk.beta2, zk.delta2};                                           \
        for (int i = 0; i < 2; i++) {                                                                \
            memcpy(&p, vk[i], sizeof p);                                                             \
            ck_assert(G2##_affine_on_curve(&p) && G2##_affine_in_subgroup_var(&p));                  \
        }                                                                                            \
        G2##_jac_set_inf(&acc);                                                                      \
        for (uint32_t i = 0; i < zk.n_vars; i++) {                                                   \
            uint64_t k[4];                                                                           \
            memcpy(&p, zk.b2 + (size_t)i * sizeof p, sizeof p);                                      \
            ck_assert(G2##_affine_on_curve(&p));                                                     \
            memcpy(k, w.values + (size_t)i * 32, 32);                                                \
            G2##_jac_mul_var(&t, &p, k);                                                             \
            G2##_jac_add(&acc, &acc, &t);                                                            \
        }                                                                                            \
        G2##_jac_to_affine(&got, &acc);                                                              \
        for (unsigned i = 0; i < 4; i++)                                                             \
            reference_string(ref, "msm_B2", i, dec[i]);                                              \
        FQ##_from_dec(&want.x.c0, dec[0]);                                                           \
        FQ##_from_dec(&want.x.c1, dec[1]);                                                           \
        FQ##_from_dec(&want.y.c0, dec[2]);                                                           \
        FQ##_from_dec(&want.y.c1, dec[3]);                                                           \
        ck_assert_msg(G2##_affine_eq(&got, &want), "%s: the B2 multi-exponentiation differs from snarkjs", \
                      fixture);                                                                      \
        wtns_free(&w);                                                                           \
        free(z.data);                                                                                \
        free(wt.data);                                                                               \
        free(ref);                                                                                   \
        hpr_ctx_destroy(ctx);                                                                        \
    }

G2_CHECKS(bn254_fp, bn254_fq2, bn254_g2, 4, HPR_CURVE_BN254)
G2_CHECKS(bls12_381_fp, bls12_381_fq2, bls12_381_g2, 6, HPR_CURVE_BLS12_381)

START_TEST(fq2_identities)
{
    test_rng rng;
    test_rng_init(&rng, 20 + (uint64_t)_i);
    if (_i == 0)
        bn254_fq2_identities(&rng);
    else
        bls12_381_fq2_identities(&rng);
}
END_TEST

START_TEST(g2_group_laws)
{
    test_rng rng;
    test_rng_init(&rng, 30 + (uint64_t)_i);
    if (_i == 0)
        bn254_g2_laws(&rng);
    else
        bls12_381_g2_laws(&rng);
}
END_TEST

/* _i: 0 edge_pub, 1 edge_nopub, 2 bn128_2e10 (BN254), 3 bls12381_2e12 */
START_TEST(g2_fixtures_match_snarkjs)
{
    static const char *names[] = {"edge_pub", "edge_nopub", "bn128_2e10", "bls12381_2e12"};
    if (_i < 3)
        bn254_g2_fixture(names[_i]);
    else
        bls12_381_g2_fixture(names[_i]);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("g2");
    TCase *tc = tcase_create("g2");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, fq2_identities, 0, 2);
    tcase_add_loop_test(tc, g2_group_laws, 0, 2);
    tcase_add_loop_test(tc, g2_fixtures_match_snarkjs, 0, 4);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
