/*
 * msm_cpu_tile_impl.h: the XYZZ tile kernel of Pippenger's method, instantiated per curve and
 * per tier (portable C in msm_cpu.c; the same source over mulx/adcx/adox field
 * multiplication in msm_adx.c).
 *
 * What: for each window of the tile, the bucket accumulation loop (one mixed XYZZ addition,
 * madd-2008-s, 8M+2S, per point with a non-zero digit), then the shared running-sum reduction
 * (msm_impl.h, two full additions per bucket). Points with a negative digit are negated on the
 * fly (one field negation).
 * Cost per window: m mixed additions + 2^c full additions, with m the points of the tile.
 * Why this loop order (window outer, points inner): the 2^(c-1) buckets of one window stay
 * in cache for the whole pass, and a tile of windows needs one bucket array only.
 *
 * Instantiation: define CPU_EC (curve prefix), CPU_F (its base field), CPU_TIER_NAME ("portable" or "adx") and
 * CPU_KERNEL (the msm_cpu_kernel to define), and CPU_DEGREE 2 for G2, then include after curves.h.
 * CPU_BATCH_AFFINE makes the kernel's tile the batch-affine one (msm_batch_affine_impl.h),
 * which keeps this XYZZ tile for small windows.
 */
#include <string.h>

#ifndef CPU_DEGREE
#define CPU_DEGREE 1 /* 2 for G2: CPU_F is Fq2 and field_op works on its elements (c0's limbs, c1's) */
#endif
#define CPU_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_tile_, op))
#define CPU_TY(form) ARITH_CAT(CPU_EC, ARITH_CAT(_, form))
#define CPU_EC_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_, op))
#define CPU_MSM_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_msm_, op))
#define CPU_F_FN(op) ARITH_CAT(CPU_F, ARITH_CAT(_, op))

static void CPU_FN(tile)(void *sums_v, const msm_tile_input *in, const msm_tile *tile, unsigned c, void *buckets_v)
{
    CPU_TY(xyzz) *sums = sums_v, *buckets = buckets_v;
    const CPU_TY(affine) *points = in->points;
    unsigned long nbuckets = 1ul << (c - 1);
    for (unsigned w = tile->w_begin; w < tile->w_end; w++) {
        for (unsigned long b = 0; b < nbuckets; b++)
            CPU_EC_FN(xyzz_set_inf)(&buckets[b]);
        for (size_t i = tile->begin; i < tile->end; i++) {
            uint32_t k = in->index[i];
            int d = in->digits ? in->digits[w * in->count + i] : msm_top_digit(in->scalars[k].l, in->top, w, c);
            if (d > 0) {
                CPU_EC_FN(xyzz_add_affine)(&buckets[d - 1], &buckets[d - 1], &points[k]);
            } else if (d < 0) {
                CPU_TY(affine) neg;
                CPU_EC_FN(affine_neg)(&neg, &points[k]);
                CPU_EC_FN(xyzz_add_affine)(&buckets[-d - 1], &buckets[-d - 1], &neg);
            }
        }
        CPU_MSM_FN(reduce_buckets)(&sums[w - tile->w_begin], buckets, nbuckets);
    }
}

/* 2^(c-1) XYZZ buckets. */
static size_t CPU_FN(scratch_size)(unsigned c, size_t max_points)
{
    (void)max_points;
    return sizeof(CPU_TY(xyzz)) << (c - 1);
}

/* One window in mixed additions: one per point, two full additions (about three mixed) per
 * bucket. */
static double CPU_FN(window_cost)(unsigned c, size_t m)
{
    return (double)m + 3.0 * (double)(1ul << (c - 1));
}

static void CPU_FN(field_op)(int op, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        CPU_F x, y, z;
        CPU_F_FN(set_limbs)(&x, a + i * (sizeof(CPU_F) / 8));
        CPU_F_FN(set_limbs)(&y, b + i * (sizeof(CPU_F) / 8));
        switch (op) {
        case MSM_FIELD_MUL: CPU_F_FN(mul)(&z, &x, &y); break;
        case MSM_FIELD_SQR: CPU_F_FN(sqr)(&z, &x); break;
        case MSM_FIELD_ADD: CPU_F_FN(add)(&z, &x, &y); break;
        case MSM_FIELD_SUB: CPU_F_FN(sub)(&z, &x, &y); break;
        case MSM_FIELD_INV: (void)CPU_F_FN(inv)(&z, &x); break;
        default: z = x; break;
        }
        memcpy(r + i * (sizeof(CPU_F) / 8), &z, sizeof z);
    }
}

