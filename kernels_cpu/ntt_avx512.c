/*
 * ntt_avx512.c: the avx512 tier of the NTT for BabyBear, KoalaBear (16 lanes of 32 bits) and
 * Goldilocks (8 lanes of 64 bits): the lane-wise field operations in AVX-512, under the
 * vector template ntt_simd_fields_impl.h (shared with ntt_avx2.c). The only unit of the
 * small-field NTT built with AVX-512 flags; ntt_field_ops_for picks it on the avx512 tier. *
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

#define SIMD_TIER avx512
#define SIMD_SET1_32(x) _mm512_set1_epi32(x)
#define SIMD_V __m512i
#define SIMD_LOAD(p) _mm512_loadu_si512(p)
#define SIMD_STORE(p, v) _mm512_storeu_si512(p, v)
#define SIMD_PERM32 _mm512_permutex2var_epi32
#define SIMD_PERM64 _mm512_permutex2var_epi64
#define SIMD_M31_LANES 16
#define SIMD_M31_BITS 4
#define SIMD_GL_LANES 8
#define SIMD_GL_BITS 3
#include "ntt_simd_fields_impl.h"
