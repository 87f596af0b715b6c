/*
 * ntt_pipeline.c: the CPU's stages of one NTT around the butterflies (portable kernels of
 * kernels_cpu/ntt_cpu.h, on the context's pool), and the field helpers they need.
 *
 * What and method, in the order a transform runs them (host/ntt/ntt.c strings them together):
 * (1) every element checked (< p, the first bad index named) before anything is written;
 * (2) the columns copied into a working buffer, column-major whatever the caller's layout;
 * (3) per column: forward = [bit-reverse a reversed input] [scale by shift^i] DIF (natural ->
 * bit-reversed) [bit-reverse for a natural output]; inverse = [bit-reverse a natural input]
 * DIT with w^-1 (bit-reversed -> natural) scale by n^-1 shift^-i [bit-reverse for a reversed
 * output]; the butterflies and the bit reversals next to them are the butterfly stage, which
 * a device may run instead (ntt_butterfly_stage); (4) the columns copied back.
 * No conversion to the internal form and back: a transform is linear, and it multiplies its
 * data only by constants in the internal form (twiddles, shifts, n^-1), where a Montgomery
 * product mont(x, c R) = x c keeps whatever factor x carries. So canonical elements x (read
 * as the Montgomery form of x R^-1) come out as the transform of x R^-1 times R, that is the
 * transform of x itself, in [0, p) as every kernel leaves its elements: the same bits as
 * converting in and out, without the two multiplications per element (about a third of a
 * 2^20 BN254 transform on the avx512 tier). The Groth16 prover's internal-form calls
 * (ntt_internal_form) hold true Montgomery elements, which the same argument leaves as they
 * are.
 * Roots: w = g^((p-1)/n), checked to have order exactly n (so an explicit generator that is
 * not one is refused).
 * LDE: the coefficients are copied straight into out and transformed there; the DIF
 * layers that only meet zeros are replaced by scaled copies (lde_segments).
 * Cost and why: so a rate-r LDE is r transforms of the input's size, not one of r times its
 * size. The checks and copies run on the pool in tasks of NTT_COPY_CHUNK elements;
 * checking everything first means a refused call has written nothing.
 */
#include "host/ntt/ntt_internal.h"
#include "host/core/pool_scan.h"

#include <stdlib.h>
#include <string.h>

void ntt_set_small(const ntt_field_ops *ops, void *elem, uint64_t v)
{
    uint64_t limbs[4] = {v, 0, 0, 0};
    ops->from_canonical(elem, limbs);
}

void ntt_invert(const ntt_field_ops *ops, void *r, const void *x)
{
    uint64_t e[4];
    memcpy(e, ops->modulus, sizeof e);
    e[0] -= 2; /* p is odd and > 2 */
    ops->pow(r, x, e);
}

int ntt_primitive_root(const ntt_field_ops *ops, const void *g, unsigned log_n, void *w)
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

/* ---- (1) range checks ---- */

/* The first of count canonical elements at data that is not below p, or count: compared
 * word by word with the modulus (little-endian words, as the elements are), nothing
 * converted. */
static size_t first_out_of_range(const ntt_field_ops *ops, const unsigned char *data, size_t count)
{
    const uint64_t *p = ops->modulus;
    size_t i = 0;
    if (ops->elem_bytes == 4) {
        for (uint32_t v; i < count && (memcpy(&v, data + 4 * i, 4), v < p[0]); i++)
            ;
    } else if (ops->elem_bytes == 8) {
        for (uint64_t v; i < count && (memcpy(&v, data + 8 * i, 8), v < p[0]); i++)
            ;
    } else {
        for (uint64_t v[4]; i < count; i++) {
            int k = 3;
            memcpy(v, data + 32 * i, sizeof v);
            while (k > 0 && v[k] == p[k])
                k--;
            if (v[k] >= p[k])
                break;
        }
    }
    return i;
}

typedef struct {
    const ntt_field_ops *ops;
    const unsigned char *data;
} range_check;

static size_t first_out_of_range_in(const void *arg, size_t begin, size_t end)
{
    const range_check *rc = arg;
    return begin + first_out_of_range(rc->ops, rc->data + begin * rc->ops->elem_bytes, end - begin);
}

