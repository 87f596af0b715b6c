/*
 * curve_select.h: instantiates the shared arithmetic for the one curve an OpenCL program is
 * built for (build option -DHPR_CL_CURVE=1 for BN254, 2 for BLS12-381) and names it
 * generically: g1_affine, g1_xyzz, fp, fr and the G1(op), FP(op), FR(op) function names.
 * One curve per program keeps compile time (and the binary cache) small.
 */
#ifndef KERNELS_CL_CURVE_SELECT_H
#define KERNELS_CL_CURVE_SELECT_H

#if HPR_CL_CURVE == 1
#define CL_EC bn254_g1
#define CL_FP bn254_fp
#define CL_FR bn254_fr
#elif HPR_CL_CURVE == 2
#define CL_EC bls12_381_g1
#define CL_FP bls12_381_fp
#define CL_FR bls12_381_fr
#else
#error "build the program with -DHPR_CL_CURVE=1 (bn254) or 2 (bls12-381)"
#endif

#define ARITH_CURVES_ONLY HPR_CL_CURVE
#include "arith/curves.h"

#define G1(op) ARITH_CAT(CL_EC, ARITH_CAT(_, op))
#define FP(op) ARITH_CAT(CL_FP, ARITH_CAT(_, op))
#define FR(op) ARITH_CAT(CL_FR, ARITH_CAT(_, op))
typedef ARITH_CAT(CL_EC, _affine) g1_affine;
typedef ARITH_CAT(CL_EC, _xyzz) g1_xyzz;
typedef ARITH_CAT(CL_EC, _jac) g1_jac;
typedef CL_FP fp;
typedef CL_FR fr;

#endif
