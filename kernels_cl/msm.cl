/*
 * msm.cl: Pippenger MSM on an OpenCL device, one curve per program (curve_select.h).
 *
 * What: for a chunk of n points (points [first, first + n) of its buffer, so that a slab of
 * resident bases serves many chunks; interchange form: affine, Montgomery limbs, little-endian,
 * exactly the host's bytes) and n canonical 4-limb scalars, one partial window sum per
 * (segment of points, window); the host adds the segments in order and combines windows.
 * Method: work-item g = seg * nwin + wi owns segment seg (seg_len consecutive points) and
 * window wi of the bit slice [b0, b1) (c bits, the last window narrower: msm_slice_digit),
 * and 2^(c-1) private buckets in global memory. It walks its points in
 * index order, recodes the signed (Booth) digit on the device, adds +-P to bucket |d| with
 * one mixed XYZZ addition, then reduces its buckets by running sums (two additions per
 * bucket) into its window sum.
 * Determinism: every bucket is summed in point-index order by one work-item and every
 * reduction runs in a fixed order; no atomics touch points, so the bits of every partial are
 * the same on every run and device (the only atomics are atomic_min on the index of the first
 * invalid point, whose result is order-independent).
 * Cost per work-item: seg_len mixed additions + 2^c full additions; the host chooses c and
 * the segment count so that bucket reduction stays a small share (see cl_msm.c).
 * Why owner-computes rather than sorting points by bucket: it needs no device-wide sort and
 * no synchronisation, and it is exact on every OpenCL 1.2 device; sort-based accumulation
 * (sppark, ICICLE) is the known next step for large GPUs.
 * Word variants, measured on POCL 3.1 (2 threads, Zen 4; `hyprove bench msm --repeat 3`,
 * ns/point at 2^16 / 2^18): int128 words (HPR_CL_INT128, POCL only) BN254 8935 / 8299,
 * BLS12-381 15010 / 14292; standard mul_hi words BN254 23435, BLS12-381 54850 at 2^16;
 * 32-bit words (HPR_CL_LIMB32) BN254 34546, BLS12-381 64371 at 2^16 (that run shared the
 * cores with a build: an upper bound). So POCL gets int128, NVIDIA devices the 32-bit words
 * (each limb product one native 32x32->64 multiplication, where 64-bit words need mul_hi on
 * emulated 64-bit integers: ptxas's counts in docs/opencl.md) and every other device the
 * standard words, until a GPU measurement (scripts/gpu-check.sh benchmarks limb32 against
 * standard) says otherwise; HPR_CL_WORDS=standard|int128|limb32 selects one.
 */
#include "curve_select.h"

/* first_bad[0]: lowest index with a coordinate >= p; first_bad[1]: lowest index off the
 * curve. The host initialises both to 0xffffffff. */
__kernel void msm_check_points(__global const pt_affine *points, uint n, __global uint *first_bad)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    pt_affine p = points[i];
    if (!PT_COORD_REDUCED(p.x) || !PT_COORD_REDUCED(p.y))
        atomic_min(&first_bad[0], i);
    else if (!PT(affine_on_curve)(&p))
        atomic_min(&first_bad[1], i);
}

ARITH_FN void bucket_reduce(pt_xyzz *sum, __global const pt_xyzz *buckets, uint nbuckets)
{
    pt_xyzz running, b;
    PT(xyzz_set_inf)(&running);
    PT(xyzz_set_inf)(sum);
    for (uint j = nbuckets; j-- > 0;) {
        b = buckets[j];
        PT(xyzz_add)(&running, &running, &b);
        PT(xyzz_add)(sum, sum, &running);
    }
}

__kernel void msm_segments(__global const pt_affine *points, uint first, __global const ulong *scalars, uint n, uint c,
                           uint b0, uint b1, uint nwin, uint seg_len, __global pt_xyzz *buckets,
                           __global pt_xyzz *partials)
{
    uint g = get_global_id(0), wi;
    uint seg = arith_divrem(g, nwin, &wi);
    if ((ulong)seg * seg_len >= n) /* past the last segment: the launch is rounded up to whole groups */
        return;
    uint nbuckets = 1u << (c - 1);
    ulong begin = (ulong)seg * seg_len, end = begin + seg_len;
    __global pt_xyzz *mine = buckets + (ulong)g * nbuckets;
    pt_xyzz acc;
    if (end > n)
        end = n;
    PT(xyzz_set_inf)(&acc);
    for (uint j = 0; j < nbuckets; j++)
        mine[j] = acc;
    for (ulong i = begin; i < end; i++) {
        ulong k[4] = {scalars[4 * i], scalars[4 * i + 1], scalars[4 * i + 2], scalars[4 * i + 3]};
        int d = msm_slice_digit(k, b0, b1, wi, c);
        if (d == 0)
            continue;
        pt_affine p = points[first + i];
        uint b = msm_digit_bucket(d);
        if (d < 0)
            PT(affine_neg)(&p, &p);
        acc = mine[b];
        PT(xyzz_add_affine)(&acc, &acc, &p);
        mine[b] = acc;
    }
    bucket_reduce(&acc, mine, nbuckets);
    partials[g] = acc;
}

/* Self-test: out[i] = a[i] * b[i] in the base field (Montgomery). */
__kernel void fp_mul_selftest(__global const fp *a, __global const fp *b, uint n, __global fp *out)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    fp x = a[i], y = b[i], r;
    FP(mul)(&r, &x, &y);
    out[i] = r;
}

/* sums[w] = sum over segments s (in order) of partials[s * nwin + w]. */
__kernel void msm_sum_segments(__global const pt_xyzz *partials, uint nseg, uint nwin, __global pt_xyzz *sums)
{
    uint w = get_global_id(0);
    if (w >= nwin)
        return;
    pt_xyzz acc, t;
    PT(xyzz_set_inf)(&acc);
    for (uint s = 0; s < nseg; s++) {
        t = partials[(ulong)s * nwin + w];
        PT(xyzz_add)(&acc, &acc, &t);
    }
    sums[w] = acc;
}

#include "msm_sorted.cl"
