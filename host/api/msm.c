/*
 * host/api/msm.c: the public entries for MSMs, bases, points and random MSM inputs.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/core/sized.h"
#include "host/msm/msm_calls.h"

hpr_status hpr_bases_create(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, size_t n,
                            hpr_bases **out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, bases_create_call(ctx, curve, group, points, n, 1, out));
}

hpr_status hpr_bases_create_precomputed(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, size_t n,
                                        unsigned precompute, hpr_bases **out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, bases_create_call(ctx, curve, group, points, n, precompute, out));
}

void hpr_bases_destroy(hpr_bases *bases)
{
    bases_destroy(bases);
}

size_t hpr_bases_count(const hpr_bases *bases)
{
    return bases_count(bases);
}

unsigned hpr_bases_precompute(const hpr_bases *bases)
{
    return bases_precompute_factor(bases);
}

size_t hpr_bases_bytes(const hpr_bases *bases)
{
    return bases_bytes(bases);
}

hpr_status hpr_msm_bases(hpr_ctx *ctx, const hpr_bases *bases, const void *scalars, size_t n, void *out,
                         const hpr_msm_opts *opts)
{
    hpr_msm_opts o;
    ctx_enter(ctx);
    hpr_status st = opts ? SIZED_READ(ctx, hpr_msm_opts, opts, &o) : HPR_OK;
    return ctx_leave(ctx, st != HPR_OK ? st : msm_bases_call(ctx, bases, scalars, n, out, opts ? &o : NULL));
}

size_t hpr_point_size(hpr_curve curve, hpr_group group)
{
    return msm_point_size(curve, group);
}

hpr_status hpr_msm_ex(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, const void *scalars,
                      size_t n, void *out, const hpr_msm_opts *opts)
{
    hpr_msm_opts o;
    ctx_enter(ctx);
    hpr_status st = opts ? SIZED_READ(ctx, hpr_msm_opts, opts, &o) : HPR_OK;
    if (st == HPR_OK)
        st = msm_ex_call(ctx, curve, group, points, scalars, n, out, opts ? &o : NULL);
    return ctx_leave(ctx, st);
}

hpr_status hpr_msm(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, const void *scalars,
                   size_t n, void *out)
{
    return hpr_msm_ex(ctx, curve, group, points, scalars, n, out, NULL); /* takes the call lock */
}

hpr_status hpr_point_check(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *point)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, point_check_call(ctx, curve, group, point));
}

hpr_status hpr_point_to_json(hpr_curve curve, hpr_group group, const void *point, char *buf, size_t buflen)
{
    return point_to_json(curve, group, point, buf, buflen);
}

hpr_status hpr_point_from_decimal(hpr_curve curve, hpr_group group, const char *xs, const char *ys, const char *zs,
                                  void *point)
{
    return point_from_decimal(curve, group, xs, ys, zs, point);
}

hpr_status hpr_random_msm_inputs(hpr_ctx *ctx, hpr_curve curve, hpr_group group, size_t n, unsigned long long seed,
                                 void *points, void *scalars)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, random_msm_inputs_call(ctx, curve, group, n, seed, points, scalars));
}

hpr_status hpr_fixed_base_mul(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *base, const void *scalars,
                              size_t n, void *out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, fixed_base_mul_call(ctx, curve, group, base, scalars, n, out));
}
