/*
 * msm_cpu_impl.h: portable CPU tile kernel of Pippenger's method, instantiated per curve.
 *
 * What: for each window of the tile, the bucket accumulation loop (one mixed XYZZ addition,
 * madd-2008-s, 8M+2S, per point with a non-zero digit), then the shared running-sum reduction
 * (msm_impl.h, two full additions per bucket). Points with a negative digit are negated on the
 * fly (one field negation).
 * Cost per window: m mixed additions + 2^c full additions, with m the points of the tile.
 * Why this loop order (window outer, points inner): the 2^(c-1) buckets of one window stay
 * in cache for the whole pass, and a tile of windows needs one bucket array only.
 *
 * Instantiation: define CPU_EC (curve prefix), CPU_F (base field type), then include.
 */
#define CPU_FN(op) HPR_CAT(CPU_EC, HPR_CAT(_cpu_, op))
#define CPU_TY(form) HPR_CAT(CPU_EC, HPR_CAT(_, form))
#define CPU_EC_FN(op) HPR_CAT(CPU_EC, HPR_CAT(_, op))
#define CPU_MSM_FN(op) HPR_CAT(CPU_EC, HPR_CAT(_msm_, op))
#define CPU_F_FN(op) HPR_CAT(CPU_F, HPR_CAT(_, op))

static void CPU_FN(tile)(void *sums_v, const void *points_v, const void *prepared, const msm_scalar *scalars,
                         const uint32_t *index, const msm_tile *tile, unsigned c, void *buckets_v)
{
    CPU_TY(xyzz) *sums = sums_v, *buckets = buckets_v;
    const CPU_TY(affine) *points = points_v;
    unsigned long nbuckets = 1ul << (c - 1);
    (void)prepared;
    for (unsigned w = tile->w_begin; w < tile->w_end; w++) {
        for (unsigned long b = 0; b < nbuckets; b++)
            CPU_EC_FN(xyzz_set_inf)(&buckets[b]);
        for (size_t i = tile->begin; i < tile->end; i++) {
            uint32_t k = index[i];
            int d = hpr_booth_digit(scalars[k].l, w, c);
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

static const msm_cpu_kernel CPU_FN(portable_kernel) = {
    .tier = "portable",
    .prepared_size = 0,
    .prepare_points = NULL,
    .scratch_size = CPU_FN(scratch_size),
    .tile = CPU_FN(tile),
    .window_cost = CPU_FN(window_cost),
};

static void CPU_FN(sum_points)(void *acc_v, const void *points_v, const uint32_t *index, size_t begin, size_t end)
{
    CPU_TY(xyzz) *acc = acc_v;
    const CPU_TY(affine) *points = points_v;
    CPU_EC_FN(xyzz_set_inf)(acc);
    for (size_t i = begin; i < end; i++)
        CPU_EC_FN(xyzz_add_affine)(acc, acc, &points[index[i]]);
}

static void CPU_FN(xyzz_set_inf)(void *p)
{
    CPU_EC_FN(xyzz_set_inf)(p);
}

static void CPU_FN(xyzz_add)(void *r, const void *a, const void *b)
{
    CPU_EC_FN(xyzz_add)(r, a, b);
}

static void CPU_FN(combine_windows)(void *r, const void *sums, unsigned nwindows, unsigned c)
{
    CPU_MSM_FN(combine_windows)(r, sums, nwindows, c);
}

static msm_point_check CPU_FN(decode_point)(void *affine_v, const unsigned char *bytes)
{
    CPU_TY(affine) *p = affine_v;
    if (!CPU_F_FN(from_mont_bytes)(&p->x, bytes) || !CPU_F_FN(from_mont_bytes)(&p->y, bytes + sizeof(CPU_F)))
        return MSM_POINT_COORD_RANGE;
    return CPU_EC_FN(affine_on_curve)(p) ? MSM_POINT_OK : MSM_POINT_NOT_ON_CURVE;
}

static void CPU_FN(encode_xyzz)(unsigned char *bytes, const void *xyzz)
{
    CPU_TY(affine) a;
    CPU_EC_FN(xyzz_to_affine)(&a, xyzz);
    CPU_F_FN(to_mont_bytes)(bytes, &a.x);
    CPU_F_FN(to_mont_bytes)(bytes + sizeof(CPU_F), &a.y);
}

static void CPU_FN(affine_to_canonical)(uint64_t *x, uint64_t *y, const void *affine_v)
{
    const CPU_TY(affine) *p = affine_v;
    CPU_F_FN(from_mont)(x, &p->x);
    CPU_F_FN(from_mont)(y, &p->y);
}

static msm_point_check CPU_FN(affine_from_canonical)(void *affine_v, const uint64_t *x, const uint64_t *y)
{
    CPU_TY(affine) *p = affine_v;
    if (!CPU_F_FN(limbs_are_reduced)(x) || !CPU_F_FN(limbs_are_reduced)(y))
        return MSM_POINT_COORD_RANGE;
    CPU_F_FN(to_mont)(&p->x, x);
    CPU_F_FN(to_mont)(&p->y, y);
    return CPU_EC_FN(affine_on_curve)(p) ? MSM_POINT_OK : MSM_POINT_NOT_ON_CURVE;
}

static int CPU_FN(in_subgroup)(const void *affine)
{
    return CPU_EC_FN(affine_in_subgroup_var)(affine);
}

static void CPU_FN(fp_mul)(void *r, const void *a, const void *b)
{
    CPU_F_FN(mul)(r, a, b);
}

#undef CPU_FN
#undef CPU_TY
#undef CPU_EC_FN
#undef CPU_MSM_FN
#undef CPU_F_FN
#undef CPU_EC
#undef CPU_F