size_t ntt_first_out_of_range_on_pool(hpr_ctx *ctx, const ntt_field_ops *ops, const unsigned char *data,
                                      size_t count)
{
    const range_check rc = {ops, data};
    return pool_first_rejected(ctx, count, NTT_COPY_CHUNK, first_out_of_range_in, &rc);
}

/* ---- (2), (4) copies in and out ---- */

typedef struct {
    hpr_ctx *ctx;       /* the progress of the call (a unit per element) */
    const ntt_plan *pl;
    unsigned char *data, *work;
    int back;           /* 0: data -> work (checked), 1: work -> data */
    size_t *first_bad;  /* per task: the first index (in data) >= p, or SIZE_MAX */
} copy_job;

/* Task t: elements [t * NTT_COPY_CHUNK, ...) of the column-major order; a row-major
 * caller's element (column c, row j) sits at j * columns + c of data. */
static void copy_task(void *arg, size_t t, unsigned worker)
{
    copy_job *cj = arg;
    const ntt_plan *pl = cj->pl;
    size_t es = pl->ops->elem_bytes, total = pl->n * pl->columns;
    size_t b = t * NTT_COPY_CHUNK, e = b + NTT_COPY_CHUNK < total ? b + NTT_COPY_CHUNK : total;
    (void)worker;
    cj->first_bad[t] = SIZE_MAX;
    progress_add(cj->ctx, e - b);
    if (!pl->row_major) {
        const unsigned char *from = (cj->back ? cj->work : cj->data) + b * es;
        unsigned char *to = (cj->back ? cj->data : cj->work) + b * es;
        size_t good = cj->back ? e - b : first_out_of_range(pl->ops, from, e - b);
        if (good < e - b)
            cj->first_bad[t] = b + good;
        else
            memcpy(to, from, (e - b) * es);
        return;
    }
    for (size_t i = b; i < e; i++) {
        size_t c = i / pl->n, j = i % pl->n, at = j * pl->columns + c;
        if (cj->back)
            memcpy(cj->data + at * es, cj->work + i * es, es);
        else if (first_out_of_range(pl->ops, cj->data + at * es, 1) == 0)
            cj->first_bad[t] = at < cj->first_bad[t] ? at : cj->first_bad[t];
        else
            memcpy(cj->work + i * es, cj->data + at * es, es);
    }
}

size_t ntt_copy_columns(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data, unsigned char *work, int back,
                   size_t *first_bad)
{
    size_t tasks = (pl->n * pl->columns + NTT_COPY_CHUNK - 1) / NTT_COPY_CHUNK, bad = SIZE_MAX;
    copy_job cj = {ctx, pl, data, work, back, first_bad};
    rt_pool_run(ctx->pool, tasks, copy_task, &cj);
    for (size_t t = 0; t < tasks; t++)
        bad = first_bad[t] < bad ? first_bad[t] : bad;
    return bad;
}

typedef struct {
    const ntt_field_ops *ops;
    const unsigned char *in;
    unsigned char *out;
    size_t n, m; /* coefficients and evaluations per column */
} lde_load_job;

/* Column c of the LDE's output: its n coefficients (checked before), then zeros. */
static void lde_load_task(void *arg, size_t c, unsigned worker)
{
    lde_load_job *lj = arg;
    size_t es = lj->ops->elem_bytes;
    unsigned char *col = lj->out + c * lj->m * es;
    (void)worker;
    memcpy(col, lj->in + c * lj->n * es, lj->n * es);
    memset(col + lj->n * es, 0, (lj->m - lj->n) * es);
}

void ntt_lde_load(hpr_ctx *ctx, const ntt_plan *pl, const unsigned char *in, unsigned char *out, size_t n)
{
    lde_load_job lj = {pl->ops, in, out, n, pl->n};
    rt_pool_run(ctx->pool, pl->columns, lde_load_task, &lj);
}

/* ---- (3) the steps of one column around its butterflies (see the top): host work before
 * and after, and what the butterfly stage does (on the CPU or a device) ---- */

