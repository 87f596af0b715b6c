/*
 * msm_impl.h: the device-independent pieces of Pippenger's bucket method, written once.
 *
 * What: Booth-recoded signed window digits of a scalar, bucket reduction by running sums,
 * and the combination of window sums; the bucket accumulation loop itself belongs to each
 * device (kernels_cpu/ for the CPU, kernels_cl/ for OpenCL) because its memory layout does.
 * Method: with c-bit windows the digit of window w is
 *     d_w = b[wc-1] + sum_{j<c} b[wc+j] 2^j - b[wc+c-1] 2^c,   d_w in [-2^(c-1), 2^(c-1)],
 * computed from c+1 bits of the scalar alone (no carry chain), so any tile of windows can be
 * recoded independently; sum_w d_w 2^(wc) = k. A scalar below 2^bits needs floor(bits/c)+1
 * windows. A negative digit adds -P to bucket |d|, so 2^(c-1) buckets suffice.
 * Reduction: sum_j j*B_j = sum over j from the top of the running sum of B_j..B_top, two
 * additions per bucket. Combination: Horner over windows, c doublings per window.
 *
 * Instantiation: define MSM_EC (curve prefix, e.g. bn254_g1) and include after ec_impl.h.
 */
#ifndef MSM_DIGITS_DEFINED
#define MSM_DIGITS_DEFINED

#define MSM_SCALAR_LIMBS 4
#define MSM_IMPL_MAX_WINDOW_BITS 20

/* Number of windows for scalars below 2^bits with c-bit Booth digits. */
ARITH_FN unsigned msm_digit_windows(unsigned bits, unsigned c)
{
    return bits / c + 1;
}

/* What a Booth digit of the `width` bits from bit `at` reads, worked out once: the limbs, the
 * shift, the mask (0 for a start past the scalar's 4 limbs: the digit is then 0), and whether
 * bit at-1 exists (up = 1: it does not, at = 0). A caller taking the same window of many
 * scalars (msm_digits) plans once. msm_planned_digit is branch-free with every index in range
 * and every shift below 64: a compiler that turns the limb pair into selects (LLVM does, in
 * OpenCL kernels) then never computes an out-of-range load or an over-wide shift, which
 * Oclgrind's uninitialised-value check reports. (next << 1) << (63 - off) is
 * next << (64 - off), and 0 when off = 0. */
typedef struct {
    unsigned limb, next, off, up, width;
    arith_u64 next_mask, mask;
} msm_digit_plan;

ARITH_FN msm_digit_plan msm_plan_digit(unsigned at, unsigned width)
{
    msm_digit_plan p;
    unsigned below = at > 0, start = at - below, limb = start / 64;
    unsigned in_range = limb < MSM_SCALAR_LIMBS, has_next = limb + 1 < MSM_SCALAR_LIMBS;
    p.limb = in_range ? limb : 0;
    p.next = has_next ? limb + 1 : p.limb;
    p.off = start % 64;
    p.up = 1 - below;
    p.width = width;
    p.next_mask = ((arith_u64)0) - has_next;
    p.mask = ((((arith_u64)1) << (width + below)) - 1) & (((arith_u64)0) - in_range);
    return p;
}

/* The digit of scalar k that p plans: bits = b[at-1] (bit 0) and b[at] .. b[at+width-1]. */
ARITH_FN int msm_planned_digit(const msm_digit_plan *p, const arith_u64 *k)
{
#if ARITH_IS_OPENCL
    /* limbs picked by selects, not by a run-time index: a GPU keeps an indexed array in a
     * stack frame (the same values) */
    arith_u64 lo = p->limb == 0 ? k[0] : p->limb == 1 ? k[1] : p->limb == 2 ? k[2] : k[3];
    arith_u64 hi = p->next == 0 ? k[0] : p->next == 1 ? k[1] : p->next == 2 ? k[2] : k[3];
#else
    arith_u64 lo = k[p->limb], hi = k[p->next];
#endif
    arith_u64 v = (lo >> p->off) | (((hi & p->next_mask) << 1) << (63 - p->off));
    arith_u64 bits = (v & p->mask) << p->up;
    int window = (int)(bits >> 1);
    int top = (window >> (p->width - 1)) & 1;
    return window + (int)(bits & 1) - (top << p->width);
}

/* Booth digit of the `width` bits of scalar k from bit `at` (1 <= width <= MSM_IMPL_MAX_WINDOW_BITS):
 * b[at..at+width) + b[at-1] - 2^width b[at+width-1] (b[-1] = 0). Windows that tile a bit
 * range [b0, b1) in any widths telescope: sum over them of 2^(at - b0) digit = the bits of
 * [b0, b1) + b[b0-1] - 2^(b1-b0) b[b1-1], whatever the widths. So a device may cover a bit
 * slice of another device's windows with windows of its own width (runtime/opencl/cl_msm.c). */
