/*
 * groth16_h.h: the scalars of the Groth16 H multi-exponentiation (host/groth16_h.c).
 */
#ifndef HPR_GROTH16_H_H
#define HPR_GROTH16_H_H

#include "zkey.h"

/* h[i], i < domainSize: canonical 32-byte little-endian scalars of the MSM with section 9,
 * from the witness w (nVars canonical 32-byte values, checked below r by hpr_wtns_parse).
 * device: where the NTTs run (hpr_ntt_opts.device; NULL = the context's default). */
hpr_status hpr_groth16_h(hpr_ctx *ctx, const hpr_zkey *zk, const unsigned char *w, unsigned char *h,
                         const char *device);

#endif
