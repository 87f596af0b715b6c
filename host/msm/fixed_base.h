/*
 * fixed_base.h: many multiples of one base point (host/msm/fixed_base.c), for the development
 * setup (host/groth16/setup.c) and hpr_fixed_base_mul. Internal to the library.
 */
#ifndef HOST_MSM_FIXED_BASE_H
#define HOST_MSM_FIXED_BASE_H

#include "host/core/context.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fixed_base fixed_base;

/* The window table of base (interchange bytes, validated by the caller: on the curve, in the
 * subgroup, not infinity; NULL: the group's generator), with windows sized for about n_hint
 * multiplications, in the point form of ctx's CPU tier (whose kernel fixed_base_mul runs).
 * HPR_OK and *out (release with fixed_base_destroy), or HPR_ERR_OUT_OF_MEMORY (reported on
 * ctx). */
RT_MUST_CHECK hpr_status fixed_base_create(hpr_ctx *ctx, hpr_curve curve, hpr_group group,
                                           const unsigned char *base, size_t n_hint, fixed_base **out);
void fixed_base_destroy(fixed_base *fb);
/* Bytes the table holds (memory estimates). */
size_t fixed_base_table_bytes(const fixed_base *fb);

/* out[i] = scalars[i] * base as interchange bytes (all zero for infinity), i < n, in parallel
 * on ctx's pool. Contract: each scalar is 4 canonical little-endian limbs below the group
 * order r. Identical bytes for any thread count. HPR_OK, or HPR_ERR_OUT_OF_MEMORY for the
 * workers' scratch (reported on ctx; out then unwritten). */
RT_MUST_CHECK hpr_status fixed_base_mul(hpr_ctx *ctx, const fixed_base *fb, const uint64_t (*scalars)[4], size_t n,
                                        unsigned char *out);

#endif
