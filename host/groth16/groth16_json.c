/*
 * groth16_json.c: a Groth16 proof as snarkjs writes it (hpr_groth16_proof_json): proof.json
 * (pi_a, pi_b, pi_c, protocol, curve) and public.json, byte for byte (one-space indentation,
 * no final newline, curve "bn128" or "bls12381").
 *
 * Method: each point in the interchange form is decoded by its curve's operation table and
 * written as snarkjs's projective triple of decimal coordinates ([x, y, "1"], the zero point
 * ["0", "1", "0"]; G2 coordinates as pairs), into a growing buffer whose allocation failure
 * is reported once at the end.
 * Why byte for byte: the files stand in for snarkjs's own (snarkjs groth16 verify reads
 * them), and the tests compare the r = s = 0 proof with the fixtures' proof_r0s0.json as
 * bytes.
 * Also verification_key.json (g16_vk_json) as `snarkjs zkey export verificationkey` writes it:
 * protocol, curve, nPublic, the key's points, vk_alphabeta_12 (snarkjs's pairing value, which
 * is this library's pairing raised to a fixed multiple: see alphabeta_point) and IC.
 */
#include "host/core/decimal.h"
#include "host/msm/msm_engine.h"
#include "host/groth16/groth16_calls.h"
#include "host/groth16/pairing.h"
#include "host/groth16/zkey.h"

#include "arith/curves.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const msm_curve_ops *ops = msm_ops(curve, group);
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
        dec_from_limbs(dec[0][j], x + j * limbs, limbs);
        dec_from_limbs(dec[1][j], y + j * limbs, limbs);
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

static const char *indent(unsigned depth)
{
    static const char spaces[] = "        ";
    return spaces + sizeof spaces - 1 - (depth < sizeof spaces - 1 ? depth : sizeof spaces - 1);
}

/* A point's triple at depth (its opening bracket already placed): entries one deeper, G2
 * coordinates as pairs, the closing bracket at depth, then "," unless last. */
static int put_triple(json_out *o, unsigned depth, hpr_curve curve, hpr_group group, const unsigned char *bytes,
                      int last)
{
    char dec[3][2][120];
    if (point_decimals(curve, group, bytes, dec) != 0)
        return -1;
    put(o, "[\n");
    for (int k = 0; k < 3; k++) {
        if (group == HPR_G1) {
            put_string_line(o, indent(depth + 1), dec[k][0], k == 2);
            continue;
        }
        put(o, indent(depth + 1));
        put(o, "[\n");
        put_string_line(o, indent(depth + 2), dec[k][0], 0);
        put_string_line(o, indent(depth + 2), dec[k][1], 1);
        put(o, indent(depth + 1));
        put(o, k == 2 ? "]\n" : "],\n");
    }
    put(o, indent(depth));
    put(o, last ? "]\n" : "],\n");
    return 0;
}

static int put_point(json_out *o, const char *key, hpr_curve curve, hpr_group group, const unsigned char *bytes)
{
    put(o, " \"");
    put(o, key);
    put(o, "\": ");
    return put_triple(o, 1, curve, group, bytes, 0);
}

/* snarkjs's pairing (wasmcurves) ends with a final exponentiation whose hard part raises to a
 * multiple of (p^4 - p^2 + 1) / r: lambda = 2z(6z^2 + 3z + 1) mod r for BN254 (z =
 * 4965661367192848881, the Fuentes-Castaneda et al. chain), 3 for BLS12-381 (zkcrypto's). Its
 * vk_alphabeta_12 is therefore e(alpha1, beta2)^lambda = e(lambda alpha1, beta2) of this
 * library's pairing (checked against snarkjs's exports of both curves' fixtures). */
static void alphabeta_point(hpr_curve curve, const unsigned char *alpha1, unsigned char *out)
{
    static const uint64_t bn254_lambda[4] = {0x2e5d4e223ddedaf4ull, 0x1ea96b02d9d9e38dull, 0x3bec47df15e307c8ull, 0};
    static const uint64_t bls_lambda[4] = {3, 0, 0, 0};
    if (curve == HPR_CURVE_BN254) {
        bn254_g1_affine a;
        bn254_g1_jac j;
        memcpy(&a, alpha1, sizeof a);
        bn254_g1_jac_mul_var(&j, &a, bn254_lambda);
        bn254_g1_jac_to_affine(&a, &j);
        memcpy(out, &a, sizeof a);
    } else {
        bls12_381_g1_affine a;
        bls12_381_g1_jac j;
        memcpy(&a, alpha1, sizeof a);
        bls12_381_g1_jac_mul_var(&j, &a, bls_lambda);
        bls12_381_g1_jac_to_affine(&a, &j);
        memcpy(out, &a, sizeof a);
    }
}

