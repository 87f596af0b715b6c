/*
 * groth16_h.c: the scalars of the Groth16 H multi-exponentiation (FORMATS.md section 5,
 * steps 1-3), from a parsed .zkey and a witness: the NTT-heavy part of the prover (its MSMs
 * run in host/groth16/groth16_work.c, the blinding in host/groth16/groth16_prove.c).
 *
 * 1. a[row] = sum over the A entries of value * w[signal], b likewise. A stored value is
 *    coef * R^2 mod r ("double Montgomery") and w is in normal form, so one Montgomery
 *    multiplication of the raw limbs gives coef * w * R: the Montgomery form of coef * w.
 *    c[row] = a[row] * b[row].
 * 2. a, b, c: inverse NTT over w_n, then the coset NTT with shift g = w_2n (one batch of
 *    three columns each time), with snarkjs's roots: generator 5 for both curves. The columns
 *    stay in Montgomery form from step 1 to step 3 (ntt_internal_form: no conversions).
 * Steps 1 and 3 and the products run on the pool. Step 1: where the entries' rows never
 * decrease (zk->coef_rows_sorted: snarkjs writes them by row, FORMATS.md), as tasks of
 * consecutive entries cut at row changes, so no two tasks write one row and each entry is
 * read once; else as (matrix, row slice) tasks that each scan every entry and keep their own
 * (2 x threads scans of the section: at 2^20 they were 2.6% of a proof's CPU time).
 * 3. h[i] = a'[i] * b'[i] - c'[i], canonical little-endian.
 * Steps 2 and 3 may instead run on an OpenCL device with the H MSM after them, h never
 * leaving it (host/groth16/groth16_h_device.c): g16_h_evaluations and g16_h_ntt_opts serve both.
 * No division by Z: A*B - C has degree < 2n and the H points are the odd Lagrange basis of
 * the 2n domain, so its values on the odd coset are the scalars themselves.
 */
#include "host/groth16/groth16_h.h"

#include "host/core/decimal.h"
#include "host/ntt/ntt_internal.h"

#include "arith/curves.h"
#include "runtime/base/rt_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SNARKJS_GENERATOR "5"

/* The parallel steps: 1 as tasks (matrix, row slice), each scanning every coefficient entry
 * and keeping its own (so no two tasks write one row: the entries are not sorted by row);
 * the product c = a b and step 3 in chunks of rows. */
typedef struct {
    const zkey_file *zk;
    const unsigned char *w;
    unsigned char *abc; /* a, b, c columns of n elements (32 bytes) */
    unsigned char *h;
    size_t slices;      /* row slices per matrix */
    /* sorted entries: task t takes entries [start[t], start[t + 1]) and rows [row[t], row[t + 1]) */
    const uint32_t *start, *row;
} h_job;

#define ROW_CHUNK 4096

