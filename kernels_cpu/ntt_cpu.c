/*
 * ntt_cpu.c: the portable CPU NTT (ntt_impl.h) for the five fields, and their tables.
 * BN254 Fr and BLS12-381 Fr come from the shared arithmetic (kernels_cl/arith/curves.h, 4x64
 * Montgomery); Goldilocks, BabyBear and KoalaBear from ntt_fields.h.
 */
#include "ntt_cpu.h"
#include "ntt_fields.h"

#include "../kernels_cl/arith/curves.h"

#include <string.h>

/* r = a^e (e: 4 little-endian limbs) by square and multiply, for the fields without pow. */
#define SMALL_POW(F)                                                                                 \
    static void F##_pow4(F##_t *r, const F##_t *a, const uint64_t *e)                                \
    {                                                                                                \
        F##_t acc, base = *a;                                                                        \
        F##_from_canonical(&acc, 1);                                                                 \
        for (int i = 3; i >= 0; i--)                                                                 \
            for (int bit = 63; bit >= 0; bit--) {                                                    \
                F##_mul(&acc, &acc, &acc);                                                           \
                if ((e[i] >> bit) & 1)                                                               \
                    F##_mul(&acc, &acc, &base);                                                      \
            }                                                                                        \
        *r = acc;                                                                                    \
    }

SMALL_POW(gl)
SMALL_POW(bb)
SMALL_POW(kb)

/* The table entries shared by every field: conversions, mul and pow on void pointers. */
#define BIG_FIELD_ENTRIES(FE)                                                                        \
    static void ntt_##FE##_pow(FE *r, const FE *a, const uint64_t *e)                                \
    {                                                                                                \
        FE##_pow_var(r, a, e);                                                                       \
    }                                                                                                \
    static void ntt_##FE##_from_canonical(void *e, const uint64_t *limbs)                            \
    {                                                                                                \
        FE##_to_mont(e, limbs);                                                                      \
    }                                                                                                \
    static void ntt_##FE##_to_canonical(uint64_t *limbs, const void *e)                              \
    {                                                                                                \
        FE##_from_mont(limbs, e);                                                                    \
    }                                                                                                \
    static void ntt_##FE##_mul_v(void *r, const void *a, const void *b)                              \
    {                                                                                                \
        FE##_mul(r, a, b);                                                                           \
    }                                                                                                \
    static void ntt_##FE##_pow_v(void *r, const void *a, const uint64_t *e)                          \
    {                                                                                                \
        FE##_pow_var(r, a, e);                                                                       \
    }

#define SMALL_FIELD_ENTRIES(PFX, F)                                                                  \
    static void PFX##_pow(F##_t *r, const F##_t *a, const uint64_t *e)                               \
    {                                                                                                \
        F##_pow4(r, a, e);                                                                           \
    }                                                                                                \
    static void PFX##_from_canonical(void *e, const uint64_t *limbs)                                 \
    {                                                                                                \
        F##_from_canonical(e, limbs[0]);                                                             \
    }                                                                                                \
    static void PFX##_to_canonical(uint64_t *limbs, const void *e)                                   \
    {                                                                                                \
        limbs[0] = F##_to_canonical(e);                                                              \
        limbs[1] = limbs[2] = limbs[3] = 0;                                                          \
    }                                                                                                \
    static void PFX##_mul_v(void *r, const void *a, const void *b)                                   \
    {                                                                                                \
        F##_mul(r, a, b);                                                                            \
    }                                                                                                \
    static void PFX##_pow_v(void *r, const void *a, const uint64_t *e)                               \
    {                                                                                                \
        F##_pow4(r, a, e);                                                                           \
    }

BIG_FIELD_ENTRIES(bn254_fr)
#define NT_T bn254_fr
#define NT_PFX ntt_bn254_fr
#define NT_ADD bn254_fr_add
#define NT_SUB bn254_fr_sub
#define NT_MUL bn254_fr_mul
#include "ntt_impl.h"

BIG_FIELD_ENTRIES(bls12_381_fr)
#define NT_T bls12_381_fr
#define NT_PFX ntt_bls12_381_fr
#define NT_ADD bls12_381_fr_add
#define NT_SUB bls12_381_fr_sub
#define NT_MUL bls12_381_fr_mul
#include "ntt_impl.h"

SMALL_FIELD_ENTRIES(ntt_gl, gl)
#define NT_T gl_t
#define NT_PFX ntt_gl
#define NT_ADD gl_add
#define NT_SUB gl_sub
#define NT_MUL gl_mul
#include "ntt_impl.h"

SMALL_FIELD_ENTRIES(ntt_bb, bb)
#define NT_T bb_t
#define NT_PFX ntt_bb
#define NT_ADD bb_add
#define NT_SUB bb_sub
#define NT_MUL bb_mul
#include "ntt_impl.h"

SMALL_FIELD_ENTRIES(ntt_kb, kb)
#define NT_T kb_t
#define NT_PFX ntt_kb
#define NT_ADD kb_add
#define NT_SUB kb_sub
#define NT_MUL kb_mul
#include "ntt_impl.h"

static const uint64_t bn254_fr_modulus[4] = BN254_FR_P;
static const uint64_t bls12_381_fr_modulus[4] = BLS12_381_FR_P;
static const uint64_t gl_modulus[4] = {GL_P, 0, 0, 0};
static const uint64_t bb_modulus[4] = {BB_P, 0, 0, 0};
static const uint64_t kb_modulus[4] = {KB_P, 0, 0, 0};

#define NTT_OPS(NAME, LABEL, PFX, CONV, BYTES, ADICITY, GEN, MOD)                                            \
    const ntt_field_ops NAME = {                                                                     \
        .name = LABEL,                                                                               \
        .elem_bytes = BYTES,                                                                         \
        .two_adicity = ADICITY,                                                                      \
        .generator = GEN,                                                                            \
        .modulus = MOD,                                                                              \
        .from_canonical = CONV##_from_canonical,                                                     \
        .to_canonical = CONV##_to_canonical,                                                         \
        .mul = CONV##_mul_v,                                                                         \
        .pow = CONV##_pow_v,                                                                         \
        .twiddles = PFX##_twiddles,                                                                  \
        .dif = PFX##_dif,                                                                            \
        .dit = PFX##_dit,                                                                            \
        .scale = PFX##_scale,                                                                        \
        .bitrev = PFX##_bitrev,                                                                      \
    }

NTT_OPS(ntt_bn254_fr_ops, "bn254-fr", ntt_bn254_fr, ntt_bn254_fr, 32, BN254_FR_TWO_ADICITY, BN254_FR_GENERATOR_INT,
        bn254_fr_modulus);
NTT_OPS(ntt_bls12_381_fr_ops, "bls12-381-fr", ntt_bls12_381_fr, ntt_bls12_381_fr, 32, BLS12_381_FR_TWO_ADICITY,
        BLS12_381_FR_GENERATOR_INT, bls12_381_fr_modulus);
NTT_OPS(ntt_goldilocks_ops, "goldilocks", ntt_gl, ntt_gl, 8, 32, 7, gl_modulus);
NTT_OPS(ntt_babybear_ops, "babybear", ntt_bb, ntt_bb, 4, 27, 31, bb_modulus);
NTT_OPS(ntt_koalabear_ops, "koalabear", ntt_kb, ntt_kb, 4, 24, 3, kb_modulus);