/* e(alpha1, beta2) as snarkjs's vk_alphabeta_12: [c0, c1] of Fq6 = [c0, c1, c2] of Fq2 pairs. */
static int put_alphabeta(json_out *o, const zkey_file *zk)
{
    uint64_t f[12 * 6];
    unsigned limbs = zk->curve == HPR_CURVE_BN254 ? 4 : 6;
    unsigned char alpha[MSM_MAX_AFFINE_BYTES];
    alphabeta_point(zk->curve, zk->alpha1, alpha);
    pairing_pair pair = {alpha, zk->beta2, 0, 0, 0};
    if (pairing_product_value(zk->curve, &pair, 1, f) != 0)
        return -1;
    put(o, " \"vk_alphabeta_12\": [\n");
    for (int c6 = 0; c6 < 2; c6++) {
        put(o, "  [\n");
        for (int c2 = 0; c2 < 3; c2++) {
            put(o, "   [\n");
            for (int c = 0; c < 2; c++) {
                char dec[120];
                dec_from_limbs(dec, f + (size_t)(6 * c6 + 2 * c2 + c) * limbs, limbs);
                put_string_line(o, "    ", dec, c == 1);
            }
            put(o, c2 == 2 ? "   ]\n" : "   ],\n");
        }
        put(o, c6 == 1 ? "  ]\n" : "  ],\n");
    }
    put(o, " ],\n");
    return 0;
}

hpr_status g16_vk_json(hpr_ctx *ctx, const zkey_file *zk, char **vk_json)
{
    json_out o = {0};
    char line[64];
    int bad = 0;
    *vk_json = NULL;
    put(&o, "{\n \"protocol\": \"groth16\",\n \"curve\": \"");
    put(&o, zk->curve == HPR_CURVE_BN254 ? "bn128" : "bls12381");
    snprintf(line, sizeof line, "\",\n \"nPublic\": %u,\n", zk->n_public);
    put(&o, line);
    bad |= put_point(&o, "vk_alpha_1", zk->curve, HPR_G1, zk->alpha1);
    bad |= put_point(&o, "vk_beta_2", zk->curve, HPR_G2, zk->beta2);
    bad |= put_point(&o, "vk_gamma_2", zk->curve, HPR_G2, zk->gamma2);
    bad |= put_point(&o, "vk_delta_2", zk->curve, HPR_G2, zk->delta2);
    bad |= put_alphabeta(&o, zk);
    put(&o, " \"IC\": [\n");
    for (uint32_t i = 0; i <= zk->n_public && !bad; i++) {
        put(&o, "  ");
        bad |= put_triple(&o, 2, zk->curve, HPR_G1, zk->ic + (size_t)i * 2 * zk->n8q, i == zk->n_public);
    }
    put(&o, " ]\n}");
    if (bad) {
        free(o.buf);
        return ctx_fail(ctx, HPR_ERR_FORMAT, "verification key: a point of the key is not on its curve");
    }
    if (o.failed) {
        free(o.buf);
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "verification key: no memory for its JSON text");
    }
    *vk_json = o.buf;
    return HPR_OK;
}

hpr_status g16_proof_json(const hpr_groth16_proof *proof, char **proof_json, char **public_json)
{
    json_out pj = {0}, uj = {0};
    if (proof_json)
        *proof_json = NULL;
    if (public_json)
        *public_json = NULL;
    /* a proof of a known curve whose public signals are there (n_public of them) */
    if (!proof || !proof_json || !public_json || !msm_g1_ops(proof->curve) ||
        (proof->n_public && !proof->public_signals))
        return HPR_ERR_INVALID_ARGUMENT;
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
        dec_from_limbs(dec, l, 4);
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

hpr_status g16_verification_key_json_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, char **vk_json)
{
    if (vk_json)
        *vk_json = NULL;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!prover || !vk_json)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "verification key: the prover or the output is NULL");
    return g16_vk_json(ctx, g16_prover_zkey(prover), vk_json);
}