ARITH_FN int msm_booth_digit_at(const arith_u64 *k, unsigned at, unsigned width)
{
    msm_digit_plan p = msm_plan_digit(at, width);
    return msm_planned_digit(&p, k);
}

/* The plan of window w of bit slice [b0, b1) in windows of c bits (the last one narrower
 * when c does not divide b1 - b0). Contract: b0 + w * c < b1. */
ARITH_FN msm_digit_plan msm_plan_slice_digit(unsigned b0, unsigned b1, unsigned w, unsigned c)
{
    unsigned at = b0 + w * c;
    return msm_plan_digit(at, b1 - at < c ? b1 - at : c);
}

/* Booth digit of window w of bit slice [b0, b1) in windows of c bits (the last one narrower
 * when c does not divide b1 - b0). Contract: b0 + w * c < b1. */
ARITH_FN int msm_slice_digit(const arith_u64 *k, unsigned b0, unsigned b1, unsigned w, unsigned c)
{
    msm_digit_plan p = msm_plan_slice_digit(b0, b1, w, c);
    return msm_planned_digit(&p, k);
}

/* Booth digit of window w (c bits) of a scalar read as the two's complement number of its
 * bits below top: msm_slice_digit over [0, top). For a scalar below 2^(top-1) this is
 * msm_booth_digit (bit top-1 is 0 and no bit above it is read); the slices of precomputed
 * bases (host/msm/bases.c) are signed this way. Contract: w * c < top. */
ARITH_FN int msm_top_digit(const arith_u64 *k, unsigned top, unsigned w, unsigned c)
{
    return msm_slice_digit(k, 0, top, w, c);
}

/* Booth digit of window w (c bits, 1 <= c <= MSM_IMPL_MAX_WINDOW_BITS) of scalar k. */
ARITH_FN int msm_booth_digit(const arith_u64 *k, unsigned w, unsigned c)
{
    return msm_booth_digit_at(k, w * c, c);
}

/* Bucket of a nonzero digit d: |d| - 1 (a negative digit adds -P to the bucket of |d|).
 * Written with ~d = -d - 1 rather than as (d > 0 ? d : -d) - 1: LLVM 12 and later turn the
 * latter into the llvm.abs intrinsic, which Oclgrind 21.10 cannot execute ("Undefined external
 * function: llvm.abs.i32" when the kernel is created), and this form has no negation to
 * match. The value is the same on every compiler; d = 0 gives 2^32 - 1 (no bucket). */
ARITH_FN unsigned msm_digit_bucket(int d)
{
    return d < 0 ? (unsigned)~d : (unsigned)d - 1;
}

#endif

#define MSM_FN(op) ARITH_CAT(MSM_EC, ARITH_CAT(_msm_, op))
#define MSM_TY(form) ARITH_CAT(MSM_EC, ARITH_CAT(_, form))
#define MSM_EC_FN(op) ARITH_CAT(MSM_EC, ARITH_CAT(_, op))

/* Returns sum_{j=1..nbuckets} j * buckets[j-1]. Buckets at infinity cost nothing. */
ARITH_FN void MSM_FN(reduce_buckets)(MSM_TY(xyzz) *r, const MSM_TY(xyzz) *buckets, unsigned long nbuckets)
{
    MSM_TY(xyzz) running, sum;
    MSM_EC_FN(xyzz_set_inf)(&running);
    MSM_EC_FN(xyzz_set_inf)(&sum);
    for (unsigned long j = nbuckets; j-- > 0;) {
        MSM_EC_FN(xyzz_add)(&running, &running, &buckets[j]);
        MSM_EC_FN(xyzz_add)(&sum, &sum, &running);
    }
    *r = sum;
}

/* Returns sum_w 2^(w*c) * sums[w] for w < nwindows (Horner from the top window). */
ARITH_FN void MSM_FN(combine_windows)(MSM_TY(xyzz) *r, const MSM_TY(xyzz) *sums, unsigned nwindows, unsigned c)
{
    MSM_TY(xyzz) acc;
    MSM_EC_FN(xyzz_set_inf)(&acc);
    for (unsigned w = nwindows; w-- > 0;) {
        if (!MSM_EC_FN(xyzz_is_inf)(&acc))
            for (unsigned i = 0; i < c; i++)
                MSM_EC_FN(xyzz_dbl)(&acc, &acc);
        MSM_EC_FN(xyzz_add)(&acc, &acc, &sums[w]);
    }
    *r = acc;
}

#undef MSM_FN
#undef MSM_TY
#undef MSM_EC_FN
#undef MSM_EC
