/*
 * groth16_prover.c: the Groth16 prover handle (hpr_groth16_prover_*): a .zkey mapped and
 * validated once by zkey_open (host/groth16/zkey.c), or copied from the caller's bytes and validated by
 * zkey_copy, then only read.
 *
 * Why a handle: the key's point sections are used in place from the mapping, so one prover
 * serves many proofs. Thread safety: the prover is read-only after hpr_groth16_prover_create
 * (the zkey mapping and its parsed offsets) and hpr_groth16_prover_precompute (which the
 * caller runs before any proof, alone; it refuses once a proof has begun: the used flag);
 * all per-proof state lives on the stack, the heap and the caller's context; four fields are
 * written later, atomic caches that any thread may fill with the same value: the key's digest
 * and the sections' points at infinity for cluster calls, which MSM sections have been
 * validated (an MSM checks its points; once one over a section succeeded, later proofs skip
 * the check: the mapping is read-only, and the key's file must not change while a prover
 * maps it, as for every section it reads), and the used flag.
 * Precomputed sections (host/msm/bases.c has the method): each of the five sections validated
 * (its bad point named by section and index) and kept with its multiples 2^(j s) P under
 * keys of their own, so the devices never mix them with the plain sections.
 */
#include "host/msm/resident.h"
#include "host/groth16/groth16.h"
#include "host/msm/msm_engine.h"
#include "host/groth16/groth16_calls.h"
#include "host/msm/msm_calls.h"
#include "runtime/sched/ranks.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hpr_groth16_prover {
    zkey_file zk;
    uint64_t key;
    _Atomic uint64_t digest;    /* the zkey's ranks_digest, 0 until a cluster call asks for it */
    _Atomic unsigned validated; /* bit t: MSM t's points, checked by an MSM over them that succeeded */
    uint64_t *_Atomic infinity[G16_MSMS]; /* MSM t's points at infinity, a bit each, once asked for */
    _Atomic int used;       /* a proof has begun: the precomputed sections no longer change */
    g16_precomputed pre;    /* pre.f > 1: the sections precomputed (hpr_groth16_prover_precompute) */
};

/* The key's fixed points (section 2: alpha1, beta1, delta1 in G1; beta2, gamma2, delta2 in
 * G2), each finite, its coordinates below p, on the curve and in the prime-order subgroup:
 * a key that breaks one gives proofs that never verify (an all-zero alpha1 went unnoticed
 * before), so it is refused when the prover is made. name labels the errors. Six points, a
 * scalar multiplication each for the subgroup (G2; G1 of BLS12-381): well under a millisecond
 * beside reading the key. */
static hpr_status check_fixed_points(hpr_ctx *ctx, const zkey_file *zk, const char *name)
{
    const struct {
        hpr_group group;
        const unsigned char *p;
        const char *what;
    } pts[] = {{HPR_G1, zk->alpha1, "alpha1"}, {HPR_G1, zk->beta1, "beta1"},   {HPR_G1, zk->delta1, "delta1"},
               {HPR_G2, zk->beta2, "beta2"},   {HPR_G2, zk->gamma2, "gamma2"}, {HPR_G2, zk->delta2, "delta2"}};
    uint64_t affine[MSM_MAX_AFFINE_BYTES / 8];
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        const msm_curve_ops *ops = msm_ops(zk->curve, pts[i].group);
        unsigned char any = 0;
        for (size_t b = 0; b < ops->affine_size; b++)
            any |= pts[i].p[b];
        if (!any)
            return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: the key's %s is the point at infinity (all zero bytes)", name,
                            pts[i].what);
        switch (ops->decode_point(affine, pts[i].p)) {
        case MSM_POINT_OK: break;
        case MSM_POINT_COORD_RANGE:
            return ctx_fail(ctx, HPR_ERR_COORDINATE_OUT_OF_RANGE, "%s: the key's %s has a coordinate >= p", name,
                            pts[i].what);
        default:
            return ctx_fail(ctx, HPR_ERR_POINT_NOT_ON_CURVE, "%s: the key's %s is not on the %s curve", name,
                            pts[i].what, ops->name);
        }
        if (!ops->in_subgroup(affine))
            return ctx_fail(ctx, HPR_ERR_POINT_NOT_IN_SUBGROUP,
                            "%s: the key's %s is not in the prime-order subgroup of %s", name, pts[i].what, ops->name);
    }
    return HPR_OK;
}

