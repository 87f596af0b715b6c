/*
 * poseidon2.h: the Poseidon2 permutation (Grassi, Khovratovich, Schofnegger, eprint 2023/323)
 * on one state of 16 or 24 elements of a 31-bit Montgomery field (BabyBear, KoalaBear),
 * shared by host C11 and OpenCL C 1.2 (arith/compat.h): the portable CPU tier
 * (kernels_cpu/poseidon2_cpu.c) and the OpenCL kernels (kernels_cl/poseidon2.cl) run this
 * very source, and the SIMD tiers follow it lane for lane.
 *
 * What it computes, as Plonky3's Poseidon2 (poseidon2/src, monty-31/src/poseidon2.rs):
 *   external layer once; rounds_f / 2 external rounds (add a row of constants, S-box on every
 *   element, external layer); rounds_p internal rounds (add a constant to element 0, S-box on
 *   element 0, internal layer); rounds_f / 2 external rounds with the final rows.
 *   External layer ("mds_light"): y = M4 x on each block of 4 elements, M4 =
 *   [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]]; then out[i] = y[i] + sum_b y[4b + i mod 4].
 *   Internal layer: out[i] = V[i] x[i] + sum_j x[j] (the matrix 1 + Diag(V)).
 *   S-box: x^3 (KoalaBear) or x^7 (BabyBear).
 * Method: every element and constant is a reduced Montgomery residue a R mod p (R = 2^32,
 * small_fields.h); sums use one conditional subtraction, products one Montgomery reduction.
 * The internal layer multiplies by V directly (one form for every diagonal) except at 0,
 * where V[0] = -2 gives out[0] = sum_{j>0} x[j] - x[0]: no product on the chain from one
 * round's S-box to the next, and sum_{j>0} x[j] is formed while the S-box runs. M4 takes 8
 * additions (x0 + x1, x2 + x3 and their sum shared by the rows; each partial sum reduced).
 * Cost per permutation (width t, degree d): (R_F t + R_P) S-boxes of 2 (d = 3) or 4 (d = 7)
 * products, R_P t products in the internal layers, about (R_F + 1)(3 t) and R_P (2 t) sums.
 * Every loop over the state is marked ARITH_UNROLL: in the OpenCL kernels, where the width is a
 * literal after inlining, the state then lives in registers (not a stack frame) on GPUs.
 * Constants are read through P2_CONST pointers: `ARITH_GLOBAL const` by default (host: plain
 * const; OpenCL: __global const); an OpenCL program that keeps them in __constant memory
 * defines P2_CONST as `__constant` before including this header.
 * Contracts: p < 2^31 odd, pinv = -p^-1 mod 2^32; width 8, 12, ..., 24; rounds_f even;
 * sbox_degree 3 or 7; diag[0] = -2; every input and constant reduced (< p); outputs reduced.
 */
#ifndef ARITH_POSEIDON2_H
#define ARITH_POSEIDON2_H

#include "small_fields.h"

#ifndef P2_CONST
#define P2_CONST ARITH_GLOBAL const
#endif

#define P2_MAX_WIDTH 24

/* a + b mod p (reduced inputs) */
ARITH_FN arith_u32 p2_add(arith_u32 a, arith_u32 b, arith_u32 p)
{
    arith_u32 s = a + b;
    return s >= p ? s - p : s;
}

/* a b R^-1 mod p (reduced inputs) */
ARITH_FN arith_u32 p2_mul(arith_u32 a, arith_u32 b, arith_u32 p, arith_u32 pinv)
{
    return m31_mont_reduce((arith_u64)a * b, p, pinv);
}

/* x^degree, degree 3 or 7 */
ARITH_FN arith_u32 p2_sbox(arith_u32 x, unsigned degree, arith_u32 p, arith_u32 pinv)
{
    arith_u32 x2 = p2_mul(x, x, p, pinv);
    arith_u32 x3 = p2_mul(x2, x, p, pinv);
    if (degree == 3)
        return x3;
    return p2_mul(x3, p2_mul(x2, x2, p, pinv), p, pinv);
}

/* x[0..4) = M4 x[0..4) */
ARITH_FN void p2_mat4(arith_u32 *x, arith_u32 p)
{
    arith_u32 t01 = p2_add(x[0], x[1], p);
    arith_u32 t23 = p2_add(x[2], x[3], p);
    arith_u32 t0123 = p2_add(t01, t23, p);
    arith_u32 t01123 = p2_add(t0123, x[1], p);
    arith_u32 t01233 = p2_add(t0123, x[3], p);
    arith_u32 x0 = x[0], x2 = x[2];
    x[3] = p2_add(t01233, p2_add(x0, x0, p), p); /* 3 x0 + x1 + x2 + 2 x3 */
    x[1] = p2_add(t01123, p2_add(x2, x2, p), p); /* x0 + 2 x1 + 3 x2 + x3 */
    x[0] = p2_add(t01123, t01, p);               /* 2 x0 + 3 x1 + x2 + x3 */
    x[2] = p2_add(t01233, t23, p);               /* x0 + x1 + 2 x2 + 3 x3 */
}

