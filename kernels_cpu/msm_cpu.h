/*
 * msm_cpu.h: the CPU's MSM kernels behind one curve-independent table, with one tile kernel
 * per CPU tier (portable: msm_cpu.c; adx: msm_adx.c; avx512: msm_ifma.c, the only unit built
 * with AVX-512 flags). The caller picks the tier at run time (runtime/base/cpu_features.h).
 *
 * A tile is (a range of the list of point indices, a range of windows); its result is one
 * partial window sum per window, in XYZZ form. Tiles over disjoint index ranges add up to the
 * whole MSM window by window, so any split of points and windows gives the same answer; this
 * is what lets a scheduler deal tiles to devices (the idea of blst's tile Pippenger).
 *
 * Contracts: points are validated affine points (reduced Montgomery coordinates, on the
 * curve, (0,0) for infinity); scalars are canonical (< r) 4-limb little-endian integers;
 * the XYZZ and affine objects are opaque blobs of the sizes given in the table.
 */
#ifndef KERNELS_CPU_MSM_CPU_H
#define KERNELS_CPU_MSM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "arith/msm_ops.h"
#include "runtime/base/cpu_features.h"

typedef struct {
    uint64_t l[4];
} msm_scalar;

typedef struct {
    size_t begin, end;       /* half-open range in the index list */
    unsigned w_begin, w_end; /* half-open range of windows */
} msm_tile;

/* What a tile kernel reads. The list is the point indices of the general scalars (neither 0
 * nor 1) with finite points; kernels address points through it. */
typedef struct {
    const void *points;        /* validated affine points (all n) */
    const void *prepared;      /* the tier's form in list order: prepared[i] is points[index[i]]; NULL if none */
    const msm_scalar *scalars; /* all n */
    const uint32_t *index;     /* the list */
    const int16_t *digits;     /* NULL, or digits[w * count + i] = Booth digit of window w of scalars[index[i]] */
    size_t count;              /* list length */
    unsigned top;              /* digits read the scalars' bits below top, bit top-1 as the sign (msm_top_digit) */
} msm_tile_input;

/* A tier's tile kernel. Every tier gives the same partial sums bit for bit (they are affine
 * after normalisation anyway; here the XYZZ sums may differ in representation only). */
typedef struct {
    const char *tier;     /* "portable", "adx", "avx512" */
    size_t prepared_size; /* bytes per point of the tier's own point form; 0: the affine points serve */
    /* out[i] = points[index[i]] (validated, finite) in the tier's form, for i in [begin, end) */
    void (*prepare_points)(void *out, const void *points, const uint32_t *index, size_t begin, size_t end);
    /* scratch bytes of one worker for tiles of up to max_points points and c-bit windows */
    size_t (*scratch_size)(unsigned c, size_t max_points);
    /* sums[w - w_begin] = sum_{i in tile range} d_w(scalars[index[i]]) * points[index[i]] */
    void (*tile)(void *sums, const msm_tile_input *in, const msm_tile *tile, unsigned c, void *scratch);
    /* cost of one c-bit window over m points, in the kernel's own unit (the window choice
     * minimises windows(c) * window_cost(c, m)) */
    double (*window_cost)(unsigned c, size_t m);
    /* For tests, the tier's base-field arithmetic on count elements of field_bytes / 8 limbs:
     * r_i = op(a_i, b_i) in the tier's Montgomery form with R = 2^mont_bits, r_i < p (inputs
     * below p, and below 2p for the avx512 tier's lazily reduced form). op: MSM_FIELD_*. */
    void (*field_op)(int op, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t count);
    /* NULL, or the tier's check of points[begin, end) given as affine limbs (the interchange
     * bytes read in place): returns the first index failing decode_point's checks (range,
     * then curve, in index order) with *kind, or end when all pass. */
    size_t (*check_points)(const void *points, size_t begin, size_t end, msm_point_check *kind);
    /* out[i] = 2^shift * in[i] for i < count, validated points in the interchange form, stride
     * bytes apart in both (infinity stays infinity; out may be in): shift doublings each and
     * one field inversion per block of points (precomputed bases, host/msm/bases.c). The affine
     * result is unique: every tier writes the same bytes. */
    void (*shift_points)(unsigned char *out, const unsigned char *in, size_t stride, size_t count, unsigned shift);
    /* acc (the curve's portable XYZZ) = sum of points[index[i]], i in [begin, end): validated
     * affine points, infinity allowed (the scalars-1 terms of an MSM, msm_cpu_job.c). The same
     * group element on every tier (the MSM's affine result is the same bits). */
    void (*sum_points)(void *acc, const void *points, const uint32_t *index, size_t begin, size_t end);
    /* The multiples of one base from its window table (host/msm/fixed_base.c): for i < n,
     * acc[i] (the curve's portable XYZZ) = sum over windows j < windows of sign(d) T[j half +
     * |d| - 1], d = digits[i windows + j] (0: no term; |d| <= half). table: T's finite points
     * in the tier's form (prepare_points' output; the validated affine points where
     * prepared_size is 0), any points: equal and opposite terms are summed exactly. The same
     * group elements on every tier. */
    void (*fixed_base_sums)(void *acc, const void *table, size_t half, const int16_t *digits, unsigned windows,
                            size_t n);
    unsigned mont_bits;
} msm_cpu_kernel;

