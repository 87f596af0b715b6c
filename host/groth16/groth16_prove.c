/*
 * groth16_prove.c: the Groth16 proof of snarkjs/circom files (hpr_groth16_prove,
 * hpr_groth16_prove_file, g16_prove_values): the witness checked against the key, r and s,
 * the work of the proof, then the blinding.
 *
 * The proof (snarkjs's groth16 prove, FORMATS.md section 5), with w the witness, h the
 * scalars of host/groth16/groth16_h.c and r, s uniform in [0, q) from getrandom:
 *     pi_a = alpha1 + sum w_i A_i + r delta1
 *     pib1 = beta1 + sum w_i B1_i + s delta1           (G1, only for pi_c)
 *     pi_b = beta2 + sum w_i B2_i + s delta2           (G2)
 *     pi_c = sum_{i > nPublic} w_i C_i + sum h_j H_j + s pi_a + r pib1 - r s delta1
 * The work (h and the five large MSMs) runs as a task graph (host/groth16/groth16_graph.c) when the
 * context's device is "all" and an OpenCL device can join, else as phases in order
 * (host/groth16/groth16_work.c). Each blinding sum is one small MSM of the large MSM's result and the
 * key's points, on the CPU, so no separate scalar multiplication code exists.
 * Progress and cancellation: each entry point is one tracked call (host/core/progress.h) over the
 * phases' units (g16_progress_units), checked before the witness, each task and the blinding.
 * Thread safety: the prover is only read; all per-proof state lives on the stack, the heap
 * and the caller's context.
 */
#define _GNU_SOURCE
#include "host/msm/resident.h"
#include "host/core/decimal.h"
#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/groth16/groth16.h"
#include "host/groth16/proof_memory.h"
#include "host/msm/msm_engine.h"
#include "host/groth16/groth16_calls.h"
#include "host/msm/msm_calls.h"

#include "arith/curves.h"
#include "runtime/base/rt_fs.h"
#include "runtime/base/rt_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The OpenCL devices of the graph: those picked for G1 that are also ready for G2 (a
 * device that fails the G2 self-test is unusable, and the notes say why; a self-test that
 * fails now is a fault of the run report). */
static unsigned pick_graph_devices(hpr_ctx *ctx, hpr_curve curve, cl_dev **devs)
{
    unsigned ndev = msm_pick_devices(ctx, curve, HPR_G1, devs, HPR_REPORT_MAX_DEVICES - 1), kept = 0;
    for (unsigned d = 0; d < ndev; d++) {
        if (dev_ready(ctx, devs[d], curve, HPR_G2) != HPR_OK) {
            report_note(ctx, devs[d]->id, ctx->detail);
            ctx->detail[0] = '\0';
            if (devs[d]->failed) /* failed its G2 self-test now */
                report_device_fault(ctx, devs[d]->id, 1, devs[d]->failure);
            continue;
        }
        devs[kept++] = devs[d];
    }
    return kept;
}

/* The task graph when the context's device is "all" and an OpenCL device can join, else the
 * phases in order. */
static hpr_status run_work(g16_phases *ph, g16_work *work)
{
    cl_dev *devs[HPR_REPORT_MAX_DEVICES - 1];
    unsigned ndev = 0;
    if (strcmp(ph->ctx->device, "all") == 0 && !ph->ctx->mem.in_order) { /* in order: within the memory limit */
        ndev = pick_graph_devices(ph->ctx, work->zk->curve, devs);
        g16_collect_faults(ph->report, ph->ctx, -1); /* a device that failed its self-test */
    }
    if (ndev == 0)
        return g16_run_in_order(ph, work);
    hpr_status st = g16_graph_run(ph->ctx, work, devs, ndev, ph->report, ph->notices, sizeof ph->notices);
    ph->t = rt_now_seconds();
    return st;
}

/* A small G1/G2 sum k_0 P_0 + ... (points in the interchange form, scalars canonical) on the
 * CPU: the blinding terms. */
