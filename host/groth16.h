/*
 * groth16.h: the Groth16 prover's internals (host/groth16.c) that tests reach: the proof
 * with chosen r and s (r = s = 0 reproduces the fixtures' proof_r0s0.json) and the zkey a
 * prover holds. Internal to the library: users get r and s from the OS's CSPRNG only.
 */
#ifndef HPR_GROTH16_H
#define HPR_GROTH16_H

#include "zkey.h"

const hpr_zkey *hpr_groth16_prover_zkey(const hpr_groth16_prover *prover);

/* The proof of the witness values w (n_vars canonical 32-byte scalars, checked below r by
 * hpr_wtns_parse) with the blinding scalars r and s (canonical, < r). */
hpr_status hpr_groth16_prove_values(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                                    const unsigned char *r, const unsigned char *s, hpr_groth16_proof *proof);

#endif
