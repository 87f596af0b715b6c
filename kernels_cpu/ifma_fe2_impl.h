/*
 * ifma_fe2_impl.h: Fq2 = Fq[u]/(u^2 + 1) on eight lanes, over the 8-lane base field of
 * ifma_fe_impl.h, with the base field's function names and contracts, so that
 * msm_ifma_impl.h runs G2 with the code it runs G1 with.
 *
 * What: one IF2_T holds eight Fq2 elements, limb-sliced: l[0 .. N-1] are the limbs of c0 and
 * l[N .. 2N-1] those of c1; c[0] and c[1] view the same registers as base-field values.
 * Method: as fe2_impl.h in the scalar form: Karatsuba multiplication (3 base
 * multiplications), the complex squaring (a0 + a1)(a0 - a1), 2 a0 a1 (2), inversion through
 * the norm (a0 - a1 u) / (a0^2 + a1^2) (one base inversion).
 * Lazy bounds (ifma_fe_impl.h: a base product of a < Ap and b < Bp is below 2p when
 * A B p < R'): mul forms a0 + a1 < 2Ap and b0 + b1 < 2Bp, so it needs 4 A B p < R' (BN254:
 * R' / p > 84, so A B <= 21; BLS12-381: R' / p > 2^34); sqr forms a0 + a1 and a0 + 4p - a1,
 * so it needs a1 < 4p and 2A (A + 4) p < R'. The sums of products are brought back below 2p
 * per coordinate by conditional subtractions, so every output is below 2p as in the base
 * field.
 * Why: the G2 MSM is a third of a BN254 Groth16 proof; on the 64-bit code an Fq2
 * multiplication costs three 64-bit Montgomery products, here three 8-lane IFMA ones.
 *
 * Instantiation: define IF2_T (type name, e.g. bn254_fq2x8), IF2_B (the base type of
 * ifma_fe_impl.h, e.g. bn254_fp8), IF2_N (its limbs) and IF2_K (constant prefix, e.g.
 * BN254_FP), then include after the base field. Compile only with -mavx512f -mavx512ifma.
 * Contract for every function unless stated: each coordinate in [0, 2p) with limbs < 2^52;
 * outputs the same; outputs may alias inputs. Constants (set_const) are 2N limbs, c0's first;
 * the kp of sub_if_ge and sub_lazy are base-field constants applied to both coordinates.
 */
#define IF2_FN(op) ARITH_CAT(IF2_T, ARITH_CAT(_, op))
#define IF2_BFN(op) ARITH_CAT(IF2_B, ARITH_CAT(_, op))
#define IF2_CONST(c) ARITH_CAT(IF2_K, ARITH_CAT(_IFMA_, c))

typedef struct {
    union {
        __m512i l[2 * IF2_N];
        IF2_B c[2];
    };
} IF2_T;

static inline void IF2_FN(set_const)(IF2_T *r, const uint64_t *c)
{
    IF2_BFN(set_const)(&r->c[0], c);
    IF2_BFN(set_const)(&r->c[1], c + IF2_N);
}

static inline void IF2_FN(set_one)(IF2_T *r)
{
    IF2_BFN(set_one)(&r->c[0]);
    for (int i = 0; i < IF2_N; i++)
        r->c[1].l[i] = _mm512_setzero_si512();
}

static inline void IF2_FN(sub_if_ge)(IF2_T *r, const IF2_T *t, const uint64_t *m)
{
    IF2_BFN(sub_if_ge)(&r->c[0], &t->c[0], m);
    IF2_BFN(sub_if_ge)(&r->c[1], &t->c[1], m);
}

static inline void IF2_FN(add)(IF2_T *r, const IF2_T *a, const IF2_T *b)
{
    IF2_BFN(add)(&r->c[0], &a->c[0], &b->c[0]);
    IF2_BFN(add)(&r->c[1], &a->c[1], &b->c[1]);
}

static inline void IF2_FN(sub)(IF2_T *r, const IF2_T *a, const IF2_T *b)
{
    IF2_BFN(sub)(&r->c[0], &a->c[0], &b->c[0]);
    IF2_BFN(sub)(&r->c[1], &a->c[1], &b->c[1]);
}

static inline void IF2_FN(add_raw)(IF2_T *r, const IF2_T *a, const IF2_T *b)
{
    IF2_BFN(add_raw)(&r->c[0], &a->c[0], &b->c[0]);
    IF2_BFN(add_raw)(&r->c[1], &a->c[1], &b->c[1]);
}

static inline void IF2_FN(sub_lazy)(IF2_T *r, const IF2_T *a, const IF2_T *b, const uint64_t *kp)
{
    IF2_BFN(sub_lazy)(&r->c[0], &a->c[0], &b->c[0], kp);
    IF2_BFN(sub_lazy)(&r->c[1], &a->c[1], &b->c[1], kp);
}

