/*
 * fe12_impl.h: the tower Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v) over an Fq2 of
 * fe2_impl.h, for the pairings of host/groth16/pairing.c (host C only: no OpenCL kernel pairs).
 *
 * Elements: Fq6 c0 + c1 v + c2 v^2, Fq12 c0 + c1 w, coordinates reduced Montgomery.
 * Method: schoolbook Fq6 products with the reduction v^3 = xi (a multiplication by the Fq2
 * constant xi), Karatsuba for Fq12 (three Fq6 products), inversions through the norms
 * (Fq12 -> Fq6 -> Fq2 -> Fq), square-and-multiply for powers (variable time: the pairing's
 * inputs are public). Plain rather than fast: one verification is a few final
 * exponentiations, milliseconds.
 *
 * Instantiation: define FE12_P (prefix: the types become P_fq6, P_fq12 and the functions
 * P_fq6_op, P_fq12_op), FE12_F2 (the Fq2 type) and FE12_XI (the limbs of xi, Montgomery,
 * c0's then c1's), include after fe2_impl.h's instantiation.
 * Contract: inputs reduced Montgomery, outputs likewise; outputs may alias inputs.
 * Functions: static inline, not ARITH_FN's forced inlining (inlining the tower into every caller
 * makes one translation unit take minutes to compile for no gain).
 */
#define FE12_FN static inline
#define F6_T ARITH_CAT(FE12_P, _fq6)
#define F12_T ARITH_CAT(FE12_P, _fq12)
#define F6(op) ARITH_CAT(F6_T, ARITH_CAT(_, op))
#define F12(op) ARITH_CAT(F12_T, ARITH_CAT(_, op))
#define F2(op) ARITH_CAT(FE12_F2, ARITH_CAT(_, op))

typedef struct {
    FE12_F2 c0, c1, c2;
} F6_T;

typedef struct {
    F6_T c0, c1;
} F12_T;

/* r = xi a */
FE12_FN void F2(mul_by_xi)(FE12_F2 *r, const FE12_F2 *a)
{
    static const arith_u64 xi_limbs[] = FE12_XI;
    FE12_F2 xi;
    F2(set_limbs)(&xi, xi_limbs);
    F2(mul)(r, a, &xi);
}

/* r = conj(a) = a^p (the Frobenius of Fq2 = Fq[u]/(u^2 + 1)) */
FE12_FN void F2(conj)(FE12_F2 *r, const FE12_F2 *a)
{
    FE12_F2 t;
    F2(neg)(&t, a);
    r->c0 = a->c0;
    r->c1 = t.c1;
}

FE12_FN void F6(set_zero)(F6_T *r)
{
    F2(set_zero)(&r->c0);
    F2(set_zero)(&r->c1);
    F2(set_zero)(&r->c2);
}

FE12_FN void F6(set_one)(F6_T *r)
{
    F2(set_one)(&r->c0);
    F2(set_zero)(&r->c1);
    F2(set_zero)(&r->c2);
}

FE12_FN int F6(eq)(const F6_T *a, const F6_T *b)
{
    return F2(eq)(&a->c0, &b->c0) && F2(eq)(&a->c1, &b->c1) && F2(eq)(&a->c2, &b->c2);
}

FE12_FN void F6(add)(F6_T *r, const F6_T *a, const F6_T *b)
{
    F2(add)(&r->c0, &a->c0, &b->c0);
    F2(add)(&r->c1, &a->c1, &b->c1);
    F2(add)(&r->c2, &a->c2, &b->c2);
}

FE12_FN void F6(sub)(F6_T *r, const F6_T *a, const F6_T *b)
{
    F2(sub)(&r->c0, &a->c0, &b->c0);
    F2(sub)(&r->c1, &a->c1, &b->c1);
    F2(sub)(&r->c2, &a->c2, &b->c2);
}

FE12_FN void F6(neg)(F6_T *r, const F6_T *a)
{
    F2(neg)(&r->c0, &a->c0);
    F2(neg)(&r->c1, &a->c1);
    F2(neg)(&r->c2, &a->c2);
}