/* out[i] = 2^shift in[i] (msm_cpu_kernel.shift_points) with this file's field arithmetic (the
 * adx tier's multiplications in msm_adx.c): shift doublings each and one batch inversion per
 * block. */
#define SHIFT_BLOCK 32
static void CPU_FN(shift_points)(unsigned char *out, const unsigned char *in, size_t stride, size_t count,
                                 unsigned shift)
{
    CPU_TY(xyzz) acc[SHIFT_BLOCK];
    CPU_TY(affine) a[SHIFT_BLOCK];
    CPU_F scratch[SHIFT_BLOCK];
    for (size_t b = 0; b < count; b += SHIFT_BLOCK) {
        size_t m = count - b < SHIFT_BLOCK ? count - b : SHIFT_BLOCK;
        for (size_t i = 0; i < m; i++) {
            CPU_EC_FN(xyzz_from_mont_bytes)(&acc[i], in + (b + i) * stride);
            for (unsigned d = 0; d < shift; d++)
                CPU_EC_FN(xyzz_dbl)(&acc[i], &acc[i]);
        }
        CPU_EC_FN(xyzz_batch_to_affine)(a, acc, m, scratch);
        for (size_t i = 0; i < m; i++)
            CPU_EC_FN(affine_to_mont_bytes)(out + (b + i) * stride, &a[i]);
    }
}
#undef SHIFT_BLOCK

/* The kernel's sum_points (msm_cpu.h) in affine batches: SUM_LANES running sums, each round
 * adding the next finite point to every lane with one shared inversion (Montgomery's trick:
 * 3M a lane, then lambda, x3, y3: 2M + 1S; about 6M + 1S with the inversion's share, against
 * 8M + 2S for a mixed XYZZ addition), over this unit's field arithmetic (the adx tier's
 * mulx/adcx/adox; the portable one's C, which the curve table's sum_points also is). A point
 * whose x equals its lane's (the lane's sum doubled or cancelled) goes to a side XYZZ sum
 * instead; the lanes and the side sum are folded at the end. The scalars-1 terms of a 2^20
 * proof's MSMs took about 9% of the adx tier's proof as one mixed addition each. */
#define SUM_LANES 128
static void CPU_FN(sum_points)(void *acc_v, const void *points_v, const uint32_t *index, size_t begin, size_t end)
{
    CPU_TY(xyzz) *acc = acc_v;
    const CPU_TY(affine) *points = points_v, *take[SUM_LANES];
    CPU_TY(affine) run[SUM_LANES];
    CPU_F dx[SUM_LANES], prefix[SUM_LANES];
    unsigned lane_of[SUM_LANES], live = 0; /* lanes [0, live) hold a finite sum */
    size_t i = begin;
    CPU_EC_FN(xyzz_set_inf)(acc);
    while (i < end) {
        unsigned m = 0; /* lanes taking a point this round */
        for (unsigned k = 0; k < SUM_LANES && i < end; i++) {
            const CPU_TY(affine) *p = &points[index[i]];
            if (CPU_EC_FN(affine_is_inf)(p))
                continue;
            if (k >= live) { /* an empty lane starts with the point */
                run[live++] = *p;
                k++;
                continue;
            }
            CPU_F_FN(sub)(&dx[m], &p->x, &run[k].x);
            if (CPU_F_FN(is_zero)(&dx[m])) { /* p = +-run[k]: the side sum takes it */
                CPU_EC_FN(xyzz_add_affine)(acc, acc, p);
                continue;
            }
            take[m] = p;
            lane_of[m++] = k++;
        }
        if (m == 0)
            continue;
        CPU_F inv, t, lambda, x3;
        prefix[0] = dx[0];
        for (unsigned j = 1; j < m; j++)
            CPU_F_FN(mul)(&prefix[j], &prefix[j - 1], &dx[j]);
        (void)CPU_F_FN(inv)(&inv, &prefix[m - 1]); /* every dx is non-zero */
        for (unsigned j = m; j-- > 0;) {
            CPU_TY(affine) *r = &run[lane_of[j]];
            if (j > 0) {
                CPU_F_FN(mul)(&t, &inv, &prefix[j - 1]); /* 1 / dx[j] */
                CPU_F_FN(mul)(&inv, &inv, &dx[j]);
            } else {
                t = inv;
            }
            CPU_F_FN(sub)(&lambda, &take[j]->y, &r->y);
            CPU_F_FN(mul)(&lambda, &lambda, &t);
            CPU_F_FN(sqr)(&x3, &lambda);
            CPU_F_FN(sub)(&x3, &x3, &r->x);
            CPU_F_FN(sub)(&x3, &x3, &take[j]->x);
            CPU_F_FN(sub)(&t, &r->x, &x3);
            CPU_F_FN(mul)(&t, &t, &lambda);
            CPU_F_FN(sub)(&r->y, &t, &r->y);
            r->x = x3;
        }
    }
    for (unsigned k = 0; k < live; k++)
        CPU_EC_FN(xyzz_add_affine)(acc, acc, &run[k]);
}
#undef SUM_LANES

