/*
 * ntt_avx512.c: the avx512 tier of the NTT for BabyBear, KoalaBear (16 lanes of 32 bits) and
 * Goldilocks (8 lanes of 64 bits): the portable template (ntt_impl.h) with 16 or 8
 * butterflies at once wherever that many consecutive ones share a block; the narrower
 * layers run on pairs of vectors with their lanes regrouped by permutes (NARROW_LAYERS), and
 * the coset scaling multiplies a vector at a time. The only unit of the NTT built with AVX-512 flags; ntt_field_ops_for
 * picks it on the avx512 tier.
 *
 * Montgomery multiplication of 16 lanes (R = 2^32, p < 2^31): vpmuludq forms the 64-bit
 * products of the even lanes and, after a 32-bit shift, of the odd ones; m = (t mod 2^32)
 * * PINV mod 2^32 and t + m p (< 2^63 + 2^62) come the same way; the high halves are u < 2p,
 * blended back into 16 lanes; min(u, u - p) reduces (u - p wraps above u when u < p). Sums
 * and differences reduce with the same min trick. Lane for lane this is the scalar
 * m31_mont_reduce of small_fields.h, so both tiers give the same bits (tests/test_ntt.c).
 */
#include "ntt_field_entries.h"

#include <immintrin.h>

/* Goldilocks, 8 lanes: the scalar gl_* of small_fields.h step by step, each branch a mask.
 * The 128-bit product comes from four 32x32 vpmuludq products (the middle sum can carry into
 * bit 64, kept as a mask). */
#define GLV_P _mm512_set1_epi64((long long)GL_P)
#define GLV_EPS _mm512_set1_epi64((long long)GL_EPSILON)

static inline __m512i glv_add(__m512i a, __m512i b)
{
    __m512i s = _mm512_add_epi64(a, b);
    __mmask8 wrapped = _mm512_cmplt_epu64_mask(s, a);
    __mmask8 big = (__mmask8)(~wrapped & _mm512_cmpge_epu64_mask(s, GLV_P));
    s = _mm512_mask_add_epi64(s, wrapped, s, GLV_EPS);
    return _mm512_mask_sub_epi64(s, big, s, GLV_P);
}

static inline __m512i glv_sub(__m512i a, __m512i b)
{
    __m512i d = _mm512_sub_epi64(a, b);
    return _mm512_mask_sub_epi64(d, _mm512_cmplt_epu64_mask(a, b), d, GLV_EPS);
}

static inline __m512i glv_mul(__m512i a, __m512i b)
{
    __m512i ah = _mm512_srli_epi64(a, 32), bh = _mm512_srli_epi64(b, 32);
    __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, bh), hl = _mm512_mul_epu32(ah, b);
    __m512i hh = _mm512_mul_epu32(ah, bh);
    __m512i mid = _mm512_add_epi64(lh, hl);
    __mmask8 mid_carry = _mm512_cmplt_epu64_mask(mid, lh);
    __m512i lo = _mm512_add_epi64(ll, _mm512_slli_epi64(mid, 32));
    __mmask8 lo_carry = _mm512_cmplt_epu64_mask(lo, ll);
    __m512i hi = _mm512_add_epi64(hh, _mm512_srli_epi64(mid, 32));
    hi = _mm512_mask_add_epi64(hi, mid_carry, hi, _mm512_set1_epi64((long long)1 << 32));
    hi = _mm512_mask_add_epi64(hi, lo_carry, hi, _mm512_set1_epi64(1));
    /* gl_reduce128(lo, hi) */
    __m512i hi_hi = _mm512_srli_epi64(hi, 32), hi_lo = _mm512_and_si512(hi, GLV_EPS);
    __m512i t0 = _mm512_sub_epi64(lo, hi_hi);
    t0 = _mm512_mask_sub_epi64(t0, _mm512_cmplt_epu64_mask(lo, hi_hi), t0, GLV_EPS);
    __m512i t1 = _mm512_sub_epi64(_mm512_slli_epi64(hi_lo, 32), hi_lo); /* hi_lo * (2^32 - 1) */
    __m512i r = _mm512_add_epi64(t0, t1);
    r = _mm512_mask_add_epi64(r, _mm512_cmplt_epu64_mask(r, t1), r, GLV_EPS);
    return _mm512_mask_sub_epi64(r, _mm512_cmpge_epu64_mask(r, GLV_P), r, GLV_P);
}

