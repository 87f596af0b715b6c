/*
 * fe2_impl.h: the quadratic extension Fq2 = Fq[u]/(u^2 + 1) of a base field from fe_impl.h,
 * with the operations ec_impl.h needs, so that the same curve code gives G2 over Fq2.
 *
 * Elements are c0 + c1 u, each coordinate a reduced Montgomery element of the base field;
 * the interchange bytes are c0 then c1 (snarkjs's layout). Method: Karatsuba multiplication
 * (3 base multiplications), the complex squaring (a0 + a1)(a0 - a1) and 2 a0 a1
 * (2 multiplications), inversion through the norm a0^2 + a1^2 (one base inversion).
 *
 * Instantiation: define FE2_T (the type, e.g. bn254_fq2) and FE2_F (the base field type,
 * e.g. bn254_fp), include after the base field. set_limbs takes 2 * N limbs: c0's then c1's.
 * Contract: inputs reduced Montgomery, outputs likewise; outputs may alias inputs.
 */
#define FE2_FN(op) ARITH_CAT(FE2_T, ARITH_CAT(_, op))
#define B(op) ARITH_CAT(FE2_F, ARITH_CAT(_, op))

typedef struct {
    FE2_F c0, c1;
} FE2_T;

ARITH_FN void FE2_FN(set_zero)(FE2_T *r)
{
    B(set_zero)(&r->c0);
    B(set_zero)(&r->c1);
}

ARITH_FN void FE2_FN(set_one)(FE2_T *r)
{
    B(set_one)(&r->c0);
    B(set_zero)(&r->c1);
}

/* Raw limbs: c0's sizeof(c0) / 8 limbs, then c1's. */
ARITH_FN void FE2_FN(set_limbs)(FE2_T *r, const arith_u64 *limbs)
{
    B(set_limbs)(&r->c0, limbs);
    B(set_limbs)(&r->c1, limbs + sizeof(r->c0) / 8);
}

ARITH_FN int FE2_FN(is_zero)(const FE2_T *a)
{
    return B(is_zero)(&a->c0) && B(is_zero)(&a->c1);
}

ARITH_FN int FE2_FN(eq)(const FE2_T *a, const FE2_T *b)
{
    return B(eq)(&a->c0, &b->c0) && B(eq)(&a->c1, &b->c1);
}

ARITH_FN void FE2_FN(add)(FE2_T *r, const FE2_T *a, const FE2_T *b)
{
    B(add)(&r->c0, &a->c0, &b->c0);
    B(add)(&r->c1, &a->c1, &b->c1);
}

ARITH_FN void FE2_FN(dbl)(FE2_T *r, const FE2_T *a)
{
    B(dbl)(&r->c0, &a->c0);
    B(dbl)(&r->c1, &a->c1);
}

ARITH_FN void FE2_FN(sub)(FE2_T *r, const FE2_T *a, const FE2_T *b)
{
    B(sub)(&r->c0, &a->c0, &b->c0);
    B(sub)(&r->c1, &a->c1, &b->c1);
}

ARITH_FN void FE2_FN(neg)(FE2_T *r, const FE2_T *a)
{
    B(neg)(&r->c0, &a->c0);
    B(neg)(&r->c1, &a->c1);
}

/* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u */
ARITH_FN void FE2_FN(mul)(FE2_T *r, const FE2_T *a, const FE2_T *b)
{
    FE2_F v0, v1, s, t;
    B(mul)(&v0, &a->c0, &b->c0);
    B(mul)(&v1, &a->c1, &b->c1);
    B(add)(&s, &a->c0, &a->c1);
    B(add)(&t, &b->c0, &b->c1);
    B(mul)(&s, &s, &t);
    B(sub)(&s, &s, &v0);
    B(sub)(&r->c1, &s, &v1);
    B(sub)(&r->c0, &v0, &v1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
ARITH_FN void FE2_FN(sqr)(FE2_T *r, const FE2_T *a)
{
    FE2_F s, d, m;
    B(add)(&s, &a->c0, &a->c1);
    B(sub)(&d, &a->c0, &a->c1);
    B(mul)(&m, &a->c0, &a->c1);
    B(mul)(&r->c0, &s, &d);
    B(dbl)(&r->c1, &m);
}

/* r = a^-1 = conj(a) / (a0^2 + a1^2). Returns 1, or 0 when a is zero (then r is zero). */
ARITH_FN int FE2_FN(inv)(FE2_T *r, const FE2_T *a)
{
    FE2_F n, t;
    B(sqr)(&n, &a->c0);
    B(sqr)(&t, &a->c1);
    B(add)(&n, &n, &t);
    if (!B(inv)(&n, &n)) {
        FE2_FN(set_zero)(r);
        return 0;
    }
    B(mul)(&r->c0, &a->c0, &n);
    B(mul)(&t, &a->c1, &n);
    B(neg)(&r->c1, &t);
    return 1;
}

/* The conversions of the operation tables, coordinate by coordinate (c0 then c1): raw limbs
 * below p, canonical limbs <-> Montgomery, and the interchange bytes (Montgomery, c0 then c1). */
ARITH_FN int FE2_FN(limbs_are_reduced)(const arith_u64 *limbs)
{
    return B(limbs_are_reduced)(limbs) && B(limbs_are_reduced)(limbs + sizeof(FE2_F) / 8);
}

ARITH_FN void FE2_FN(to_mont)(FE2_T *r, const arith_u64 *canonical)
{
    B(to_mont)(&r->c0, canonical);
    B(to_mont)(&r->c1, canonical + sizeof(FE2_F) / 8);
}

ARITH_FN void FE2_FN(from_mont)(arith_u64 *canonical, const FE2_T *a)
{
    B(from_mont)(canonical, &a->c0);
    B(from_mont)(canonical + sizeof(FE2_F) / 8, &a->c1);
}

/* Returns 0 (r zeroed) if a coordinate is >= p. */
ARITH_FN int FE2_FN(from_mont_bytes)(FE2_T *r, const unsigned char *bytes)
{
    if (B(from_mont_bytes)(&r->c0, bytes) && B(from_mont_bytes)(&r->c1, bytes + sizeof(FE2_F)))
        return 1;
    FE2_FN(set_zero)(r);
    return 0;
}

ARITH_FN void FE2_FN(to_mont_bytes)(unsigned char *bytes, const FE2_T *a)
{
    B(to_mont_bytes)(bytes, &a->c0);
    B(to_mont_bytes)(bytes + sizeof(FE2_F), &a->c1);
}

#undef B
#undef FE2_FN
#undef FE2_T
#undef FE2_F
