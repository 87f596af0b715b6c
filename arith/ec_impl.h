/*
 * ec_impl.h: short-Weierstrass curve y^2 = x^3 + b (a = 0) over a prime field, written once
 * for G1 of every curve.
 *
 * What: affine, Jacobian (x = X/Z^2, y = Y/Z^3) and XYZZ (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2)
 * forms; doubling, full and mixed addition, negation, on-curve and subgroup checks,
 * normalisation to affine (single and batch with one shared inversion), double-and-add.
 * Method: formulas from the Explicit-Formulas Database, specialised to a = 0:
 *   Jacobian dbl-2009-l (2M+5S), add-2007-bl (11M+5S), madd-2007-bl (7M+4S);
 *   XYZZ dbl-2008-s-1 (6M+3S... 2S for a = 0), add-2008-s (12M+2S), madd-2008-s (8M+2S),
 *   mdbl-2008-s-1 for doubling an affine point. Every exceptional case (infinity, P = Q,
 *   P = -Q) is handled explicitly, so the functions are complete but variable-time.
 * Why XYZZ: it is the cheapest form for bucket accumulation with affine inputs (madd 10 field
 * ops) and needs no doubling on the common path; Jacobian is kept for the scalar
 * multiplications in tests and checks.
 *
 * Infinity: affine (0, 0) (not on the curve since b != 0; it is also the all-zero interchange
 * encoding), Jacobian Z = 0, XYZZ ZZ = 0.
 *
 * Instantiation: define EC_T (e.g. bn254_g1), EC_F (its field type, e.g. bn254_fp), EC_K
 * (constant prefix, e.g. BN254_G1) and EC_SN (scalar limbs), include this file after the
 * field. It undefines them.
 * Contract: every coordinate is a reduced Montgomery field element; outputs may alias inputs.
 */
#define EC_FN(op) ARITH_CAT(EC_T, ARITH_CAT(_, op))
#define EC_TY(form) ARITH_CAT(EC_T, ARITH_CAT(_, form))
#define EC_CONST(c) ARITH_CAT(EC_K, ARITH_CAT(_, c))
#define F(op) ARITH_CAT(EC_F, ARITH_CAT(_, op))

typedef struct {
    EC_F x, y;
} EC_TY(affine);

typedef struct {
    EC_F x, y, z;
} EC_TY(jac);

typedef struct {
    EC_F x, y, zz, zzz;
} EC_TY(xyzz);

/* ---- affine ---- */

ARITH_FN void EC_FN(affine_set_inf)(EC_TY(affine) *r)
{
    F(set_zero)(&r->x);
    F(set_zero)(&r->y);
}

ARITH_FN int EC_FN(affine_is_inf)(const EC_TY(affine) *p)
{
    return F(is_zero)(&p->x) && F(is_zero)(&p->y);
}

ARITH_FN void EC_FN(affine_generator)(EC_TY(affine) *r)
{
    const arith_u64 gx[] = EC_CONST(GEN_X), gy[] = EC_CONST(GEN_Y);
    F(set_limbs)(&r->x, gx);
    F(set_limbs)(&r->y, gy);
}

ARITH_FN void EC_FN(affine_neg)(EC_TY(affine) *r, const EC_TY(affine) *p)
{
    r->x = p->x;
    F(neg)(&r->y, &p->y); /* neg(0) = 0 keeps infinity */
}

ARITH_FN int EC_FN(affine_eq)(const EC_TY(affine) *a, const EC_TY(affine) *b)
{
    return F(eq)(&a->x, &b->x) && F(eq)(&a->y, &b->y);
}

/* 1 if p is infinity or satisfies y^2 = x^3 + b. */
ARITH_FN int EC_FN(affine_on_curve)(const EC_TY(affine) *p)
{
    const arith_u64 b_limbs[] = EC_CONST(B);
    EC_F lhs, rhs, b;
    if (EC_FN(affine_is_inf)(p))
        return 1;
    F(set_limbs)(&b, b_limbs);
    F(sqr)(&lhs, &p->y);
    F(sqr)(&rhs, &p->x);
    F(mul)(&rhs, &rhs, &p->x);
    F(add)(&rhs, &rhs, &b);
    return F(eq)(&lhs, &rhs);
}

/* ---- Jacobian ---- */

