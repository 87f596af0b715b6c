/*
 * ntt_avx512.c: the avx512 tier of the NTT for BabyBear and KoalaBear: the portable
 * template (ntt_impl.h) with 16 butterflies at once wherever 16 consecutive ones share a
 * block (layers of half-span 16 and more); the narrower layers stay scalar. The only unit
 * of the NTT built with AVX-512 flags; ntt_field_ops_for picks it on the avx512 tier.
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

SMALL_POW(bb)
SMALL_POW(kb)
SMALL_FIELD_IO(bb, uint32_t, BB_P)
SMALL_FIELD_IO(kb, uint32_t, KB_P)

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
#include "ntt_impl.h"

static const uint64_t bb_avx512_modulus[4] = {BB_P, 0, 0, 0};
static const uint64_t kb_avx512_modulus[4] = {KB_P, 0, 0, 0};

NTT_OPS(ntt_babybear_avx512_ops, "babybear", ntt_bb_avx512, ntt_bb_avx512, 4, 27, 31, bb_avx512_modulus);
NTT_OPS(ntt_koalabear_avx512_ops, "koalabear", ntt_kb_avx512, ntt_kb_avx512, 4, 24, 3, kb_avx512_modulus);
