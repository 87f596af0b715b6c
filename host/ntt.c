/*
 * ntt.c: hpr_ntt and hpr_ntt_lde, the NTT entry points (CPU, portable kernels of
 * kernels_cpu/ntt_cpu.h).
 *
 * Steps: (1) check the arguments and every element (< p, the first bad index named) before
 * anything is written; (2) convert the columns into a working buffer in the field's internal
 * form, column-major whatever the caller's layout; (3) per column: forward = [bit-reverse a
 * reversed input] [scale by shift^i] DIF (natural -> bit-reversed) [bit-reverse for a natural
 * output]; inverse = [bit-reverse a natural input] DIT with w^-1 (bit-reversed -> natural)
 * scale by n^-1 shift^-i [bit-reverse for a reversed output]; (4) convert back.
 * Roots: w = g^((p-1)/n), checked to have order exactly n (so an explicit generator that is
 * not one is refused). Twiddle tables are kept per context, one per (field, generator,
 * direction), and grown to the largest size asked: a table of size N serves every n <= N
 * (ntt_cpu.h).
 * What is not here yet (issue 6): the AVX-512 and OpenCL kernels, the four-step split
 * across devices, the rate-2 LDE fast path.
 */
#include "internal.h"
#include "../kernels_cpu/ntt_cpu.h"
#include "../runtime/rt_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* room for one element of any field, aligned for every internal form */
typedef struct {
    uint64_t l[4];
} ntt_elem;
#define TWIDDLE_CACHE 8

struct hpr_ntt_cache {
    struct {
        const ntt_field_ops *ops;
        uint64_t generator[4];
        int inverse;
        unsigned log_n;
        void *tw;
    } entry[TWIDDLE_CACHE];
    unsigned next; /* the entry replaced when all are used */
};

void hpr_ntt_cache_free(hpr_ntt_cache *cache)
{
    if (!cache)
        return;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++)
        free(cache->entry[i].tw);
    free(cache);
}

static const ntt_field_ops *field_ops(hpr_field field)
{
    switch (field) {
    case HPR_FIELD_BN254_FR: return &ntt_bn254_fr_ops;
    case HPR_FIELD_BLS12_381_FR: return &ntt_bls12_381_fr_ops;
    case HPR_FIELD_GOLDILOCKS: return &ntt_goldilocks_ops;
    case HPR_FIELD_BABYBEAR: return &ntt_babybear_ops;
    case HPR_FIELD_KOALABEAR: return &ntt_koalabear_ops;
    }
    return NULL;
}

size_t hpr_field_element_size(hpr_field field)
{
    const ntt_field_ops *ops = field_ops(field);
    return ops ? ops->elem_bytes : 0;
}

unsigned hpr_field_two_adicity(hpr_field field)
{
    const ntt_field_ops *ops = field_ops(field);
    return ops ? ops->two_adicity : 0;
}

static int limbs_below(const uint64_t *a, const uint64_t *p)
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != p[i])
            return a[i] < p[i];
    return 0;
}

static void limbs_from_bytes(uint64_t *limbs, const unsigned char *bytes, size_t size)
{
    unsigned char padded[32] = {0};
    memcpy(padded, bytes, size);
    for (int i = 0; i < 4; i++) {
        limbs[i] = 0;
        for (int b = 7; b >= 0; b--)
            limbs[i] = (limbs[i] << 8) | padded[8 * i + b];
    }
}

static void limbs_to_bytes(unsigned char *bytes, const uint64_t *limbs, size_t size)
{
    for (size_t b = 0; b < size; b++)
        bytes[b] = (unsigned char)(limbs[b / 8] >> (8 * (b % 8)));
}

