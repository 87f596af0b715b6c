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
 */
#include "host/core/decimal.h"
#include "host/msm/msm_engine.h"
#include "host/groth16/groth16_calls.h"

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