/* Steps 1 and 3 per curve (FE: the scalar field type). */
#define GROTH16_STEPS(FE)                                                                            \
    /* *a += value * w[signal] of the coefficient entry e (both tasks of step 1) */                  \
    static inline void FE##_add_term(FE *a, const unsigned char *e, const unsigned char *w)           \
    {                                                                                                \
        uint64_t v[4], x[4];                                                                         \
        FE value, wit, t;                                                                            \
        memcpy(v, e + 12, 32);                                                                       \
        memcpy(x, w + (size_t)le32(e + 8) * 32, 32);                                                 \
        FE##_set_limbs(&value, v);                                                                   \
        FE##_set_limbs(&wit, x);                                                                     \
        FE##_mul(&t, &value, &wit);                                                                  \
        FE##_add(a, a, &t);                                                                          \
    }                                                                                                \
    static void FE##_accumulate_task(void *arg, size_t task, unsigned worker)                        \
    {                                                                                                \
        const h_job *j = arg;                                                                        \
        const zkey_file *zk = j->zk;                                                                 \
        size_t n = zk->domain_size, entry = 12 + (size_t)zk->n8r;                                    \
        uint32_t want = (uint32_t)(task % 2), r0 = (uint32_t)(n * (task / 2) / j->slices),           \
                 r1 = (uint32_t)(n * (task / 2 + 1) / j->slices);                                    \
        FE *acc = (FE *)(void *)j->abc + want * n; /* Montgomery, in place */                        \
        (void)worker;                                                                                \
        for (uint32_t r = r0; r < r1; r++)                                                           \
            FE##_set_zero(&acc[r]);                                                                  \
        for (uint32_t k = 0; k < zk->n_coef; k++) {                                                  \
            const unsigned char *e = zk->coef + k * entry;                                           \
            uint32_t row = le32(e + 4);                                                              \
            if (le32(e) == want && row >= r0 && row < r1)                                            \
                FE##_add_term(&acc[row], e, j->w);                                                   \
        }                                                                                            \
    }                                                                                                \
    /* the same over sorted entries: task t's own rows zeroed, then its entries added */            \
    static void FE##_accumulate_sorted_task(void *arg, size_t t, unsigned worker)                    \
    {                                                                                                \
        const h_job *j = arg;                                                                        \
        const zkey_file *zk = j->zk;                                                                 \
        size_t n = zk->domain_size, entry = 12 + (size_t)zk->n8r;                                    \
        FE *acc = (FE *)(void *)j->abc;                                                              \
        (void)worker;                                                                                \
        for (uint32_t r = j->row[t]; r < j->row[t + 1]; r++) {                                       \
            FE##_set_zero(&acc[r]);                                                                  \
            FE##_set_zero(&acc[n + r]);                                                              \
        }                                                                                            \
        for (uint32_t k = j->start[t]; k < j->start[t + 1]; k++) {                                   \
            const unsigned char *e = zk->coef + k * entry;                                           \
            FE##_add_term(&acc[(size_t)le32(e) * n + le32(e + 4)], e, j->w);                         \
        }                                                                                            \
    }                                                                                                \
    /* c = a b (Montgomery: the NTTs take the columns in that form) */                               \
    static void FE##_product_task(void *arg, size_t chunk, unsigned worker)                          \
    {                                                                                                \
        const h_job *j = arg;                                                                        \
        size_t n = j->zk->domain_size, end = (chunk + 1) * ROW_CHUNK < n ? (chunk + 1) * ROW_CHUNK : n; \
        FE *acc = (FE *)(void *)j->abc;                                                              \
        (void)worker;                                                                                \
        for (size_t i = chunk * ROW_CHUNK; i < end; i++)                                             \
            FE##_mul(&acc[2 * n + i], &acc[i], &acc[n + i]);                                         \
    }                                                                                                \
    /* h = a b - c, canonical */                                                                     \
    static void FE##_combine_task(void *arg, size_t chunk, unsigned worker)                          \
    {                                                                                                \
        const h_job *j = arg;                                                                        \
        size_t n = j->zk->domain_size, end = (chunk + 1) * ROW_CHUNK < n ? (chunk + 1) * ROW_CHUNK : n; \
        const FE *acc = (const FE *)(const void *)j->abc;                                            \
        (void)worker;                                                                                \
        for (size_t i = chunk * ROW_CHUNK; i < end; i++) {                                           \
            uint64_t l[4];                                                                           \
            FE a;                                                                                    \
            FE##_mul(&a, &acc[i], &acc[n + i]);                                                      \
            FE##_sub(&a, &a, &acc[2 * n + i]);                                                       \
            FE##_from_mont(l, &a);                                                                   \
            memcpy(j->h + i * 32, l, 32);                                                            \
        }                                                                                            \
    }                                                                                                \
    static void FE##_coset_shift(unsigned log_2n, char *dec)                                         \
    {                                                                                                \
        static const uint64_t p[4] = FE##_MODULUS;                                                   \
        uint64_t e[4], l[4];                                                                         \
        FE g, wn;                                                                                    \
        memcpy(e, p, sizeof e);                                                                      \
        e[0] -= 1;                                                                                   \
        for (unsigned k = 0; k < log_2n; k++)                                                        \
            for (int i = 0; i < 4; i++)                                                              \
                e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);                                   \
        FE##_set_u64(&g, 5);                                                                         \
        FE##_pow_var(&wn, &g, e);                                                                    \
        FE##_from_mont(l, &wn);                                                                      \
        dec_from_limbs(dec, l, 4);                                                                   \
    }

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Sorted entries cut into `tasks` runs of about equal length, each start moved forward past
 * the row of the entry before it (start[tasks] = n_coef), and each run's first row (row[0] =
 * 0, row[tasks] = n): the rows of run t are [row[t], row[t + 1]). */
static uint32_t entry_row(const zkey_file *zk, uint32_t k)
{
    return le32(zk->coef + (size_t)k * (12 + zk->n8r) + 4);
}