/* the external linear layer on s[0..width) */
ARITH_FN void p2_external_layer(arith_u32 *s, unsigned width, arith_u32 p)
{
    ARITH_UNROLL
    for (unsigned b = 0; b < width; b += 4)
        p2_mat4(s + b, p);
    ARITH_UNROLL
    for (unsigned k = 0; k < 4; k++) {
        arith_u32 column = s[k];
        ARITH_UNROLL
        for (unsigned b = 4; b < width; b += 4)
            column = p2_add(column, s[b + k], p);
        ARITH_UNROLL
        for (unsigned b = 0; b < width; b += 4)
            s[b + k] = p2_add(s[b + k], column, p);
    }
}

/* a - b mod p (reduced inputs) */
ARITH_FN arith_u32 p2_sub(arith_u32 a, arith_u32 b, arith_u32 p)
{
    return a >= b ? a - b : a + p - b;
}

/* The internal linear layer on s[0..width): s[i] = diag[i] s[i] + sum_j s[j]. diag[0] must be
 * -2 (as in all of Plonky3's 31-bit instances): out[0] = sum_{j>0} s[j] - s[0], no product on
 * the chain from one round's S-box to the next. */
ARITH_FN void p2_internal_layer(arith_u32 *s, unsigned width, P2_CONST arith_u32 *diag, arith_u32 p,
                                arith_u32 pinv)
{
    /* sum_{j>0} s[j] in four partial sums, s[0] (the S-box's output) added last */
    arith_u32 a0 = s[4], a1 = s[5], a2 = s[6], a3 = s[7];
    ARITH_UNROLL
    for (unsigned i = 8; i < width; i += 4) {
        a0 = p2_add(a0, s[i], p);
        a1 = p2_add(a1, s[i + 1], p);
        a2 = p2_add(a2, s[i + 2], p);
        a3 = p2_add(a3, s[i + 3], p);
    }
    arith_u32 head = p2_add(p2_add(s[1], s[2], p), s[3], p);
    arith_u32 rest = p2_add(p2_add(p2_add(a0, a1, p), p2_add(a2, a3, p), p), head, p);
    arith_u32 sum = p2_add(rest, s[0], p);
    s[0] = p2_sub(rest, s[0], p);
    ARITH_UNROLL
    for (unsigned i = 1; i < width; i++)
        s[i] = p2_add(p2_mul(diag[i], s[i], p, pinv), sum, p);
}

/* rounds external rounds from the constant rows rc (rounds rows of width) */
ARITH_FN void p2_external_rounds(arith_u32 *s, unsigned width, unsigned rounds, unsigned sbox_degree,
                                 P2_CONST arith_u32 *rc, arith_u32 p, arith_u32 pinv)
{
    for (unsigned r = 0; r < rounds; r++) {
        ARITH_UNROLL
        for (unsigned i = 0; i < width; i++)
            s[i] = p2_sbox(p2_add(s[i], rc[r * width + i], p), sbox_degree, p, pinv);
        p2_external_layer(s, width, p);
    }
}

/* The permutation of s[0..width) (Montgomery form) in place. rc_ext: rounds_f rows of width
 * constants (the initial rows, then the final ones), rc_int: rounds_p constants, diag: V, all
 * in Montgomery form. */
ARITH_FN void p2_permute_state(arith_u32 *s, unsigned width, unsigned rounds_f, unsigned rounds_p,
                               unsigned sbox_degree, arith_u32 p, arith_u32 pinv, P2_CONST arith_u32 *rc_ext,
                               P2_CONST arith_u32 *rc_int, P2_CONST arith_u32 *diag)
{
    unsigned rounds_half = rounds_f / 2;
    p2_external_layer(s, width, p);
    p2_external_rounds(s, width, rounds_half, sbox_degree, rc_ext, p, pinv);
    for (unsigned r = 0; r < rounds_p; r++) {
        s[0] = p2_sbox(p2_add(s[0], rc_int[r], p), sbox_degree, p, pinv);
        p2_internal_layer(s, width, diag, p, pinv);
    }
    p2_external_rounds(s, width, rounds_half, sbox_degree, rc_ext + rounds_half * width, p, pinv);
}

#endif
