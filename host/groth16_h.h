/*
 * groth16_h.h: the scalars of the Groth16 H multi-exponentiation (host/groth16_h.c).
 */
#ifndef HOST_GROTH16_H_H
#define HOST_GROTH16_H_H

#include "zkey.h"

/* h[i], i < domainSize: canonical 32-byte little-endian scalars of the MSM with section 9,
 * from the witness w (nVars canonical 32-byte values, checked below r by wtns_parse).
 * device: where the NTTs run (hpr_ntt_opts.device; NULL = the context's default). */
RT_MUST_CHECK hpr_status g16_h(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *w, unsigned char *h,
                               const char *device);

#endif
