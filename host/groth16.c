/*
 * groth16.c: the Groth16 prover of snarkjs/circom files: the prover handle over a mapped
 * .zkey, the proof, and its snarkjs JSON.
 *
 * The proof (snarkjs's groth16 prove, FORMATS.md section 5), with w the witness, h the
 * scalars of host/groth16_h.c and r, s uniform in [0, q) from getrandom:
 *     pi_a = alpha1 + sum w_i A_i + r delta1
 *     pib1 = beta1 + sum w_i B1_i + s delta1           (G1, only for pi_c)
 *     pi_b = beta2 + sum w_i B2_i + s delta2           (G2)
 *     pi_c = sum_{i > nPublic} w_i C_i + sum h_j H_j + s pi_a + r pib1 - r s delta1
 * The five large MSMs go through hpr_msm_ex on the context's device (the G1 ones split by
 * the hybrid scheduler under "all", G2 on the CPU); each blinding sum is one small MSM of
 * the large MSM's result and the key's points, so no separate scalar multiplication code
 * exists. Phases run one after another; each records its time and the devices that took
 * its points (hpr_groth16_report).
 * Thread safety: the prover is read-only after hpr_groth16_prover_create (the zkey mapping
 * and its parsed offsets); all per-proof state lives on the stack, the heap and the caller's
 * context.
 */
#define _GNU_SOURCE
#include "groth16.h"
#include "groth16_h.h"

#include "../kernels_cl/arith/curves.h"
#include "../runtime/rt_fs.h"
#include "../runtime/rt_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct hpr_groth16_prover {
    hpr_zkey zk;
};

hpr_status hpr_groth16_prover_create(hpr_ctx *ctx, const char *zkey_path, hpr_groth16_prover **out)
{
    hpr_groth16_prover *p;
    hpr_status st;
    if (!ctx || !zkey_path || !out)
        return ctx ? hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey path and out must not be NULL")
                   : HPR_ERR_INVALID_ARGUMENT;
    *out = NULL;
    ctx->detail[0] = '\0';
    p = calloc(1, sizeof *p);
    if (!p)
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16 prover: out of memory");
    st = hpr_zkey_open(ctx, zkey_path, &p->zk);
    if (st != HPR_OK) {
        free(p);
        return st;
    }
    *out = p;
    return HPR_OK;
}

void hpr_groth16_prover_destroy(hpr_groth16_prover *prover)
{
    if (!prover)
        return;
    hpr_zkey_close(&prover->zk);
    free(prover);
}

hpr_curve hpr_groth16_prover_curve(const hpr_groth16_prover *prover)
{
    return prover->zk.curve;
}

void hpr_groth16_prover_sizes(const hpr_groth16_prover *prover, size_t *domain_size, size_t *n_vars, size_t *n_public)
{
    if (domain_size)
        *domain_size = prover->zk.domain_size;
    if (n_vars)
        *n_vars = prover->zk.n_vars;
    if (n_public)
        *n_public = prover->zk.n_public;
}

const hpr_zkey *hpr_groth16_prover_zkey(const hpr_groth16_prover *prover)
{
    return &prover->zk;
}

