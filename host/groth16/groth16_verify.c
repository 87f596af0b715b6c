/*
 * groth16_verify.c: Groth16 verification, snarkjs's check
 *     e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta),  vk_x = IC_0 + sum_i pub_i IC_i,
 * for a proof of this library against its prover's key (hpr_groth16_verify: the zkey's
 * verification points) or for snarkjs's three JSON files (hpr_groth16_verify_json).
 *
 * Method: every point is checked (coordinates below p, on the curve, in the prime-order
 * subgroup: G2 always, G1 too where the cofactor is not 1) and every public signal below r;
 * vk_x is an MSM on the CPU; then one pairing product e(-A, B) e(alpha, beta) e(vk_x, gamma)
 * e(C, delta) compared with 1 (host/groth16/pairing.c: four Miller loops, one final exponentiation).
 * Why check the points: a point outside the subgroup can make a false equation hold.
 * JSON: the forms snarkjs writes (points as decimal [x, y, "1"], G2 coordinates as pairs,
 * ["0", "1", "0"] for infinity; public.json an array of decimal strings); anything else is
 * HPR_ERR_FORMAT naming the file and field.
 */
#include "host/groth16/groth16.h"
#include "host/core/decimal.h"
#include "host/core/json_read.h"
#include "host/msm/msm_engine.h"
#include "host/groth16/pairing.h"
#include "host/groth16/zkey.h"
#include "host/groth16/groth16_calls.h"
#include "host/msm/msm_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELD_LIMBS 12 /* a BLS12-381 Fq2 coordinate */

/* What the check needs, in the interchange form. */
typedef struct {
    hpr_curve curve;
    size_t n_public;
    unsigned char alpha1[96], beta2[192], gamma2[192], delta2[192], a[96], b[192], c[96];
    unsigned char *ic;      /* n_public + 1 G1 points */
    unsigned char *publics; /* n_public canonical 32-byte scalars */
} g16_check;

static int all_zero(const unsigned char *p, size_t n)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* The interchange bytes checked: range, curve, subgroup (infinity passes). */
static hpr_status check_point(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const unsigned char *bytes,
                              const char *what)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    uint64_t affine[2 * MAX_FIELD_LIMBS];
    if (all_zero(bytes, ops->affine_size))
        return HPR_OK;
    switch (ops->decode_point(affine, bytes)) {
    case MSM_POINT_OK: break;
    case MSM_POINT_COORD_RANGE: return ctx_fail(ctx, HPR_ERR_COORDINATE_OUT_OF_RANGE, "%s: a coordinate is >= p", what);
    default: return ctx_fail(ctx, HPR_ERR_POINT_NOT_ON_CURVE, "%s is not on the %s curve", what, ops->name);
    }
    if (!ops->in_subgroup(affine))
        return ctx_fail(ctx, HPR_ERR_POINT_NOT_IN_SUBGROUP, "%s is not in the prime-order subgroup of %s", what,
                        ops->name);
    return HPR_OK;
}

static hpr_status check_all_points(hpr_ctx *ctx, const g16_check *k)
{
    struct {
        hpr_group group;
        const unsigned char *p;
        const char *what;
    } pts[] = {{HPR_G1, k->alpha1, "vk alpha1"}, {HPR_G2, k->beta2, "vk beta2"}, {HPR_G2, k->gamma2, "vk gamma2"},
               {HPR_G2, k->delta2, "vk delta2"}, {HPR_G1, k->a, "proof A"},      {HPR_G2, k->b, "proof B"},
               {HPR_G1, k->c, "proof C"}};
    size_t g1 = msm_ops(k->curve, HPR_G1)->affine_size;
    hpr_status st;
    char what[48];
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++)
        if ((st = check_point(ctx, k->curve, pts[i].group, pts[i].p, pts[i].what)) != HPR_OK)
            return st;
    for (size_t i = 0; i <= k->n_public; i++) {
        snprintf(what, sizeof what, "vk IC[%zu]", i);
        if ((st = check_point(ctx, k->curve, HPR_G1, k->ic + i * g1, what)) != HPR_OK)
            return st;
    }
    return HPR_OK;
}