static inline void gl_vdif(gl_t *x, const gl_t *tw, size_t len, size_t j)
{
    __m512i u = _mm512_loadu_si512(x + j), v = _mm512_loadu_si512(x + j + len), w = _mm512_loadu_si512(tw + len + j);
    _mm512_storeu_si512(x + j, glv_add(u, v));
    _mm512_storeu_si512(x + j + len, glv_mul(glv_sub(u, v), w));
}

static inline void gl_vdit(gl_t *x, const gl_t *tw, size_t len, size_t j)
{
    __m512i u = _mm512_loadu_si512(x + j), w = _mm512_loadu_si512(tw + len + j);
    __m512i v = glv_mul(_mm512_loadu_si512(x + j + len), w);
    _mm512_storeu_si512(x + j, glv_add(u, v));
    _mm512_storeu_si512(x + j + len, glv_sub(u, v));
}

static inline __m512i m31v_add(__m512i a, __m512i b, __m512i p)
{
    __m512i s = _mm512_add_epi32(a, b);
    return _mm512_min_epu32(s, _mm512_sub_epi32(s, p));
}

static inline __m512i m31v_sub(__m512i a, __m512i b, __m512i p)
{
    __m512i d = _mm512_sub_epi32(a, b);
    return _mm512_min_epu32(d, _mm512_add_epi32(d, p));
}

static inline __m512i m31v_mul(__m512i a, __m512i b, __m512i p, __m512i pinv)
{
    __m512i even = _mm512_mul_epu32(a, b);
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
    __m512i even_t = _mm512_add_epi64(even, _mm512_mul_epu32(_mm512_mul_epu32(even, pinv), p));
    __m512i odd_t = _mm512_add_epi64(odd, _mm512_mul_epu32(_mm512_mul_epu32(odd, pinv), p));
    __m512i u = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even_t, 32), odd_t);
    return _mm512_min_epu32(u, _mm512_sub_epi32(u, p));
}

/* 16 butterflies at x[j .. j+15] and x[j+len .. j+len+15] with tw[len+j ..]. */
#define M31_VECTOR_BUTTERFLIES(F, P, PINV)                                                           \
    static inline void F##_vdif(F##_t *x, const F##_t *tw, size_t len, size_t j)                     \
    {                                                                                                \
        const __m512i p = _mm512_set1_epi32((int)(P)), pinv = _mm512_set1_epi32((int)(PINV));        \
        __m512i u = _mm512_loadu_si512(x + j), v = _mm512_loadu_si512(x + j + len);                  \
        __m512i w = _mm512_loadu_si512(tw + len + j);                                                \
        _mm512_storeu_si512(x + j, m31v_add(u, v, p));                                               \
        _mm512_storeu_si512(x + j + len, m31v_mul(m31v_sub(u, v, p), w, p, pinv));                   \
    }                                                                                                \
    static inline void F##_vdit(F##_t *x, const F##_t *tw, size_t len, size_t j)                     \
    {                                                                                                \
        const __m512i p = _mm512_set1_epi32((int)(P)), pinv = _mm512_set1_epi32((int)(PINV));        \
        __m512i u = _mm512_loadu_si512(x + j);                                                       \
        __m512i w = _mm512_loadu_si512(tw + len + j);                                                \
        __m512i v = m31v_mul(_mm512_loadu_si512(x + j + len), w, p, pinv);                           \
        _mm512_storeu_si512(x + j, m31v_add(u, v, p));                                               \
        _mm512_storeu_si512(x + j + len, m31v_sub(u, v, p));                                         \
    }

M31_VECTOR_BUTTERFLIES(bb, BB_P, BB_PINV)
M31_VECTOR_BUTTERFLIES(kb, KB_P, KB_PINV)