/* "cpu 62%, cl:0.0 38%" from the context's report of the last call ("cpu" without one). */
static void describe_devices(const hpr_ctx *ctx, char *out, size_t len)
{
    const hpr_run_report *r = &ctx->report;
    unsigned long long total = 0;
    size_t used = 0;
    out[0] = '\0';
    if (!ctx->have_report || r->ndevices == 0) { /* a call without a report: its single device */
        snprintf(out, len, "%s", strncmp(ctx->device, "cl:", 3) == 0 ? ctx->device : "cpu");
        return;
    }
    for (unsigned d = 0; d < r->ndevices; d++)
        total += r->devices[d].points;
    for (unsigned d = 0; d < r->ndevices && used < len; d++) {
        if (r->ndevices > 1 && r->devices[d].points == 0)
            continue;
        int k = r->ndevices == 1 || total == 0
                    ? snprintf(out + used, len - used, "%s%s", used ? ", " : "", r->devices[d].device)
                    : snprintf(out + used, len - used, "%s%s %.0f%%", used ? ", " : "", r->devices[d].device,
                               100.0 * (double)r->devices[d].points / (double)total);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

typedef struct {
    hpr_ctx *ctx;
    const hpr_zkey *zk;
    hpr_groth16_proof *proof;
    double t;
    char notices[CL_DETAIL_LEN]; /* the phases' notices (device faults made good), joined */
} prove_run;

/* Appends text to the joined notices. */
static void add_notice(char *notices, size_t len, const char *text)
{
    size_t used = strlen(notices);
    if (text[0] && used + 2 < len)
        snprintf(notices + used, len - used, "%s%.200s", used ? "; " : "", text);
}

/* Closes the phase that started at run->t: its time, devices and notice. */
static void end_phase(prove_run *run, hpr_groth16_phase phase, int with_devices)
{
    double now = rt_now_seconds();
    run->proof->report.seconds[phase] = now - run->t;
    if (with_devices)
        describe_devices(run->ctx, run->proof->report.devices[phase], sizeof run->proof->report.devices[phase]);
    add_notice(run->notices, sizeof run->notices, run->ctx->notice);
    run->t = now;
}

hpr_status hpr_groth16_run_msm(hpr_ctx *ctx, hpr_curve curve, const g16_msm *m, const char *device)
{
    static const char *names[HPR_G16_PHASES] = {"", "", "A", "B1", "B2", "C", "H", ""};
    hpr_msm_opts opts = {0, 0, 0, m->group == HPR_G2 ? "cpu" : device}; /* G2: CPU kernels only */
    hpr_status st = hpr_msm_ex(ctx, curve, m->group, m->points, m->scalars, m->n, m->out, &opts);
    if (st != HPR_OK) {
        char why[CL_DETAIL_LEN];
        snprintf(why, sizeof why, "%s", ctx->detail);
        return hpr_fail(ctx, st, "Groth16 MSM %s (%zu points): %.400s", names[m->phase], m->n, why);
    }
    return HPR_OK;
}

/* The phases one after another, each on the context's device (G2: the CPU). */
static hpr_status run_phases(prove_run *run, g16_work *work)
{
    hpr_status st = hpr_groth16_h(run->ctx, work->zk, work->w, work->h, NULL);
    if (st != HPR_OK)
        return st;
    end_phase(run, HPR_G16_H, 1);
    for (unsigned i = 0; i < G16_MSMS; i++) {
        if ((st = hpr_groth16_run_msm(run->ctx, work->zk->curve, &work->msm[i], NULL)) != HPR_OK)
            return st;
        end_phase(run, work->msm[i].phase, 1);
    }
    return HPR_OK;
}

/* The task graph when the context's device is "all" and an OpenCL device can join, else the
 * phases in order. */
static hpr_status run_work(prove_run *run, g16_work *work)
{
    cl_dev *devs[HPR_REPORT_MAX_DEVICES - 1];
    unsigned ndev = 0;
    if (strcmp(run->ctx->device, "all") == 0)
        ndev = hpr_pick_opencl_devices(run->ctx, work->zk->curve, devs, HPR_REPORT_MAX_DEVICES - 1);
    if (ndev == 0)
        return run_phases(run, work);
    hpr_status st = hpr_groth16_graph(run->ctx, work, devs, ndev, &run->proof->report, run->notices, sizeof run->notices);
    run->t = rt_now_seconds();
    return st;
}

/* A small G1/G2 sum k_0 P_0 + ... (points in the interchange form, scalars canonical) on the
 * CPU: the blinding terms. */
static hpr_status small_sum(prove_run *run, hpr_group group, const unsigned char *const *points,
                            const unsigned char *const *scalars, size_t n, unsigned char *out)
{
    unsigned char pts[5 * 192], sc[5 * 32];
    size_t size = hpr_point_size(run->zk->curve, group);
    hpr_msm_opts opts = {0, 0, 0, "cpu"};
    for (size_t i = 0; i < n; i++) {
        memcpy(pts + i * size, points[i], size);
        memcpy(sc + i * 32, scalars[i], 32);
    }
    return hpr_msm_ex(run->ctx, run->zk->curve, group, pts, sc, n, out, &opts);
}

/* Scalar-field helpers on canonical 32-byte values (both curves' r has 4 limbs). */
#define FR_HELPERS(FR)                                                                                     \
    static void FR##_neg_product(unsigned char *out, const unsigned char *a, const unsigned char *b)       \
    {                                                                                                      \
        uint64_t la[4], lb[4];                                                                             \
        FR x, y;                                                                                           \
        memcpy(la, a, 32);                                                                                 \
        memcpy(lb, b, 32);                                                                                 \
        FR##_to_mont(&x, la);                                                                              \
        FR##_to_mont(&y, lb);                                                                              \
        FR##_mul(&x, &x, &y);                                                                              \
        FR##_neg(&x, &x);                                                                                  \
        FR##_from_mont(la, &x);                                                                            \
        memcpy(out, la, 32);                                                                               \
    }
FR_HELPERS(bn254_fr)
FR_HELPERS(bls12_381_fr)

/* The blinding: pi_a, pi_b, pi_c from the five MSM results (msm: A, B1, C, H in G1, B2). */
static hpr_status assemble(prove_run *run, const unsigned char *msm_a, const unsigned char *msm_b1,
                           const unsigned char *msm_b2, const unsigned char *msm_c, const unsigned char *msm_h,
                           const unsigned char *r, const unsigned char *s)
{
    static const unsigned char one[32] = {1};
    const hpr_zkey *zk = run->zk;
    hpr_groth16_proof *pf = run->proof;
    unsigned char pib1[96], neg_rs[32];
    hpr_status st;
    if (zk->curve == HPR_CURVE_BN254)
        bn254_fr_neg_product(neg_rs, r, s);
    else
        bls12_381_fr_neg_product(neg_rs, r, s);
    const unsigned char *a_pts[] = {msm_a, zk->alpha1, zk->delta1}, *a_sc[] = {one, one, r};
    const unsigned char *b1_pts[] = {msm_b1, zk->beta1, zk->delta1}, *b_sc[] = {one, one, s};
    const unsigned char *b2_pts[] = {msm_b2, zk->beta2, zk->delta2};
    if ((st = small_sum(run, HPR_G1, a_pts, a_sc, 3, pf->a)) != HPR_OK ||
        (st = small_sum(run, HPR_G1, b1_pts, b_sc, 3, pib1)) != HPR_OK ||
        (st = small_sum(run, HPR_G2, b2_pts, b_sc, 3, pf->b)) != HPR_OK)
        return st;
    const unsigned char *c_pts[] = {msm_c, msm_h, pf->a, pib1, zk->delta1}, *c_sc[] = {one, one, s, r, neg_rs};
    return small_sum(run, HPR_G1, c_pts, c_sc, 5, pf->c);
}

static hpr_status copy_publics(hpr_ctx *ctx, const hpr_zkey *zk, const unsigned char *w, hpr_groth16_proof *proof)
{
    proof->n_public = zk->n_public;
    if (zk->n_public == 0)
        return HPR_OK;
    proof->public_signals = malloc((size_t)zk->n_public * 32);
    if (!proof->public_signals)
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for %u public signals", zk->n_public);
    memcpy(proof->public_signals, w + 32, (size_t)zk->n_public * 32);
    return HPR_OK;
}

hpr_status hpr_groth16_prove_values(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                                    const unsigned char *r, const unsigned char *s, hpr_groth16_proof *proof)
{
    const hpr_zkey *zk = &prover->zk;
    size_t private_from = (size_t)zk->n_public + 1;
    unsigned char msm[4][96], msm_b2[192]; /* A, B1, C, H; B2 */
    unsigned char *h = rt_alloc_large((size_t)zk->domain_size * 32);
    prove_run run = {ctx, zk, proof, rt_now_seconds(), ""};
    g16_work work = {zk, w, h,
                     {{HPR_G16_MSM_A, HPR_G1, zk->a, w, zk->n_vars, msm[0]},
                      {HPR_G16_MSM_B1, HPR_G1, zk->b1, w, zk->n_vars, msm[1]},
                      {HPR_G16_MSM_B2, HPR_G2, zk->b2, w, zk->n_vars, msm_b2},
                      {HPR_G16_MSM_C, HPR_G1, zk->c, w + private_from * 32, zk->n_vars - private_from, msm[2]},
                      {HPR_G16_MSM_H, HPR_G1, zk->h, h, zk->domain_size, msm[3]}}};
    hpr_status st;
    proof->curve = zk->curve;
    ctx->have_report = 0;
    if (!h) {
        st = hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for %u h scalars", zk->domain_size);
        goto out;
    }
    if ((st = run_work(&run, &work)) != HPR_OK ||
        (st = assemble(&run, msm[0], msm[1], msm_b2, msm[2], msm[3], r, s)) != HPR_OK ||
        (st = copy_publics(ctx, zk, w, proof)) != HPR_OK)
        goto out;
    end_phase(&run, HPR_G16_ASSEMBLE, 0);
out:
    free(h);
    snprintf(ctx->notice, sizeof ctx->notice, "%s", run.notices);
    return st;
}

/* A uniform scalar in [0, q) from getrandom (rejection on the top bits). */
static hpr_status random_scalar(hpr_ctx *ctx, hpr_curve curve, unsigned char *out)
{
    const msm_curve_ops *ops = hpr_g1_ops(curve);
    for (;;) {
        uint64_t k[4];
        size_t got = 0;
        while (got < sizeof k) {
            ssize_t n = getrandom((unsigned char *)k + got, sizeof k - got, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return hpr_fail(ctx, HPR_ERR_IO, "getrandom failed: %s", strerror(errno));
            got += (size_t)n;
        }
        k[3] &= (((uint64_t)1) << (ops->scalar_bits - 192)) - 1;
        int below = 0;
        for (int i = 3; i >= 0; i--)
            if (k[i] != ops->order[i]) {
                below = k[i] < ops->order[i];
                break;
            }
        if (below) {
            memcpy(out, k, 32);
            return HPR_OK;
        }
    }
}

static hpr_status prove_parsed(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_wtns *w, double t0,
                               hpr_groth16_proof *proof)
{
    unsigned char r[32], s[32];
    hpr_status st;
    if ((st = random_scalar(ctx, prover->zk.curve, r)) != HPR_OK ||
        (st = random_scalar(ctx, prover->zk.curve, s)) != HPR_OK)
        return st;
    proof->report.seconds[HPR_G16_WITNESS] = rt_now_seconds() - t0;
    st = hpr_groth16_prove_values(ctx, prover, w->values, r, s, proof);
    proof->report.total_s = rt_now_seconds() - t0;
    return st;
}

static hpr_status check_prove_args(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *in,
                                   hpr_groth16_proof *proof)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx->detail[0] = '\0';
    ctx->notice[0] = '\0';
    if (!prover || !in || !proof)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "prover, witness and proof must not be NULL");
    memset(proof, 0, sizeof *proof);
    return HPR_OK;
}

/* The witness bytes (name labels the errors) checked against the key, then the proof. */
static hpr_status prove_bytes(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *data, size_t len,
                              const char *name, double t0, hpr_groth16_proof *proof)
{
    hpr_wtns w;
    hpr_status st = hpr_wtns_parse(ctx, data, len, name, &prover->zk, &w);
    if (st != HPR_OK)
        return st;
    st = prove_parsed(ctx, prover, &w, t0, proof);
    hpr_wtns_free(&w);
    if (st != HPR_OK)
        hpr_groth16_proof_free(proof);
    return st;
}

hpr_status hpr_groth16_prove(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *wtns, size_t wtns_len,
                             hpr_groth16_proof *proof)
{
    double t0 = rt_now_seconds();
    hpr_status st = check_prove_args(ctx, prover, wtns, proof);
    return st != HPR_OK ? st : prove_bytes(ctx, prover, wtns, wtns_len, "witness", t0, proof);
}

hpr_status hpr_groth16_prove_file(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *wtns_path,
                                  hpr_groth16_proof *proof)
{
    double t0 = rt_now_seconds();
    unsigned char *data = NULL;
    size_t len = 0;
    hpr_status st = check_prove_args(ctx, prover, wtns_path, proof);
    if (st != HPR_OK)
        return st;
    int err = rt_read_file(wtns_path, &data, &len);
    if (err != 0)
        return hpr_fail(ctx, HPR_ERR_IO, "cannot read the witness '%s': %s", wtns_path,
                        err == EISDIR ? "not a regular file" : strerror(err));
    st = prove_bytes(ctx, prover, data, len, wtns_path, t0, proof);
    free(data);
    return st;
}

void hpr_groth16_proof_free(hpr_groth16_proof *proof)
{
    if (!proof)
        return;
    free(proof->public_signals);
    proof->public_signals = NULL;
    proof->n_public = 0;
}

/* ---- JSON ---- */

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} json_out;

