/* Compiled by clang as OpenCL C 1.2 (ctest arith_compiles_as_opencl): every shared function
 * of both curves is used from a kernel so that none escapes the check; with -DARITH_CL_G2=1
 * (ctest arith_compiles_as_opencl_g2) Fq2 and G2 as well, as the G2 MSM programs build them. */
#include "arith/curves.h"
#include "arith/poseidon2.h"

#define USE_FIELD(F)                                                                                        \
    {                                                                                                     \
        F a, b, c;                                                                                        \
        F##_set_limbs(&a, in);                                                                            \
        F##_set_limbs(&b, in + 8);                                                                        \
        F##_add(&c, &a, &b);                                                                              \
        F##_sub(&c, &c, &b);                                                                              \
        F##_mul(&c, &c, &a);                                                                              \
        F##_sqr(&c, &c);                                                                                  \
        F##_neg(&c, &c);                                                                                  \
        F##_dbl(&c, &c);                                                                                  \
        acc += F##_inv(&c, &c) + F##_eq(&a, &c) + F##_is_zero(&c) + F##_limbs_are_reduced(in) + c.l[0];   \
    }

#define USE_CURVE(EC, X0)                                                                                   \
    {                                                                                                     \
        EC##_affine g, q;                                                                                 \
        EC##_jac j;                                                                                       \
        EC##_xyzz x, y;                                                                                   \
        EC##_affine_generator(&g);                                                                        \
        EC##_jac_from_affine(&j, &g);                                                                     \
        EC##_jac_dbl(&j, &j);                                                                             \
        EC##_jac_add_affine(&j, &j, &g);                                                                  \
        EC##_jac_add(&j, &j, &j);                                                                         \
        EC##_jac_to_affine(&q, &j);                                                                       \
        EC##_xyzz_from_affine(&x, &q);                                                                    \
        EC##_xyzz_add_affine(&x, &x, &g);                                                                 \
        EC##_xyzz_dbl(&y, &x);                                                                            \
        EC##_xyzz_add(&x, &x, &y);                                                                        \
        EC##_msm_reduce_buckets(&y, &x, 1);                                                               \
        EC##_msm_combine_windows(&x, &y, 1, 4);                                                           \
        EC##_xyzz_to_affine(&q, &x);                                                                      \
        acc += EC##_affine_on_curve(&q) + EC##_xyzz_eq(&x, &y) + (ulong)msm_booth_digit(in, 1, 4) + q.x X0; \
    }

__kernel void use_everything(__global ulong *out, __global const ulong *gin)
{
    ulong in[16];
    ulong acc = 0;
    for (int i = 0; i < 16; i++)
        in[i] = gin[i];
    USE_FIELD(bn254_fp)
    USE_FIELD(bn254_fr)
    USE_FIELD(bls12_381_fp)
    USE_FIELD(bls12_381_fr)
    USE_CURVE(bn254_g1, .l[0])
    USE_CURVE(bls12_381_g1, .l[0])
#ifdef ARITH_CL_G2
    USE_CURVE(bn254_g2, .c0.l[0])
    USE_CURVE(bls12_381_g2, .c0.l[0])
#endif
    acc += msm_digit_bucket(msm_booth_digit(in, 2, 4));
    out[get_global_id(0)] = acc;
}
