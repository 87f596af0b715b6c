/*
 * host/api/groth16.c: the public entries for Groth16 prover handles, proofs and verification.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/api/proof_args.h"
#include "host/groth16/groth16_calls.h"

hpr_status hpr_groth16_proof_json(const hpr_groth16_proof *proof, char **proof_json, char **public_json)
{
    hpr_groth16_proof in;
    if (proof && SIZED_READ(NULL, hpr_groth16_proof, proof, &in) != HPR_OK) {
        if (proof_json)
            *proof_json = NULL;
        if (public_json)
            *public_json = NULL;
        return HPR_ERR_INVALID_ARGUMENT;
    }
    return g16_proof_json(proof ? &in : NULL, proof_json, public_json);
}

hpr_status hpr_groth16_prove(hpr_ctx *ctx, const hpr_groth16_prover *prover, const void *wtns, size_t wtns_len,
                             hpr_groth16_proof *proof)
{
    proof_args a;
    ctx_enter(ctx);
    hpr_status st = proof_args_begin(ctx, proof, &a);
    if (st == HPR_OK)
        st = proof_args_end(&a, g16_prove_call(ctx, prover, wtns, wtns_len, a.proof));
    return ctx_leave(ctx, st);
}

hpr_status hpr_groth16_prove_file(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *wtns_path,
                                  hpr_groth16_proof *proof)
{
    proof_args a;
    ctx_enter(ctx);
    hpr_status st = proof_args_begin(ctx, proof, &a);
    if (st == HPR_OK)
        st = proof_args_end(&a, groth16_prove_file_call(ctx, prover, wtns_path, a.proof));
    return ctx_leave(ctx, st);
}

void hpr_groth16_proof_clear(hpr_groth16_proof *proof)
{
    char why[200];
    if (proof && sized_problem("hpr_groth16_proof", proof, sizeof *proof, sizeof *proof, 0, why, sizeof why) == HPR_OK)
        g16_proof_clear(proof); /* a proof the library never wrote (struct_size unset) holds nothing */
}

void hpr_groth16_proof_free(hpr_groth16_proof *proof)
{
    hpr_groth16_proof_clear(proof);
}

hpr_status hpr_groth16_prover_create(hpr_ctx *ctx, const char *zkey_path, hpr_groth16_prover **out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, groth16_prover_create_call(ctx, zkey_path, out));
}

hpr_status hpr_groth16_prover_create_from_buffer(hpr_ctx *ctx, const void *zkey, size_t len,
                                                 hpr_groth16_prover **out)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, groth16_prover_create_from_buffer_call(ctx, zkey, len, out));
}

void hpr_groth16_prover_destroy(hpr_groth16_prover *prover)
{
    g16_prover_destroy(prover);
}

hpr_curve hpr_groth16_prover_curve(const hpr_groth16_prover *prover)
{
    return g16_prover_curve(prover);
}

void hpr_groth16_prover_sizes(const hpr_groth16_prover *prover, size_t *domain_size, size_t *n_vars, size_t *n_public)
{
    g16_prover_sizes(prover, domain_size, n_vars, n_public);
}

hpr_status hpr_groth16_zkey_sizes(hpr_ctx *ctx, const void *zkey, size_t len, hpr_curve *curve, size_t *domain_size,
                                  size_t *n_vars, size_t *n_public)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, groth16_zkey_sizes_call(ctx, zkey, len, curve, domain_size, n_vars, n_public));
}

hpr_status hpr_groth16_prover_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover, unsigned precompute)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, prover_precompute_call(ctx, prover, precompute));
}

unsigned hpr_groth16_prover_precomputed(const hpr_groth16_prover *prover, size_t *bytes)
{
    return g16_prover_precomputed_bytes(prover, bytes);
}

hpr_status hpr_groth16_verify(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_groth16_proof *proof)
{
    hpr_groth16_proof in;
    ctx_enter(ctx);
    hpr_status st = proof ? SIZED_READ(ctx, hpr_groth16_proof, proof, &in) : HPR_OK;
    return ctx_leave(ctx, st != HPR_OK ? st : groth16_verify_call(ctx, prover, proof ? &in : NULL));
}

hpr_status hpr_groth16_verify_json(hpr_ctx *ctx, const char *vk_json, size_t vk_len, const char *public_json,
                                   size_t public_len, const char *proof_json, size_t proof_len)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, groth16_verify_json_call(ctx, vk_json, vk_len, public_json, public_len, proof_json,
                                                   proof_len));
}

hpr_status hpr_groth16_verification_key_json(hpr_ctx *ctx, const hpr_groth16_prover *prover, char **vk_json)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, g16_verification_key_json_call(ctx, prover, vk_json));
}

hpr_status hpr_groth16_setup(hpr_ctx *ctx, const char *r1cs_path, unsigned flags, const char *seed,
                             hpr_write_fn write_zkey, void *user, char **vk_json)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, groth16_setup_call(ctx, r1cs_path, flags, seed, write_zkey, user, vk_json));
}

hpr_status hpr_groth16_prover_memory(hpr_ctx *ctx, const hpr_groth16_prover *prover, int from_file, size_t *bytes)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, groth16_memory_call(ctx, prover, from_file, bytes));
}