ARITH_FN void EC_FN(jac_set_inf)(EC_TY(jac) *r)
{
    F(set_one)(&r->x);
    F(set_one)(&r->y);
    F(set_zero)(&r->z);
}

ARITH_FN int EC_FN(jac_is_inf)(const EC_TY(jac) *p)
{
    return F(is_zero)(&p->z);
}

ARITH_FN void EC_FN(jac_from_affine)(EC_TY(jac) *r, const EC_TY(affine) *p)
{
    if (EC_FN(affine_is_inf)(p)) {
        EC_FN(jac_set_inf)(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    F(set_one)(&r->z);
}

ARITH_FN void EC_FN(jac_neg)(EC_TY(jac) *r, const EC_TY(jac) *p)
{
    r->x = p->x;
    F(neg)(&r->y, &p->y);
    r->z = p->z;
}

/* dbl-2009-l */
EC_POINT_FN void EC_FN(jac_dbl)(EC_TY(jac) *r, const EC_TY(jac) *p)
{
    EC_F a, b, c, d, e, f, t;
    F(sqr)(&a, &p->x);
    F(sqr)(&b, &p->y);
    F(sqr)(&c, &b);
    F(add)(&d, &p->x, &b);
    F(sqr)(&d, &d);
    F(sub)(&d, &d, &a);
    F(sub)(&d, &d, &c);
    F(dbl)(&d, &d);
    F(dbl)(&e, &a);
    F(add)(&e, &e, &a);
    F(sqr)(&f, &e);
    F(mul)(&r->z, &p->y, &p->z);
    F(dbl)(&r->z, &r->z);
    F(dbl)(&t, &d);
    F(sub)(&r->x, &f, &t);
    F(sub)(&t, &d, &r->x);
    F(mul)(&t, &e, &t);
    F(dbl)(&c, &c);
    F(dbl)(&c, &c);
    F(dbl)(&c, &c);
    F(sub)(&r->y, &t, &c);
}

/* add-2007-bl, with the exceptional cases dispatched. */
EC_POINT_FN void EC_FN(jac_add)(EC_TY(jac) *r, const EC_TY(jac) *p, const EC_TY(jac) *q)
{
    EC_F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    if (EC_FN(jac_is_inf)(p)) {
        *r = *q;
        return;
    }
    if (EC_FN(jac_is_inf)(q)) {
        *r = *p;
        return;
    }
    F(sqr)(&z1z1, &p->z);
    F(sqr)(&z2z2, &q->z);
    F(mul)(&u1, &p->x, &z2z2);
    F(mul)(&u2, &q->x, &z1z1);
    F(mul)(&s1, &p->y, &q->z);
    F(mul)(&s1, &s1, &z2z2);
    F(mul)(&s2, &q->y, &p->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    if (F(is_zero)(&h)) {
        if (F(is_zero)(&rr))
            EC_FN(jac_dbl)(r, p);
        else
            EC_FN(jac_set_inf)(r);
        return;
    }
    F(dbl)(&i, &h);
    F(sqr)(&i, &i);
    F(mul)(&j, &h, &i);
    F(dbl)(&rr, &rr);
    F(mul)(&v, &u1, &i);
    F(add)(&t, &p->z, &q->z);
    F(sqr)(&t, &t);
    F(sub)(&t, &t, &z1z1);
    F(sub)(&t, &t, &z2z2);
    F(mul)(&r->z, &t, &h);
    F(sqr)(&t, &rr);
    F(sub)(&t, &t, &j);
    F(sub)(&t, &t, &v);
    F(sub)(&r->x, &t, &v);
    F(sub)(&t, &v, &r->x);
    F(mul)(&t, &rr, &t);
    F(mul)(&s1, &s1, &j);
    F(dbl)(&s1, &s1);
    F(sub)(&r->y, &t, &s1);
}

/* madd-2007-bl: p Jacobian, q affine. */
EC_POINT_FN void EC_FN(jac_add_affine)(EC_TY(jac) *r, const EC_TY(jac) *p, const EC_TY(affine) *q)
{
    EC_F z1z1, u2, s2, h, hh, i, j, rr, v, t;
    if (EC_FN(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (EC_FN(jac_is_inf)(p)) {
        EC_FN(jac_from_affine)(r, q);
        return;
    }
    F(sqr)(&z1z1, &p->z);
    F(mul)(&u2, &q->x, &z1z1);
    F(mul)(&s2, &q->y, &p->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &p->x);
    F(sub)(&rr, &s2, &p->y);
    if (F(is_zero)(&h)) {
        if (F(is_zero)(&rr))
            EC_FN(jac_dbl)(r, p);
        else
            EC_FN(jac_set_inf)(r);
        return;
    }
    F(sqr)(&hh, &h);
    F(dbl)(&i, &hh);
    F(dbl)(&i, &i);
    F(mul)(&j, &h, &i);
    F(dbl)(&rr, &rr);
    F(mul)(&v, &p->x, &i);
    F(add)(&t, &p->z, &h);
    F(sqr)(&t, &t);
    F(sub)(&t, &t, &z1z1);
    F(sub)(&r->z, &t, &hh);
    F(sqr)(&t, &rr);
    F(sub)(&t, &t, &j);
    F(sub)(&t, &t, &v);
    F(sub)(&t, &t, &v);
    F(sub)(&v, &v, &t);
    F(mul)(&v, &rr, &v);
    F(mul)(&j, &p->y, &j);
    F(dbl)(&j, &j);
    F(sub)(&r->y, &v, &j);
    r->x = t;
}

/* Affine result; infinity -> (0, 0). One inversion. */
ARITH_FN void EC_FN(jac_to_affine)(EC_TY(affine) *r, const EC_TY(jac) *p)
{
    EC_F zi, zi2;
    if (EC_FN(jac_is_inf)(p)) {
        EC_FN(affine_set_inf)(r);
        return;
    }
    F(inv)(&zi, &p->z);
    F(sqr)(&zi2, &zi);
    F(mul)(&r->x, &p->x, &zi2);
    F(mul)(&zi2, &zi2, &zi);
    F(mul)(&r->y, &p->y, &zi2);
}

/* ---- XYZZ ---- */

ARITH_FN void EC_FN(xyzz_set_inf)(EC_TY(xyzz) *r)
{
    F(set_one)(&r->x);
    F(set_one)(&r->y);
    F(set_zero)(&r->zz);
    F(set_zero)(&r->zzz);
}

ARITH_FN int EC_FN(xyzz_is_inf)(const EC_TY(xyzz) *p)
{
    return F(is_zero)(&p->zz);
}

ARITH_FN void EC_FN(xyzz_from_affine)(EC_TY(xyzz) *r, const EC_TY(affine) *p)
{
    if (EC_FN(affine_is_inf)(p)) {
        EC_FN(xyzz_set_inf)(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    F(set_one)(&r->zz);
    F(set_one)(&r->zzz);
}

/* The interchange bytes of a validated affine point (x then y, Montgomery form, in range;
 * all zero: infinity) as an XYZZ point, and an affine point back to those bytes. */
ARITH_FN void EC_FN(xyzz_from_mont_bytes)(EC_TY(xyzz) *r, const unsigned char *bytes)
{
    EC_TY(affine) p;
    (void)F(from_mont_bytes)(&p.x, bytes);
    (void)F(from_mont_bytes)(&p.y, bytes + sizeof(EC_F));
    EC_FN(xyzz_from_affine)(r, &p);
}

ARITH_FN void EC_FN(affine_to_mont_bytes)(unsigned char *bytes, const EC_TY(affine) *p)
{
    F(to_mont_bytes)(bytes, &p->x);
    F(to_mont_bytes)(bytes + sizeof(EC_F), &p->y);
}

ARITH_FN void EC_FN(xyzz_neg)(EC_TY(xyzz) *r, const EC_TY(xyzz) *p)
{
    *r = *p;
    F(neg)(&r->y, &p->y);
}

/* dbl-2008-s-1 with a = 0. */
EC_POINT_FN void EC_FN(xyzz_dbl)(EC_TY(xyzz) *r, const EC_TY(xyzz) *p)
{
    EC_F u, v, w, s, m, t;
    F(dbl)(&u, &p->y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, &p->x, &v);
    F(sqr)(&m, &p->x);
    F(dbl)(&t, &m);
    F(add)(&m, &m, &t);
    F(mul)(&r->zz, &v, &p->zz);
    F(mul)(&r->zzz, &w, &p->zzz);
    F(mul)(&w, &w, &p->y);
    F(sqr)(&t, &m);
    F(sub)(&t, &t, &s);
    F(sub)(&r->x, &t, &s);
    F(sub)(&s, &s, &r->x);
    F(mul)(&s, &m, &s);
    F(sub)(&r->y, &s, &w);
}

/* mdbl-2008-s-1: doubling of an affine point (not infinity) into XYZZ. */
EC_POINT_FN void EC_FN(xyzz_dbl_affine)(EC_TY(xyzz) *r, const EC_TY(affine) *p)
{
    EC_F u, v, w, s, m, t;
    F(dbl)(&u, &p->y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, &p->x, &v);
    F(sqr)(&m, &p->x);
    F(dbl)(&t, &m);
    F(add)(&m, &m, &t);
    r->zz = v;
    r->zzz = w;
    F(mul)(&w, &w, &p->y);
    F(sqr)(&t, &m);
    F(sub)(&t, &t, &s);
    F(sub)(&r->x, &t, &s);
    F(sub)(&s, &s, &r->x);
    F(mul)(&s, &m, &s);
    F(sub)(&r->y, &s, &w);
}

/* add-2008-s. */
EC_POINT_FN void EC_FN(xyzz_add)(EC_TY(xyzz) *r, const EC_TY(xyzz) *p, const EC_TY(xyzz) *q)
{
    EC_F u1, u2, s1, s2, pp, ppp, rr, qq, t;
    if (EC_FN(xyzz_is_inf)(p)) {
        *r = *q;
        return;
    }
    if (EC_FN(xyzz_is_inf)(q)) {
        *r = *p;
        return;
    }
    F(mul)(&u1, &p->x, &q->zz);
    F(mul)(&u2, &q->x, &p->zz);
    F(mul)(&s1, &p->y, &q->zzz);
    F(mul)(&s2, &q->y, &p->zzz);
    F(sub)(&pp, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    if (F(is_zero)(&pp)) {
        if (F(is_zero)(&rr))
            EC_FN(xyzz_dbl)(r, p);
        else
            EC_FN(xyzz_set_inf)(r);
        return;
    }
    F(mul)(&r->zz, &p->zz, &q->zz);
    F(mul)(&r->zzz, &p->zzz, &q->zzz);
    F(sqr)(&t, &pp);        /* PP */
    F(mul)(&ppp, &pp, &t);  /* PPP */
    F(mul)(&r->zz, &r->zz, &t);
    F(mul)(&r->zzz, &r->zzz, &ppp);
    F(mul)(&qq, &u1, &t);   /* Q = U1*PP */
    F(sqr)(&t, &rr);
    F(sub)(&t, &t, &ppp);
    F(sub)(&t, &t, &qq);
    F(sub)(&r->x, &t, &qq);
    F(sub)(&qq, &qq, &r->x);
    F(mul)(&qq, &rr, &qq);
    F(mul)(&s1, &s1, &ppp);
    F(sub)(&r->y, &qq, &s1);
}

/* madd-2008-s: p XYZZ, q affine. */
EC_POINT_FN void EC_FN(xyzz_add_affine)(EC_TY(xyzz) *r, const EC_TY(xyzz) *p, const EC_TY(affine) *q)
{
    EC_F u2, s2, pp, ppp, rr, qq, t;
    if (EC_FN(affine_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (EC_FN(xyzz_is_inf)(p)) {
        EC_FN(xyzz_from_affine)(r, q);
        return;
    }
    F(mul)(&u2, &q->x, &p->zz);
    F(mul)(&s2, &q->y, &p->zzz);
    F(sub)(&pp, &u2, &p->x);
    F(sub)(&rr, &s2, &p->y);
    if (F(is_zero)(&pp)) {
        if (F(is_zero)(&rr))
            EC_FN(xyzz_dbl_affine)(r, q);
        else
            EC_FN(xyzz_set_inf)(r);
        return;
    }
    F(sqr)(&t, &pp);       /* PP */
    F(mul)(&ppp, &pp, &t); /* PPP */
    F(mul)(&r->zz, &p->zz, &t);
    F(mul)(&qq, &p->x, &t); /* Q = X1*PP */
    F(mul)(&u2, &p->y, &ppp); /* Y1*PPP, before r->y may overwrite p->y */
    F(mul)(&r->zzz, &p->zzz, &ppp);
    F(sqr)(&t, &rr);
    F(sub)(&t, &t, &ppp);
    F(sub)(&t, &t, &qq);
    F(sub)(&r->x, &t, &qq);
    F(sub)(&qq, &qq, &r->x);
    F(mul)(&qq, &rr, &qq);
    F(sub)(&r->y, &qq, &u2);
}

/* Affine result; infinity -> (0, 0). One inversion: with i = 1/ZZZ, 1/ZZ = (ZZ*i)^2. */
ARITH_FN void EC_FN(xyzz_to_affine)(EC_TY(affine) *r, const EC_TY(xyzz) *p)
{
    EC_F i, t;
    if (EC_FN(xyzz_is_inf)(p)) {
        EC_FN(affine_set_inf)(r);
        return;
    }
    F(inv)(&i, &p->zzz);
    F(mul)(&t, &p->zz, &i);
    F(sqr)(&t, &t);
    F(mul)(&r->x, &p->x, &t);
    F(mul)(&r->y, &p->y, &i);
}

/*
 * Batch normalisation: out[k] = affine(in[k]) for k < n with one field inversion.
 * scratch: n field elements supplied by the caller. out may not alias in.
 * Cost: 1 inversion + about 7n multiplications.
 */
ARITH_FN void EC_FN(xyzz_batch_to_affine)(EC_TY(affine) *out, const EC_TY(xyzz) *in, unsigned long n,
                                        EC_F *scratch)
{
    EC_F acc, inv, t;
    F(set_one)(&acc);
    for (unsigned long k = 0; k < n; k++) {
        scratch[k] = acc; /* product of the ZZZ before k */
        if (!EC_FN(xyzz_is_inf)(&in[k]))
            F(mul)(&acc, &acc, &in[k].zzz);
    }
    F(inv)(&inv, &acc);
    for (unsigned long k = n; k-- > 0;) {
        if (EC_FN(xyzz_is_inf)(&in[k])) {
            EC_FN(affine_set_inf)(&out[k]);
            continue;
        }
        EC_F i;
        F(mul)(&i, &inv, &scratch[k]); /* 1/ZZZ_k */
        F(mul)(&inv, &inv, &in[k].zzz);
        F(mul)(&t, &in[k].zz, &i);
        F(sqr)(&t, &t);
        F(mul)(&out[k].x, &in[k].x, &t);
        F(mul)(&out[k].y, &in[k].y, &i);
    }
}

/* Projective equality without inversion. */
ARITH_FN int EC_FN(xyzz_eq)(const EC_TY(xyzz) *p, const EC_TY(xyzz) *q)
{
    EC_F a, b;
    int pi = EC_FN(xyzz_is_inf)(p), qi = EC_FN(xyzz_is_inf)(q);
    if (pi || qi)
        return pi && qi;
    F(mul)(&a, &p->x, &q->zz);
    F(mul)(&b, &q->x, &p->zz);
    if (!F(eq)(&a, &b))
        return 0;
    F(mul)(&a, &p->y, &q->zzz);
    F(mul)(&b, &q->y, &p->zzz);
    return F(eq)(&a, &b);
}

/* r = k * p by left-to-right double-and-add; k has EC_SN little-endian limbs. Variable time. */
ARITH_FN void EC_FN(jac_mul_var)(EC_TY(jac) *r, const EC_TY(affine) *p, const arith_u64 *k)
{
    EC_TY(jac) acc;
    EC_FN(jac_set_inf)(&acc);
    for (int i = EC_SN - 1; i >= 0; i--) {
        for (int bit = 63; bit >= 0; bit--) {
            EC_FN(jac_dbl)(&acc, &acc);
            if ((k[i] >> bit) & 1)
                EC_FN(jac_add_affine)(&acc, &acc, p);
        }
    }
    *r = acc;
}

/* 1 if p is in the prime-order subgroup (r * p = infinity, r the scalar field modulus). */
ARITH_FN int EC_FN(affine_in_subgroup_var)(const EC_TY(affine) *p)
{
    const arith_u64 order[EC_SN] = EC_CONST(ORDER);
    EC_TY(jac) t;
    EC_FN(jac_mul_var)(&t, p, order);
    return EC_FN(jac_is_inf)(&t);
}

#undef EC_FN
#undef EC_TY
#undef EC_CONST
#undef F
#undef EC_T
#undef EC_F
#undef EC_K
#undef EC_SN
