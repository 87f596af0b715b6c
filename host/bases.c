/*
 * bases.c: resident bases (hpr_bases_*, hpr_msm_bases): point sets that the OpenCL devices
 * keep between calls under a key (host/resident.c, runtime/opencl/cl_resident.c).
 *
 * Why: a prover's MSMs reuse the same points; a key names a set for the life of the process,
 * so a device that has it sends only scalars afterwards. hpr_bases holds its own copy of the
 * points (the caller's buffer may go), validated once here; the devices receive them lazily,
 * on their first MSM over them, so a device that never computes one holds nothing.
 * Life: the bases belong to their context, which lists them; hpr_bases_destroy releases what
 * every device holds under their key; hpr_ctx_destroy detaches the live ones (resident.c; the
 * runtime then releases every device's sets), after which only hpr_bases_destroy is valid.
 */
#include "msm_engine.h"
#include "resident.h"

#include <stdlib.h>
#include <string.h>

/* The first invalid point of the set, named as an MSM names it. */
static hpr_status validate(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *points, size_t n)
{
    uint64_t affine[24]; /* the largest affine point: two BLS12-381 Fq2 coordinates */
    for (size_t i = 0; i < n; i++) {
        msm_point_check r = ops->decode_point(affine, points + i * ops->affine_size);
        if (r != MSM_POINT_OK)
            return msm_point_error(ctx, ops, i, r);
    }
    return HPR_OK;
}

static hpr_status bases_create_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, size_t n,
                                    hpr_bases **out)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    hpr_bases *b = NULL;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!out || (n > 0 && !points))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "points and out must not be NULL");
    *out = NULL;
    if (!msm_g1_ops(curve))
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "curve %d is not supported (bn254 = 1, bls12-381 = 2)", (int)curve);
    if (!ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_GROUP, "group %d is not supported (G1 = 1, G2 = 2)", (int)group);
    if (n > UINT32_MAX)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu is too large (at most 2^32 - 1 points)", n);
    if ((st = validate(ctx, ops, points, n)) != HPR_OK)
        return st;
    b = calloc(1, sizeof *b);
    if (!b || !(b->points = malloc(n ? n * ops->affine_size : 1))) {
        free(b);
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "bases: no memory for %zu points", n);
    }
    memcpy(b->points, points, n * ops->affine_size);
    *b = (hpr_bases){ctx, curve, group, n, b->points, ctx_new_resident_keys(1), ctx->bases};
    ctx->bases = b;
    *out = b;
    return HPR_OK;
}

hpr_status hpr_bases_create(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, size_t n,
                            hpr_bases **out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, bases_create_call(ctx, curve, group, points, n, out));
}

void hpr_bases_destroy(hpr_bases *bases)
{
    if (!bases)
        return;
    hpr_ctx *ctx = bases->ctx;
    if (ctx) { /* under the context's call lock: its list and its devices' memory change */
        ctx_enter(ctx);
        hpr_bases **link = &ctx->bases;
        while (*link != bases)
            link = &(*link)->next;
        *link = bases->next;
        ctx_drop_resident(ctx, bases->key);
        ctx_leave(ctx, HPR_OK);
    }
    free(bases->points);
    free(bases);
}

size_t hpr_bases_count(const hpr_bases *bases)
{
    return bases ? bases->n : 0;
}

static hpr_status msm_bases_call(hpr_ctx *ctx, const hpr_bases *bases, const void *scalars, size_t n, void *out,
                                 const hpr_msm_opts *opts)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!bases)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "bases must not be NULL");
    if (bases->ctx != ctx)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "these bases belong to another context");
    if (n > bases->n)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "n = %zu exceeds the %zu bases", n, bases->n);
    cl_points pts = {bases->points, bases->n, bases->key, bases->key, 1}; /* validated when made */
    return msm_keyed(ctx, bases->curve, bases->group, &pts, scalars, n, out, opts);
}

hpr_status hpr_msm_bases(hpr_ctx *ctx, const hpr_bases *bases, const void *scalars, size_t n, void *out,
                         const hpr_msm_opts *opts)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, msm_bases_call(ctx, bases, scalars, n, out, opts));
}