/* (a0 + a1 v + a2 v^2)(b0 + b1 v + b2 v^2) with v^3 = xi */
FE12_FN void F6(mul)(F6_T *r, const F6_T *a, const F6_T *b)
{
    FE12_F2 t, u, c0, c1, c2;
    F2(mul)(&c0, &a->c1, &b->c2);
    F2(mul)(&t, &a->c2, &b->c1);
    F2(add)(&c0, &c0, &t);
    F2(mul_by_xi)(&c0, &c0);
    F2(mul)(&t, &a->c0, &b->c0);
    F2(add)(&c0, &c0, &t);
    F2(mul)(&c1, &a->c2, &b->c2);
    F2(mul_by_xi)(&c1, &c1);
    F2(mul)(&t, &a->c0, &b->c1);
    F2(mul)(&u, &a->c1, &b->c0);
    F2(add)(&c1, &c1, &t);
    F2(add)(&c1, &c1, &u);
    F2(mul)(&c2, &a->c0, &b->c2);
    F2(mul)(&t, &a->c1, &b->c1);
    F2(mul)(&u, &a->c2, &b->c0);
    F2(add)(&c2, &c2, &t);
    F2(add)(&c2, &c2, &u);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* r = v a: (a0, a1, a2) -> (xi a2, a0, a1) */
FE12_FN void F6(mul_by_v)(F6_T *r, const F6_T *a)
{
    FE12_F2 t;
    F2(mul_by_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* r = a^-1 through the norm to Fq2. Returns 0 for a = 0 (r zero). */
FE12_FN int F6(inv)(F6_T *r, const F6_T *a)
{
    FE12_F2 t0, t1, t2, d, s;
    F2(sqr)(&t0, &a->c0); /* t0 = a0^2 - xi a1 a2 */
    F2(mul)(&s, &a->c1, &a->c2);
    F2(mul_by_xi)(&s, &s);
    F2(sub)(&t0, &t0, &s);
    F2(sqr)(&t1, &a->c2); /* t1 = xi a2^2 - a0 a1 */
    F2(mul_by_xi)(&t1, &t1);
    F2(mul)(&s, &a->c0, &a->c1);
    F2(sub)(&t1, &t1, &s);
    F2(sqr)(&t2, &a->c1); /* t2 = a1^2 - a0 a2 */
    F2(mul)(&s, &a->c0, &a->c2);
    F2(sub)(&t2, &t2, &s);
    F2(mul)(&d, &a->c2, &t1); /* d = a0 t0 + xi (a2 t1 + a1 t2) */
    F2(mul)(&s, &a->c1, &t2);
    F2(add)(&d, &d, &s);
    F2(mul_by_xi)(&d, &d);
    F2(mul)(&s, &a->c0, &t0);
    F2(add)(&d, &d, &s);
    if (!F2(inv)(&d, &d)) {
        F6(set_zero)(r);
        return 0;
    }
    F2(mul)(&r->c0, &t0, &d);
    F2(mul)(&r->c1, &t1, &d);
    F2(mul)(&r->c2, &t2, &d);
    return 1;
}

FE12_FN void F12(set_one)(F12_T *r)
{
    F6(set_one)(&r->c0);
    F6(set_zero)(&r->c1);
}

FE12_FN int F12(eq)(const F12_T *a, const F12_T *b)
{
    return F6(eq)(&a->c0, &b->c0) && F6(eq)(&a->c1, &b->c1);
}

FE12_FN int F12(is_one)(const F12_T *a)
{
    F12_T one;
    F12(set_one)(&one);
    return F12(eq)(a, &one);
}

/* (a0 + a1 w)(b0 + b1 w) = a0 b0 + v a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) w */
FE12_FN void F12(mul)(F12_T *r, const F12_T *a, const F12_T *b)
{
    F6_T v0, v1, s, t;
    F6(mul)(&v0, &a->c0, &b->c0);
    F6(mul)(&v1, &a->c1, &b->c1);
    F6(add)(&s, &a->c0, &a->c1);
    F6(add)(&t, &b->c0, &b->c1);
    F6(mul)(&s, &s, &t);
    F6(sub)(&s, &s, &v0);
    F6(sub)(&r->c1, &s, &v1);
    F6(mul_by_v)(&v1, &v1);
    F6(add)(&r->c0, &v0, &v1);
}

FE12_FN void F12(sqr)(F12_T *r, const F12_T *a)
{
    F12(mul)(r, a, a);
}

/* r = a^(p^6) = a0 - a1 w */
FE12_FN void F12(conj)(F12_T *r, const F12_T *a)
{
    r->c0 = a->c0;
    F6(neg)(&r->c1, &a->c1);
}

/* r = a^-1 = (a0 - a1 w) / (a0^2 - v a1^2). Returns 0 for a = 0 (r zero). */
FE12_FN int F12(inv)(F12_T *r, const F12_T *a)
{
    F6_T n, t;
    F6(mul)(&n, &a->c0, &a->c0);
    F6(mul)(&t, &a->c1, &a->c1);
    F6(mul_by_v)(&t, &t);
    F6(sub)(&n, &n, &t);
    if (!F6(inv)(&n, &n)) {
        F6(set_zero)(&r->c0);
        F6(set_zero)(&r->c1);
        return 0;
    }
    F6(mul)(&r->c0, &a->c0, &n);
    F6(mul)(&t, &a->c1, &n);
    F6(neg)(&r->c1, &t);
    return 1;
}

/* r = a^e, e given as n little-endian limbs. Variable time. */
FE12_FN void F12(pow_var)(F12_T *r, const F12_T *a, const arith_u64 *e, int n)
{
    F12_T acc, base = *a;
    int started = 0;
    F12(set_one)(&acc);
    for (int i = n - 1; i >= 0; i--) {
        for (int bit = 63; bit >= 0; bit--) {
            if (started)
                F12(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                F12(mul)(&acc, &acc, &base);
                started = 1;
            }
        }
    }
    *r = acc;
}

#undef FE12_FN
#undef F2
#undef F6
#undef F12
#undef F6_T
#undef F12_T
#undef FE12_P
#undef FE12_F2
#undef FE12_XI
