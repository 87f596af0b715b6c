/*
 * ntt_cpu.c: the portable CPU NTT (ntt_impl.h) for the five fields, their tables, and the
 * choice of table per tier (the others are those of ntt_adx.c, ntt_avx2.c, ntt_avx512.c,
 * ntt_ifma.c and ntt_neon.c).
 * BN254 Fr and BLS12-381 Fr come from the shared arithmetic (arith/curves.h, 4x64
 * Montgomery); Goldilocks, BabyBear and KoalaBear from ntt_fields.h.
 */
#include "ntt_cpu.h"
#include "ntt_field_entries.h"

#include "portable_fe_backend.h"
#include "arith/curves.h"

#include <string.h>

SMALL_FIELDS_COMMON(portable)

#include "ntt_big_fields_impl.h"

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


BIG_FIELD_TABLES(, ntt_bn254_fr_ops, ntt_bls12_381_fr_ops);
NTT_OPS(ntt_goldilocks_ops, "goldilocks", ntt_gl, ntt_gl, 8, 32, 7, portable_gl_modulus);
NTT_OPS(ntt_babybear_ops, "babybear", ntt_bb, ntt_bb, 4, 27, 31, portable_bb_modulus);
NTT_OPS(ntt_koalabear_ops, "koalabear", ntt_kb, ntt_kb, 4, 24, 3, portable_kb_modulus);


const ntt_field_ops *ntt_field_ops_for(int field, rt_cpu_tier tier)
{
    static const ntt_field_ops *const tables[RT_CPU_TIERS][6] = {
        [RT_CPU_PORTABLE] = {NULL, &ntt_bn254_fr_ops, &ntt_bls12_381_fr_ops, &ntt_goldilocks_ops, &ntt_babybear_ops,
                             &ntt_koalabear_ops},
#if HPR_HAVE_ADX
        [RT_CPU_ADX] = {NULL, &ntt_bn254_fr_adx_ops, &ntt_bls12_381_fr_adx_ops},
#endif
#if HPR_HAVE_ADX && HPR_HAVE_AVX2
        [RT_CPU_AVX2] = {NULL, NULL, NULL, &ntt_goldilocks_avx2_ops, &ntt_babybear_avx2_ops, &ntt_koalabear_avx2_ops},
#endif
#if HPR_HAVE_IFMA
        [RT_CPU_AVX512] = {NULL, &ntt_bn254_fr_avx512_ops, &ntt_bls12_381_fr_avx512_ops, &ntt_goldilocks_avx512_ops,
                           &ntt_babybear_avx512_ops, &ntt_koalabear_avx512_ops},
#endif
#if HPR_HAVE_NEON
        [RT_CPU_NEON] = {NULL, NULL, NULL, NULL, &ntt_babybear_neon_ops, &ntt_koalabear_neon_ops},
#endif
    };
    if (field < 1 || field > 5)
        return NULL;
    /* the tier's own kernels, else those of the tier it falls back to (NULL: none of its own) */
    if ((unsigned)tier >= RT_CPU_TIERS)
        tier = RT_CPU_PORTABLE;
    for (;; tier = rt_cpu_tier_fallback(tier))
        if (tables[tier][field] || tier == RT_CPU_PORTABLE)
            return tables[tier][field];
}
