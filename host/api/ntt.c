/*
 * host/api/ntt.c: the public entries for NTTs, LDEs and field sizes.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/core/sized.h"
#include "host/ntt/ntt_calls.h"

size_t hpr_field_element_size(hpr_field field)
{
    return ntt_field_element_size(field);
}

unsigned hpr_field_two_adicity(hpr_field field)
{
    return ntt_field_two_adicity(field);
}

hpr_status hpr_ntt(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts)
{
    hpr_ntt_opts o;
    ctx_enter(ctx);
    hpr_status st = opts ? SIZED_READ(ctx, hpr_ntt_opts, opts, &o) : HPR_OK;
    return ctx_leave(ctx, st != HPR_OK ? st : ntt_call(ctx, field, log_n, data, opts ? &o : NULL));
}

hpr_status hpr_ntt_lde(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, const char *shift,
                       size_t columns, const void *in, void *out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, ntt_lde_call(ctx, field, log_n, rate, shift, columns, in, out));
}
