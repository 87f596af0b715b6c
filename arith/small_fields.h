/*
 * small_fields.h: the small prime fields of the NTT, shared by host C and OpenCL C:
 * Goldilocks, BabyBear, KoalaBear. Host C includes it through kernels_cpu/ntt_fields.h; the
 * OpenCL NTT program (kernels_cl/ntt.cl) includes it directly.
 *
 * Goldilocks p = 2^64 - 2^32 + 1: elements are canonical 64-bit words (< p). A product of
 * 128 bits reduces with 2^64 = 2^32 - 1 and 2^96 = -1 (mod p): x = lo + 2^64 (hi_lo + 2^32
 * hi_hi) = lo - hi_hi + hi_lo (2^32 - 1).
 * BabyBear p = 15 * 2^27 + 1 and KoalaBear p = 127 * 2^24 + 1: elements are Montgomery
 * residues a R mod p with R = 2^32, reduced (< p < 2^31, so sums never overflow 32 bits).
 * Constants (checked against GMP by tests/test_ntt.c): PINV = -p^-1 mod 2^32, R2 = R^2 mod p.
 * Generators (the fields' standard ones): Goldilocks 7, BabyBear 31, KoalaBear 3;
 * two-adicity 32, 27, 24.
 * Contracts: every function takes reduced inputs and returns reduced outputs.
 */
#ifndef ARITH_SMALL_FIELDS_H
#define ARITH_SMALL_FIELDS_H

#include "compat.h"

/* ---- Goldilocks ---- */

#define GL_P ARITH_U64(0xffffffff00000001)
#define GL_EPSILON ARITH_U64(0xffffffff) /* 2^64 mod p */

typedef struct {
    arith_u64 v;
} gl_t;

ARITH_FN void gl_add(gl_t *r, const gl_t *a, const gl_t *b)
{
    arith_u64 s = a->v + b->v;
    if (s < a->v)
        s += GL_EPSILON; /* wrapped: a + b - 2^64 + (2^32 - 1) = a + b - p, below p */
    else if (s >= GL_P)
        s -= GL_P;
    r->v = s;
}

ARITH_FN void gl_sub(gl_t *r, const gl_t *a, const gl_t *b)
{
    arith_u64 d = a->v - b->v;
    if (a->v < b->v)
        d -= GL_EPSILON; /* a - b + 2^64 - (2^32 - 1) = a - b + p */
    r->v = d;
}

/* (hi, lo) reduced mod p. */
ARITH_FN arith_u64 gl_reduce128(arith_u64 lo, arith_u64 hi)
{
    arith_u64 hi_hi = hi >> 32, hi_lo = hi & GL_EPSILON;
    arith_u64 t0 = lo - hi_hi;
    if (lo < hi_hi)
        t0 -= GL_EPSILON;
    arith_u64 t1 = hi_lo * GL_EPSILON;
    arith_u64 r = t0 + t1;
    if (r < t1)
        r += GL_EPSILON;
    return r >= GL_P ? r - GL_P : r;
}

ARITH_FN void gl_mul(gl_t *r, const gl_t *a, const gl_t *b)
{
    arith_u64 hi, lo = arith_mac(a->v, b->v, 0, 0, &hi);
    r->v = gl_reduce128(lo, hi);
}

/* canonical value (< p) <-> element: the identity */
ARITH_FN void gl_from_canonical(gl_t *r, arith_u64 v)
{
    r->v = v;
}

ARITH_FN arith_u64 gl_to_canonical(const gl_t *a)
{
    return a->v;
}

/* ---- 31-bit Montgomery fields: BabyBear, KoalaBear ---- */

#define BB_P 0x78000001u
#define BB_PINV 0x77ffffffu
#define BB_R2 0x45dddde3u
#define KB_P 0x7f000001u
#define KB_PINV 0x7effffffu
#define KB_R2 0x17f7efe4u

ARITH_FN arith_u32 m31_mont_reduce(arith_u64 t, arith_u32 p, arith_u32 pinv)
{
    arith_u32 m = (arith_u32)t * pinv;
    arith_u32 u = (arith_u32)((t + (arith_u64)m * p) >> 32);
    return u >= p ? u - p : u;
}

#define M31_FIELD(F, P, PINV, R2)                                                                    \
    typedef struct {                                                                                 \
        arith_u32 v;                                                                                   \
    } F##_t;                                                                                         \
    ARITH_FN void F##_add(F##_t *r, const F##_t *a, const F##_t *b)                                    \
    {                                                                                                \
        arith_u32 s = a->v + b->v;                                                                     \
        r->v = s >= (P) ? s - (P) : s;                                                               \
    }                                                                                                \
    ARITH_FN void F##_sub(F##_t *r, const F##_t *a, const F##_t *b)                                    \
    {                                                                                                \
        r->v = a->v >= b->v ? a->v - b->v : a->v + (P) - b->v;                                       \
    }                                                                                                \
    ARITH_FN void F##_mul(F##_t *r, const F##_t *a, const F##_t *b)                                    \
    {                                                                                                \
        r->v = m31_mont_reduce((arith_u64)a->v * b->v, (P), (PINV));                                   \
    }                                                                                                \
    ARITH_FN void F##_from_canonical(F##_t *r, arith_u64 v)                                              \
    {                                                                                                \
        r->v = m31_mont_reduce((arith_u64)(arith_u32)v * (R2), (P), (PINV));                             \
    }                                                                                                \
    ARITH_FN arith_u64 F##_to_canonical(const F##_t *a)                                                  \
    {                                                                                                \
        return m31_mont_reduce(a->v, (P), (PINV));                                                   \
    }

M31_FIELD(bb, BB_P, BB_PINV, BB_R2)
M31_FIELD(kb, KB_P, KB_PINV, KB_R2)

#endif