static void put(json_out *o, const char *s)
{
    size_t n = strlen(s);
    if (o->failed)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = (o->cap ? 2 * o->cap : 1024) + n;
        char *b = realloc(o->buf, cap);
        if (!b) {
            o->failed = 1;
            return;
        }
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n + 1);
    o->len += n;
}

/* The decimal coordinates of a point as snarkjs writes its projective triple: [x, y, "1"] or
 * the zero point ["0", "1", "0"]; G2 coordinates are pairs (c0, c1). dec[k][j]: triple entry
 * k, coordinate j (j < degree). */
static int point_decimals(hpr_curve curve, hpr_group group, const unsigned char *bytes, char dec[3][2][120])
{
    const msm_curve_ops *ops = hpr_curve_ops(curve, group);
    uint64_t affine[MSM_MAX_AFFINE_BYTES / 8], x[12], y[12];
    unsigned limbs = (unsigned)(ops->field_bytes / 8 / ops->degree);
    static const unsigned char zero[MSM_MAX_AFFINE_BYTES];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 2; j++)
            snprintf(dec[k][j], sizeof dec[k][j], "0");
    if (memcmp(bytes, zero, ops->affine_size) == 0) {
        dec[1][0][0] = '1';
        return 0;
    }
    if (ops->decode_point(affine, bytes) != MSM_POINT_OK)
        return -1;
    ops->affine_to_canonical(x, y, affine);
    for (unsigned j = 0; j < ops->degree; j++) {
        hpr_dec_from_limbs(dec[0][j], x + j * limbs, limbs);
        hpr_dec_from_limbs(dec[1][j], y + j * limbs, limbs);
    }
    dec[2][0][0] = '1';
    return 0;
}

