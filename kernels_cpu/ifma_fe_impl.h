/*
 * ifma_fe_impl.h: 8-lane prime-field arithmetic with AVX-512 IFMA (vpmadd52luq/vpmadd52huq),
 * written once for every field that has IFMA constants in constants_gen.h.
 *
 * What: one value of type IF_T holds eight field elements, limb-sliced: register l[i] holds
 * limb i of all eight lanes. Limbs are radix 2^52 (IF_N limbs), Montgomery form with
 * R' = 2^(52*IF_N) (2^260 for BN254 Fq, 2^416 for BLS12-381 Fq).
 * Method: operand-scanning Montgomery multiplication. Each row adds a_i * b (low and high
 * 52-bit halves of the 104-bit products go to neighbouring limbs), then m * p with
 * m = t_0 * (-p^-1) mod 2^52, then drops the zero low limb. Limbs are 64-bit lanes, so the
 * unpropagated sums (at most 4 * IF_N products of 2^52 per limb, below 2^57) need no carry
 * handling until the end of the row loop.
 * Lazy reduction: 4p < R', so with inputs in [0, 2p) the Montgomery product is below
 * (4p^2 + R'p) / R' < 2p without a final subtraction. Every function here keeps values in
 * [0, 2p) with normalised limbs (< 2^52); canonical() gives [0, p) where a unique
 * representation matters (zero tests, leaving the IFMA form).
 * Cost: mul = 4 * IF_N^2 IFMA instructions for 8 lanes, sqr = 3 * IF_N^2 + IF_N; add/sub = two
 * carry chains of IF_N.
 * Measured (Zen 4, one core, 8 lanes in flight): BN254 about 4.4 ns, BLS12-381 about 10.6 ns
 * per lane and multiplication, against about 30 and 60 ns for the portable 64-bit code.
 * Why: 52-bit multiply-accumulate on eight lanes is the widest integer multiplier an x86 core
 * has; the MSM keeps its operands in this form from preparation to the bucket reduction.
 *
 * Instantiation: define IF_T (type name, e.g. bn254_fp8), IF_N (52-bit limbs) and IF_K
 * (constant prefix, e.g. BN254_FP), then include. Compile only with -mavx512f -mavx512ifma.
 * Optionally IF_SCALAR (the field's 64-bit type of fe_impl.h, e.g. bn254_fp, declared
 * before), IF_SCALAR_CONST(c) (its constants, e.g. BN254_FP_##c) and IF_N64 (its limbs): inv
 * then shares one scalar inversion among the eight lanes instead of exponentiating each.
 *
 * Contract for every function unless stated: inputs in [0, 2p) with limbs < 2^52; outputs the
 * same; outputs may alias inputs.
 */
#include <immintrin.h>
#include <stdint.h>

#include "arith/compat.h"
#include "arith/constants_gen.h"

#ifndef ARITH_CAT
#define ARITH_CAT_(a, b) a##b
#define ARITH_CAT(a, b) ARITH_CAT_(a, b)
#endif

#ifndef IFMA_COMMON
#define IFMA_COMMON
#define IFMA_MASK52 ((UINT64_C(1) << 52) - 1)

/* Radix conversions of one non-negative integer: n64 64-bit limbs <-> n52 52-bit limbs. */
static inline void ifma_limbs_64_to_52(uint64_t *out, int n52, const uint64_t *in, int n64)
{
    for (int i = 0; i < n52; i++) {
        int bit = 52 * i, word = bit / 64, off = bit % 64;
        uint64_t v = word < n64 ? in[word] >> off : 0;
        if (off > 12 && word + 1 < n64)
            v |= in[word + 1] << (64 - off);
        out[i] = v & IFMA_MASK52;
    }
}

/* ifma_limbs_64_to_52 in eight lanes at once: word[w] holds 64-bit limb w of every lane,
 * out[i] gets 52-bit limb i. (ntt_ifma_impl.h's from_words is its BN254 case, written out with
 * immediate shifts for the NTT's loads.) */
static inline void ifma_limbs8_64_to_52(__m512i *out, int n52, const __m512i *word, int n64)
{
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    for (int i = 0; i < n52; i++) {
        int bit = 52 * i, w = bit / 64, off = bit % 64;
        __m512i v = w < n64 ? _mm512_srlv_epi64(word[w], _mm512_set1_epi64(off)) : _mm512_setzero_si512();
        if (off > 12 && w + 1 < n64)
            v = _mm512_or_si512(v, _mm512_sllv_epi64(word[w + 1], _mm512_set1_epi64(64 - off)));
        out[i] = _mm512_and_si512(v, mask);
    }
}

