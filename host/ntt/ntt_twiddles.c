/*
 * ntt_twiddles.c: the NTT's twiddle tables, cached per context (the lowest layer of the NTT:
 * it calls only the field's kernels, kernels_cpu/ntt_cpu.h).
 *
 * What: for a field, a generator g and a direction, the table of the root w = g^((p-1)/n)
 * (or its inverse) in the layout of ntt_cpu.h, tw[len + j] = w_{2 len}^j, and where the CPU
 * tier has one, the kernels' own table made from it (ntt_field_ops.kernel_twiddles; the
 * OpenCL kernels always read the table itself).
 * Method: the tables are kept per context, one per (field, generator, direction), and grown
 * to the largest size asked: a table of size N serves every n <= N (ntt_cpu.h), so a smaller
 * table of the same family is replaced by the larger one; the cache holds TWIDDLE_CACHE
 * entries, replaced in turn when all are used.
 * Cost: n elements (and the kernels' table) computed on the pool once per family and size
 * growth, instead of once per transform; freed with the context.
 */
#include "host/ntt/ntt_internal.h"
#include "runtime/base/rt_mem.h"

#include <stdlib.h>
#include <string.h>

#define TWIDDLE_CACHE 8

struct ntt_twiddle_cache {
    struct {
        const ntt_field_ops *ops;
        uint64_t generator[4];
        int inverse;
        unsigned log_n;
        void *tw, *kernel_tw; /* kernel_tw: the CPU kernels' own table, or NULL (ntt_cpu.h) */
    } entry[TWIDDLE_CACHE];
    unsigned next; /* the entry replaced when all are used */
};

void ntt_twiddle_cache_free(ntt_twiddle_cache *cache)
{
    if (!cache)
        return;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++) {
        free(cache->entry[i].tw);
        free(cache->entry[i].kernel_tw);
    }
    free(cache);
}

int ntt_twiddles(hpr_ctx *ctx, const ntt_field_ops *ops, const uint64_t *g_limbs, const void *w, int inverse,
                 unsigned log_n, ntt_tables *out)
{
    ntt_twiddle_cache *cache = ctx->ntt_cache;
    size_t n = (size_t)1 << log_n;
    if (!cache && !(cache = ctx->ntt_cache = calloc(1, sizeof *cache)))
        return -1;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++) {
        if (cache->entry[i].ops == ops && cache->entry[i].inverse == inverse && cache->entry[i].log_n >= log_n &&
            memcmp(cache->entry[i].generator, g_limbs, sizeof cache->entry[i].generator) == 0) {
            out->tw = cache->entry[i].tw;
            out->cpu = cache->entry[i].kernel_tw ? cache->entry[i].kernel_tw : cache->entry[i].tw;
            return 0;
        }
    }
    void *tw = rt_alloc_large(n * ops->elem_bytes), *kernel_tw = NULL;
    if (!tw)
        return -1;
    ops->twiddles(ctx->pool, tw, n, w);
    if (ops->kernel_twiddles && !(kernel_tw = ops->kernel_twiddles(ctx->pool, tw, n))) {
        free(tw);
        return -1;
    }
    unsigned slot = cache->next;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++)
        if (cache->entry[i].ops == ops && cache->entry[i].inverse == inverse &&
            memcmp(cache->entry[i].generator, g_limbs, sizeof cache->entry[i].generator) == 0)
            slot = i; /* a smaller table of the same family: replace it */
    if (slot == cache->next)
        cache->next = (cache->next + 1) % TWIDDLE_CACHE;
    free(cache->entry[slot].tw);
    free(cache->entry[slot].kernel_tw);
    cache->entry[slot].ops = ops;
    memcpy(cache->entry[slot].generator, g_limbs, sizeof cache->entry[slot].generator);
    cache->entry[slot].inverse = inverse;
    cache->entry[slot].log_n = log_n;
    cache->entry[slot].tw = tw;
    cache->entry[slot].kernel_tw = kernel_tw;
    out->tw = tw;
    out->cpu = kernel_tw ? kernel_tw : tw;
    return 0;
}
