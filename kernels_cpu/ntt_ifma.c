/*
 * ntt_ifma.c: the avx512 tier's NTT butterflies for BN254 Fr and BLS12-381 Fr: eight
 * butterflies at once in 52-bit limbs with AVX-512 IFMA (ntt_ifma_impl.h over the 8-lane
 * arithmetic of ifma_fe_impl.h). The only NTT unit of the 256-bit fields built with
 * AVX-512 flags; ntt_cpu.c puts these entries in the fields' avx512 tables, whose other
 * entries (conversions, scaling, bit reversal) are the portable ones.
 */
#include "ntt_cpu.h"
#include "../runtime/rt_mem.h"

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

#define NI_PFX ntt_bn254_fr_ifma
#define NI_F8 bn254_fr8
#define NI_K BN254_FR
#define NI_PORTABLE ntt_bn254_fr_ops
#include "ntt_ifma_impl.h"

#define NI_PFX ntt_bls12_381_fr_ifma
#define NI_F8 bls12_381_fr8
#define NI_K BLS12_381_FR
#define NI_PORTABLE ntt_bls12_381_fr_ops
#include "ntt_ifma_impl.h"
