/*
 * ntt_avx2.c: the avx2 tier of the NTT for BabyBear, KoalaBear (8 lanes of 32 bits) and
 * Goldilocks (4 lanes of 64 bits): the lane-wise field operations in AVX2 under the vector
 * template ntt_simd_fields_impl.h (the one ntt_avx512.c uses). The only unit built with
 * -mavx2; ntt_field_ops_for picks it on the avx2 tier (a processor with AVX2, ADX and BMI2
 * but no AVX-512 IFMA: AMD Zen 1-3, Intel Broadwell to Comet Lake, Alder Lake and later
 * client cores).
 *
 * 31-bit fields, Montgomery with R = 2^32 (p < 2^31): vpmuludq forms the 64-bit products of
 * the even lanes and, after a 32-bit shift, of the odd ones; m = (t mod 2^32) PINV mod 2^32
 * and t + m p (< 2^63 + 2^62) come the same way; their high halves u < 2p are blended back
 * into 8 lanes and min(u, u - p) reduces (u - p wraps above u when u < p). Sums and
 * differences reduce with the same min trick: lane for lane the scalar m31_mont_reduce of
 * arith/small_fields.h.
 *
 * Goldilocks (canonical form): the scalar gl_* of arith/small_fields.h step by step, each
 * branch a mask. AVX2 compares 64-bit lanes only as signed numbers, so an unsigned a < b is
 * (a ^ 2^63) < (b ^ 2^63) signed. The 128-bit product comes from four 32x32 vpmuludq
 * products; the middle sum's carry into bit 64 is kept as a mask.
 *
 * Permutes of two sources (the narrow layers): vpermd picks within one source by the index's
 * low three bits, and a blend on the index's bit 3 (bit 2 for 64-bit lanes) takes the lane
 * from the second source.
 */
#include "ntt_field_entries.h"

#include <immintrin.h>

/* ---- Goldilocks, 4 lanes ---- */

#define GLV_P _mm256_set1_epi64x((long long)GL_P)
#define GLV_EPS _mm256_set1_epi64x((long long)GL_EPSILON)

/* all ones in lane k where a[k] < b[k] as unsigned 64-bit numbers */
static inline __m256i glv_ltu(__m256i a, __m256i b)
{
    const __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    return _mm256_cmpgt_epi64(_mm256_xor_si256(b, sign), _mm256_xor_si256(a, sign));
}

static inline __m256i glv_add(__m256i a, __m256i b)
{
    __m256i s = _mm256_add_epi64(a, b);
    __m256i wrapped = glv_ltu(s, a);
    __m256i big = _mm256_andnot_si256(_mm256_or_si256(wrapped, glv_ltu(s, GLV_P)), _mm256_set1_epi64x(-1));
    s = _mm256_add_epi64(s, _mm256_and_si256(wrapped, GLV_EPS));
    return _mm256_sub_epi64(s, _mm256_and_si256(big, GLV_P));
}

static inline __m256i glv_sub(__m256i a, __m256i b)
{
    __m256i d = _mm256_sub_epi64(a, b);
    return _mm256_sub_epi64(d, _mm256_and_si256(glv_ltu(a, b), GLV_EPS));
}

