/*
 * ntt_fields.h: the small prime fields of the NTT (host C): Goldilocks, BabyBear, KoalaBear.
 *
 * Goldilocks p = 2^64 - 2^32 + 1: elements are canonical uint64 (< p). A product of 128 bits
 * reduces with 2^64 = 2^32 - 1 and 2^96 = -1 (mod p): x = lo + 2^64 (hi_lo + 2^32 hi_hi) =
 * lo - hi_hi + hi_lo (2^32 - 1).
 * BabyBear p = 15 * 2^27 + 1 and KoalaBear p = 127 * 2^24 + 1: elements are Montgomery
 * residues a R mod p with R = 2^32, reduced (< p < 2^31, so sums never overflow 32 bits).
 * Constants (checked against GMP by tests/test_ntt.c): PINV = -p^-1 mod 2^32, R2 = R^2 mod p.
 * Generators (the fields' standard ones, issue 6): Goldilocks 7, BabyBear 31, KoalaBear 3;
 * two-adicity 32, 27, 24.
 * Contracts: every function takes reduced inputs and returns reduced outputs.
 */
#ifndef HPR_NTT_FIELDS_H
#define HPR_NTT_FIELDS_H

#include <stdint.h>

/* ---- Goldilocks ---- */

#define GL_P 0xffffffff00000001ull
#define GL_EPSILON 0xffffffffull /* 2^64 mod p */

typedef struct {
    uint64_t v;
} gl_t;

static inline void gl_add(gl_t *r, const gl_t *a, const gl_t *b)
{
    uint64_t s = a->v + b->v;
    if (s < a->v)
        s += GL_EPSILON; /* wrapped: a + b - 2^64 + (2^32 - 1) = a + b - p, below p */
    else if (s >= GL_P)
        s -= GL_P;
    r->v = s;
}

static inline void gl_sub(gl_t *r, const gl_t *a, const gl_t *b)
{
    uint64_t d = a->v - b->v;
    if (a->v < b->v)
        d -= GL_EPSILON; /* a - b + 2^64 - (2^32 - 1) = a - b + p */
    r->v = d;
}

static inline uint64_t gl_reduce128(unsigned __int128 x)
{
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    uint64_t hi_hi = hi >> 32, hi_lo = hi & GL_EPSILON;
    uint64_t t0 = lo - hi_hi;
    if (lo < hi_hi)
        t0 -= GL_EPSILON;
    uint64_t t1 = hi_lo * GL_EPSILON;
    uint64_t r = t0 + t1;
    if (r < t1)
        r += GL_EPSILON;
    return r >= GL_P ? r - GL_P : r;
}

static inline void gl_mul(gl_t *r, const gl_t *a, const gl_t *b)
{
    r->v = gl_reduce128((unsigned __int128)a->v * b->v);
}

/* canonical value (< p) <-> element: the identity */
static inline void gl_from_canonical(gl_t *r, uint64_t v)
{
    r->v = v;
}

static inline uint64_t gl_to_canonical(const gl_t *a)
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

static inline uint32_t m31_mont_reduce(uint64_t t, uint32_t p, uint32_t pinv)
{
    uint32_t m = (uint32_t)t * pinv;
    uint32_t u = (uint32_t)((t + (uint64_t)m * p) >> 32);
    return u >= p ? u - p : u;
}

#define M31_FIELD(F, P, PINV, R2)                                                                    \
    typedef struct {                                                                                 \
        uint32_t v;                                                                                  \
    } F##_t;                                                                                         \
    static inline void F##_add(F##_t *r, const F##_t *a, const F##_t *b)                             \
    {                                                                                                \
        uint32_t s = a->v + b->v;                                                                    \
        r->v = s >= (P) ? s - (P) : s;                                                               \
    }                                                                                                \
    static inline void F##_sub(F##_t *r, const F##_t *a, const F##_t *b)                             \
    {                                                                                                \
        r->v = a->v >= b->v ? a->v - b->v : a->v + (P) - b->v;                                       \
    }                                                                                                \
    static inline void F##_mul(F##_t *r, const F##_t *a, const F##_t *b)                             \
    {                                                                                                \
        r->v = m31_mont_reduce((uint64_t)a->v * b->v, (P), (PINV));                                  \
    }                                                                                                \
    static inline void F##_from_canonical(F##_t *r, uint64_t v)                                      \
    {                                                                                                \
        r->v = m31_mont_reduce((uint64_t)(uint32_t)v * (R2), (P), (PINV));                           \
    }                                                                                                \
    static inline uint64_t F##_to_canonical(const F##_t *a)                                          \
    {                                                                                                \
        return m31_mont_reduce(a->v, (P), (PINV));                                                   \
    }

M31_FIELD(bb, BB_P, BB_PINV, BB_R2)
M31_FIELD(kb, KB_P, KB_PINV, KB_R2)

#endif
