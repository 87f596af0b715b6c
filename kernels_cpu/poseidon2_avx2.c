/*
 * poseidon2_avx2.c: the avx2 tier of the Poseidon2 kernels (poseidon2_cpu.h): KoalaBear widths
 * 16 and 24 and BabyBear width 16, eight permutations at once. The only Poseidon2 unit built
 * with -mavx2. The permutation, the instances and the kernels are the vector template
 * poseidon2_simd_impl.h (its rationale: one permutation per lane, the signed lazy Montgomery
 * product, the internal layer without multiplications); this file gives it 8 lanes of 32 bits,
 * with the AVX2 forms of the steps that use AVX-512 masks, and moves states in and out.
 *
 * AVX2 specifics: the even lanes' Montgomery products come back with a 64-bit shift and a blend
 * (AVX2 has no masked shuffle); x/2 picks (x >> 1) + (p + 1)/2 by vblendvps on the low bit
 * moved to the sign; the tails of hash_rows load with vpmaskmovd. An 8x8 transpose of 32-bit
 * words (24 unpacks and vperm2i128) turns 8 contiguous states, compression inputs or digests
 * into vectors and back; digests leave through it like whole states.
 *
 * Cost per 8 KoalaBear-16 permutations (instructions, gcc 12 -O3 loop bodies): external round
 * ~660, internal round ~240 (16 ymm registers hold no whole state: ~15% of these are spill
 * loads and stores), ~10400 in all, ~1300 per permutation. Measured on AMD Zen 4 (2 cores,
 * shared, one thread): 7-8.5 M KoalaBear-16 permutations/s.
 */
#include "kernels_cpu/poseidon2_cpu.h"

#include <immintrin.h>

/* ---- the template's lane primitives on 8 lanes ---- */

#define P2V_VEC __m256i
#define P2V_LANES 8
#define P2V_SET1(x) _mm256_set1_epi32(x)
#define P2V_SETZERO() _mm256_setzero_si256()
#define P2V_ADD32(a, b) _mm256_add_epi32(a, b)
#define P2V_SUB32(a, b) _mm256_sub_epi32(a, b)
#define P2V_MINU32(a, b) _mm256_min_epu32(a, b)
#define P2V_AND(a, b) _mm256_and_si256(a, b)
#define P2V_SRLI32(a, k) _mm256_srli_epi32(a, k)
#define P2V_SLLI32(a, k) _mm256_slli_epi32(a, k)
#define P2V_MUL_EPI32(a, b) _mm256_mul_epi32(a, b)
#define P2V_MUL_EPU32(a, b) _mm256_mul_epu32(a, b)
#define P2V_ODD_DOWN(a) _mm256_shuffle_epi32(a, 0xf5)
/* the even lanes' high words shifted down, blended under the odd lanes' */
#define P2V_MERGE_HIGH(d_even, d_odd) _mm256_blend_epi32(d_odd, _mm256_srli_epi64(d_even, 32), 0x55)
/* bit 0 of x moved to the sign: blendv's selector */
#define P2V_ADD_IF_ODD(h, x, a)                                                                                       \
    _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(h), _mm256_castsi256_ps(_mm256_add_epi32(h, a)),        \
                                         _mm256_castsi256_ps(_mm256_slli_epi32(x, 31))))

#include "kernels_cpu/poseidon2_simd_impl.h"

/* ---- moving states in and out (contracts in poseidon2_simd_impl.h) ---- */

/* r[j] lane i = r[i] lane j (an 8x8 transpose of 32-bit words): vpunpck{l,h}dq and
 * vpunpck{l,h}qdq gather 4 rows' words of one column in each 128-bit half, vperm2i128 pairs
 * the halves. */
static inline void p2v_transpose8(__m256i *r)
{
    __m256i t[P2V_LANES];
    for (int i = 0; i < P2V_LANES; i += 2) { /* half H: rows i, i + 1 interleaved, columns 4H.. */
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);     /* columns 4H, 4H + 1 */
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]); /* columns 4H + 2, 4H + 3 */
    }
    for (int g = 0; g < 2; g++) { /* rows 4g..4g+3; r[4g + c] half H: column 4H + c */
        __m256i lo01 = t[4 * g], hi01 = t[4 * g + 1], lo23 = t[4 * g + 2], hi23 = t[4 * g + 3];
        r[4 * g] = _mm256_unpacklo_epi64(lo01, lo23);
        r[4 * g + 1] = _mm256_unpackhi_epi64(lo01, lo23);
        r[4 * g + 2] = _mm256_unpacklo_epi64(hi01, hi23);
        r[4 * g + 3] = _mm256_unpackhi_epi64(hi01, hi23);
    }
    for (int c = 0; c < 4; c++) { /* column 4H + c = half H of r[c], r[4 + c] */
        __m256i low = _mm256_permute2x128_si256(r[c], r[4 + c], 0x20);
        r[4 + c] = _mm256_permute2x128_si256(r[c], r[4 + c], 0x31);
        r[c] = low;
    }
}

/* (width: a multiple of 8) */
static void p2v_load_states(__m256i *s, const uint32_t *src, unsigned width, unsigned count,
                            const p2v_instance *inst)
{
    __m256i rows[P2V_LANES];
    for (unsigned part = 0; part < width; part += P2V_LANES) {
        for (unsigned k = 0; k < P2V_LANES; k++)
            rows[k] = k < count ? _mm256_loadu_si256((const __m256i *)(const void *)(src + (size_t)k * width + part))
                                : _mm256_setzero_si256();
        p2v_transpose8(rows);
        for (unsigned e = 0; e < P2V_LANES; e++)
            s[part + e] = p2v_to_mont(rows[e], inst);
    }
}

static void p2v_store_states(uint32_t *dst, unsigned width, const __m256i *s, unsigned count,
                             const p2v_instance *inst)
{
    __m256i rows[P2V_LANES];
    for (unsigned part = 0; part < width; part += P2V_LANES) {
        for (unsigned e = 0; e < P2V_LANES; e++)
            rows[e] = p2v_from_mont(s[part + e], inst);
        p2v_transpose8(rows);
        for (unsigned k = 0; k < count; k++)
            _mm256_storeu_si256((__m256i *)(void *)(dst + (size_t)k * width + part), rows[k]);
    }
}

/* (a digest is one vector of 8 elements: one transpose) */
static void p2v_store_digests(uint32_t *dst, const __m256i *s, unsigned count, const p2v_instance *inst)
{
    p2v_store_states(dst, P2_DIGEST, s, count, inst);
}

static inline __m256i p2v_load_lanes(const uint32_t *src, unsigned count)
{
    if (count == P2V_LANES)
        return _mm256_loadu_si256((const __m256i *)(const void *)src);
    const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), /* lanes < count */
                                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_maskload_epi32((const int *)(const void *)src, lanes);
}

const p2_kernels p2_kernels_avx2 = {p2v_permute, p2v_hash_rows, p2v_compress, p2v_absorb};
