/*
 * fe_impl.h: prime-field arithmetic in Montgomery form, written once for every field.
 *
 * What: add, sub, neg, dbl, mul, sqr, pow, inv, comparisons and conversions for a prime field
 * of FE_N 64-bit limbs, little-endian, Montgomery form with R = 2^(64*FE_N).
 * Method: multiplication is CIOS Montgomery in the "no final carry" variant (valid because
 * every modulus we use has a top limb below 2^63 - 1, so the running sum fits in FE_N limbs),
 * followed by one conditional subtraction. Inversion is Fermat (a^(p-2)) in OpenCL C and
 * divsteps (fe_safegcd.h) in host C, the same bits; inverse of zero is the documented error
 * value zero, with a return code of 0.
 * Cost: mul = 2*FE_N^2 word products; Fermat's inv = about 1.5*bits multiplications.
 * Why: one source compiles as C11 on the host and as OpenCL C 1.2 (see compat.h), so every
 * device computes the very same bits.
 *
 * Instantiation: define FE_T (type name, e.g. bn254_fp), FE_N (limbs) and FE_K (constant
 * prefix from constants_gen.h, e.g. BN254_FP), then include this file. It undefines them.
 *
 * Contract for every function unless stated otherwise: inputs are fully reduced (< p) and in
 * Montgomery form; outputs are fully reduced and in Montgomery form; outputs may alias inputs.
 */
#include "compat.h"
#include "constants_gen.h"
#include "ptx_words.h"
#if !ARITH_IS_OPENCL && defined(__SIZEOF_INT128__)
#include "fe_safegcd.h" /* host C: inversion by divsteps */
#endif

#ifndef ARITH_CAT
#define ARITH_CAT_(a, b) a##b
#define ARITH_CAT(a, b) ARITH_CAT_(a, b)
#endif

#define FE_FN(op) ARITH_CAT(FE_T, ARITH_CAT(_, op))
#define FE_CONST(c) ARITH_CAT(FE_K, ARITH_CAT(_, c))

typedef struct {
    arith_u64 l[FE_N];
} FE_T;

ARITH_FN void FE_FN(set_zero)(FE_T *r)
{
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        r->l[i] = 0;
}

ARITH_FN void FE_FN(set_one)(FE_T *r)
{
    const arith_u64 one[FE_N] = FE_CONST(ONE);
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        r->l[i] = one[i];
}

/* Raw limbs -> element without any conversion (the caller guarantees the contract). */
ARITH_FN void FE_FN(set_limbs)(FE_T *r, const arith_u64 *limbs)
{
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        r->l[i] = limbs[i];
}

ARITH_FN int FE_FN(is_zero)(const FE_T *a)
{
    arith_u64 acc = 0;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        acc |= a->l[i];
    return acc == 0;
}