/* A decimal constant (shift, generator) in the internal form: nonzero and below p. */
static hpr_status parse_constant(hpr_ctx *ctx, const ntt_field_ops *ops, const char *what, const char *dec,
                                 uint64_t *limbs, void *elem)
{
    if (hpr_dec_to_limbs(limbs, 4, dec) != 0 || !limbs_below(limbs, ops->modulus) ||
        (limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%s '%.80s' is not a nonzero decimal element of %s (below p)",
                        what, dec ? dec : "(null)", ops->name);
    ops->from_canonical(elem, limbs);
    return HPR_OK;
}

static void set_small(const ntt_field_ops *ops, void *elem, uint64_t v)
{
    uint64_t limbs[4] = {v, 0, 0, 0};
    ops->from_canonical(elem, limbs);
}

/* w = g^((p-1) / 2^log_n); 0 if w has order exactly 2^log_n (w^(n/2) = -1), else -1. */
static int primitive_root(const ntt_field_ops *ops, const void *g, unsigned log_n, void *w)
{
    uint64_t e[4], c[4];
    ntt_elem t;
    memcpy(e, ops->modulus, sizeof e);
    e[0] -= 1; /* p is odd */
    for (unsigned k = 0; k < log_n; k++)
        for (int i = 0; i < 4; i++)
            e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);
    ops->pow(w, g, e);
    if (log_n == 0)
        return 0; /* g^(p-1) = 1 */
    e[0] = (uint64_t)1 << (log_n - 1);
    e[1] = e[2] = e[3] = 0;
    ops->pow(&t, w, e);
    ops->to_canonical(c, &t);
    c[0] += 1; /* p - 1 + 1 = p, without carry since p is odd */
    return memcmp(c, ops->modulus, sizeof c) == 0 ? 0 : -1;
}

/* The twiddle table for (ops, g, direction) of at least 2^log_n entries, from the context's
 * cache or computed (and cached). NULL without memory. */
static const void *twiddles(hpr_ctx *ctx, const ntt_field_ops *ops, const uint64_t *g_limbs, const void *w,
                            int inverse, unsigned log_n)
{
    hpr_ntt_cache *cache = ctx->ntt_cache;
    size_t n = (size_t)1 << log_n;
    if (!cache && !(cache = ctx->ntt_cache = calloc(1, sizeof *cache)))
        return NULL;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++) {
        if (cache->entry[i].ops == ops && cache->entry[i].inverse == inverse && cache->entry[i].log_n >= log_n &&
            memcmp(cache->entry[i].generator, g_limbs, sizeof cache->entry[i].generator) == 0)
            return cache->entry[i].tw;
    }
    void *tw = rt_alloc_large(n * ops->elem_bytes);
    if (!tw)
        return NULL;
    ops->twiddles(ctx->pool, tw, n, w);
    unsigned slot = cache->next;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++)
        if (cache->entry[i].ops == ops && cache->entry[i].inverse == inverse &&
            memcmp(cache->entry[i].generator, g_limbs, sizeof cache->entry[i].generator) == 0)
            slot = i; /* a smaller table of the same family: replace it */
    if (slot == cache->next)
        cache->next = (cache->next + 1) % TWIDDLE_CACHE;
    free(cache->entry[slot].tw);
    cache->entry[slot].ops = ops;
    memcpy(cache->entry[slot].generator, g_limbs, sizeof cache->entry[slot].generator);
    cache->entry[slot].inverse = inverse;
    cache->entry[slot].log_n = log_n;
    cache->entry[slot].tw = tw;
    return tw;
}

typedef struct {
    const ntt_field_ops *ops;
    hpr_field field;
    unsigned log_n;
    size_t n, columns;
    int row_major;
    int inverse;
    hpr_ntt_order order;
    ntt_elem shift, g;
    uint64_t g_limbs[4];
    int has_shift;
} ntt_plan;