int ntt_input_reversed(const ntt_plan *pl)
{
    return pl->order == HPR_NTT_RN || pl->order == HPR_NTT_RR;
}

int ntt_output_reversed(const ntt_plan *pl)
{
    return pl->order == HPR_NTT_NR || pl->order == HPR_NTT_RR;
}

cl_ntt_job ntt_butterfly_stage(const ntt_plan *pl)
{
    cl_ntt_job job = {(int)pl->field, pl->ops->elem_bytes, pl->log_n, pl->inverse, 0, 0};
    job.bitrev_before = pl->inverse && !ntt_input_reversed(pl);
    job.bitrev_after = !pl->inverse && !ntt_output_reversed(pl);
    return job;
}

/* i reversed in its low bits bits */
static size_t reverse_bits(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++)
        r |= ((i >> b) & 1) << (bits - 1 - b);
    return r;
}

/* The LDE's first lde_log_rate DIF layers, on a column whose upper segments are zero: they
 * leave segment t (of n / rate elements) = a_j (shift w^rev(t))^j, w the plan's n-th root,
 * rev over lde_log_rate bits. So each segment is the scaled coefficients, and the rest of the
 * DIF is one transform of n / rate per segment: the same field elements as the whole DIF on
 * the padded column, without the zeros' work. */
static void lde_segments(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *a, const void *shift, const void *w)
{
    size_t seg = pl->n >> pl->lde_log_rate, bytes = seg * pl->ops->elem_bytes;
    ntt_elem one, factor;
    ntt_set_small(pl->ops, &one, 1);
    for (size_t t = ((size_t)1 << pl->lde_log_rate) - 1; t >= 1; t--) {
        uint64_t e[4] = {reverse_bits(t, pl->lde_log_rate), 0, 0, 0};
        pl->ops->pow(&factor, w, e);
        pl->ops->mul(&factor, &factor, pl->has_shift ? shift : (const void *)&one);
        memcpy(a + t * bytes, a, bytes);
        pl->ops->scale(ctx->pool, a + t * bytes, seg, &one, &factor);
    }
    if (pl->has_shift)
        pl->ops->scale(ctx->pool, a, seg, &one, shift);
}

void ntt_before_butterflies(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *shift, const void *w)
{
    ntt_elem one;
    ntt_set_small(pl->ops, &one, 1);
    if (pl->inverse)
        return;
    if (pl->lde_log_rate) {
        lde_segments(ctx, pl, a, shift, w);
        return;
    }
    if (ntt_input_reversed(pl))
        pl->ops->bitrev(ctx->pool, a, pl->n);
    if (pl->has_shift)
        pl->ops->scale(ctx->pool, a, pl->n, &one, shift);
}

void ntt_butterflies_on_cpu(hpr_ctx *ctx, const ntt_plan *pl, void *a, const ntt_tables *tw)
{
    cl_ntt_job job = ntt_butterfly_stage(pl);
    if (job.bitrev_before)
        pl->ops->bitrev(ctx->pool, a, pl->n);
    size_t segments = (size_t)1 << pl->lde_log_rate, seg = pl->n / segments; /* see lde_segments */
    if (job.dit)
        pl->ops->dit(ctx->pool, a, pl->n, tw->cpu);
    else
        for (size_t t = 0; t < segments; t++) {
            pl->ops->dif(ctx->pool, (unsigned char *)a + t * seg * pl->ops->elem_bytes, seg, tw->cpu);
            progress_add(ctx, (uint64_t)seg * pl->log_n);
        }
    if (job.dit)
        progress_add(ctx, (uint64_t)pl->n * pl->log_n);
    if (job.bitrev_after)
        pl->ops->bitrev(ctx->pool, a, pl->n);
}

void ntt_after_butterflies(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *shift_inv, const void *n_inv)
{
    ntt_elem one;
    ntt_set_small(pl->ops, &one, 1);
    if (!pl->inverse)
        return;
    pl->ops->scale(ctx->pool, a, pl->n, n_inv, pl->has_shift ? shift_inv : (const void *)&one);
    if (ntt_output_reversed(pl))
        pl->ops->bitrev(ctx->pool, a, pl->n);
}
