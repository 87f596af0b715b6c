/*
 * ntt_ifma.c: the avx512 tier's NTT for BN254 Fr and BLS12-381 Fr: eight butterflies at once
 * in 52-bit limbs with AVX-512 IFMA (ntt_ifma_impl.h over the 8-lane arithmetic of
 * ifma_fe_impl.h), and the fields' avx512 tables (ntt_bn254_fr_avx512_ops, ...), whose other
 * entries (conversions, bit reversal) and the fallbacks of the IFMA kernels (sizes below a
 * vector group) are the portable code of ntt_impl.h, instantiated here as ntt_avx512.c does
 * for the small fields: this unit depends on no other NTT unit. The only NTT unit of the
 * 256-bit fields built with AVX-512 flags.
 */
#include "ntt_cpu.h"
#include "ntt_field_entries.h"
#include "runtime/base/rt_mem.h"

#include "arith/curves.h"

#include <stdlib.h>
#include <string.h>

#define IF_T bn254_fr8
#define IF_N 5
#define IF_K BN254_FR
#include "ifma_fe_impl.h"

#define IF_T bls12_381_fr8
#define IF_N 5
#define IF_K BLS12_381_FR
#include "ifma_fe_impl.h"

/* The portable NTT of the two fields (the IFMA kernels' fallbacks and table entries). */
#include "ntt_big_fields_impl.h"

BIG_FIELD_TABLES(static, bn254_fr_portable, bls12_381_fr_portable);

#define NI_PFX ntt_bn254_fr_ifma
#define NI_F8 bn254_fr8
#define NI_K BN254_FR
#define NI_PORTABLE bn254_fr_portable
#include "ntt_ifma_impl.h"

#define NI_PFX ntt_bls12_381_fr_ifma
#define NI_F8 bls12_381_fr8
#define NI_K BLS12_381_FR
#define NI_PORTABLE bls12_381_fr_portable
#include "ntt_ifma_impl.h"

#define IFMA_OPS(NAME, LABEL, F, ADICITY, GEN)                                                       \
    NTT_OPS_KERNELS(NAME, LABEL, ntt_##F, ntt_##F, 32, ADICITY, GEN, F##_modulus, ntt_##F##_ifma_dif,             \
                    ntt_##F##_ifma_dit, ntt_##F##_ifma_scale, ntt_##F##_ifma_kernel_twiddles, \
                    sizeof(F##8) / 8)
IFMA_OPS(ntt_bn254_fr_avx512_ops, "bn254-fr", bn254_fr, BN254_FR_TWO_ADICITY, BN254_FR_GENERATOR_INT);
IFMA_OPS(ntt_bls12_381_fr_avx512_ops, "bls12-381-fr", bls12_381_fr, BLS12_381_FR_TWO_ADICITY,
         BLS12_381_FR_GENERATOR_INT);