static hpr_status make_plan(hpr_ctx *ctx, hpr_field field, unsigned log_n, const hpr_ntt_opts *opts, ntt_plan *pl)
{
    uint64_t limbs[4];
    hpr_status st;
    memset(pl, 0, sizeof *pl);
    pl->ops = field_ops(field);
    if (!pl->ops)
        return hpr_fail(ctx, HPR_ERR_UNSUPPORTED_FIELD,
                        "field %d is not supported (bn254-fr 1, bls12-381-fr 2, goldilocks 3, babybear 4, koalabear 5)",
                        (int)field);
    if (log_n > pl->ops->two_adicity || log_n > 8 * sizeof(size_t) - 8)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "log_n = %u exceeds the two-adicity of %s (%u)", log_n,
                        pl->ops->name, pl->ops->two_adicity);
    pl->field = field;
    pl->log_n = log_n;
    pl->n = (size_t)1 << log_n;
    pl->columns = opts && opts->columns > 1 ? opts->columns : 1;
    pl->row_major = opts ? opts->row_major : 0;
    pl->inverse = opts ? opts->inverse : 0;
    pl->order = opts ? opts->order : HPR_NTT_NN;
    if ((unsigned)pl->order > HPR_NTT_RR)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "order %d is not one of NN, NR, RN, RR (0..3)", (int)pl->order);
    if (pl->columns > SIZE_MAX / pl->n / pl->ops->elem_bytes)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%zu columns of 2^%u elements overflow the address space",
                        pl->columns, log_n);
    if (opts && opts->coset_shift) {
        if ((st = parse_constant(ctx, pl->ops, "coset shift", opts->coset_shift, limbs, &pl->shift)) != HPR_OK)
            return st;
        pl->has_shift = 1;
    }
    if (opts && opts->generator) {
        if ((st = parse_constant(ctx, pl->ops, "generator", opts->generator, pl->g_limbs, &pl->g)) != HPR_OK)
            return st;
    } else {
        pl->g_limbs[0] = pl->ops->generator;
        pl->ops->from_canonical(&pl->g, pl->g_limbs);
    }
    return HPR_OK;
}

/* The first element >= p among count elements of size bytes, or count. */
static size_t first_out_of_range(const ntt_field_ops *ops, const unsigned char *data, size_t count)
{
    uint64_t limbs[4];
    for (size_t i = 0; i < count; i++) {
        limbs_from_bytes(limbs, data + i * ops->elem_bytes, ops->elem_bytes);
        if (!limbs_below(limbs, ops->modulus))
            return i;
    }
    return count;
}

typedef struct {
    const ntt_plan *pl;
    unsigned char *data, *work;
    int back; /* 0: data -> work, 1: work -> data */
} convert_job;

/* Column task: column c between the caller's layout and the column-major work buffer. */
static void convert_task(void *arg, size_t c, unsigned worker)
{
    convert_job *cj = arg;
    const ntt_plan *pl = cj->pl;
    size_t es = pl->ops->elem_bytes;
    uint64_t limbs[4];
    (void)worker;
    for (size_t j = 0; j < pl->n; j++) {
        size_t at = pl->row_major ? j * pl->columns + c : c * pl->n + j;
        unsigned char *ext = cj->data + at * es, *in = cj->work + (c * pl->n + j) * es;
        if (cj->back) {
            pl->ops->to_canonical(limbs, in);
            limbs_to_bytes(ext, limbs, es);
        } else {
            limbs_from_bytes(limbs, ext, es);
            pl->ops->from_canonical(in, limbs);
        }
    }
}

static void convert(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data, unsigned char *work, int back)
{
    convert_job cj = {pl, data, work, back};
    rt_pool_run(ctx->pool, pl->columns, convert_task, &cj);
}

/* One column in place: see the steps at the top. */
static void transform_column(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *tw, const void *shift_or_inv,
                             const void *n_inv)
{
    const ntt_field_ops *ops = pl->ops;
    int in_reversed = pl->order == HPR_NTT_RN || pl->order == HPR_NTT_RR;
    int out_reversed = pl->order == HPR_NTT_NR || pl->order == HPR_NTT_RR;
    ntt_elem one;
    set_small(ops, &one, 1);
    if (!pl->inverse) {
        if (in_reversed)
            ops->bitrev(ctx->pool, a, pl->n);
        if (pl->has_shift)
            ops->scale(ctx->pool, a, pl->n, &one, shift_or_inv);
        ops->dif(ctx->pool, a, pl->n, tw);
        if (!out_reversed)
            ops->bitrev(ctx->pool, a, pl->n);
        return;
    }
    if (!in_reversed)
        ops->bitrev(ctx->pool, a, pl->n);
    ops->dit(ctx->pool, a, pl->n, tw);
    ops->scale(ctx->pool, a, pl->n, n_inv, pl->has_shift ? shift_or_inv : (const void *)&one);
    if (out_reversed)
        ops->bitrev(ctx->pool, a, pl->n);
}

