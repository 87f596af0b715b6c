/*
 * sized.c: the struct_size rule of the public structs (sized.h). Refusing a struct_size of 0
 * is what catches a program that zero-initialised a struct without naming its size: it would
 * otherwise be read as the oldest layout and a member it meant to set could be ignored.
 */
#include "host/core/sized.h"

#include <stdio.h>
#include <string.h>

static size_t size_of(const void *p)
{
    size_t size;
    memcpy(&size, p, sizeof size);
    return size;
}

static int all_zero(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

hpr_status sized_problem(const char *type, const void *p, size_t oldest, size_t ours, int input, char *why,
                         size_t why_len)
{
    size_t size = size_of(p);
    if (size == 0)
        snprintf(why, why_len, "%s.struct_size is 0: set it to sizeof(%s)", type, type);
    else if (size < oldest)
        snprintf(why, why_len, "%s.struct_size is %zu, below the %zu bytes of the oldest layout this library reads",
                 type, size, oldest);
    else if (input && size > ours && !all_zero((const unsigned char *)p + ours, size - ours))
        snprintf(why, why_len,
                 "%s.struct_size is %zu and members past this library's %zu bytes are set: they need a newer "
                 "libhyprove than " HPR_VERSION_STRING,
                 type, size, ours);
    else
        return HPR_OK;
    return HPR_ERR_INVALID_ARGUMENT;
}

static hpr_status sized_fail(hpr_ctx *ctx, hpr_status st, const char *why)
{
    if (ctx)
        ctx_call_begin(ctx);
    return ctx_fail(ctx, st, "%s", why);
}

size_t sized_bytes(const void *p, size_t ours)
{
    size_t size = size_of(p);
    return size < ours ? size : ours;
}

hpr_status sized_take(const char *type, const void *in, size_t oldest, size_t ours, void *copy, char *why,
                      size_t why_len)
{
    hpr_status st = sized_problem(type, in, oldest, ours, 1, why, why_len);
    if (st != HPR_OK)
        return st;
    memset(copy, 0, ours);
    memcpy(copy, in, sized_bytes(in, ours));
    memcpy(copy, &ours, sizeof ours);
    return HPR_OK;
}

hpr_status sized_read(hpr_ctx *ctx, const char *type, const void *in, size_t oldest, size_t ours, void *copy)
{
    char why[200];
    hpr_status st = sized_take(type, in, oldest, ours, copy, why, sizeof why);
    return st != HPR_OK ? sized_fail(ctx, st, why) : HPR_OK;
}

hpr_status sized_check_out(hpr_ctx *ctx, const char *type, const void *out, size_t oldest, size_t ours, size_t *bytes)
{
    char why[200];
    hpr_status st = sized_problem(type, out, oldest, ours, 0, why, sizeof why);
    if (st != HPR_OK)
        return sized_fail(ctx, st, why);
    *bytes = sized_bytes(out, ours);
    return HPR_OK;
}

void sized_write(void *out, const void *full, size_t bytes)
{
    memcpy(out, full, bytes);
    memcpy(out, &bytes, sizeof bytes);
}

void sized_cap_entries(unsigned *count, size_t bytes, size_t offset, size_t entry)
{
    size_t fit = bytes > offset ? (bytes - offset) / entry : 0;
    if (*count > fit)
        *count = (unsigned)fit;
}
