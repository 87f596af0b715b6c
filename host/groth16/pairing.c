/*
 * pairing.c: the optimal ate pairings e: G1 x G2 -> GT of BN254 and BLS12-381, as products
 * of pairs (the Groth16 check e(-A, B) e(alpha, beta) e(vk_x, gamma) e(C, delta) = 1).
 *
 * Method: the Miller loop over the bits of 6u + 2 (BN254) or |u| (BLS12-381, u < 0: the
 * result conjugated) with T in affine coordinates on the twist (one Fq2 inversion per step),
 * each line mapped into Fq12 = Fq6[w]/(w^2 - v), Fq6 = Fq2[v]/(v^3 - xi) (arith/fe12_impl.h)
 * through the twist's isomorphism, scaled by a constant of Fq2 where that makes it sparse;
 * BN254's two extra lines with pi(Q) and -pi^2(Q) (the Frobenius on the twist:
 * arith/constants_gen.h's GAMMA constants); then one final exponentiation to (p^12 - 1) / r
 * by square-and-multiply over the exponent's bits (scripts/gen_constants.py computes it).
 * Why this plain form: a verification is four Miller loops and one final exponentiation,
 * a few milliseconds this way; the fast forms (projective lines, cyclotomic squarings, the
 * hard part by the curve parameter) change the cost, not the value, and this one is short
 * enough to check line by line. Constant factors in Fq6 (the lines' scalings, the verticals
 * that the affine form never meets) vanish in the final exponentiation, whose exponent is a
 * multiple of p^6 - 1. Variable time: verification inputs are public.
 */
#include "host/groth16/pairing.h"

#include "arith/curves.h"

#include <string.h>

#define FE12_P bn254
#define FE12_F2 bn254_fq2
#define FE12_XI BN254_PAIRING_XI
#include "arith/fe12_impl.h"

#define FE12_P bls12_381
#define FE12_F2 bls12_381_fq2
#define FE12_XI BLS12_381_PAIRING_XI
#include "arith/fe12_impl.h"

#define PR_P bn254
#define PR_K BN254_PAIRING
#define PR_D_TWIST 1
#include "host/groth16/pairing_impl.h"

#define PR_P bls12_381
#define PR_K BLS12_381_PAIRING
#define PR_D_TWIST 0
#include "host/groth16/pairing_impl.h"

int pairing_product_is_one(hpr_curve curve, const pairing_pair *pairs, size_t n)
{
    if (curve == HPR_CURVE_BN254) {
        bn254_fq12 f;
        return bn254_pairing_product(&f, pairs, n) != 0 ? -1 : bn254_fq12_is_one(&f);
    }
    if (curve == HPR_CURVE_BLS12_381) {
        bls12_381_fq12 f;
        return bls12_381_pairing_product(&f, pairs, n) != 0 ? -1 : bls12_381_fq12_is_one(&f);
    }
    return -1;
}

int pairing_product_value(hpr_curve curve, const pairing_pair *pairs, size_t n, uint64_t *out)
{
    if (curve == HPR_CURVE_BN254) {
        bn254_fq12 f;
        const bn254_fp *c = (const bn254_fp *)(const void *)&f;
        if (bn254_pairing_product(&f, pairs, n) != 0)
            return -1;
        for (int i = 0; i < 12; i++)
            bn254_fp_from_mont(out + 4 * i, &c[i]);
        return 0;
    }
    if (curve == HPR_CURVE_BLS12_381) {
        bls12_381_fq12 f;
        const bls12_381_fp *c = (const bls12_381_fp *)(const void *)&f;
        if (bls12_381_pairing_product(&f, pairs, n) != 0)
            return -1;
        for (int i = 0; i < 12; i++)
            bls12_381_fp_from_mont(out + 6 * i, &c[i]);
        return 0;
    }
    return -1;
}
