/*
 * groth16_h.h: the scalars of the Groth16 H multi-exponentiation (host/groth16/groth16_h.c).
 */
#ifndef HOST_GROTH16_H_H
#define HOST_GROTH16_H_H

#include "host/groth16/zkey.h"

/* h[i], i < domainSize: canonical 32-byte little-endian scalars of the MSM with section 9,
 * from the witness w (nVars canonical 32-byte values, checked below r by wtns_parse).
 * device: where the NTTs run (hpr_ntt_opts.device; NULL = the context's default). */
RT_MUST_CHECK hpr_status g16_h(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *w, unsigned char *h,
                               const char *device);

/* Step 1 of g16_h: *abc = a new buffer (rt_alloc_large; the caller frees it, NULL without
 * memory: HPR_ERR_OUT_OF_MEMORY) of the columns a, b, c = a b over the domain, each of
 * domainSize Montgomery elements of the scalar field (32 bytes), column-major. */
RT_MUST_CHECK hpr_status g16_h_evaluations(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *w,
                                           unsigned char **abc);

/* Steps 2 and 3 of g16_h over the evaluations abc (g16_h_evaluations; transformed in place)
 * into h, the NTTs on device as g16_h's. */
RT_MUST_CHECK hpr_status g16_h_from_evaluations(hpr_ctx *ctx, const zkey_file *zk, unsigned char *abc,
                                                unsigned char *h, const char *device);

/* The options of g16_h's NTTs over the three columns: coset 0 the inverse over w_n, 1 the
 * forward over the coset of w_2n (its shift written into shift, 96 bytes, which opts then
 * points at); snarkjs's generator 5; device as hpr_ntt_opts.device. */
void g16_h_ntt_opts(const zkey_file *zk, int coset, const char *device, char *shift, hpr_ntt_opts *opts);

#endif
