/*
 * poseidon2_avx512.c: the avx512 tier of the Poseidon2 kernels (poseidon2_cpu.h): KoalaBear
 * widths 16 and 24 and BabyBear width 16, sixteen permutations at once. Built with -mavx512f
 * alone (every instruction here is AVX-512F: no BW, VL or IFMA). The permutation, the
 * instances and the kernels are the vector template poseidon2_simd_impl.h (its rationale: one
 * permutation per lane, the signed lazy Montgomery product, the internal layer without
 * multiplications); this file gives it 16 lanes of 32 bits and moves states in and out.
 *
 * AVX-512 specifics: a masked vpshufd moves the even lanes' Montgomery products down into the
 * odd lanes' vector (11 instructions per product); x/2 is a masked add on vptestmd's mask of
 * the odd lanes. A 16x16 transpose of 32-bit words (64 unpacks and vshufi32x4) turns 16
 * contiguous states or compression inputs into vectors and back (a width-24 state: one full
 * and one masked half); the 8-element digests of hash_rows and compress leave through a half
 * transpose (32 shuffles) as 8 full 64-byte stores. Masked stores are kept to the tails: to
 * lines not in the cache they made the whole permute ~20% slower here.
 *
 * Cost per 16 KoalaBear-16 permutations (instructions, from the compiled loop bodies of gcc 12
 * -O3): external round 604 (16 S-boxes of 23; the linear layer 216: 4 M4 blocks of 11
 * canonical sums, 12 column sums, 16 sums), internal round 207 (S-box 23, sum of 15 elements
 * 42, the diagonal terms ~90, the sums ~50); 8 x 604 + 20 x 207 + the first linear layer ~9300,
 * ~580 per permutation; the conversions to and from Montgomery form (13 each) and the
 * transposes add ~30. Measured on AMD Zen 4 (2 cores, shared, one thread): ~180 cycles per
 * KoalaBear-16 permutation in the core loop, 15-18 M permutations/s through permute and
 * hash_rows.
 */
#include "kernels_cpu/poseidon2_cpu.h"

#include <immintrin.h>
#include <string.h>

/* ---- the template's lane primitives on 16 lanes ---- */

#define P2V_VEC __m512i
#define P2V_LANES 16
#define P2V_SET1(x) _mm512_set1_epi32(x)
#define P2V_SETZERO() _mm512_setzero_si512()
#define P2V_ADD32(a, b) _mm512_add_epi32(a, b)
#define P2V_SUB32(a, b) _mm512_sub_epi32(a, b)
#define P2V_MINU32(a, b) _mm512_min_epu32(a, b)
#define P2V_AND(a, b) _mm512_and_si512(a, b)
#define P2V_SRLI32(a, k) _mm512_srli_epi32(a, k)
#define P2V_SLLI32(a, k) _mm512_slli_epi32(a, k)
#define P2V_MUL_EPI32(a, b) _mm512_mul_epi32(a, b)
#define P2V_MUL_EPU32(a, b) _mm512_mul_epu32(a, b)
#define P2V_ODD_DOWN(a) _mm512_shuffle_epi32(a, _MM_PERM_DDBB)
/* d_even's odd words shuffled down into the even lanes of d_odd (a masked vpshufd) */
#define P2V_MERGE_HIGH(d_even, d_odd) _mm512_mask_shuffle_epi32(d_odd, 0x5555, d_even, _MM_PERM_DDBB)
#define P2V_ADD_IF_ODD(h, x, a) _mm512_mask_add_epi32(h, _mm512_test_epi32_mask(x, _mm512_set1_epi32(1)), h, a)

#include "kernels_cpu/poseidon2_simd_impl.h"

/* ---- moving states in and out (contracts in poseidon2_simd_impl.h) ---- */

/* r[j] lane i = r[i] lane j (a 16x16 transpose of 32-bit words): vpunpck{l,h}dq and
 * vpunpck{l,h}qdq gather 4 rows' words of one column in each 128-bit lane, then two rounds of
 * vshufi32x4 transpose the 4x4 matrix of 128-bit lanes. */
static inline void p2v_transpose16(__m512i *r)
{
    __m512i t[P2V_LANES];
    for (int i = 0; i < P2V_LANES; i += 2) { /* lane L: rows i, i + 1 interleaved, columns 4L.. */
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);     /* columns 4L, 4L + 1 */
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]); /* columns 4L + 2, 4L + 3 */
    }
    for (int g = 0; g < 4; g++) { /* rows 4g..4g+3; r[4g + c] lane L: column 4L + c */
        __m512i lo01 = t[4 * g], hi01 = t[4 * g + 1], lo23 = t[4 * g + 2], hi23 = t[4 * g + 3];
        r[4 * g] = _mm512_unpacklo_epi64(lo01, lo23);
        r[4 * g + 1] = _mm512_unpackhi_epi64(lo01, lo23);
        r[4 * g + 2] = _mm512_unpacklo_epi64(hi01, hi23);
        r[4 * g + 3] = _mm512_unpackhi_epi64(hi01, hi23);
    }
    for (int c = 0; c < 4; c++) { /* column 4L + c = lane L of r[c], r[4 + c], r[8 + c], r[12 + c] */
        __m512i v0 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0x44), v1 = _mm512_shuffle_i32x4(r[c], r[4 + c], 0xee);
        __m512i v2 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0x44);
        __m512i v3 = _mm512_shuffle_i32x4(r[8 + c], r[12 + c], 0xee);
        t[c] = _mm512_shuffle_i32x4(v0, v2, 0x88);
        t[4 + c] = _mm512_shuffle_i32x4(v0, v2, 0xdd);
        t[8 + c] = _mm512_shuffle_i32x4(v1, v3, 0x88);
        t[12 + c] = _mm512_shuffle_i32x4(v1, v3, 0xdd);
    }
    for (int i = 0; i < P2V_LANES; i++)
        r[i] = t[i];
}

