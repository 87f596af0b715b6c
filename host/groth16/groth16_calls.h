/*
 * groth16_calls.h: the entries of the Groth16 engine (prover handle, proofs, verification, proof JSON)
 * that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_GROTH16_GROTH16_CALLS_H
#define HOST_GROTH16_GROTH16_CALLS_H

#include "host/groth16/groth16.h"

hpr_status g16_proof_json(const hpr_groth16_proof *proof, char **proof_json, char **public_json);
/* Frees the proof's public signals and empties it; its struct_size and report pointer stay. */
void g16_proof_clear(hpr_groth16_proof *proof);
/* Empties a proof about to be written (a full hpr_groth16_proof of this library): every
 * member zero but its report pointer, struct_size sizeof, and the report (if any) emptied
 * likewise. */
void g16_proof_reset(hpr_groth16_proof *proof);
hpr_status groth16_memory_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, int from_file, size_t *bytes);
hpr_status g16_verification_key_json_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, char **vk_json);
hpr_status groth16_setup_call(hpr_ctx *ctx, const char *r1cs_path, unsigned flags, const char *seed,
                              hpr_write_fn write, void *user, char **vk_json);
void g16_prover_destroy(hpr_groth16_prover *prover);
hpr_curve g16_prover_curve(const hpr_groth16_prover *prover);
void g16_prover_sizes(const hpr_groth16_prover *prover, size_t *domain_size, size_t *n_vars, size_t *n_public);
unsigned g16_prover_precomputed_bytes(const hpr_groth16_prover *prover, size_t *bytes);
hpr_status groth16_prove_file_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *wtns_path,
                                   hpr_groth16_proof *proof);
hpr_status groth16_prover_create_call(hpr_ctx *ctx, const char *zkey_path, hpr_groth16_prover **out);
hpr_status groth16_prover_create_from_buffer_call(hpr_ctx *ctx, const void *zkey, size_t len,
                                                  hpr_groth16_prover **out);
hpr_status groth16_verify_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_groth16_proof *proof);
hpr_status groth16_verify_json_call(hpr_ctx *ctx, const char *vk_json, size_t vk_len, const char *public_json,
                                    size_t public_len, const char *proof_json, size_t proof_len);
hpr_status groth16_zkey_sizes_call(hpr_ctx *ctx, const void *zkey, size_t len, hpr_curve *curve, size_t *domain_size,
                                   size_t *n_vars, size_t *n_public);
hpr_status prover_precompute_call(hpr_ctx *ctx, hpr_groth16_prover *prover, unsigned precompute);

#endif
