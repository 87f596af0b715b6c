/*
 * curve_select.h: instantiates the shared arithmetic for the one curve and group an OpenCL
 * program is built for (build option -DHPR_CL_CURVE=1 BN254 G1, 2 BLS12-381 G1, 3 BN254 G2,
 * 4 BLS12-381 G2) and names the group generically: pt_affine, pt_xyzz, pt_jac and PT(op)
 * for its points, fp and FP(op) for the curve's base field, fr and FR(op) for its scalar
 * field, PT_COORD_REDUCED(x) for "the coordinate's limbs are below p" (both Fq2 halves on
 * G2). The MSM kernels are written once over these names, so a G2 program is the G1 kernels
 * over Fq2 (arith/fe2_impl.h). One curve and group per program keeps compile time (and the
 * binary cache) small.
 */
#ifndef KERNELS_CL_CURVE_SELECT_H
#define KERNELS_CL_CURVE_SELECT_H

#if HPR_CL_CURVE == 1 || HPR_CL_CURVE == 3
#define CL_FP bn254_fp
#define CL_FR bn254_fr
#define ARITH_CURVES_ONLY 1
#elif HPR_CL_CURVE == 2 || HPR_CL_CURVE == 4
#define CL_FP bls12_381_fp
#define CL_FR bls12_381_fr
#define ARITH_CURVES_ONLY 2
#else
#error "build the program with -DHPR_CL_CURVE=1 (bn254), 2 (bls12-381), 3 (bn254 G2) or 4 (bls12-381 G2)"
#endif

#if HPR_CL_CURVE >= 3
#define ARITH_CL_G2 1 /* arith/curves.h: Fq2 and G2 in the OpenCL program too */
#endif

#include "arith/curves.h"

#if HPR_CL_CURVE == 1
#define PT(op) ARITH_CAT(bn254_g1, ARITH_CAT(_, op))
typedef bn254_g1_affine pt_affine;
typedef bn254_g1_xyzz pt_xyzz;
typedef bn254_g1_jac pt_jac;
#elif HPR_CL_CURVE == 2
#define PT(op) ARITH_CAT(bls12_381_g1, ARITH_CAT(_, op))
typedef bls12_381_g1_affine pt_affine;
typedef bls12_381_g1_xyzz pt_xyzz;
typedef bls12_381_g1_jac pt_jac;
#elif HPR_CL_CURVE == 3
#define PT(op) ARITH_CAT(bn254_g2, ARITH_CAT(_, op))
typedef bn254_g2_affine pt_affine;
typedef bn254_g2_xyzz pt_xyzz;
typedef bn254_g2_jac pt_jac;
#else
#define PT(op) ARITH_CAT(bls12_381_g2, ARITH_CAT(_, op))
typedef bls12_381_g2_affine pt_affine;
typedef bls12_381_g2_xyzz pt_xyzz;
typedef bls12_381_g2_jac pt_jac;
#endif

#define FP(op) ARITH_CAT(CL_FP, ARITH_CAT(_, op))
#define FR(op) ARITH_CAT(CL_FR, ARITH_CAT(_, op))
typedef CL_FP fp;
typedef CL_FR fr;

#if HPR_CL_CURVE >= 3
#define PT_COORD_REDUCED(x) (FP(limbs_are_reduced)((x).c0.l) && FP(limbs_are_reduced)((x).c1.l))
#else
#define PT_COORD_REDUCED(x) FP(limbs_are_reduced)((x).l)
#endif

#endif
