/*
 * pairing_impl.h: the optimal ate pairing of one curve, included by host/groth16/pairing.c once per
 * curve (see its top for the method). Define PR_P (the arithmetic prefix: bn254 or
 * bls12_381), PR_K (the constants' prefix: BN254_PAIRING or BLS12_381_PAIRING) and PR_D_TWIST
 * (1: D-type twist y^2 = x^3 + b / xi, BN254; 0: M-type y^2 = x^3 + b xi, BLS12-381).
 */
#define PR_FP ARITH_CAT(PR_P, _fp)
#define PR_F2 ARITH_CAT(PR_P, _fq2)
#define PR_F12 ARITH_CAT(PR_P, _fq12)
#define PR_G1 ARITH_CAT(PR_P, _g1_affine)
#define PR_G2 ARITH_CAT(PR_P, _g2_affine)
#define FP(op) ARITH_CAT(PR_FP, ARITH_CAT(_, op))
#define F2(op) ARITH_CAT(PR_F2, ARITH_CAT(_, op))
#define F12(op) ARITH_CAT(PR_F12, ARITH_CAT(_, op))
#define PF(op) ARITH_CAT(PR_P, ARITH_CAT(_pairing_, op))
#define PK(name) ARITH_CAT(PR_K, ARITH_CAT(_, name))

/* The line through T with slope lambda (on the twist), evaluated at P and mapped into Fq12
 * up to a factor in Fq2 (which the final exponentiation removes):
 * D-type: yP + (-lambda xP + (lambda xT - yT) v) w;
 * M-type: xi yP + ((lambda xT - yT) v - lambda xP v^2) w. */
static void PF(line)(PR_F12 *l, const PR_F2 *lambda, const PR_G2 *t, const PR_G1 *p)
{
    PR_F2 c, d;
    F2(mul)(&c, lambda, &t->x);
    F2(sub)(&c, &c, &t->y);
    FP(mul)(&d.c0, &lambda->c0, &p->x);
    FP(mul)(&d.c1, &lambda->c1, &p->x);
    F2(neg)(&d, &d);
    memset(l, 0, sizeof *l); /* zero is the all-zero limbs in Montgomery form */
#if PR_D_TWIST
    l->c0.c0.c0 = p->y;
    l->c1.c0 = d;
    l->c1.c1 = c;
#else
    PR_F2 y = {p->y, p->y};
    FP(set_zero)(&y.c1);
    F2(mul_by_xi)(&l->c0.c0, &y);
    l->c1.c1 = c;
    l->c1.c2 = d;
#endif
}

/* One step of the Miller loop: the line through T and Q (the tangent at T when q is NULL) at
 * P into *l, then T = T + Q (or 2T). Returns 0, or -1 for a vertical line (T = -Q, or a
 * point of order 2: never for the prime-order subgroups). */
static int PF(step)(PR_G2 *t, const PR_G2 *q, const PR_G1 *p, PR_F12 *l)
{
    PR_F2 num, den, lambda, x3, y3;
    if (q) {
        F2(sub)(&num, &q->y, &t->y);
        F2(sub)(&den, &q->x, &t->x);
    } else {
        F2(sqr)(&num, &t->x);
        F2(add)(&den, &num, &num);
        F2(add)(&num, &den, &num);
        F2(dbl)(&den, &t->y);
    }
    if (!F2(inv)(&den, &den))
        return -1;
    F2(mul)(&lambda, &num, &den);
    PF(line)(l, &lambda, t, p);
    F2(sqr)(&x3, &lambda);
    F2(sub)(&x3, &x3, &t->x);
    F2(sub)(&x3, &x3, q ? &q->x : &t->x);
    F2(sub)(&y3, &t->x, &x3);
    F2(mul)(&y3, &lambda, &y3);
    F2(sub)(&t->y, &y3, &t->y);
    t->x = x3;
    return 0;
}

/* f = f_{loop, Q}(P) of the optimal ate pairing (before the final exponentiation). */
static int PF(miller)(PR_F12 *f, const PR_G1 *p, const PR_G2 *q)
{
    static const arith_u64 loop[2] = PK(LOOP);
    PR_G2 t = *q;
    PR_F12 l;
    F12(set_one)(f);
    for (int i = PK(LOOP_BITS) - 2; i >= 0; i--) {
        F12(sqr)(f, f);
        if (PF(step)(&t, NULL, p, &l) != 0)
            return -1;
        F12(mul)(f, f, &l);
        if ((loop[i / 64] >> (i % 64)) & 1) {
            if (PF(step)(&t, q, p, &l) != 0)
                return -1;
            F12(mul)(f, f, &l);
        }
    }
#if PR_D_TWIST
    /* BN: two more lines, with Q1 = pi(Q) and -Q2 = -pi^2(Q) on the twist:
     * pi(x, y) = (conj(x) g12, conj(y) g13), -pi^2(x, y) = (x g22, y) (g23 = -1) */
    static const arith_u64 g12[] = PK(GAMMA12), g13[] = PK(GAMMA13), g22[] = PK(GAMMA22);
    PR_G2 q1, q2;
    PR_F2 c;
    PR_FP s;
    F2(conj)(&q1.x, &q->x);
    F2(set_limbs)(&c, g12);
    F2(mul)(&q1.x, &q1.x, &c);
    F2(conj)(&q1.y, &q->y);
    F2(set_limbs)(&c, g13);
    F2(mul)(&q1.y, &q1.y, &c);
    FP(set_limbs)(&s, g22);
    FP(mul)(&q2.x.c0, &q->x.c0, &s);
    FP(mul)(&q2.x.c1, &q->x.c1, &s);
    q2.y = q->y;
    if (PF(step)(&t, &q1, p, &l) != 0)
        return -1;
    F12(mul)(f, f, &l);
    if (PF(step)(&t, &q2, p, &l) != 0)
        return -1;
    F12(mul)(f, f, &l);
#else
    F12(conj)(f, f); /* u < 0: f_{-|u|} is the inverse of f_{|u|} up to the final exponentiation */
#endif
    return 0;
}

/* f = f^((p^12 - 1) / r) */
static void PF(final_exp)(PR_F12 *f)
{
    static const arith_u64 e[] = PK(FINAL_EXP);
    F12(pow_var)(f, f, e, PK(FINAL_EXP_LIMBS));
}

/* The pairs' Miller values multiplied, then the final exponentiation. Pairs with a point at
 * infinity contribute 1. */
static int PF(product)(PR_F12 *out, const pairing_pair *pairs, size_t n)
{
    PR_F12 f, acc;
    F12(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        PR_G1 p;
        PR_G2 q;
        if (pairs[i].g1_inf || pairs[i].g2_inf)
            continue;
        if (!FP(from_mont_bytes)(&p.x, pairs[i].g1) || !FP(from_mont_bytes)(&p.y, pairs[i].g1 + sizeof(PR_FP)) ||
            !F2(from_mont_bytes)(&q.x, pairs[i].g2) || !F2(from_mont_bytes)(&q.y, pairs[i].g2 + sizeof(PR_F2)))
            return -1;
        if (pairs[i].negate_g1)
            FP(neg)(&p.y, &p.y);
        if (PF(miller)(&f, &p, &q) != 0)
            return -1;
        F12(mul)(&acc, &acc, &f);
    }
    PF(final_exp)(&acc);
    *out = acc;
    return 0;
}

#undef PR_FP
#undef PR_F2
#undef PR_F12
#undef PR_G1
#undef PR_G2
#undef FP
#undef F2
#undef F12
#undef PF
#undef PK
#undef PR_P
#undef PR_K
#undef PR_D_TWIST