/* Lane-wise operations of two arguments for the templates below (the M31 constants folded in). */
#define M31_VECTOR_OPS(F, P, PINV)                                                                   \
    static inline __m512i F##_vadd(__m512i a, __m512i b)                                             \
    {                                                                                                \
        return m31v_add(a, b, _mm512_set1_epi32((int)(P)));                                          \
    }                                                                                                \
    static inline __m512i F##_vsub(__m512i a, __m512i b)                                             \
    {                                                                                                \
        return m31v_sub(a, b, _mm512_set1_epi32((int)(P)));                                          \
    }                                                                                                \
    static inline __m512i F##_vmul(__m512i a, __m512i b)                                             \
    {                                                                                                \
        return m31v_mul(a, b, _mm512_set1_epi32((int)(P)), _mm512_set1_epi32((int)(PINV)));          \
    }

M31_VECTOR_OPS(bb, BB_P, BB_PINV)
M31_VECTOR_OPS(kb, KB_P, KB_PINV)
#define gl_vadd glv_add
#define gl_vsub glv_sub
#define gl_vmul glv_mul

/* NT_VMUL of ntt_impl.h: r[k] = a[k] b[k] for one vector of elements. */
#define VECTOR_MUL(F)                                                                                \
    static inline void F##_vmul_n(F##_t *r, const F##_t *a, const F##_t *b)                          \
    {                                                                                                \
        _mm512_storeu_si512(r, F##_vmul(_mm512_loadu_si512(a), _mm512_loadu_si512(b)));               \
    }

/* NT_VNARROW of ntt_impl.h: the layers of span below the vector width (LANES elements, BITS
 * layers) on the 2 LANES elements at x, in registers. For span s, u gathers the elements
 * whose bit s is clear (in order: lane k holds element k / s * 2s + k % s) and v the
 * others, so lane k of a butterfly takes the twiddle tw[s + k % s]; then the lanes go back.
 * The plan (index and twiddle vectors) is made once per cache block. Span 1's twiddle is 1. */
#define NARROW_LAYERS(F, IDX_T, LANES, BITS, PERM)                                                   \
    typedef struct {                                                                                 \
        __m512i split[BITS][2], merge[BITS][2], tw[BITS];                                            \
    } F##_narrow_plan;                                                                               \
    static void F##_narrow_prep(F##_narrow_plan *pl, const F##_t *tw)                                \
    {                                                                                                \
        for (unsigned sb = 0; sb < (BITS); sb++) {                                                   \
            size_t s = (size_t)1 << sb;                                                              \
            IDX_T idx[4][LANES];                                                                     \
            F##_t pattern[LANES];                                                                    \
            for (size_t k = 0; k < (LANES); k++) {                                                   \
                idx[0][k] = (IDX_T)(k / s * 2 * s + k % s);                                          \
                idx[1][k] = (IDX_T)(k / s * 2 * s + k % s + s);                                      \
                pattern[k] = tw[s + k % s];                                                          \
            }                                                                                        \
            for (size_t e = 0; e < 2 * (LANES); e++) {                                               \
                size_t lane = e / (2 * s) * s + e % s;                                               \
                idx[2 + e / (LANES)][e % (LANES)] = (IDX_T)((e & s) ? (LANES) + lane : lane);        \
            }                                                                                        \
            for (int h = 0; h < 2; h++) {                                                            \
                pl->split[sb][h] = _mm512_loadu_si512(idx[h]);                                       \
                pl->merge[sb][h] = _mm512_loadu_si512(idx[2 + h]);                                   \
            }                                                                                        \
            pl->tw[sb] = _mm512_loadu_si512(pattern);                                                \
        }                                                                                            \
    }                                                                                                \
    static inline void F##_narrow(F##_t *x, const F##_narrow_plan *pl, int dit)                      \
    {                                                                                                \
        __m512i a = _mm512_loadu_si512(x), b = _mm512_loadu_si512(x + (LANES));                      \
        for (unsigned step = 0; step < (BITS); step++) {                                             \
            unsigned sb = dit ? step : (BITS)-1 - step;                                              \
            __m512i u = PERM(a, pl->split[sb][0], b), v = PERM(a, pl->split[sb][1], b), t;           \
            if (dit) {                                                                               \
                t = sb ? F##_vmul(v, pl->tw[sb]) : v;                                                \
                v = F##_vsub(u, t);                                                                  \
                u = F##_vadd(u, t);                                                                  \
            } else {                                                                                 \
                t = F##_vsub(u, v);                                                                  \
                u = F##_vadd(u, v);                                                                  \
                v = sb ? F##_vmul(t, pl->tw[sb]) : t;                                                \
            }                                                                                        \
            a = PERM(u, pl->merge[sb][0], v);                                                        \
            b = PERM(u, pl->merge[sb][1], v);                                                        \
        }                                                                                            \
        _mm512_storeu_si512(x, a);                                                                   \
        _mm512_storeu_si512(x + (LANES), b);                                                         \
    }

NARROW_LAYERS(bb, int32_t, 16, 4, _mm512_permutex2var_epi32)
NARROW_LAYERS(kb, int32_t, 16, 4, _mm512_permutex2var_epi32)
NARROW_LAYERS(gl, int64_t, 8, 3, _mm512_permutex2var_epi64)
VECTOR_MUL(bb)
VECTOR_MUL(kb)
VECTOR_MUL(gl)

SMALL_POW(gl)
SMALL_POW(bb)
SMALL_POW(kb)
SMALL_FIELD_IO(gl, uint64_t, GL_P)
SMALL_FIELD_IO(bb, uint32_t, BB_P)
SMALL_FIELD_IO(kb, uint32_t, KB_P)

SMALL_FIELD_ENTRIES(ntt_gl_avx512, gl)
#define NT_T gl_t
#define NT_PFX ntt_gl_avx512
#define NT_ADD gl_add
#define NT_SUB gl_sub
#define NT_MUL gl_mul
#define NT_IMPORT gl_import_one
#define NT_EXPORT gl_export_one
#define NT_VEC 8
#define NT_VDIF gl_vdif
#define NT_VDIT gl_vdit
#define NT_VMUL gl_vmul_n
#define NT_VNARROW gl_narrow
#define NT_VNARROW_T gl_narrow_plan
#define NT_VNARROW_PREP gl_narrow_prep
#include "ntt_impl.h"

SMALL_FIELD_ENTRIES(ntt_bb_avx512, bb)
#define NT_T bb_t
#define NT_PFX ntt_bb_avx512
#define NT_ADD bb_add
#define NT_SUB bb_sub
#define NT_MUL bb_mul
#define NT_IMPORT bb_import_one
#define NT_EXPORT bb_export_one
#define NT_VEC 16
#define NT_VDIF bb_vdif
#define NT_VDIT bb_vdit
#define NT_VMUL bb_vmul_n
#define NT_VNARROW bb_narrow
#define NT_VNARROW_T bb_narrow_plan
#define NT_VNARROW_PREP bb_narrow_prep
#include "ntt_impl.h"

SMALL_FIELD_ENTRIES(ntt_kb_avx512, kb)
#define NT_T kb_t
#define NT_PFX ntt_kb_avx512
#define NT_ADD kb_add
#define NT_SUB kb_sub
#define NT_MUL kb_mul
#define NT_IMPORT kb_import_one
#define NT_EXPORT kb_export_one
#define NT_VEC 16
#define NT_VDIF kb_vdif
#define NT_VDIT kb_vdit
#define NT_VMUL kb_vmul_n
#define NT_VNARROW kb_narrow
#define NT_VNARROW_T kb_narrow_plan
#define NT_VNARROW_PREP kb_narrow_prep
#include "ntt_impl.h"

static const uint64_t gl_avx512_modulus[4] = {GL_P, 0, 0, 0};
static const uint64_t bb_avx512_modulus[4] = {BB_P, 0, 0, 0};
static const uint64_t kb_avx512_modulus[4] = {KB_P, 0, 0, 0};

NTT_OPS(ntt_goldilocks_avx512_ops, "goldilocks", ntt_gl_avx512, ntt_gl_avx512, 8, 32, 7, gl_avx512_modulus);
NTT_OPS(ntt_babybear_avx512_ops, "babybear", ntt_bb_avx512, ntt_bb_avx512, 4, 27, 31, bb_avx512_modulus);
NTT_OPS(ntt_koalabear_avx512_ops, "koalabear", ntt_kb_avx512, ntt_kb_avx512, 4, 24, 3, kb_avx512_modulus);
