/*
 * msm_ifma.c: the AVX-512 IFMA tile kernels of G1 and G2 of BN254 and BLS12-381
 * (msm_ifma_impl.h, on the 8-lane arithmetic of ifma_fe_impl.h and, for G2, its Fq2 in
 * ifma_fe2_impl.h). This translation unit alone is compiled with
 * -mavx512f -mavx512ifma; nothing here runs unless the dispatch found both (CPUID and XCR0).
 */
#include "msm_cpu.h"

#include <stdlib.h>
#include <string.h>

/* The scalar parts (side accumulators, bucket reduction) use the ADX multiplication: the
 * avx512 tier requires ADX and BMI2 too. */
#define FE_ADX 1
#include "fe_adx_gen.h"
#include "arith/curves.h"

#define BATCH_SIZE 2048 /* additions sharing one inversion; a multiple of 8 */
#define CHAINS 4        /* interleaved running products of the batch inversion */
#define OVERFLOW_SIZE 4096 /* points of crowded buckets summed pairwise at a time */
#define MIN_PAIRS 64       /* below this, a round's inversion costs more than scalar additions */
enum { FLUSH_POINTS, FLUSH_TMP_INTO_BUCKETS, FLUSH_PAIRS }; /* operands of a flush */
#define BUCKET_FULL 1u
#define BUCKET_SIDE 2u

#define IF_T bn254_fp8
#define IF_N 5
#define IF_K BN254_FP
#define IF_SCALAR bn254_fp
#define IF_SCALAR_CONST(c) BN254_FP_##c
#define IF_N64 4
#include "ifma_fe_impl.h"

#define IF_T bls12_381_fp8
#define IF_N 8
#define IF_K BLS12_381_FP
#define IF_SCALAR bls12_381_fp
#define IF_SCALAR_CONST(c) BLS12_381_FP_##c
#define IF_N64 6
#include "ifma_fe_impl.h"

#define IF2_T bn254_fq2x8
#define IF2_B bn254_fp8
#define IF2_N 5
#define IF2_K BN254_FP
#include "ifma_fe2_impl.h"

#define IF2_T bls12_381_fq2x8
#define IF2_B bls12_381_fp8
#define IF2_N 8
#define IF2_K BLS12_381_FP
#include "ifma_fe2_impl.h"

#define MI_EC bn254_g1
#define MI_F bn254_fp
#define MI_CURVE_B BN254_G1_B
#define MI_F8 bn254_fp8
#define MI_N 5
#define MI_N64 4
#define MI_IFMA_P BN254_FP_IFMA_P
#define MI_IFMA_K(c) BN254_FP_IFMA_##c
#include "msm_ifma_impl.h"

#define MI_EC bls12_381_g1
#define MI_F bls12_381_fp
#define MI_CURVE_B BLS12_381_G1_B
#define MI_F8 bls12_381_fp8
#define MI_N 8
#define MI_N64 6
#define MI_IFMA_P BLS12_381_FP_IFMA_P
#define MI_IFMA_K(c) BLS12_381_FP_IFMA_##c
#include "msm_ifma_impl.h"

#define MI_EC bn254_g2
#define MI_F bn254_fq2
#define MI_CURVE_B BN254_G2_B
#define MI_F8 bn254_fq2x8
#define MI_DEG 2
#define MI_N 5
#define MI_N64 4
#define MI_IFMA_P BN254_FP_IFMA_P
#define MI_IFMA_K(c) BN254_FP_IFMA_##c
#include "msm_ifma_impl.h"

#define MI_EC bls12_381_g2
#define MI_F bls12_381_fq2
#define MI_CURVE_B BLS12_381_G2_B
#define MI_F8 bls12_381_fq2x8
#define MI_DEG 2
#define MI_N 8
#define MI_N64 6
#define MI_IFMA_P BLS12_381_FP_IFMA_P
#define MI_IFMA_K(c) BLS12_381_FP_IFMA_##c
#include "msm_ifma_impl.h"

/* n52: 52-bit words of one coordinate (base limbs times the degree) */
#define IFMA_KERNEL(curve, n52, base_n52)                                                                    \
    const msm_cpu_kernel msm_##curve##_ifma_kernel = {                                             \
        .tier = "avx512",                                                                          \
        .prepared_size = 2 * (n52) * sizeof(uint64_t),                                            \
        .prepare_points = curve##_ifma_prepare_points,                                             \
        .scratch_size = curve##_ifma_scratch_size,                                                 \
        .tile = curve##_ifma_tile,                                                                 \
        .window_cost = curve##_ifma_window_cost,                                                   \
        .field_op = curve##_ifma_field_op,                                                         \
        .check_points = curve##_ifma_check_points,                                                 \
        .shift_points = curve##_ifma_shift_points,                                                 \
        .sum_points = curve##_ifma_sum_points,                                                     \
        .fixed_base_sums = curve##_ifma_fixed_base_sums,                                           \
        .mont_bits = 52 * (base_n52),                                                              \
    }

IFMA_KERNEL(bn254_g1, 5, 5);
IFMA_KERNEL(bls12_381_g1, 8, 8);
IFMA_KERNEL(bn254_g2, 10, 5);
IFMA_KERNEL(bls12_381_g2, 16, 8);
