/*
 * resident.c: the keys of point sets kept on devices, and the context's list of live bases
 * (see resident.h). Why a file of its own: the context, the MSM entry points and the bases
 * all use these, and none of them may call the others in a cycle.
 */
#include "host/msm/resident.h"

#include <stdatomic.h>

uint64_t ctx_new_resident_keys(unsigned count)
{
    static _Atomic uint64_t next = 1;
    return atomic_fetch_add(&next, (uint64_t)count);
}

void ctx_drop_resident(hpr_ctx *ctx, uint64_t owner)
{
    for (unsigned d = 0; owner && ctx->cl && d < ctx->cl->ndevs; d++)
        cl_resident_drop(&ctx->cl->api, &ctx->cl->devs[d], owner);
}

void bases_detach_all(hpr_ctx *ctx)
{
    for (hpr_bases *b = ctx->bases; b; b = b->next)
        b->ctx = NULL;
    ctx->bases = NULL;
}