/* x^-1 = x^(p-2). */
static void invert(const ntt_field_ops *ops, void *r, const void *x)
{
    uint64_t e[4];
    memcpy(e, ops->modulus, sizeof e);
    e[0] -= 2; /* p is odd and > 2 */
    ops->pow(r, x, e);
}

static hpr_status run_plan(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data)
{
    const ntt_field_ops *ops = pl->ops;
    ntt_elem w, w_dir, shift_dir, n_inv;
    size_t total = pl->n * pl->columns, bad;
    if ((bad = first_out_of_range(ops, data, total)) < total)
        return hpr_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE,
                        "element %zu is not below the modulus p of %s (elements are canonical little-endian)", bad,
                        ops->name);
    if (primitive_root(ops, &pl->g, pl->log_n, &w) != 0)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "the generator gives no primitive root of order 2^%u in %s (not a multiplicative generator)",
                        pl->log_n, ops->name);
    if (pl->inverse)
        invert(ops, &w_dir, &w);
    else
        w_dir = w;
    if (pl->has_shift && pl->inverse)
        invert(ops, &shift_dir, &pl->shift);
    else
        shift_dir = pl->shift;
    set_small(ops, &n_inv, pl->n); /* n < p for every n the field allows */
    invert(ops, &n_inv, &n_inv);
    const void *tw = pl->n > 1 ? twiddles(ctx, ops, pl->g_limbs, &w_dir, pl->inverse, pl->log_n) : (const void *)&w_dir;
    unsigned char *work = rt_alloc_large(total * ops->elem_bytes);
    if (!tw || !work) {
        free(work);
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT of %zu x 2^%u elements: out of memory", pl->columns,
                        pl->log_n);
    }
    convert(ctx, pl, data, work, 0);
    for (size_t c = 0; c < pl->columns; c++)
        transform_column(ctx, pl, work + c * pl->n * ops->elem_bytes, tw, &shift_dir, &n_inv);
    convert(ctx, pl, data, work, 1);
    free(work);
    return HPR_OK;
}

hpr_status hpr_ntt(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts)
{
    ntt_plan pl;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx->detail[0] = '\0';
    if ((st = make_plan(ctx, field, log_n, opts, &pl)) != HPR_OK)
        return st;
    if (!data)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "data must not be NULL");
    return run_plan(ctx, &pl, data);
}

hpr_status hpr_ntt_lde(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, const char *shift,
                       const void *in, void *out)
{
    unsigned log_rate = rate == 2 ? 1 : rate == 4 ? 2 : rate == 8 ? 3 : 0;
    char g_dec[24];
    ntt_plan pl;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx->detail[0] = '\0';
    if (!log_rate)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "LDE rate %u is not 2, 4 or 8", rate);
    if (!in || !out)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "in and out must not be NULL");
    const ntt_field_ops *ops = field_ops(field);
    if (ops)
        snprintf(g_dec, sizeof g_dec, "%u", ops->generator);
    hpr_ntt_opts opts = {0, HPR_NTT_NN, shift ? shift : g_dec, NULL, 1, 0};
    if ((st = make_plan(ctx, field, log_n + log_rate, &opts, &pl)) != HPR_OK)
        return st;
    size_t n = (size_t)1 << log_n, bad;
    if ((bad = first_out_of_range(ops, in, n)) < n)
        return hpr_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE, "coefficient %zu is not below the modulus p of %s", bad,
                        ops->name);
    memcpy(out, in, n * ops->elem_bytes);
    memset((unsigned char *)out + n * ops->elem_bytes, 0, (pl.n - n) * ops->elem_bytes);
    return run_plan(ctx, &pl, out);
}