/* In place: row k, element j -> row j, element k (8 x 8 64-bit words): unpack pairs, then
 * 128-bit halves, then 256-bit halves (24 shuffles). */
static inline __attribute__((always_inline)) void ifma_transpose8(__m512i *r)
{
    const __m512i even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    __m512i t[8], u[8];
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 2; k++)
        for (int h = 0; h < 2; h++) {
            u[4 * k + h] = _mm512_permutex2var_epi64(t[4 * k + h], even, t[4 * k + 2 + h]);
            u[4 * k + 2 + h] = _mm512_permutex2var_epi64(t[4 * k + h], odd, t[4 * k + 2 + h]);
        }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm512_shuffle_i64x2(u[k], u[k + 4], 0x44);
        r[k + 4] = _mm512_shuffle_i64x2(u[k], u[k + 4], 0xee);
    }
}

static inline void ifma_limbs_52_to_64(uint64_t *out, int n64, const uint64_t *in, int n52)
{
    for (int i = 0; i < n64; i++)
        out[i] = 0;
    for (int i = 0; i < n52; i++) {
        int bit = 52 * i, word = bit / 64, off = bit % 64;
        if (word < n64)
            out[word] |= in[i] << off;
        if (off > 12 && word + 1 < n64)
            out[word + 1] |= in[i] >> (64 - off);
    }
}
#endif

#define IF_FN(op) ARITH_CAT(IF_T, ARITH_CAT(_, op))
#define IF_CONST(c) ARITH_CAT(IF_K, ARITH_CAT(_IFMA_, c))

typedef struct {
    __m512i l[IF_N];
} IF_T;

/* Every lane = the constant c (IF_N normalised limbs). */
static inline void IF_FN(set_const)(IF_T *r, const uint64_t *c)
{
    for (int i = 0; i < IF_N; i++)
        r->l[i] = _mm512_set1_epi64((long long)c[i]);
}

static inline void IF_FN(set_one)(IF_T *r)
{
    static const uint64_t one[IF_N] = IF_CONST(ONE);
    IF_FN(set_const)(r, one);
}

/* r = t - m in lanes where t >= m, else t. t normalised (any value below 2^(52*IF_N)). */
static inline void IF_FN(sub_if_ge)(IF_T *r, const IF_T *t, const uint64_t *m)
{
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    __m512i s[IF_N], borrow = _mm512_setzero_si512();
    for (int i = 0; i < IF_N; i++) {
        __m512i d = _mm512_sub_epi64(_mm512_sub_epi64(t->l[i], _mm512_set1_epi64((long long)m[i])), borrow);
        borrow = _mm512_srli_epi64(d, 63);
        s[i] = _mm512_and_si512(d, mask);
    }
    __mmask8 ge = _mm512_cmpeq_epi64_mask(borrow, _mm512_setzero_si512());
    for (int i = 0; i < IF_N; i++)
        r->l[i] = _mm512_mask_blend_epi64(ge, t->l[i], s[i]);
}

static inline void IF_FN(add)(IF_T *r, const IF_T *a, const IF_T *b)
{
    static const uint64_t two_p[IF_N] = IF_CONST(2P);
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    IF_T t;
    __m512i carry = _mm512_setzero_si512();
    for (int i = 0; i < IF_N; i++) {
        __m512i s = _mm512_add_epi64(_mm512_add_epi64(a->l[i], b->l[i]), carry);
        carry = _mm512_srli_epi64(s, 52);
        t.l[i] = _mm512_and_si512(s, mask);
    }
    IF_FN(sub_if_ge)(r, &t, two_p); /* a + b < 4p < 2^(52*IF_N): no carry out */
}

static inline void IF_FN(sub)(IF_T *r, const IF_T *a, const IF_T *b)
{
    static const uint64_t two_p[IF_N] = IF_CONST(2P);
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    __m512i d[IF_N], borrow = _mm512_setzero_si512(), carry = _mm512_setzero_si512();
    for (int i = 0; i < IF_N; i++) {
        __m512i s = _mm512_sub_epi64(_mm512_sub_epi64(a->l[i], b->l[i]), borrow);
        borrow = _mm512_srli_epi64(s, 63);
        d[i] = _mm512_and_si512(s, mask);
    }
    __mmask8 negative = _mm512_cmpneq_epi64_mask(borrow, _mm512_setzero_si512());
    for (int i = 0; i < IF_N; i++) { /* a - b + 2p in (0, 2p) where a < b */
        __m512i s = _mm512_add_epi64(_mm512_add_epi64(d[i], _mm512_set1_epi64((long long)two_p[i])), carry);
        carry = _mm512_srli_epi64(s, 52);
        r->l[i] = _mm512_mask_blend_epi64(negative, d[i], _mm512_and_si512(s, mask));
    }
}

