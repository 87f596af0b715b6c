/*
 * ntt_neon.c: the neon tier of the NTT for BabyBear and KoalaBear (4 lanes of 32 bits) on
 * AArch64, under the vector template ntt_simd_fields_impl.h (the one ntt_avx2.c and
 * ntt_avx512.c use). Advanced SIMD is part of every AArch64 processor, so the unit needs no
 * flag and the tier is supported wherever the build is AArch64; ntt_field_ops_for picks it on
 * the neon tier. Goldilocks and the 256-bit fields stay on the portable tier's kernels there
 * (its umulh/adcs assembly for the latter): NEON multiplies 32x32 -> 64 bits only, and a
 * 64x64 -> 128 product built from four of those, two lanes at a time, with the carries
 * between them, is not expected to beat one mul and one umulh per element (not measured).
 *
 * Montgomery multiplication (R = 2^32, p < 2^31), lane for lane the scalar m31_mont_reduce of
 * arith/small_fields.h: umull/umull2 form the four 64-bit products t; uzp1 gathers their low
 * halves, one 32-bit mul makes m = (t mod 2^32) PINV mod 2^32, umlal/umlal2 add m p (t + m p
 * < 2^63 + 2^62), uzp2 gathers the high halves u < 2p, and umin(u, u - p) reduces (u - p
 * wraps above u when u < p). Sums and differences reduce with the same umin.
 *
 * Permutes of two sources (the narrow layers): tbl over the 32 bytes of a then b, the byte
 * indices made from the 32-bit lane indices (lane index i -> bytes 4i .. 4i + 3).
 */
#include "ntt_field_entries.h"

#include <arm_neon.h>

static inline uint32x4_t m31v_add(uint32x4_t a, uint32x4_t b, uint32x4_t p)
{
    uint32x4_t s = vaddq_u32(a, b);
    return vminq_u32(s, vsubq_u32(s, p));
}

static inline uint32x4_t m31v_sub(uint32x4_t a, uint32x4_t b, uint32x4_t p)
{
    uint32x4_t d = vsubq_u32(a, b);
    return vminq_u32(d, vaddq_u32(d, p));
}

static inline uint32x4_t m31v_mul(uint32x4_t a, uint32x4_t b, uint32x4_t p, uint32x4_t pinv)
{
    uint64x2_t t_lo = vmull_u32(vget_low_u32(a), vget_low_u32(b));
    uint64x2_t t_hi = vmull_high_u32(a, b);
    uint32x4_t m = vmulq_u32(vuzp1q_u32(vreinterpretq_u32_u64(t_lo), vreinterpretq_u32_u64(t_hi)), pinv);
    t_lo = vmlal_u32(t_lo, vget_low_u32(m), vget_low_u32(p));
    t_hi = vmlal_high_u32(t_hi, m, p);
    uint32x4_t u = vuzp2q_u32(vreinterpretq_u32_u64(t_lo), vreinterpretq_u32_u64(t_hi));
    return vminq_u32(u, vsubq_u32(u, p));
}

/* lane k: lane idx[k] (0..7) of a (0..3) then b (4..7), 32-bit lanes */
static inline uint32x4_t perm2_u32(uint32x4_t a, uint32x4_t idx, uint32x4_t b)
{
    /* lane i -> bytes 4i, 4i + 1, 4i + 2, 4i + 3 (i < 8: no byte carries into the next) */
    uint32x4_t bytes = vmlaq_u32(vdupq_n_u32(0x03020100u), idx, vdupq_n_u32(0x04040404u));
    uint8x16x2_t table = {{vreinterpretq_u8_u32(a), vreinterpretq_u8_u32(b)}};
    return vreinterpretq_u32_u8(vqtbl2q_u8(table, vreinterpretq_u8_u32(bytes)));
}

#define SIMD_TIER neon
#define SIMD_SET1_32(x) vdupq_n_u32((uint32_t)(x))
#define SIMD_V uint32x4_t
#define SIMD_LOAD(p) vld1q_u32((const uint32_t *)(const void *)(p))
#define SIMD_STORE(p, v) vst1q_u32((uint32_t *)(void *)(p), v)
#define SIMD_PERM32 perm2_u32
#define SIMD_M31_LANES 4
#define SIMD_M31_BITS 2
#include "ntt_simd_fields_impl.h"