/* A prover over the zkey at path, or (path NULL) over a copy of the len bytes at data. */
static hpr_status prover_create(hpr_ctx *ctx, const char *path, const void *data, size_t len,
                                hpr_groth16_prover **out)
{
    hpr_groth16_prover *p;
    hpr_status st;
    *out = NULL;
    p = calloc(1, sizeof *p);
    if (!p)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16 prover: out of memory");
    st = path ? zkey_open(ctx, path, &p->zk) : zkey_copy(ctx, data, len, &p->zk);
    if (st == HPR_OK && (st = check_fixed_points(ctx, &p->zk, path ? path : "the zkey buffer")) != HPR_OK)
        zkey_close(&p->zk);
    if (st != HPR_OK) {
        free(p);
        return st;
    }
    p->key = ctx_new_resident_keys(1 + G16_MSMS);
    p->pre.f = 1;
    *out = p;
    return HPR_OK;
}

hpr_status groth16_prover_create_call(hpr_ctx *ctx, const char *zkey_path, hpr_groth16_prover **out)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!zkey_path || !out)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey path and out must not be NULL");
    return prover_create(ctx, zkey_path, NULL, 0, out);
}

hpr_status groth16_prover_create_from_buffer_call(hpr_ctx *ctx, const void *zkey, size_t len,
                                                  hpr_groth16_prover **out)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!zkey || !out)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey buffer and out must not be NULL");
    return prover_create(ctx, NULL, zkey, len, out);
}

static void drop_precomputed(g16_precomputed *pre)
{
    for (int t = 0; t < G16_MSMS; t++)
        free(pre->points[t]);
    memset(pre, 0, sizeof *pre);
    pre->f = 1;
}

void g16_prover_destroy(hpr_groth16_prover *prover)
{
    if (!prover)
        return;
    drop_precomputed(&prover->pre);
    zkey_close(&prover->zk);
    for (int t = 0; t < G16_MSMS; t++)
        free(atomic_load(&prover->infinity[t]));
    free(prover);
}

hpr_curve g16_prover_curve(const hpr_groth16_prover *prover)
{
    return prover ? prover->zk.curve : (hpr_curve)0;
}

void g16_prover_sizes(const hpr_groth16_prover *prover, size_t *domain_size, size_t *n_vars, size_t *n_public)
{
    if (domain_size)
        *domain_size = prover ? prover->zk.domain_size : 0;
    if (n_vars)
        *n_vars = prover ? prover->zk.n_vars : 0;
    if (n_public)
        *n_public = prover ? prover->zk.n_public : 0;
}

hpr_status groth16_zkey_sizes_call(hpr_ctx *ctx, const void *zkey, size_t len, hpr_curve *curve, size_t *domain_size,
                                   size_t *n_vars, size_t *n_public)
{
    zkey_file zk;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!zkey)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey buffer must not be NULL");
    if ((st = zkey_parse_header(ctx, zkey, len, "the zkey buffer", &zk)) != HPR_OK)
        return st;
    if (curve)
        *curve = zk.curve;
    if (domain_size)
        *domain_size = zk.domain_size;
    if (n_vars)
        *n_vars = zk.n_vars;
    if (n_public)
        *n_public = zk.n_public;
    return HPR_OK;
}

/* Section t of the key: its points, count and group (as the proof's MSM t reads them). */
static const unsigned char *section(const zkey_file *zk, int t, size_t *n, hpr_group *group)
{
    const unsigned char *points[G16_MSMS] = {zk->a, zk->b1, zk->b2, zk->c, zk->h};
    const size_t counts[G16_MSMS] = {zk->n_vars, zk->n_vars, zk->n_vars, (size_t)zk->n_vars - zk->n_public - 1,
                                     zk->domain_size};
    *n = counts[t];
    *group = t == HPR_G16_MSM_B2 - HPR_G16_MSM_A ? HPR_G2 : HPR_G1;
    return points[t];
}

/* pre = the key's five sections validated (a bad point named by section and index) and
 * precomputed f times (host/msm/bases.c). */
static hpr_status make_precomputed(hpr_ctx *ctx, const zkey_file *zk, unsigned f, g16_precomputed *pre)
{
    static const char *names[G16_MSMS] = {"A", "B1", "B2", "C", "H"};
    hpr_status st = HPR_OK;
    memset(pre, 0, sizeof *pre);
    pre->f = f;
    pre->s = bases_slice_bits(msm_g1_ops(zk->curve), f); /* G1 and G2 share r */
    pre->ops[0] = bases_sliced_ops(msm_ops(zk->curve, HPR_G1), f);
    pre->ops[1] = bases_sliced_ops(msm_ops(zk->curve, HPR_G2), f);
    for (int t = 0; t < G16_MSMS && st == HPR_OK; t++) {
        size_t n;
        hpr_group group;
        const unsigned char *points = section(zk, t, &n, &group);
        const msm_curve_ops *ops = msm_ops(zk->curve, group);
        if ((st = bases_validate(ctx, ops, points, n)) != HPR_OK) {
            char why[CL_DETAIL_LEN];
            snprintf(why, sizeof why, "%s", ctx->detail);
            return ctx_fail(ctx, st, "zkey section %s: %.400s", names[t], why);
        }
        st = bases_expand(ctx, ops, points, n, f, &pre->points[t]);
    }
    pre->key = ctx_new_resident_keys(G16_MSMS);
    return st;
}

