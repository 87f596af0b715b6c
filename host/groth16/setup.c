/*
 * setup.c: the development setup (hpr_groth16_setup): a circom .r1cs in, a Groth16 .zkey in
 * snarkjs's layout (FORMATS.md section 4) and its verification key out, from toxic waste that
 * this one process draws and knows. For tests and benchmarks only: whoever ran it can forge
 * proofs for the key, so it is refused unless the caller says HPR_SETUP_INSECURE_DEV.
 *
 * What it computes, with tau, alpha, beta, delta drawn uniformly from Fr* (getrandom, or a
 * generator seeded by the caller's seed text), gamma = 1 as snarkjs has it, n the domain
 * (smallest power of two >= nConstraints + nPublic + 1) and L_k(tau) the n-domain's Lagrange
 * basis at tau (snarkjs's roots, generator 5):
 *     a_j = sum_k A_kj L_k(tau) (+ L_{nConstraints + j} for j <= nPublic: the public rows),
 *     b_j, c_j likewise with B and C;
 *     section 5 A_j = [a_j]_1, 6 B1_j = [b_j]_1, 7 B2_j = [b_j]_2,
 *     section 3 IC_j = [beta a_j + alpha b_j + c_j]_1 for j <= nPublic,
 *     section 8 C_j = [(beta a_j + alpha b_j + c_j) / delta]_1 for j > nPublic,
 *     section 9 H_i = [L^(2n)_(2i+1)(tau) / delta]_1, the odd points of the 2n-domain (FORMATS.md);
 *     section 2: alpha1, beta1, beta2, gamma2 (the G2 generator), delta1, delta2; section 4 the
 *     A and B entries (coef * R^2 mod r) by row, A before B, then the public rows; section 10
 *     an empty transcript (no contribution; its 64-byte circuit hash is zero: no ceremony made
 *     this key, and snarkjs's zkey verify, which recomputes it from a ptau, refuses the key).
 * Method: the r1cs is mapped and validated whole before anything is written; the wire
 * evaluations are three arrays of nWires scalars, the Lagrange values one of n; every point
 * section is made in blocks of BLOCK multiples by host/msm/fixed_base.c (one window table per
 * group, built once) and handed to the caller's writer, so the points are never all in memory.
 * Memory: 32 (n + 3 nWires) bytes of scalars, the two tables, one block of scalars and points.
 */
#define _GNU_SOURCE
#include "host/groth16/groth16.h"
#include "host/groth16/groth16_calls.h"
#include "host/groth16/r1cs.h"
#include "host/groth16/zkey.h"
#include "host/msm/fixed_base.h"
#include "host/msm/msm_calls.h"

#include "arith/curves.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define BLOCK 65536 /* multiples made and written at a time: 8 MiB of BLS12-381 G2 points */

typedef struct {
    size_t size;
    void (*root)(void *w, unsigned log_n);
    void (*mont)(void *r, const uint64_t *limbs);
    void (*mul)(void *r, const void *a, const void *b);
    void (*inv)(void *r, const void *a);
    void (*pow_u64)(void *r, const void *a, uint64_t e);
    void (*lagrange_scale)(void *scale, const void *tau, unsigned log_m, const void *factor);
    int (*lagrange_block)(void *out, size_t count, const void *tau, const void *scale, const void *start,
                          const void *step, void *scratch);
    void (*evaluate)(const r1cs_file *r, const void *L, void *const abc[3]);
    void (*coef_entry)(unsigned char *bytes, const uint64_t *coef);
    void (*query_scalars)(uint64_t (*limbs)[4], void *const abc[3], size_t first, size_t count, const void *alpha,
                          const void *beta, const void *factor);
    void (*to_limbs)(uint64_t (*limbs)[4], const void *x, size_t count);
} su_ops;

#define SU_F bn254_fr
#define SU_P BN254_FR
#include "host/groth16/setup_impl.h"
#define SU_F bls12_381_fr
#define SU_P BLS12_381_FR
#include "host/groth16/setup_impl.h"

enum { TAU, ALPHA, BETA, DELTA, TOXIC };