static void put_string_line(json_out *o, const char *indent, const char *value, int last)
{
    put(o, indent);
    put(o, "\"");
    put(o, value);
    put(o, last ? "\"\n" : "\",\n");
}

static int put_point(json_out *o, const char *key, hpr_curve curve, hpr_group group, const unsigned char *bytes)
{
    char dec[3][2][120];
    if (point_decimals(curve, group, bytes, dec) != 0)
        return -1;
    put(o, " \"");
    put(o, key);
    put(o, "\": [\n");
    for (int k = 0; k < 3; k++) {
        if (group == HPR_G1) {
            put_string_line(o, "  ", dec[k][0], k == 2);
            continue;
        }
        put(o, "  [\n");
        put_string_line(o, "   ", dec[k][0], 0);
        put_string_line(o, "   ", dec[k][1], 1);
        put(o, k == 2 ? "  ]\n" : "  ],\n");
    }
    put(o, " ],\n");
    return 0;
}

hpr_status hpr_groth16_proof_json(const hpr_groth16_proof *proof, char **proof_json, char **public_json)
{
    json_out pj = {0}, uj = {0};
    if (!proof || !proof_json || !public_json || !hpr_g1_ops(proof->curve))
        return HPR_ERR_INVALID_ARGUMENT;
    *proof_json = *public_json = NULL;
    put(&pj, "{\n");
    if (put_point(&pj, "pi_a", proof->curve, HPR_G1, proof->a) != 0 ||
        put_point(&pj, "pi_b", proof->curve, HPR_G2, proof->b) != 0 ||
        put_point(&pj, "pi_c", proof->curve, HPR_G1, proof->c) != 0) {
        free(pj.buf);
        return HPR_ERR_INVALID_ARGUMENT;
    }
    put(&pj, " \"protocol\": \"groth16\",\n \"curve\": \"");
    put(&pj, proof->curve == HPR_CURVE_BN254 ? "bn128" : "bls12381");
    put(&pj, "\"\n}");
    put(&uj, "[\n");
    for (unsigned i = 0; i < proof->n_public; i++) {
        uint64_t l[4];
        char dec[80];
        memcpy(l, proof->public_signals + (size_t)i * 32, 32);
        hpr_dec_from_limbs(dec, l, 4);
        put_string_line(&uj, " ", dec, i + 1 == proof->n_public);
    }
    put(&uj, "]");
    if (pj.failed || uj.failed) {
        free(pj.buf);
        free(uj.buf);
        return HPR_ERR_OUT_OF_MEMORY;
    }
    *proof_json = pj.buf;
    *public_json = uj.buf;
    return HPR_OK;
}