/* Lanes where both coordinates (each below 5p) are 0 mod p. */
static inline __mmask8 IF2_FN(zero_below_5p)(const IF2_T *v)
{
    return IF2_BFN(zero_below_5p)(&v->c[0]) & IF2_BFN(zero_below_5p)(&v->c[1]);
}

/* r = a b / R': c0 = a0 b0 - a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1. Inputs below Ap
 * and Bp per coordinate with 4 A B p < R' (header). */
static inline void IF2_FN(mul)(IF2_T *r, const IF2_T *a, const IF2_T *b)
{
    static const uint64_t p2[IF2_N] = IF2_CONST(2P), p4[IF2_N] = IF2_CONST(4P);
    IF2_B t0, t1, sa, sb, t2, both;
    IF2_BFN(add_raw)(&sa, &a->c[0], &a->c[1]);
    IF2_BFN(add_raw)(&sb, &b->c[0], &b->c[1]);
    IF2_BFN(mul)(&t0, &a->c[0], &b->c[0]);
    IF2_BFN(mul)(&t1, &a->c[1], &b->c[1]);
    IF2_BFN(mul)(&t2, &sa, &sb);
    IF2_BFN(add_raw)(&both, &t0, &t1);                  /* < 4p */
    IF2_BFN(sub_lazy)(&r->c[0], &t0, &t1, p2);          /* in (0, 4p) */
    IF2_BFN(sub_if_ge)(&r->c[0], &r->c[0], p2);         /* < 2p */
    IF2_BFN(sub_lazy)(&r->c[1], &t2, &both, p4);        /* in (0, 6p) */
    IF2_BFN(sub_if_ge)(&r->c[1], &r->c[1], p4);         /* < 4p */
    IF2_BFN(sub_if_ge)(&r->c[1], &r->c[1], p2);         /* < 2p */
}

/* r = a^2 / R': c0 = (a0 + a1)(a0 + 4p - a1), c1 = 2 a0 a1. Inputs below Ap per coordinate
 * with a1 < 4p and 2A (A + 4) p < R'. */
static inline void IF2_FN(sqr)(IF2_T *r, const IF2_T *a)
{
    static const uint64_t p2[IF2_N] = IF2_CONST(2P), p4[IF2_N] = IF2_CONST(4P);
    IF2_B s, d, m;
    IF2_BFN(add_raw)(&s, &a->c[0], &a->c[1]);
    IF2_BFN(sub_lazy)(&d, &a->c[0], &a->c[1], p4);
    IF2_BFN(mul)(&m, &a->c[0], &a->c[1]);
    IF2_BFN(mul)(&r->c[0], &s, &d);
    IF2_BFN(add_raw)(&r->c[1], &m, &m);                 /* < 4p */
    IF2_BFN(sub_if_ge)(&r->c[1], &r->c[1], p2);
}

static inline void IF2_FN(canonical)(IF2_T *r, const IF2_T *a)
{
    IF2_BFN(canonical)(&r->c[0], &a->c[0]);
    IF2_BFN(canonical)(&r->c[1], &a->c[1]);
}

/* Lanes whose value is 0. */
static inline __mmask8 IF2_FN(is_zero)(const IF2_T *a)
{
    return IF2_BFN(is_zero)(&a->c[0]) & IF2_BFN(is_zero)(&a->c[1]);
}

/* r = a^-1 = (a0 - a1 u) / (a0^2 + a1^2) (0 for a = 0), lane by lane. */
static inline void IF2_FN(inv)(IF2_T *r, const IF2_T *a)
{
    static const uint64_t p2[IF2_N] = IF2_CONST(2P);
    IF2_B n0, n1, ninv, neg1;
    for (int i = 0; i < IF2_N; i++)
        neg1.l[i] = _mm512_setzero_si512();
    IF2_BFN(sub_lazy)(&neg1, &neg1, &a->c[1], p2); /* 2p - a1 in (0, 2p] */
    IF2_BFN(sqr)(&n0, &a->c[0]);
    IF2_BFN(sqr)(&n1, &a->c[1]);
    IF2_BFN(add)(&n0, &n0, &n1);
    IF2_BFN(inv)(&ninv, &n0);
    IF2_BFN(mul)(&r->c[0], &a->c[0], &ninv);
    IF2_BFN(mul)(&r->c[1], &neg1, &ninv);
}

static inline void IF2_FN(enter)(IF2_T *r, const IF2_T *x)
{
    IF2_BFN(enter)(&r->c[0], &x->c[0]);
    IF2_BFN(enter)(&r->c[1], &x->c[1]);
}

static inline void IF2_FN(leave)(IF2_T *r, const IF2_T *x)
{
    IF2_BFN(leave)(&r->c[0], &x->c[0]);
    IF2_BFN(leave)(&r->c[1], &x->c[1]);
}

#undef IF2_FN
#undef IF2_BFN
#undef IF2_CONST
#undef IF2_T
#undef IF2_B
#undef IF2_N
#undef IF2_K
