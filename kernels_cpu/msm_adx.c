/*
 * msm_adx.c: the ADX tier's tile kernels of G1 and G2 of BN254 and BLS12-381: the portable
 * batch-affine kernel (msm_batch_affine_impl.h through msm_cpu_tile_impl.h, XYZZ for small
 * windows) over field multiplication in mulx/adcx/adox inline assembly
 * (fe_adx_gen.h, selected in fe_impl.h by FE_ADX). Nothing here runs unless the dispatch
 * found ADX and BMI2 (CPUID leaf 7).
 */
#include "msm_cpu.h"

#define FE_ADX 1
#include "fe_adx_gen.h"
#include "arith/curves.h"

#define CPU_EC bn254_g1
#define CPU_F bn254_fp
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "adx"
#define CPU_KERNEL msm_bn254_g1_adx_kernel
#include "msm_cpu_tile_impl.h"

#define CPU_EC bls12_381_g1
#define CPU_F bls12_381_fp
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "adx"
#define CPU_KERNEL msm_bls12_381_g1_adx_kernel
#include "msm_cpu_tile_impl.h"

#define CPU_EC bn254_g2
#define CPU_F bn254_fq2
#define CPU_DEGREE 2
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "adx"
#define CPU_KERNEL msm_bn254_g2_adx_kernel
#include "msm_cpu_tile_impl.h"

#define CPU_EC bls12_381_g2
#define CPU_F bls12_381_fq2
#define CPU_DEGREE 2
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "adx"
#define CPU_KERNEL msm_bls12_381_g2_adx_kernel
#include "msm_cpu_tile_impl.h"
