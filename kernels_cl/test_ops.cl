/*
 * test_ops.cl: one tiny kernel per primitive, for the tests that compare every device bit for
 * bit with the host build of the same arithmetic (tests/test_opencl_primitives.c). Not used by MSM.
 *
 * fp_op / fr_op: out[i] = op(a[i], b[i]); op 0 add, 1 sub, 2 mul, 3 sqr, 4 inv, 5 neg, 6 dbl.
 * g1_op: out[i] = op(p[i], q[i], a[i]); op 0 xyzz add p+q, 1 xyzz dbl p, 2 mixed add p+a,
 *        3 xyzz dbl of affine a, 4 p normalised to affine (x, y in out's x, y; zz = zzz = 0).
 */
#include "curve_select.h"

#define FIELD_OP_KERNEL(NAME, T, FN)                                                                       \
    __kernel void NAME(uint op, __global const T *a, __global const T *b, __global T *out)              \
    {                                                                                                   \
        uint i = get_global_id(0);                                                                      \
        T x = a[i], y = b[i], r;                                                                        \
        switch (op) {                                                                                   \
        case 0: FN(add)(&r, &x, &y); break;                                                             \
        case 1: FN(sub)(&r, &x, &y); break;                                                             \
        case 2: FN(mul)(&r, &x, &y); break;                                                             \
        case 3: FN(sqr)(&r, &x); break;                                                                 \
        case 4: FN(inv)(&r, &x); break;                                                                 \
        case 5: FN(neg)(&r, &x); break;                                                                 \
        default: FN(dbl)(&r, &x); break;                                                                \
        }                                                                                               \
        out[i] = r;                                                                                     \
    }

FIELD_OP_KERNEL(fp_op, fp, FP)
FIELD_OP_KERNEL(fr_op, fr, FR)

__kernel void g1_op(uint op, __global const pt_xyzz *p, __global const pt_xyzz *q, __global const pt_affine *a,
                    __global pt_xyzz *out)
{
    uint i = get_global_id(0);
    pt_xyzz x = p[i], y = q[i], r;
    pt_affine z = a[i];
    switch (op) {
    case 0: PT(xyzz_add)(&r, &x, &y); break;
    case 1: PT(xyzz_dbl)(&r, &x); break;
    case 2: PT(xyzz_add_affine)(&r, &x, &z); break;
    case 3: PT(xyzz_dbl_affine)(&r, &z); break;
    default: {
        pt_affine t;
        PT(xyzz_to_affine)(&t, &x);
        PT(xyzz_set_inf)(&r);
        r.x = t.x;
        r.y = t.y;
        break;
    }
    }
    out[i] = r;
}