/* Lazy forms for callers that track bounds (msm_ifma_impl.h). One carry chain each, no
 * reduction: r = a + b, and r = a + kp - b for a multiple kp of p above b (arithmetic shifts
 * carry the negative intermediate limbs). The results stay below 2^(52*IF_N). */
static inline void IF_FN(add_raw)(IF_T *r, const IF_T *a, const IF_T *b)
{
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    __m512i carry = _mm512_setzero_si512();
    for (int i = 0; i < IF_N; i++) {
        __m512i s = _mm512_add_epi64(_mm512_add_epi64(a->l[i], b->l[i]), carry);
        carry = _mm512_srli_epi64(s, 52);
        r->l[i] = _mm512_and_si512(s, mask);
    }
}

static inline void IF_FN(sub_lazy)(IF_T *r, const IF_T *a, const IF_T *b, const uint64_t *kp)
{
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    __m512i carry = _mm512_setzero_si512();
    for (int i = 0; i < IF_N; i++) {
        __m512i s = _mm512_add_epi64(_mm512_sub_epi64(_mm512_add_epi64(a->l[i], _mm512_set1_epi64((long long)kp[i])),
                                                      b->l[i]),
                                     carry);
        carry = _mm512_srai_epi64(s, 52);
        r->l[i] = _mm512_and_si512(s, mask);
    }
}

/* Lanes where a equals the constant c limb for limb (normalised limbs: the same integer). */
static inline __mmask8 IF_FN(eq_const)(const IF_T *a, const uint64_t *c)
{
    __m512i acc = _mm512_setzero_si512();
    for (int i = 0; i < IF_N; i++)
        acc = _mm512_or_si512(acc, _mm512_xor_si512(a->l[i], _mm512_set1_epi64((long long)c[i])));
    return _mm512_cmpeq_epi64_mask(acc, _mm512_setzero_si512());
}

/* Lanes of v (below 5p, as the lazy differences a + 4p - b of msm_ifma_impl.h) that are 0 mod
 * p: v is 0, p, 2p, 3p or 4p. */
static inline __mmask8 IF_FN(zero_below_5p)(const IF_T *v)
{
    static const uint64_t p1[IF_N] = IF_CONST(P), p2[IF_N] = IF_CONST(2P), p3[IF_N] = IF_CONST(3P),
                          p4[IF_N] = IF_CONST(4P), zero[IF_N] = {0};
    return IF_FN(eq_const)(v, zero) | IF_FN(eq_const)(v, p1) | IF_FN(eq_const)(v, p2) | IF_FN(eq_const)(v, p3) |
           IF_FN(eq_const)(v, p4);
}

/* r = a * b / R' mod p, in [0, 2p). Holds for any inputs a < A p, b < B p with A B p < R'
 * (then a b / R' < p): the lazy forms rely on that. */
static inline void IF_FN(mul)(IF_T *r, const IF_T *a, const IF_T *b)
{
    static const uint64_t p[IF_N] = IF_CONST(P);
    const __m512i zero = _mm512_setzero_si512(), inv = _mm512_set1_epi64((long long)IF_CONST(INV));
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    __m512i t[IF_N + 1];
    for (int j = 0; j <= IF_N; j++)
        t[j] = zero;
    for (int i = 0; i < IF_N; i++) {
        for (int j = 0; j < IF_N; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], a->l[i], b->l[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a->l[i], b->l[j]);
        }
        __m512i m = _mm512_madd52lo_epu64(zero, t[0], inv);
        for (int j = 0; j < IF_N; j++) {
            __m512i pj = _mm512_set1_epi64((long long)p[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pj);
        }
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52)); /* t[0] mod 2^52 is now 0 */
        for (int j = 0; j < IF_N; j++)
            t[j] = t[j + 1];
        t[IF_N] = zero;
    }
    for (int j = 0; j + 1 < IF_N; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        r->l[j] = _mm512_and_si512(t[j], mask);
    }
    r->l[IF_N - 1] = t[IF_N - 1]; /* the value is below 2p < 2^(52*IF_N): the top limb fits */
}

