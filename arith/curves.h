/*
 * curves.h: the instantiations of the shared arithmetic. Host C includes this file; the
 * OpenCL program is built from the same text (fe_impl.h and ec_impl.h expanded per field).
 *
 * Fields: bn254_fp, bn254_fr (4 limbs), bls12_381_fp (6 limbs), bls12_381_fr (4 limbs).
 * Curves: bn254_g1 over bn254_fp, bls12_381_g1 over bls12_381_fp; scalars have 4 limbs.
 * G2: bn254_fq2 / bls12_381_fq2 (fe2_impl.h) and the twists bn254_g2 / bls12_381_g2 over
 * them, from the same ec_impl.h; in OpenCL only where ARITH_CL_G2 is defined (the G2 MSM
 * programs: kernels_cl/curve_select.h).
 * ARITH_CURVES_ONLY (1 = BN254, 2 = BLS12-381), when defined, instantiates that curve alone
 * (an OpenCL program is built per curve: kernels_cl/curve_select.h).
 */
#ifndef ARITH_CURVES_H
#define ARITH_CURVES_H

#if !defined(ARITH_CURVES_ONLY) || ARITH_CURVES_ONLY == 1
#define FE_T bn254_fp
#define FE_N 4
#define FE_K BN254_FP
#include "fe_impl.h"

#define FE_T bn254_fr
#define FE_N 4
#define FE_K BN254_FR
#include "fe_impl.h"

#define EC_T bn254_g1
#define EC_F bn254_fp
#define EC_K BN254_G1
#define EC_SN 4
#include "ec_impl.h"

#define MSM_EC bn254_g1
#include "msm_impl.h"

#if !ARITH_IS_OPENCL || defined(ARITH_CL_G2)
#define FE2_T bn254_fq2
#define FE2_F bn254_fp
#include "fe2_impl.h"

#define EC_T bn254_g2
#define EC_F bn254_fq2
#define EC_K BN254_G2
#define EC_SN 4
#include "ec_impl.h"

#define MSM_EC bn254_g2
#include "msm_impl.h"
#endif
#endif

#if !defined(ARITH_CURVES_ONLY) || ARITH_CURVES_ONLY == 2
#define FE_T bls12_381_fp
#define FE_N 6
#define FE_K BLS12_381_FP
#include "fe_impl.h"

#define FE_T bls12_381_fr
#define FE_N 4
#define FE_K BLS12_381_FR
#include "fe_impl.h"

#define EC_T bls12_381_g1
#define EC_F bls12_381_fp
#define EC_K BLS12_381_G1
#define EC_SN 4
#include "ec_impl.h"

#define MSM_EC bls12_381_g1
#include "msm_impl.h"

#if !ARITH_IS_OPENCL || defined(ARITH_CL_G2)
#define FE2_T bls12_381_fq2
#define FE2_F bls12_381_fp
#include "fe2_impl.h"

#define EC_T bls12_381_g2
#define EC_F bls12_381_fq2
#define EC_K BLS12_381_G2
#define EC_SN 4
#include "ec_impl.h"

#define MSM_EC bls12_381_g2
#include "msm_impl.h"
#endif
#endif

#endif
