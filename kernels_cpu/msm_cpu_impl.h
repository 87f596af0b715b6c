/*
 * msm_cpu_impl.h: the curve operations of the CPU's operation table (msm_cpu.h) other than
 * the tile kernels (the table's sum_points is the portable kernel's): window combination,
 * point decoding and encoding, checks.
 * Instantiated per curve: define CPU_EC (curve prefix), CPU_F (base field type), include.
 */
#define CPU_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_cpu_, op))
#define CPU_TY(form) ARITH_CAT(CPU_EC, ARITH_CAT(_, form))
#define CPU_EC_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_, op))
#define CPU_MSM_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_msm_, op))
#define CPU_F_FN(op) ARITH_CAT(CPU_F, ARITH_CAT(_, op))

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
    /* (0, 0) is the interchange form's infinity, which affine_on_curve accepts; as explicit
     * coordinates it is no point (callers read infinity from z = 0) */
    if (CPU_EC_FN(affine_is_inf)(p))
        return MSM_POINT_NOT_ON_CURVE;
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