ARITH_FN int FE_FN(eq)(const FE_T *a, const FE_T *b)
{
    arith_u64 acc = 0;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

/* Whether raw limbs (any form) are < p. */
ARITH_FN int FE_FN(limbs_are_reduced)(const arith_u64 *limbs)
{
    const arith_u64 p[FE_N] = FE_CONST(P);
    arith_u64 borrow = 0;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        (void)arith_sbb(limbs[i], p[i], borrow, &borrow);
    return borrow != 0;
}

/* r = t - p if t >= p, else t. Requires t < 2p. */
ARITH_FN void FE_FN(reduce_once)(FE_T *r, const arith_u64 *t)
{
    const arith_u64 p[FE_N] = FE_CONST(P);
    arith_u64 s[FE_N];
    arith_u64 borrow = 0;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        s[i] = arith_sbb(t[i], p[i], borrow, &borrow);
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        r->l[i] = borrow ? t[i] : s[i];
}

#if !ARITH_IS_OPENCL && defined(FE_ADX) && (FE_N == 4 || FE_N == 6)
/* Host translation units of the ADX tier (kernels_cpu/, dispatched only where the processor
 * has ADX and BMI2) define FE_ADX and include kernels_cpu/fe_adx_gen.h first: addition,
 * subtraction and CIOS multiplication in inline assembly (adc/sbb chains and cmov, mulx/adcx/
 * adox), the same bits. gcc 12 turns the carry chains of the C below into setb and add $0xff
 * per limb, and the multiplication into about 1.5x the time for 6 limbs. */
#define FE_ASM_FN(op) ARITH_CAT(ARITH_CAT(fe_adx_, op), FE_N)
#elif !ARITH_IS_OPENCL && defined(FE_ARM64) && (FE_N == 4 || FE_N == 6)
/* The portable tier's translation units on AArch64 define FE_ARM64 and include
 * kernels_cpu/fe_arm64_gen.h first (kernels_cpu/portable_fe_backend.h): the same functions
 * with mul/umulh and adds/adcs/sbcs/csel, the same bits (gcc 12 rebuilds every carry of the C
 * below with cinc). */
#define FE_ASM_FN(op) ARITH_CAT(ARITH_CAT(fe_arm64_, op), FE_N)
#endif
#if ARITH_PTX_WORDS
/* NVIDIA's carry chains (ptx_words.h; HPR_CL_PTX on the device, HPR_PTX_EMULATE in the host's
 * test): addition, subtraction and CIOS multiplication over FE_W = 2*FE_N 32-bit words, the
 * very same bits as the portable code. */
#define FE_W (2 * FE_N)

/* FE_N 64-bit limbs as FE_W 32-bit words, and back (little-endian both). */
ARITH_FN void FE_FN(to_words)(arith_u32 *w, const arith_u64 *limbs)
{
    ARITH_UNROLL
    for (int j = 0; j < FE_N; j++) {
        w[2 * j] = (arith_u32)limbs[j];
        w[2 * j + 1] = (arith_u32)(limbs[j] >> 32);
    }
}

ARITH_FN void FE_FN(from_words)(FE_T *r, const arith_u32 *w)
{
    ARITH_UNROLL
    for (int j = 0; j < FE_N; j++)
        r->l[j] = (arith_u64)w[2 * j] | ((arith_u64)w[2 * j + 1] << 32);
}

ARITH_FN void FE_FN(modulus_words)(arith_u32 *w)
{
    const arith_u64 p[FE_N] = FE_CONST(P);
    FE_FN(to_words)(w, p);
}

/* r = t - p if t >= p, else t, for words t < 2p (FE_W of them). */
ARITH_FN void FE_FN(reduce_words)(FE_T *r, const arith_u32 *t)
{
    arith_u32 p[FE_W], s[FE_W], cf = 0;
    FE_FN(modulus_words)(p);
    s[0] = ptx_sub_cc(t[0], p[0], &cf);
    ARITH_UNROLL
    for (int j = 1; j < FE_W; j++)
        s[j] = ptx_subc_cc(t[j], p[j], &cf);
    arith_u32 keep_t = ptx_subc(0, 0, &cf); /* all ones where t < p */
    ARITH_UNROLL
    for (int j = 0; j < FE_W; j++)
        s[j] = (t[j] & keep_t) | (s[j] & ~keep_t);
    FE_FN(from_words)(r, s);
}

ARITH_FN void FE_FN(add)(FE_T *r, const FE_T *a, const FE_T *b)
{
    arith_u32 x[FE_W], y[FE_W], t[FE_W], cf = 0;
    FE_FN(to_words)(x, a->l);
    FE_FN(to_words)(y, b->l);
    t[0] = ptx_add_cc(x[0], y[0], &cf);
    ARITH_UNROLL
    for (int j = 1; j < FE_W; j++)
        t[j] = ptx_addc_cc(x[j], y[j], &cf); /* a + b < 2p < 2^(32*FE_W): the last carry is 0 */
    FE_FN(reduce_words)(r, t);
}

ARITH_FN void FE_FN(sub)(FE_T *r, const FE_T *a, const FE_T *b)
{
    arith_u32 x[FE_W], y[FE_W], p[FE_W], t[FE_W], cf = 0;
    FE_FN(to_words)(x, a->l);
    FE_FN(to_words)(y, b->l);
    FE_FN(modulus_words)(p);
    t[0] = ptx_sub_cc(x[0], y[0], &cf);
    ARITH_UNROLL
    for (int j = 1; j < FE_W; j++)
        t[j] = ptx_subc_cc(x[j], y[j], &cf);
    arith_u32 mask = ptx_subc(0, 0, &cf); /* all ones where a < b: add p back */
    t[0] = ptx_add_cc(t[0], p[0] & mask, &cf);
    ARITH_UNROLL
    for (int j = 1; j < FE_W; j++)
        t[j] = ptx_addc_cc(t[j], p[j] & mask, &cf);
    FE_FN(from_words)(r, t);
}

/* t[0..FE_W] += v * w (FE_W words of v, one word w), in two carry chains: the products of the
 * even words of v (low half into t[k], high half into t[k+1]), then those of the odd words.
 * Each chain is one low and one high half of the same product after another, which ptxas
 * fuses into one wide multiply-add with carry for sm_70 and later. The sum must fit FE_W + 1
 * words (it does in CIOS: see mul): no carry leaves t[FE_W]. */
ARITH_FN void FE_FN(mac_words)(arith_u32 *t, const arith_u32 *v, arith_u32 w)
{
    arith_u32 cf = 0;
    t[0] = ptx_mad_lo_cc(v[0], w, t[0], &cf);
    t[1] = ptx_madc_hi_cc(v[0], w, t[1], &cf);
    ARITH_UNROLL
    for (int k = 2; k < FE_W; k += 2) {
        t[k] = ptx_madc_lo_cc(v[k], w, t[k], &cf);
        t[k + 1] = ptx_madc_hi_cc(v[k], w, t[k + 1], &cf);
    }
    t[FE_W] = ptx_addc(t[FE_W], 0, &cf);
    t[1] = ptx_mad_lo_cc(v[1], w, t[1], &cf);
    t[2] = ptx_madc_hi_cc(v[1], w, t[2], &cf);
    ARITH_UNROLL
    for (int k = 3; k + 1 < FE_W; k += 2) {
        t[k] = ptx_madc_lo_cc(v[k], w, t[k], &cf);
        t[k + 1] = ptx_madc_hi_cc(v[k], w, t[k + 1], &cf);
    }
    t[FE_W - 1] = ptx_madc_lo_cc(v[FE_W - 1], w, t[FE_W - 1], &cf);
    t[FE_W] = ptx_madc_hi(v[FE_W - 1], w, t[FE_W], &cf);
}

/* CIOS, one word of b per step: t += x*y_i, m = t_0 * (-p^-1 mod 2^32), t += m*p (t_0 becomes
 * 0), t shifted down a word. t has FE_W + 1 words: before the shift t < 2p*2^32 <
 * 2^(32*(FE_W+1)) (inputs < p, t < 2p, the top word of p below 2^31), and every partial sum
 * is below the whole, so no chain carries out of t[FE_W]. As in the portable 32-bit code, word
 * i of b is read from y[0] and the words rotated, so that the rolled outer loop indexes no
 * array. */
ARITH_FN void FE_FN(mul)(FE_T *r, const FE_T *a, const FE_T *b)
{
    arith_u32 x[FE_W], y[FE_W], p[FE_W], t[FE_W + 1];
    arith_u32 inv = (arith_u32)FE_CONST(INV);
    FE_FN(to_words)(x, a->l);
    FE_FN(to_words)(y, b->l);
    FE_FN(modulus_words)(p);
    ARITH_UNROLL
    for (int j = 0; j < FE_W; j++)
        t[j] = 0;
    ARITH_UNROLL_OUTER
    for (int i = 0; i < FE_W; i++) {
        t[FE_W] = 0;
        FE_FN(mac_words)(t, x, y[0]);
        FE_FN(mac_words)(t, p, t[0] * inv);
        ARITH_UNROLL
        for (int j = 0; j < FE_W; j++)
            t[j] = t[j + 1];
        ARITH_UNROLL
        for (int j = 0; j + 1 < FE_W; j++)
            y[j] = y[j + 1];
    }
    FE_FN(reduce_words)(r, t);
}
#undef FE_W
#elif defined(FE_ASM_FN)
ARITH_FN void FE_FN(add)(FE_T *r, const FE_T *a, const FE_T *b)
{
    static const arith_u64 p[FE_N] = FE_CONST(P);
    FE_ASM_FN(add_)(r->l, a->l, b->l, p);
}
#else
ARITH_FN void FE_FN(add)(FE_T *r, const FE_T *a, const FE_T *b)
{
    arith_u64 t[FE_N];
    arith_u64 carry = 0;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        t[i] = arith_adc(a->l[i], b->l[i], carry, &carry);
    FE_FN(reduce_once)(r, t); /* a + b < 2p < 2^(64*FE_N): no carry out */
}
#endif

ARITH_FN void FE_FN(dbl)(FE_T *r, const FE_T *a)
{
    FE_FN(add)(r, a, a);
}

#if ARITH_PTX_WORDS
/* FE_FN(sub): the carry chains above */
#elif defined(FE_ASM_FN)
ARITH_FN void FE_FN(sub)(FE_T *r, const FE_T *a, const FE_T *b)
{
    static const arith_u64 p[FE_N] = FE_CONST(P);
    FE_ASM_FN(sub_)(r->l, a->l, b->l, p);
}
#else
ARITH_FN void FE_FN(sub)(FE_T *r, const FE_T *a, const FE_T *b)
{
    const arith_u64 p[FE_N] = FE_CONST(P);
    arith_u64 t[FE_N];
    arith_u64 borrow = 0, carry = 0;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        t[i] = arith_sbb(a->l[i], b->l[i], borrow, &borrow);
    arith_u64 mask = (arith_u64)0 - borrow;
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        r->l[i] = arith_adc(t[i], p[i] & mask, carry, &carry);
}
#endif

ARITH_FN void FE_FN(neg)(FE_T *r, const FE_T *a)
{
    FE_T zero;
    FE_FN(set_zero)(&zero);
    FE_FN(sub)(r, &zero, a);
}

#if ARITH_PTX_WORDS
/* FE_FN(mul): the carry chains above */
#elif ARITH_IS_OPENCL && defined(HPR_CL_LIMB32) && HPR_CL_LIMB32
/* OpenCL variant with 32-bit words (build option -DHPR_CL_LIMB32=1): the same CIOS over
 * 2*FE_N words. R = 2^(64*FE_N) = 2^(32*2*FE_N) and -p^-1 mod 2^32 is the low half of INV, so
 * the result has the very same bits; the no-final-carry condition holds for the top 32-bit
 * word of every modulus too. Each product is one 32x32->64 multiplication, which GPUs issue
 * natively, where the 64-bit path needs mul_hi on 64-bit words (emulated). */
ARITH_FN void FE_FN(mul)(FE_T *r, const FE_T *a, const FE_T *b)
{
    const arith_u64 p64[FE_N] = FE_CONST(P);
    arith_u32 p[2 * FE_N], x[2 * FE_N], y[2 * FE_N], t[2 * FE_N];
    arith_u64 t64[FE_N];
    arith_u32 inv = (arith_u32)FE_CONST(INV);
    ARITH_UNROLL
    for (int j = 0; j < FE_N; j++) {
        p[2 * j] = (arith_u32)p64[j];
        p[2 * j + 1] = (arith_u32)(p64[j] >> 32);
        x[2 * j] = (arith_u32)a->l[j];
        x[2 * j + 1] = (arith_u32)(a->l[j] >> 32);
        y[2 * j] = (arith_u32)b->l[j];
        y[2 * j + 1] = (arith_u32)(b->l[j] >> 32);
        t[2 * j] = t[2 * j + 1] = 0;
    }
    /* The outer loop stays rolled (unrolled, the BLS12-381 programs took ptxas many minutes):
     * word i of b is always read from y[0], the words rotated down after each step, so that
     * no array is indexed by the loop counter and all of them stay in registers. */
    ARITH_UNROLL_OUTER
    for (int i = 0; i < 2 * FE_N; i++) {
        arith_u32 yi = y[0];
        arith_u64 s = (arith_u64)x[0] * yi + t[0];
        arith_u32 carry_ab = (arith_u32)(s >> 32), carry_mp, m;
        t[0] = (arith_u32)s;
        m = t[0] * inv;
        s = (arith_u64)m * p[0] + t[0];
        carry_mp = (arith_u32)(s >> 32);
        ARITH_UNROLL
        for (int j = 1; j < 2 * FE_N; j++) {
            s = (arith_u64)x[j] * yi + t[j] + carry_ab;
            t[j] = (arith_u32)s;
            carry_ab = (arith_u32)(s >> 32);
            s = (arith_u64)m * p[j] + t[j] + carry_mp;
            t[j - 1] = (arith_u32)s;
            carry_mp = (arith_u32)(s >> 32);
        }
        t[2 * FE_N - 1] = carry_ab + carry_mp;
        ARITH_UNROLL
        for (int j = 0; j + 1 < 2 * FE_N; j++)
            y[j] = y[j + 1];
    }
    ARITH_UNROLL
    for (int j = 0; j < FE_N; j++)
        t64[j] = (arith_u64)t[2 * j] | ((arith_u64)t[2 * j + 1] << 32);
    FE_FN(reduce_once)(r, t64);
}
#elif defined(FE_ASM_FN)
ARITH_FN void FE_FN(mul)(FE_T *r, const FE_T *a, const FE_T *b)
{
    static const arith_u64 p[FE_N] = FE_CONST(P);
    FE_ASM_FN(mont_mul_)(r->l, a->l, b->l, p, FE_CONST(INV));
}
#else
ARITH_FN void FE_FN(mul)(FE_T *r, const FE_T *a, const FE_T *b)
{
    const arith_u64 p[FE_N] = FE_CONST(P);
    arith_u64 t[FE_N];
    ARITH_UNROLL
    for (int j = 0; j < FE_N; j++)
        t[j] = 0;
#if ARITH_IS_OPENCL
    /* As in the 32-bit variant: word i of b read from y[0], the words rotated after each step,
     * so that the rolled outer loop indexes no array (a GPU would keep b in a stack frame). */
    arith_u64 y[FE_N];
    ARITH_UNROLL
    for (int j = 0; j < FE_N; j++)
        y[j] = b->l[j];
#endif
    for (int i = 0; i < FE_N; i++) {
#if ARITH_IS_OPENCL
        arith_u64 carry_ab, carry_mp, bi = y[0];
        ARITH_UNROLL
        for (int j = 0; j + 1 < FE_N; j++)
            y[j] = y[j + 1];
#else
        arith_u64 carry_ab, carry_mp, bi = b->l[i];
#endif
        t[0] = arith_mac(a->l[0], bi, t[0], 0, &carry_ab);
        arith_u64 m = t[0] * FE_CONST(INV);
        (void)arith_mac(m, p[0], t[0], 0, &carry_mp);
        ARITH_UNROLL
        for (int j = 1; j < FE_N; j++) {
            t[j] = arith_mac(a->l[j], bi, t[j], carry_ab, &carry_ab);
            t[j - 1] = arith_mac(m, p[j], t[j], carry_mp, &carry_mp);
        }
        t[FE_N - 1] = carry_ab + carry_mp;
    }
    FE_FN(reduce_once)(r, t);
}
#endif

ARITH_FN void FE_FN(sqr)(FE_T *r, const FE_T *a)
{
    FE_FN(mul)(r, a, a);
}

/* r = a^e, e given as FE_N little-endian limbs (any integer below 2^(64*FE_N)). Variable time. */
ARITH_FN void FE_FN(pow_var)(FE_T *r, const FE_T *a, const arith_u64 *e)
{
    FE_T acc, base = *a;
    FE_FN(set_one)(&acc);
    for (int i = FE_N - 1; i >= 0; i--) {
        for (int bit = 63; bit >= 0; bit--) {
            FE_FN(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1)
                FE_FN(mul)(&acc, &acc, &base);
        }
    }
    *r = acc;
}

/* r = a^-1 by Fermat (a^(p-2)): OpenCL's inversion, and the host's reference for it. Returns
 * 1, or 0 when a is zero; then r is zero (the documented error value). */
ARITH_FN int FE_FN(inv_fermat)(FE_T *r, const FE_T *a)
{
    const arith_u64 e[FE_N] = FE_CONST(P_MINUS_2);
    if (FE_FN(is_zero)(a)) {
        FE_FN(set_zero)(r);
        return 0;
    }
    FE_FN(pow_var)(r, a, e);
    return 1;
}

/* r = a^-1, the same contract and bits as inv_fermat. Host C: the plain inverse of the
 * Montgomery form aR by divsteps (fe_safegcd.h) is a^-1 R^-1; two multiplications by R^2
 * make it a^-1 R. Variable time. */
#ifdef ARITH_FE_SAFEGCD_H
ARITH_FN int FE_FN(inv)(FE_T *r, const FE_T *a)
{
    const arith_u64 p[FE_N] = FE_CONST(P), r2[FE_N] = FE_CONST(R2);
    FE_T t, rr;
    if (FE_FN(is_zero)(a)) {
        FE_FN(set_zero)(r);
        return 0;
    }
    safegcd_inv(t.l, a->l, p, FE_N);
    FE_FN(set_limbs)(&rr, r2);
    FE_FN(mul)(&t, &t, &rr);
    FE_FN(mul)(r, &t, &rr);
    return 1;
}
#else
ARITH_FN int FE_FN(inv)(FE_T *r, const FE_T *a)
{
    return FE_FN(inv_fermat)(r, a);
}
#endif

/* r = a * R mod p: canonical limbs (< p, the caller checks) -> Montgomery form. */
ARITH_FN void FE_FN(to_mont)(FE_T *r, const arith_u64 *canonical)
{
    const arith_u64 r2[FE_N] = FE_CONST(R2);
    FE_T a, rr;
    FE_FN(set_limbs)(&a, canonical);
    FE_FN(set_limbs)(&rr, r2);
    FE_FN(mul)(r, &a, &rr);
}

/* canonical = a / R mod p: Montgomery form -> canonical limbs. */
ARITH_FN void FE_FN(from_mont)(arith_u64 *canonical, const FE_T *a)
{
    FE_T one_raw, t;
    FE_FN(set_zero)(&one_raw);
    one_raw.l[0] = 1;
    FE_FN(mul)(&t, a, &one_raw);
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        canonical[i] = t.l[i];
}

/* Small integer -> Montgomery form. */
ARITH_FN void FE_FN(set_u64)(FE_T *r, arith_u64 v)
{
    arith_u64 limbs[FE_N];
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        limbs[i] = 0;
    limbs[0] = v;
    FE_FN(to_mont)(r, limbs);
}

/* Little-endian bytes (8*FE_N of them) <-> limbs, no conversion of form. */
ARITH_FN void FE_FN(limbs_from_bytes)(arith_u64 *limbs, const unsigned char *bytes)
{
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++) {
        arith_u64 w = 0;
        for (int k = 7; k >= 0; k--)
            w = (w << 8) | bytes[8 * i + k];
        limbs[i] = w;
    }
}