/* 1 when the 32 little-endian bytes are below r (4 limbs). */
static int below_order(const unsigned char *bytes, const uint64_t *order)
{
    uint64_t l[4];
    memcpy(l, bytes, 32);
    for (int i = 3; i >= 0; i--)
        if (l[i] != order[i])
            return l[i] < order[i];
    return 0;
}

/* The check itself: HPR_OK when the proof verifies, HPR_ERR_PROOF_INVALID when not. */
static hpr_status run_check(hpr_ctx *ctx, const g16_check *k)
{
    const msm_curve_ops *g1 = msm_ops(k->curve, HPR_G1), *g2 = msm_ops(k->curve, HPR_G2);
    unsigned char vk_x[96], *scalars = calloc(k->n_public + 1, 32);
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, "cpu"};
    hpr_status st;
    if (!scalars)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16 verification: out of memory");
    if ((st = check_all_points(ctx, k)) != HPR_OK)
        goto out;
    for (size_t i = 0; i < k->n_public; i++)
        if (!below_order(k->publics + 32 * i, g1->order)) {
            st = ctx_fail(ctx, HPR_ERR_SCALAR_OUT_OF_RANGE, "public signal %zu is not below the group order r", i);
            goto out;
        }
    scalars[0] = 1;
    if (k->n_public)
        memcpy(scalars + 32, k->publics, k->n_public * 32);
    if ((st = msm_ex_call(ctx, k->curve, HPR_G1, k->ic, scalars, k->n_public + 1, vk_x, &opts)) != HPR_OK)
        goto out;
    size_t s1 = g1->affine_size, s2 = g2->affine_size;
    pairing_pair pairs[4] = {
        {k->a, k->b, all_zero(k->a, s1), all_zero(k->b, s2), 1},
        {k->alpha1, k->beta2, all_zero(k->alpha1, s1), all_zero(k->beta2, s2), 0},
        {vk_x, k->gamma2, all_zero(vk_x, s1), all_zero(k->gamma2, s2), 0},
        {k->c, k->delta2, all_zero(k->c, s1), all_zero(k->delta2, s2), 0},
    };
    int one = pairing_product_is_one(k->curve, pairs, 4);
    if (one < 0)
        st = ctx_fail(ctx, HPR_ERR_INTERNAL, "Groth16 verification: a degenerate pairing step");
    else if (!one)
        st = ctx_fail(ctx, HPR_ERR_PROOF_INVALID, "the pairing check fails: the proof does not verify");
out:
    free(scalars);
    return st;
}

hpr_status groth16_verify_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_groth16_proof *proof)
{
    g16_check k;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!prover || !proof)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "prover and proof must not be NULL");
    const zkey_file *zk = g16_prover_zkey(prover);
    if (proof->curve != zk->curve || proof->n_public != zk->n_public || (zk->n_public && !proof->public_signals))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "the proof is not one of this prover's key (curve or count)");
    size_t g1 = 2 * (size_t)zk->n8q, g2 = 4 * (size_t)zk->n8q;
    memset(&k, 0, sizeof k);
    k.curve = zk->curve;
    k.n_public = zk->n_public;
    memcpy(k.alpha1, zk->alpha1, g1);
    memcpy(k.beta2, zk->beta2, g2);
    memcpy(k.gamma2, zk->gamma2, g2);
    memcpy(k.delta2, zk->delta2, g2);
    memcpy(k.a, proof->a, g1);
    memcpy(k.b, proof->b, g2);
    memcpy(k.c, proof->c, g1);
    k.ic = (unsigned char *)zk->ic;
    k.publics = proof->public_signals;
    return run_check(ctx, &k);
}

/* ---- snarkjs's JSON files ---- */

typedef struct {
    hpr_ctx *ctx;
    const char *file;
    hpr_status st;
} json_src;

static hpr_status bad(json_src *s, const char *fmt, const char *field)
{
    char what[160];
    snprintf(what, sizeof what, fmt, field);
    return s->st = ctx_fail(s->ctx, HPR_ERR_FORMAT, "%s: %s", s->file, what);
}

/* A decimal string into limbs below the field's modulus is left to the point check; here:
 * digits only, fitting n limbs. */
static int decimal(const json_value *v, uint64_t *limbs, unsigned n)
{
    return v && v->type == JSON_STRING && dec_to_limbs(limbs, n, v->text) == 0 ? 0 : -1;
}