/* The kernel's check_points (msm_cpu.h): decode_point's checks on the points in place, one
 * by one, over this unit's field arithmetic (on the adx tier the curve equation's products in
 * mulx/adcx/adox: the zkey's points of a 2^20 proof, which the portable decode spent about 7%
 * of the adx tier's proof on). */
static size_t CPU_FN(check_points)(const void *points_v, size_t begin, size_t end, msm_point_check *kind)
{
    const CPU_TY(affine) *pts = points_v;
    for (size_t i = begin; i < end; i++) {
        const CPU_TY(affine) *p = &pts[i];
        if (!CPU_F_FN(limbs_are_reduced)((const uint64_t *)&p->x) ||
            !CPU_F_FN(limbs_are_reduced)((const uint64_t *)&p->y)) {
            *kind = MSM_POINT_COORD_RANGE;
            return i;
        }
        if (!CPU_EC_FN(affine_on_curve)(p)) {
            *kind = MSM_POINT_NOT_ON_CURVE;
            return i;
        }
    }
    return end;
}

/* The kernel's fixed_base_sums (msm_cpu.h): one mixed addition a non-zero digit, the table
 * point negated for a negative one, over this unit's field arithmetic. */
static void CPU_FN(fixed_base_sums)(void *acc_v, const void *table_v, size_t half, const int16_t *digits,
                                    unsigned windows, size_t n)
{
    CPU_TY(xyzz) *acc = acc_v;
    const CPU_TY(affine) *table = table_v;
    for (size_t i = 0; i < n; i++) {
        CPU_EC_FN(xyzz_set_inf)(&acc[i]);
        for (unsigned j = 0; j < windows; j++) {
            int d = digits[i * windows + j];
            if (d == 0)
                continue;
            const CPU_TY(affine) *q = &table[j * half + (size_t)(d < 0 ? -d : d) - 1];
            CPU_TY(affine) neg;
            if (d < 0) {
                CPU_EC_FN(affine_neg)(&neg, q);
                q = &neg;
            }
            CPU_EC_FN(xyzz_add_affine)(&acc[i], &acc[i], q);
        }
    }
}

#ifdef CPU_BATCH_AFFINE
#include "msm_batch_affine_impl.h"
#define CPU_KERNEL_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_ba_, op))
#else
#define CPU_KERNEL_FN(op) CPU_FN(op)
#endif

const msm_cpu_kernel CPU_KERNEL = {
    .tier = CPU_TIER_NAME,
    .prepared_size = 0,
    .prepare_points = NULL,
    .scratch_size = CPU_KERNEL_FN(scratch_size),
    .tile = CPU_KERNEL_FN(tile),
    .window_cost = CPU_KERNEL_FN(window_cost),
    .field_op = CPU_FN(field_op),
    .check_points = CPU_FN(check_points),
    .shift_points = CPU_FN(shift_points),
    .sum_points = CPU_FN(sum_points),
    .fixed_base_sums = CPU_FN(fixed_base_sums),
    .mont_bits = 8 * sizeof(CPU_F) / CPU_DEGREE,
};

#undef CPU_FN
#undef CPU_TY
#undef CPU_EC_FN
#undef CPU_MSM_FN
#undef CPU_F_FN
#undef CPU_EC
#undef CPU_F
#undef CPU_TIER_NAME
#undef CPU_KERNEL
#undef CPU_DEGREE
#undef CPU_BATCH_AFFINE
#undef CPU_KERNEL_FN