static hpr_status small_sum(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const unsigned char *const *points,
                            const unsigned char *const *scalars, size_t n, unsigned char *out)
{
    unsigned char pts[5 * 192], sc[5 * 32];
    size_t size = msm_point_size(curve, group);
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, "cpu"};
    for (size_t i = 0; i < n; i++) {
        memcpy(pts + i * size, points[i], size);
        memcpy(sc + i * 32, scalars[i], 32);
    }
    return msm_ex_call(ctx, curve, group, pts, sc, n, out, &opts);
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

/* The blinding: pi_a, pi_b, pi_c of pf from the five MSM results (msm: A, B1, C, H in G1,
 * B2). */
static hpr_status assemble(hpr_ctx *ctx, const zkey_file *zk, hpr_groth16_proof *pf, const unsigned char *msm_a,
                           const unsigned char *msm_b1, const unsigned char *msm_b2, const unsigned char *msm_c,
                           const unsigned char *msm_h, const unsigned char *r, const unsigned char *s)
{
    static const unsigned char one[32] = {1};
    unsigned char pib1[96], neg_rs[32];
    hpr_status st;
    if (zk->curve == HPR_CURVE_BN254)
        bn254_fr_neg_product(neg_rs, r, s);
    else
        bls12_381_fr_neg_product(neg_rs, r, s);
    const unsigned char *a_pts[] = {msm_a, zk->alpha1, zk->delta1}, *a_sc[] = {one, one, r};
    const unsigned char *b1_pts[] = {msm_b1, zk->beta1, zk->delta1}, *b_sc[] = {one, one, s};
    const unsigned char *b2_pts[] = {msm_b2, zk->beta2, zk->delta2};
    if ((st = small_sum(ctx, zk->curve, HPR_G1, a_pts, a_sc, 3, pf->a)) != HPR_OK ||
        (st = small_sum(ctx, zk->curve, HPR_G1, b1_pts, b_sc, 3, pib1)) != HPR_OK ||
        (st = small_sum(ctx, zk->curve, HPR_G2, b2_pts, b_sc, 3, pf->b)) != HPR_OK)
        return st;
    const unsigned char *c_pts[] = {msm_c, msm_h, pf->a, pib1, zk->delta1}, *c_sc[] = {one, one, s, r, neg_rs};
    return small_sum(ctx, zk->curve, HPR_G1, c_pts, c_sc, 5, pf->c);
}

static hpr_status copy_publics(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *w, hpr_groth16_proof *proof)
{
    proof->n_public = zk->n_public;
    if (zk->n_public == 0)
        return HPR_OK;
    proof->public_signals = malloc((size_t)zk->n_public * 32);
    if (!proof->public_signals)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for %u public signals", zk->n_public);
    memcpy(proof->public_signals, w + 32, (size_t)zk->n_public * 32);
    return HPR_OK;
}

/* The work of a proof over w: the key's points and the witness (h allocated by the caller). */
static void work_init(g16_work *work, const hpr_groth16_prover *prover, const unsigned char *w, unsigned char *h,
                      unsigned char msm[4][96], unsigned char *msm_b2)
{
    const zkey_file *zk = g16_prover_zkey(prover);
    size_t private_from = (size_t)zk->n_public + 1;
    uint64_t key = g16_prover_key(prover);
    unsigned v = g16_prover_validated(prover);
    *work = (g16_work){prover, zk, w, h,
                       {{HPR_G16_MSM_A, HPR_G1, zk->a, w, zk->n_vars, msm[0], key + 1, key, v & 1, NULL},
                        {HPR_G16_MSM_B1, HPR_G1, zk->b1, w, zk->n_vars, msm[1], key + 2, key, v >> 1 & 1, NULL},
                        {HPR_G16_MSM_B2, HPR_G2, zk->b2, w, zk->n_vars, msm_b2, key + 3, key, v >> 2 & 1, NULL},
                        {HPR_G16_MSM_C, HPR_G1, zk->c, w + private_from * 32, zk->n_vars - private_from, msm[2],
                         key + 4, key, v >> 3 & 1, NULL},
                        {HPR_G16_MSM_H, HPR_G1, zk->h, h, zk->domain_size, msm[3], key + 5, key, v >> 4 & 1, NULL}},
                       NULL, NULL, NULL};
}