ARITH_FN void FE_FN(limbs_to_bytes)(unsigned char *bytes, const arith_u64 *limbs)
{
    ARITH_UNROLL
    for (int i = 0; i < FE_N; i++)
        for (int k = 0; k < 8; k++)
            bytes[8 * i + k] = (unsigned char)(limbs[i] >> (8 * k));
}

/* Canonical little-endian bytes -> Montgomery element. Returns 0 (r zeroed) if value >= p. */
ARITH_FN int FE_FN(from_bytes)(FE_T *r, const unsigned char *bytes)
{
    arith_u64 limbs[FE_N];
    FE_FN(limbs_from_bytes)(limbs, bytes);
    if (!FE_FN(limbs_are_reduced)(limbs)) {
        FE_FN(set_zero)(r);
        return 0;
    }
    FE_FN(to_mont)(r, limbs);
    return 1;
}

/* Montgomery element -> canonical little-endian bytes. */
ARITH_FN void FE_FN(to_bytes)(unsigned char *bytes, const FE_T *a)
{
    arith_u64 limbs[FE_N];
    FE_FN(from_mont)(limbs, a);
    FE_FN(limbs_to_bytes)(bytes, limbs);
}

/* Montgomery-form little-endian bytes (the interchange form) -> element; 0 if >= p. */
ARITH_FN int FE_FN(from_mont_bytes)(FE_T *r, const unsigned char *bytes)
{
    arith_u64 limbs[FE_N];
    FE_FN(limbs_from_bytes)(limbs, bytes);
    if (!FE_FN(limbs_are_reduced)(limbs)) {
        FE_FN(set_zero)(r);
        return 0;
    }
    FE_FN(set_limbs)(r, limbs);
    return 1;
}

ARITH_FN void FE_FN(to_mont_bytes)(unsigned char *bytes, const FE_T *a)
{
    FE_FN(limbs_to_bytes)(bytes, a->l);
}

#undef FE_FN
#undef FE_CONST
#undef FE_T
#undef FE_N
#undef FE_K
#undef FE_ASM_FN
