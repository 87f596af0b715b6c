/*
 * groth16_h.c: the scalars of the Groth16 H multi-exponentiation (FORMATS.md section 5,
 * steps 1-3), from a parsed .zkey and a witness: the first NTT-heavy half of the prover
 * (issue 7). The G2 arithmetic and the proof assembly are not written yet.
 *
 * 1. a[row] = sum over the A entries of value * w[signal], b likewise. A stored value is
 *    coef * R^2 mod r ("double Montgomery") and w is in normal form, so one Montgomery
 *    multiplication of the raw limbs gives coef * w * R: the Montgomery form of coef * w.
 *    c[row] = a[row] * b[row].
 * 2. a, b, c: inverse NTT over w_n, then the coset NTT with shift g = w_2n (one batch of
 *    three columns each time, hpr_ntt), with snarkjs's roots: generator 5 for both curves.
 * 3. h[i] = a'[i] * b'[i] - c'[i], canonical little-endian.
 * No division by Z: A*B - C has degree < 2n and the H points are the odd Lagrange basis of
 * the 2n domain, so its values on the odd coset are the scalars themselves.
 */
#include "groth16_h.h"

#include "../kernels_cl/arith/curves.h"
#include "../runtime/rt_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNARKJS_GENERATOR "5"

/* Steps 1 and 3 per curve (FE: the scalar field type). abc: three columns of n canonical
 * elements; h: n canonical elements. */
#define GROTH16_STEPS(FE)                                                                            \
    static void FE##_accumulate(const hpr_zkey *zk, const unsigned char *w, unsigned char *abc)      \
    {                                                                                                \
        size_t n = zk->domain_size, entry = 12 + (size_t)zk->n8r;                                    \
        FE *acc = (FE *)(void *)abc; /* a then b, Montgomery; c after them */                        \
        for (size_t i = 0; i < 2 * n; i++)                                                           \
            FE##_set_zero(&acc[i]);                                                                  \
        for (uint32_t k = 0; k < zk->n_coef; k++) {                                                  \
            const unsigned char *e = zk->coef + k * entry;                                           \
            uint64_t v[4], x[4];                                                                     \
            FE value, wit, t;                                                                        \
            uint32_t matrix = le32(e), row = le32(e + 4), signal = le32(e + 8);                      \
            memcpy(v, e + 12, 32);                                                                   \
            memcpy(x, w + (size_t)signal * 32, 32);                                                  \
            FE##_set_limbs(&value, v);                                                               \
            FE##_set_limbs(&wit, x);                                                                 \
            FE##_mul(&t, &value, &wit);                                                              \
            FE##_add(&acc[matrix * n + row], &acc[matrix * n + row], &t);                            \
        }                                                                                            \
        for (size_t i = 0; i < n; i++) {                                                             \
            uint64_t l[4];                                                                           \
            FE c;                                                                                    \
            FE##_mul(&c, &acc[i], &acc[n + i]);                                                      \
            FE##_from_mont(l, &c);                                                                   \
            memcpy(abc + (2 * n + i) * 32, l, 32);                                                   \
        }                                                                                            \
        for (size_t i = 0; i < 2 * n; i++) {                                                         \
            uint64_t l[4];                                                                           \
            FE##_from_mont(l, &acc[i]);                                                              \
            memcpy(abc + i * 32, l, 32);                                                             \
        }                                                                                            \
    }                                                                                                \
    static void FE##_combine(size_t n, const unsigned char *abc, unsigned char *h)                   \
    {                                                                                                \
        for (size_t i = 0; i < n; i++) {                                                             \
            uint64_t l[4];                                                                           \
            FE a, b, c;                                                                              \
            memcpy(l, abc + i * 32, 32);                                                             \
            FE##_to_mont(&a, l);                                                                     \
            memcpy(l, abc + (n + i) * 32, 32);                                                       \
            FE##_to_mont(&b, l);                                                                     \
            memcpy(l, abc + (2 * n + i) * 32, 32);                                                   \
            FE##_to_mont(&c, l);                                                                     \
            FE##_mul(&a, &a, &b);                                                                    \
            FE##_sub(&a, &a, &c);                                                                    \
            FE##_from_mont(l, &a);                                                                   \
            memcpy(h + i * 32, l, 32);                                                               \
        }                                                                                            \
    }                                                                                                \
    static void FE##_coset_shift(unsigned log_2n, char *dec)                                         \
    {                                                                                                \
        static const uint64_t p[4] = FE##_MODULUS;                                                   \
        uint64_t e[4], l[4];                                                                         \
        FE g, wn;                                                                                    \
        memcpy(e, p, sizeof e);                                                                      \
        e[0] -= 1;                                                                                   \
        for (unsigned k = 0; k < log_2n; k++)                                                        \
            for (int i = 0; i < 4; i++)                                                              \
                e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);                                   \
        FE##_set_u64(&g, 5);                                                                         \
        FE##_pow_var(&wn, &g, e);                                                                    \
        FE##_from_mont(l, &wn);                                                                      \
        hpr_dec_from_limbs(dec, l, 4);                                                               \
    }

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define bn254_fr_MODULUS BN254_FR_P
#define bls12_381_fr_MODULUS BLS12_381_FR_P
GROTH16_STEPS(bn254_fr)
GROTH16_STEPS(bls12_381_fr)

hpr_status hpr_groth16_h(hpr_ctx *ctx, const hpr_zkey *zk, const unsigned char *w, unsigned char *h,
                         const char *device)
{
    size_t n = zk->domain_size;
    unsigned log_n = 0;
    char shift[96];
    hpr_field field = zk->curve == HPR_CURVE_BN254 ? HPR_FIELD_BN254_FR : HPR_FIELD_BLS12_381_FR;
    unsigned char *abc = rt_alloc_large(3 * n * 32);
    hpr_status st;
    if (!abc)
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for 3 x %zu evaluations", n);
    while (((size_t)1 << log_n) < n)
        log_n++;
    if (zk->curve == HPR_CURVE_BN254) {
        bn254_fr_accumulate(zk, w, abc);
        bn254_fr_coset_shift(log_n + 1, shift);
    } else {
        bls12_381_fr_accumulate(zk, w, abc);
        bls12_381_fr_coset_shift(log_n + 1, shift);
    }
    hpr_ntt_opts inverse = {1, HPR_NTT_NN, NULL, SNARKJS_GENERATOR, 3, 0, device};
    hpr_ntt_opts coset = {0, HPR_NTT_NN, shift, SNARKJS_GENERATOR, 3, 0, device};
    if ((st = hpr_ntt(ctx, field, log_n, abc, &inverse)) == HPR_OK &&
        (st = hpr_ntt(ctx, field, log_n, abc, &coset)) == HPR_OK) {
        if (zk->curve == HPR_CURVE_BN254)
            bn254_fr_combine(n, abc, h);
        else
            bls12_381_fr_combine(n, abc, h);
    }
    free(abc);
    return st;
}