/* The work's MSMs moved onto the prover's precomputed sections: w sliced now, h's slices
 * filled by the h task (g16_run_task). The slices are freed by work_free. */
static hpr_status work_precomputed(hpr_ctx *ctx, g16_work *work, const g16_precomputed *pre)
{
    const zkey_file *zk = work->zk;
    size_t f = pre->f, private_from = (size_t)zk->n_public + 1;
    work->w_slices = rt_alloc_large(32 * f * zk->n_vars);
    work->h_slices = rt_alloc_large(32 * f * zk->domain_size);
    if (!work->w_slices || !work->h_slices)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for the slices of %u + %u scalars (precompute %u)",
                        zk->n_vars, zk->domain_size, pre->f);
    bases_slice(ctx, work->w, zk->n_vars, pre->f, pre->s, work->w_slices);
    work->pre = pre;
    for (int t = 0; t < G16_MSMS; t++) {
        g16_msm *m = &work->msm[t];
        m->points = pre->points[t];
        m->scalars = t == HPR_G16_MSM_H - HPR_G16_MSM_A   ? work->h_slices
                     : t == HPR_G16_MSM_C - HPR_G16_MSM_A ? work->w_slices + 32 * f * private_from
                                                          : work->w_slices;
        m->n *= f;
        m->key = pre->key + (uint64_t)t;
        m->validated = 1; /* when they were made */
        m->sliced = &pre->ops[m->group - 1];
    }
    return HPR_OK;
}

static void work_free(g16_work *work)
{
    free(work->w_slices);
    free(work->h_slices);
}

/* The devices keep one prover's bases per context: the last one it proved with. Also: the h
 * phase reads its devices from the context's report, which the NTTs of h leave to the caller
 * (ntt_internal_form); no earlier call's report may stand in for it. The public entry points
 * cleared it already (ctx_call_begin); tests call g16_prove_values directly. */
static void work_begin(hpr_ctx *ctx, const hpr_groth16_prover *prover)
{
    uint64_t key = g16_prover_key(prover);
    if (ctx->g16_owner != key) {
        ctx_drop_resident(ctx, ctx->g16_owner);
        ctx->g16_owner = key;
    }
    ctx->have_report = 0;
}

hpr_status g16_prove_values_by(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                               const unsigned char *r, const unsigned char *s, hpr_groth16_proof *proof,
                               g16_work_fn fn, void *user)
{
    const zkey_file *zk = g16_prover_zkey(prover);
    unsigned char msm[4][96], msm_b2[192]; /* A, B1, C, H; B2 */
    unsigned char *h = rt_alloc_large((size_t)zk->domain_size * 32);
    hpr_groth16_report unasked = {.struct_size = sizeof unasked}; /* no report asked for: the phases keep one */
    g16_phases ph = {ctx, proof->report ? proof->report : &unasked, rt_now_seconds(), ""};
    g16_work work;
    hpr_status st;
    const g16_precomputed *pre = fn ? NULL : g16_prover_precomputed(prover); /* a cluster's ranks: the sections */
    work_init(&work, prover, w, h, msm, msm_b2);
    work_begin(ctx, prover);
    proof->curve = zk->curve;
    if (!h) {
        st = ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16: no memory for %u h scalars", zk->domain_size);
        if (fn) /* still run: fn finds work.h NULL and tells the other ranks (else they would wait) */
            (void)fn(user, &ph, &work);
        goto out;
    }
    if (pre && (st = work_precomputed(ctx, &work, pre)) != HPR_OK)
        goto out;
    if ((st = fn ? fn(user, &ph, &work) : run_work(&ph, &work)) != HPR_OK)
        goto out;
    progress_phase(ctx, g16_phase_name(HPR_G16_ASSEMBLE));
    if ((st = progress_check(ctx)) != HPR_OK ||
        (st = assemble(ctx, zk, proof, msm[0], msm[1], msm_b2, msm[2], msm[3], r, s)) != HPR_OK ||
        (st = copy_publics(ctx, zk, w, proof)) != HPR_OK)
        goto out;
    g16_phase_end(&ph, HPR_G16_ASSEMBLE, 0);
out:
    work_free(&work);
    free(h);
    snprintf(ctx->notice, sizeof ctx->notice, "%s", ph.notices);
    return st;
}