static void cut_sorted_entries(const zkey_file *zk, size_t tasks, uint32_t *start, uint32_t *row)
{
    start[0] = 0;
    row[0] = 0;
    for (size_t t = 1; t <= tasks; t++) {
        uint32_t s = (uint32_t)((uint64_t)zk->n_coef * t / tasks);
        if (s < start[t - 1])
            s = start[t - 1];
        while (s > 0 && s < zk->n_coef && entry_row(zk, s) == entry_row(zk, s - 1))
            s++;
        start[t] = t == tasks ? zk->n_coef : s;
        row[t] = t == tasks || s == zk->n_coef ? zk->domain_size : entry_row(zk, s);
    }
}

#define bn254_fr_MODULUS BN254_FR_P
#define bls12_381_fr_MODULUS BLS12_381_FR_P
GROTH16_STEPS(bn254_fr)
GROTH16_STEPS(bls12_381_fr)

hpr_status g16_h_evaluations(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *w, unsigned char **abc)
{
    size_t n = zk->domain_size, chunks = (n + ROW_CHUNK - 1) / ROW_CHUNK;
    int bn = zk->curve == HPR_CURVE_BN254;
    size_t tasks = zk->coef_rows_sorted ? 4 * (size_t)ctx->threads : 0;
    uint32_t *cuts = tasks ? malloc(2 * (tasks + 1) * sizeof *cuts) : NULL;
    h_job job = {zk, w, rt_alloc_large(3 * n * 32), NULL, ctx->threads, cuts, cuts ? cuts + tasks + 1 : NULL};
    *abc = job.abc;
    if (!job.abc || (tasks && !cuts)) {
        free(cuts);
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for 3 x %zu evaluations", n);
    }
    size_t coef_bytes = (size_t)zk->n_coef * (12 + zk->n8r);
    zkey_pages_hold(zk, zk->coef, coef_bytes); /* resident while read (zkey.h) */
    if (tasks) {
        cut_sorted_entries(zk, tasks, cuts, cuts + tasks + 1);
        rt_pool_run(ctx->pool, tasks, bn ? bn254_fr_accumulate_sorted_task : bls12_381_fr_accumulate_sorted_task, &job);
    } else {
        rt_pool_run(ctx->pool, 2 * job.slices, bn ? bn254_fr_accumulate_task : bls12_381_fr_accumulate_task, &job);
    }
    free(cuts);
    zkey_pages_release(zk, zk->coef, coef_bytes);
    rt_pool_run(ctx->pool, chunks, bn ? bn254_fr_product_task : bls12_381_fr_product_task, &job);
    return HPR_OK;
}

void g16_h_ntt_opts(const zkey_file *zk, int coset, const char *device, char *shift, hpr_ntt_opts *opts)
{
    if (coset && zk->curve == HPR_CURVE_BN254)
        bn254_fr_coset_shift(zkey_log_domain(zk) + 1, shift);
    else if (coset)
        bls12_381_fr_coset_shift(zkey_log_domain(zk) + 1, shift);
    *opts = (hpr_ntt_opts){sizeof(hpr_ntt_opts), !coset, HPR_NTT_NN, coset ? shift : NULL, SNARKJS_GENERATOR, 3, 0,
                           device};
}

hpr_status g16_h_from_evaluations(hpr_ctx *ctx, const zkey_file *zk, unsigned char *abc, unsigned char *h,
                                  const char *device)
{
    size_t n = zk->domain_size, chunks = (n + ROW_CHUNK - 1) / ROW_CHUNK;
    char shift[96];
    int bn = zk->curve == HPR_CURVE_BN254;
    hpr_field field = bn ? HPR_FIELD_BN254_FR : HPR_FIELD_BLS12_381_FR;
    h_job job = {zk, NULL, abc, h, ctx->threads, NULL, NULL};
    hpr_ntt_opts inverse, coset;
    hpr_status st;
    g16_h_ntt_opts(zk, 0, device, shift, &inverse);
    g16_h_ntt_opts(zk, 1, device, shift, &coset);
    if ((st = ntt_internal_form(ctx, field, zkey_log_domain(zk), abc, &inverse)) == HPR_OK &&
        (st = ntt_internal_form(ctx, field, zkey_log_domain(zk), abc, &coset)) == HPR_OK)
        rt_pool_run(ctx->pool, chunks, bn ? bn254_fr_combine_task : bls12_381_fr_combine_task, &job);
    return st;
}

hpr_status g16_h(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *w, unsigned char *h, const char *device)
{
    unsigned char *abc;
    hpr_status st = g16_h_evaluations(ctx, zk, w, &abc);
    if (st == HPR_OK)
        st = g16_h_from_evaluations(ctx, zk, abc, h, device);
    free(abc);
    return st;
}