hpr_status prover_precompute_call(hpr_ctx *ctx, hpr_groth16_prover *prover, unsigned precompute)
{
    g16_precomputed pre;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!prover)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "prover must not be NULL");
    if (precompute > BASES_MAX_PRECOMPUTE)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "precompute = %u is out of range (0 or 1: none, at most %d)",
                        precompute, BASES_MAX_PRECOMPUTE);
    if (atomic_load(&prover->used))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "precompute: this prover has proved already (precompute before its first proof)");
    if (precompute <= 1) {
        drop_precomputed(&prover->pre);
        return HPR_OK;
    }
    if ((size_t)prover->zk.n_vars > UINT32_MAX / precompute || (size_t)prover->zk.domain_size > UINT32_MAX / precompute)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "precompute = %u: the key's sections would exceed 2^32 - 1 points", precompute);
    if ((st = make_precomputed(ctx, &prover->zk, precompute, &pre)) != HPR_OK) {
        drop_precomputed(&pre);
        return st;
    }
    drop_precomputed(&prover->pre);
    prover->pre = pre;
    return HPR_OK;
}

unsigned g16_prover_precomputed_bytes(const hpr_groth16_prover *prover, size_t *bytes)
{
    if (bytes) { /* f times each section's points, 0 without */
        *bytes = 0;
        for (int t = 0; prover && prover->pre.f > 1 && t < G16_MSMS; t++) {
            size_t n;
            hpr_group group;
            (void)section(&prover->zk, t, &n, &group);
            *bytes += n * prover->pre.f * msm_point_size(prover->zk.curve, group);
        }
    }
    return prover ? prover->pre.f : 0;
}

const g16_precomputed *g16_prover_precomputed(const hpr_groth16_prover *prover)
{
    atomic_store(&((hpr_groth16_prover *)prover)->used, 1);
    return prover->pre.f > 1 ? &prover->pre : NULL;
}

uint64_t g16_prover_key(const hpr_groth16_prover *prover)
{
    return prover->key;
}

const zkey_file *g16_prover_zkey(const hpr_groth16_prover *prover)
{
    return &prover->zk;
}

uint64_t g16_prover_digest(const hpr_groth16_prover *prover)
{
    hpr_groth16_prover *p = (hpr_groth16_prover *)prover; /* the cache only */
    uint64_t d = atomic_load_explicit(&p->digest, memory_order_relaxed);
    if (d == 0) { /* a digest that is 0 is recomputed each time: harmless */
        d = ranks_digest(0, p->zk.map, p->zk.map_len);
        atomic_store_explicit(&p->digest, d, memory_order_relaxed);
    }
    return d;
}

unsigned g16_prover_validated(const hpr_groth16_prover *prover)
{
    return atomic_load_explicit(&((hpr_groth16_prover *)prover)->validated, memory_order_relaxed);
}

void g16_prover_set_validated(const hpr_groth16_prover *prover, int t)
{
    atomic_fetch_or_explicit(&((hpr_groth16_prover *)prover)->validated, 1u << t, memory_order_relaxed);
}

const uint64_t *g16_prover_infinity(const hpr_groth16_prover *prover, int t, const unsigned char *points, size_t n,
                                    size_t affine_size)
{
    hpr_groth16_prover *p = (hpr_groth16_prover *)prover; /* the cache only */
    uint64_t *bits = atomic_load_explicit(&p->infinity[t], memory_order_acquire), *expected = NULL;
    if (bits)
        return bits;
    if (!(bits = calloc(n / 64 + 1, sizeof *bits)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *q = points + i * affine_size;
        unsigned char any = 0;
        for (size_t b = 0; b < affine_size; b++)
            any |= q[b];
        bits[i / 64] |= (uint64_t)(any == 0) << (i % 64);
    }
    if (!atomic_compare_exchange_strong_explicit(&p->infinity[t], &expected, bits, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(bits); /* another thread was first: the same bits */
        return expected;
    }
    return bits;
}