hpr_status g16_prove_values(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                            const unsigned char *r, const unsigned char *s, hpr_groth16_proof *proof)
{
    return g16_prove_values_by(ctx, prover, w, r, s, proof, NULL, NULL);
}

hpr_status g16_work_by(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w, g16_work_fn fn,
                       void *user)
{
    const zkey_file *zk = g16_prover_zkey(prover);
    unsigned char msm[4][96], msm_b2[192];
    unsigned char *h = rt_alloc_large((size_t)zk->domain_size * 32);
    hpr_groth16_report report = {.struct_size = sizeof report};
    g16_phases ph = {ctx, &report, rt_now_seconds(), ""};
    g16_work work;
    work_init(&work, prover, w, h, msm, msm_b2);
    work_begin(ctx, prover);
    /* without h this rank still takes part: fn finds work.h NULL and tells the others */
    hpr_status st = fn(user, &ph, &work);
    free(h);
    return st;
}

/* A uniform scalar in [0, q) from getrandom (rejection on the top bits). */
static hpr_status random_scalar(hpr_ctx *ctx, hpr_curve curve, unsigned char *out)
{
    const msm_curve_ops *ops = msm_g1_ops(curve);
    for (;;) {
        uint64_t k[4];
        size_t got = 0;
        while (got < sizeof k) {
            ssize_t n = getrandom((unsigned char *)k + got, sizeof k - got, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return ctx_fail(ctx, HPR_ERR_IO, "getrandom failed: %s", strerror(errno));
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

static hpr_status prove_parsed(hpr_ctx *ctx, const hpr_groth16_prover *prover, const wtns_data *w, double t0,
                               hpr_groth16_proof *proof)
{
    unsigned char r[32], s[32];
    hpr_status st = g16_random_blinding(ctx, g16_prover_zkey(prover)->curve, r, s);
    if (st != HPR_OK)
        return st;
    if (proof->report)
        proof->report->seconds[HPR_G16_WITNESS] = rt_now_seconds() - t0;
    st = g16_prove_values(ctx, prover, w->values, r, s, proof);
    if (proof->report)
        proof->report->total_s = rt_now_seconds() - t0;
    return st;
}

/* The start of both entry points: the call's state cleared, the arguments checked, the proof
 * zeroed. */
static hpr_status check_prove_args(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *in,
                                   hpr_groth16_proof *proof)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!prover || !in || !proof)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "prover, witness and proof must not be NULL");
    g16_proof_reset(proof);
    return HPR_OK;
}

/* w[0] must be 1: every R1CS constraint reads the constant one from it, and a witness
 * without it proves nothing (a cheap check; an unsatisfied circuit is not: see --verify). */
static hpr_status check_witness_one(hpr_ctx *ctx, const wtns_data *w, const char *name)
{
    uint64_t limbs[4];
    char dec[4 * 20 + 1];
    memcpy(limbs, w->values, sizeof limbs);
    if (limbs[0] == 1 && limbs[1] == 0 && limbs[2] == 0 && limbs[3] == 0)
        return HPR_OK;
    dec_from_limbs(dec, limbs, 4);
    return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: witness w[0] is %s, must be 1 (the constant signal)", name, dec);
}

hpr_status g16_parse_witness(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *data, size_t len,
                             const char *name, wtns_data *w)
{
    hpr_status st = wtns_parse(ctx, data, len, name, g16_prover_zkey(prover), w);
    if (st != HPR_OK)
        return st;
    if ((st = check_witness_one(ctx, w, name)) != HPR_OK)
        wtns_free(w);
    return st;
}

hpr_status g16_random_blinding(hpr_ctx *ctx, hpr_curve curve, unsigned char *r, unsigned char *s)
{
    hpr_status st = random_scalar(ctx, curve, r);
    return st == HPR_OK ? random_scalar(ctx, curve, s) : st;
}

/* The witness bytes (name labels the errors) checked against the key, then the proof. */
/* owned: data's buffer when the proof may free it once parsed (a witness read from a file:
 * the values are copied, so the file's bytes need not be held through the proof), else NULL. */
static hpr_status prove_bytes(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *data, size_t len,
                              const char *name, double t0, hpr_groth16_proof *proof, unsigned char **owned)
{
    wtns_data w;
    hpr_status st = g16_parse_witness(ctx, prover, data, len, name, &w);
    if (owned) {
        free(*owned);
        *owned = NULL;
    }
    if (st != HPR_OK)
        return st;
    progress_add(ctx, g16_witness_units(g16_prover_zkey(prover)));
    st = prove_parsed(ctx, prover, &w, t0, proof);
    wtns_free(&w);
    if (st != HPR_OK)
        g16_proof_clear(proof);
    return st;
}

/* The proof as one tracked call (host/core/progress.h), its first phase the witness. */
static void progress_begin_proof(hpr_ctx *ctx, const hpr_groth16_prover *prover)
{
    const g16_precomputed *pre = g16_prover_precomputed(prover);
    progress_begin(ctx, "groth16 prove", g16_progress_units(g16_prover_zkey(prover), pre ? pre->f : 1));
    progress_phase(ctx, g16_phase_name(HPR_G16_WITNESS));
}

hpr_status g16_prove_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *wtns, size_t wtns_len,
                          hpr_groth16_proof *proof)
{
    double t0 = rt_now_seconds();
    hpr_status st = check_prove_args(ctx, prover, wtns, proof);
    if (st != HPR_OK || (st = mem_proof_begin(ctx, g16_prover_zkey(prover), g16_prover_precomputed(prover), 0)) != HPR_OK)
        return st;
    progress_begin_proof(ctx, prover);
    if ((st = progress_check(ctx)) == HPR_OK)
        st = prove_bytes(ctx, prover, wtns, wtns_len, "witness", t0, proof, NULL);
    return progress_end(ctx, mem_proof_end(ctx, st));
}

