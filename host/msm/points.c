/*
 * points.c: single-point services of the public API: validation and the snarkjs JSON form.
 */
#include "host/core/decimal.h"
#include "host/msm/msm_engine.h"
#include "host/msm/msm_calls.h"

#include <stdio.h>
#include <string.h>

#define MAX_FIELD_LIMBS 12 /* a BLS12-381 Fq2 coordinate */

static hpr_status point_check_status(hpr_ctx *ctx, msm_point_check r, const char *name)
{
    switch (r) {
    case MSM_POINT_OK: return HPR_OK;
    case MSM_POINT_COORD_RANGE:
        return ctx_fail(ctx, HPR_ERR_COORDINATE_OUT_OF_RANGE, "a coordinate is >= p of %s", name);
    case MSM_POINT_NOT_ON_CURVE: return ctx_fail(ctx, HPR_ERR_POINT_NOT_ON_CURVE, "the point is not on the %s curve", name);
    case MSM_POINT_NOT_IN_SUBGROUP:
        return ctx_fail(ctx, HPR_ERR_POINT_NOT_IN_SUBGROUP, "the point is not in the prime-order subgroup of %s", name);
    }
    return HPR_ERR_INTERNAL;
}

static int all_zero(const unsigned char *p, size_t len)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < len; i++)
        acc |= p[i];
    return acc == 0;
}

hpr_status point_check_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *point)
{
    uint64_t affine[2 * MAX_FIELD_LIMBS];
    const msm_curve_ops *ops = msm_ops(curve, group);
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported", (int)curve);
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (!point)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "point must not be NULL");
    msm_point_check r = ops->decode_point(affine, point);
    if (r == MSM_POINT_OK && !ops->in_subgroup(affine))
        r = MSM_POINT_NOT_IN_SUBGROUP;
    return point_check_status(ctx, r, ops->name);
}

hpr_status point_to_json(hpr_curve curve, hpr_group group, const void *point, char *buf, size_t buflen)
{
    uint64_t affine[2 * MAX_FIELD_LIMBS], x[MAX_FIELD_LIMBS], y[MAX_FIELD_LIMBS];
    char xs[2][20 * MAX_FIELD_LIMBS / 2 + 1], ys[2][20 * MAX_FIELD_LIMBS / 2 + 1];
    const msm_curve_ops *ops = msm_ops(curve, group);
    unsigned limbs;
    int len;
    if (!msm_g1_ops(curve))
        return HPR_ERR_UNSUPPORTED_CURVE;
    if (!ops)
        return HPR_ERR_UNSUPPORTED_GROUP;
    if (!point || !buf)
        return HPR_ERR_INVALID_ARGUMENT;
    limbs = (unsigned)(ops->field_bytes / 8 / ops->degree); /* of one Fp coordinate */
    if (all_zero(point, ops->affine_size)) {
        len = snprintf(buf, buflen, ops->degree == 1 ? "[\"0\",\"1\",\"0\"]" : "[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]");
        return len >= 0 && (size_t)len < buflen ? HPR_OK : HPR_ERR_INVALID_ARGUMENT;
    }
    msm_point_check r = ops->decode_point(affine, point);
    if (r != MSM_POINT_OK)
        return point_check_status(NULL, r, ops->name);
    ops->affine_to_canonical(x, y, affine);
    for (unsigned i = 0; i < ops->degree; i++) {
        dec_from_limbs(xs[i], x + i * limbs, limbs);
        dec_from_limbs(ys[i], y + i * limbs, limbs);
    }
    if (ops->degree == 1)
        len = snprintf(buf, buflen, "[\"%s\",\"%s\",\"1\"]", xs[0], ys[0]);
    else
        len = snprintf(buf, buflen, "[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]]", xs[0], xs[1], ys[0], ys[1]);
    return len >= 0 && (size_t)len < buflen ? HPR_OK : HPR_ERR_INVALID_ARGUMENT;
}

hpr_status point_from_decimal(hpr_curve curve, hpr_group group, const char *xs, const char *ys, const char *zs,
                                  void *point)
{
    uint64_t affine[2 * MAX_FIELD_LIMBS], x[MAX_FIELD_LIMBS], y[MAX_FIELD_LIMBS];
    const msm_curve_ops *ops = msm_ops(curve, group);
    if (!msm_g1_ops(curve))
        return HPR_ERR_UNSUPPORTED_CURVE;
    if (!ops)
        return HPR_ERR_UNSUPPORTED_GROUP;
    if (ops->degree != 1) /* G2 coordinates are pairs: not this call's three strings */
        return HPR_ERR_UNSUPPORTED_GROUP;
    if (!xs || !ys || !zs || !point)
        return HPR_ERR_INVALID_ARGUMENT;
    if (strcmp(zs, "0") == 0) {
        memset(point, 0, ops->affine_size);
        return HPR_OK;
    }
    if (strcmp(zs, "1") != 0)
        return HPR_ERR_FORMAT;
    unsigned limbs = (unsigned)(ops->field_bytes / 8);
    if (dec_to_limbs(x, limbs, xs) != 0 || dec_to_limbs(y, limbs, ys) != 0)
        return HPR_ERR_FORMAT;
    msm_point_check r = ops->affine_from_canonical(affine, x, y);
    if (r != MSM_POINT_OK)
        return point_check_status(NULL, r, ops->name);
    memcpy(point, affine, ops->affine_size);
    return HPR_OK;
}