/* A point [x, y, z] (G1) or [[x0, x1], [y0, y1], [z0, z1]] (G2) into the interchange form:
 * z = 1 (affine) or the zero point (z = 0). */
static hpr_status json_point(json_src *s, const json_value *v, hpr_curve curve, hpr_group group, const char *field,
                             unsigned char *out)
{
    const msm_curve_ops *ops = msm_ops(curve, group);
    unsigned degree = ops->degree, limbs = (unsigned)(ops->field_bytes / 8 / degree);
    uint64_t xyz[3][MAX_FIELD_LIMBS], affine[2 * MAX_FIELD_LIMBS];
    if (!v || v->type != JSON_ARRAY || v->count != 3)
        return bad(s, "%s is not a point [x, y, z]", field);
    for (int k = 0; k < 3; k++) {
        const json_value *c = &v->items[k];
        for (unsigned j = 0; j < degree; j++) {
            const json_value *e = degree == 1 ? c : (c->type == JSON_ARRAY && c->count == 2 ? &c->items[j] : NULL);
            if (decimal(e, xyz[k] + j * limbs, limbs) != 0)
                return bad(s, "%s: a coordinate is not a decimal string of the field's size", field);
        }
    }
    int z_one = xyz[2][0] == 1, z_zero = xyz[2][0] == 0;
    for (unsigned i = 1; i < degree * limbs; i++)
        z_one = z_one && xyz[2][i] == 0, z_zero = z_zero && xyz[2][i] == 0;
    if (z_zero) {
        memset(out, 0, ops->affine_size);
        return HPR_OK;
    }
    if (!z_one)
        return bad(s, "%s: z is neither 1 (affine) nor 0 (the zero point)", field);
    switch (ops->affine_from_canonical(affine, xyz[0], xyz[1])) {
    case MSM_POINT_OK: break;
    case MSM_POINT_COORD_RANGE:
        return s->st = ctx_fail(s->ctx, HPR_ERR_COORDINATE_OUT_OF_RANGE, "%s: %s: a coordinate is >= p", s->file, field);
    default:
        return s->st = ctx_fail(s->ctx, HPR_ERR_POINT_NOT_ON_CURVE, "%s: %s is not on the %s curve", s->file, field,
                                ops->name);
    }
    memcpy(out, affine, ops->affine_size); /* the affine struct is the interchange form */
    return HPR_OK;
}

static json_value *parse(json_src *s, const char *text, size_t len)
{
    char err[200];
    json_value *v = text ? json_parse(text, len, err, sizeof err) : NULL;
    if (!v)
        s->st = ctx_fail(s->ctx, text ? HPR_ERR_FORMAT : HPR_ERR_INVALID_ARGUMENT, "%s: %s", s->file,
                         text ? err : "NULL text");
    return v;
}

/* protocol "groth16" and the curve ("bn128" or "bls12381"; must equal *curve when set). A
 * proof may leave the curve out (rapidsnark writes none; snarkjs takes the verification
 * key's): then *curve, already set from the key, stands. */
static hpr_status json_curve(json_src *s, const json_value *root, hpr_curve *curve)
{
    const json_value *p = json_get(root, "protocol"), *c = json_get(root, "curve");
    hpr_curve got;
    if (!p || p->type != JSON_STRING || strcmp(p->text, "groth16") != 0)
        return bad(s, "%s is not \"groth16\"", "protocol");
    if (!c && *curve)
        return HPR_OK;
    if (!c || c->type != JSON_STRING)
        return bad(s, "%s is missing", "curve");
    if (strcmp(c->text, "bn128") == 0 || strcmp(c->text, "bn254") == 0)
        got = HPR_CURVE_BN254;
    else if (strcmp(c->text, "bls12381") == 0 || strcmp(c->text, "bls12_381") == 0)
        got = HPR_CURVE_BLS12_381;
    else
        return s->st = ctx_fail(s->ctx, HPR_ERR_UNSUPPORTED_CURVE, "%s: curve \"%s\" (bn128 or bls12381)", s->file,
                                c->text);
    if (*curve && got != *curve)
        return bad(s, "%s differs from the verification key's", "curve");
    *curve = got;
    return HPR_OK;
}

