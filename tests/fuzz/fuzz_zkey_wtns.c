/*
 * fuzz_zkey_wtns.c: libFuzzer target for the .zkey and .wtns readers and the whole Groth16
 * proof from buffers.
 *
 * Input: a 4-byte little-endian length L, then L bytes of .zkey, then the .wtns (the rest of
 * the input; an L past the end gives the whole rest to the zkey and an empty witness).
 * tests/fuzz/make_corpus.py packs the fixtures this way.
 *
 * Each run: hpr_groth16_zkey_sizes (the header alone), hpr_groth16_prover_create_from_buffer
 * (the strict parse of the whole key), and, for a small key, hpr_groth16_prove of the witness
 * on a one-thread CPU context. Oracles: a key the full parser accepts has the header's curve
 * and sizes; a proof has the key's curve and n_public public signals equal to w[1..n_public]
 * (read from the witness here, independently of zkey.c), points on the curve, and formats as
 * JSON.
 *
 * Why the size limits: the proof's cost grows with domainSize and nVars, and a run should stay
 * under about 50 ms; keys up to 64 constraints and 64 signals are proved, larger ones only
 * parsed (measured on one thread under ASan and UBSan, on a loaded 2-core machine: a run of
 * the 16-constraint BLS12-381 seed 53 ms, of edge_pub 26 ms; about half of it is the key's
 * subgroup checks and the proof's MSMs). The sizes come from hpr_groth16_zkey_sizes, the
 * cheap header query, so that query is exercised on every input too.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_support.h"

#define PROVE_MAX_DOMAIN 64u
#define PROVE_MAX_VARS 64u

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The witness values (section 2 of the .wtns container), found by walking the sections;
 * NULL when the container does not hold one of want bytes. */
static const uint8_t *witness_values(const uint8_t *w, size_t len, size_t want)
{
    size_t off = 12;
    if (len < 12)
        return NULL;
    for (uint32_t i = 0, n = rd32(w + 8); i < n && len - off >= 12; i++) {
        uint64_t size = rd32(w + off + 4) | (uint64_t)rd32(w + off + 8) << 32;
        if (size > len - off - 12)
            return NULL;
        if (rd32(w + off) == 2)
            return size == want ? w + off + 12 : NULL;
        off += 12 + (size_t)size;
    }
    return NULL;
}

static int point_ok(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const unsigned char *point)
{
    hpr_status st = hpr_point_check(ctx, curve, group, point);
    return st == HPR_OK || st == HPR_ERR_POINT_NOT_IN_SUBGROUP;
}

static void check_proof(hpr_ctx *ctx, hpr_curve curve, size_t n_vars, size_t n_public, const uint8_t *wtns,
                        size_t wtns_len, const hpr_groth16_proof *proof)
{
    const uint8_t *w = witness_values(wtns, wtns_len, n_vars * HPR_SCALAR_SIZE);
    char *proof_json = NULL, *public_json = NULL;
    FUZZ_CHECK(proof->curve == curve);
    FUZZ_CHECK(proof->n_public == n_public);
    FUZZ_CHECK(w != NULL);
    FUZZ_CHECK(n_public == 0 ||
               memcmp(proof->public_signals, w + HPR_SCALAR_SIZE, n_public * HPR_SCALAR_SIZE) == 0);
    /* on the curve; the subgroup only as far as the key's points are in it, which the
     * prover does not check (hyprove.h) */
    FUZZ_CHECK(point_ok(ctx, curve, HPR_G1, proof->a));
    FUZZ_CHECK(point_ok(ctx, curve, HPR_G2, proof->b));
    FUZZ_CHECK(point_ok(ctx, curve, HPR_G1, proof->c));
    FUZZ_CHECK(hpr_groth16_proof_json(proof, &proof_json, &public_json) == HPR_OK);
    free(proof_json);
    free(public_json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hpr_ctx *ctx = fuzz_ctx();
    fuzz_input in = {data, size};
    uint32_t zlen = fuzz_u32(&in);
    size_t zkey_len = zlen < in.left ? zlen : in.left;
    const uint8_t *zkey = in.p, *wtns = in.p + zkey_len;
    size_t wtns_len = in.left - zkey_len;
    hpr_curve curve = 0, pcurve;
    size_t domain = 0, n_vars = 0, n_public = 0, pdomain, pvars, ppublic;
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};

    hpr_status sizes = hpr_groth16_zkey_sizes(ctx, zkey, zkey_len, &curve, &domain, &n_vars, &n_public);
    hpr_status st = hpr_groth16_prover_create_from_buffer(ctx, zkey, zkey_len, &prover);
    if (st != HPR_OK) {
        FUZZ_CHECK(prover == NULL);
        FUZZ_CHECK(hpr_ctx_error_detail(ctx)[0] != '\0');
        return 0;
    }
    /* the full parse accepts nothing that the header query refuses, and agrees with it */
    FUZZ_CHECK(sizes == HPR_OK);
    pcurve = hpr_groth16_prover_curve(prover);
    hpr_groth16_prover_sizes(prover, &pdomain, &pvars, &ppublic);
    FUZZ_CHECK(pcurve == curve && pdomain == domain && pvars == n_vars && ppublic == n_public);
    if (domain <= PROVE_MAX_DOMAIN && n_vars <= PROVE_MAX_VARS) {
        st = hpr_groth16_prove(ctx, prover, wtns, wtns_len, &proof);
        if (st == HPR_OK)
            check_proof(ctx, curve, n_vars, n_public, wtns, wtns_len, &proof);
        else
            FUZZ_CHECK(hpr_ctx_error_detail(ctx)[0] != '\0');
        hpr_groth16_proof_clear(&proof);
    }
    hpr_groth16_prover_destroy(prover);
    return 0;
}