/* r = a^2 / R' mod p, in [0, 2p), same input bounds as mul. Product first (each off-diagonal
 * product once, then doubled, then the squares), then IF_N reduction rows (separated operand
 * scanning): 200 IFMA instructions for 8 limbs against mul's 256, 80 against 100 for 5. */
static inline void IF_FN(sqr)(IF_T *r, const IF_T *a)
{
    static const uint64_t p[IF_N] = IF_CONST(P);
    const __m512i zero = _mm512_setzero_si512(), inv = _mm512_set1_epi64((long long)IF_CONST(INV));
    const __m512i mask = _mm512_set1_epi64((long long)IFMA_MASK52);
    __m512i t[2 * IF_N];
    for (int k = 0; k < 2 * IF_N; k++)
        t[k] = zero;
    for (int i = 0; i < IF_N; i++)
        for (int j = i + 1; j < IF_N; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a->l[i], a->l[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a->l[i], a->l[j]);
        }
    for (int k = 0; k < 2 * IF_N; k++)
        t[k] = _mm512_add_epi64(t[k], t[k]);
    for (int i = 0; i < IF_N; i++) {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a->l[i], a->l[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a->l[i], a->l[i]);
    }
    for (int i = 0; i < IF_N; i++) { /* limbs below 2^58 throughout */
        __m512i m = _mm512_madd52lo_epu64(zero, t[i], inv);
        for (int j = 0; j < IF_N; j++) {
            __m512i pj = _mm512_set1_epi64((long long)p[j]);
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, pj);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, pj);
        }
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52)); /* t[i] mod 2^52 is now 0 */
    }
    for (int j = IF_N; j + 1 < 2 * IF_N; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        r->l[j - IF_N] = _mm512_and_si512(t[j], mask);
    }
    r->l[IF_N - 1] = t[2 * IF_N - 1];
}

/* The unique representative in [0, p). */
static inline void IF_FN(canonical)(IF_T *r, const IF_T *a)
{
    static const uint64_t p[IF_N] = IF_CONST(P);
    IF_FN(sub_if_ge)(r, a, p);
}

/* Lanes whose value is 0 mod p. */
static inline __mmask8 IF_FN(is_zero)(const IF_T *a)
{
    IF_T c;
    __m512i acc = _mm512_setzero_si512();
    IF_FN(canonical)(&c, a);
    for (int i = 0; i < IF_N; i++)
        acc = _mm512_or_si512(acc, c.l[i]);
    return _mm512_cmpeq_epi64_mask(acc, _mm512_setzero_si512());
}

/* Lanes k: r = x_k * R' from x_k * R, the element of the 64-bit Montgomery form given as
 * IF_N 52-bit limbs of its integer value (ifma_limbs_64_to_52). */
static inline void IF_FN(enter)(IF_T *r, const IF_T *x)
{
    static const uint64_t to[IF_N] = IF_CONST(TO);
    IF_T c;
    IF_FN(set_const)(&c, to);
    IF_FN(mul)(r, x, &c);
}

/* Lanes k: the canonical 64-bit Montgomery value x_k * R (as 52-bit limbs) from x_k * R'. */
static inline void IF_FN(leave)(IF_T *r, const IF_T *x)
{
    static const uint64_t from[IF_N] = IF_CONST(FROM);
    IF_T c;
    IF_FN(set_const)(&c, from);
    IF_FN(mul)(r, x, &c);
    IF_FN(canonical)(r, r);
}

#ifndef IF_SCALAR
/* r = a^(p-2) = a^-1 (0 for a = 0), lane by lane; 4-bit fixed windows over p - 2: about 320
 * dependent 8-lane products. */
static inline void IF_FN(inv)(IF_T *r, const IF_T *a)
{
    static const uint64_t e[IF_N] = IF_CONST(P_MINUS_2);
    IF_T table[16], acc;
    IF_FN(set_one)(&table[0]);
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        IF_FN(mul)(&table[i], &table[i - 1], a);
    IF_FN(set_one)(&acc);
    int started = 0;
    for (int bit = 52 * IF_N - 4; bit >= 0; bit -= 4) {
        unsigned nibble = (unsigned)((e[bit / 52] >> (bit % 52)) & 15); /* 4 divides 52: within a limb */
        if (started)
            for (int k = 0; k < 4; k++)
                IF_FN(sqr)(&acc, &acc);
        if (nibble) {
            IF_FN(mul)(&acc, &acc, &table[nibble]);
            started = 1;
        }
    }
    *r = acc;
}
#else
/* Lanes shifted by s toward higher lanes (up) or lower lanes (down); the lanes left empty
 * take the constant fill (normalised limbs). */
