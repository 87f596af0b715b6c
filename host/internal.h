/*
 * internal.h: what the library's translation units share but users do not see.
 */
#ifndef HPR_INTERNAL_H
#define HPR_INTERNAL_H

#include <stdint.h>

#include "hyprove.h"
#include "../runtime/rt_pool.h"
#include "../kernels_cpu/msm_cpu.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hyprove assumes a little-endian host: structs of 64-bit limbs are the interchange bytes"
#endif

struct hpr_ctx {
    rt_pool *pool;
    unsigned threads;
    char detail[512];
};

/* Records a printf-style detail on ctx (if not NULL) and returns status unchanged. */
hpr_status hpr_fail(hpr_ctx *ctx, hpr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The G1 operation table of a curve, or NULL. */
const msm_curve_ops *hpr_g1_ops(hpr_curve curve);

/* Decimal <-> little-endian 64-bit limbs (n limbs). to_limbs returns 0, or -1 on an empty
 * string, a non-digit or a value >= 2^(64n). from_limbs needs buflen >= 20n + 1. */
int hpr_dec_to_limbs(uint64_t *limbs, unsigned n, const char *s);
void hpr_dec_from_limbs(char *buf, const uint64_t *limbs, unsigned n);

#endif
