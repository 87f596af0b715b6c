/*
 * ntt_field_entries.h: what every NTT unit (ntt_cpu.c, ntt_avx512.c, ntt_ifma.c) instantiates per field:
 * pow over a 4-limb exponent, the void-pointer entries of ntt_field_ops, and the table itself.
 */
#ifndef KERNELS_CPU_NTT_FIELD_ENTRIES_H
#define KERNELS_CPU_NTT_FIELD_ENTRIES_H

#include "ntt_cpu.h"
#include "ntt_fields.h"

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

/* What every unit with a small field's NTT needs: pow and the modulus
 * PFX_F_modulus (4 limbs, for ntt_field_ops); SMALL_FIELDS_COMMON: the three fields'. */
#define SMALL_FIELD_COMMON(PFX, F, P)                                                                \
    SMALL_POW(F)                                                                                     \
    static const uint64_t PFX##_##F##_modulus[4] = {P, 0, 0, 0};
#define SMALL_FIELDS_COMMON(PFX)                                                                     \
    SMALL_FIELD_COMMON(PFX, gl, GL_P)                                                                \
    SMALL_FIELD_COMMON(PFX, bb, BB_P)                                                                \
    SMALL_FIELD_COMMON(PFX, kb, KB_P)

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

#define NTT_OPS(NAME, LABEL, PFX, CONV, BYTES, ADICITY, GEN, MOD)                                    \
    NTT_OPS_KERNELS(NAME, LABEL, PFX, CONV, BYTES, ADICITY, GEN, MOD, PFX##_dif, PFX##_dit, PFX##_scale, NULL, 0)

/* The same with the butterflies (and their twiddle table) and the scaling of another unit. */
#define NTT_OPS_KERNELS(NAME, LABEL, PFX, CONV, BYTES, ADICITY, GEN, MOD, DIF, DIT, SCALE, KTW, KTWB) \
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
        .dif = DIF,                                                                                  \
        .dit = DIT,                                                                                  \
        .scale = SCALE,                                                                              \
        .bitrev = PFX##_bitrev,                                                                      \
        .kernel_twiddles = KTW,                                                                      \
        .kernel_twiddle_bytes = KTWB,                                                                \
    }

#endif