hpr_status groth16_prove_file_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *wtns_path,
                                   hpr_groth16_proof *proof)
{
    double t0 = rt_now_seconds();
    unsigned char *data = NULL;
    size_t len = 0;
    hpr_status st = check_prove_args(ctx, prover, wtns_path, proof);
    if (st != HPR_OK || (st = mem_proof_begin(ctx, g16_prover_zkey(prover), g16_prover_precomputed(prover), 1)) != HPR_OK)
        return st;
    progress_begin_proof(ctx, prover);
    char why[256];
    /* a regular file of known size only (a FIFO, device or /proc file is refused before
     * anything could block on it); the CLI reads streams itself */
    int err = rt_read_file(wtns_path, 0, SIZE_MAX, &data, &len, why, sizeof why);
    if (err != 0)
        st = ctx_fail(ctx, err == ENOMEM ? HPR_ERR_OUT_OF_MEMORY : HPR_ERR_IO, "witness '%s' %s", wtns_path, why);
    else if (len == 0)
        st = ctx_fail(ctx, HPR_ERR_FORMAT, "witness '%s' is empty", wtns_path);
    else if ((st = progress_check(ctx)) == HPR_OK)
        st = prove_bytes(ctx, prover, data, len, wtns_path, t0, proof, &data);
    free(data);
    return progress_end(ctx, mem_proof_end(ctx, st));
}

void g16_proof_clear(hpr_groth16_proof *proof)
{
    if (!proof)
        return;
    free(proof->public_signals);
    proof->public_signals = NULL;
    proof->n_public = 0;
}

void g16_proof_reset(hpr_groth16_proof *proof)
{
    hpr_groth16_report *report = proof->report;
    memset(proof, 0, sizeof *proof);
    proof->struct_size = sizeof *proof;
    proof->report = report;
    if (report) {
        memset(report, 0, sizeof *report);
        report->struct_size = sizeof *report;
    }
}