static inline void IF_FN(shift_lanes)(IF_T *r, const IF_T *a, int s, int up, const uint64_t *fill)
{
    long long idx[8];
    unsigned keep = 0;
    for (int k = 0; k < 8; k++) {
        int from = up ? k - s : k + s;
        idx[k] = from >= 0 && from < 8 ? from : 0;
        keep |= (unsigned)(from >= 0 && from < 8) << k;
    }
    __m512i perm = _mm512_loadu_si512(idx);
    for (int i = 0; i < IF_N; i++)
        r->l[i] = _mm512_mask_permutexvar_epi64(_mm512_set1_epi64((long long)fill[i]), (__mmask8)keep, perm, a->l[i]);
}

/* The scalar inverse of the 64-bit arithmetic (IF_SCALAR, fe_impl.h: Montgomery with
 * R = 2^(64 IF_N64)) of a nonzero x: divsteps (arith/fe_safegcd.h). Measured (Zen 3, mulx
 * multiplication): 0.9 us against 6.8 us for Fermat in BN254's Fp, 1.5 against 29 us in
 * BLS12-381's. */
static inline void IF_FN(scalar_inv)(IF_SCALAR *r, const IF_SCALAR *x)
{
    (void)ARITH_CAT(IF_SCALAR, _inv)(r, x);
}

/* r = a^-1 lane by lane (0 for a = 0) with one scalar inversion for the eight lanes
 * (Montgomery's trick across lanes): prefix and suffix products by three lane shifts each,
 * the total product leaves the IFMA form, is inverted in the 64-bit arithmetic (divsteps)
 * and enters
 * again; lane k's inverse is (product of the lanes before k) (product of those after k)
 * total^-1. Zero lanes count as one in the products and give 0. */
static inline void IF_FN(inv)(IF_T *r, const IF_T *a)
{
    static const uint64_t one[IF_N] = IF_CONST(ONE);
    IF_T x, pre, suf, t, total;
    IF_SCALAR s;
    uint64_t lanes[IF_N][8], limbs[IF_N], limbs64[IF_N64];
    __mmask8 zero = IF_FN(is_zero)(a);
    for (int i = 0; i < IF_N; i++)
        x.l[i] = _mm512_mask_blend_epi64(zero, a->l[i], _mm512_set1_epi64((long long)one[i]));
    pre = suf = x;
    for (int sh = 1; sh < 8; sh *= 2) { /* inclusive scans */
        IF_FN(shift_lanes)(&t, &pre, sh, 1, one);
        IF_FN(mul)(&pre, &pre, &t);
        IF_FN(shift_lanes)(&t, &suf, sh, 0, one);
        IF_FN(mul)(&suf, &suf, &t);
    }
    IF_FN(leave)(&total, &pre); /* lane 7: the product of all lanes, 64-bit Montgomery, canonical */
    for (int i = 0; i < IF_N; i++)
        _mm512_storeu_si512(lanes[i], total.l[i]);
    for (int i = 0; i < IF_N; i++)
        limbs[i] = lanes[i][7];
    ifma_limbs_52_to_64(limbs64, IF_N64, limbs, IF_N);
    ARITH_CAT(IF_SCALAR, _set_limbs)(&s, limbs64);
    IF_FN(scalar_inv)(&s, &s);
    ifma_limbs_64_to_52(limbs, IF_N, s.l, IF_N64);
    IF_FN(set_const)(&total, limbs);
    IF_FN(enter)(&total, &total);
    IF_FN(shift_lanes)(&pre, &pre, 1, 1, one); /* exclusive scans */
    IF_FN(shift_lanes)(&suf, &suf, 1, 0, one);
    IF_FN(mul)(&t, &pre, &suf);
    IF_FN(mul)(&t, &t, &total);
    for (int i = 0; i < IF_N; i++)
        r->l[i] = _mm512_maskz_mov_epi64((__mmask8)~zero, t.l[i]);
}
#endif

#undef IF_FN
#undef IF_CONST
#undef IF_T
#undef IF_N
#undef IF_K
#undef IF_SCALAR
#undef IF_SCALAR_CONST
#undef IF_N64