typedef struct {
    hpr_ctx *ctx;
    const r1cs_file *r;
    const su_ops *fr;
    hpr_write_fn write;
    void *user;
    const char *seed;     /* NULL: getrandom */
    uint64_t stream;      /* the seeded generator's state */
    uint32_t n_public, n_vars, log_n;
    size_t n, g1, g2, n8q;
    uint64_t toxic[TOXIC][4];                    /* canonical */
    uint64_t mont[TOXIC][4], inv_delta[4], one[4]; /* Montgomery forms */
    fixed_base *fb1, *fb2;
    void *L, *abc[3];
    uint64_t (*limbs)[4]; /* BLOCK scalars */
    unsigned char *points; /* BLOCK points of G2 size */
    unsigned char *header; /* section 2 */
    size_t header_len;
    unsigned char *ic; /* section 3 */
} setup_job;

/* ---- the toxic waste ---- */

/* 32 random bytes: from getrandom, or the next of the seeded stream. */
static hpr_status draw_words(hpr_ctx *ctx, uint64_t *stream, int seeded, uint64_t *k)
{
    size_t got = 0;
    if (seeded) {
        for (int i = 0; i < 4; i++)
            k[i] = msm_splitmix64(stream);
        return HPR_OK;
    }
    while (got < 32) {
        ssize_t n = getrandom((unsigned char *)k + got, 32 - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return ctx_fail(ctx, HPR_ERR_IO, "getrandom failed: %s", strerror(errno));
        got += (size_t)n;
    }
    return HPR_OK;
}

/* tau, alpha, beta, delta uniform in [1, r) (rejection on the bits above r's length). The
 * seed text is folded into 64 bits (FNV-1a): reproducible fixtures, not secrecy. */
static void seed_stream(setup_job *j, const char *seed)
{
    j->seed = seed;
    j->stream = 0xcbf29ce484222325ull;
    for (const char *c = seed; c && *c; c++)
        j->stream = (j->stream ^ (unsigned char)*c) * 0x100000001b3ull;
}

static hpr_status draw_toxic(setup_job *j)
{
    const msm_curve_ops *ops = msm_g1_ops(j->r->curve);
    hpr_status st;
    for (int t = 0; t < TOXIC; t++)
        do {
            if ((st = draw_words(j->ctx, &j->stream, j->seed != NULL, j->toxic[t])) != HPR_OK)
                return st;
            j->toxic[t][3] &= (((uint64_t)1) << (ops->scalar_bits - 192)) - 1;
        } while (!limbs4_below(j->toxic[t], ops->order) ||
                 (j->toxic[t][0] | j->toxic[t][1] | j->toxic[t][2] | j->toxic[t][3]) == 0);
    for (int t = 0; t < TOXIC; t++)
        j->fr->mont(j->mont[t], j->toxic[t]);
    j->fr->inv(j->inv_delta, j->mont[DELTA]);
    const uint64_t one[4] = {1, 0, 0, 0};
    j->fr->mont(j->one, one);
    return HPR_OK;
}

/* ---- writing ---- */

static hpr_status put(setup_job *j, const void *bytes, size_t len)
{
    if (len && j->write(j->user, bytes, len) != 0)
        return ctx_fail(j->ctx, HPR_ERR_IO, "setup: writing the zkey failed");
    return HPR_OK;
}

static void le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static hpr_status put_u32(setup_job *j, uint32_t v)
{
    unsigned char b[4];
    le32(b, v);
    return put(j, b, 4);
}

static hpr_status put_section_head(setup_job *j, uint32_t id, uint64_t size)
{
    unsigned char b[12];
    le32(b, id);
    le32(b + 4, (uint32_t)size);
    le32(b + 8, (uint32_t)(size >> 32));
    return put(j, b, 12);
}

/* count multiples of the group's generator, scalars from make(j, first, count), written as
 * they are made. */
typedef void (*scalars_fn)(setup_job *j, size_t first, size_t count);

static hpr_status put_multiples(setup_job *j, hpr_group group, size_t count, scalars_fn make)
{
    size_t size = group == HPR_G1 ? j->g1 : j->g2;
    hpr_status st = HPR_OK;
    for (size_t first = 0; first < count && st == HPR_OK; first += BLOCK) {
        size_t m = count - first < BLOCK ? count - first : BLOCK;
        make(j, first, m);
        if ((st = fixed_base_mul(j->ctx, group == HPR_G1 ? j->fb1 : j->fb2, (const uint64_t(*)[4])j->limbs, m,
                                 j->points)) == HPR_OK)
            st = put(j, j->points, m * size);
    }
    return st;
}

static void a_scalars(setup_job *j, size_t first, size_t count)
{
    j->fr->to_limbs(j->limbs, (const char *)j->abc[0] + first * j->fr->size, count);
}

static void b_scalars(setup_job *j, size_t first, size_t count)
{
    j->fr->to_limbs(j->limbs, (const char *)j->abc[1] + first * j->fr->size, count);
}

static void ic_scalars(setup_job *j, size_t first, size_t count)
{
    j->fr->query_scalars(j->limbs, j->abc, first, count, j->mont[ALPHA], j->mont[BETA], j->one);
}

static void c_scalars(setup_job *j, size_t first, size_t count)
{
    j->fr->query_scalars(j->limbs, j->abc, j->n_public + 1 + first, count, j->mont[ALPHA], j->mont[BETA],
                         j->inv_delta);
}

/* L^(2n)_(2i+1)(tau) / delta at the odd points g w_n^i of the 2n-domain (g = w_2n). The
 * Lagrange buffer j->L is free by now and holds the block's values. */
static void h_scalars(setup_job *j, size_t first, size_t count)
{
    uint64_t w2n[4], wn[4], start[4], scale[4];
    unsigned char *scratch = (unsigned char *)j->L + BLOCK * j->fr->size;
    j->fr->root(w2n, j->log_n + 1);
    j->fr->root(wn, j->log_n);
    j->fr->pow_u64(start, wn, first);
    j->fr->mul(start, start, w2n);
    j->fr->lagrange_scale(scale, j->mont[TAU], j->log_n + 1, j->inv_delta);
    /* tau is off the 2n-domain (checked when drawn), so this cannot fail */
    (void)j->fr->lagrange_block(j->L, count, j->mont[TAU], scale, start, wn, scratch);
    j->fr->to_limbs(j->limbs, j->L, count);
}

/* ---- the sections ---- */

static size_t coef_count(const setup_job *j)
{
    return (size_t)j->r->n_terms[0] + j->r->n_terms[1] + j->n_public + 1;
}

/* Section 2 and the vk's points: alpha1, beta1, beta2, gamma2, delta1, delta2. */
static hpr_status make_header(setup_job *j)
{
    const uint64_t *q = j->r->curve == HPR_CURVE_BN254 ? (const uint64_t[6])BN254_FP_P
                                                      : (const uint64_t[6])BLS12_381_FP_P;
    unsigned char *p = j->header;
    uint64_t r[4];
    const uint64_t one[4] = {1, 0, 0, 0};
    memcpy(r, msm_g1_ops(j->r->curve)->order, 32);
    le32(p, (uint32_t)j->n8q);
    for (size_t i = 0; i < j->n8q; i++)
        p[4 + i] = (unsigned char)(q[i / 8] >> (8 * (i % 8)));
    p += 4 + j->n8q;
    le32(p, 32);
    for (size_t i = 0; i < 32; i++)
        p[4 + i] = (unsigned char)(r[i / 8] >> (8 * (i % 8)));
    p += 36;
    le32(p, j->n_vars);
    le32(p + 4, j->n_public);
    le32(p + 8, (uint32_t)j->n);
    p += 12;
    const struct {
        const fixed_base *fb;
        const uint64_t *k;
        size_t at;
    } points[] = {{j->fb1, j->toxic[ALPHA], 0},
                  {j->fb1, j->toxic[BETA], j->g1},
                  {j->fb2, j->toxic[BETA], 2 * j->g1},
                  {j->fb2, one, 2 * j->g1 + j->g2},
                  {j->fb1, j->toxic[DELTA], 2 * j->g1 + 2 * j->g2},
                  {j->fb2, j->toxic[DELTA], 3 * j->g1 + 2 * j->g2}};
    hpr_status st = HPR_OK;
    for (size_t i = 0; i < sizeof points / sizeof points[0] && st == HPR_OK; i++)
        st = fixed_base_mul(j->ctx, points[i].fb, (const uint64_t(*)[4])points[i].k, 1, p + points[i].at);
    return st;
}

/* Section 3: IC_i for i <= nPublic, in blocks (a circuit may have more public signals than a
 * block holds). */
static hpr_status make_ic(setup_job *j)
{
    hpr_status st = HPR_OK;
    size_t count = (size_t)j->n_public + 1;
    for (size_t first = 0; first < count && st == HPR_OK; first += BLOCK) {
        size_t m = count - first < BLOCK ? count - first : BLOCK;
        ic_scalars(j, first, m);
        st = fixed_base_mul(j->ctx, j->fb1, (const uint64_t(*)[4])j->limbs, m, j->ic + first * j->g1);
    }
    return st;
}

static hpr_status put_coefficients(setup_job *j)
{
    const r1cs_file *r = j->r;
    const unsigned char *p = r->constraints;
    unsigned char e[44];
    hpr_status st = put_u32(j, (uint32_t)coef_count(j));
    for (uint32_t k = 0; k < r->n_constraints && st == HPR_OK; k++)
        for (uint32_t m = 0; m < 3; m++) {
            uint32_t count;
            const unsigned char *terms = r1cs_lc(r, &p, &count);
            for (uint32_t i = 0; i < count && m < 2 && st == HPR_OK; i++) {
                uint64_t coef[4];
                le32(e, m);
                le32(e + 4, k);
                le32(e + 8, r1cs_term(r, terms, i, coef));
                j->fr->coef_entry(e + 12, coef);
                st = put(j, e, sizeof e);
            }
        }
    for (uint32_t i = 0; i <= j->n_public && st == HPR_OK; i++) {
        const uint64_t one[4] = {1, 0, 0, 0};
        le32(e, 0);
        le32(e + 4, r->n_constraints + i);
        le32(e + 8, i);
        j->fr->coef_entry(e + 12, one);
        st = put(j, e, sizeof e);
    }
    return st;
}

static hpr_status put_zkey(setup_job *j)
{
    size_t n_private = j->n_vars - j->n_public - 1;
    hpr_status st;
    unsigned char transcript[68] = {0}; /* zero circuit hash, no contributions */
    if ((st = put(j, "zkey", 4)) != HPR_OK || (st = put_u32(j, 1)) != HPR_OK || (st = put_u32(j, 10)) != HPR_OK ||
        (st = put_section_head(j, 1, 4)) != HPR_OK || (st = put_u32(j, 1)) != HPR_OK ||
        (st = put_section_head(j, 2, j->header_len)) != HPR_OK || (st = put(j, j->header, j->header_len)) != HPR_OK ||
        (st = put_section_head(j, 3, (j->n_public + 1) * j->g1)) != HPR_OK ||
        (st = put(j, j->ic, (j->n_public + 1) * j->g1)) != HPR_OK ||
        (st = put_section_head(j, 4, 4 + 44 * (uint64_t)coef_count(j))) != HPR_OK ||
        (st = put_coefficients(j)) != HPR_OK || (st = put_section_head(j, 5, j->n_vars * j->g1)) != HPR_OK ||
        (st = put_multiples(j, HPR_G1, j->n_vars, a_scalars)) != HPR_OK ||
        (st = put_section_head(j, 6, j->n_vars * j->g1)) != HPR_OK ||
        (st = put_multiples(j, HPR_G1, j->n_vars, b_scalars)) != HPR_OK ||
        (st = put_section_head(j, 7, j->n_vars * j->g2)) != HPR_OK ||
        (st = put_multiples(j, HPR_G2, j->n_vars, b_scalars)) != HPR_OK ||
        (st = put_section_head(j, 8, n_private * j->g1)) != HPR_OK ||
        (st = put_multiples(j, HPR_G1, n_private, c_scalars)) != HPR_OK ||
        (st = put_section_head(j, 9, j->n * j->g1)) != HPR_OK ||
        (st = put_multiples(j, HPR_G1, j->n, h_scalars)) != HPR_OK ||
        (st = put_section_head(j, 10, sizeof transcript)) != HPR_OK)
        return st;
    return put(j, transcript, sizeof transcript);
}

/* ---- the evaluations ---- */

/* L_k(tau) for k < n, in blocks; 0 when tau lies on the 2n-domain (then drawn again). */
static int lagrange_all(setup_job *j, void *scratch)
{
    uint64_t wn[4], start[4], scale[4];
    size_t size = j->fr->size;
    j->fr->root(wn, j->log_n);
    j->fr->lagrange_scale(scale, j->mont[TAU], j->log_n, j->one);
    for (size_t first = 0; first < j->n; first += BLOCK) {
        size_t m = j->n - first < BLOCK ? j->n - first : BLOCK;
        j->fr->pow_u64(start, wn, first);
        if (!j->fr->lagrange_block((char *)j->L + first * size, m, j->mont[TAU], scale, start, wn, scratch))
            return 0;
    }
    /* the odd points too: h_scalars relies on tau being off the whole 2n-domain */
    uint64_t w2n[4];
    j->fr->root(w2n, j->log_n + 1);
    for (size_t first = 0; first < j->n; first += BLOCK) {
        size_t m = j->n - first < BLOCK ? j->n - first : BLOCK;
        unsigned char *tmp = (unsigned char *)scratch + BLOCK * size;
        j->fr->pow_u64(start, wn, first);
        j->fr->mul(start, start, w2n);
        if (!j->fr->lagrange_block(tmp, m, j->mont[TAU], scale, start, wn, scratch))
            return 0;
    }
    return 1;
}

/* ---- the call ---- */

static hpr_status check_sizes(setup_job *j, const char *path)
{
    const r1cs_file *r = j->r;
    unsigned max_log = r->curve == HPR_CURVE_BN254 ? BN254_FR_TWO_ADICITY - 1 : BLS12_381_FR_TWO_ADICITY - 1;
    uint64_t rows = (uint64_t)r->n_constraints + j->n_public + 1;
    j->log_n = 0;
    while (((uint64_t)1 << j->log_n) < rows)
        j->log_n++;
    if (j->log_n > max_log || j->log_n > 31)
        return ctx_fail(j->ctx, HPR_ERR_FORMAT, "%s: %llu rows (constraints + public signals + 1) need a domain of 2^%u, "
                        "above this curve's 2^%u", path, (unsigned long long)rows, j->log_n, max_log);
    /* every size below in 64 bits first: on a 32-bit host a header's counts could wrap them */
    uint64_t largest = (uint64_t)j->n_vars * (uint64_t)j->g2, rows_bytes = ((uint64_t)1 << j->log_n) * 32;
    if (largest > SIZE_MAX / 4 || rows_bytes > SIZE_MAX / 4 || (uint64_t)j->n_vars * 32 > SIZE_MAX / 4)
        return ctx_fail(j->ctx, HPR_ERR_OUT_OF_MEMORY, "%s: %u wires and a domain of 2^%u are too large for this "
                        "machine's address space", path, j->n_vars, j->log_n);
    j->n = (size_t)1 << j->log_n;
    if (coef_count(j) > UINT32_MAX)
        return ctx_fail(j->ctx, HPR_ERR_FORMAT, "%s: %zu A and B terms, more than a zkey's u32 nCoef holds", path,
                        coef_count(j));
    return HPR_OK;
}

static hpr_status allocate(setup_job *j)
{
    size_t size = j->fr->size;
    j->L = malloc((j->n > 2 * BLOCK ? j->n : 2 * BLOCK) * size);
    for (int m = 0; m < 3; m++)
        j->abc[m] = malloc((size_t)j->n_vars * size);
    j->limbs = malloc(BLOCK * sizeof *j->limbs);
    j->points = malloc(BLOCK * j->g2);
    j->header_len = 4 + j->n8q + 4 + 32 + 12 + 3 * j->g1 + 3 * j->g2;
    j->header = malloc(j->header_len);
    j->ic = malloc((j->n_public + 1) * j->g1);
    if (!j->L || !j->abc[0] || !j->abc[1] || !j->abc[2] || !j->limbs || !j->points || !j->header || !j->ic)
        return ctx_fail(j->ctx, HPR_ERR_OUT_OF_MEMORY, "setup: no memory for the evaluations of %u wires at 2^%u",
                        j->n_vars, j->log_n);
    return HPR_OK;
}

/* The toxic waste and what is made of it (L and the wire values are functions of tau) are
 * wiped before they are freed: "forgotten at return" (hyprove.h). */
static void wipe(void *p, size_t bytes)
{
    volatile unsigned char *v = p;
    for (size_t i = 0; p && i < bytes; i++)
        v[i] = 0;
}

static void release(setup_job *j)
{
    if (j->L)
        wipe(j->L, (j->n > 2 * BLOCK ? j->n : 2 * BLOCK) * j->fr->size);
    free(j->L);
    for (int m = 0; m < 3; m++) {
        wipe(j->abc[m], (size_t)j->n_vars * j->fr->size);
        free(j->abc[m]);
    }
    wipe(j->limbs, BLOCK * sizeof *j->limbs);
    wipe(j->toxic, sizeof j->toxic);
    wipe(j->mont, sizeof j->mont);
    wipe(j->inv_delta, sizeof j->inv_delta);
    free(j->limbs);
    free(j->points);
    free(j->header);
    free(j->ic);
    fixed_base_destroy(j->fb1);
    fixed_base_destroy(j->fb2);
}

/* The verification key of the setup: a zkey_file over the header and IC made here. */
static hpr_status make_vk(setup_job *j, char **vk_json)
{
    zkey_file zk;
    memset(&zk, 0, sizeof zk);
    zk.curve = j->r->curve;
    zk.n8q = (uint32_t)j->n8q;
    zk.n8r = 32;
    zk.n_vars = j->n_vars;
    zk.n_public = j->n_public;
    zk.domain_size = (uint32_t)j->n;
    zk.alpha1 = j->header + 4 + j->n8q + 36 + 12;
    zk.beta1 = zk.alpha1 + j->g1;
    zk.beta2 = zk.beta1 + j->g1;
    zk.gamma2 = zk.beta2 + j->g2;
    zk.delta1 = zk.gamma2 + j->g2;
    zk.delta2 = zk.delta1 + j->g1;
    zk.ic = j->ic;
    return g16_vk_json(j->ctx, &zk, vk_json);
}

static hpr_status run_setup(setup_job *j, const char *path, const char *seed, char **vk_json)
{
    hpr_status st;
    void *scratch = NULL;
    if ((st = check_sizes(j, path)) != HPR_OK || (st = allocate(j)) != HPR_OK)
        goto cleanup;
    seed_stream(j, seed);
    if (!(scratch = malloc(2 * BLOCK * j->fr->size))) {
        st = ctx_fail(j->ctx, HPR_ERR_OUT_OF_MEMORY, "setup: no memory for the Lagrange blocks");
        goto cleanup;
    }
    for (int tries = 0;; tries++) { /* tau on the 2n-domain: probability 2n / r; drawn again */
        if ((st = draw_toxic(j)) != HPR_OK)
            goto cleanup;
        if (lagrange_all(j, scratch))
            break;
        if (tries == 8) {
            st = ctx_fail(j->ctx, HPR_ERR_INTERNAL, "setup: tau fell on the evaluation domain 8 times");
            goto cleanup;
        }
    }
    j->fr->evaluate(j->r, j->L, j->abc);
    if ((st = fixed_base_create(j->ctx, j->r->curve, HPR_G1, NULL, j->n, &j->fb1)) != HPR_OK ||
        (st = fixed_base_create(j->ctx, j->r->curve, HPR_G2, NULL, j->n_vars, &j->fb2)) != HPR_OK)
        goto cleanup;
    if ((st = make_header(j)) == HPR_OK && (st = make_ic(j)) == HPR_OK && (st = put_zkey(j)) == HPR_OK && vk_json)
        st = make_vk(j, vk_json);
cleanup:
    wipe(scratch, scratch ? 2 * BLOCK * j->fr->size : 0);
    free(scratch);
    return st;
}

hpr_status groth16_setup_call(hpr_ctx *ctx, const char *r1cs_path, unsigned flags, const char *seed,
                              hpr_write_fn write, void *user, char **vk_json)
{
    r1cs_file r;
    setup_job j;
    hpr_status st;
    memset(&j, 0, sizeof j);
    if (vk_json)
        *vk_json = NULL;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!r1cs_path || !write)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "setup: the r1cs path or the writer is NULL");
    if (!(flags & HPR_SETUP_INSECURE_DEV))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "setup: this setup draws the toxic waste in one process, which could then forge proofs; it is "
                        "for tests and benchmarks only and runs only with HPR_SETUP_INSECURE_DEV (--insecure-dev)");
    if ((st = r1cs_open(ctx, r1cs_path, &r)) != HPR_OK)
        return st;
    j.ctx = ctx;
    j.r = &r;
    j.fr = r.curve == HPR_CURVE_BN254 ? &bn254_fr_su_ops : &bls12_381_fr_su_ops;
    j.write = write;
    j.user = user;
    j.n_public = r.n_pub_out + r.n_pub_in;
    j.n_vars = r.n_wires;
    j.g1 = msm_point_size(r.curve, HPR_G1);
    j.g2 = msm_point_size(r.curve, HPR_G2);
    j.n8q = j.g1 / 2;
    st = run_setup(&j, r1cs_path, seed, vk_json);
    release(&j);
    r1cs_close(&r);
    return st;
}