static hpr_status read_vk(json_src *s, const json_value *vk, g16_check *k)
{
    const json_value *n = json_get(vk, "nPublic"), *ic = json_get(vk, "IC");
    unsigned long long count;
    char *end;
    if (json_curve(s, vk, &k->curve) != HPR_OK)
        return s->st;
    if (!n || n->type != JSON_NUMBER || (count = strtoull(n->text, &end, 10), *end) || count > (1u << 28))
        return bad(s, "%s is not a count", "nPublic");
    if (!ic || ic->type != JSON_ARRAY || ic->count != count + 1)
        return bad(s, "%s does not hold nPublic + 1 points", "IC");
    k->n_public = (size_t)count;
    size_t g1 = msm_ops(k->curve, HPR_G1)->affine_size;
    if (!(k->ic = malloc((count + 1) * g1)) || !(k->publics = calloc(count + 1, 32)))
        return s->st = ctx_fail(s->ctx, HPR_ERR_OUT_OF_MEMORY, "%s: out of memory", s->file);
    if (json_point(s, json_get(vk, "vk_alpha_1"), k->curve, HPR_G1, "vk_alpha_1", k->alpha1) != HPR_OK ||
        json_point(s, json_get(vk, "vk_beta_2"), k->curve, HPR_G2, "vk_beta_2", k->beta2) != HPR_OK ||
        json_point(s, json_get(vk, "vk_gamma_2"), k->curve, HPR_G2, "vk_gamma_2", k->gamma2) != HPR_OK ||
        json_point(s, json_get(vk, "vk_delta_2"), k->curve, HPR_G2, "vk_delta_2", k->delta2) != HPR_OK)
        return s->st;
    for (size_t i = 0; i <= count; i++)
        if (json_point(s, &ic->items[i], k->curve, HPR_G1, "an IC point", k->ic + i * g1) != HPR_OK)
            return s->st;
    return HPR_OK;
}

static hpr_status read_publics(json_src *s, const json_value *pub, g16_check *k)
{
    if (!pub || pub->type != JSON_ARRAY || pub->count != k->n_public) {
        char what[96];
        snprintf(what, sizeof what, "not an array of %zu public signals (the key's nPublic)", k->n_public);
        return bad(s, "%s", what);
    }
    for (size_t i = 0; i < k->n_public; i++) {
        uint64_t l[4];
        if (decimal(&pub->items[i], l, 4) != 0) {
            char what[64];
            snprintf(what, sizeof what, "public signal %zu is not a decimal string", i);
            return bad(s, "%s", what);
        }
        memcpy(k->publics + 32 * i, l, 32);
    }
    return HPR_OK;
}

static hpr_status read_proof(json_src *s, const json_value *proof, g16_check *k)
{
    hpr_curve curve = k->curve;
    if (json_curve(s, proof, &curve) != HPR_OK ||
        json_point(s, json_get(proof, "pi_a"), k->curve, HPR_G1, "pi_a", k->a) != HPR_OK ||
        json_point(s, json_get(proof, "pi_b"), k->curve, HPR_G2, "pi_b", k->b) != HPR_OK ||
        json_point(s, json_get(proof, "pi_c"), k->curve, HPR_G1, "pi_c", k->c) != HPR_OK)
        return s->st;
    return HPR_OK;
}

hpr_status groth16_verify_json_call(hpr_ctx *ctx, const char *vk_json, size_t vk_len, const char *public_json,
                                    size_t public_len, const char *proof_json, size_t proof_len)
{
    g16_check k;
    json_src s = {ctx, "verification key", HPR_OK};
    json_value *vk = NULL, *pub = NULL, *proof = NULL;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    memset(&k, 0, sizeof k);
    if ((vk = parse(&s, vk_json, vk_len)) && read_vk(&s, vk, &k) == HPR_OK) {
        s.file = "public signals";
        if ((pub = parse(&s, public_json, public_len)) && read_publics(&s, pub, &k) == HPR_OK) {
            s.file = "proof";
            if ((proof = parse(&s, proof_json, proof_len)) && read_proof(&s, proof, &k) == HPR_OK)
                s.st = run_check(ctx, &k);
        }
    }
    json_free(vk);
    json_free(pub);
    json_free(proof);
    free(k.ic);
    free(k.publics);
    return s.st;
}