static void p2v_load_states(__m512i *s, const uint32_t *src, unsigned width, unsigned count,
                            const p2v_instance *inst)
{
    __m512i rows[P2V_LANES];
    for (unsigned part = 0; part < width; part += P2V_LANES) {
        unsigned len = width - part < P2V_LANES ? width - part : P2V_LANES;
        __mmask16 mask = (__mmask16)((1u << len) - 1);
        for (unsigned k = 0; k < P2V_LANES; k++)
            rows[k] = k >= count             ? _mm512_setzero_si512()
                      : len == P2V_LANES ? _mm512_loadu_si512(src + (size_t)k * width + part)
                                         : _mm512_maskz_loadu_epi32(mask, src + (size_t)k * width + part);
        p2v_transpose16(rows);
        for (unsigned e = 0; e < len; e++)
            s[part + e] = p2v_to_mont(rows[e], inst);
    }
}

/* Full rows go out as plain stores: masked stores to lines not in the cache were measured ~20%
 * slower on the whole kernel. */
static void p2v_store_states(uint32_t *dst, unsigned width, const __m512i *s, unsigned count,
                             const p2v_instance *inst)
{
    __m512i rows[P2V_LANES];
    for (unsigned part = 0; part < width; part += P2V_LANES) {
        unsigned len = width - part < P2V_LANES ? width - part : P2V_LANES;
        __mmask16 mask = (__mmask16)((1u << len) - 1);
        for (unsigned e = 0; e < P2V_LANES; e++)
            rows[e] = e < len ? p2v_from_mont(s[part + e], inst) : _mm512_setzero_si512();
        p2v_transpose16(rows);
        for (unsigned k = 0; k < count; k++)
            if (len == P2V_LANES)
                _mm512_storeu_si512(dst + (size_t)k * width + part, rows[k]);
            else
                _mm512_mask_storeu_epi32(dst + (size_t)k * width + part, mask, rows[k]);
    }
}

/* The transpose of p2v_transpose16 on 8 rows, its last stage forming two states' digests per
 * vector (full 64-byte stores). */
static void p2v_store_digests(uint32_t *dst, const __m512i *s, unsigned count, const p2v_instance *inst)
{
    __m512i e[P2_DIGEST], u[P2_DIGEST], out[P2V_LANES / 2];
    for (int i = 0; i < P2_DIGEST; i++)
        e[i] = p2v_from_mont(s[i], inst);
    for (int i = 0; i < P2_DIGEST; i += 2) { /* lane L: elements i, i + 1 interleaved, states 4L.. */
        __m512i lo = _mm512_unpacklo_epi32(e[i], e[i + 1]), hi = _mm512_unpackhi_epi32(e[i], e[i + 1]);
        e[i] = lo;
        e[i + 1] = hi;
    }
    for (int g = 0; g < 2; g++) { /* u[4g + c] lane L: elements 4g..4g+3 of state 4L + c */
        u[4 * g] = _mm512_unpacklo_epi64(e[4 * g], e[4 * g + 2]);
        u[4 * g + 1] = _mm512_unpackhi_epi64(e[4 * g], e[4 * g + 2]);
        u[4 * g + 2] = _mm512_unpacklo_epi64(e[4 * g + 1], e[4 * g + 3]);
        u[4 * g + 3] = _mm512_unpackhi_epi64(e[4 * g + 1], e[4 * g + 3]);
    }
    for (int c = 0; c < 4; c += 2) { /* out[c / 2 + 2L]: states 4L + c, 4L + c + 1 */
        __m512i w0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x44), w1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xee);
        __m512i x0 = _mm512_shuffle_i32x4(u[c + 1], u[5 + c], 0x44);
        __m512i x1 = _mm512_shuffle_i32x4(u[c + 1], u[5 + c], 0xee);
        out[c / 2] = _mm512_shuffle_i32x4(w0, x0, 0x88);
        out[c / 2 + 2] = _mm512_shuffle_i32x4(w0, x0, 0xdd);
        out[c / 2 + 4] = _mm512_shuffle_i32x4(w1, x1, 0x88);
        out[c / 2 + 6] = _mm512_shuffle_i32x4(w1, x1, 0xdd);
    }
    if (count == P2V_LANES) {
        for (int j = 0; j < P2V_LANES / 2; j++)
            _mm512_storeu_si512(dst + 2 * P2_DIGEST * j, out[j]);
        return;
    }
    uint32_t buf[P2V_LANES * P2_DIGEST];
    for (int j = 0; j < P2V_LANES / 2; j++)
        _mm512_storeu_si512(buf + 2 * P2_DIGEST * j, out[j]);
    memcpy(dst, buf, (size_t)count * P2_DIGEST * sizeof buf[0]);
}

static inline __m512i p2v_load_lanes(const uint32_t *src, unsigned count)
{
    return count == P2V_LANES ? _mm512_loadu_si512(src) : _mm512_maskz_loadu_epi32((__mmask16)((1u << count) - 1), src);
}

const p2_kernels p2_kernels_avx512 = {p2v_permute, p2v_hash_rows, p2v_compress, p2v_absorb};