static inline __m256i glv_mul(__m256i a, __m256i b)
{
    __m256i ah = _mm256_srli_epi64(a, 32), bh = _mm256_srli_epi64(b, 32);
    __m256i ll = _mm256_mul_epu32(a, b), lh = _mm256_mul_epu32(a, bh), hl = _mm256_mul_epu32(ah, b);
    __m256i hh = _mm256_mul_epu32(ah, bh);
    __m256i mid = _mm256_add_epi64(lh, hl);
    __m256i mid_carry = glv_ltu(mid, lh);
    __m256i lo = _mm256_add_epi64(ll, _mm256_slli_epi64(mid, 32));
    __m256i lo_carry = glv_ltu(lo, ll);
    __m256i hi = _mm256_add_epi64(hh, _mm256_srli_epi64(mid, 32));
    hi = _mm256_add_epi64(hi, _mm256_and_si256(mid_carry, _mm256_set1_epi64x((long long)1 << 32)));
    hi = _mm256_sub_epi64(hi, lo_carry); /* the mask is -1: adds 1 */
    /* gl_reduce128(lo, hi) */
    __m256i hi_hi = _mm256_srli_epi64(hi, 32), hi_lo = _mm256_and_si256(hi, GLV_EPS);
    __m256i t0 = _mm256_sub_epi64(lo, hi_hi);
    t0 = _mm256_sub_epi64(t0, _mm256_and_si256(glv_ltu(lo, hi_hi), GLV_EPS));
    __m256i t1 = _mm256_sub_epi64(_mm256_slli_epi64(hi_lo, 32), hi_lo); /* hi_lo * (2^32 - 1) */
    __m256i r = _mm256_add_epi64(t0, t1);
    r = _mm256_add_epi64(r, _mm256_and_si256(glv_ltu(r, t1), GLV_EPS));
    return _mm256_sub_epi64(r, _mm256_andnot_si256(glv_ltu(r, GLV_P), GLV_P));
}

/* ---- BabyBear and KoalaBear, 8 lanes ---- */

static inline __m256i m31v_add(__m256i a, __m256i b, __m256i p)
{
    __m256i s = _mm256_add_epi32(a, b);
    return _mm256_min_epu32(s, _mm256_sub_epi32(s, p));
}

static inline __m256i m31v_sub(__m256i a, __m256i b, __m256i p)
{
    __m256i d = _mm256_sub_epi32(a, b);
    return _mm256_min_epu32(d, _mm256_add_epi32(d, p));
}

static inline __m256i m31v_mul(__m256i a, __m256i b, __m256i p, __m256i pinv)
{
    __m256i even = _mm256_mul_epu32(a, b);
    __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
    __m256i even_t = _mm256_add_epi64(even, _mm256_mul_epu32(_mm256_mul_epu32(even, pinv), p));
    __m256i odd_t = _mm256_add_epi64(odd, _mm256_mul_epu32(_mm256_mul_epu32(odd, pinv), p));
    __m256i u = _mm256_blend_epi32(_mm256_srli_epi64(even_t, 32), odd_t, 0xAA);
    return _mm256_min_epu32(u, _mm256_sub_epi32(u, p));
}

/* ---- two-source permutes ---- */

/* lane k: lane idx[k] (0..15) of a (0..7) then b (8..15), 32-bit lanes */
static inline __m256i perm2_epi32(__m256i a, __m256i idx, __m256i b)
{
    __m256 from_a = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(a, idx));
    __m256 from_b = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(b, idx));
    __m256 take_b = _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)); /* bit 3 to the sign */
    return _mm256_castps_si256(_mm256_blendv_ps(from_a, from_b, take_b));
}

/* lane k: lane idx[k] (0..7) of a (0..3) then b (4..7), 64-bit lanes: the 32-bit halves
 * 2 idx and 2 idx + 1 */
static inline __m256i perm2_epi64(__m256i a, __m256i idx, __m256i b)
{
    __m256i twice = _mm256_slli_epi64(idx, 1);
    __m256i halves = _mm256_or_si256(twice, _mm256_slli_epi64(_mm256_add_epi64(twice, _mm256_set1_epi64x(1)), 32));
    __m256d from_a = _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(a, halves));
    __m256d from_b = _mm256_castsi256_pd(_mm256_permutevar8x32_epi32(b, halves));
    __m256d take_b = _mm256_castsi256_pd(_mm256_slli_epi64(idx, 61)); /* bit 2 to the sign */
    return _mm256_castpd_si256(_mm256_blendv_pd(from_a, from_b, take_b));
}

#define SIMD_TIER avx2
#define SIMD_SET1_32(x) _mm256_set1_epi32(x)
#define SIMD_V __m256i
#define SIMD_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define SIMD_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define SIMD_PERM32 perm2_epi32
#define SIMD_PERM64 perm2_epi64
#define SIMD_M31_LANES 8
#define SIMD_M31_BITS 3
#define SIMD_GL_LANES 4
#define SIMD_GL_BITS 2
#include "ntt_simd_fields_impl.h"