/* field_op operations: mul a*b/R, sqr a^2/R, add, sub, inv R^2/a (0 for 0), and the round
 * trip of the avx512 tier's point form (64-bit Montgomery in, 64-bit Montgomery out). */
enum { MSM_FIELD_MUL, MSM_FIELD_SQR, MSM_FIELD_ADD, MSM_FIELD_SUB, MSM_FIELD_INV, MSM_FIELD_ROUND_TRIP, MSM_FIELD_OPS };

/* The CPU tiers' tile kernels of one curve group (msm_curve_ops.tiers): the kernel of each
 * CPU tier (rt_cpu_tier); NULL where the build lacks the tier or the tier has no MSM kernels of
 * its own (avx2: msm_kernel_for gives the adx tier's; neon: the portable tier's, whose field
 * arithmetic is AArch64 assembly there). */
struct msm_cpu_tiers {
    const msm_cpu_kernel *kernels[RT_CPU_TIERS];
};

#define MSM_MAX_WINDOW_BITS 20 /* == MSM_IMPL_MAX_WINDOW_BITS of the shared source */

/* 32-byte little-endian scalar bytes <-> limbs (no range check, no change of form). */
void msm_scalar_from_bytes(msm_scalar *k, const unsigned char *bytes);
void msm_scalar_to_bytes(unsigned char *bytes, const msm_scalar *k);

/* digits[w * stride + i] = Booth digit of window w (c <= 15 bits) of scalars[index[i]] read
 * below bit top (msm_top_digit), for every window w in [w0, w1) and list position i in
 * [begin, end). */
void msm_digits(int16_t *digits, size_t stride, const msm_scalar *scalars, const uint32_t *index, size_t begin,
                size_t end, unsigned w0, unsigned w1, unsigned c, unsigned top);

/* Windows needed for scalars below 2^bits with c-bit signed (Booth) digits. */
unsigned msm_window_count(unsigned bits, unsigned c);

extern const msm_curve_ops msm_bn254_g1_ops;
extern const msm_curve_ops msm_bls12_381_g1_ops;
extern const msm_curve_ops msm_bn254_g2_ops;
extern const msm_curve_ops msm_bls12_381_g2_ops;

/* The tile kernel of tier, or of the first tier down its fallback chain (rt_cpu_tier_fallback)
 * that the curve has (a build without a tier's compiler support has none of its kernels). */
const msm_cpu_kernel *msm_kernel_for(const msm_curve_ops *ops, rt_cpu_tier tier);

#endif
