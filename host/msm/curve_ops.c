/*
 * curve_ops.c: the operation table of each (curve, group): the CPU kernels of every tier and
 * the host-side point arithmetic (kernels_cpu/msm_cpu.h).
 */
#include "host/msm/msm_engine.h"
#include "host/msm/msm_calls.h"

const msm_curve_ops *msm_g1_ops(hpr_curve curve)
{
    switch (curve) {
    case HPR_CURVE_BN254: return &msm_bn254_g1_ops;
    case HPR_CURVE_BLS12_381: return &msm_bls12_381_g1_ops;
    }
    return NULL;
}

const msm_curve_ops *msm_ops(hpr_curve curve, hpr_group group)
{
    if (group == HPR_G1)
        return msm_g1_ops(curve);
    if (group != HPR_G2)
        return NULL;
    switch (curve) {
    case HPR_CURVE_BN254: return &msm_bn254_g2_ops;
    case HPR_CURVE_BLS12_381: return &msm_bls12_381_g2_ops;
    }
    return NULL;
}

size_t msm_point_size(hpr_curve curve, hpr_group group)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    return ops ? ops->affine_size : 0;
}
